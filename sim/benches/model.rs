//! Unit-cycles per second of the fast cycle model on one core:
//! `cargo bench -p queens-sim` (throughput is in unit-cycles).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use queens_core::enumerate::canonical;
use queens_core::{Blocking, BoardSize};
use queens_sim::run_unit;

fn model(c: &mut Criterion) {
    let mut g = c.benchmark_group("model");
    g.sample_size(10);
    for n in [12u32, 14] {
        let blocks: Vec<Blocking> = canonical(BoardSize::new(n).unwrap())
            .map(|sp| Blocking::new(&sp.pre))
            .collect();
        let cycles: u64 = blocks.iter().map(|b| run_unit(b).cycles).sum();
        g.throughput(Throughput::Elements(cycles));
        g.bench_function(format!("unit-cycles/{n}"), |b| {
            b.iter(|| blocks.iter().map(|b| run_unit(b).solutions).sum::<u64>())
        });
    }
    g.finish();
}

criterion_group!(benches, model);
criterion_main!(benches);
