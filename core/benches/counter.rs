//! Speed of the software counter and the enumeration, single-threaded.
//! `cargo bench -p queens-core`; whole-run figures come from `queens count N --threads 1`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use queens_core::count::count;
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

fn counter(c: &mut Criterion) {
    let mut g = c.benchmark_group("count");
    g.sample_size(10);
    for n in [12u32, 13, 14] {
        let size = BoardSize::new(n).unwrap();
        let pre = Enumerator::new(size).census().total();
        g.throughput(Throughput::Elements(pre));
        g.bench_function(format!("preplacements/{n}"), |b| {
            b.iter(|| one_thread(|| count(size, &AtomicU64::new(0)).total()))
        });
        g.bench_function(format!("plain/{n}"), |b| b.iter(|| one_thread(|| plain_count(n))));
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
