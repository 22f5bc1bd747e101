//! The nodes a walk has yet to expand, one buffer per level, and the portable expansion.

/// Nodes expanded together: sixteen vectors of eight lanes (64 nodes were 3% slower at
/// N = 17, 256 no faster).
pub const CHUNK: usize = 128;

/// Slack past a level's last node, for whole-vector stores.
const SLACK: usize = 8;

/// The pending nodes of one level, as three columns: free columns, and the inner queens'
/// diagonal attacks in the level's row, `a` moving left and `b` moving right row by row.
pub struct Level {
    pub free: Box<[u32]>,
    pub a: Box<[u32]>,
    pub b: Box<[u32]>,
    pub len: usize,
}

impl Level {
    fn new(capacity: usize) -> Self {
        let column = || vec![0; capacity + SLACK].into_boxed_slice();
        Level {
            free: column(),
            a: column(),
            b: column(),
            len: 0,
        }
    }

    pub fn push(&mut self, free: u32, a: u32, b: u32) {
        self.free[self.len] = free;
        self.a[self.len] = a;
        self.b[self.len] = b;
        self.len += 1;
    }
}

/// A buffer for each level of a walk over an inner board of width `inner`, and how many
/// nodes are expanded at a time.
pub struct Frontier {
    pub levels: Vec<Level>,
    pub chunk: usize,
}

impl Frontier {
    pub fn new(inner: u32, chunk: usize) -> Self {
        // A level holds under a chunk, then at most a chunk's children: a row has at most
        // `inner` candidates.
        let capacity = chunk * (inner as usize + 1);
        Frontier {
            levels: (0..=inner).map(|_| Level::new(capacity)).collect(),
            chunk,
        }
    }
}

/// Takes up to `chunk` nodes off the end of `src`, in a row with attacks `ring`, and
/// appends their children to `dst`, whose row is `shift` rows further down.
pub fn expand(chunk: usize, ring: u32, shift: u32, src: &mut Level, dst: &mut Level) {
    let start = src.len.saturating_sub(chunk);
    for j in start..src.len {
        let (free, a, b) = (src.free[j], src.a[j], src.b[j]);
        let mut cand = free & !(a | b | ring);
        while cand != 0 {
            let q = cand & cand.wrapping_neg();
            cand ^= q;
            dst.push(free ^ q, (a | q) << shift, (b | q) >> shift);
        }
    }
    src.len = start;
}
