//! The full check of a campaign file: every entry against the canonical subproblem at its
//! index and the rules of the history, in parallel chunks, and a summary made anew from it.
//! What a start does when it cannot trust the summary beside the file.

use super::blocks::{self, BlockReader};
use super::summary::{self, Identity, Summary as Kept};
use super::{history, Solvers, Watch};
use crate::store::StoreError;
use queens_core::entry::ENTRY_BYTES;
use queens_core::enumerate::Prefix;
use queens_core::{BoardSize, Entry, Enumerator, Subproblem};
use rayon::prelude::*;
use std::sync::atomic::Ordering;

/// Where each prefix's entries start in canonical order, and how many entries there are:
/// one counting pass, the layout of the parallel check.
struct Layout {
    enumerator: Enumerator,
    prefixes: Vec<Prefix>,
    offsets: Vec<u64>,
    total: u64,
}

impl Layout {
    fn of(size: BoardSize) -> Self {
        let enumerator = Enumerator::new(size);
        let prefixes = enumerator.prefixes();
        let sizes = enumerator.prefix_sizes(&prefixes);
        let mut total = 0;
        let offsets = sizes
            .iter()
            .map(|&c| {
                total += c;
                total - c
            })
            .collect();
        Self {
            enumerator,
            prefixes,
            offsets,
            total,
        }
    }
}

/// Entries read at a time by the full check.
const CHUNK: u64 = 1 << 16;

/// An entry that is not the subproblem the canonical order puts at its index.
fn misplaced(reader: &BlockReader, index: u64, raw: &[u8; ENTRY_BYTES], sp: Subproblem) -> StoreError {
    match Entry::decode(reader.size, raw) {
        Err(x) => reader.corrupt(index, x.to_string()),
        Ok(entry) => reader.corrupt(
            index,
            format!(
                "it holds ({}) {}, where the canonical order of N = {} has ({}) {}",
                entry.pre,
                entry.sym,
                reader.size.n(),
                sp.pre,
                sp.sym
            ),
        ),
    }
}

/// Every entry checked against the canonical subproblem at its index and the rules of the
/// history, then a summary made of the blocks (they are all closed: their bytes as read).
pub(super) fn rebuild(reader: &BlockReader, len: u64, watch: &Watch) -> Result<(Kept, Solvers), StoreError> {
    let layout = Layout::of(reader.size);
    debug_assert_eq!(layout.total, len);
    watch.begin("checking every entry against the canonical order", len);
    let e = &layout.enumerator;
    type Part = ([u64; 3], Solvers);
    let parts: Vec<Result<Part, StoreError>> = (0..layout.prefixes.len())
        .into_par_iter()
        .map(|i| {
            let (p, start) = (layout.prefixes[i], layout.offsets[i]);
            let end = layout.offsets.get(i + 1).copied().unwrap_or(layout.total);
            let mut census = [0u64; 3];
            let mut used = Solvers::NONE;
            let mut err = None;
            // Read in chunks as the order advances: a prefix of N = 27 can hold millions.
            let mut buf: Vec<u8> = Vec::new();
            let mut at = 0usize;
            let mut index = start;
            e.for_each_in(p, |sp| {
                if err.is_some() {
                    return;
                }
                if at == buf.len() {
                    let upto = (index + CHUNK).min(end);
                    match reader.bytes(index..upto) {
                        Ok(b) => buf = b,
                        Err(x) => {
                            err = Some(x);
                            return;
                        }
                    }
                    at = 0;
                }
                let raw: &[u8; ENTRY_BYTES] = buf[at..at + ENTRY_BYTES].try_into().expect("16 bytes");
                at += ENTRY_BYTES;
                let w1 = u64::from_be_bytes(raw[..8].try_into().expect("8 bytes"));
                let r = if w1 >> 23 != Entry::placed_bits(&sp.pre, sp.sym) {
                    Err(misplaced(reader, index, raw, sp))
                } else {
                    reader.check_raw(index, raw, |_, _| {})
                };
                match r {
                    Ok(Some(solver)) => used.insert(solver),
                    Ok(None) => {}
                    Err(x) => err = Some(x),
                }
                census[sp.sym.slot()] += 1;
                index += 1;
            });
            watch.done.fetch_add(index - start, Ordering::Relaxed);
            err.map_or(Ok((census, used)), Err)
        })
        .collect();
    let mut census = [0u64; 3];
    let mut used = Solvers::NONE;
    for p in parts {
        let (c, u) = p?;
        for (t, x) in census.iter_mut().zip(c) {
            *t += x;
        }
        used = used.union(&u);
    }
    // Every entry is where the order puts it: the blocks' records are taken from the file.
    let block_entries = summary::block_entries(len);
    let count = Kept::blocks_for(len, block_entries);
    let mut k = Kept {
        n: reader.size.n(),
        entries: len,
        block_entries,
        identity: Identity::default(),
        clean: false,
        checked_at: history::now(),
        census,
        blocks: Vec::new(),
    };
    watch.begin("summing the blocks", len);
    let scans: Vec<Result<blocks::Scan, StoreError>> = (0..count)
        .into_par_iter()
        .map(|b| {
            let r = k.range(b);
            let s = reader.scan(r.clone(), None);
            watch.done.fetch_add(r.end - r.start, Ordering::Relaxed);
            s
        })
        .collect();
    for s in scans {
        let s = s?;
        k.blocks.push(summary::Block {
            open: false,
            solved: s.solved,
            canon: s.canon,
            bytes: s.bytes,
        });
    }
    Ok((k, used))
}
