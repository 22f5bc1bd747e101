//! The grouped walk's model (`queens_sim::grouped`): one walk per (west, north, east) counts
//! every south side exactly as the software counter does, with today's step on a grid, and
//! its answer survives the group frames.

use queens_core::board::PairTable;
use queens_core::enumerate::{canonical, Prefix};
use queens_core::group::{self, GroupRecord};
use queens_core::south::SouthWalk;
use queens_core::sweep::Sweep;
use queens_core::{completions, Blocking, BoardSize, Enumerator, Preplacement};
use queens_sim::grouped::run_south_group;
use queens_sim::model::{Grid, Unit};
use std::collections::HashMap;

#[test]
fn a_unit_on_the_grid_of_todays_walk_is_the_unit_on_its_blocking() {
    let size = BoardSize::new(9).unwrap();
    for sp in canonical(size) {
        let b = Blocking::new(&sp.pre).oriented();
        let model = queens_sim::run_unit(&b);
        let mut solutions = 0;
        let cycles = Unit::on_grid(&Grid::of_blocking(&b), false).run_with(|_, _| solutions += 1);
        assert_eq!((cycles, solutions), (model.cycles, model.solutions), "{}", sp.pre);
    }
}

#[test]
fn every_south_group_counts_each_member_as_software_does() {
    for n in 8..=11 {
        let size = BoardSize::new(n).unwrap();
        let table = PairTable::new(size);
        let e = Enumerator::new(size);
        let mut sweep = Sweep::new(size);
        let (mut members, mut walks) = (0u64, 0u64);
        // Each (west, north) once: the canonical order runs through them in turn.
        let mut prefixes: Vec<(u32, u32)> = canonical(size)
            .map(|sp| {
                let s = sp.pre.side_indices(&table);
                (s[0], s[1])
            })
            .collect();
        prefixes.dedup();
        let by_member: HashMap<[u32; 4], u64> = canonical(size)
            .map(|sp| (sp.pre.side_indices(&table), completions(&sp.pre)))
            .collect();
        for (w, nn) in prefixes {
            e.for_each_east(Prefix { w, n: nn }, |east, souths| {
                // Any member names the group; the first is also the request's.
                let pair = |i: u32| table.pair(i);
                let (a, b, c, d) = (pair(w), pair(nn), pair(east), pair(souths[0].0));
                let first = Preplacement::new(size, [a.0, a.1, b.0, b.1, c.0, c.1, d.0, d.1]).unwrap();
                let run = run_south_group(&first);
                let by_south = run.souths(&first, &table);
                let software = sweep.souths(w, nn, east).to_vec();
                assert_eq!(by_south, software, "N = {n}, sides {w} {nn} {east}");
                for &(s, _) in souths {
                    let want = by_member[&[w, nn, east, s]];
                    assert_eq!(by_south[s as usize], want, "N = {n}, {w} {nn} {east} {s}");
                }
                assert!(run.cycles > by_south.iter().sum::<u64>());
                // As a board would answer: records on the wire, read back, member by member.
                let wire = group::group_wire(&first).unwrap();
                let mut answer = group::Answer::new(wire);
                let mut done = None;
                for r in run.records(wire) {
                    let back = GroupRecord::decode(size, &r.encode(size)).unwrap();
                    done = answer.push(&back).unwrap();
                }
                let walked = done.expect("the end record closes the answer");
                assert_eq!(walked.cycles, run.cycles);
                let walk = SouthWalk::new(&first);
                for &(s, _) in souths {
                    let got = walked
                        .souths
                        .iter()
                        .find(|c| walk.south(c.0, &table) == Some(s))
                        .map_or(0, |c| c.1);
                    assert_eq!(got, by_member[&[w, nn, east, s]], "N = {n}, {w} {nn} {east} {s}");
                }
                let shares = group::cycle_shares(run.cycles, souths.len());
                assert_eq!(shares.iter().sum::<u64>(), run.cycles);
                members += souths.len() as u64;
                walks += 1;
            });
        }
        assert_eq!(
            members,
            by_member.len() as u64,
            "N = {n}: every member in one group"
        );
        assert!(
            walks < members,
            "N = {n}: {walks} walks for {members} pre-placements"
        );
    }
}

#[test]
fn a_south_walks_blocking_leaves_open_what_the_fixed_queens_leave_open() {
    // The blocking vectors against each fixed queen's attacks checked square by square.
    for n in 8..=12 {
        let size = BoardSize::new(n).unwrap();
        for sp in canonical(size) {
            let walk = SouthWalk::new(&sp.pre);
            // Rows as lines, row N-3 first: (x, y) -> (N-1-y, x).
            let fixed: Vec<_> = queens_core::south::fixed_queens(&sp.pre)
                .into_iter()
                .map(|(x, y)| (n - 1 - y, x))
                .collect();
            let grid = Grid::new(&fixed, (2, n - 1), (2, n - 3));
            assert_eq!(queens_sim::grouped::south_grid(&walk), grid, "{}", sp.pre);
        }
    }
}

/// Every engine that answers group requests sends the model's records for every group: the
/// whole core in rust-hdl (N = 8 and 9) and the emitted core under Verilator (N = 8 to 11,
/// with the CCU2C cells' models at N = 10, and with the registered tally at N = 9 and 11: its
/// records and the walk's cycles in the end record are the direct tally's).
#[test]
fn grouped_cores_in_rtl_and_verilator_answer_every_group_of_8_to_11_as_the_model() {
    use queens_hdl::solver::tally::TallyPipe;
    use queens_hdl::ArbiterKind;
    use queens_sim::group_check::{GroupEngine, GroupModel, RtlGroupCore, VerilatorGroupCore};
    let verilator = |arbiter, pipe| VerilatorGroupCore {
        arbiter,
        units: 2,
        pipe,
    };
    for n in 8..=11 {
        let size = BoardSize::new(n).unwrap();
        let members = queens_sim::grouped::south_groups(size);
        let model = GroupModel.run_groups(size, &members).unwrap();
        assert!(
            model.iter().any(|r| r.len() > 1),
            "N = {n}: a group with solutions"
        );
        let mut engines: Vec<Box<dyn GroupEngine>> =
            vec![Box::new(verilator(ArbiterKind::Adder, TallyPipe::Direct))];
        if n <= 9 {
            engines.push(Box::new(RtlGroupCore {
                arbiter: ArbiterKind::Adder,
            }));
        }
        if n == 10 {
            engines.push(Box::new(verilator(ArbiterKind::Ccu2c, TallyPipe::Direct)));
        }
        if n % 2 == 1 {
            engines.push(Box::new(verilator(ArbiterKind::Adder, TallyPipe::Registered)));
        }
        for e in engines {
            let got = e.run_groups(size, &members).unwrap();
            for ((p, a), b) in members.iter().zip(&got).zip(&model) {
                assert_eq!(a, b, "N = {n}, {}: the group of {p}", e.name());
            }
        }
    }
}
