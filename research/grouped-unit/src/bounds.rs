// Research (issue 60): how large a grouped unit's tally word (one pre-placement's
// completions) and its walk's cycles get at N = 27 and 28, against 2^36 (a word; past it the
// unit sends wrap records) and 2^45 (the cycles first planned for the end record; it keeps
// 48). Figures: docs/design/unit.md, "The tally in two blocks". Every figure is an estimate
// by Knuth's random probes, the largest probed again with many more; `count`, `group` and
// `cycles` give exact values to check them against at smaller N.
//
// The modes (`cargo run --release -p grouped-unit --bin bounds -- MODE N ...`; rayon's
// threads, RAYON_NUM_THREADS=1 beside other work):
//
//   bounds probe N SAMPLE PROBES SEED OUT.tsv
//       SAMPLE subproblems spread evenly over the canonical order (as `sim estimate` picks
//       them); for each, Knuth's estimate from PROBES random paths of (a) its completions
//       (paths of its own oriented walk, each path's weight if it reaches the end) and (b) the
//       cycles of its south group's walk (`probe::grid_probe_mean` on `grouped::south_grid`,
//       the walk `Walks::grouped_probed` prices). Writes one row per subproblem; prints max,
//       mean, and the top rows.
//   bounds refine N PROBES SEED IN.tsv K
//       the K rows of IN.tsv (a probe run's output) with the largest estimated count, and the
//       K distinct groups with the largest estimated walk, probed again PROBES times each.
//   bounds strata N MAXQ PROBES SEED OUT.tsv
//       every canonical subproblem: how many have q distinct ring queens (8 minus corner
//       queens); those with q <= MAXQ each get PROBES probes of their count, written as a
//       probe run's rows (cycles 0) for `refine`.
//   bounds groups N PROBES SEED OUT.tsv
//       every south group (every canonical (west, north, east) with its members), its walk
//       probed PROBES times; groups estimated over 2^43 written as probe rows (count 0).
//   bounds count N c0,..,c7         exact completions (queens_core::completions)
//   bounds group N c0,..,c7         exact completions of every south side of the group
//                                        (queens_core::sweep::Sweep::souths): the largest
//   bounds cycles N c0,..,c7        exact cycles of the group's walk (probe::grid_cycles,
//                                        tested equal to grouped::run_south_group's)
use queens_core::board::PairTable;
use queens_core::south::SouthWalk;
use queens_core::sweep::Sweep;
use queens_core::{Blocking, BoardSize, Preplacement};
use queens_sim::grouped::south_grid;
use queens_sim::model::Grid;
use queens_sim::probe;
use queens_sim::sample::{rng_for, spread_index, Sampler};
use rayon::prelude::*;
use std::io::Write;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

const C36: f64 = 68_719_476_736.0;
const C45: f64 = 35_184_372_088_832.0;

/// One Knuth probe of the number of solutions of grid `g`'s walk: the product of the
/// branching factors along a random path, or 0 if the path dies.
fn count_probe(g: &Grid, rng: &mut fastrand::Rng) -> f64 {
    let m = g.l;
    let (mut used, mut down, mut up) = (0u32, 0u64, 0u64);
    let mut weight = 1.0f64;
    for c in 0..m {
        if g.filled >> c & 1 != 0 {
            continue;
        }
        let att = (down >> c) | (up >> (m - 1 - c));
        let f = g.open[c as usize] & !used & !(att as u32);
        let k = f.count_ones();
        if k == 0 {
            return 0.0;
        }
        let pick = rng.u32(0..k);
        let mut h = f;
        for _ in 0..pick {
            h &= h - 1;
        }
        let q = h & h.wrapping_neg();
        let y = q.trailing_zeros();
        used |= q;
        down |= 1 << (c + y);
        up |= 1 << (y + m - 1 - c);
        weight *= k as f64;
    }
    weight
}

fn mean_se(xs: &[f64]) -> (f64, f64) {
    let k = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / k;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0).max(1.0);
    (mean, (var / k).sqrt())
}

struct Row {
    k: usize,
    index: u64,
    pre: Preplacement,
    group: [u32; 3],
    count: (f64, f64),
    cycles: (f64, f64),
}

fn coords(p: &Preplacement) -> String {
    p.coords().map(|c| c.to_string()).join(",")
}

fn parse_pre(size: BoardSize, s: &str) -> Preplacement {
    let v: Vec<u32> = s.split(',').map(|x| x.parse().unwrap()).collect();
    Preplacement::new(size, v.try_into().unwrap()).unwrap()
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n: u32 = a[2].parse().unwrap();
    let size = BoardSize::new(n).unwrap();
    let t0 = Instant::now();
    match a[1].as_str() {
        "probe" => probe_mode(size, &a[3..]),
        "count" => {
            let pre = parse_pre(size, &a[3]);
            let c = queens_core::completions(&pre);
            println!(
                "N={n} {} completions {c} = 2^36/{:.1}  ({:.1} s)",
                coords(&pre),
                C36 / c as f64,
                t0.elapsed().as_secs_f64()
            );
        }
        "group" => {
            let pre = parse_pre(size, &a[3]);
            let table = PairTable::new(size);
            let [w, nn, e, s] = pre.side_indices(&table);
            let mut sweep = Sweep::new(size);
            let counts = sweep.souths(w, nn, e).to_vec();
            let (smax, max) = counts.iter().enumerate().max_by_key(|x| x.1).unwrap();
            println!(
                "N={n} group of {} (w,n,e = {w},{nn},{e}): own south {s} = {}, largest south {smax} ({:?}) = {max} = 2^36/{:.1}, all souths sum {}  ({:.1} s)",
                coords(&pre),
                counts[s as usize],
                table.pair(smax as u32),
                C36 / *max as f64,
                counts.iter().sum::<u64>(),
                t0.elapsed().as_secs_f64()
            );
        }
        "cycles" => {
            let pre = parse_pre(size, &a[3]);
            let c = probe::grid_cycles(&south_grid(&SouthWalk::new(&pre))).ours;
            println!(
                "N={n} group of {} walk cycles {c} = 2^45/{:.1}  ({:.1} s)",
                coords(&pre),
                C45 / c as f64,
                t0.elapsed().as_secs_f64()
            );
        }
        "refine" => refine(size, &a[3..]),
        "strata" => strata(size, &a[3..]),
        "groups" => groups(size, &a[3..]),
        m => panic!("unknown mode {m}"),
    }
}

fn probe_mode(size: BoardSize, a: &[String]) {
    let sample: u64 = a[0].parse().unwrap();
    let probes: u32 = a[1].parse().unwrap();
    let seed: u64 = a[2].parse().unwrap();
    let out = &a[3];
    let t0 = Instant::now();
    let table = PairTable::new(size);
    let mut s = Sampler::new(size);
    let total = s.count(&AtomicU64::new(0));
    let subs = s.evenly(sample, &AtomicU64::new(0));
    eprintln!(
        "N={} total {total} subproblems, sample {} picked in {:.1} s",
        size.n(),
        subs.len(),
        t0.elapsed().as_secs_f64()
    );
    let t1 = Instant::now();
    let k = subs.len() as u64;
    let rows: Vec<Row> = subs
        .par_iter()
        .enumerate()
        .map(|(i, sp)| {
            let mut rng = rng_for(seed, i);
            let g = Grid::of_blocking(&Blocking::new(&sp.pre).oriented());
            let cs: Vec<f64> = (0..probes).map(|_| count_probe(&g, &mut rng)).collect();
            let sg = south_grid(&SouthWalk::new(&sp.pre));
            let ys: Vec<f64> = (0..probes)
                .map(|_| probe::grid_probe(&sg, &mut rng).ours)
                .collect();
            let [w, n, e, _] = sp.pre.side_indices(&table);
            Row {
                k: i,
                index: spread_index(i as u64, k, total),
                pre: sp.pre,
                group: [w, n, e],
                count: mean_se(&cs),
                cycles: mean_se(&ys),
            }
        })
        .collect();
    eprintln!("probed in {:.1} s", t1.elapsed().as_secs_f64());
    let mut f = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    writeln!(f, "k\tindex\tcoords\tw\tn\te\tcount\tcount_se\tcycles\tcycles_se").unwrap();
    for r in &rows {
        writeln!(
            f,
            "{}\t{}\t{}\t{}\t{}\t{}\t{:.0}\t{:.0}\t{:.0}\t{:.0}",
            r.k,
            r.index,
            coords(&r.pre),
            r.group[0],
            r.group[1],
            r.group[2],
            r.count.0,
            r.count.1,
            r.cycles.0,
            r.cycles.1
        )
        .unwrap();
    }
    let nrows = rows.len() as f64;
    let cmean = rows.iter().map(|r| r.count.0).sum::<f64>() / nrows;
    let ymean = rows.iter().map(|r| r.cycles.0).sum::<f64>() / nrows;
    // Distinct groups (a group sampled through several members counted once).
    let mut groups: Vec<([u32; 3], f64)> = rows.iter().map(|r| (r.group, r.cycles.0)).collect();
    groups.sort_by_key(|x| x.0);
    groups.dedup_by_key(|g| g.0);
    let gmean = groups.iter().map(|g| g.1).sum::<f64>() / groups.len() as f64;
    println!(
        "N={} total subproblems {total}; sample {} (evenly over the canonical order), {probes} probes each, seed {seed}",
        size.n(),
        rows.len()
    );
    let mut by_count: Vec<&Row> = rows.iter().collect();
    by_count.sort_by(|x, y| y.count.0.total_cmp(&x.count.0));
    let cmax = by_count[0].count.0;
    println!(
        "count per pre-placement: mean {cmean:.4e}, max {cmax:.4e} = 2^36/{:.1}",
        C36 / cmax
    );
    for r in by_count.iter().take(10) {
        println!(
            "  k {} index {} pre {} count {:.4e} ± {:.2e}",
            r.k,
            r.index,
            coords(&r.pre),
            r.count.0,
            r.count.1
        );
    }
    let mut by_cycles: Vec<&Row> = rows.iter().collect();
    by_cycles.sort_by(|x, y| y.cycles.0.total_cmp(&x.cycles.0));
    let ymax = by_cycles[0].cycles.0;
    println!(
        "cycles per group walk: mean over sampled pre-placements {ymean:.4e}, over {} distinct groups {gmean:.4e}; max {ymax:.4e} = 2^45/{:.1}",
        groups.len(),
        C45 / ymax
    );
    let mut seen = Vec::new();
    for r in by_cycles.iter() {
        if seen.contains(&r.group) {
            continue;
        }
        seen.push(r.group);
        println!(
            "  k {} index {} pre {} group {:?} cycles {:.4e} ± {:.2e}",
            r.k,
            r.index,
            coords(&r.pre),
            r.group,
            r.cycles.0,
            r.cycles.1
        );
        if seen.len() == 10 {
            break;
        }
    }
}

fn refine(size: BoardSize, a: &[String]) {
    let probes: u32 = a[0].parse().unwrap();
    let seed: u64 = a[1].parse().unwrap();
    let text = std::fs::read_to_string(&a[2]).unwrap();
    let k: usize = a[3].parse().unwrap();
    // (coords, w, n, e, count, cycles)
    let mut rows: Vec<(String, [u32; 3], f64, f64)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[2].to_string(),
                [
                    f[3].parse().unwrap(),
                    f[4].parse().unwrap(),
                    f[5].parse().unwrap(),
                ],
                f[6].parse().unwrap(),
                f[8].parse().unwrap(),
            )
        })
        .collect();
    let t0 = Instant::now();
    rows.sort_by(|x, y| y.2.total_cmp(&x.2));
    let no_counts = rows.iter().all(|r| r.2 == 0.0);
    println!(
        "N={} refine: top {k} by first-pass count, {probes} probes each, seed {seed}",
        size.n()
    );
    let mut best: Vec<(f64, f64, String, f64)> = rows
        .iter()
        .take(if no_counts { 0 } else { k })
        .enumerate()
        .map(|(i, r)| {
            let pre = parse_pre(size, &r.0);
            let g = Grid::of_blocking(&Blocking::new(&pre).oriented());
            let mut rng = rng_for(seed ^ 0x5555, i);
            let cs: Vec<f64> = (0..probes).map(|_| count_probe(&g, &mut rng)).collect();
            let (m, se) = mean_se(&cs);
            (m, se, r.0.clone(), r.2)
        })
        .collect();
    best.sort_by(|x, y| y.0.total_cmp(&x.0));
    for (m, se, c, first) in &best {
        let q = parse_pre(size, c).queens().len();
        println!(
            "  pre {c} q {q} count {m:.4e} ± {se:.2e} (first pass {first:.3e}) = 2^36/{:.1}",
            C36 / m
        );
    }
    if rows.iter().all(|r| r.3 == 0.0) {
        eprintln!(
            "refined in {:.1} s (no walk cycles in the input)",
            t0.elapsed().as_secs_f64()
        );
        return;
    }
    rows.sort_by(|x, y| y.3.total_cmp(&x.3));
    rows.dedup_by_key(|r| r.1);
    println!(
        "N={} refine: top {k} groups by first-pass walk cycles, {probes} probes each",
        size.n()
    );
    let mut best: Vec<(f64, f64, String, [u32; 3], f64)> = rows
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, r)| {
            let pre = parse_pre(size, &r.0);
            let sg = south_grid(&SouthWalk::new(&pre));
            let mut rng = rng_for(seed ^ 0xaaaa, i);
            let ys: Vec<f64> = (0..probes)
                .map(|_| probe::grid_probe(&sg, &mut rng).ours)
                .collect();
            let (m, se) = mean_se(&ys);
            (m, se, r.0.clone(), r.1, r.3)
        })
        .collect();
    best.sort_by(|x, y| y.0.total_cmp(&x.0));
    for (m, se, c, g, first) in &best {
        println!(
            "  pre {c} group {g:?} cycles {m:.4e} ± {se:.2e} (first pass {first:.3e}) = 2^45/{:.2}",
            C45 / m
        );
    }
    eprintln!("refined in {:.1} s", t0.elapsed().as_secs_f64());
}

fn strata(size: BoardSize, a: &[String]) {
    let maxq: usize = a[0].parse().unwrap();
    let probes: u32 = a[1].parse().unwrap();
    let seed: u64 = a[2].parse().unwrap();
    let out = &a[3];
    let t0 = Instant::now();
    let table = PairTable::new(size);
    let e = queens_core::Enumerator::new(size);
    let mut per_q = [0u64; 9];
    let mut max_q = [0f64; 9];
    let mut f = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    writeln!(f, "k\tindex\tcoords\tw\tn\te\tcount\tcount_se\tcycles\tcycles_se").unwrap();
    let mut index = 0u64;
    let mut k = 0usize;
    e.for_each(|sp| {
        let q = sp.pre.queens().len();
        per_q[q] += 1;
        if q <= maxq {
            let mut rng = rng_for(seed, index as usize);
            let g = Grid::of_blocking(&Blocking::new(&sp.pre).oriented());
            let cs: Vec<f64> = (0..probes).map(|_| count_probe(&g, &mut rng)).collect();
            let (m, se) = mean_se(&cs);
            max_q[q] = max_q[q].max(m);
            let [w, n, ee, _] = sp.pre.side_indices(&table);
            writeln!(
                f,
                "{k}\t{index}\t{}\t{w}\t{n}\t{ee}\t{m:.0}\t{se:.0}\t0\t0",
                coords(&sp.pre)
            )
            .unwrap();
            k += 1;
        }
        index += 1;
    });
    println!(
        "N={} all {index} canonical subproblems in {:.1} s",
        size.n(),
        t0.elapsed().as_secs_f64()
    );
    for q in 0..9 {
        if per_q[q] > 0 {
            println!(
                "  q = {q} ring queens: {} subproblems; max count estimate ({probes} probes) {:.3e}",
                per_q[q], max_q[q]
            );
        }
    }
}

fn groups(size: BoardSize, a: &[String]) {
    let probes: u32 = a[0].parse().unwrap();
    let seed: u64 = a[1].parse().unwrap();
    let out = &a[2];
    let t0 = Instant::now();
    let e = queens_core::Enumerator::new(size);
    let table = e.table().clone();
    let mut f = std::io::BufWriter::new(std::fs::File::create(out).unwrap());
    writeln!(f, "k\tindex\tcoords\tw\tn\te\tcount\tcount_se\tcycles\tcycles_se").unwrap();
    let (mut groups, mut members, mut sum, mut wsum) = (0u64, 0u64, 0f64, 0f64);
    let mut over = [0u64; 4]; // > 2^43, 2^44, 2^45, 2^48 (groups)
    let mut over_members = [0u64; 4];
    let mut best = (0f64, 0f64, String::new());
    for p in e.prefixes() {
        let (wa, wb) = table.pair(p.w);
        let (na, nb) = table.pair(p.n);
        e.for_each_east(p, |east, souths| {
            if souths.is_empty() {
                return;
            }
            let (ea, eb) = table.pair(east);
            let (sa, sb) = table.pair(souths[0].0);
            let pre = Preplacement::new(size, [wa, wb, na, nb, ea, eb, sa, sb]).unwrap();
            let sg = south_grid(&SouthWalk::new(&pre));
            let mut rng = rng_for(seed, groups as usize);
            let ys: Vec<f64> = (0..probes)
                .map(|_| probe::grid_probe(&sg, &mut rng).ours)
                .collect();
            let (m, se) = mean_se(&ys);
            let k = souths.len() as u64;
            groups += 1;
            members += k;
            sum += m;
            wsum += m * k as f64;
            for (i, t) in [C45 / 4.0, C45 / 2.0, C45, C45 * 8.0].iter().enumerate() {
                if m > *t {
                    over[i] += 1;
                    over_members[i] += k;
                }
            }
            if m > best.0 {
                best = (m, se, coords(&pre));
            }
            if m > C45 / 4.0 {
                writeln!(
                    f,
                    "{groups}\t{members}\t{}\t{}\t{}\t{east}\t0\t0\t{m:.0}\t{se:.0}",
                    coords(&pre),
                    p.w,
                    p.n
                )
                .unwrap();
            }
        });
    }
    println!(
        "N={} all {groups} south groups ({members} canonical pre-placements), {probes} probes each, seed {seed}, {:.1} s",
        size.n(),
        t0.elapsed().as_secs_f64()
    );
    println!(
        "  walk cycles: mean per group {:.4e}, member-weighted mean {:.4e}; max estimate {:.4e} ± {:.2e} ({}) = 2^45/{:.2}",
        sum / groups as f64,
        wsum / members as f64,
        best.0,
        best.1,
        best.2,
        C45 / best.0
    );
    for (i, t) in ["2^43", "2^44", "2^45", "2^48"].iter().enumerate() {
        println!(
            "  groups estimated over {t}: {} ({} members)",
            over[i], over_members[i]
        );
    }
}
