//! Lost, late, repeated and foreign answers, and links that fail: every result counts once.

use super::*;

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
