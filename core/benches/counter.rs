//! Speed of the software counter and the enumeration, single-threaded.
//! `cargo bench -p queens-core`; whole-run figures come from `queens count N --threads 1`.
//!
//! `count/preplacements/N` is Q(N) as `queens count` computes it: its rate, in pre-placements
//! per second on one thread, is the counter's per-thread rate. `count/search/N` is the same
//! Q(N) through the per-pre-placement search (what board results are checked against), and
//! `count/plain/N` the plain whole-board bitboard counter, the yardstick for speed ratios.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use queens_core::count::{completions, count};
use queens_core::plain::plain_count;
use queens_core::{BoardSize, Enumerator};
use std::sync::atomic::AtomicU64;

fn one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(f)
}

/// Q(N) by searching each canonical pre-placement alone.
fn by_search(size: BoardSize) -> u128 {
    let e = Enumerator::new(size);
    let mut total = 0;
    e.for_each(|sp| total += sp.sym.weight() as u128 * completions(&sp.pre) as u128);
    total
}

fn counter(c: &mut Criterion) {
    let mut g = c.benchmark_group("count");
    g.sample_size(10);
    for n in [14u32, 16, 17] {
        let size = BoardSize::new(n).unwrap();
        let pre = Enumerator::new(size).census().total();
        g.throughput(Throughput::Elements(pre));
        g.bench_function(format!("preplacements/{n}"), |b| {
            b.iter(|| one_thread(|| count(size, &AtomicU64::new(0)).total()))
        });
        if n <= 16 {
            g.bench_function(format!("search/{n}"), |b| b.iter(|| by_search(size)));
            g.bench_function(format!("plain/{n}"), |b| b.iter(|| plain_count(n)));
        }
    }
    g.finish();
}

fn enumeration(c: &mut Criterion) {
    let mut g = c.benchmark_group("enumerate");
    g.sample_size(10);
    for n in [17u32, 20] {
        let e = Enumerator::new(BoardSize::new(n).unwrap());
        g.throughput(Throughput::Elements(e.census().total()));
        g.bench_function(format!("census/{n}"), |b| {
            b.iter(|| one_thread(|| e.census().total()))
        });
    }
    g.finish();
}

criterion_group!(benches, counter, enumeration);
criterion_main!(benches);
