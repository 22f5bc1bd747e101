//! The campaign tables and the functions of a host's work, made or brought up to this
//! version's schema: by the first host of an unmanaged database (one role for everyone, as
//! before roles), or by `queens db init`. A host role cannot, and need not: it finds them
//! current.

use super::db_err;
use super::schema::LOCK_CAMPAIGN;
use crate::store::pg_conn::Target;
use crate::store::StoreError;

/// The schema this build writes and reads; older ones are upgraded in place.
pub const VERSION: i32 = 2;

const TABLES: &str = include_str!("tables.sql");
const FUNCTIONS: &str = include_str!("functions.sql");

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
pub const INNER_FUNCTIONS: [&str; 3] = [
    "queens_owns(integer, bigint, text)",
    "queens_zero(integer, integer[], text)",
    "queens_quarantine(integer, text, text, text)",
];

/// The tables, in an order that `ALTER … OWNER` may follow.
pub const TABLE_NAMES: [&str; 9] = [
    "queens_campaign",
    "queens_block",
    "queens_solver",
    "queens_event",
    "queens_dispute",
    "queens_withdrawal",
    "queens_meta",
    "queens_check",
    "queens_host",
];

/// Whether the database holds this version's schema (no DDL, so a host role can ask).
pub fn current(client: &mut impl postgres::GenericClient, target: &Target) -> Result<bool, StoreError> {
    let has_meta: bool = client
        .query_one("SELECT to_regclass('queens_meta') IS NOT NULL", &[])
        .map_err(db_err(target, "reading the schema version"))?
        .get(0);
    if !has_meta {
        return Ok(false);
    }
    let v = client
        .query_opt("SELECT value FROM queens_meta WHERE key = 'schema'", &[])
        .map_err(db_err(target, "reading the schema version"))?
        .and_then(|r| r.get::<_, String>(0).parse::<i32>().ok());
    match v {
        Some(v) if v > VERSION => Err(StoreError::Campaign {
            db: target.shown.clone(),
            what: format!(
                "its campaign schema is version {v}, newer than this build's {VERSION}: update queens"
            ),
        }),
        Some(v) if v == VERSION => {
            // The same tables, but functions of another build of this version: replaced.
            let f = client
                .query_opt("SELECT value FROM queens_meta WHERE key = 'functions'", &[])
                .map_err(db_err(target, "reading the schema version"))?;
            Ok(f.is_some_and(|r| r.get::<_, String>(0) == functions_hash()))
        }
        _ => Ok(false),
    }
}

/// A fingerprint of this build's functions (FNV-1a), to replace those of another build.
fn functions_hash() -> String {
    let h = FUNCTIONS.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{h:016x}")
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

/// Makes or upgrades the tables and (re)creates the functions, inside `tx` (the caller holds
/// the schema lock). Objects it creates belong to the connecting role.
pub fn install(tx: &mut postgres::Transaction, target: &Target) -> Result<(), StoreError> {
    let schema = schema_of(tx, target)?;
    let quoted = quote_ident(&schema);
    tx.batch_execute(TABLES)
        .map_err(db_err(target, "creating the campaign tables"))?;
    let functions = FUNCTIONS
        .replace("@schema@", &quoted)
        .replace("@lock_campaign@", &LOCK_CAMPAIGN.to_string());
    tx.batch_execute(&functions)
        .map_err(db_err(target, "creating the campaign functions"))?;
    // Only the roles granted them run a host's work.
    for f in HOST_FUNCTIONS.iter().chain(&INNER_FUNCTIONS) {
        tx.batch_execute(&format!("REVOKE ALL ON FUNCTION {f} FROM PUBLIC"))
            .map_err(db_err(target, "restricting the campaign functions"))?;
    }
    tx.execute(
        "INSERT INTO queens_meta (key, value) VALUES ('schema', $1)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        &[&VERSION.to_string()],
    )
    .map_err(db_err(target, "recording the schema version"))?;
    tx.execute(
        "INSERT INTO queens_meta (key, value) VALUES ('functions', $1)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        &[&functions_hash()],
    )
    .map_err(db_err(target, "recording the schema version"))?;
    Ok(())
}

/// An SQL identifier, quoted.
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
