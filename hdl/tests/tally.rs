//! The grouped unit's tally, alone in rust-hdl's simulator, in each of its forms: solutions
//! of a few place codes, with every distance between two of one code that a form's pipeline
//! treats apart (the direct form: two cycles, forwarded, three, read from the RAM just
//! written, more; the registered form: two, three and four cycles, forwarded from the write
//! port or a copy behind it, five, read from the RAM just written, more), consecutive
//! solutions of other codes between them, counted and read out exactly against a software
//! tally, twice over (the read-out clears the RAM), the read-out raised as early as the form
//! allows; the walk's residues beside it, cleared by a start. A tally of 3-bit words wraps
//! every 8 solutions of a code: its wraps, added back, give the counts, and a wrap not taken
//! before the next is lost, and says so.

use queens_core::south::{SouthWalk, HELD};
use queens_hdl::solver::tally::{Tally, TallyPipe, COUNT_BITS};
use rust_hdl::prelude::*;
use std::collections::BTreeMap;

const M: usize = 6;

/// Cycles from a solution's strobe to the first in which `drain` may rise (the tally's
/// contract: its word is written at the end of the second cycle after the strobe in the
/// direct form, of the fifth in the registered form).
fn drain_after(pipe: TallyPipe) -> usize {
    match pipe {
        TallyPipe::Direct => 3,
        TallyPipe::Registered => 5,
    }
}

fn cycle<const W: usize>(t: &mut Tally<M, W>) {
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

/// The first is code 0, the read-out's first: solutions of it just before the read-out
/// starts tell whether it waits for their write.
const PLACES: [(Option<u32>, Option<u32>); 6] = [
    (Some(0), Some(0)),
    (Some(0), Some(2)),
    (Some(3), Some(5)),
    (None, Some(1)),
    (Some(4), None),
    (Some(5), Some(0)),
];

fn code(k: usize) -> u32 {
    SouthWalk::place_code(PLACES[k].0, PLACES[k].1)
}

/// Drives one cycle: a solution of `PLACES[k]`, or none.
fn strobe<const W: usize>(t: &mut Tally<M, W>, sol: Option<usize>) {
    let (p, l, h) = sol.map_or((0, 0, false), |k| queens(PLACES[k].0, PLACES[k].1));
    t.sol.next = sol.is_some();
    t.prev.next = p.to_bits();
    t.last.next = l.to_bits();
    t.held.next = h;
    cycle(t);
}

/// Solutions for `cycles` cycles, then a fixed tail ending in each forwarding case; returns
/// the solutions, a place index or none per cycle. Never the same code in consecutive cycles
/// (the unit's guarantee), and often a code of two to five cycles before.
fn stimulus(cycles: usize, kinds: usize, next: &mut impl FnMut() -> u64) -> Vec<Option<usize>> {
    let mut out: Vec<Option<usize>> = Vec::new();
    for _ in 0..cycles {
        let r = next();
        let back = |d: usize| out.len().checked_sub(d).and_then(|i| out[i]);
        let mut pick = if r % 4 == 0 {
            None
        } else if r >> 2 & 1 == 1 {
            // Repeat the code of 2 to 5 cycles before, if any.
            back(2 + (r >> 3) as usize % 4).or(Some((r >> 8) as usize % kinds))
        } else {
            Some((r >> 8) as usize % kinds)
        };
        if pick.is_some() && pick == back(1) {
            pick = Some((pick.unwrap() + 1) % kinds);
        }
        out.push(pick);
    }
    // The tail: A B . A B (three apart, a solution between), A . A . A (two apart, twice:
    // the third matches two and four ahead), and the last solution (code 0) three after one
    // of its code, then the earliest drain.
    let (a, b) = (Some(0), Some(1));
    out.extend([
        None, None, None, None, a, b, None, a, b, None, a, None, a, None, a,
    ]);
    out.extend([None, None, None, b, a, None, b, a]);
    assert_eq!(code(0), 0);
    out
}

/// Per distance 1..=6 (6: six or more), how many solutions follow one of their own code
/// by it (the nearest before).
fn distances(sols: &[Option<usize>]) -> [usize; 7] {
    let mut seen: BTreeMap<usize, usize> = BTreeMap::new();
    let mut hist = [0; 7];
    for (i, s) in sols.iter().enumerate() {
        if let Some(k) = *s {
            if let Some(j) = seen.insert(k, i) {
                hist[(i - j).min(6)] += 1;
            }
        }
    }
    hist
}

#[test]
fn the_direct_tally_counts_every_code_and_reads_it_out_once() {
    counts_every_code_and_reads_it_out_once(TallyPipe::Direct);
}

#[test]
fn the_registered_tally_counts_every_code_and_reads_it_out_once() {
    counts_every_code_and_reads_it_out_once(TallyPipe::Registered);
}

fn counts_every_code_and_reads_it_out_once(pipe: TallyPipe) {
    let mut t = Tally::<M, COUNT_BITS>::new(queens_hdl::ArbiterKind::Adder);
    t.set_pipe(pipe);
    assert_eq!(t.pipe(), pipe);
    t.connect_all();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..2 {
        let kinds = if round == 0 { 2 } else { PLACES.len() };
        let sols = stimulus(4000, kinds, &mut next);
        let hist = distances(&sols);
        assert_eq!(hist[1], 0, "round {round}: the same code in consecutive cycles");
        // Two, three, four, five and six or more cycles apart, each often.
        for (d, &pairs) in hist.iter().enumerate().skip(2) {
            assert!(pairs >= 100, "round {round}: {pairs} pairs {d} cycles apart");
        }
        let mut want: BTreeMap<u32, u64> = BTreeMap::new();
        for k in sols.iter().flatten() {
            *want.entry(code(*k)).or_default() += 1;
        }
        t.drain.next = false;
        t.read.take.next = false;
        // A start clears the last round's residues (nothing else: the read-out left every
        // word zero).
        t.start.next = true;
        cycle(&mut t);
        t.start.next = false;
        assert_eq!((t.read.m13.val().index(), t.read.m15.val().index()), (0, 0));
        for s in &sols {
            strobe(&mut t, *s);
        }
        // The read-out, as early as the tally allows, with a reader that takes a record only
        // now and then.
        assert!(sols.last().unwrap().is_some());
        for _ in 1..drain_after(pipe) {
            strobe(&mut t, None);
        }
        t.drain.next = true;
        let mut got = BTreeMap::new();
        let mut cycles = 0;
        while !t.read.drained.val() {
            let take = next() % 3 == 0;
            t.read.take.next = take;
            if t.read.offer.val() && take {
                let (code, count) = (t.read.code.val().index() as u32, t.read.count.val().to_u64());
                assert!(got.insert(code, count).is_none(), "code {code} offered twice");
            }
            cycle(&mut t);
            cycles += 1;
            assert!(cycles < 100_000, "the read-out never ended");
        }
        assert_eq!(got, want, "{pipe:?}, round {round}");
        assert_eq!(t.read.records.val().index(), want.len());
        let total = sols.iter().flatten().count();
        assert!(
            total % 13 != 0 && total % 15 != 0,
            "round {round}: residues that say something"
        );
        assert_eq!(
            (t.read.m13.val().index(), t.read.m15.val().index()),
            (total % 13, total % 15),
            "{pipe:?}, round {round}: the walk's residues"
        );
        assert!(!t.read.wrap_lost.val() && !t.read.wrap.val());
        assert!(want.keys().any(|c| c & 31 == HELD) || round == 0);
    }
}

/// The direct form's Verilog has none of the registered form's registers (it is the tally's
/// Verilog from before the forms); the registered form's has each as a flip-flop of its own,
/// and drives the RAM's ports from them.
#[test]
fn each_form_writes_its_own_registers_and_no_others() {
    let verilog = |pipe| {
        let mut t = Tally::<M, COUNT_BITS>::new(queens_hdl::ArbiterKind::Adder);
        t.set_pipe(pipe);
        t.connect_all();
        generate_verilog(&t)
    };
    let (direct, registered) = (verilog(TallyPipe::Direct), verilog(TallyPipe::Registered));
    let added = [
        "raddr_r",
        "inc3",
        "inc3_at",
        "inc4",
        "inc4_at",
        "rdata_r",
        "wrote2",
        "wrote2_at",
        "wrote2_word",
        "wrote3_word",
        "near",
        "mid",
        "far",
        "asked",
        "caught",
        "stepping",
    ];
    for r in added {
        assert!(!direct.contains(&format!("{r}$")), "{r} in the direct form");
        assert!(
            registered.contains(&format!("module top${r}(")),
            "{r} not in the registered form"
        );
    }
    for port in [
        "ram$raddr = raddr_r$q;",
        "ram$we = wrote$q;",
        "ram$waddr = wrote_at$q;",
        "ram$wdata = wrote_word$q;",
        "rdata_r$d = ram$rdata;",
    ] {
        assert!(registered.contains(port) && !direct.contains(port), "{port}");
    }
    assert_eq!(
        direct.matches("\nmodule ").count() + added.len(),
        registered.matches("\nmodule ").count()
    );
}

#[test]
fn the_direct_tally_reports_its_wraps() {
    reports_its_wraps(TallyPipe::Direct);
}

#[test]
fn the_registered_tally_reports_its_wraps() {
    reports_its_wraps(TallyPipe::Registered);
}

/// A tally of 3-bit words under the same stimulus: each wrap, taken as soon as it is offered,
/// adds 8 to its code, and the sums are the counts; with no wrap taken, the first stays
/// offered and the second is lost.
fn reports_its_wraps(pipe: TallyPipe) {
    const W: usize = 3;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let sols = stimulus(2000, PLACES.len(), &mut next);
    let mut want: BTreeMap<u32, u64> = BTreeMap::new();
    for k in sols.iter().flatten() {
        *want.entry(code(*k)).or_default() += 1;
    }
    let wraps: u64 = want.values().map(|c| c >> W).sum();
    assert!(wraps > 100, "{wraps} wraps");
    for taken in [true, false] {
        let mut t = Tally::<M, W>::new(queens_hdl::ArbiterKind::Adder);
        t.set_pipe(pipe);
        t.connect_all();
        t.start.next = true;
        cycle(&mut t);
        t.start.next = false;
        t.read.wrap_take.next = taken;
        t.read.take.next = true;
        let mut got: BTreeMap<u32, u64> = BTreeMap::new();
        let mut first = None;
        let mut step = |t: &mut Tally<M, W>, got: &mut BTreeMap<u32, u64>, sol| {
            if t.read.wrap.val() {
                let at = t.read.wrap_at.val().index() as u32;
                first.get_or_insert(at);
                if taken {
                    *got.entry(at).or_default() += 1 << W;
                }
            }
            if t.read.offer.val() {
                *got.entry(t.read.code.val().index() as u32).or_default() +=
                    t.read.count.val().index() as u64;
            }
            strobe(t, sol);
        };
        for s in &sols {
            step(&mut t, &mut got, *s);
        }
        for _ in 1..drain_after(pipe) {
            step(&mut t, &mut got, None);
        }
        t.drain.next = true;
        let mut cycles = 0;
        while !t.read.drained.val() || t.read.wrap.val() && taken {
            step(&mut t, &mut got, None);
            cycles += 1;
            assert!(cycles < 100_000, "the read-out never ended");
        }
        if taken {
            assert_eq!(got, want, "{pipe:?}");
            assert!(!t.read.wrap_lost.val(), "{pipe:?}: a wrap lost");
        } else {
            // The first wrap stands, and the second was lost.
            assert!(t.read.wrap.val() && t.read.wrap_lost.val(), "{pipe:?}");
            assert_eq!(Some(t.read.wrap_at.val().index() as u32), first);
        }
        let total = sols.iter().flatten().count();
        assert_eq!(
            (t.read.m13.val().index(), t.read.m15.val().index()),
            (total % 13, total % 15)
        );
    }
}
