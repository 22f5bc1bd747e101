//! The hardware decoder against the software one, bit for bit.

use queens_core::enumerate::canonical;
use queens_core::{word, Blocking, BoardSize, Enumerator, Subproblem};
use queens_hdl::solver::decoder::{PlainDecoder, SouthDecoder, LATENCY};
use rust_hdl::prelude::*;

fn check<const M: usize, const D: usize, const W: usize>(subs: &[Subproblem]) {
    let mut dec = PlainDecoder::<M, D, W>::plain();
    dec.connect_all();
    check_all(&dec).unwrap();
    for sp in subs {
        let wire = word::encode_wire(&sp.pre).unwrap();
        dec.word.next = wire.to_bits();
        // The word held for the pipeline's latency: settle, then a rising and a falling edge.
        for _ in 0..LATENCY {
            for level in [false, true, false] {
                dec.clock.next = Clock { clk: level };
                assert!(simulate(&mut dec, 100));
            }
        }
        let b = Blocking::new(&sp.pre);
        let got = (
            dec.rows.val().to_u64() as u32,
            dec.cols.val().to_u64() as u32,
            dec.down.val().to_u64(),
            dec.up.val().to_u64(),
        );
        assert_eq!(got, (b.rows, b.cols, b.down, b.up), "{} (wire {wire:#x})", sp.pre);
    }
}

fn all(n: u32) -> Vec<Subproblem> {
    canonical(BoardSize::new(n).unwrap()).collect()
}

#[test]
fn decoder_matches_software_for_every_subproblem_of_6_to_11_and_a_spread_quarter_of_12() {
    check::<2, 3, 24>(&all(6));
    check::<3, 5, 24>(&all(7));
    check::<4, 7, 24>(&all(8));
    check::<5, 9, 32>(&all(9));
    check::<6, 11, 32>(&all(10));
    check::<7, 13, 32>(&all(11));
    // Every fourth of N = 12 (the suite's time; all of N = 12 is decoded by the whole core's
    // checks, and its widths by these).
    let twelve: Vec<_> = all(12).into_iter().step_by(4).collect();
    check::<8, 15, 32>(&twelve);
}

#[test]
fn decoder_matches_software_on_q27_samples() {
    let e = Enumerator::new(BoardSize::new(27).unwrap());
    let prefixes = e.prefixes();
    // Every 32nd subproblem of 200 prefixes spread over the order: the widths of N = 27 in
    // every part of it, at the cost of a few hundred simulated words.
    let mut subs = Vec::new();
    for i in (0..prefixes.len()).step_by(prefixes.len() / 200) {
        let mut k = 0;
        e.for_each_in(prefixes[i], |sp| {
            if k % 32 == 0 {
                subs.push(sp);
            }
            k += 1;
        });
    }
    assert!(subs.len() > 300, "{}", subs.len());
    check::<23, 45, 40>(&subs);
}

/// The south decoder against `SouthWalk`, on one member of every south group (its word with
/// the south fields zeroed, as a group request carries it).
fn check_south<const M: usize, const D: usize, const W: usize>(n: u32) {
    use queens_core::south::SouthWalk;
    let size = BoardSize::new(n).unwrap();
    let table = queens_core::board::PairTable::new(size);
    let mut members: Vec<_> = canonical(size).map(|sp| sp.pre).collect();
    members.dedup_by_key(|p| p.side_indices(&table)[..3].to_vec());
    let mut dec = SouthDecoder::<M, D, W>::south();
    dec.connect_all();
    check_all(&dec).unwrap();
    for p in &members {
        let wire = queens_core::group::group_wire(p).unwrap();
        dec.word.next = wire.to_bits();
        for _ in 0..LATENCY {
            for level in [false, true, false] {
                dec.clock.next = Clock { clk: level };
                assert!(simulate(&mut dec, 100));
            }
        }
        let w = SouthWalk::new(p);
        let got = (
            dec.rows.val().to_u64() as u32,
            dec.cols.val().to_u64() as u32,
            dec.down.val().to_u64(),
            dec.up.val().to_u64(),
        );
        assert_eq!(got, (w.rows, w.cols, w.down, w.up), "{p} (wire {wire:#x})");
    }
}

#[test]
fn south_decoder_matches_the_south_walk_for_every_group_of_8_to_11_and_16() {
    check_south::<4, 9, 24>(8);
    check_south::<5, 11, 32>(9);
    check_south::<6, 13, 32>(10);
    check_south::<7, 15, 32>(11);
    check_south::<12, 25, 32>(16);
}
