//! Connecting to a shared store (its tables made or upgraded when the role may, see
//! `install.rs`), and what concerns a database's campaigns as a whole: which there are,
//! deleting one, the room they take.

use super::db_err;
use super::install::{self, LOCK_CAMPAIGN, LOCK_SCHEMA};
use crate::store::pg_conn::Target;
use crate::store::StoreError;
use queens_core::BoardSize;

/// Connects, and makes or upgrades the tables and functions when they are not this
/// version's (several hosts may start at once). A host role, which may not, is told who can.
pub fn connect(target: &Target) -> Result<postgres::Client, StoreError> {
    if target.password_in_url {
        tracing::warn!(
            "the campaign URL carries a password, which the shell history and `ps` keep; prefer PGPASSWORD or ~/.pgpass"
        );
    }
    target.warn_if_plain();
    let mut client = target.connect().map_err(db_err(target, "connecting"))?;
    // An install that met another session's locks in a deadlock is undone whole by the
    // server (seen with three hosts starting at once on a busy machine): made again.
    let mut tries = 0;
    loop {
        match install_if_old(&mut client, target) {
            Err(StoreError::Db { source, .. })
                if tries < 5 && source.code() == Some(&postgres::error::SqlState::T_R_DEADLOCK_DETECTED) =>
            {
                tries += 1;
                tracing::info!("installing the campaign tables met another session's locks; trying again");
            }
            Err(e) => return Err(e),
            Ok(()) => return Ok(client),
        }
    }
}

/// Makes or upgrades the tables and functions unless they are this version's already.
fn install_if_old(client: &mut postgres::Client, target: &Target) -> Result<(), StoreError> {
    if install::current(client, target)? {
        return Ok(());
    }
    let mut tx = client
        .transaction()
        .map_err(db_err(target, "starting a transaction"))?;
    tx.execute("SELECT pg_advisory_xact_lock($1::bigint)", &[&LOCK_SCHEMA])
        .map_err(db_err(target, "locking the schema"))?;
    if !install::current(&mut tx, target)? {
        install::install(&mut tx, target).map_err(|e| refused_install(target, e))?;
    }
    tx.commit()
        .map_err(db_err(target, "creating the campaign tables"))?;
    Ok(())
}

/// A role that may not make or upgrade the tables: the administrator's command named.
fn refused_install(target: &Target, e: StoreError) -> StoreError {
    match &e {
        StoreError::Db { source, .. }
            if source.code() == Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE) =>
        {
            StoreError::Campaign {
                db: target.shown.clone(),
                what: format!(
                    "its campaign tables are missing or of an older version, and this role may not change them ({e}); the administrator sets them up with `queens db init {} --hosts ROLE`",
                    target.shown
                ),
            }
        }
        _ => e,
    }
}

/// The N of every campaign in the database.
pub fn campaigns(client: &mut postgres::Client, target: &Target) -> Result<Vec<u32>, StoreError> {
    let rows = client
        .query("SELECT n FROM queens_campaign ORDER BY n", &[])
        .map_err(db_err(target, "listing campaigns"))?;
    Ok(rows.iter().map(|r| r.get::<_, i32>(0) as u32).collect())
}

/// The campaign of the database a command is about: `size` when given, else its only one.
pub fn which(
    client: &mut postgres::Client,
    target: &Target,
    size: Option<BoardSize>,
) -> Result<BoardSize, StoreError> {
    let all = campaigns(client, target)?;
    let refused = |what: String| StoreError::Campaign {
        db: target.shown.clone(),
        what,
    };
    Ok(match (size, all.as_slice()) {
        (Some(s), _) if all.contains(&s.n()) => s,
        (Some(s), _) => {
            return Err(refused(format!(
                "holds no campaign of N = {s} (it holds N = {all:?})"
            )))
        }
        (None, [n]) => BoardSize::new(*n)?,
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
