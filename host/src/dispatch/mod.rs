//! The dispatcher: which subproblem goes to which link, and what each returned frame means.
//! No I/O here: the runner feeds it bytes, the clock and the software recomputations it asked
//! for, and sends what it returns, so every rule below is tested without threads or sockets.
//!
//! Rules:
//! - A link holds at most its window of subproblems. The window is learned as TCP learns its
//!   own: it starts small, grows while results come back and halves when one goes missing,
//!   never beyond the link's limit (`--solvers` plus the margin).
//! - A result counts only from a link its subproblem was sent to, while it is outstanding;
//!   then it leaves the outstanding set, so nothing is counted twice. A subproblem whose
//!   result does not come back in time goes back to the queue, preferably for another link,
//!   with twice the timeout each time.
//! - Trust is earned: every result of a link's first [`Trust::probation`] and a random
//!   [`Trust::verify`] share of the rest are recomputed by another source, in software where
//!   that is cheap and on another board otherwise (every result when software is cheaper than
//!   the frame). A disagreement is settled only when two independent sources (two boards, or a
//!   board and software) agree; a board whose count differs from the settled one, or from
//!   software, or from its own earlier count, is quarantined: its link is dropped and every
//!   result it ever gave (in any session) is withdrawn and computed again elsewhere.
//! - A link that sends no valid frame (another protocol, another N, garbage) is dropped; the
//!   others go on.
//!
//! One file a concept: `dispatcher` (its state and the links coming and going), `queue`
//! (sending), `results` (receiving), `trust` (verification), `disputes` (disputes and
//! quarantine), `window` (the learned window), `jobs` (outstanding subproblems). How a
//! link's bytes become frames, and which variant a board sends, is the link layer's
//! ([`crate::link::framing`]).

mod counters;
mod dispatcher;
mod disputes;
mod jobs;
mod link_state;
mod queue;
mod results;
mod timeouts;
mod trust;
mod window;
mod word_map;

pub use counters::Counters;
pub use dispatcher::Dispatcher;
pub use link_state::LinkState;
pub use timeouts::{Pace, Timeouts, ASSUMED_HZ};
pub use trust::Trust;

use crate::store::StoreError;

/// Links a dispatcher can drive (one bit each in a job's masks).
pub const MAX_LINKS: usize = 64;

#[derive(Debug, thiserror::Error)]
pub enum DispatchError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("more than {MAX_LINKS} links in one run")]
    TooManyLinks,
    #[error("group {group:#x}: two south sides' counts wrapped a grouped unit's {bits}-bit tally too close together for both to be reported, so no board of grouped units can count this group; every result taken so far is stored: count the rest with plain units (`--unit plain`)", bits = queens_core::group::TALLY_BITS)]
    WrapLost { group: u64 },
}
