//! The dispatcher's rules, with a scripted board: no threads, no sockets, the clock given.

use queens_core::frame;
use queens_core::result::ResultRecord;
use queens_core::{completions, word, BoardSize};
use queens_host::dispatch::{DispatchError, Dispatcher, Timeouts};
use queens_host::store::file::{Access, FileStore};
use queens_host::store::Store;
use std::sync::atomic::AtomicU64;
use std::time::{Duration, Instant};

fn campaign(n: u32) -> (tempfile::TempDir, FileStore) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.campaign");
    let size = BoardSize::new(n).unwrap();
    FileStore::create(&path, size, false, &AtomicU64::new(0)).unwrap();
    let s = FileStore::open(&path, Some(size), Access::Write).unwrap();
    (dir, s)
}

/// The words in a batch of frames sent to a board.
fn words(size: BoardSize, bytes: &[u8]) -> Vec<u64> {
    let flen = word::wire_bytes(size) + 2;
    assert_eq!(bytes.len() % flen, 0);
    bytes
        .chunks(flen)
        .map(|f| word::wire_from_bytes(frame::decode(f, flen - 2).unwrap()))
        .collect()
}

/// A board's result frame for `wire`, with the right count unless `wrong` is given.
fn answer(size: BoardSize, wire: u64, wrong: Option<u64>) -> Vec<u8> {
    let pre = word::decode_wire(size, wire).unwrap();
    let count = wrong.unwrap_or_else(|| completions(&pre));
    frame::encode(&ResultRecord::new(wire, count, Some(count + 10)).encode(size))
}

const T: Timeouts = Timeouts {
    first: Duration::from_secs(1),
    factor: 8.0,
    floor: Duration::from_millis(250),
    fixed: true,
    suspect: 2.0,
};

#[test]
fn a_link_never_holds_more_than_its_window() {
    let (_d, s) = campaign(9);
    let size = s.size();
    let mut d = Dispatcher::new(s, T);
    let l = d.add_link("a", 5, 0).unwrap();
    d.link_up(l);
    let now = Instant::now();
    let sent = words(size, &d.fill(l, now).unwrap());
    assert_eq!(sent.len(), 5);
    assert!(d.fill(l, now).unwrap().is_empty(), "window full");
    d.feed(l, &answer(size, sent[2], None), now).unwrap();
    assert_eq!(words(size, &d.fill(l, now).unwrap()).len(), 1, "one slot freed");
}

#[test]
fn every_result_counts_once_whatever_the_faults() {
    let (_d, s) = campaign(10);
    let size = s.size();
    let mut d = Dispatcher::new(s, T);
    let l = d.add_link("a", 32, 0).unwrap();
    d.link_up(l);
    let mut now = Instant::now();
    let mut k = 0u64;
    while !d.finished() {
        let sent = words(size, &d.fill(l, now).unwrap());
        for w in sent {
            k += 1;
            let mut f = answer(size, w, None);
            match k % 10 {
                // lost: sent again after the timeout
                1 => continue,
                // corrupted: rejected, sent again after the timeout
                2 => f[3] ^= 0x10,
                // duplicated
                3 => f.extend_from_slice(&f.clone()),
                _ => {}
            }
            d.feed(l, &f, now).unwrap();
        }
        now += Duration::from_millis(300);
        d.expire(now);
        // Late answers of subproblems already sent again are duplicates.
        if k % 7 == 0 {
            now += Duration::from_secs(5);
            d.expire(now);
        }
    }
    let c = d.totals();
    let sum = d.store().summary();
    assert_eq!(sum.solved.total(), 724);
    assert_eq!(sum.solved.subproblems(), 3_739);
    assert_eq!(c.solved, 3_739);
    assert!(
        c.reissued > 0 && c.rejected_frames > 0 && c.duplicates > 0,
        "{c:?}"
    );
}

#[test]
fn a_late_answer_after_a_resend_is_counted_once() {
    let (_d, s) = campaign(8);
    let size = s.size();
    let mut d = Dispatcher::new(s, T);
    let a = d.add_link("a", 1, 0).unwrap();
    let b = d.add_link("b", 1, 0).unwrap();
    d.link_up(a);
    let t0 = Instant::now();
    let wa = words(size, &d.fill(a, t0).unwrap())[0];
    // a is slow: its subproblem times out and goes to b.
    let t1 = t0 + Duration::from_secs(2);
    d.expire(t1);
    d.link_up(b);
    assert_eq!(words(size, &d.fill(b, t1).unwrap()), vec![wa]);
    assert_eq!(d.totals().reissued, 1);
    // a answers after all: counted, and b's slot is free again.
    d.feed(a, &answer(size, wa, None), t1).unwrap();
    assert_eq!(d.totals().solved, 1);
    assert_eq!(d.links()[b].in_flight, 0);
    // b's answer of the same subproblem counts nothing.
    d.feed(b, &answer(size, wa, None), t1).unwrap();
    assert_eq!(d.totals().solved, 1);
    assert_eq!(d.totals().duplicates, 1);
}

#[test]
fn a_conflict_is_recomputed_elsewhere_and_settled_by_agreement() {
    let (_d, s) = campaign(8);
    let size = s.size();
    let mut d = Dispatcher::new(s, T);
    let a = d.add_link("a", 1, 0).unwrap();
    let b = d.add_link("b", 1, 0).unwrap();
    let c = d.add_link("c", 1, 0).unwrap();
    for l in [a, b, c] {
        d.link_up(l);
    }
    let t = Instant::now();
    let w = words(size, &d.fill(a, t).unwrap())[0];
    let right = completions(&word::decode_wire(size, w).unwrap());
    // a counts wrong, then b's duplicate answer disagrees.
    d.feed(a, &answer(size, w, Some(right + 7)), t).unwrap();
    let wrong_total = d.store().summary().solved.total();
    d.feed(b, &answer(size, w, None), t).unwrap();
    assert_eq!(d.totals().conflicts, 1);
    // The recomputation goes to c, the link not involved.
    let _ = d.fill(a, t).unwrap();
    let _ = d.fill(b, t).unwrap();
    let on_c = words(size, &d.fill(c, t).unwrap());
    assert!(on_c.contains(&w), "recomputed on c");
    d.feed(c, &answer(size, w, None), t).unwrap();
    let fixed = d.store().summary().solved.total();
    let index = (0..d.store().summary().subproblems)
        .find(|&i| word::encode_wire(&d.store().entry(i).unwrap().pre).unwrap() == w)
        .unwrap();
    let e = d.store().entry(index).unwrap();
    assert_eq!(e.solution.unwrap().count, right, "the stored count was corrected");
    assert_eq!(
        wrong_total - fixed,
        7 * e.sym.weight() as u128,
        "and the total with it"
    );
    // Settled: one more identical answer is a duplicate, not a new conflict.
    d.feed(b, &answer(size, w, None), t).unwrap();
    assert_eq!((d.totals().conflicts, d.totals().duplicates), (1, 1));
}

#[test]
fn a_board_for_another_n_is_named() {
    let (_d, s) = campaign(17);
    let mut d = Dispatcher::new(s, T);
    let l = d.add_link("tcp:board", 4, 0).unwrap();
    d.link_up(l);
    let other = BoardSize::new(12).unwrap();
    let subs: Vec<_> = queens_core::enumerate::canonical(other).take(400).collect();
    let mut err = None;
    for sp in subs {
        let w = word::encode_wire(&sp.pre).unwrap();
        if let Err(e) = d.feed(l, &answer(other, w, None), Instant::now()) {
            err = Some(e);
            break;
        }
    }
    let e = err.expect("detected");
    assert!(matches!(e, DispatchError::Incompatible { .. }));
    let msg = e.to_string();
    assert!(msg.contains("tcp:board") && msg.contains("N = 12"), "{msg}");
}
