//! The tables of the shared store, made on connecting, and what concerns a database's
//! campaigns as a whole: which there are, deleting one, the room they take.

use super::db_err;
use crate::store::pg_conn::Target;
use crate::store::StoreError;
use queens_core::BoardSize;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS queens_campaign (
    n           integer  PRIMARY KEY,
    subproblems bigint   NOT NULL,
    block_size  integer  NOT NULL,
    census      bigint[] NOT NULL,  -- entries per class (none, point, rotate)
    solved      bigint[] NOT NULL,  -- solved entries per class
    solutions   bigint[] NOT NULL,  -- summed counts per class
    created     timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS queens_block (
    n           integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    block       integer NOT NULL,
    first       bigint  NOT NULL,   -- index of its first entry
    len         integer NOT NULL,
    solved      integer NOT NULL,
    entries     bytea   NOT NULL,   -- len 16-byte entries
    cycles      bytea,              -- len little-endian u64 (0 = unknown), once one is known
    lease       bigint,
    holder      text,
    lease_until timestamptz,
    PRIMARY KEY (n, block)
);
CREATE INDEX IF NOT EXISTS queens_block_open ON queens_block (n, block) WHERE solved < len;
CREATE SEQUENCE IF NOT EXISTS queens_lease;
CREATE TABLE IF NOT EXISTS queens_solver (
    n    integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    id   integer NOT NULL,
    link text    NOT NULL,
    PRIMARY KEY (n, id),
    UNIQUE (n, link)
);
CREATE TABLE IF NOT EXISTS queens_event (
    n     integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    t     timestamptz NOT NULL DEFAULT now(),
    host  text  NOT NULL,
    event jsonb NOT NULL
);
CREATE TABLE IF NOT EXISTS queens_dispute (
    n      integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    entry  bigint  NOT NULL,
    kept   bigint  NOT NULL,        -- word 2 stored first
    other  bigint  NOT NULL,        -- word 2 of the differing result
    host   text    NOT NULL,
    t      timestamptz NOT NULL DEFAULT now()
);
";

/// Advisory lock keys: schema creation, and one per N for creating a campaign or a solver id.
const LOCK_SCHEMA: i64 = 0x5175_6565_6e73_0000;
const LOCK_CAMPAIGN: i64 = 0x5175_6565_6e73_0100;

/// Connects and makes sure the tables exist (several hosts may start at once).
pub fn connect(target: &Target) -> Result<postgres::Client, StoreError> {
    if target.password_in_url {
        tracing::warn!(
            "the campaign URL carries a password, which the shell history and `ps` keep; prefer PGPASSWORD or ~/.pgpass"
        );
    }
    let mut client = target.connect().map_err(db_err(target, "connecting"))?;
    let mut tx = client
        .transaction()
        .map_err(db_err(target, "starting a transaction"))?;
    tx.execute("SELECT pg_advisory_xact_lock($1::bigint)", &[&LOCK_SCHEMA])
        .map_err(db_err(target, "locking the schema"))?;
    tx.batch_execute(SCHEMA)
        .map_err(db_err(target, "creating the campaign tables"))?;
    tx.commit()
        .map_err(db_err(target, "creating the campaign tables"))?;
    Ok(client)
}

/// The N of every campaign in the database.
pub fn campaigns(client: &mut postgres::Client, target: &Target) -> Result<Vec<u32>, StoreError> {
    let rows = client
        .query("SELECT n FROM queens_campaign ORDER BY n", &[])
        .map_err(db_err(target, "listing campaigns"))?;
    Ok(rows.iter().map(|r| r.get::<_, i32>(0) as u32).collect())
}

/// The campaign of the database a command is about: `n` when given, else its only one.
pub fn which(client: &mut postgres::Client, target: &Target, n: Option<u32>) -> Result<u32, StoreError> {
    let all = campaigns(client, target)?;
    let refused = |what: String| StoreError::Campaign {
        db: target.shown.clone(),
        what,
    };
    Ok(match (n, all.as_slice()) {
        (Some(n), _) if all.contains(&n) => n,
        (Some(n), _) => {
            return Err(refused(format!(
                "holds no campaign of N = {n} (it holds N = {all:?})"
            )))
        }
        (None, [n]) => *n,
        (None, []) => return Err(refused("holds no campaign".into())),
        (None, _) => {
            return Err(refused(format!(
                "holds campaigns of N = {all:?}; choose one with --n"
            )))
        }
    })
}

/// Serialises, until the transaction ends, what must not race for one N: creating its
/// campaign, giving out solver ids.
pub(super) fn lock_campaign(
    tx: &mut postgres::Transaction,
    target: &Target,
    n: i32,
) -> Result<(), StoreError> {
    tx.execute(
        "SELECT pg_advisory_xact_lock($1::bigint + $2::bigint)",
        &[&LOCK_CAMPAIGN, &(n as i64)],
    )
    .map_err(db_err(target, "locking the campaign"))?;
    Ok(())
}

/// Deletes the campaign of `size` and everything that belongs to it.
pub fn drop_campaign(
    client: &mut postgres::Client,
    target: &Target,
    size: BoardSize,
) -> Result<(), StoreError> {
    client
        .execute("DELETE FROM queens_campaign WHERE n = $1", &[&(size.n() as i32)])
        .map_err(db_err(target, "deleting the campaign"))?;
    Ok(())
}

/// Bytes the campaign tables take on disk (heap, TOAST and indexes of the blocks).
pub fn disk_bytes(client: &mut postgres::Client, target: &Target) -> Result<u64, StoreError> {
    let r = client
        .query_one("SELECT pg_total_relation_size('queens_block')", &[])
        .map_err(db_err(target, "measuring the tables"))?;
    Ok(r.get::<_, i64>(0) as u64)
}
