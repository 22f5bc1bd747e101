//! An independent counter over the whole board: no rings, no symmetry classes, only the
//! left-right mirror. It exists to cross-check the pre-placement path in tests.

use rayon::prelude::*;

fn dfs(full: u32, cols: u32, left: u32, right: u32) -> u64 {
    if cols == full {
        return 1;
    }
    let mut free = full & !(cols | left | right);
    let mut n = 0;
    while free != 0 {
        let q = free & free.wrapping_neg();
        free ^= q;
        n += dfs(full, cols | q, (left | q) << 1, (right | q) >> 1);
    }
    n
}

/// Q(n) for 1 <= n <= 31, counted row by row; the first row's queen is placed in the left
/// half and doubled, the middle column of an odd board counted once.
pub fn plain_count(n: u32) -> u64 {
    assert!((1..=31).contains(&n), "plain_count supports 1 <= n <= 31");
    let full = (1u32 << n) - 1;
    let first = |c: u32| {
        let q = 1u32 << c;
        dfs(full, q, q << 1, q >> 1)
    };
    let half: u64 = (0..n / 2).into_par_iter().map(first).sum();
    2 * half + if n % 2 == 1 { first(n / 2) } else { 0 }
}
