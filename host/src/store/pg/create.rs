//! Writing a whole campaign into the database: fresh, or imported from a file.

use super::schema::lock_campaign;
use super::{db_err, Rows, BLOCK};
use crate::store::pg_conn::Target;
use crate::store::StoreError;
use crate::store::Watch;
use queens_core::entry::ENTRY_BYTES;
use queens_core::{BoardSize, Entry, Tally};

/// Blocks written per statement when a campaign is created or imported.
const INSERT_BATCH: usize = 64;

/// What a campaign brings along when it is imported: its entries in canonical order, their
/// cycle counts, and the links behind its solver ids.
pub struct Import<'a> {
    pub entries: &'a mut dyn FnMut(u64) -> [u8; ENTRY_BYTES],
    pub cycles: &'a mut dyn FnMut(u64) -> Option<u64>,
    pub solvers: Vec<(u16, String)>,
}

/// Writes a whole campaign in one transaction (nobody sees half of one): fresh entries when
/// `import` is None. Refuses when N has a campaign already, unless `replace`. `watch` counts
/// the entries written.
pub fn create(
    client: &mut postgres::Client,
    target: &Target,
    size: BoardSize,
    import: Option<Import>,
    replace: bool,
    watch: &Watch,
) -> Result<u64, StoreError> {
    let n = size.n() as i32;
    let e = db_err;
    let mut tx = client
        .transaction()
        .map_err(e(target, "starting a transaction"))?;
    lock_campaign(&mut tx, target, n)?;
    let exists = tx
        .query_opt("SELECT subproblems FROM queens_campaign WHERE n = $1", &[&n])
        .map_err(e(target, "reading the campaign"))?;
    if exists.is_some() {
        if !replace {
            return Err(StoreError::Campaign {
                db: target.shown.clone(),
                what: format!(
                    "N = {n} has a campaign already (it may hold results); pass --force to replace it"
                ),
            });
        }
        tx.execute("DELETE FROM queens_campaign WHERE n = $1", &[&n])
            .map_err(e(target, "deleting the old campaign"))?;
    }
    let census = queens_core::Enumerator::new(size).census();
    let total = census.total();
    watch.begin(
        &format!("writing the campaign of N = {n} into {}", target.shown),
        total,
    );
    let census: Vec<i64> = census.count.iter().map(|&c| c as i64).collect();
    tx.execute(
        "INSERT INTO queens_campaign (n, subproblems, block_size, census, solved, solutions)
         VALUES ($1, $2, $3, $4, '{0,0,0}', '{0,0,0}')",
        &[&n, &(total as i64), &(BLOCK as i32), &census],
    )
    .map_err(e(target, "creating the campaign"))?;
    let insert = tx
        .prepare(
            "INSERT INTO queens_block (n, block, first, len, solved, entries, cycles)
             SELECT $1, b, b::bigint * $2, length(e) / 16, s, e, c
             FROM unnest($3::int[], $4::int[], $5::bytea[], $6::bytea[]) AS u(b, s, e, c)",
        )
        .map_err(e(target, "preparing the insert"))?;
    let mut batch: Rows = Default::default();
    let mut tally = Tally::default();
    let flush = |tx: &mut postgres::Transaction, batch: &mut Rows| {
        if batch.0.is_empty() {
            return Ok(());
        }
        tx.execute(
            &insert,
            &[&n, &(BLOCK as i64), &batch.0, &batch.1, &batch.2, &batch.3],
        )
        .map_err(e(target, "writing entries"))?;
        *batch = Default::default();
        Ok::<(), StoreError>(())
    };
    let written = match import {
        None => {
            let mut block = Vec::with_capacity(BLOCK * ENTRY_BYTES);
            let mut next = 0i32;
            let mut push = |tx: &mut postgres::Transaction, block: &mut Vec<u8>, batch: &mut Rows| {
                batch.push(next, 0, std::mem::take(block), None);
                next += 1;
                if batch.0.len() == INSERT_BATCH {
                    flush(tx, batch)?;
                }
                Ok::<(), StoreError>(())
            };
            let written = crate::store::fresh_entries(size, &watch.done, |mut chunk: &[u8]| {
                while !chunk.is_empty() {
                    let take = (BLOCK * ENTRY_BYTES - block.len()).min(chunk.len());
                    block.extend_from_slice(&chunk[..take]);
                    chunk = &chunk[take..];
                    if block.len() == BLOCK * ENTRY_BYTES {
                        push(&mut tx, &mut block, &mut batch)?;
                    }
                }
                Ok::<(), StoreError>(())
            })?;
            if !block.is_empty() {
                push(&mut tx, &mut block, &mut batch)?;
            }
            written
        }
        Some(imp) => {
            for b in 0..total.div_ceil(BLOCK as u64) {
                let first = b * BLOCK as u64;
                let len = (total - first).min(BLOCK as u64);
                let mut entries = Vec::with_capacity(len as usize * ENTRY_BYTES);
                let mut cycles = vec![0u8; len as usize * 8];
                let mut any_cycles = false;
                let mut solved = 0;
                for k in 0..len {
                    let raw = (imp.entries)(first + k);
                    let entry = Entry::decode(size, &raw).map_err(|x| StoreError::Corrupt {
                        path: "import".into(),
                        index: first + k,
                        offset: (first + k) * ENTRY_BYTES as u64,
                        reason: x.to_string(),
                    })?;
                    if let Some(s) = entry.solution {
                        solved += 1;
                        tally.add(entry.sym, s.whole());
                    }
                    if let Some(c) = (imp.cycles)(first + k) {
                        any_cycles = true;
                        cycles[k as usize * 8..][..8].copy_from_slice(&c.to_le_bytes());
                    }
                    entries.extend_from_slice(&raw);
                }
                batch.push(b as i32, solved, entries, any_cycles.then_some(cycles));
                watch.done.fetch_add(len, std::sync::atomic::Ordering::Relaxed);
                if batch.0.len() == INSERT_BATCH {
                    flush(&mut tx, &mut batch)?;
                }
            }
            for (id, link) in &imp.solvers {
                tx.execute(
                    "INSERT INTO queens_solver (n, id, link) VALUES ($1, $2, $3)",
                    &[&n, &(*id as i32), link],
                )
                .map_err(e(target, "writing solver ids"))?;
            }
            total
        }
    };
    flush(&mut tx, &mut batch)?;
    watch.begin(&format!("committing the campaign of N = {n}"), 0);
    let solved: Vec<i64> = tally.preplacements.iter().map(|&c| c as i64).collect();
    let sums: Vec<i64> = tally.solutions.iter().map(|&c| c as i64).collect();
    tx.execute(
        "UPDATE queens_campaign SET solved = $2, solutions = $3 WHERE n = $1",
        &[&n, &solved, &sums],
    )
    .map_err(e(target, "writing the totals"))?;
    tx.commit().map_err(e(target, "committing the new campaign"))?;
    // Statistics for the planner at once, not when autovacuum gets to them: without them a
    // lease of N = 27 (half a million blocks) scanned the table, 23 leases a second.
    client
        .batch_execute("ANALYZE queens_block")
        .map_err(e(target, "analyzing the new campaign"))?;
    Ok(written)
}
