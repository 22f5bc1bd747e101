//! Reading a whole campaign out of the database, block by block, for `db export`.

use super::db_err;
use super::rows::{check_block, missing, read_solvers};
use crate::store::pg_conn::Target;
use crate::store::StoreError;
use queens_core::entry::ENTRY_BYTES;
use queens_core::BoardSize;

/// Hands every block of a campaign to `block` in canonical order, (first entry, entries,
/// cycle counts if any), from one consistent snapshot, a few blocks in memory at a time.
/// Returns the campaign's solver ids and their links.
pub fn export(
    client: &mut postgres::Client,
    target: &Target,
    size: BoardSize,
    mut block: impl FnMut(u64, &[u8], Option<&[u8]>) -> Result<(), StoreError>,
) -> Result<Vec<(u16, String)>, StoreError> {
    let n = size.n() as i32;
    let e = db_err;
    let mut tx = client
        .build_transaction()
        .isolation_level(postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .map_err(e(target, "starting a transaction"))?;
    let total = tx
        .query_opt("SELECT subproblems FROM queens_campaign WHERE n = $1", &[&n])
        .map_err(e(target, "reading the campaign"))?
        .ok_or_else(|| missing(target, n))?
        .get::<_, i64>(0) as u64;
    let portal = tx
        .bind(
            "SELECT block, first, entries, cycles, solved FROM queens_block WHERE n = $1 ORDER BY block",
            &[&n],
        )
        .map_err(e(target, "reading entries"))?;
    let mut next = 0u64;
    loop {
        let rows = tx
            .query_portal(&portal, 16)
            .map_err(e(target, "reading entries"))?;
        if rows.is_empty() {
            break;
        }
        for r in rows {
            let first = r.get::<_, i64>(1) as u64;
            let entries: &[u8] = r.get(2);
            if first != next || entries.len() % ENTRY_BYTES != 0 {
                return Err(StoreError::Campaign {
                    db: target.shown.clone(),
                    what: format!(
                        "block {} starts at entry {first} with {} bytes; entry {next} was expected next",
                        r.get::<_, i32>(0),
                        entries.len()
                    ),
                });
            }
            check_block(target, r.get(0), first, entries, r.get(4), || {
                read_solvers(&mut tx, target, n).unwrap_or_default()
            })?;
            block(first, entries, r.get(3))?;
            next += (entries.len() / ENTRY_BYTES) as u64;
        }
    }
    if next != total {
        return Err(StoreError::Campaign {
            db: target.shown.clone(),
            what: format!("its blocks hold {next} entries, the campaign {total}"),
        });
    }
    let solvers = read_solvers(&mut tx, target, n)?;
    Ok(solvers)
}
