//! The shared campaign store: one PostgreSQL database that the hosts of many workstations
//! draw subproblems from and return counts to.
//!
//! The campaign is cut into blocks of contiguous entries in canonical order; a block's row
//! holds its entries in the 16-byte Queens@TUD format (one `bytea`, so a 2·10⁹-entry
//! campaign stays near its file size instead of a row per entry). A host leases whole
//! blocks: it picks open ones with `FOR UPDATE SKIP LOCKED`, so hosts never wait for each
//! other, and renews its leases at every sync. A lease that is not renewed expires and its
//! block goes to the next host that asks. Results are buffered and committed at each sync in
//! one transaction that locks their blocks, merges them into the entries, renews the leases
//! and adds to the campaign's totals: a count lands once, whoever sent it. A result for an
//! entry another host solved meanwhile (the lease had expired) is compared with that count,
//! never added again; a different count is kept as a dispute and logged.
//!
//! All of a host's writes go through functions in the database (`functions.sql`) that run
//! with the tables' owner's rights and decide what lands; a host role may call them and read
//! the tables, nothing else (`roles.rs`, `queens db init`). The client proposes, the server
//! checks whose lease, whose solver and whose count it is.
//!
//! Lost connections are not fatal: results stay buffered until the database is back (they
//! are the same transaction, redone), and the host waits rather than finishing early.
//!
//! In parts: connecting (`schema.rs`); the tables and functions, as numbered migrations
//! (`migrations/`), installed (`install.rs`) and handed to the roles (`roles.rs`); writing a
//! campaign (`create.rs`) and reading one out (`export.rs`); what its rows say (`rows.rs`);
//! where it stands (`status.rs`); the store the dispatcher leases from (`store/`); random
//! access to its entries (`reader.rs`); the benchmark of a server (`bench.rs`).

pub mod bench;
pub mod create;
pub mod export;
pub mod install;
pub mod migrations;
pub mod reader;
pub mod roles;
mod rows;
pub mod schema;
pub mod status;
pub mod store;

pub use create::{create, Import};
pub use export::export;
pub use reader::Reader;
pub use schema::{campaigns, connect, disk_bytes, drop_campaign, which};
pub use status::{checkers, solvers_of, status, Checkers, Dispute, HostStanding, Lease, Status};
pub use store::PgStore;

use super::pg_conn::Target;
use super::StoreError;
use queens_core::entry::ENTRY_BYTES;

/// Entries per block (64 KiB of entries; a 341-unit board at Q(27) speed works ~10 minutes
/// on one; the simulated Q(14) has 116 of them).
pub const BLOCK: usize = 4096;

fn db_err(t: &Target, what: &'static str) -> impl FnOnce(postgres::Error) -> StoreError {
    let db = t.shown.clone();
    move |source| StoreError::Db { db, what, source }
}

/// The block of an entry and its offset in it.
fn block_of(index: u64) -> (i32, usize) {
    ((index / BLOCK as u64) as i32, (index % BLOCK as u64) as usize)
}

/// Word 2 (the solution, 0 while unsolved) of the entry at `off` of a block's entries.
fn word2(entries: &[u8], off: usize) -> u64 {
    u64::from_be_bytes(
        entries[off * ENTRY_BYTES + 8..(off + 1) * ENTRY_BYTES]
            .try_into()
            .expect("8 bytes"),
    )
}

/// Block rows to write in one statement, as the columns `unnest` takes: block, solved,
/// entries, cycles.
#[derive(Default)]
struct Rows(Vec<i32>, Vec<i32>, Vec<Vec<u8>>, Vec<Option<Vec<u8>>>);

impl Rows {
    fn push(&mut self, block: i32, solved: i32, entries: Vec<u8>, cycles: Option<Vec<u8>>) {
        self.0.push(block);
        self.1.push(solved);
        self.2.push(entries);
        self.3.push(cycles);
    }
}
