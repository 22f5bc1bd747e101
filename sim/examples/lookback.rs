// Research: a unit whose back step searches D columns behind at once (D = 1 is the unit
// before the held uncle). `lookback N K`: K subproblems spread over N, each run exactly by a
// stepped model for D = 1, 2, 3, S (a third arbiter C on the column two behind, a failed C
// retreating one column: the uncle step; built once, see docs/design/unit.md, "The next
// cut"), F (S's step only where the uncle is held: today's unit, checked against
// queens_sim's model, whose node prices `queens_sim::probe` has), E (S's step only from an
// exhausted column) and EF, and by the node prices below (checked against the stepped model);
// `lookback probe N K`: the prices by 256 probes each. Figures in docs/design/unit.md.
use queens_core::{Blocking, BoardSize};
use queens_sim::sample::Sampler;
use rayon::prelude::*;
use std::sync::atomic::AtomicU64;

static S_TOTAL: AtomicU64 = AtomicU64::new(0);
static H_TOTAL: [AtomicU64; 4] = [
    AtomicU64::new(0),
    AtomicU64::new(0),
    AtomicU64::new(0),
    AtomicU64::new(0),
];

struct U {
    m: u32,
    open: [u32; 32],
    filled: u32,
    c: u32,
    exhausted: bool,
    queen: [u32; 32],
    used: u32,
    down: u64,
    up: u64,
    cycles: u64,
    sols: u64,
    held: u8,
    fresh: bool,
}
impl U {
    fn new(b: &Blocking) -> Self {
        U {
            m: b.m,
            open: b.open_table(),
            filled: b.cols,
            c: 0,
            exhausted: false,
            queen: [0; 32],
            used: 0,
            down: 0,
            up: 0,
            cycles: 0,
            sols: 0,
            held: 0,
            fresh: false,
        }
    }
    /// Variant F: S whose C result is a register set by each advance (B's result then) and
    /// lost on every step back, so the uncle step needs no stack of uncles.
    fn held(mut self, h: u8) -> Self {
        self.held = h;
        self
    }
    fn free(&self, x: u32) -> u32 {
        let att = (self.down >> x) | (self.up >> (self.m - 1 - x));
        self.open[x as usize] & !self.used & !(att as u32)
    }
    fn toggle(&mut self, x: u32, q: u32) {
        let y = q.trailing_zeros();
        self.used ^= q;
        self.down ^= 1 << (x + y);
        self.up ^= 1 << (y + self.m - 1 - x);
    }
    fn run(mut self, d: u32) -> (u64, u64) {
        loop {
            self.cycles += 1;
            let c = self.c;
            let last = c == self.m - 1;
            let found = if self.exhausted {
                None
            } else if self.filled >> c & 1 != 0 {
                Some(0)
            } else {
                let f = self.free(c);
                (f != 0).then(|| f & f.wrapping_neg())
            };
            if let Some(q) = found {
                if !last {
                    self.queen[c as usize] = q;
                    if q != 0 {
                        self.toggle(c, q);
                    }
                    self.c = c + 1;
                    self.exhausted = false;
                    self.fresh = true;
                    continue;
                }
                self.sols += 1;
            }
            if c == 0 {
                return (self.sols, self.cycles);
            }
            if d == 0 {
                // S: B on c-1, then C on c-2 with c-1's queen lifted; a failed C keeps c-2's
                // queen and the unit retreats one column, as today's.
                let p = c - 1;
                let q = self.queen[p as usize];
                if q != 0 {
                    self.toggle(p, q);
                    let f = self.free(p) & !((q << 1) - 1);
                    if f != 0 {
                        let s = f & f.wrapping_neg();
                        self.queen[p as usize] = s;
                        self.toggle(p, s);
                        self.exhausted = false;
                        continue;
                    }
                }
                self.queen[p as usize] = 0;
                if c >= 2
                    && (self.held == 0
                        || (self.held & 1 != 0 && self.fresh)
                        || (self.held & 2 != 0 && self.exhausted))
                {
                    let p2 = c - 2;
                    let q2 = self.queen[p2 as usize];
                    if q2 != 0 {
                        self.toggle(p2, q2);
                        let f = self.free(p2) & !((q2 << 1) - 1);
                        if f != 0 {
                            let s = f & f.wrapping_neg();
                            self.queen[p2 as usize] = s;
                            self.toggle(p2, s);
                            self.c = p2 + 1;
                            self.exhausted = false;
                            self.fresh = false;
                            continue;
                        }
                        self.toggle(p2, q2);
                    }
                }
                if p == 0 {
                    return (self.sols, self.cycles);
                }
                self.c = p;
                self.exhausted = true;
                self.fresh = false;
                continue;
            }
            let mut moved = false;
            for j in 1..=d {
                if j > c {
                    break;
                }
                let p = c - j;
                let q = self.queen[p as usize];
                if q != 0 {
                    self.toggle(p, q);
                    let f = self.free(p) & !((q << 1) - 1);
                    if f != 0 {
                        let s = f & f.wrapping_neg();
                        self.queen[p as usize] = s;
                        self.toggle(p, s);
                        self.c = p + 1;
                        self.exhausted = false;
                        moved = true;
                        break;
                    }
                }
                self.queen[p as usize] = 0;
            }
            if moved {
                continue;
            }
            if c <= d {
                return (self.sols, self.cycles);
            }
            self.c = c - d;
            self.exhausted = true;
        }
    }
}

/// Cycles of the D-lookback unit on `b` by node prices: a node with children costs its advance
/// and, unless it is the root, a cycle of its own when the chain of last children below it is a
/// multiple of D long; a leaf costs 1.
struct W {
    m: u32,
    open: [u32; 32],
    filled: u32,
    used: u32,
    down: u64,
    up: u64,
}
impl W {
    fn new(b: &Blocking) -> Self {
        W {
            m: b.m,
            open: b.open_table(),
            filled: b.cols,
            used: 0,
            down: 0,
            up: 0,
        }
    }
    fn children(&self, c: u32) -> Option<u32> {
        if self.filled >> c & 1 != 0 {
            return None;
        }
        let att = (self.down >> c) | (self.up >> (self.m - 1 - c));
        Some(self.open[c as usize] & !self.used & !(att as u32))
    }
    fn place(&mut self, c: u32, q: u32) {
        let y = q.trailing_zeros();
        self.used |= q;
        self.down |= 1 << (c + y);
        self.up |= 1 << (y + self.m - 1 - c);
    }
    /// Length of the chain of last children from the node at depth c down to a leaf.
    fn chain(&self, c: u32) -> u32 {
        let mut w = W { ..*self };
        let mut h = 0;
        let mut c = c;
        loop {
            if c == w.m - 1 {
                return h;
            }
            match w.children(c) {
                None => {}
                Some(0) => return h,
                Some(f) => {
                    let q = 1 << (31 - f.leading_zeros());
                    w.place(c, q);
                }
            }
            c += 1;
            h += 1;
        }
    }
    /// `lastc`: this node is its parent's last child (d = 0, variant S, only).
    fn price(&self, c: u32, k: u32, d: u32, lastc: bool) -> u64 {
        if c == self.m - 1 || k == 0 {
            return 1;
        }
        if d == 0 {
            return 1 + (c != 0 && lastc) as u64;
        }
        1 + (c != 0 && self.chain(c) % d == 0) as u64
    }
    fn sum(&self, c: u32, d: u32) -> u64 {
        self.sum_l(c, d, true)
    }
    fn sum_l(&self, c: u32, d: u32, lastc: bool) -> u64 {
        if c == self.m - 1 {
            return 1;
        }
        match self.children(c) {
            None => self.price(c, 1, d, lastc) + self.sum_l(c + 1, d, true),
            Some(mut f) => {
                let mut s = self.price(c, f.count_ones(), d, lastc);
                while f != 0 {
                    let q = f & f.wrapping_neg();
                    f &= f - 1;
                    let mut n = W { ..*self };
                    n.place(c, q);
                    s += n.sum_l(c + 1, d, f == 0);
                }
                s
            }
        }
    }
    fn probe(b: &Blocking, d: u32, rng: &mut fastrand::Rng) -> f64 {
        let mut w = W::new(b);
        let mut weight = 1.0;
        let mut sum = 0.0;
        let mut lastc = true;
        for c in 0..w.m {
            if c == w.m - 1 {
                return sum + weight;
            }
            match w.children(c) {
                None => {
                    sum += weight * w.price(c, 1, d, lastc) as f64;
                    lastc = true;
                }
                Some(f) => {
                    let k = f.count_ones();
                    sum += weight * w.price(c, k, d, lastc) as f64;
                    if k == 0 {
                        return sum;
                    }
                    let r = rng.u32(0..k);
                    let mut g = f;
                    for _ in 0..r {
                        g &= g - 1;
                    }
                    w.place(c, g & g.wrapping_neg());
                    weight *= k as f64;
                    lastc = r == k - 1;
                }
            }
        }
        sum
    }
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("probe") {
        let n: u32 = std::env::args().nth(2).unwrap().parse().unwrap();
        let k: u64 = std::env::args().nth(3).unwrap().parse().unwrap();
        let size = BoardSize::new(n).unwrap();
        let mut s = Sampler::new(size);
        s.count(&AtomicU64::new(0));
        let subs = s.evenly(k, &AtomicU64::new(0));
        let r: Vec<[f64; 6]> = subs
            .par_iter()
            .enumerate()
            .map(|(i, sp)| {
                let mut rng = fastrand::Rng::with_seed(5 ^ (i as u64).wrapping_mul(0x9e3779b97f4a7c15));
                let b = Blocking::new(&sp.pre).oriented();
                let (mut a1, mut a2, mut a3, mut a0, mut a9) = (0.0, 0.0, 0.0, 0.0, 0.0);
                for _ in 0..256 {
                    let seed = rng.u64(..);
                    a1 += W::probe(&b, 1, &mut fastrand::Rng::with_seed(seed));
                    a2 += W::probe(&b, 2, &mut fastrand::Rng::with_seed(seed));
                    a3 += W::probe(&b, 3, &mut fastrand::Rng::with_seed(seed));
                    a0 += W::probe(&b, 0, &mut fastrand::Rng::with_seed(seed));
                    // F is today's unit: the library's prices, on the same path.
                    a9 += queens_sim::probe::probe(&b, &mut fastrand::Rng::with_seed(seed)).ours;
                }
                let tud = queens_sim::probe::probe_mean(&Blocking::new(&sp.pre), 256, &mut rng).tud;
                [a1 / 256.0, a2 / 256.0, a3 / 256.0, tud, a0 / 256.0, a9 / 256.0]
            })
            .collect();
        let t = r.iter().fold([0f64; 6], |a, x| {
            [
                a[0] + x[0],
                a[1] + x[1],
                a[2] + x[2],
                a[3] + x[3],
                a[4] + x[4],
                a[5] + x[5],
            ]
        });
        println!("N={n} probes: D1/TUD {:.3} D2/TUD {:.3} D3/TUD {:.3} S/TUD {:.3} F/TUD {:.3}; D2/D1 {:.3} S/D1 {:.3} F/D1 {:.3}", t[0] / t[3], t[1] / t[3], t[2] / t[3], t[4] / t[3], t[5] / t[3], t[1] / t[0], t[4] / t[0], t[5] / t[0]);
        return;
    }
    let n: u32 = std::env::args().nth(1).unwrap().parse().unwrap();
    let k: u64 = std::env::args().nth(2).unwrap().parse().unwrap();
    let size = BoardSize::new(n).unwrap();
    let mut s = Sampler::new(size);
    s.count(&AtomicU64::new(0));
    let subs = s.evenly(k, &AtomicU64::new(0));
    let r: Vec<[u64; 4]> = subs
        .par_iter()
        .map(|sp| {
            let b = Blocking::new(&sp.pre).oriented();
            let m = queens_sim::run_unit(&b);
            let (s1, c1) = U::new(&b).run(1);
            assert_eq!(s1, m.solutions, "D = 1 against the model, {}", sp.pre);
            let (s2, c2) = U::new(&b).run(2);
            let (s3, c3) = U::new(&b).run(3);
            let (s0, c0) = U::new(&b).run(0);
            for h in 1..4u8 {
                let (s9, c9) = U::new(&b).held(h).run(0);
                assert_eq!(s9, s1);
                H_TOTAL[h as usize].fetch_add(c9, std::sync::atomic::Ordering::Relaxed);
                if h == 1 {
                    assert_eq!(c9, m.cycles, "F against the model, {}", sp.pre);
                }
            }

            assert_eq!(s2, s1);
            assert_eq!(s3, s1);
            assert_eq!(s0, s1);
            assert_eq!(W::new(&b).sum(0, 0), c0, "S, {}", sp.pre);
            S_TOTAL.fetch_add(c0, std::sync::atomic::Ordering::Relaxed);
            let tud = queens_sim::probe::cycles(&Blocking::new(&sp.pre)).tud;
            for (d, c) in [(1, c1), (2, c2), (3, c3)] {
                assert_eq!(W::new(&b).sum(0, d), c, "D = {d}, {}", sp.pre);
            }
            [c1, c2, c3, tud]
        })
        .collect();
    let t = r.iter().fold([0u64; 4], |a, x| {
        [a[0] + x[0], a[1] + x[1], a[2] + x[2], a[3] + x[3]]
    });
    println!(
        "N={n} k={k}: D1 {} D2 {} ({:.3}) D3 {} ({:.3}); vs TUD: D1 {:.3} D2 {:.3} D3 {:.3}",
        t[0],
        t[1],
        t[1] as f64 / t[0] as f64,
        t[2],
        t[2] as f64 / t[0] as f64,
        t[0] as f64 / t[3] as f64,
        t[1] as f64 / t[3] as f64,
        t[2] as f64 / t[3] as f64
    );
    let s0 = S_TOTAL.load(std::sync::atomic::Ordering::Relaxed);
    println!(
        "S {} ({:.3} of D1), vs TUD {:.3}",
        s0,
        s0 as f64 / t[0] as f64,
        s0 as f64 / t[3] as f64
    );
    for (h, name) in [(1, "F"), (2, "E"), (3, "EF")] {
        let f0 = H_TOTAL[h].load(std::sync::atomic::Ordering::Relaxed);
        println!(
            "{name} {} ({:.3} of D1), vs TUD {:.3}",
            f0,
            f0 as f64 / t[0] as f64,
            f0 as f64 / t[3] as f64
        );
    }
}
