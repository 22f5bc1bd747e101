//! Wire words, frames, result records and database entries: the check values of
//! docs/spec/protocol.md and docs/spec/entries.md byte for byte, round trips, and corrupted
//! input rejected.

use proptest::prelude::*;
use queens_core::deframe::{Deframed, Deframer};
use queens_core::entry::{crc3, Entry, Solution, Stamp};
use queens_core::enumerate::canonical;
use queens_core::frame;
use queens_core::ident::Ident;
use queens_core::{word, BoardSize, Enumerator, ModelError, ResultRecord, Subproblem, UnitKind};
use std::sync::OnceLock;

fn size(n: u32) -> BoardSize {
    BoardSize::new(n).unwrap()
}

/// Subproblems of a few sizes, computed once.
fn subproblems(n: u32) -> &'static [Subproblem] {
    static CACHE: OnceLock<Vec<Vec<Subproblem>>> = OnceLock::new();
    let all = CACHE.get_or_init(|| (6..=12).map(|n| canonical(size(n)).collect()).collect());
    &all[(n - 6) as usize]
}

/// The first subproblems of N = 27 and some from the middle of its west range.
fn q27_samples() -> Vec<Subproblem> {
    let e = Enumerator::new(size(27));
    let prefixes = e.prefixes();
    let mut out = Vec::new();
    for &i in &[0, prefixes.len() / 3, prefixes.len() - 1] {
        e.for_each_in(prefixes[i], |sp| out.push(sp));
    }
    out
}

#[test]
fn frame_check_values() {
    let f = frame::encode(&0x0123456789u64.to_be_bytes()[3..]);
    assert_eq!(f, [0xFA, 0x01, 0x23, 0x45, 0x67, 0x89, 0xFB]);
    let f = frame::encode(&0x8123456788u64.to_be_bytes()[3..]);
    assert_eq!(f, [0xFA, 0x81, 0x23, 0x45, 0x67, 0x88, 0x62]);
}

#[test]
fn parity_of_check_words() {
    let s = size(27);
    assert_eq!(word::with_parity(s, 0x0123456789), 0x0123456789);
    assert_eq!(word::with_parity(s, 0x0123456788), 0x8123456788);
}

#[test]
fn result_check_value() {
    let s = size(27);
    let r = ResultRecord::new(0x8123456788, 1000, None);
    let f = frame::encode(&r.encode(s));
    assert_eq!(
        f,
        [0xFA, 0x81, 0x23, 0x45, 0x67, 0x88, 0xCA, 0x00, 0x00, 0x00, 0x00, 0x3E, 0x80, 0xB0]
    );
    assert_eq!(ResultRecord::payload_len(s, false), 12);
    assert_eq!(ResultRecord::payload_len(s, true), 18);
    let back = ResultRecord::decode(s, frame::decode(&f, 12).unwrap(), false).unwrap();
    assert_eq!(back, r);
}

#[test]
fn wrapped_counter_is_detected_and_recovered() {
    let s = size(27);
    let truth = (1u64 << 44) * 3 + 12345;
    let r = ResultRecord::new(0x8123456788, truth, Some(99));
    let back = ResultRecord::decode(s, &r.encode(s), true).unwrap();
    assert!(!back.digits_match());
    assert_eq!(back.true_count().unwrap(), truth);
    assert_eq!(back.cycles, Some(99));
    let bad = ResultRecord { mod13: 13, ..back };
    assert!(matches!(bad.true_count(), Err(ModelError::Residue { .. })));
}

#[test]
fn crc3_matches_bitwise_definition() {
    fn bitwise(v: u64) -> u8 {
        let mut r = 0u8;
        for i in (0..64).rev() {
            let fb = (r >> 2 & 1) ^ (v >> i & 1) as u8;
            r = (r << 1) & 7;
            if fb == 1 {
                r ^= 0b011;
            }
        }
        r
    }
    for v in [0u64, 1, 0x1234_5678_9ABC, u64::MAX >> 20, 0xDEAD_BEEF] {
        assert_eq!(crc3(v), bitwise(v), "{v:#x}");
    }
}

#[test]
fn q27_words_round_trip_and_wa_fits() {
    let s = size(27);
    for sp in q27_samples() {
        let wire = word::encode_wire(&sp.pre).unwrap();
        assert_eq!(wire >> 40, 0);
        assert_eq!(wire.count_ones() % 2, 1);
        assert_eq!(word::decode_wire(s, wire).unwrap(), sp.pre);
        let e = Entry::fresh(sp.pre, sp.sym);
        // The wire word is word 1 shifted right by 25, plus parity.
        let w1 = u64::from_be_bytes(e.encode()[..8].try_into().unwrap());
        assert_eq!(word::with_parity(s, w1 >> 25), wire);
    }
}

#[test]
fn bad_parity_and_width_rejected() {
    let s = size(27);
    let sp = q27_samples()[0];
    let wire = word::encode_wire(&sp.pre).unwrap();
    assert!(matches!(
        word::decode_wire(s, wire ^ (1 << 39)),
        Err(ModelError::Parity { .. })
    ));
    assert!(matches!(
        word::decode_wire(s, wire | 1 << 45),
        Err(ModelError::WordWidth { .. })
    ));
}

#[test]
fn deframer_resyncs_through_garbage_and_bad_crc() {
    let payloads: Vec<Vec<u8>> = vec![vec![1, 2, 3, 4, 5], vec![0xFA, 0xFA, 0, 0xFA, 9], vec![7; 5]];
    let mut stream = vec![0x00, 0x13];
    stream.extend(frame::encode(&payloads[0]));
    let mut bad = frame::encode(&[9, 9, 9, 9, 9]);
    bad[3] ^= 0x40;
    stream.extend(&bad);
    stream.extend(frame::encode(&payloads[1]));
    stream.extend([0xFA, 1, 2]); // a truncated frame: its sentinel is hunted past
    stream.extend(frame::encode(&payloads[2]));
    // Feed in awkward pieces.
    let mut d = Deframer::new(5);
    let mut got = Vec::new();
    let mut crc_errors = 0;
    for chunk in stream.chunks(3) {
        d.push(chunk, |ev| match ev {
            Deframed::Frame(p) => got.push(p),
            Deframed::BadCrc { .. } => crc_errors += 1,
            Deframed::Skipped(_) => {}
            Deframed::Ident(_) => unreachable!("a plain deframer reports no answers"),
        });
    }
    assert_eq!(got, payloads);
    assert!(
        crc_errors >= 2,
        "the corrupted and the truncated frame are rejected"
    );
}

proptest! {
    #[test]
    fn words_round_trip(n in 6u32..=12, k in any::<prop::sample::Index>()) {
        let sps = subproblems(n);
        let sp = sps[k.index(sps.len())];
        let wire = word::encode_wire(&sp.pre).unwrap();
        prop_assert_eq!(wire.count_ones() % 2, 1);
        prop_assert_eq!(word::decode_wire(size(n), wire).unwrap(), sp.pre);
        let bytes = word::wire_to_bytes(size(n), wire);
        prop_assert_eq!(bytes.len(), word::wire_bytes(size(n)));
        prop_assert_eq!(word::wire_from_bytes(&bytes), wire);
    }

    #[test]
    fn frames_round_trip_and_single_bit_errors_are_caught(
        payload in prop::collection::vec(any::<u8>(), 1..20),
        bit in any::<prop::sample::Index>(),
    ) {
        let f = frame::encode(&payload);
        prop_assert_eq!(frame::decode(&f, payload.len()).unwrap(), &payload[..]);
        let mut bad = f.clone();
        let b = 8 + bit.index(8 * (f.len() - 1)); // any bit after the sentinel
        bad[b / 8] ^= 1 << (b % 8);
        let caught = matches!(frame::decode(&bad, payload.len()), Err(ModelError::FrameCrc { .. }));
        prop_assert!(caught);
    }

    #[test]
    fn results_round_trip(n in 6u32..=32, wire in any::<u64>(), count in any::<u64>(),
                          cycles in proptest::option::of(0u64..1 << 48)) {
        let s = size(n);
        let wire = wire >> (64 - 8 * word::wire_bytes(s));
        let count = count >> 20;
        let r = ResultRecord::new(wire, count, cycles);
        let p = r.encode(s);
        prop_assert_eq!(p.len(), ResultRecord::payload_len(s, cycles.is_some()));
        let back = ResultRecord::decode(s, &p, cycles.is_some()).unwrap();
        prop_assert_eq!(back, r);
        prop_assert_eq!(back.true_count().unwrap(), count);
    }

    #[test]
    fn entries_round_trip_and_corruption_is_caught(
        n in 6u32..=12, k in any::<prop::sample::Index>(),
        secs in 1_420_070_400i64..2_000_000_000, solved in any::<bool>(),
        solver in 1u16..4096, count in 0u64..1 << 44, bit in 20u32..64,
    ) {
        let sps = subproblems(n);
        let sp = sps[k.index(sps.len())];
        let e = Entry {
            pre: sp.pre,
            sym: sp.sym,
            handed_out: Some(Stamp::from_unix(secs)),
            solution: solved.then(|| Solution::new(solver, count).unwrap()),
        };
        let bytes = e.encode();
        prop_assert_eq!(Entry::decode(size(n), &bytes).unwrap(), e);
        // A flipped bit anywhere under the CRC-3 is caught.
        let mut bad = bytes;
        bad[7 - (bit / 8) as usize] ^= 1 << (bit % 8);
        prop_assert!(Entry::decode(size(n), &bad).is_err());
    }
}

#[test]
fn fresh_entry_is_unsolved_and_solver_zero_refused() {
    let sp = subproblems(10)[5];
    let e = Entry::fresh(sp.pre, sp.sym);
    let b = e.encode();
    assert_eq!(&b[8..], &[0; 8]);
    assert_eq!(b[5] & 0x0F, 0);
    assert!(Solution::new(0, 5).is_err());
    // A word 2 with a count but no solver (a flipped bit of an unsolved entry) is refused.
    let mut flipped = b;
    flipped[15] ^= 0x20;
    let e = Entry::decode(size(10), &flipped).unwrap_err().to_string();
    assert!(e.contains("solver"), "{e}");
    let garbage = [0xFFu8; 16];
    assert!(Entry::decode(size(10), &garbage).is_err());
}

mod group_frames {
    use super::*;
    use queens_core::group::{self, Body, GroupRecord, END};
    use queens_core::south::HELD;

    /// The first canonical pre-placement of N = 27 (a member of the first group).
    fn first27() -> queens_core::Preplacement {
        q27_samples()[0].pre
    }

    #[test]
    fn a_group_request_is_its_word_with_the_south_at_zero_and_a_plain_board_drops_it() {
        let s = size(27);
        let p = first27();
        let wire = group::group_wire(&p).unwrap();
        // The south fields are the lowest 10 bits at N = 27; the rest is the member's word.
        assert_eq!(wire & 0x3FF, 0);
        assert_eq!(
            word::strip_parity(s, wire).unwrap() >> 10,
            word::encode(&p).unwrap() >> 10
        );
        assert_eq!(wire.count_ones() % 2, 1);
        let f = group::request(&p).unwrap();
        assert_eq!(group::decode_request(s, &f).unwrap(), wire);
        // A board of the plain protocol checks the plain CRC: the request fails it.
        assert!(matches!(
            frame::decode(&f, word::wire_bytes(s)),
            Err(ModelError::FrameCrc { .. })
        ));
        // And a plain request is no group request.
        let plain = frame::encode(&word::wire_to_bytes(s, word::encode_wire(&p).unwrap()));
        assert!(group::decode_request(s, &plain).is_err());
    }

    #[test]
    fn group_record_check_values() {
        // N = 27, group word 0x8123456400: place code 300 (row 1's queen at position 9, row
        // 0's at 12) with 2^36 + 1,000 completions: a wrap record, the south record of the
        // remaining 1,000, then the end record after that 1 south record (2^36 + 1,000 is 0
        // mod 13 and 11 mod 15) and 2^40 + 5 cycles; and that end record with a wrap lost.
        // The payloads were laid out by a separate script from docs/spec/protocol.md, which
        // quotes these frames.
        let s = size(27);
        assert_eq!(GroupRecord::payload_len(s), 16);
        let wire = 0x8123456400;
        let answer = GroupRecord::answer(wire, &[(300, (1 << 36) + 1000)], (1 << 40) + 5);
        let hex = |r: &GroupRecord| {
            let f = r.encode(s);
            f.iter().map(|b| format!("{b:02X}")).collect::<Vec<_>>().join(" ")
        };
        let want = [
            "FA 81 23 45 64 00 4B 20 00 00 00 00 00 00 00 00 00 33",
            "FA 81 23 45 64 00 4B 00 00 00 00 00 00 00 00 FA 00 80",
            "FA 81 23 45 64 00 FF C2 C0 00 40 40 00 00 00 01 40 C9",
        ];
        assert_eq!(answer.iter().map(hex).collect::<Vec<_>>(), want);
        let end = |wrap_lost| Body::End {
            mod13: 0,
            mod15: 11,
            wrap_lost,
            records: 1,
            cycles: (1 << 40) + 5,
        };
        let bodies = [
            Body::Wrap { south: 300 },
            Body::South {
                south: 300,
                count: 1000,
            },
            end(false),
        ];
        for (f, body) in want.iter().zip(bodies) {
            let bytes: Vec<u8> = f.split(' ').map(|b| u8::from_str_radix(b, 16).unwrap()).collect();
            assert_eq!(
                GroupRecord::decode(s, &bytes).unwrap(),
                GroupRecord { wire, body }
            );
        }
        let lost = GroupRecord {
            wire,
            body: end(true),
        };
        assert_eq!(
            hex(&lost),
            "FA 81 23 45 64 00 FF C2 E0 00 40 40 00 00 00 01 40 A8"
        );
    }

    #[test]
    fn an_answer_is_taken_only_whole() {
        use queens_core::group::{Answer, AnswerError};
        let wire = 0x8123456400;
        let take = |records: &[GroupRecord]| {
            let mut a = Answer::new(wire);
            let (last, rest) = records.split_last().unwrap();
            for r in rest {
                assert_eq!(a.push(r), Ok(None));
            }
            a.push(last)
        };
        // Counts past the tally's 36 bits come back whole: 2^36 + 3 (a wrap and a south
        // record), 2^37 exactly (two wraps, no south record), and 7.
        let places = [(5, 7), (9, (1 << 36) + 3), (12, 1 << 37)];
        let recs = GroupRecord::answer(wire, &places, 1 << 44);
        assert_eq!(recs.len(), 3 + 2 + 1);
        let walked = take(&recs).unwrap().unwrap();
        let mut souths = walked.souths.clone();
        souths.sort();
        assert_eq!((souths.as_slice(), walked.cycles), (&places[..], 1 << 44));
        let last = recs.len() - 1;
        let Body::End {
            mod13,
            mod15,
            records,
            cycles,
            ..
        } = recs[last].body
        else {
            unreachable!("the answer ends with the end record")
        };
        let with = |i: usize, body: Body| {
            let mut r = recs.clone();
            r[i].body = body;
            r
        };
        // A count one off (a flipped bit in a tally word, under a good CRC): the end record's
        // residues of the walk's solutions give it away; so do a lost wrap record and one too
        // many.
        let south_at = (recs.iter())
            .position(|r| matches!(r.body, Body::South { south: 5, .. }))
            .unwrap();
        let bad = with(south_at, Body::South { south: 5, count: 8 });
        assert!(matches!(take(&bad), Err(AnswerError::Residues { .. })));
        let lost = recs[1..].to_vec();
        assert!(matches!(take(&lost), Err(AnswerError::Residues { .. })));
        let extra = [&recs[..1], &recs[..]].concat();
        assert!(matches!(take(&extra), Err(AnswerError::Residues { .. })));
        // A lost south record: the end record's count gives it away.
        let mut short = recs.clone();
        short.remove(south_at);
        assert_eq!(
            take(&short),
            Err(AnswerError::Records {
                said: records,
                received: records - 1
            })
        );
        // A wrap lost in the unit: refused for good.
        let lost_wrap = with(
            last,
            Body::End {
                mod13,
                mod15,
                wrap_lost: true,
                records,
                cycles,
            },
        );
        let err = take(&lost_wrap).unwrap_err();
        assert_eq!(err, AnswerError::WrapLost);
        assert!(!err.transient() && AnswerError::Records { said: 1, received: 0 }.transient());
        // A record twice, a record of another group.
        let mut a = Answer::new(wire);
        a.push(&recs[south_at]).unwrap();
        assert_eq!(a.push(&recs[south_at]), Err(AnswerError::Twice { south: 5 }));
        let other = GroupRecord {
            wire: wire ^ 0x400,
            body: recs[south_at].body,
        };
        assert!(matches!(
            Answer::new(wire).push(&other),
            Err(AnswerError::OtherGroup { .. })
        ));
    }

    #[test]
    fn cycle_shares_add_up_to_the_walk() {
        assert_eq!(group::cycle_shares(10, 3), [4, 3, 3]);
        assert_eq!(group::cycle_shares(9, 3), [3, 3, 3]);
        assert_eq!(group::cycle_shares(2, 3), [1, 1, 0]);
        for (c, k) in [(1_000_003u64, 116usize), (5, 1), (0, 4)] {
            let s = group::cycle_shares(c, k);
            assert_eq!(s.len(), k);
            assert_eq!(s.iter().sum::<u64>(), c);
            assert!(s.windows(2).all(|w| w[0] >= w[1] && w[0] - w[1] <= 1));
        }
    }

    #[test]
    fn records_round_trip_and_bad_ones_are_refused() {
        for n in [8, 12, 27, 32] {
            let s = size(n);
            let wire = 0x8123456400 & ((1u64 << (8 * word::wire_bytes(s))) - 1);
            let record = |body| GroupRecord { wire, body };
            let end = |mod13, mod15, wrap_lost, records, cycles| Body::End {
                mod13,
                mod15,
                wrap_lost,
                records,
                cycles,
            };
            for rec in [
                record(Body::South { south: 0, count: 1 }),
                record(Body::South {
                    south: (s.inner() - 1) << 5 | HELD,
                    count: (1 << 36) - 1,
                }),
                record(Body::Wrap {
                    south: HELD << 5 | HELD,
                }),
                record(end(0, 0, false, 0, 7)),
                record(end(12, 14, true, 1023, (1 << 48) - 1)),
            ] {
                let f = rec.encode(s);
                assert_eq!(f.len(), GroupRecord::payload_len(s) + 2);
                let back = GroupRecord::decode(s, &f).unwrap();
                assert_eq!(back, rec, "N = {n}");
                // Every flipped bit of the payload is caught by the CRC.
                for bit in 8..8 * (f.len() - 1) {
                    let mut g = f.clone();
                    g[bit / 8] ^= 0x80 >> (bit % 8);
                    assert!(GroupRecord::decode(s, &g).is_err(), "N = {n}, bit {bit}");
                }
            }
            // A place past the inner positions of N (and not HELD; nor the end marker) in
            // either half of the south field is refused.
            for south in [s.inner() << 5, s.inner(), 31 << 5, HELD << 5 | 31] {
                let bad = GroupRecord {
                    wire,
                    body: Body::South { south, count: 0 },
                };
                assert_ne!(south, END);
                assert!(
                    matches!(
                        GroupRecord::decode(s, &bad.encode(s)),
                        Err(ModelError::GroupField { field: "south", .. })
                    ),
                    "N = {n}, south field {south}"
                );
            }
            // A plain result frame of the same length is not a record.
            let plain = frame::encode(&vec![0; GroupRecord::payload_len(s)]);
            assert!(GroupRecord::decode(s, &plain).is_err());
        }
        // A south record with a bit set above its 36-bit count, or with a count of zero (a
        // code without completions has no record), or any other body but a wrap's with the
        // top bit set; an end record with a spare bit set, or residues out of range: refused.
        let s = size(27);
        let end = Body::End {
            mod13: 1,
            mod15: 2,
            wrap_lost: false,
            records: 3,
            cycles: 4,
        };
        let (_, good) = end.fields();
        assert_eq!(Body::read(s, END, good), Ok(end));
        for (south, body, field) in [
            (3, 1000 | 1 << 36, "spare bits"),
            (3, 0, "spare bits"),
            (3, 1 << 70, "spare bits"),
            (3, 1 << 71 | 1, "spare bits"),
            (END, good | 1 << 58, "spare bits"),
            (END, good | 13 << 68, "end record's residues"),
        ] {
            assert!(
                matches!(Body::read(s, south, body), Err(ModelError::GroupField { field: f, .. }) if f == field),
                "south {south}, body {body:#x}"
            );
        }
    }
}

/// A group request's word names its group: the member read back from it shares the west,
/// north and east sides and walks the same south walk; a word whose sides no south side
/// completes is refused; a deframer with the group XOR takes group requests, not plain frames.
#[test]
fn a_group_word_names_a_member_of_its_group() {
    use queens_core::board::PairTable;
    use queens_core::group;
    use queens_core::south::SouthWalk;
    let s = size(10);
    let table = PairTable::new(s);
    for sp in subproblems(10).iter().step_by(7) {
        let wire = group::group_wire(&sp.pre).unwrap();
        let m = group::some_member(s, wire).unwrap();
        assert_eq!(
            m.side_indices(&table)[..3],
            sp.pre.side_indices(&table)[..3],
            "{}",
            sp.pre
        );
        assert_eq!(SouthWalk::new(&m), SouthWalk::new(&sp.pre), "{}", sp.pre);
    }
    // West queens in rows 0 and 1 of columns 0 and 1 attack each other: no ring.
    let bad = word::with_parity(s, 1 << (7 * 4));
    assert!(group::some_member(s, bad).is_err());
    let p = &subproblems(10)[3].pre;
    let mut d = Deframer::new(word::wire_bytes(s)).with_xor(group::GROUP_CRC_XOR);
    let mut got = Vec::new();
    let plain = frame::encode(&word::wire_to_bytes(s, word::encode_wire(p).unwrap()));
    d.push(&[plain, group::request(p).unwrap()].concat(), |x| got.push(x));
    let want = word::wire_to_bytes(s, group::group_wire(p).unwrap());
    assert!(got.contains(&Deframed::Frame(want)), "{got:?}");
    assert!(
        got.iter().any(|x| matches!(x, Deframed::BadCrc { .. })),
        "{got:?}"
    );
}

/// A group word's members are exactly the run of canonical entries with its west, north and
/// east sides, in order and with their classes, for every group of N = 8 to 12.
#[test]
fn a_group_word_lists_its_run_of_the_canonical_order() {
    use queens_core::board::PairTable;
    use queens_core::group;
    for n in 8..=12 {
        let s = size(n);
        let table = PairTable::new(s);
        let all: Vec<Subproblem> = canonical(s).collect();
        let mut i = 0;
        while i < all.len() {
            let wire = group::group_wire(&all[i].pre).unwrap();
            assert_eq!(group::group_of(s, word::encode_wire(&all[i].pre).unwrap()), wire);
            let members = group::members(&table, wire).unwrap();
            assert!(!members.is_empty(), "N = {n}: the group of {}", all[i].pre);
            assert_eq!(
                members[..],
                all[i..i + members.len()],
                "N = {n}: the group of {}",
                all[i].pre
            );
            i += members.len();
            if let Some(next) = all.get(i) {
                assert_ne!(
                    group::group_wire(&next.pre).unwrap(),
                    wire,
                    "N = {n}: a group cut short"
                );
            }
        }
    }
}

/// A plain receiver never takes an identification request for a pre-placement.
#[test]
fn a_plain_deframer_drops_an_identification_request() {
    for n in [8, 10, 27] {
        let size = BoardSize::new(n).unwrap();
        let mut d = Deframer::new(word::wire_bytes(size));
        let mut frames = 0;
        d.push(&queens_core::ident::request(size), |x| {
            frames += usize::from(matches!(x, Deframed::Frame(_)))
        });
        assert_eq!(frames, 0, "N = {n}");
    }
}

#[test]
fn a_deframer_with_ident_takes_an_answer_out_between_results_and_loses_none() {
    let id = Ident {
        n: 10,
        units: 2,
        clock_hz: 62_500_000,
        design_hash: 0x0123_4567,
        with_cycles: true,
        unit: UnitKind::Plain,
    };
    for len in [8usize, 15, 16, 24] {
        let frame = |i: u8| frame::encode(&vec![i; len]);
        let mut stream = frame(1);
        stream.extend(id.encode());
        stream.extend(frame(2));
        stream.extend(frame(3));
        // Byte by byte: the answer's start must wait, not be dropped as a short frame.
        let mut d = Deframer::new(len).with_ident();
        let (mut frames, mut idents, mut other) = (vec![], vec![], 0);
        for b in &stream {
            d.push(&[*b], |x| match x {
                Deframed::Frame(p) => frames.push(p[0]),
                Deframed::Ident(i) => idents.push(i),
                _ => other += 1,
            });
        }
        assert_eq!(
            (frames, idents, other),
            (vec![1, 2, 3], vec![id], 0),
            "payload {len}"
        );
        // A plain deframer sees the answer as bytes that fail, and still every result.
        let mut plain = Deframer::new(len);
        let mut frames = vec![];
        plain.push(&stream, |x| {
            if let Deframed::Frame(p) = x {
                frames.push(p[0])
            }
        });
        assert_eq!(frames, vec![1, 2, 3], "payload {len}");
    }
}
