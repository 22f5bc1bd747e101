//! Wrong counts: caught by a second source, the board quarantined and its counts withdrawn.

use super::*;

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
