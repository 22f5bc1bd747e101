//! A board of more than 1,024 units (issue 59: 12-bit unit ids): a simulated board of 1,100
//! counts N = 12 exactly through the host, and every unit id, those past 1,023 included, is
//! given work and answers.

use crate::common::queens;
use queens_core::{BoardSize, UnitKind};
use queens_sim::board::{Board, BoardConfig};
use std::net::TcpListener;

#[test]
fn a_board_of_1100_units_counts_exactly_with_every_unit_id() {
    const UNITS: usize = 1100;
    let n = 12;
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let link = format!("tcp:{}", listener.local_addr().unwrap());
    let board = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut b = Board::new(BoardConfig {
            size: BoardSize::new(n).unwrap(),
            units: UNITS,
            clock_hz: None,
            with_cycles: true,
            unit: UnitKind::Plain,
            faults: Default::default(),
            seed: 1,
        });
        let mut out = stream.try_clone().unwrap();
        b.serve(stream, &mut out).unwrap();
        b.unit_answers().to_vec()
    });
    let dir = tempfile::tempdir().unwrap();
    let out = queens()
        .args([
            "run",
            &n.to_string(),
            "--json",
            "--timeout",
            "60",
            "--link",
            &link,
        ])
        .arg("--campaign")
        .arg(dir.path().join("q12"))
        .output()
        .unwrap();
    let r = crate::common::ok_json(&out);
    assert_eq!(r["total"], 14_200);
    assert_eq!(r["solved"], r["subproblems"]);
    assert_eq!(r["reissued"], 0, "{r}");
    let subproblems = r["subproblems"].as_u64().unwrap();
    assert!(subproblems >= 2 * UNITS as u64, "{subproblems} subproblems");
    // The board's free list hands out every id before any comes back a second time.
    let answers = board.join().unwrap();
    assert_eq!(answers.iter().sum::<u64>(), subproblems);
    let idle: Vec<_> = (0..UNITS).filter(|&u| answers[u] == 0).collect();
    assert!(idle.is_empty(), "units without work: {idle:?}");
    assert!(answers[1024..].iter().all(|&a| a >= 1));
}
