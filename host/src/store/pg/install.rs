//! The campaign tables and the functions of a host's work, made or brought up to this
//! version's schema: by the first host of an unmanaged database (one role for everyone, as
//! before roles), or by `queens db init`. A host role cannot, and need not: it finds them
//! current.

use super::db_err;
use super::migrations::{self, LATEST};
use crate::store::pg_conn::Target;
use crate::store::StoreError;

/// Advisory lock keys: making or upgrading the schema, and one per N for creating a campaign
/// or a solver id (the installed functions take it too).
pub(super) const LOCK_SCHEMA: i64 = 0x5175_6565_6e73_0000;
pub(super) const LOCK_CAMPAIGN: i64 = 0x5175_6565_6e73_0100;

/// The schema this build writes and reads (its last migration); older ones are upgraded in
/// place.
pub const VERSION: i32 = LATEST;

/// The functions a host role may call, by signature.
pub const HOST_FUNCTIONS: [&str; 7] = [
    "queens_lease(integer, text, double precision, bigint[])",
    "queens_release(integer, text[])",
    "queens_solver_id(integer, text)",
    "queens_commit(integer, text, double precision, bigint[], bigint[], bigint[], bytea[], bigint[], bigint[], text[])",
    "queens_withdraw(integer, text, integer, text)",
    "queens_admit(integer)",
    "queens_lease_checks(integer, text, double precision, integer)",
];

/// Functions only the other functions call (running as the owner).
pub const INNER_FUNCTIONS: [&str; 15] = [
    "queens_owns(integer, bigint, text)",
    "queens_zero(integer, integer[], text)",
    "queens_quarantine(integer, text, text, text)",
    "queens_add_totals(integer, bigint[], bigint[])",
    "queens_commit_enter(integer)",
    "queens_commit_check(integer, bigint[], bigint[], bytea[], bigint[], bigint[])",
    "queens_commit_blocks(integer, text, bigint[], bigint[], bigint[], boolean)",
    "queens_renew(integer, bigint[], double precision)",
    "queens_block_read(integer, integer, boolean, text, bigint[])",
    "queens_land(integer, bigint, integer, bytea, bytea, bigint[], bigint[], bytea[], boolean, double precision)",
    "queens_check_later(integer, bigint, bytea, integer[], bigint[])",
    "queens_compare(integer, text, bigint, integer, bytea, bytea, boolean, bigint[], bigint[])",
    "queens_vote(integer, bigint[], bigint[], bigint[])",
    "queens_correct(integer, text, bigint, integer, bytea, boolean, bigint[], bigint[])",
    "queens_block_write(integer, integer, text, bytea, bytea, integer, boolean)",
];

/// The tables, in an order that `ALTER … OWNER` may follow.
pub const TABLE_NAMES: [&str; 10] = [
    "queens_campaign",
    "queens_block",
    "queens_solver",
    "queens_event",
    "queens_dispute",
    "queens_withdrawal",
    "queens_meta",
    "queens_check",
    "queens_host",
    "queens_migration",
];

/// Whether the database holds this version's schema (no DDL, so a host role can ask).
pub fn current(client: &mut impl postgres::GenericClient, target: &Target) -> Result<bool, StoreError> {
    let v = migrations::applied(client, target)?;
    if v > VERSION {
        return Err(StoreError::Campaign {
            db: target.shown.clone(),
            what: format!(
                "its campaign schema is version {v}, newer than this build's {VERSION}: update queens"
            ),
        });
    }
    Ok(v == VERSION)
}

/// The schema the tables live in (the first of the search path that exists).
pub fn schema_of(tx: &mut impl postgres::GenericClient, target: &Target) -> Result<String, StoreError> {
    let s: Option<String> = tx
        .query_one("SELECT current_schema()", &[])
        .map_err(db_err(target, "reading the schema"))?
        .get(0);
    s.ok_or_else(|| StoreError::Campaign {
        db: target.shown.clone(),
        what: "no schema on the search path to keep the campaign in".into(),
    })
}

/// Makes or upgrades the tables and functions (the migrations the database has not had),
/// inside `tx` (the caller holds the schema lock). Objects it creates belong to the
/// connecting role.
pub fn install(tx: &mut postgres::Transaction, target: &Target) -> Result<(), StoreError> {
    let schema = schema_of(tx, target)?;
    migrations::migrate(tx, target, &quote_ident(&schema), LOCK_CAMPAIGN)?;
    // Only the roles granted them run a host's work.
    for f in HOST_FUNCTIONS.iter().chain(&INNER_FUNCTIONS) {
        tx.batch_execute(&format!("REVOKE ALL ON FUNCTION {f} FROM PUBLIC"))
            .map_err(db_err(target, "restricting the campaign functions"))?;
    }
    // The version as builds before numbered migrations read it: they refuse a newer one
    // rather than install their functions over these.
    tx.execute(
        "INSERT INTO queens_meta (key, value) VALUES ('schema', $1)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        &[&VERSION.to_string()],
    )
    .map_err(db_err(target, "recording the schema version"))?;
    Ok(())
}

/// An SQL identifier, quoted.
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
