//! The dispatcher's rules, with a scripted board: no threads, no sockets, the clock given.

mod faults;
mod grouped;
mod trust;
mod window;

use queens_core::board::PairTable;
use queens_core::frame;
use queens_core::group::{self, Body};
use queens_core::ident::{self, Ident};
use queens_core::result::ResultRecord;
use queens_core::{completions, word, BoardSize};
use queens_host::dispatch::{Dispatcher, Timeouts, Trust};
use queens_host::store::file::{Access, FileStore};
use queens_host::store::Store;
use std::time::{Duration, Instant};

fn campaign(n: u32) -> (tempfile::TempDir, FileStore) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.campaign");
    let size = BoardSize::new(n).unwrap();
    FileStore::create(&path, size, false, &queens_host::store::file::Watch::default()).unwrap();
    let s = FileStore::open(&path, Some(size), Access::Write).unwrap();
    (dir, s)
}

/// The words in a batch of frames sent to a board (an identification request, which goes
/// first after each connect, is none).
fn words(size: BoardSize, bytes: &[u8]) -> Vec<u64> {
    let flen = word::wire_bytes(size) + 2;
    assert_eq!(bytes.len() % flen, 0);
    bytes
        .chunks(flen)
        .filter(|f| !ident::is_request(size, f))
        .map(|f| word::wire_from_bytes(frame::decode(f, flen - 2).unwrap()))
        .collect()
}

/// The board on `l` answers identification: `units` units (and the front end's queue).
fn says_units<S: Store>(d: &mut Dispatcher<S>, l: usize, size: BoardSize, units: u32, now: Instant) {
    let id = Ident {
        n: size.n(),
        units,
        clock_hz: 1_000_000,
        design_hash: 0,
        with_cycles: true,
        unit: queens_core::UnitKind::Plain,
    };
    d.feed(l, &id.encode(), now).unwrap();
}

/// The board on `l` answers the first words it was sent, then identification: a board of
/// ours with `units` units, its window open to them and its queue.
fn opens<S: Store>(d: &mut Dispatcher<S>, l: usize, size: BoardSize, units: u32, now: Instant) {
    for w in words(size, &d.fill(l, now).unwrap()) {
        d.feed(l, &answer(size, w, None), now).unwrap();
    }
    says_units(d, l, size, units, now);
}

/// A board's result frame for `wire`, with the right count unless `wrong` is given.
fn answer(size: BoardSize, wire: u64, wrong: Option<u64>) -> Vec<u8> {
    let pre = word::decode_wire(size, wire).unwrap();
    let count = wrong.unwrap_or_else(|| completions(&pre));
    frame::encode(&ResultRecord::new(wire, count, Some(count + 10)).encode(size))
}

const T: Timeouts = Timeouts {
    first: Duration::from_secs(1),
    factor: 8.0,
    floor: Duration::from_millis(250),
    fixed: true,
    suspect: 2.0,
};

/// Runs the software recomputations the dispatcher asked for.
fn serve_software<S: Store>(d: &mut Dispatcher<S>) {
    for (w, pre) in d.take_software() {
        d.software(w, completions(&pre)).unwrap();
    }
}

/// The index of the entry whose word is `w`.
fn index_of(s: &FileStore, w: u64) -> u64 {
    (0..s.summary().subproblems)
        .find(|&i| word::encode_wire(&s.entry(i).unwrap().pre).unwrap() == w)
        .unwrap()
}

/// Checks on other boards only: no software, every result of the first `probation` checked.
fn boards_check(probation: u64) -> Trust {
    Trust {
        verify: 0.0,
        probation,
        ..Trust::OFF
    }
}
