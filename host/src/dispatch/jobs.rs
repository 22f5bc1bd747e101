//! The outstanding subproblems (jobs): where each is, what it waits for, which links it went
//! to; and the counted ones remembered to recognise their duplicates.

use std::time::Instant;

/// One bit per link.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Mask(pub(super) u64);

impl Mask {
    pub(super) fn has(self, l: usize) -> bool {
        self.0 >> l & 1 == 1
    }

    pub(super) fn with(self, l: usize) -> Mask {
        Mask(self.0 | 1 << l)
    }

    pub(super) fn without(self, l: usize) -> Mask {
        Mask(self.0 & !(1 << l))
    }
}

/// Who gave a count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    Board(usize),
    Software,
}

/// What an outstanding subproblem waits for.
pub(super) enum Purpose {
    /// Its first count.
    Count,
    /// A second board's count of a result `by` counted as `count`.
    Check { count: u64, by: usize },
    /// Counts from independent sources, until two agree; `stored` is in the store.
    Dispute { votes: Vec<(Source, u64)>, stored: u64 },
}

pub(super) struct Job {
    pub(super) index: u64,
    /// The link it is on, when it was sent, and when it is due.
    pub(super) on: Option<(usize, Instant, Instant)>,
    /// Times it went back to the queue.
    pub(super) attempts: u32,
    /// Subproblems its link held with it, when it was sent.
    pub(super) depth: usize,
    /// The group word of the request it went out in, on a board of grouped units.
    pub(super) group: Option<u64>,
    /// Links it was sent to on their current connection: only their answers count.
    pub(super) sent: Mask,
    /// Links it should not go to while another can take it (or, when `strict`, at all:
    /// a check or a dispute needs another source).
    pub(super) avoid: Mask,
    pub(super) strict: bool,
    pub(super) purpose: Purpose,
}

/// A purpose without its votes.
#[derive(Clone, Copy)]
pub(super) enum Kind {
    Count,
    Check { count: u64, by: usize },
    Dispute,
}

impl Purpose {
    pub(super) fn kind(&self) -> Kind {
        match *self {
            Purpose::Count => Kind::Count,
            Purpose::Check { count, by } => Kind::Check { count, by },
            Purpose::Dispute { .. } => Kind::Dispute,
        }
    }
}

impl Job {
    pub(super) fn new(index: u64, purpose: Purpose) -> Self {
        Job {
            index,
            on: None,
            attempts: 0,
            depth: 0,
            group: None,
            sent: Mask::default(),
            avoid: Mask::default(),
            strict: false,
            purpose,
        }
    }
}

/// A counted subproblem, remembered to recognise its duplicates and contradictions.
#[derive(Clone, Copy)]
pub(super) struct Counted {
    pub(super) index: u64,
    pub(super) count: u64,
    pub(super) by: usize,
    pub(super) sent: Mask,
}
