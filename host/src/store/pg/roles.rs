//! The roles of a shared campaign (`queens db init`): an owner role that owns the tables and
//! the functions, and a host role that may read the tables and call the functions of a
//! host's work, nothing else: no DDL, no direct write to any table. The database enforces
//! it, whatever a host's client does. An older version's tables are upgraded in place.

use super::db_err;
use super::install::{self, quote_ident, HOST_FUNCTIONS, LOCK_SCHEMA, TABLE_NAMES};
use crate::store::pg_conn::Target;
use crate::store::StoreError;

/// The two roles.
#[derive(Debug, Clone)]
pub struct Roles {
    /// Owns the tables and runs the functions (created NOLOGIN when missing).
    pub owner: String,
    /// Hosts log in as it or as members of it (created NOLOGIN when missing).
    pub hosts: String,
    /// Share of each host's counts, beyond its first block, that another host recomputes.
    pub cross_verify: f64,
}

/// What `init` did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Report {
    pub schema: String,
    /// Roles that did not exist and were made.
    pub created_roles: Vec<String>,
    /// The tables were there already (an older version's, or this one's): kept, upgraded.
    pub upgraded: bool,
}

fn refused(target: &Target, what: String) -> StoreError {
    StoreError::Campaign {
        db: target.shown.clone(),
        what,
    }
}

/// A role name PostgreSQL takes (1 to 63 bytes, no NUL).
fn check_name(target: &Target, flag: &str, name: &str) -> Result<(), StoreError> {
    if name.is_empty() || name.len() > 63 || name.contains('\0') {
        return Err(refused(
            target,
            format!("{flag} {name:?}: a role name is 1 to 63 bytes"),
        ));
    }
    Ok(())
}

/// Sets up (or upgrades) the campaign tables with `roles`, in one transaction.
pub fn init(client: &mut postgres::Client, target: &Target, roles: &Roles) -> Result<Report, StoreError> {
    check_name(target, "--owner", &roles.owner)?;
    check_name(target, "--hosts", &roles.hosts)?;
    if !(0.0..=1.0).contains(&roles.cross_verify) {
        return Err(refused(
            target,
            format!("--cross-verify {}: a share from 0 to 1", roles.cross_verify),
        ));
    }
    if roles.owner == roles.hosts {
        return Err(refused(
            target,
            format!(
                "--hosts {0}: the owner role {0} cannot be the host role too",
                roles.hosts
            ),
        ));
    }
    let e = |what| db_err(target, what);
    let mut tx = client.transaction().map_err(e("starting a transaction"))?;
    tx.execute("SELECT pg_advisory_xact_lock($1::bigint)", &[&LOCK_SCHEMA])
        .map_err(e("locking the schema"))?;
    let mut report = Report {
        schema: install::schema_of(&mut tx, target)?,
        upgraded: tx
            .query_one("SELECT to_regclass('queens_campaign') IS NOT NULL", &[])
            .map_err(e("reading the tables"))?
            .get(0),
        ..Report::default()
    };
    for name in [&roles.owner, &roles.hosts] {
        let exists: bool = tx
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)",
                &[name],
            )
            .map_err(e("reading roles"))?
            .get(0);
        if !exists {
            tx.batch_execute(&format!("CREATE ROLE {} NOLOGIN", quote_ident(name)))
                .map_err(e("creating a role"))?;
            report.created_roles.push(name.clone());
        }
    }
    // A host role above the grants would make them moot.
    let r = tx
        .query_one(
            "SELECT rolsuper OR rolbypassrls OR rolcreaterole, pg_has_role($1, $2, 'MEMBER')
             FROM pg_roles WHERE rolname = $1",
            &[&roles.hosts, &roles.owner],
        )
        .map_err(e("reading roles"))?;
    if r.get::<_, bool>(0) {
        return Err(refused(
            target,
            format!(
                "--hosts {}: a superuser, or a role that creates roles or bypasses row security, is not held by any grant",
                roles.hosts
            ),
        ));
    }
    if r.get::<_, bool>(1) {
        return Err(refused(
            target,
            format!(
                "--hosts {}: it is a member of the owner role {}, and would have its rights",
                roles.hosts, roles.owner
            ),
        ));
    }
    let member: bool = tx
        .query_one("SELECT pg_has_role(current_user, $1, 'MEMBER')", &[&roles.owner])
        .map_err(e("reading roles"))?
        .get(0);
    let owner = quote_ident(&roles.owner);
    let hosts = quote_ident(&roles.hosts);
    if !member {
        // To hand the tables over (and manage them later) the administrator joins the owner.
        tx.batch_execute(&format!("GRANT {owner} TO CURRENT_USER"))
            .map_err(e("joining the owner role"))?;
    }
    install::install(&mut tx, target)?;
    let schema = quote_ident(&report.schema);
    let mut sql = String::new();
    for t in TABLE_NAMES {
        sql += &format!(
            "ALTER TABLE {t} OWNER TO {owner};
             REVOKE ALL ON TABLE {t} FROM PUBLIC;
             REVOKE ALL ON TABLE {t} FROM {hosts};
             GRANT SELECT ON TABLE {t} TO {hosts};\n"
        );
    }
    sql += &format!(
        "ALTER SEQUENCE queens_lease OWNER TO {owner};
         REVOKE ALL ON SEQUENCE queens_lease FROM PUBLIC;
         REVOKE CREATE ON SCHEMA {schema} FROM PUBLIC;
         REVOKE CREATE ON SCHEMA {schema} FROM {hosts};
         GRANT USAGE ON SCHEMA {schema} TO {hosts};\n"
    );
    let functions: Vec<String> = tx
        .query(
            "SELECT p.oid::regprocedure::text FROM pg_proc p
             WHERE p.pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1)
               AND p.proname LIKE 'queens\\_%'",
            &[&report.schema],
        )
        .map_err(e("reading the functions"))?
        .iter()
        .map(|r| r.get(0))
        .collect();
    for f in &functions {
        sql += &format!("ALTER FUNCTION {f} OWNER TO {owner};\n");
    }
    for f in HOST_FUNCTIONS {
        sql += &format!("GRANT EXECUTE ON FUNCTION {f} TO {hosts};\n");
    }
    tx.batch_execute(&sql)
        .map_err(e("granting the roles their rights"))?;
    tx.execute(
        "INSERT INTO queens_meta (key, value) VALUES ('owner', $1), ('hosts', $2), ('cross_verify', $3)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        &[&roles.owner, &roles.hosts, &roles.cross_verify.to_string()],
    )
    .map_err(e("recording the roles"))?;
    tx.commit().map_err(e("committing the roles"))?;
    Ok(report)
}
