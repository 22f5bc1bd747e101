//! The campaign schema as numbered migrations, applied in order, each once: the table
//! `queens_migration` records those a database has had. A change to the tables or the
//! functions is a new migration (the next number; a function changed is created again there,
//! `CREATE OR REPLACE`), never an edit of one a database may have had already.
//!
//! A database from before this table (the tables of a version before roles, or those of roles
//! with their functions installed by a fingerprint of their text) holds no record: every
//! migration is applied to it from the first. Migrations 1 to 3 are written for that (the
//! tables `IF NOT EXISTS`, columns `ADD COLUMN IF NOT EXISTS`, the functions replaced and
//! what older builds left dropped); later ones need not be.

use crate::store::pg::db_err;
use crate::store::pg_conn::Target;
use crate::store::StoreError;

/// One step of the schema: its number, what it does, and its SQL in parts, run in order
/// (`@schema@` and `@lock_campaign@` filled in).
pub struct Migration {
    pub version: i32,
    pub name: &'static str,
    pub parts: &'static [&'static str],
}

/// Every migration, in order.
pub const MIGRATIONS: [Migration; 3] = [
    Migration {
        version: 1,
        name: "the tables before roles",
        parts: &[include_str!("001_before_roles.sql")],
    },
    Migration {
        version: 2,
        name: "roles, withdrawals, cross-host agreement",
        parts: &[include_str!("002_roles.sql")],
    },
    Migration {
        version: 3,
        name: "the functions of a host's work, queens_commit in named steps",
        parts: &[
            include_str!("003_functions/basics.sql"),
            include_str!("003_functions/hosts.sql"),
            include_str!("003_functions/merge.sql"),
            include_str!("003_functions/commit.sql"),
            include_str!("003_functions/withdraw.sql"),
        ],
    },
];

/// The schema this build writes and reads: its last migration.
pub const LATEST: i32 = MIGRATIONS[MIGRATIONS.len() - 1].version;

/// The table of migrations applied.
const RECORD: &str = "CREATE TABLE IF NOT EXISTS queens_migration (
    version integer PRIMARY KEY,
    name    text NOT NULL,
    applied timestamptz NOT NULL DEFAULT now()
)";

/// The last migration the database has had (0: none recorded). Reads only, so a host role
/// can ask.
pub fn applied(client: &mut impl postgres::GenericClient, target: &Target) -> Result<i32, StoreError> {
    let e = || db_err(target, "reading the schema version");
    let recorded: bool = client
        .query_one(
            "SELECT to_regclass('queens_migration') IS NOT NULL AS recorded",
            &[],
        )
        .map_err(e())?
        .get("recorded");
    if !recorded {
        return Ok(0);
    }
    Ok(client
        .query_one(
            "SELECT coalesce(max(version), 0) AS version FROM queens_migration",
            &[],
        )
        .map_err(e())?
        .get("version"))
}

/// Applies the migrations after the last one the database has had, in order, each recorded
/// as it is applied, inside `tx` (the caller holds the schema lock and commits: all or
/// none). `schema` is the campaign's schema, quoted; `lock_campaign` the advisory lock key
/// of campaigns. Returns the versions applied.
pub fn migrate(
    tx: &mut postgres::Transaction,
    target: &Target,
    schema: &str,
    lock_campaign: i64,
) -> Result<Vec<i32>, StoreError> {
    tx.batch_execute(RECORD)
        .map_err(db_err(target, "creating the table of migrations"))?;
    let from = applied(tx, target)?;
    let mut done = Vec::new();
    for m in MIGRATIONS.iter().filter(|m| m.version > from) {
        for part in m.parts {
            let sql = part
                .replace("@schema@", schema)
                .replace("@lock_campaign@", &lock_campaign.to_string());
            tx.batch_execute(&sql).map_err(|source| StoreError::Db {
                db: target.shown.clone(),
                what: "applying a migration of the campaign schema",
                source,
            })?;
        }
        tx.execute(
            "INSERT INTO queens_migration (version, name) VALUES ($1, $2)",
            &[&m.version, &m.name],
        )
        .map_err(db_err(target, "recording a migration"))?;
        tracing::info!(version = m.version, "campaign schema migrated: {}", m.name);
        done.push(m.version);
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_numbered_from_one_without_gaps() {
        for (k, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version, k as i32 + 1, "{}", m.name);
            assert!(!m.parts.is_empty(), "{}", m.name);
        }
        assert_eq!(LATEST, MIGRATIONS.len() as i32);
    }
}
