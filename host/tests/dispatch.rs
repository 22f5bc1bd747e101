//! The dispatcher's rules, with a scripted board: no threads, no sockets, the clock given.

use queens_core::board::PairTable;
use queens_core::frame;
use queens_core::group::{self, Body};
use queens_core::ident::{self, Ident};
use queens_core::result::ResultRecord;
use queens_core::{completions, word, BoardSize};
use queens_host::dispatch::{Dispatcher, Timeouts, Trust};
use queens_host::store::file::{Access, FileStore};
use queens_host::store::Store;
use std::time::{Duration, Instant};

fn campaign(n: u32) -> (tempfile::TempDir, FileStore) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.campaign");
    let size = BoardSize::new(n).unwrap();
    FileStore::create(&path, size, false, &queens_host::store::file::Watch::default()).unwrap();
    let s = FileStore::open(&path, Some(size), Access::Write).unwrap();
    (dir, s)
}

/// The words in a batch of frames sent to a board (an identification request, which goes
/// first after each connect, is none).
fn words(size: BoardSize, bytes: &[u8]) -> Vec<u64> {
    let flen = word::wire_bytes(size) + 2;
    assert_eq!(bytes.len() % flen, 0);
    bytes
        .chunks(flen)
        .filter(|f| !ident::is_request(size, f))
        .map(|f| word::wire_from_bytes(frame::decode(f, flen - 2).unwrap()))
        .collect()
}

/// The board on `l` answers identification: `units` units (and the front end's queue).
fn says_units<S: Store>(d: &mut Dispatcher<S>, l: usize, size: BoardSize, units: u32, now: Instant) {
    let id = Ident {
        n: size.n(),
        units,
        clock_hz: 1_000_000,
        design_hash: 0,
        with_cycles: true,
        unit: queens_core::UnitKind::Plain,
    };
    d.feed(l, &id.encode(), now).unwrap();
}

/// The board on `l` answers the first words it was sent, then identification: a board of
/// ours with `units` units, its window open to them and its queue.
fn opens<S: Store>(d: &mut Dispatcher<S>, l: usize, size: BoardSize, units: u32, now: Instant) {
    for w in words(size, &d.fill(l, now).unwrap()) {
        d.feed(l, &answer(size, w, None), now).unwrap();
    }
    says_units(d, l, size, units, now);
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

/// Runs the software recomputations the dispatcher asked for.
fn serve_software<S: Store>(d: &mut Dispatcher<S>) {
    for (w, pre) in d.take_software() {
        d.software(w, completions(&pre)).unwrap();
    }
}

/// The index of the entry whose word is `w`.
fn index_of(s: &FileStore, w: u64) -> u64 {
    (0..s.summary().subproblems)
        .find(|&i| word::encode_wire(&s.entry(i).unwrap().pre).unwrap() == w)
        .unwrap()
}

/// Checks on other boards only: no software, every result of the first `probation` checked.
fn boards_check(probation: u64) -> Trust {
    Trust {
        verify: 0.0,
        probation,
        ..Trust::OFF
    }
}

#[test]
fn a_window_starts_small_and_grows_to_the_limit() {
    let (_d, s) = campaign(9);
    let size = s.size();
    let mut d = Dispatcher::new(s, T);
    let l = d.add_link("a", 5, 0).unwrap();
    d.link_up(l);
    let now = Instant::now();
    let sent = words(size, &d.fill(l, now).unwrap());
    assert_eq!(sent.len(), 4, "the initial window");
    assert!(d.fill(l, now).unwrap().is_empty(), "window full");
    d.feed(l, &answer(size, sent[2], None), now).unwrap();
    assert_eq!(
        words(size, &d.fill(l, now).unwrap()).len(),
        2,
        "one slot freed, one grown"
    );
    d.feed(l, &answer(size, sent[0], None), now).unwrap();
    assert_eq!(
        words(size, &d.fill(l, now).unwrap()).len(),
        1,
        "never beyond the limit"
    );
    assert_eq!(d.links()[l].window(), 5);
}

#[test]
fn the_window_halves_when_a_result_goes_missing() {
    let (_d, s) = campaign(10);
    let size = s.size();
    let mut d = Dispatcher::new(s, T).with_trust(Trust::OFF, None);
    let l = d.add_link("a", 64, 0).unwrap();
    d.link_up(l);
    let mut now = Instant::now();
    // A board of ours says it holds 48 units and its queue: the window opens to that.
    opens(&mut d, l, size, 48, now);
    let grown = d.links()[l].window();
    assert_eq!(grown, 48 + queens_hdl::front::WORD_QUEUE);
    // A whole window lost at once (a board without room drops frames): one halving.
    let lost = words(size, &d.fill(l, now).unwrap());
    assert_eq!(lost.len(), grown);
    now += Duration::from_secs(2);
    d.expire(now);
    assert_eq!(d.links()[l].window(), grown / 2);
}

#[test]
fn a_board_that_said_its_room_keeps_it_through_link_losses() {
    let (_d, s) = campaign(11);
    let size = s.size();
    let mut d = Dispatcher::new(s, T).with_trust(Trust::OFF, None);
    let l = d.add_link("a", 64, 0).unwrap();
    d.link_up(l);
    let mut now = Instant::now();
    opens(&mut d, l, size, 8, now);
    let holds = d.links()[l].window();
    // Ten frames lost on the link, each the last of its batch, with the rest answered and
    // later work too: the board never had more than it said, so it had room for each.
    for _ in 0..10 {
        let sent = words(size, &d.fill(l, now).unwrap());
        for &w in sent.iter().rev().skip(1) {
            d.feed(l, &answer(size, w, None), now).unwrap();
        }
        // Work sent after the lost frame is answered before it times out.
        now += Duration::from_millis(10);
        for w in words(size, &d.fill(l, now).unwrap()) {
            d.feed(l, &answer(size, w, None), now).unwrap();
        }
        now += Duration::from_secs(2);
        d.expire(now);
    }
    // Then a clean link: the window comes back to all the board holds.
    let mut most = 0;
    for _ in 0..2_000 {
        let sent = words(size, &d.fill(l, now).unwrap());
        most = most.max(sent.len().max(d.links()[l].in_flight));
        for w in sent {
            d.feed(l, &answer(size, w, None), now).unwrap();
        }
        now += Duration::from_millis(100);
        d.expire(now);
        if d.finished() {
            break;
        }
    }
    assert_eq!(most, holds, "the window after the losses");
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
        serve_software(&mut d);
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
fn the_size_of_a_board_that_drops_what_it_has_no_room_for_is_learned() {
    let (_d, s) = campaign(10);
    let size = s.size();
    let mut d = Dispatcher::new(s, T).with_trust(Trust::OFF, None);
    let l = d.add_link("small", 376, 0).unwrap();
    d.link_up(l);
    // A board of 6 places without back-pressure, answering its oldest word each step.
    const ROOM: usize = 6;
    let mut board: std::collections::VecDeque<u64> = Default::default();
    let mut now = Instant::now();
    while !d.finished() {
        for w in words(size, &d.fill(l, now).unwrap()) {
            if board.len() < ROOM {
                board.push_back(w);
            }
        }
        if let Some(w) = board.pop_front() {
            d.feed(l, &answer(size, w, None), now).unwrap();
        }
        now += Duration::from_millis(10);
        d.expire(now);
    }
    assert_eq!(d.store().summary().solved.total(), 724);
    let c = d.totals();
    assert!(c.reissued < 3_739 / 20, "{c:?}");
    assert!(d.links()[l].window() <= ROOM + 1, "{}", d.links()[l].window());
}

#[test]
fn answers_for_another_links_work_never_count() {
    let (_d, s) = campaign(8);
    let size = s.size();
    let mut d = Dispatcher::new(s, T).with_trust(Trust::OFF, None);
    let a = d.add_link("a", 1, 0).unwrap();
    let b = d.add_link("b", 1, 0).unwrap();
    d.link_up(a);
    d.link_up(b);
    let t = Instant::now();
    let w = words(size, &d.fill(a, t).unwrap())[0];
    // b was never sent w: its answer, however well formed, is ignored.
    d.feed(b, &answer(size, w, Some(99)), t).unwrap();
    assert_eq!((d.totals().solved, d.totals().unknown), (0, 1));
    assert_eq!(d.store().summary().solved.subproblems(), 0);
    // a's answer counts, and b's repeated lie is not a second opinion.
    d.feed(a, &answer(size, w, None), t).unwrap();
    d.feed(b, &answer(size, w, Some(99)), t).unwrap();
    let c = d.totals();
    assert_eq!((c.solved, c.conflicts, c.unknown), (1, 0, 2), "{c:?}");
    let e = d.store().entry(index_of(d.store(), w)).unwrap();
    assert_eq!(e.solution.unwrap().count, completions(&e.pre));
}

#[test]
fn a_count_software_contradicts_quarantines_the_board_and_withdraws_its_counts() {
    let (_d, s) = campaign(8);
    let size = s.size();
    let mut d = Dispatcher::new(s, T);
    let a = d.add_link("a", 4, 0).unwrap();
    let b = d.add_link("b", 4, 0).unwrap();
    d.link_up(a);
    let t = Instant::now();
    let sent = words(size, &d.fill(a, t).unwrap());
    // Three right, the last one wrong.
    for (k, &w) in sent.iter().enumerate() {
        let wrong = (k == 3).then(|| completions(&word::decode_wire(size, w).unwrap()) + 1);
        d.feed(a, &answer(size, w, wrong), t).unwrap();
    }
    assert_eq!(d.store().summary().solved.subproblems(), 4);
    serve_software(&mut d);
    assert!(d.links()[a].dropped.as_deref().unwrap().contains("software"));
    assert_eq!(d.take_dropped(), vec![a]);
    assert_eq!(d.links()[a].counters.withdrawn, 4);
    assert_eq!(
        d.store().summary().solved.subproblems(),
        0,
        "every count of the quarantined board withdrawn"
    );
    // b does all of it again; nothing goes to a any more.
    d.link_up(b);
    assert!(d.fill(a, t).unwrap().is_empty());
    let mut now = t;
    while !d.finished() {
        for w in words(size, &d.fill(b, now).unwrap()) {
            d.feed(b, &answer(size, w, None), now).unwrap();
        }
        serve_software(&mut d);
        now += Duration::from_millis(10);
    }
    let sum = d.store().summary();
    assert!(sum.complete());
    assert_eq!(sum.solved.total(), 92);
    let e = d.store().entry(index_of(d.store(), sent[3])).unwrap();
    assert_eq!(e.solution.unwrap().solver, d.links()[b].solver);
}

#[test]
fn a_disagreement_between_boards_is_settled_by_software_and_the_liar_quarantined() {
    let (_d, s) = campaign(8);
    let size = s.size();
    let mut d = Dispatcher::new(s, T).with_trust(boards_check(1), Some(1));
    let a = d.add_link("a", 1, 0).unwrap();
    let b = d.add_link("b", 1, 0).unwrap();
    d.link_up(a);
    d.link_up(b);
    let t = Instant::now();
    let w = words(size, &d.fill(a, t).unwrap())[0];
    let right = completions(&word::decode_wire(size, w).unwrap());
    d.feed(a, &answer(size, w, Some(right + 7)), t).unwrap();
    let wrong_total = d.store().summary().solved.total();
    // a's first result is checked on b, never on a.
    assert!(d.take_software().is_empty(), "boards check, not software");
    let on_a = words(size, &d.fill(a, t).unwrap());
    assert!(!on_a.contains(&w));
    assert_eq!(words(size, &d.fill(b, t).unwrap()), vec![w]);
    d.feed(b, &answer(size, w, None), t).unwrap();
    assert_eq!(d.totals().conflicts, 1);
    // Two boards disagree: software is asked and sides with b.
    serve_software(&mut d);
    assert!(d.links()[a].dropped.is_some(), "a quarantined");
    assert!(d.links()[b].dropped.is_none());
    let e = d.store().entry(index_of(d.store(), w)).unwrap();
    assert_eq!(e.solution.unwrap().count, right, "the stored count was corrected");
    assert_eq!(e.solution.unwrap().solver, d.links()[b].solver);
    assert!(d.store().summary().solved.total() < wrong_total);
    // Settled: one more identical answer from b is a duplicate, not a new conflict.
    d.feed(b, &answer(size, w, None), t).unwrap();
    assert_eq!((d.totals().conflicts, d.totals().duplicates), (1, 1));
}

#[test]
fn a_board_that_contradicts_itself_is_quarantined_not_asked_again() {
    let (_d, s) = campaign(8);
    let size = s.size();
    let mut d = Dispatcher::new(s, T).with_trust(Trust::OFF, None);
    let a = d.add_link("a", 1, 0).unwrap();
    d.link_up(a);
    let t = Instant::now();
    let w = words(size, &d.fill(a, t).unwrap())[0];
    let right = completions(&word::decode_wire(size, w).unwrap());
    d.feed(a, &answer(size, w, None), t).unwrap();
    d.feed(a, &answer(size, w, Some(right + 1)), t).unwrap();
    assert!(d.links()[a].dropped.as_deref().unwrap().contains("two counts"));
    assert!(d.all_dropped());
    assert!(d.fill(a, t).unwrap().is_empty(), "nothing more for it");
    assert_eq!(d.store().summary().solved.subproblems(), 0, "its count withdrawn");
}

#[test]
fn a_subproblem_that_times_out_goes_to_another_link() {
    let (_d, s) = campaign(8);
    let size = s.size();
    let mut d = Dispatcher::new(s, T).with_trust(Trust::OFF, None);
    let a = d.add_link("silent", 2, 0).unwrap();
    let b = d.add_link("b", 2, 0).unwrap();
    d.link_up(a);
    d.link_up(b);
    let t0 = Instant::now();
    let on_a = words(size, &d.fill(a, t0).unwrap());
    let on_b = words(size, &d.fill(b, t0).unwrap());
    for &w in &on_b {
        d.feed(b, &answer(size, w, None), t0).unwrap();
    }
    let t1 = t0 + Duration::from_secs(2);
    d.expire(t1);
    // a has room again, but its lost work waits for b.
    let again_a = words(size, &d.fill(a, t1).unwrap());
    assert!(again_a.iter().all(|w| !on_a.contains(w)), "{again_a:?} {on_a:?}");
    let mut again_b = words(size, &d.fill(b, t1).unwrap());
    let mut on_a = on_a;
    again_b.sort();
    on_a.sort();
    assert_eq!(again_b, on_a);
}

#[test]
fn a_board_for_another_n_is_named_and_dropped_while_the_others_go_on() {
    let (_d, s) = campaign(17);
    let size = s.size();
    let mut d = Dispatcher::new(s, T).with_trust(Trust::OFF, None);
    let l = d.add_link("tcp:board", 4, 0).unwrap();
    let ok = d.add_link("sim", 4, 0).unwrap();
    d.link_up(l);
    d.link_up(ok);
    let t = Instant::now();
    let held = words(size, &d.fill(l, t).unwrap());
    let other = BoardSize::new(12).unwrap();
    for sp in queens_core::enumerate::canonical(other).take(400) {
        let w = word::encode_wire(&sp.pre).unwrap();
        d.feed(l, &answer(other, w, None), t).unwrap();
        if d.links()[l].dropped.is_some() {
            break;
        }
    }
    let msg = d.links()[l].dropped.clone().expect("detected");
    assert!(msg.contains("N = 12"), "{msg}");
    assert_eq!(d.take_dropped(), vec![l]);
    assert!(!d.all_dropped());
    // Its work goes to the other board.
    let mut on_ok = words(size, &d.fill(ok, t).unwrap());
    let mut held = held;
    on_ok.sort();
    held.sort();
    assert_eq!(on_ok, held);
}

#[test]
fn garbage_and_sentinel_bursts_drop_only_their_link() {
    let (_d, s) = campaign(10);
    let size = s.size();
    let mut d = Dispatcher::new(s, T).with_trust(Trust::OFF, None);
    let bad = d.add_link("garbage", 4, 0).unwrap();
    let burst = d.add_link("bursts", 4, 0).unwrap();
    let ok = d.add_link("sim", 32, 0).unwrap();
    for l in [bad, burst, ok] {
        d.link_up(l);
    }
    let mut rng = fastrand::Rng::with_seed(7);
    let mut now = Instant::now();
    while !d.finished() {
        for l in [bad, burst, ok] {
            let sent = words(size, &d.fill(l, now).unwrap());
            let reply: Vec<u8> = if l == bad {
                (0..8192).map(|_| rng.u8(..)).collect()
            } else if l == burst {
                vec![frame::SENTINEL; 6000]
            } else {
                sent.iter().flat_map(|&w| answer(size, w, None)).collect()
            };
            d.feed(l, &reply, now).unwrap();
        }
        now += Duration::from_secs(2);
        d.expire(now);
    }
    assert!(d.links()[bad].dropped.is_some() && d.links()[burst].dropped.is_some());
    assert_eq!(d.store().summary().solved.total(), 724);
}

#[test]
fn a_silent_full_board_gets_no_work_beyond_its_room() {
    let (_d, s) = campaign(10);
    let size = s.size();
    let mut d = Dispatcher::new(s, T).with_trust(Trust::OFF, None);
    // A board of ours with room for 20 (4 units and its queue), of which 4 may be taken by
    // words that look lost.
    let l = d.add_link("a", 20, 4).unwrap();
    d.link_up(l);
    let mut now = Instant::now();
    opens(&mut d, l, size, 4, now);
    // Every answer 5 ms after its word.
    for _ in 0..8 {
        let sent = words(size, &d.fill(l, now).unwrap());
        now += Duration::from_millis(5);
        for w in sent {
            d.feed(l, &answer(size, w, None), now).unwrap();
        }
    }
    assert_eq!(d.links()[l].window(), 20);
    let held = words(size, &d.fill(l, now).unwrap());
    assert_eq!(held.len(), 20);
    // The board stalls far past the suspect age (at least 125 ms here): it may still hold
    // all 20, so nothing more.
    now += Duration::from_millis(200);
    assert!(
        d.fill(l, now).unwrap().is_empty(),
        "work sent to a stalled, full board"
    );
    // It answers one of them: one slot, and the others are no later than the answer.
    d.feed(l, &answer(size, held[0], None), now).unwrap();
    let next = words(size, &d.fill(l, now).unwrap());
    assert_eq!(next.len(), 1);
    // It answers a word sent after the other 19: those may be lost, and up to the slack
    // of them give their slots to new work.
    // (Looked at once they are older than twice the longest recent latency.)
    now += Duration::from_millis(100);
    d.feed(l, &answer(size, next[0], None), now).unwrap();
    now += Duration::from_millis(500);
    assert_eq!(words(size, &d.fill(l, now).unwrap()).len(), 1 + 4);
}

#[test]
fn a_board_that_does_not_say_what_it_holds_grows_from_what_any_board_holds() {
    let (_d, s) = campaign(10);
    let size = s.size();
    let mut d = Dispatcher::new(s, T).with_trust(Trust::OFF, None);
    let l = d.add_link("a", 376, 16).unwrap();
    d.link_up(l);
    let now = Instant::now();
    let first = d.fill(l, now).unwrap();
    let flen = word::wire_bytes(size) + 2;
    assert!(ident::is_request(size, &first[..flen]), "identification first");
    // Slow start alone would open the window to 68 in 64 answers; a board that has not said
    // what it holds (Queens@TUD's drops what it has no room for) grows from the room of
    // the smallest of theirs, one place per window of answers.
    let smallest = queens_sim::tud_board::holds(size, 1);
    let mut held = words(size, &first);
    for _ in 0..64 {
        let w = held.remove(0);
        d.feed(l, &answer(size, w, None), now).unwrap();
        held.extend(words(size, &d.fill(l, now).unwrap()));
        assert!(held.len() <= smallest + 5, "{} held", held.len());
    }
    assert!(d.links()[l].window() > smallest, "it grows");
    // Then it says: 100 units and the queue, at once.
    says_units(&mut d, l, size, 100, now);
    assert_eq!(d.links()[l].window(), 100 + queens_hdl::front::WORD_QUEUE);
    // A reconnected board may be another: it starts small again.
    d.link_down(l);
    d.link_up(l);
    assert!(d.links()[l].window() <= smallest);
}

/// The board on `l` answers identification as a board of `units` grouped units.
fn says_grouped<S: Store>(d: &mut Dispatcher<S>, l: usize, size: BoardSize, units: u32, now: Instant) {
    let id = Ident {
        n: size.n(),
        units,
        clock_hz: 1_000_000,
        design_hash: 0,
        with_cycles: true,
        unit: queens_core::UnitKind::Grouped,
    };
    d.feed(l, &id.encode(), now).unwrap();
}

/// The group words of a batch of frames sent to a board of grouped units (plain frames and
/// identification requests, which such a board drops as corrupt, are none).
fn groups(size: BoardSize, bytes: &[u8]) -> Vec<u64> {
    let flen = word::wire_bytes(size) + 2;
    assert_eq!(bytes.len() % flen, 0);
    bytes
        .chunks(flen)
        .filter_map(|f| group::decode_request(size, f).ok())
        .collect()
}

/// A board of grouped units' records for group `g`, as the grouped model walks it; `lie` adds
/// one to the first south record's count.
fn group_answer(size: BoardSize, g: u64, lie: bool) -> Vec<Vec<u8>> {
    let member = group::some_member(size, g).unwrap();
    let mut records = queens_sim::grouped::run_south_group(&member).records(g);
    if lie {
        if let Body::South {
            count, mod13, mod15, ..
        } = &mut records[0].body
        {
            *count += 1;
            *mod13 = ((*mod13 as u64 + 1) % 13) as u8;
            *mod15 = ((*mod15 as u64 + 1) % 15) as u8;
        }
    }
    records.iter().map(|r| r.encode(size)).collect()
}

/// The wire words of group `g`'s members.
fn member_words(size: BoardSize, g: u64) -> Vec<u64> {
    group::members(&PairTable::new(size), g)
        .unwrap()
        .iter()
        .map(|m| word::encode_wire(&m.pre).unwrap())
        .collect()
}

/// A board of grouped units gets whole groups, one request each, and every pre-placement
/// counts once with its share of its group's walk, whatever records are lost, corrupted or
/// repeated: a group short of a record is sent again whole.
#[test]
fn a_grouped_board_gets_whole_groups_and_every_member_counts_once_whatever_the_faults() {
    let (_d, s) = campaign(10);
    let size = s.size();
    let table = PairTable::new(size);
    let mut d = Dispatcher::new(s, T);
    let l = d.add_link("a", 32, 0).unwrap();
    d.link_up(l);
    let mut now = Instant::now();
    // Before it says what it is, it is sent single subproblems, which it drops; once it
    // has said, they go out again in group requests.
    assert!(!words(size, &d.fill(l, now).unwrap()).is_empty());
    says_grouped(&mut d, l, size, 4, now);
    assert_eq!(d.links()[l].unit, queens_core::UnitKind::Grouped);
    assert_eq!(d.links()[l].in_flight, 0);
    let (mut k, mut requests) = (0u64, 0u64);
    while !d.finished() {
        let sent = groups(size, &d.fill(l, now).unwrap());
        for g in sent {
            requests += 1;
            k += 1;
            let mut records = group_answer(size, g, false);
            let last = records.len() - 1;
            match k % 9 {
                // the end record lost: sent again after the timeout
                1 => records.truncate(last),
                // a south record lost (where there is one): the end record says so
                2 if last > 0 => {
                    records.remove(0);
                }
                // a record corrupted
                3 => records[last][4] ^= 0x20,
                // the whole answer twice
                4 => records.extend(records.clone()),
                _ => {}
            }
            d.feed(l, &records.concat(), now).unwrap();
        }
        serve_software(&mut d);
        now += Duration::from_millis(300);
        d.expire(now);
        if k % 7 == 0 {
            now += Duration::from_secs(5);
            d.expire(now);
        }
    }
    let c = d.totals();
    let groups_of_10 = queens_sim::grouped::south_groups(size).len() as u64;
    assert!(
        requests > groups_of_10,
        "{requests} requests, {groups_of_10} groups"
    );
    let sum = d.store().summary();
    assert_eq!(sum.solved.total(), 724);
    assert_eq!(sum.solved.subproblems(), 3_739);
    assert_eq!(c.solved, 3_739);
    assert!(
        c.reissued > 0 && c.rejected_frames > 0 && c.duplicates > 0,
        "{c:?}"
    );
    assert_eq!(d.links()[l].in_flight, 0);
    // Each entry holds its share of its group's walk (the store keeps a share of 0 as 1).
    let store = d.store();
    assert!(store.has_cycles());
    for m in queens_sim::grouped::south_groups(size).iter().step_by(37) {
        let g = group::group_wire(m).unwrap();
        let members = group::members(&table, g).unwrap();
        let shares = group::cycle_shares(queens_sim::grouped::run_south_group(m).cycles, members.len());
        for (sp, share) in members.iter().zip(shares) {
            let i = index_of(store, word::encode_wire(&sp.pre).unwrap());
            assert_eq!(store.cycles(i), Some(share.max(1)), "{}", sp.pre);
        }
    }
}

/// A group's members this host was not given (solved already, or another host's) are left
/// alone: the group is walked for the others, and only they are recorded.
#[test]
fn members_of_a_group_the_host_was_not_given_are_left_alone() {
    let (_d, mut s) = campaign(10);
    let size = s.size();
    // The first group of more than two members, its second member solved already.
    let g = queens_sim::grouped::south_groups(size)
        .iter()
        .map(|m| group::group_wire(m).unwrap())
        .find(|&g| member_words(size, g).len() > 2)
        .unwrap();
    let members = member_words(size, g);
    let solved = index_of(&s, members[1]);
    let pre = word::decode_wire(size, members[1]).unwrap();
    s.solve(
        solved,
        queens_core::entry::Solution::new(1, completions(&pre)).unwrap(),
        None,
    )
    .unwrap();
    let mut d = Dispatcher::new(s, T).with_trust(Trust::OFF, None);
    let l = d.add_link("a", 4096, 0).unwrap();
    d.link_up(l);
    let now = Instant::now();
    says_grouped(&mut d, l, size, 4096, now);
    let mut asked = 0;
    while !d.finished() {
        for h in groups(size, &d.fill(l, now).unwrap()) {
            asked += u64::from(h == g);
            d.feed(l, &group_answer(size, h, false).concat(), now).unwrap();
        }
    }
    assert_eq!(asked, 1);
    let c = d.totals();
    assert_eq!((c.solved, c.unknown, c.duplicates), (3_738, 0, 0), "{c:?}");
    assert_eq!(d.store().summary().solved.total(), 724);
}

/// Trust works per pre-placement: a board of grouped units whose records are one off for one
/// south side is caught by software, quarantined, and its counts are computed again by a plain
/// board; the total stays exact.
#[test]
fn a_grouped_board_that_lies_for_one_south_side_is_caught_per_member() {
    let (_d, s) = campaign(9);
    let size = s.size();
    let mut d = Dispatcher::new(s, T).with_trust(Trust::default(), Some(3));
    let liar = d.add_link("grouped", 64, 0).unwrap();
    let plain = d.add_link("plain", 64, 0).unwrap();
    d.link_up(liar);
    let now = Instant::now();
    says_grouped(&mut d, liar, size, 8, now);
    for _ in 0..4 {
        for g in groups(size, &d.fill(liar, now).unwrap()) {
            d.feed(liar, &group_answer(size, g, true).concat(), now).unwrap();
        }
        serve_software(&mut d);
    }
    assert!(d.links()[liar].quarantined, "{:?}", d.totals());
    d.link_up(plain);
    says_units(&mut d, plain, size, 8, now);
    while !d.finished() {
        for w in words(size, &d.fill(plain, now).unwrap()) {
            d.feed(plain, &answer(size, w, None), now).unwrap();
        }
        serve_software(&mut d);
    }
    let sum = d.store().summary();
    assert_eq!(sum.solved.total(), 352);
    assert_eq!(sum.solved.subproblems(), sum.subproblems);
}
