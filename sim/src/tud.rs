//! The Queens@TUD solver unit (`queens_slice`, preusser/q27 commit c8df61d) as a cycle count,
//! so that our unit can be compared with it at any N rather than on three fixed sets.
//!
//! Written from the behaviour of its VHDL (the repository is read, not copied): one column is
//! active at a time, and each clock cycle its carry-chain arbiter searches that column once
//! (from the bottom when the column has just been entered, from just above its queen after a
//! return) and does one of:
//! - *put*: a free row was found (or the column is pre-occupied by the ring, which "finds" no
//!   queen): place it and make the next column active;
//! - *back*: nothing was found: lift the queen of the column before and make it active.
//!
//! In the last column a found row is a solution, and the cycle goes back as if none was found.
//! The unit is done on the cycle its first column finds nothing more. The cycle that loads a
//! subproblem (`start`) is not counted.
//!
//! The unit walks the columns left to right as the pre-placement is given (it has no choice
//! of orientation), so it walks the same tree as our unit on an unturned board, at another
//! price per node: a node with k children costs k + 1 cycles (k puts and the search that finds
//! nothing), a node in the last column 1. [`crate::probe`] sums and probes both prices over
//! the same tree.

/// Cycles Queens@TUD's unit spends at the node of depth `c` (of `m` inner columns) with `k`
/// children; a column the ring fills has one child.
#[inline(always)]
pub fn node_cycles(c: u32, m: u32, k: u32) -> u64 {
    if c == m - 1 {
        1
    } else {
        k as u64 + 1
    }
}
