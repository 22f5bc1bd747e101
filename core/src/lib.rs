//! The N-Queens problem model shared by the circuits, the simulator and the host.
//!
//! One home for each concept: [`board`] (sizes and side pairs), [`preplacement`] (a coronal
//! ring and its symmetry class), [`enumerate`] (the canonical order of subproblems),
//! [`word`] (the pre-placement word), [`frame`] (wire frames and CRC-8), [`result`] (the
//! record a board returns), [`entry`] (the 16-byte database entry), [`blocking`] (the inner
//! board a solver starts from), [`search`] (the search of one pre-placement), [`sweep`] (the
//! search of all pre-placements that differ only in their south side), [`south`] (the same
//! group as one walk of a grouped unit), [`count`] (Q(N) over
//! all of them), [`unit`](mod@unit) (the kinds of solver unit a board is built of) and [`plain`]
//! (an independent whole-board counter for cross-checks).

pub mod blocking;
pub mod board;
pub mod count;
pub mod deframe;
pub mod entry;
pub mod enumerate;
pub mod error;
pub mod frame;
pub mod group;
pub mod ident;
pub mod plain;
pub mod preplacement;
pub mod result;
pub mod search;
pub mod south;
pub mod sweep;
pub mod unit;
pub mod word;

/// Smallest board with a coronal pre-placement model (the inner board is 2 × 2). Here, at the
/// root, because both [`board`] and [`error`] name the range.
pub const MIN_N: u32 = 6;
/// Largest board: 5-bit coordinates, rows of the board in a `u32`.
pub const MAX_N: u32 = 32;

pub use blocking::{Blocking, Orientation};
pub use board::BoardSize;
pub use count::{completions, Tally};
pub use entry::Entry;
pub use enumerate::{Census, Enumerator};
pub use error::ModelError;
pub use preplacement::{Preplacement, Subproblem, Symmetry};
pub use result::ResultRecord;
pub use unit::UnitKind;
