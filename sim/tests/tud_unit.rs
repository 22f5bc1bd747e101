//! Queens@TUD's unit as a cycle model (`queens_sim::tud`, priced by `queens_sim::probe`),
//! held to GHDL running their VHDL.

use queens_core::enumerate::canonical;
use queens_core::{word, Blocking, BoardSize};
use queens_sim::model::run_unit;
use queens_sim::probe::cycles;

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
