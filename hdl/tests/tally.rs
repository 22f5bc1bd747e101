//! The grouped unit's tally, alone in rust-hdl's simulator: solutions of a few place codes,
//! often two cycles apart with one code (the read that must take the word being written),
//! counted and read out exactly, twice over (the read-out clears the RAM).

use queens_core::south::{SouthWalk, HELD};
use queens_hdl::solver::tally::Tally;
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

const M: usize = 6;

fn cycle(t: &mut Tally<M>) {
    for level in [false, true, false] {
        t.clock.next = Clock { clk: level };
        assert!(simulate(t, 200), "did not settle");
    }
}

/// (prev, last, held) for a line pair: positions, or `None` for a line the group fixes.
fn queens(prev: Option<u32>, last: Option<u32>) -> (u64, u64, bool) {
    let hot = |p: Option<u32>| p.map_or(0, |p| 1u64 << p);
    // A held last line's A grant is not a queen: any value must be ignored.
    (hot(prev), last.map_or(0b101, |p| 1 << p), last.is_none())
}

#[test]
fn the_tally_counts_every_code_and_reads_it_out_once() {
    let mut t = Tally::<M>::new(queens_hdl::ArbiterKind::Adder);
    t.connect_all();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let places = [
        (Some(0), Some(2)),
        (Some(3), Some(5)),
        (None, Some(1)),
        (Some(4), None),
        (Some(5), Some(0)),
    ];
    for round in 0..2 {
        let mut want: BTreeMap<u32, u64> = BTreeMap::new();
        let (mut last_code, mut two_apart) = (None, 0);
        let mut prev_code: Option<u32> = None;
        t.drain.next = false;
        t.read.take.next = false;
        for _ in 0..3000 {
            let r = next();
            // A solution in most cycles, never the same code twice in a row.
            let sol = r % 4 != 0;
            let mut pick = (r >> 8) as usize % if round == 0 { 2 } else { places.len() };
            let code = |k: usize| SouthWalk::place_code(places[k].0, places[k].1);
            if sol && Some(code(pick)) == last_code {
                pick = (pick + 1) % places.len();
            }
            let (p, l, h) = queens(places[pick].0, places[pick].1);
            t.sol.next = sol;
            t.prev.next = p.to_bits();
            t.last.next = l.to_bits();
            t.held.next = h;
            if sol {
                *want.entry(code(pick)).or_default() += 1;
                if prev_code == Some(code(pick)) {
                    two_apart += 1;
                }
            }
            prev_code = last_code;
            last_code = sol.then(|| code(pick));
            cycle(&mut t);
        }
        assert!(
            two_apart > 100,
            "round {round}: {two_apart} pairs two cycles apart"
        );
        t.sol.next = false;
        for _ in 0..4 {
            cycle(&mut t);
        }
        // The read-out, with a reader that takes a record only now and then.
        t.drain.next = true;
        let mut got = BTreeMap::new();
        let mut cycles = 0;
        while !t.read.drained.val() {
            let take = next() % 3 == 0;
            t.read.take.next = take;
            if t.read.offer.val() && take {
                let (code, count) = (t.read.code.val().index() as u32, t.read.count.val().to_u64());
                assert_eq!(t.read.m13.val().index() as u64, count % 13, "code {code}");
                assert_eq!(t.read.m15.val().index() as u64, count % 15, "code {code}");
                assert!(got.insert(code, count).is_none(), "code {code} offered twice");
            }
            cycle(&mut t);
            cycles += 1;
            assert!(cycles < 100_000, "the read-out never ended");
        }
        assert_eq!(got, want, "round {round}");
        assert_eq!(t.read.records.val().index(), want.len());
        assert!(want.keys().any(|c| c & 31 == HELD) || round == 0);
    }
}
