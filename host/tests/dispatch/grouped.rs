//! Boards of grouped units: whole groups out, a record per member back, trust per member.

use super::*;
use queens_core::group::GroupRecord;

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
        // A unit that miscounts: the end record's residues agree with the wrong count.
        if let Body::South { count, .. } = &mut records[0].body {
            *count += 1;
            if let Some(Body::End { mod13, mod15, .. }) = records.last_mut().map(|r| &mut r.body) {
                *mod13 = (*mod13 + 1) % 13;
                *mod15 = (*mod15 + 1) % 15;
            }
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
                // a south record's count with a bit flipped inside the unit (its frame's CRC
                // right): the end record's residues of the walk give it away
                5 if last > 0 => {
                    let mut r = GroupRecord::decode(size, &records[0]).unwrap();
                    if let Body::South { count, .. } = &mut r.body {
                        *count ^= 1 << 20;
                    }
                    records[0] = r.encode(size);
                }
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

/// A walk that lost a wrap of its 36-bit tally (the end record says so) is refused for good:
/// the run stops with an error naming the group, and nothing of it is recorded.
#[test]
fn a_walk_that_lost_a_wrap_stops_the_run_and_records_nothing_of_its_group() {
    let (_d, s) = campaign(9);
    let size = s.size();
    let mut d = Dispatcher::new(s, T);
    let l = d.add_link("a", 8, 0).unwrap();
    d.link_up(l);
    let now = Instant::now();
    says_grouped(&mut d, l, size, 8, now);
    let g = groups(size, &d.fill(l, now).unwrap())[0];
    let mut records: Vec<GroupRecord> = group_answer(size, g, false)
        .iter()
        .map(|f| GroupRecord::decode(size, f).unwrap())
        .collect();
    if let Some(Body::End { wrap_lost, .. }) = records.last_mut().map(|r| &mut r.body) {
        *wrap_lost = true;
    }
    let frames: Vec<u8> = records.iter().flat_map(|r| r.encode(size)).collect();
    let err = d.feed(l, &frames, now).unwrap_err();
    assert!(
        matches!(err, queens_host::dispatch::DispatchError::WrapLost { group } if group == g),
        "{err}"
    );
    assert!(err.to_string().contains("--unit plain"), "{err}");
    assert_eq!(d.store().summary().solved.subproblems(), 0);
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
