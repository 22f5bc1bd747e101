//! Shared campaigns with roles, against the throwaway server of `./scripts/test.sh`
//! (QUEENS_TEST_POSTGRES, PGPASSWORD): `queens db init` makes an owner and a host role; a
//! host role does a host's work through `queens run`, and driving SQL directly it can do
//! nothing else, each attempt refused by the server. An older version's campaign is upgraded
//! in place and keeps its results.

use queens_core::entry::{Solution, Stamp};
use queens_core::BoardSize;
use queens_host::store::file::{Access, FileStore};
use queens_host::store::pg::{self, Import, PgStore};
use queens_host::store::pg_conn::Target;
use queens_host::store::Store;
use std::time::Duration;

use crate::common;
use common::pg::{client, database};
use common::{ok_json as ok, queens};

const Q: [u128; 15] = [
    1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2_680, 14_200, 73_712, 365_596,
];

/// A login role that is a member of `group` (roles are the cluster's, so made idempotently).
fn login(admin: &mut postgres::Client, name: &str, group: &str) -> &'static str {
    const PW: &str = "host-pw-7";
    admin
        .batch_execute(&format!(
            "DO $$ BEGIN CREATE ROLE {name}; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
             ALTER ROLE {name} LOGIN PASSWORD '{PW}' NOSUPERUSER NOCREATEROLE NOCREATEDB;
             GRANT {group} TO {name};"
        ))
        .unwrap();
    PW
}

/// `url` logged in as `user` (the password in the URL, for this process's own connections).
fn as_user(url: &str, user: &str, pw: &str) -> String {
    url.replacen("queens@", &format!("{user}:{pw}@"), 1)
}

/// The database refused `sql` for lack of privilege.
fn refused(c: &mut postgres::Client, sql: &str) {
    let e = c
        .batch_execute(sql)
        .err()
        .unwrap_or_else(|| panic!("the server accepted: {sql}"));
    assert_eq!(
        e.code(),
        Some(&postgres::error::SqlState::INSUFFICIENT_PRIVILEGE),
        "{sql}: {e}"
    );
}

/// The campaign's totals as stored: (solved, per-class sums).
fn totals(c: &mut postgres::Client, n: i32) -> (i64, Vec<i64>) {
    let r = c
        .query_one(
            "SELECT solved[1] + solved[2] + solved[3], solutions FROM queens_campaign WHERE n = $1",
            &[&n],
        )
        .unwrap();
    (r.get(0), r.get(1))
}

/// The totals recounted from the entries themselves (exported, every entry checked).
fn recount(url: &str, n: u32) -> queens_host::store::Summary {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("x");
    ok(&queens()
        .args(["db", "export", url, "--n", &n.to_string()])
        .arg(&f)
        .output()
        .unwrap());
    FileStore::open(&f, None, Access::Read).unwrap().summary()
}

#[test]
fn a_host_role_does_a_hosts_work_and_nothing_else() {
    let url = database("q_roles");
    let (owner, hosts) = ("q_roles_owner", "q_roles_hosts");
    let j = ok(&queens()
        .args([
            "db", "init", &url, "--hosts", hosts, "--owner", owner, "--n", "10", "--json",
        ])
        .output()
        .unwrap());
    assert_eq!(j["created"][0][0], 10, "{j}");
    let mut admin = client(&url);
    let pw = login(&mut admin, "q_roles_h1", hosts);
    login(&mut admin, "q_roles_h2", hosts);
    let (u1, u2) = (as_user(&url, "q_roles_h1", pw), as_user(&url, "q_roles_h2", pw));
    let size = BoardSize::new(10).unwrap();
    let ttl = Duration::from_secs(60);
    // Host 2 leases the campaign's one block and solves a few entries of it.
    let (mut h2, created) = PgStore::open(&Target::parse(&u2).unwrap(), size, ttl).unwrap();
    assert!(!created);
    let got = h2.claim(5, Stamp::now()).unwrap();
    let id2 = h2.solver_id("sim:b").unwrap();
    for c in &got[..3] {
        let count = queens_core::completions(&c.sub.pre);
        h2.solve(c.index, Solution::new(id2, count).unwrap(), Some(7))
            .unwrap();
    }
    h2.sync().unwrap();
    let before = totals(&mut admin, 10);
    assert_eq!(before.0, 3);

    let mut c = client(&u1);
    // Reading is allowed.
    c.batch_execute("SELECT * FROM queens_block; SELECT * FROM queens_campaign")
        .unwrap();
    // Another host's entries, leases, the totals, events and disputes, the tables: refused.
    for sql in [
        "UPDATE queens_block SET entries = entries || '\\x00'::bytea WHERE n = 10",
        "UPDATE queens_block SET lease_until = now() + interval '1 day', holder = 'me' WHERE n = 10",
        "UPDATE queens_block SET lease = NULL, lease_until = NULL WHERE n = 10",
        "DELETE FROM queens_block WHERE n = 10",
        "INSERT INTO queens_block (n, block, first, len, solved, entries) VALUES (10, 99, 0, 0, 0, '')",
        "UPDATE queens_campaign SET solutions = '{1,1,1}' WHERE n = 10",
        "UPDATE queens_campaign SET solved = '{0,0,0}'",
        "DELETE FROM queens_campaign",
        "DELETE FROM queens_event",
        "TRUNCATE queens_event",
        "DELETE FROM queens_dispute",
        "INSERT INTO queens_event (n, host, event) VALUES (10, 'x', '{}')",
        "UPDATE queens_solver SET role = 'q_roles_h1'",
        "DELETE FROM queens_withdrawal",
        "UPDATE queens_meta SET value = '1'",
        "ALTER TABLE queens_block ADD COLUMN x integer",
        "ALTER TABLE queens_campaign DISABLE ROW LEVEL SECURITY",
        "DROP TABLE queens_event",
        "DROP TABLE queens_block CASCADE",
        "CREATE TABLE queens_x (a integer)",
        "CREATE FUNCTION queens_x() RETURNS integer LANGUAGE sql AS 'SELECT 1'",
        "CREATE OR REPLACE FUNCTION queens_whole(w bigint) RETURNS bigint LANGUAGE sql AS 'SELECT 0::bigint'",
        "DROP FUNCTION queens_commit(integer, text, double precision, bigint[], bigint[], bigint[], bytea[], bigint[], bigint[], text[])",
        "SELECT nextval('queens_lease')",
        "SELECT queens_owns(10, 0, 'x')",
        "SET ROLE q_roles_owner",
    ] {
        refused(&mut c, sql);
    }
    // Through the functions, what is another host's stays its own.
    let lease2: i64 = admin
        .query_one("SELECT lease FROM queens_block WHERE n = 10 AND block = 0", &[])
        .unwrap()
        .get(0);
    let freed: i64 = c
        .query_one(
            "SELECT queens_release(10, ARRAY(SELECT holder FROM queens_block WHERE n = 10))",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(freed, 0, "another host's lease is not released");
    // Host 2's board name gives host 1 a solver id of its own, never host 2's; host 2's
    // solver id is not host 1's to count under.
    let name2: String = admin
        .query_one(
            "SELECT link FROM queens_solver WHERE n = 10 AND id = $1",
            &[&(id2 as i32)],
        )
        .unwrap()
        .get(0);
    let same_name: i32 = c
        .query_one("SELECT queens_solver_id(10, $1)", &[&name2])
        .unwrap()
        .get(0);
    assert_ne!(same_name, id2 as i32);
    let w_as_2 = Solution::new(id2, 1).unwrap().word() as i64;
    refused(
        &mut c,
        &format!(
            "SELECT * FROM queens_commit(10, 'x', 60, '{{}}', '{{{}}}', '{{{w_as_2}}}', NULL, '{{}}', '{{}}', '{{}}')",
            got[4].index
        ),
    );
    refused(
        &mut c,
        &format!("SELECT * FROM queens_withdraw(10, 'x', {id2}, 'lies')"),
    );
    // With its own solver id: a result into host 2's leased block does not land, a correction
    // of host 2's count is not applied (a dispute is recorded), and its lease id, named as
    // its own, renews nothing.
    let id1: i32 = c
        .query_one("SELECT queens_solver_id(10, 'h1 sim:a')", &[])
        .unwrap()
        .get(0);
    let w1 = Solution::new(id1 as u16, 999).unwrap().word() as i64;
    let r = c
        .query_one(
            "SELECT o_kept, o_refused, o_disputed FROM queens_commit(10, 'x', 86400, $1, $2, $3, NULL, $4, $5, '{}')",
            &[
                &vec![lease2],
                &vec![got[4].index as i64],
                &vec![w1],
                &vec![got[0].index as i64, got[1].index as i64],
                &vec![w1, 0i64],
            ],
        )
        .unwrap();
    assert_eq!(r.get::<_, Vec<i64>>(0), Vec::<i64>::new(), "no lease renewed");
    assert_eq!(r.get::<_, i64>(1), 3, "nothing applied");
    assert_eq!(r.get::<_, i64>(2), 1, "the differing correction recorded");
    assert_eq!(totals(&mut admin, 10), before, "the totals did not move");
    let until: f64 = admin
        .query_one(
            "SELECT extract(epoch FROM lease_until - now())::float8 FROM queens_block WHERE n = 10 AND block = 0",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(until < 120.0, "host 2's lease is as host 2 left it: {until}");
    // Host 2 finishes; host 1 cannot have touched a count.
    let rest = h2.claim(100_000, Stamp::now()).unwrap();
    for cl in got[3..].iter().chain(&rest) {
        let count = queens_core::completions(&cl.sub.pre);
        h2.solve(cl.index, Solution::new(id2, count).unwrap(), None)
            .unwrap();
    }
    h2.sync().unwrap();
    assert!(h2.summary().complete());
    assert_eq!(h2.summary().solved.total(), Q[10]);
    assert_eq!(recount(&url, 10).solved.total(), Q[10]);
    // `queens run` as a host role works as ever, over TLS too (verified against the test CA),
    // on a campaign the administrator made.
    ok(&queens()
        .args([
            "db", "init", &url, "--hosts", hosts, "--owner", owner, "--n", "11",
        ])
        .output()
        .unwrap());
    let ca = std::env::var("QUEENS_TEST_POSTGRES_CA").expect("set with QUEENS_TEST_POSTGRES");
    let h1_url = format!(
        "{}?sslmode=verify-full",
        url.replacen("queens@", "q_roles_h1@", 1)
    );
    let r = ok(&queens()
        .args(["run", "11", "--json", "--campaign", &h1_url])
        .env("PGPASSWORD", pw)
        .env("PGSSLROOTCERT", &ca)
        .output()
        .unwrap());
    assert_eq!(r["total"].as_u64().unwrap() as u128, Q[11], "{r}");
    assert_eq!(recount(&url, 11).solved.total(), Q[11]);
    // A host role cannot make a campaign; it is told who can.
    let out = queens()
        .args([
            "run",
            "9",
            "--campaign",
            &url.replacen("queens@", "q_roles_h1@", 1),
        ])
        .env("PGPASSWORD", pw)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && e.contains("db init") && e.contains("--n 9"),
        "{e}"
    );
}

/// The tables as a version before roles made them.
const OLD_TABLES: &str = "
CREATE TABLE queens_campaign (n integer PRIMARY KEY, subproblems bigint NOT NULL,
    block_size integer NOT NULL, census bigint[] NOT NULL, solved bigint[] NOT NULL,
    solutions bigint[] NOT NULL, created timestamptz NOT NULL DEFAULT now());
CREATE TABLE queens_block (n integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    block integer NOT NULL, first bigint NOT NULL, len integer NOT NULL, solved integer NOT NULL,
    entries bytea NOT NULL, cycles bytea, lease bigint, holder text, lease_until timestamptz,
    PRIMARY KEY (n, block));
CREATE INDEX queens_block_open ON queens_block (n, block) WHERE solved < len;
CREATE SEQUENCE queens_lease;
CREATE TABLE queens_solver (n integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    id integer NOT NULL, link text NOT NULL, PRIMARY KEY (n, id), UNIQUE (n, link));
CREATE TABLE queens_event (n integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    t timestamptz NOT NULL DEFAULT now(), host text NOT NULL, event jsonb NOT NULL);
CREATE TABLE queens_dispute (n integer NOT NULL REFERENCES queens_campaign ON DELETE CASCADE,
    entry bigint NOT NULL, kept bigint NOT NULL, other bigint NOT NULL, host text NOT NULL,
    t timestamptz NOT NULL DEFAULT now());
";

/// An older version's campaign (half solved, its solver ids without roles) in `url`.
fn old_campaign(url: &str, n: u32, solved_up_to: u64) {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("old");
    ok(&queens()
        .args(["run", &n.to_string(), "--json", "--campaign"])
        .arg(&f)
        .output()
        .unwrap());
    let file = FileStore::open(&f, None, Access::Read).unwrap();
    let target = Target::parse(url).unwrap();
    let mut c = client(url);
    c.batch_execute(OLD_TABLES).unwrap();
    let mut entries = |i: u64| {
        let mut raw = file.raw_entry(i);
        if i >= solved_up_to {
            raw[8..].fill(0);
        }
        raw
    };
    pg::create(
        &mut c,
        &target,
        file.size(),
        Some(Import {
            entries: &mut entries,
            cycles: &mut |_| None,
            solvers: file.solvers(),
        }),
        false,
        &queens_host::store::Watch::default(),
    )
    .unwrap();
}

#[test]
fn an_older_versions_campaign_is_upgraded_and_finished() {
    // Unmanaged (everyone one role, as before): the next run upgrades it and finishes it.
    let url = database("q_upgrade_plain");
    old_campaign(&url, 10, 2000);
    let r = ok(&queens()
        .args(["run", "10", "--json", "--accept-unconfirmed", "--campaign", &url])
        .output()
        .unwrap());
    assert_eq!(r["total"].as_u64().unwrap() as u128, Q[10], "{r}");
    assert_eq!(r["solved_before"], 2000, "{r}");
    assert_eq!(recount(&url, 10).solved.total(), Q[10]);

    // Managed: the administrator upgrades it with db init; a host role finishes it.
    let url = database("q_upgrade_roles");
    old_campaign(&url, 11, 5000);
    let hosts = "q_upgrade_hosts";
    let j = ok(&queens()
        .args([
            "db",
            "init",
            &url,
            "--hosts",
            hosts,
            "--owner",
            "q_upgrade_owner",
            "--json",
        ])
        .output()
        .unwrap());
    assert_eq!(j["upgraded"], true, "{j}");
    let mut admin = client(&url);
    let pw = login(&mut admin, "q_upgrade_h1", hosts);
    let owner: String = admin
        .query_one(
            "SELECT tableowner FROM pg_tables WHERE tablename = 'queens_block'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(owner, "q_upgrade_owner");
    let r = ok(&queens()
        .args([
            "run",
            "11",
            "--json",
            // The host role's only login role: no other can confirm a count.
            "--accept-unconfirmed",
            "--campaign",
            &url.replacen("queens@", "q_upgrade_h1@", 1),
        ])
        .env("PGPASSWORD", pw)
        .output()
        .unwrap());
    assert_eq!(r["total"].as_u64().unwrap() as u128, Q[11], "{r}");
    assert_eq!(r["solved_before"], 5000, "{r}");
    let s = recount(&url, 11);
    assert!(s.complete());
    assert_eq!(s.solved.total(), Q[11]);
    // The older counts are nobody's to withdraw: their solver has no role.
    let mut h = client(&as_user(&url, "q_upgrade_h1", pw));
    refused(&mut h, "SELECT * FROM queens_withdraw(11, 'x', 1, 'lies')");
}

#[test]
fn a_database_from_before_numbered_migrations_is_adopted() {
    // As a build before numbered migrations left it: the tables of roles, its schema version
    // and the fingerprint of its functions in queens_meta, a function retired since, and no
    // record of migrations. The next run applies every migration from the first (written to
    // run again over what is there) and keeps the campaign it finds.
    let url = database("q_adopt");
    ok(&queens()
        .args(["run", "10", "--json", "--accept-unconfirmed", "--campaign", &url])
        .output()
        .unwrap());
    let mut c = client(&url);
    c.batch_execute(
        "DROP TABLE queens_migration;
         UPDATE queens_meta SET value = '2' WHERE key = 'schema';
         INSERT INTO queens_meta (key, value) VALUES ('functions', '0123456789abcdef');
         CREATE FUNCTION queens_rebuild(bytea, bigint[]) RETURNS bytea LANGUAGE sql AS 'SELECT $1';",
    )
    .unwrap();
    let r = ok(&queens()
        .args(["run", "11", "--json", "--accept-unconfirmed", "--campaign", &url])
        .output()
        .unwrap());
    assert_eq!(r["total"].as_u64().unwrap() as u128, Q[11], "{r}");
    let applied: Vec<i32> = c
        .query("SELECT version FROM queens_migration ORDER BY version", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(applied, (1..=pg::install::VERSION).collect::<Vec<_>>());
    let meta: Vec<(String, String)> = c
        .query("SELECT key, value FROM queens_meta ORDER BY key", &[])
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(meta, [("schema".into(), pg::install::VERSION.to_string())]);
    let retired: bool = c
        .query_one(
            "SELECT to_regprocedure('queens_rebuild(bytea, bigint[])') IS NOT NULL",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(!retired, "a function older builds left is dropped");
    assert_eq!(recount(&url, 10).solved.total(), Q[10]);
}

#[test]
fn a_remote_server_without_tls_is_warned_about() {
    // Nothing listens there; the warning comes before the attempt.
    let out = queens()
        .args(["db", "stats", "postgres://queens@db.invalid:1/x"])
        .env("PGCONNECT_TIMEOUT", "2")
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{e}");
    assert!(
        e.contains("sslmode=verify-full") && e.contains("db.invalid"),
        "{e}"
    );
    let url = database("q_warn");
    let out = queens()
        .args(["db", "stats", &format!("{url}?sslmode=disable")])
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("sslmode=verify-full"),
        "loopback needs no TLS"
    );
}
