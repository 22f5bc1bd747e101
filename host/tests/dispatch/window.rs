//! How much work a board is given: its window, grown, halved and kept from what it says it holds.

use super::*;

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
