//! A coronal pre-placement: the queens of the two outer rings, side by side.
//!
//! Cells are (x, y): column x, row y, both 0..N-1. Each side is written in its own frame, as
//! if the board were turned so that the side is west (docs/spec/protocol.md):
//! west (wa, wb) rows of the queens in columns 0 and 1; north (na, nb) columns of the queens in
//! rows N-1 and N-2; east (ea, eb) N-1 minus the rows of the queens in columns N-1 and N-2;
//! south (sa, sb) N-1 minus the columns of the queens in rows 0 and 1. A corner queen belongs
//! to two sides and appears in both.

use crate::board::{BoardSize, PairTable};
use crate::error::ModelError;
use serde::{Deserialize, Serialize};

pub const FIELD_NAMES: [&str; 8] = ["wa", "wb", "na", "nb", "ea", "eb", "sa", "sb"];

/// Symmetry class of a canonical pre-placement. The discriminants are the database codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Symmetry {
    /// Invariant under quarter turns: an orbit of 2 boards.
    Rotate = 1,
    /// Invariant under the half turn only: an orbit of 4 boards.
    Point = 2,
    /// No symmetry: an orbit of 8 boards.
    None = 3,
}

impl Symmetry {
    pub const ALL: [Symmetry; 3] = [Symmetry::None, Symmetry::Point, Symmetry::Rotate];

    /// How many boards of the full puzzle one solution of this class stands for.
    pub fn weight(self) -> u64 {
        1 << (self as u32)
    }

    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(code: u64) -> Result<Self, ModelError> {
        match code {
            1 => Ok(Symmetry::Rotate),
            2 => Ok(Symmetry::Point),
            3 => Ok(Symmetry::None),
            _ => Err(ModelError::EntryField {
                field: "symmetry",
                value: code,
            }),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Symmetry::Rotate => "ROTATE",
            Symmetry::Point => "POINT",
            Symmetry::None => "NONE",
        }
    }

    /// Position in per-class arrays, in the order of [`Symmetry::ALL`].
    pub fn slot(self) -> usize {
        3 - self as usize
    }
}

impl std::fmt::Display for Symmetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The eight coordinates wa, wb, na, nb, ea, eb, sa, sb of a valid coronal pre-placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Preplacement {
    size: BoardSize,
    coords: [u8; 8],
}

impl Preplacement {
    /// Checks that the coordinates are in range and that the queens they name form a valid
    /// ring: one queen in each of the 8 outer lines, none attacking another.
    pub fn new(size: BoardSize, coords: [u32; 8]) -> Result<Self, ModelError> {
        let n = size.n();
        for (field, &value) in FIELD_NAMES.iter().zip(&coords) {
            if value >= n {
                return Err(ModelError::Coordinate { field, value, n });
            }
        }
        let p = Self {
            size,
            coords: coords.map(|c| c as u8),
        };
        p.check_ring()?;
        Ok(p)
    }

    /// For callers that built the coordinates by a valid placement (the enumerator).
    pub(crate) fn from_valid(size: BoardSize, coords: [u32; 8]) -> Self {
        Self {
            size,
            coords: coords.map(|c| c as u8),
        }
    }

    pub fn size(&self) -> BoardSize {
        self.size
    }

    pub fn coords(&self) -> [u32; 8] {
        self.coords.map(u32::from)
    }

    /// Side k (0 west, 1 north, 2 east, 3 south) as its pair (a, b).
    pub fn side(&self, k: usize) -> (u32, u32) {
        (self.coords[2 * k] as u32, self.coords[2 * k + 1] as u32)
    }

    /// Pair indices (w, n, e, s) of the four sides.
    pub fn side_indices(&self, table: &PairTable) -> [u32; 4] {
        std::array::from_fn(|k| {
            let (a, b) = self.side(k);
            table
                .index(a, b)
                .expect("a valid pre-placement has valid side pairs")
        })
    }

    /// The cells of the eight side queens (corner queens appear twice).
    pub fn cells(&self) -> [(u32, u32); 8] {
        let n1 = self.size.n() - 1;
        let c = self.coords();
        [
            (0, c[0]),
            (1, c[1]),
            (c[2], n1),
            (c[3], n1 - 1),
            (n1, n1 - c[4]),
            (n1 - 1, n1 - c[5]),
            (n1 - c[6], 0),
            (n1 - c[7], 1),
        ]
    }

    /// The distinct queens of the ring.
    pub fn queens(&self) -> Vec<(u32, u32)> {
        let mut q: Vec<_> = self.cells().to_vec();
        q.sort_unstable();
        q.dedup();
        q
    }

    /// The image under a quarter turn that brings the north side to the west.
    pub fn rotated(&self) -> Self {
        let c = self.coords;
        Self {
            size: self.size,
            coords: [c[2], c[3], c[4], c[5], c[6], c[7], c[0], c[1]],
        }
    }

    /// The image under the flip about the main diagonal, (x, y) -> (y, x).
    pub fn transposed(&self) -> Self {
        let m = (self.size.n() - 1) as u8;
        let c = self.coords.map(|v| m - v);
        Self {
            size: self.size,
            coords: [c[6], c[7], c[4], c[5], c[2], c[3], c[0], c[1]],
        }
    }

    /// All eight images under the symmetries of the square (the first is `self`).
    pub fn images(&self) -> [Self; 8] {
        let mut out = [*self; 8];
        for k in 1..4 {
            out[k] = out[k - 1].rotated();
        }
        for k in 0..4 {
            out[4 + k] = out[k].transposed();
        }
        out
    }

    fn check_ring(&self) -> Result<(), ModelError> {
        let n = self.size.n();
        let queens = self.queens();
        let fail = |reason: String| ModelError::InvalidPlacement {
            coords: self.to_string(),
            n,
            reason,
        };
        for (i, &(x0, y0)) in queens.iter().enumerate() {
            for &(x1, y1) in &queens[i + 1..] {
                if x0 == x1 || y0 == y1 || x0.abs_diff(x1) == y0.abs_diff(y1) {
                    return Err(fail(format!(
                        "queens ({x0},{y0}) and ({x1},{y1}) attack each other"
                    )));
                }
            }
        }
        // Each outer line holds exactly one queen: the one its side names (no attacks above
        // means at most one, so check the named queen is really there).
        let lines_x = [0, 1, n - 2, n - 1];
        for &x in &lines_x {
            if !queens.iter().any(|q| q.0 == x) {
                return Err(fail(format!("column {x} has no queen")));
            }
            if !queens.iter().any(|q| q.1 == x) {
                return Err(fail(format!("row {x} has no queen")));
            }
        }
        Ok(())
    }
}

impl std::fmt::Display for Preplacement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = self.coords;
        write!(
            f,
            "w({},{}) n({},{}) e({},{}) s({},{})",
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]
        )
    }
}

/// A canonical pre-placement with its symmetry class: one subproblem of Q(N).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Subproblem {
    pub pre: Preplacement,
    pub sym: Symmetry,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_attacking_queens() {
        let s = BoardSize::new(8).unwrap();
        // wa = 3, wb = 5 are valid; na = 0 puts a queen at (0, 7): column 0 holds two queens.
        let err = Preplacement::new(s, [3, 5, 0, 2, 1, 3, 1, 3]).unwrap_err();
        assert!(matches!(err, ModelError::InvalidPlacement { .. }), "{err}");
        let err = Preplacement::new(s, [3, 9, 0, 2, 1, 3, 1, 3]).unwrap_err();
        assert_eq!(
            err,
            ModelError::Coordinate {
                field: "wb",
                value: 9,
                n: 8
            }
        );
    }
}
