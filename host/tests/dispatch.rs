//! The dispatcher's rules, with a scripted board: no threads, no sockets, the clock given.

use queens_core::frame;
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
        grouped: false,
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
