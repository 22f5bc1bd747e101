//! Board size and the table of two-line side placements.

use crate::error::ModelError;

/// Depth of the coronal pre-placement: the outer `L` rings are fixed by the host.
pub const RINGS: u32 = 2;

/// Bits per coordinate on the wire for board size `n`: ceil(log2 N). A `const fn` so that the
/// circuits can size their wire words at compile time.
pub const fn coord_bits(n: u32) -> u32 {
    u32::BITS - (n - 1).leading_zeros()
}

pub use crate::{MAX_N, MIN_N};

/// A validated board size with the derived constants every encoding uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BoardSize {
    n: u32,
}

impl BoardSize {
    pub fn new(n: u32) -> Result<Self, ModelError> {
        if (MIN_N..=MAX_N).contains(&n) {
            Ok(Self { n })
        } else {
            Err(ModelError::BoardSize { n })
        }
    }

    /// Every board size, smallest first.
    pub fn all() -> impl Iterator<Item = BoardSize> {
        (MIN_N..=MAX_N).map(|n| Self { n })
    }

    pub fn n(self) -> u32 {
        self.n
    }

    /// Width of the inner board that the solver units exhaust.
    pub fn inner(self) -> u32 {
        self.n - 2 * RINGS
    }

    /// Bits per coordinate on the wire: ceil(log2 N).
    pub fn coord_bits(self) -> u32 {
        coord_bits(self.n)
    }

    /// Number of side placements (a, b) with |a - b| > 1: (N-2)(N-1).
    pub fn pairs(self) -> u32 {
        (self.n - 2) * (self.n - 1)
    }

    /// Largest west pair index a canonical pre-placement can have: (N/2)(N-3).
    pub fn west_bound(self) -> u32 {
        (self.n / 2) * (self.n - 3)
    }

    /// Mask of the N cells of one line.
    pub fn full(self) -> u32 {
        if self.n == 32 {
            u32::MAX
        } else {
            (1 << self.n) - 1
        }
    }
}

/// Board sizes as people type them: a whole number, surrounding blanks ignored.
impl std::str::FromStr for BoardSize {
    type Err = ModelError;

    fn from_str(s: &str) -> Result<Self, ModelError> {
        let n = s
            .trim()
            .parse()
            .map_err(|_| ModelError::BoardSizeText { text: s.into() })?;
        Self::new(n)
    }
}

impl std::fmt::Display for BoardSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.n)
    }
}

/// Lexicographic numbering of the side placements (a, b), |a - b| > 1.
#[derive(Debug, Clone)]
pub struct PairTable {
    size: BoardSize,
    index: [[u16; 32]; 32],
    pairs: Vec<(u8, u8)>,
}

impl PairTable {
    pub fn new(size: BoardSize) -> Self {
        let n = size.n();
        let mut index = [[u16::MAX; 32]; 32];
        let mut pairs = Vec::with_capacity(size.pairs() as usize);
        for a in 0..n {
            for b in 0..n {
                if a.abs_diff(b) > 1 {
                    index[a as usize][b as usize] = pairs.len() as u16;
                    pairs.push((a as u8, b as u8));
                }
            }
        }
        debug_assert_eq!(pairs.len() as u32, size.pairs());
        Self { size, index, pairs }
    }

    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// Index of the pair (a, b); `None` when |a - b| <= 1 or out of range.
    pub fn index(&self, a: u32, b: u32) -> Option<u32> {
        let i = *self.index.get(a as usize)?.get(b as usize)?;
        (i != u16::MAX).then_some(i as u32)
    }

    /// Index of a pair known to be valid (hot path of the enumeration).
    #[inline(always)]
    pub(crate) fn index_unchecked(&self, a: u32, b: u32) -> u32 {
        self.index[a as usize][b as usize] as u32
    }

    pub fn pair(&self, i: u32) -> (u32, u32) {
        let (a, b) = self.pairs[i as usize];
        (a as u32, b as u32)
    }

    /// Index of the mirrored pair (N-1-a, N-1-b): mirroring reverses the order.
    pub fn mirror(&self, i: u32) -> u32 {
        self.size.pairs() - 1 - i
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_out_of_range_are_rejected() {
        assert!(BoardSize::new(5).is_err());
        assert!(BoardSize::new(33).is_err());
        let all: Vec<u32> = BoardSize::all().map(BoardSize::n).collect();
        assert_eq!(all, (6..=32).collect::<Vec<_>>());
        assert_eq!(" 27 ".parse::<BoardSize>(), BoardSize::new(27));
        assert_eq!("33".parse::<BoardSize>(), Err(ModelError::BoardSize { n: 33 }));
        let e = "x".parse::<BoardSize>().unwrap_err();
        assert_eq!(e.to_string(), "board size \"x\": expected a whole number 6..=32");
        assert_eq!(BoardSize::new(27).unwrap().coord_bits(), 5);
        assert_eq!(BoardSize::new(16).unwrap().coord_bits(), 4);
        assert_eq!(BoardSize::new(17).unwrap().coord_bits(), 5);
        assert_eq!(BoardSize::new(32).unwrap().coord_bits(), 5);
        assert_eq!(BoardSize::new(8).unwrap().coord_bits(), 3);
    }

    #[test]
    fn mirror_reverses_the_pair_order() {
        for size in BoardSize::all() {
            let (n, t) = (size.n(), PairTable::new(size));
            for i in 0..t.size().pairs() {
                let (a, b) = t.pair(i);
                assert_eq!(t.index(n - 1 - a, n - 1 - b), Some(t.mirror(i)));
            }
        }
    }
}
