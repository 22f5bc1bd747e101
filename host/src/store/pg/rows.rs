//! What a campaign's rows say: its totals, its solver ids, a block checked against its row.

use super::{db_err, word2, BLOCK};
use crate::store::pg_conn::Target;
use crate::store::{StoreError, Summary};
use queens_core::entry::{Solution, ENTRY_BYTES};
use queens_core::Tally;
use std::collections::HashSet;

/// The per-class totals of a campaign row.
fn tally_of(solved: &[i64], solutions: &[i64]) -> Tally {
    let mut t = Tally::default();
    for i in 0..3 {
        t.preplacements[i] = solved.get(i).copied().unwrap_or(0) as u64;
        t.solutions[i] = solutions.get(i).copied().unwrap_or(0) as u64;
    }
    t
}

/// A block's entries against its row: as many of them read as solved as its `solved` column
/// counts (every commit keeps the two together). A difference is damage, such as a flipped
/// bit that makes an unsolved entry read as solved: it is named, never counted or skipped.
/// `solvers` gives the campaign's solver ids, to point at the entries that name another.
pub(super) fn check_block(
    target: &Target,
    block: i32,
    first: u64,
    entries: &[u8],
    solved: i32,
    solvers: impl FnOnce() -> Vec<(u16, String)>,
) -> Result<(), StoreError> {
    let count = (0..entries.len() / ENTRY_BYTES)
        .filter(|&k| word2(entries, k) != 0)
        .count();
    if count == solved as usize {
        return Ok(());
    }
    let known: HashSet<u16> = solvers().into_iter().map(|s| s.0).collect();
    let suspects: Vec<String> = (0..entries.len() / ENTRY_BYTES)
        .map(|k| (k, Solution::from_word(word2(entries, k))))
        .filter(|(_, s)| s.solver != 0 && !known.is_empty() && !known.contains(&s.solver))
        .take(8)
        .map(|(k, s)| {
            format!(
                "entry {} names solver {}, which the campaign never gave out",
                first + k as u64,
                s.solver
            )
        })
        .collect();
    Err(StoreError::Campaign {
        db: target.shown.clone(),
        what: format!(
            "block {block} (entries {first}..{}): {count} of its entries read as solved where its row counts {solved}: the block is damaged{}",
            first + (entries.len() / ENTRY_BYTES) as u64,
            if suspects.is_empty() {
                String::new()
            } else {
                format!(" ({})", suspects.join("; "))
            }
        ),
    })
}

/// A row's campaign totals, by their columns' names (subproblems, census, solved,
/// solutions: those of `queens_campaign`) as a summary.
pub(super) fn summary_of(row: &postgres::Row) -> Summary {
    let census: Vec<i64> = row.get("census");
    Summary {
        subproblems: row.get::<_, i64>("subproblems") as u64,
        solved: tally_of(
            &row.get::<_, Vec<i64>>("solved"),
            &row.get::<_, Vec<i64>>("solutions"),
        ),
        census: [0, 1, 2].map(|i| census.get(i).copied().unwrap_or(0) as u64),
        unchecked: 0,
    }
}

/// The totals of the campaign of N = `n`, refused when it was made with other blocks.
pub(super) fn read_summary(
    client: &mut postgres::Client,
    target: &Target,
    n: i32,
) -> Result<Summary, StoreError> {
    let row = client
        .query_opt(
            "SELECT subproblems, census, solved, solutions, block_size FROM queens_campaign WHERE n = $1",
            &[&n],
        )
        .map_err(db_err(target, "reading the campaign"))?
        .ok_or_else(|| missing(target, n))?;
    // Entry indices map to blocks by this build's block size.
    let block_size: i32 = row.get("block_size");
    if block_size as usize != BLOCK {
        return Err(StoreError::Campaign {
            db: target.shown.clone(),
            what: format!(
                "the campaign of N = {n} was made with blocks of {block_size} entries; this build uses {BLOCK} (move it with an older build's db export and this one's db import)"
            ),
        });
    }
    Ok(summary_of(&row))
}

/// The campaign's solver ids and the boards ("host link") behind them.
pub(super) fn read_solvers(
    client: &mut impl postgres::GenericClient,
    target: &Target,
    n: i32,
) -> Result<Vec<(u16, String)>, StoreError> {
    Ok(client
        .query(
            "SELECT id, link FROM queens_solver WHERE n = $1 ORDER BY id",
            &[&n],
        )
        .map_err(db_err(target, "reading solver ids"))?
        .iter()
        .map(|r| (r.get::<_, i32>("id") as u16, r.get("link")))
        .collect())
}

/// The error for a database that holds no campaign of N = `n`.
pub(super) fn missing(target: &Target, n: i32) -> StoreError {
    StoreError::Campaign {
        db: target.shown.clone(),
        what: format!("no campaign of N = {n} (`queens run {n} --campaign URL` creates one)"),
    }
}
