//! `grouped check N`: every group of every rule at small N, walked by a stepped unit and
//! checked against the software counter, the node prices and the enumerator.

use super::*;

/// Walks a group with the stepped unit: each solution's ring in the pre-placement's frame,
/// counted; the cycles of F and EF.
/// The fewest cycles between two solutions of a walk that end in the same positions of its
/// last two lines (the same counter of a grouped unit's tally), for F and EF.
fn gap(grid: &Grid) -> u64 {
    let mut least = u64::MAX;
    for e in [false, true] {
        let mut last = HashMap::new();
        Unit::on_grid(grid, e).run_with(|pos, cycle| {
            let key = (pos[pos.len() - 2], pos[pos.len() - 1]);
            if let Some(before) = last.insert(key, cycle) {
                least = least.min(cycle - before);
            }
        });
    }
    least
}

/// Walks a group with the stepped unit: each solution's ring in the pre-placement's frame,
/// counted; the cycles of F and EF; the fewest cycles between two solutions of one counter.
fn stepped(group: &Group, size: BoardSize) -> (HashMap<Preplacement, u64>, u64, u64, u64) {
    let n = size.n();
    let grid = group.grid();
    let mut tally = HashMap::new();
    let f = Unit::on_grid(&grid, false).run_with(|pos, _| {
        let mut cells = group.fixed.clone();
        for (i, y) in pos.iter().enumerate() {
            if let Some(y) = y {
                cells.push((group.xs.0 + i as u32, group.ys.0 + y));
            }
        }
        let cells: Vec<Cell> = cells.into_iter().map(|c| unmap(group.o, n, c)).collect();
        *tally.entry(ring_of(size, &cells)).or_insert(0) += 1;
    });
    let ef = Unit::on_grid(&grid, true).run_with(|_, _| {});
    (tally, f, ef, gap(&grid))
}

pub(super) fn check(n: u32) {
    let size = BoardSize::new(n).unwrap();
    let table = PairTable::new(size);
    let e = Enumerator::new(size);
    let all: Vec<Subproblem> = canonical(size).collect();
    // The frames: each orientation's map of the whole board gives `Blocking::turned`.
    all.par_iter().for_each(|sp| {
        let b = Blocking::new(&sp.pre);
        for o in Orientation::ALL {
            let t = turn(o, &sp.pre);
            assert_eq!(Blocking::new(&t), b.turned(o), "{o:?} {}", sp.pre);
            let cells: Vec<Cell> = sp.pre.queens().iter().map(|&c| map(o, n, c)).collect();
            let back: Vec<Cell> = cells.iter().map(|&c| unmap(o, n, c)).collect();
            assert_eq!(ring_of(size, &back), sp.pre);
        }
        for img in sp.pre.images() {
            assert_eq!(canon(&table, &img), sp.pre, "canonical image of {img}");
        }
        // The library's south group (queens_sim::grouped) walks this program's grid.
        assert_eq!(
            queens_sim::grouped::south_grid(&queens_core::south::SouthWalk::new(&sp.pre)),
            open_east(frame(Rule::South, &sp.pre), &sp.pre).grid(),
            "{}",
            sp.pre
        );
        // The stepped unit and the node prices against the model and its prices, on today's
        // walk and on the left-to-right one (Queens@TUD's prices there).
        for g in [b.oriented(), b] {
            let model = queens_sim::run_unit(&g);
            let lib = queens_sim::probe::cycles(&g);
            let grid = Grid::of_blocking(&g);
            let mut sols = 0;
            let f = Unit::on_grid(&grid, false).run_with(|_, _| sols += 1);
            let ef = Unit::on_grid(&grid, true).run_with(|_, _| {});
            assert!(gap(&grid) >= 2, "{}", sp.pre);
            let p = exact(&grid);
            assert_eq!((f, sols), (model.cycles, model.solutions), "{}", sp.pre);
            assert_eq!((p.f, p.ef, p.tud, p.sols), (f, ef, lib.tud, sols), "{}", sp.pre);
            let mut rng = fastrand::Rng::with_seed(3);
            let mut rng2 = fastrand::Rng::with_seed(3);
            let lp = queens_sim::probe::probe(&g, &mut rng);
            assert_eq!(probe(&grid, &mut rng2).f, lp.ours, "probe paths, {}", sp.pre);
        }
    });
    let (today, tud) = all
        .par_iter()
        .map(|sp| {
            let b = Blocking::new(&sp.pre);
            (
                queens_sim::run_subproblem(&sp.pre).cycles,
                queens_sim::probe::cycles(&b).tud,
            )
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    println!(
        "N={n}: {} pre-placements; the frames, canonical images, stepped unit and node prices agree with the model; today's unit {today} cycles, Queens@TUD's {tud}",
        all.len()
    );
    // Every group of every rule, once (by its first member in canonical order).
    let completion: HashMap<Preplacement, u64> =
        all.par_iter().map(|sp| (sp.pre, completions(&sp.pre))).collect();
    let rules = [
        Rule::South,
        Rule::SouthWe,
        Rule::SouthEw,
        Rule::North,
        Rule::East,
        Rule::West,
        Rule::Last,
        Rule::Last3,
        Rule::Two,
    ];
    for rule in rules {
        let seen = std::sync::Mutex::new(std::collections::HashSet::new());
        let stats: Vec<(u64, u64, u64, u64)> = all
            .par_iter()
            .filter_map(|sp| {
                let (g, k) = group(rule, &sp.pre, &table, &e);
                let mut key = g.fixed.clone();
                key.sort_unstable();
                if !seen.lock().unwrap().insert(key) {
                    return None;
                }
                let (tally, f, ef, least) = stepped(&g, size);
                assert!(
                    least >= 2,
                    "{rule:?}: one counter twice in {least} cycles, {}",
                    sp.pre
                );
                let p = exact(&g.grid());
                assert_eq!(
                    (p.f, p.ef),
                    (f, ef),
                    "{rule:?}: stepped against prices, {}",
                    sp.pre
                );
                assert_eq!(p.sols, tally.values().sum::<u64>());
                // Each solution's ring is a valid ring with the group's fixed sides, and each
                // ring's count is its completions.
                for (r, &c) in &tally {
                    let q = canon(&table, r);
                    assert_eq!(
                        c, completion[&q],
                        "{rule:?}: {r} (of {}) in the group of {}",
                        q, sp.pre
                    );
                }
                // Each member's count, from the software counter.
                let mems: Vec<Preplacement> = match rule {
                    Rule::Two => all
                        .iter()
                        .filter(|o| o.pre.side(0) == sp.pre.side(0) && o.pre.side(1) == sp.pre.side(1))
                        .map(|o| o.pre)
                        .collect(),
                    Rule::SouthWe | Rule::SouthEw => members(Rule::South, &sp.pre, &table),
                    _ => members(rule, &sp.pre, &table),
                };
                assert_eq!(mems.len() as u64, k);
                assert!(mems.contains(&sp.pre));
                let mut counted = 0;
                for q in &mems {
                    // The member's ring as the group's walk sees it, in the frame of `sp`.
                    let r = match rule {
                        Rule::South | Rule::North | Rule::East | Rule::West | Rule::Last | Rule::Last3 => {
                            unturn(frame(rule, &sp.pre), &turn(frame(rule, q), q))
                        }
                        _ => *q,
                    };
                    let got = tally.get(&r).copied().unwrap_or(0);
                    assert_eq!(
                        got, completion[q],
                        "{rule:?}: member {q} of the group of {}",
                        sp.pre
                    );
                    counted += got;
                }
                Some((k, f, counted, least))
            })
            .collect();
        if rule == Rule::South {
            // The south groups against the software counter's own walk, every south side.
            let mut sweep = Sweep::new(size);
            let mut groups = 0;
            for p in e.prefixes() {
                e.for_each_east(p, |east, souths| {
                    groups += 1;
                    let (wa, wb) = table.pair(p.w);
                    let (na, nb) = table.pair(p.n);
                    let (ea, eb) = table.pair(east);
                    let (sa, sb) = table.pair(souths[0].0);
                    let pre = Preplacement::new(size, [wa, wb, na, nb, ea, eb, sa, sb]).unwrap();
                    let (g, k) = group(Rule::South, &pre, &table, &e);
                    assert_eq!(k, souths.len() as u64);
                    let (tally, _, _, _) = stepped(&g, size);
                    let want = sweep.souths(p.w, p.n, east);
                    for (s, &c) in want.iter().enumerate() {
                        let (sa, sb) = table.pair(s as u32);
                        let got = Preplacement::new(size, [wa, wb, na, nb, ea, eb, sa, sb])
                            .ok()
                            .and_then(|r| tally.get(&r).copied())
                            .unwrap_or(0);
                        assert_eq!(got, c, "south {s} of {pre}");
                    }
                });
            }
            assert_eq!(groups, stats.len());
        }
        let members: u64 = stats.iter().map(|s| s.0).sum();
        let cycles: u64 = stats.iter().map(|s| s.1).sum();
        let counted: u64 = stats.iter().map(|s| s.2).sum();
        let least = stats.iter().map(|s| s.3).min().unwrap_or(u64::MAX);
        assert_eq!(
            members,
            all.len() as u64,
            "{rule:?}: the groups partition the order"
        );
        let want: u64 = completion.values().sum();
        assert_eq!(counted, want);
        println!(
            "N={n} {rule:?}: {} groups, {:.2} pre-placements per group, {cycles} cycles (F, {:.3} of today's, {:.3} of Queens@TUD's), {counted} completions recorded: counts, cycles and members agree; one counter twice in {least} cycles at the least",
            stats.len(),
            members as f64 / stats.len() as f64,
            cycles as f64 / today as f64,
            cycles as f64 / tud as f64,
        );
    }
}
