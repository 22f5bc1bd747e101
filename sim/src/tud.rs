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

#[cfg(test)]
mod tests {
    use crate::model::run_unit;
    use crate::probe::cycles;
    use queens_core::enumerate::canonical;
    use queens_core::{word, Blocking, BoardSize};

    /// Queens@TUD's unit on every subproblem of `sim/tud/cycles.txt`: GHDL running its VHDL
    /// (`sim/tud/generate.sh`), cycle for cycle and solution for solution.
    #[test]
    fn the_model_matches_the_vhdl_on_every_subproblem_of_the_test_set() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tud/cycles.txt");
        let text = std::fs::read_to_string(path).expect("sim/tud/cycles.txt");
        let mut checked = std::collections::BTreeMap::<u32, usize>::new();
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.starts_with('#')) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let [n, wire, want_cycles, want_solutions] = f[..] else {
                panic!("{path}:{}: expected 4 fields: {line}", i + 1)
            };
            let size = BoardSize::new(n.parse().unwrap()).unwrap();
            let pre = word::decode_wire(size, u64::from_str_radix(wire, 16).unwrap()).unwrap();
            let b = Blocking::new(&pre);
            let got = (cycles(&b).tud, run_unit(&b).solutions);
            let want = (want_cycles.parse().unwrap(), want_solutions.parse().unwrap());
            assert_eq!(got, want, "{path}:{}: N = {n}, {pre} (cycles, solutions)", i + 1);
            *checked.entry(size.n()).or_default() += 1;
        }
        // The file holds every set generate.sh writes.
        let sizes: Vec<u32> = checked.keys().copied().collect();
        assert_eq!(sizes, [8, 9, 10, 11, 12, 13, 17, 20], "{checked:?}");
    }

    /// The totals GHDL gives for the sets first measured (sim/tud/generate.sh prints them).
    #[test]
    fn the_model_gives_the_vhdls_totals() {
        let total = |n, k| {
            canonical(BoardSize::new(n).unwrap())
                .take(k)
                .map(|sp| cycles(&Blocking::new(&sp.pre)).tud)
                .sum::<u64>()
        };
        assert_eq!(total(12, usize::MAX), 1_086_846);
        assert_eq!(total(13, usize::MAX), 6_608_013);
        assert_eq!(total(17, 1_337), 2_934_915);
    }
}
