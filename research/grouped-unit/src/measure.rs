//! `grouped exact` and `grouped probe`: each walk's cycles per pre-placement over a sample,
//! against Queens@TUD's unit.

use super::*;

/// The walks measured, in the table's order (`Alone` is today's unit).
const NR: usize = 10;
const RULES: [(Rule, &str); NR] = [
    (Rule::Alone, "(a) today's unit, each alone"),
    (Rule::South, "(b) south open, north to south"),
    (Rule::SouthWe, "(b) south open, west to east"),
    (Rule::SouthEw, "(b) south open, east to west"),
    (Rule::North, "(d) north open, south to north"),
    (Rule::East, "(d) east open, west to east"),
    (Rule::West, "(d) west open, east to west"),
    (Rule::Last, "(c) today's last side open"),
    (Rule::Last3, "(c) side open by 3-side score"),
    (Rule::Two, "(d) east and south open"),
];

/// One sampled pre-placement: Queens@TUD's cycles on it, and for each walk of `RULES` its
/// group's prices shared among its members, the members, and the walk's score.
struct Row {
    tud: f64,
    walks: [Price<f64>; NR],
    members: [u64; NR],
    score: [u32; NR],
    orientation: Orientation,
}

pub(super) fn measure(n: u32, k: u64, probes: Option<u32>, seed: u64, skip_two: bool) {
    let size = BoardSize::new(n).unwrap();
    let table = PairTable::new(size);
    let e = Enumerator::new(size);
    let t0 = std::time::Instant::now();
    let mut s = Sampler::new(size);
    let total = s.count(&AtomicU64::new(0));
    let sample = s.evenly(k, &AtomicU64::new(0));
    let m = size.inner();
    let rows: Vec<Row> = sample
        .par_iter()
        .enumerate()
        .map(|(i, sp)| {
            let mut rng = rng_for(seed, i);
            let b = Blocking::new(&sp.pre);
            let tud = match probes {
                None => queens_sim::probe::cycles(&b).tud as f64,
                Some(p) => queens_sim::probe::probe_mean(&b, p, &mut rng).tud,
            };
            let mut row = Row {
                tud,
                walks: [Price::default(); NR],
                members: [1; NR],
                score: [0; NR],
                orientation: b.orientation(),
            };
            for (j, &(rule, _)) in RULES.iter().enumerate() {
                if rule == Rule::Two && skip_two {
                    continue;
                }
                let (grid, members) = if rule == Rule::Alone {
                    (Grid::of_blocking(&b.oriented()), 1)
                } else {
                    let (g, members) = group(rule, &sp.pre, &table, &e);
                    (g.grid(), members)
                };
                let price = match probes {
                    None => exact(&grid).float(1.0),
                    Some(p) => probe_mean(&grid, p, &mut rng),
                };
                row.walks[j] = price.scale(1.0 / members as f64);
                row.members[j] = members;
                row.score[j] = grid.score(m);
            }
            row
        })
        .collect();
    let how = match probes {
        None => "exact".to_string(),
        Some(p) => format!("{p} probes per walk, seed {seed}"),
    };
    println!(
        "N = {n}: {} pre-placements spread over all {total} ({how}), {:.0} s",
        rows.len(),
        t0.elapsed().as_secs_f64()
    );
    let pop = Some(total);
    let ratio = |x: &dyn Fn(&Row) -> f64, y: &dyn Fn(&Row) -> f64| {
        Ratio::of_pairs(rows.iter().map(|r| (x(r), y(r))), pop).text()
    };
    let today = |r: &Row| r.walks[0].f;
    let mean_tud = rows.iter().map(|r| r.tud).sum::<f64>() / rows.len() as f64;
    println!("Queens@TUD's unit: {mean_tud:.4e} cycles per pre-placement");
    let print = |name: &str, f: &dyn Fn(&Row) -> Price<f64>, members: &dyn Fn(&Row) -> u64| {
        // Pre-placements per walk: the sample's harmonic mean of its groups' sizes (each
        // group is sampled in proportion to its size).
        let walks_per_pre = rows.iter().map(|r| 1.0 / members(r) as f64).sum::<f64>();
        let mean = rows.iter().map(|r| f(r).f).sum::<f64>() / rows.len() as f64;
        let sols = rows.iter().map(|r| f(r).sols).sum::<f64>();
        let cyc = rows.iter().map(|r| f(r).f).sum::<f64>();
        println!(
            "{name:<36} | {:>6.2} per walk | {mean:.4e} | F/TUD {} | F/today {} | EF/TUD {} | EF/today {} | {:.4} solutions per cycle",
            rows.len() as f64 / walks_per_pre,
            ratio(&|r| f(r).f, &|r| r.tud),
            ratio(&|r| f(r).f, &today),
            ratio(&|r| f(r).ef, &|r| r.tud),
            ratio(&|r| f(r).ef, &today),
            sols / cyc,
        );
    };
    for (j, &(rule, name)) in RULES.iter().enumerate() {
        if rule == Rule::Two && skip_two {
            continue;
        }
        print(name, &|r| r.walks[j], &|r| r.members[j]);
    }
    // The south groups walked the way the front end's score picks, of the three.
    let best = |r: &Row| (1..4).min_by_key(|&j| r.score[j]).unwrap();
    print("(b) south open, walk by score", &|r| r.walks[best(r)], &|r| {
        r.members[1]
    });
    if probes.is_none() {
        let oracle = |r: &Row| {
            (1..4)
                .min_by(|&a, &b| r.walks[a].f.total_cmp(&r.walks[b].f))
                .unwrap()
        };
        print(
            "(b) south open, best walk (oracle)",
            &|r| r.walks[oracle(r)],
            &|r| r.members[1],
        );
    }
    // (b) where its group has at least `k` members, else each alone as today.
    for k in [2, 4, 8, 16, 32] {
        let pick = |r: &Row| if r.members[1] >= k { 1 } else { 0 };
        print(
            &format!("(b) if >= {k} members, else alone"),
            &|r| r.walks[pick(r)],
            &|r| r.members[pick(r)],
        );
    }
    let pick8 = |r: &Row| if r.members[1] >= 8 { 0.0 } else { 1.0 };
    println!(
        "(b) if >= 8 members against (b): {}; (b) with E against (b): {}",
        ratio(
            &|r| if pick8(r) == 0.0 {
                r.walks[1].f
            } else {
                r.walks[0].f
            },
            &|r| r.walks[1].f
        ),
        ratio(&|r| r.walks[1].ef, &|r| r.walks[1].f),
    );
    // How (b) fares against today's unit by the size of its groups.
    let mut lo = 1;
    while rows.iter().any(|r| r.members[1] >= lo) {
        let hi = lo * 2;
        let inb: Vec<&Row> = rows.iter().filter(|r| (lo..hi).contains(&r.members[1])).collect();
        if !inb.is_empty() {
            let sum = |j: usize| inb.iter().map(|r| r.walks[j].f).sum::<f64>();
            println!(
                "  (b) groups of {lo} to {}: {:.1}% of pre-placements, {:.1}% of today's cycles, (b) against today's there {:.3}",
                hi - 1,
                100.0 * inb.len() as f64 / rows.len() as f64,
                100.0 * sum(0) / rows.iter().map(|r| r.walks[0].f).sum::<f64>(),
                sum(1) / sum(0)
            );
        }
        lo = hi;
    }
    let max = rows.iter().map(|r| r.members[1]).max().unwrap_or(0);
    let big = rows.iter().map(|r| r.walks[0].sols).fold(0.0, f64::max);
    println!("largest (b) group in the sample: {max} members; largest count of one pre-placement (estimated): {big:.3e}");
    let mut by = [0usize; 4];
    for r in &rows {
        by[r.orientation as usize] += 1;
    }
    println!(
        "today's orientations (columns, columns back, rows, rows back = north to south): {by:?}; south groups walked by score west-east/east-west/north-south: {:?}",
        [2, 3, 1].map(|j| rows.iter().filter(|r| best(r) == j).count())
    );
}
