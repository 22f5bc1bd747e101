//! How many results per second the host absorbs: the whole of `queens run 13` against a
//! simulated board over loopback TCP (164,043 results), and the dispatcher alone (store,
//! checks, bookkeeping) fed ready-made result frames.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use queens_core::enumerate::canonical;
use queens_core::result::ResultRecord;
use queens_core::{frame, word, BoardSize};
use queens_host::dispatch::{Dispatcher, Timeouts, Trust};
use queens_host::link::{LinkSpec, SimSettings};
use queens_host::run::{run, Quiet, RunConfig};
use queens_host::store::file::{Access, FileStore};
use queens_host::store::Store;
use queens_sim::board::{Board, BoardConfig};
use std::collections::HashMap;
use std::time::{Duration, Instant};

const N: u32 = 13;
const UNITS: usize = 1024;

fn campaign(dir: &std::path::Path) -> FileStore {
    let size = BoardSize::new(N).unwrap();
    let path = dir.join(format!("b{}.campaign", fastrand::u64(..)));
    FileStore::create(&path, size, true, &queens_host::store::file::Watch::default()).unwrap();
    FileStore::open(&path, Some(size), Access::Write).unwrap()
}

/// A simulated board serving every connection on a loopback port.
fn tcp_board(size: BoardSize) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let conn = conn.unwrap();
            conn.set_nodelay(true).unwrap();
            let mut out = conn.try_clone().unwrap();
            std::thread::spawn(move || {
                let mut b = Board::new(BoardConfig {
                    size,
                    units: UNITS,
                    clock_hz: None,
                    with_cycles: true,
                    unit: queens_core::UnitKind::Plain,
                    faults: Default::default(),
                    seed: 1,
                });
                let _ = b.serve(conn, &mut out);
            });
        }
    });
    addr
}

fn bench(c: &mut Criterion) {
    let size = BoardSize::new(N).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let subproblems = canonical(size).count() as u64;
    let mut g = c.benchmark_group("absorb");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.throughput(Throughput::Elements(subproblems));

    let addr = tcp_board(size);
    let cfg = RunConfig {
        links: vec![format!("tcp:{addr}").parse::<LinkSpec>().unwrap()],
        units: UNITS,
        margin: 16,
        timeouts: Timeouts::default(),
        trust: Trust::default(),
        sim: SimSettings {
            size,
            units: UNITS,
            with_cycles: true,
            unit: queens_core::UnitKind::Plain,
            clock_hz: None,
            faults: Default::default(),
            seed: 1,
        },
        sync_every: Duration::from_secs(1),
        silence: Duration::from_secs(30),
        stop: None,
    };
    g.bench_function("run_13_loopback_tcp", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let store = campaign(dir.path());
                let t = Instant::now();
                let r = run(store, &cfg, &mut Quiet).unwrap();
                total += t.elapsed();
                assert_eq!(r.total, 73_712);
            }
            total
        })
    });

    // The answers a board would give, made beforehand: only the host's work is timed.
    let answers: HashMap<u64, Vec<u8>> = canonical(size)
        .map(|sp| {
            let w = word::encode_wire(&sp.pre).unwrap();
            let r = queens_sim::run_subproblem(&sp.pre);
            (
                w,
                frame::encode(&ResultRecord::new(w, r.solutions, Some(r.cycles)).encode(size)),
            )
        })
        .collect();
    let flen = word::wire_bytes(size) + 2;
    g.bench_function("dispatcher_13", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let store = campaign(dir.path());
                let t = Instant::now();
                let mut d = Dispatcher::new(store, Timeouts::default());
                let l = d.add_link("bench", UNITS, 16).unwrap();
                d.link_up(l);
                let mut reply = Vec::new();
                while !d.finished() {
                    let now = Instant::now();
                    let sent = d.fill(l, now).unwrap();
                    reply.clear();
                    for f in sent.chunks(flen) {
                        let w = word::wire_from_bytes(&f[1..flen - 1]);
                        reply.extend_from_slice(&answers[&w]);
                    }
                    d.feed(l, &reply, now).unwrap();
                }
                total += t.elapsed();
                assert_eq!(d.store().summary().solved.total(), 73_712);
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
