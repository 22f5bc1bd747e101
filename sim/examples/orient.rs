// Research: rules for the front end's choice of orientation, at any N, by probes. `orient N K
// P`: K subproblems spread over N; each orientation of each probed P times, and every rule
// (leading lines scored, a filled line's score, weights by depth, logarithms) priced on those
// same probes; the oracle picks by a separate pilot of probes. Figures in
// docs/design/unit.md, "The walk's orientation".
use queens_core::{Blocking, BoardSize, Orientation};
use queens_sim::probe;
use queens_sim::sample::Sampler;
use rayon::prelude::*;
use std::sync::atomic::AtomicU64;

fn score(b: &Blocking, k: u32, half: u32, w: &dyn Fn(u32) -> f64) -> f64 {
    (0..k.min(b.m))
        .map(|x| {
            let s = if b.cols >> x & 1 != 0 {
                half as f64
            } else {
                b.open_rows(x).count_ones() as f64
            };
            w(x) * s
        })
        .sum()
}

fn main() {
    let n: u32 = std::env::args().nth(1).unwrap().parse().unwrap();
    let k: u64 = std::env::args().nth(2).unwrap().parse().unwrap();
    let probes: u32 = std::env::args().nth(3).unwrap().parse().unwrap();
    let size = BoardSize::new(n).unwrap();
    let mut s = Sampler::new(size);
    s.count(&AtomicU64::new(0));
    let subs = s.evenly(k, &AtomicU64::new(0));
    let names = [
        "k=m/2<=8 h=2m/3 (today)",
        "k=10 h=2m/3",
        "k=12 h=2m/3",
        "w 1x4 .5x4 h=2m/3",
        "w 1x4 .5x8 h=2m/3",
        "log k8 h=2m/3",
        "log k12 h=2m/3",
        "log k8 h=m/2",
        "log k8 h=m",
        "oracle(pilot)",
        "tud",
    ];
    let r: Vec<Vec<f64>> = subs
        .par_iter()
        .enumerate()
        .map(|(i, sp)| {
            let mut rng = fastrand::Rng::with_seed(77 ^ (i as u64).wrapping_mul(0x9e3779b97f4a7c15));
            let b = Blocking::new(&sp.pre);
            let turned: Vec<Blocking> = Orientation::ALL.iter().map(|&o| b.turned(o)).collect();
            let m = b.m;
            let pick = |f: &dyn Fn(&Blocking) -> f64| -> usize {
                let mut best = (f64::MAX, 0);
                for (j, t) in turned.iter().enumerate() {
                    let s = f(t);
                    if s < best.0 {
                        best = (s, j);
                    }
                }
                best.1
            };
            let one = |_x: u32| 1.0;
            let lg = |t: &Blocking, k: u32| -> f64 {
                (0..k.min(t.m))
                    .map(|x| {
                        if t.cols >> x & 1 != 0 {
                            1.0
                        } else {
                            ((t.open_rows(x).count_ones() as f64) + 0.5).ln()
                        }
                    })
                    .sum()
            };
            let lgh = |t: &Blocking, k: u32, h: f64| -> f64 {
                (0..k.min(t.m))
                    .map(|x| {
                        if t.cols >> x & 1 != 0 {
                            (h + 0.5).ln()
                        } else {
                            ((t.open_rows(x).count_ones() as f64) + 0.5).ln()
                        }
                    })
                    .sum()
            };
            let _ = lg;
            let step4 = |x: u32| if x < 4 { 1.0 } else { 0.5 };
            let picks = [
                pick(&|t| score(t, (m / 2).min(8), 2 * m / 3, &one)),
                pick(&|t| score(t, 10, 2 * m / 3, &one)),
                pick(&|t| score(t, 12, 2 * m / 3, &one)),
                pick(&|t| score(t, 8, 2 * m / 3, &step4)),
                pick(&|t| score(t, 12, 2 * m / 3, &step4)),
                pick(&|t| lgh(t, 8, (2 * m / 3) as f64)),
                pick(&|t| lgh(t, 12, (2 * m / 3) as f64)),
                pick(&|t| lgh(t, 8, (m / 2) as f64)),
                pick(&|t| lgh(t, 8, m as f64)),
            ];
            // The oracle: a pilot of probes per orientation, then fresh probes of the pick.
            let pilot: Vec<f64> = turned
                .iter()
                .map(|t| probe::probe_mean(t, 64, &mut rng).ours)
                .collect();
            let oracle = (0..4)
                .min_by(|&a, &b| pilot[a].partial_cmp(&pilot[b]).unwrap())
                .unwrap();
            let mut est = [0f64; 4];
            for j in 0..4 {
                est[j] = probe::probe_mean(&turned[j], probes, &mut rng).ours;
            }
            let mut out: Vec<f64> = picks.iter().map(|&p| est[p]).collect();
            out.push(est[oracle]);
            out.push(probe::probe_mean(&b, probes, &mut rng).tud);
            out
        })
        .collect();
    let tud: f64 = r.iter().map(|v| v[names.len() - 1]).sum();
    for (j, name) in names.iter().enumerate() {
        let t: f64 = r.iter().map(|v| v[j]).sum();
        println!("N={n} {name:<16} ours/TUD {:.3}", t / tud);
    }
}
