//! Cross-host agreement against the throwaway server of `./scripts/test.sh`: hosts of their
//! own roles recompute a share of each other's counts (all of a host's first block), and a
//! host whose board lies, with its own checks off (`--verify 0`), is outvoted, quarantined
//! campaign-wide and loses every count: the others finish Q(14) exact and `db stats` names it.

use queens_host::store::file::{Access, FileStore};
use queens_host::store::Store;
use std::process::{Child, Output, Stdio};

use crate::common;
use common::pg::{client, database};
use common::{ok_json as ok, queens};

const Q14: u128 = 365_596;

const PW: &str = "cross-pw-3";

/// A host process logged in as its own role.
fn host(url: &str, role: &str, extra: &[&str]) -> Child {
    queens()
        .args([
            "run",
            "14",
            "--json",
            "--link",
            "sim:16",
            // Long enough that a busy machine's slow commit does not lapse a lease: a
            // liar whose blocks were taken over would never be counted, nor outvoted.
            "--lease",
            "20",
            "--campaign",
        ])
        .arg(url.replacen("queens@", &format!("{role}@"), 1))
        .args(extra)
        .env("PGPASSWORD", PW)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Three honest hosts and one whose board lies as `faults` says, its own checks off.
fn liar_among_three(db: &str, faults: &str) {
    let url = database(db);
    let group = format!("{db}_hosts");
    ok(&queens()
        .args([
            "db",
            "init",
            &url,
            "--hosts",
            &group,
            "--owner",
            &format!("{db}_owner"),
        ])
        .args(["--n", "14"])
        .output()
        .unwrap());
    let mut admin = client(&url);
    let roles: Vec<String> = (1..=4).map(|k| format!("{db}_h{k}")).collect();
    for r in &roles {
        admin
            .batch_execute(&format!(
                "DO $$ BEGIN CREATE ROLE {r}; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
                 ALTER ROLE {r} LOGIN PASSWORD '{PW}'; GRANT {group} TO {r};"
            ))
            .unwrap();
    }
    let liar = &roles[3];
    let mut hosts: Vec<Child> = roles[..3].iter().map(|r| host(&url, r, &[])).collect();
    hosts.push(host(&url, liar, &["--verify", "0", "--sim-faults", faults]));
    let outs: Vec<Output> = hosts.into_iter().map(|h| h.wait_with_output().unwrap()).collect();
    for (r, out) in roles[..3].iter().zip(&outs) {
        let j = ok(out);
        assert_eq!(j["total"].as_u64().unwrap() as u128, Q14, "{r}: {j}");
        assert_eq!(j["complete"], true, "{r}: {j}");
    }
    let log = String::from_utf8_lossy(&outs[3].stderr);
    assert!(
        !outs[3].status.success() && log.contains("quarantined"),
        "the liar was stopped ({}): {log}",
        outs[3].status
    );
    let st = ok(&queens().args(["db", "stats", "--json", &url]).output().unwrap());
    assert_eq!(st["complete"], true, "{st}");
    assert_eq!(st["total"].as_u64().unwrap() as u128, Q14, "{st}");
    let x = &st["cross_checked"];
    // Outvoted by the others, as a rule; now and then its own host catches the board first
    // (a subproblem sent twice, answered twice differently) and withdraws its counts itself.
    let mut admin2 = client(&url);
    let self_withdrawn: i64 = admin2
        .query_one(
            "SELECT count(*) FROM queens_withdrawal WHERE n = 14 AND role = $1 AND reason NOT LIKE 'role quarantined%'",
            &[liar],
        )
        .unwrap()
        .get(0);
    if self_withdrawn > 0 && x["quarantined"] == serde_json::json!([]) {
        eprintln!("{liar}'s own host caught its board before the others outvoted it");
        assert!(log.contains("earlier sessions withdrawn"), "{log}");
    } else {
        assert_eq!(x["quarantined"], serde_json::json!([liar]), "{st}");
    }
    let quarantined = x["quarantined"] == serde_json::json!([liar]);
    assert_eq!(x["pending"], 0, "every chosen count recomputed: {st}");
    assert!(
        x["agreed"].as_u64().unwrap() >= 3 * 4096,
        "three first blocks: {st}"
    );
    let standing = st["hosts"].as_array().unwrap();
    for h in standing {
        if h["role"] == liar.as_str() {
            if quarantined {
                assert!(h["quarantined"].as_str().unwrap().contains("outvoted"), "{h}");
            }
        } else {
            assert!(h["quarantined"].is_null(), "{h}");
            assert!(h["checks_agreed"].as_u64().unwrap() >= 4096, "{h}");
        }
    }
    let text =
        String::from_utf8_lossy(&queens().args(["db", "stats", &url]).output().unwrap().stdout).into_owned();
    assert!(
        text.contains(&format!("host {liar}")) && (text.contains("QUARANTINED") || !quarantined),
        "{text}"
    );
    // Recounted from the entries: exact, and not one count is the liar's.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("q14");
    ok(&queens().args(["db", "export", &url]).arg(&f).output().unwrap());
    let s = FileStore::open(&f, None, Access::Read).unwrap();
    assert_eq!(s.summary().solved.total(), Q14);
    let liar_ids: Vec<i32> = admin
        .query("SELECT id FROM queens_solver WHERE n = 14 AND role = $1", &[liar])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    for i in 0..s.len() {
        let sol = s.entry(i).unwrap().solution.unwrap();
        assert!(
            !liar_ids.contains(&(sol.solver as i32)),
            "entry {i} is the liar's"
        );
    }
    let events: i64 = admin
        .query_one(
            "SELECT count(*) FROM queens_event WHERE n = 14 AND event->>'event' = 'quarantined_role' AND event->>'role' = $1",
            &[liar],
        )
        .unwrap()
        .get(0);
    assert_eq!(events, quarantined as i64);
    // Everything one host gave, recomputed.
    let v = ok(&queens()
        .args(["db", "verify", "--json", "--host", &roles[0], &url])
        .output()
        .unwrap());
    assert!(v["checked"].as_u64().unwrap() > 0, "{v}");
    assert_eq!(v["disagreements"].as_array().unwrap().len(), 0, "{v}");
}

#[test]
fn a_host_whose_board_lies_one_in_fifty_is_outvoted_and_quarantined() {
    liar_among_three("q_cross_sometimes", "lie=0.02");
}

#[test]
fn a_host_whose_board_always_lies_is_outvoted_and_quarantined() {
    liar_among_three("q_cross_always", "lie=1");
}

/// `queens run` of host role `role` on N = 10 (one block: all of it is the first host's first
/// block, every count chosen), its text report.
fn run10_as(url: &str, role: &str) -> String {
    let out = queens()
        .args(["run", "10", "--link", "sim:4", "--campaign"])
        .arg(url.replacen("queens@", &format!("{role}@"), 1))
        .env("PGPASSWORD", PW)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `n` with its thousands separated by commas, as the reports print counts.
fn thousands(n: i64) -> String {
    queens_host::number::thousands(n.unsigned_abs() as u128)
}

#[test]
fn a_total_is_final_only_once_another_role_confirmed_its_chosen_counts() {
    let url = database("q_cross_final");
    ok(&queens()
        .args(["db", "init", &url, "--hosts", "q_cross_final_hosts"])
        .args(["--owner", "q_cross_final_owner", "--n", "10"])
        .output()
        .unwrap());
    let mut admin = client(&url);
    for r in ["q_cross_final_a", "q_cross_final_b"] {
        admin
            .batch_execute(&format!(
                "DO $$ BEGIN CREATE ROLE {r}; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
                 ALTER ROLE {r} LOGIN PASSWORD '{PW}'; GRANT q_cross_final_hosts TO {r};"
            ))
            .unwrap();
    }
    let subproblems: i64 = admin
        .query_one("SELECT subproblems FROM queens_campaign WHERE n = 10", &[])
        .unwrap()
        .get(0);
    assert!(subproblems <= 4096, "one block: {subproblems}");
    let subproblems = thousands(subproblems);
    // Alone, host a solves everything, but no other role has recomputed a count: the total
    // is not stated as final, and the report says how much waits.
    let a = run10_as(&url, "q_cross_final_a");
    assert!(
        a.contains(&format!(
            "Q(10) = 724 once {subproblems} counts chosen for another host's recomputation are confirmed"
        )),
        "{a}"
    );
    assert!(
        a.contains(&format!(
            "cross-checked: 0 of the campaign's {subproblems} counts recomputed and confirmed by a host of another role (0.00%), {subproblems} waiting"
        )),
        "{a}"
    );
    let st =
        String::from_utf8_lossy(&queens().args(["db", "stats", &url]).output().unwrap().stdout).into_owned();
    assert!(st.contains("Q(10) = 724 once"), "{st}");
    assert!(st.contains(&format!("cross-checked: 0 of {subproblems}")), "{st}");
    // Host b recomputes them all: now every count is confirmed and Q(10) is final.
    let b = run10_as(&url, "q_cross_final_b");
    assert!(b.contains("Q(10) = 724\n"), "{b}");
    assert!(
        b.contains(&format!(
            "cross-checked: {subproblems} of the campaign's {subproblems} counts recomputed and confirmed by a host of another role (100.00%), 0 waiting"
        )),
        "{b}"
    );
    let st =
        String::from_utf8_lossy(&queens().args(["db", "stats", &url]).output().unwrap().stdout).into_owned();
    assert!(st.contains("Q(10) = 724\n"), "{st}");
    assert!(
        st.contains(&format!("cross-checked: {subproblems} of {subproblems}")),
        "{st}"
    );
}

/// `queens run 10` on a simulated board, with `extra`, logged in as `url` says (a host role
/// of these tests with their password).
fn run10(url: &str, extra: &[&str]) -> Output {
    let mut c = queens();
    c.args(["run", "10", "--link", "sim:4", "--campaign", url])
        .args(extra)
        .env("RUST_BACKTRACE", "0");
    if !url.contains("//queens@") {
        c.env("PGPASSWORD", PW);
    }
    c.output().unwrap()
}

/// The status of `out` is that of a finished campaign no other role can confirm.
fn unconfirmed_status(out: &Output) -> String {
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(3), "{log}");
    assert!(
        log.contains("exit status 3: Q(10) = 724 can be confirmed by no host of another role")
            && log.contains("--accept-unconfirmed"),
        "{log}"
    );
    assert!(
        log.contains("give each its own login role (docs/sharing.md)"),
        "{log}"
    );
    log
}

#[test]
fn a_campaign_of_one_role_says_no_other_host_checks_it_and_ends_with_status_3() {
    // As docs/sharing.md once had it: no `db init`, every host one role (the test server's).
    let url = database("q_cross_one_role");
    let out = run10(&url, &[]);
    let log = unconfirmed_status(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    let subproblems: i64 = client(&url)
        .query_one("SELECT subproblems FROM queens_campaign WHERE n = 10", &[])
        .unwrap()
        .get(0);
    let total = format!(
        "Q(10) = 724, unconfirmed: no host of another role can recompute the {} counts chosen for a check\n",
        thousands(subproblems)
    );
    let why = "checked by no other host: every host of this campaign logs in as database role queens (its tables were made without `queens db init`)";
    assert!(text.contains(&total) && text.contains(why), "{text}");
    assert!(
        !text.contains(" once ") && !text.contains("waiting"),
        "no promise: {text}"
    );
    assert!(
        log.contains(why)
            && log.contains("  queens db init postgres://postgres@127.0.0.1:")
            && log.contains(" --hosts queens_hosts ")
            && log.contains("CREATE ROLE lab1 LOGIN PASSWORD '…' IN ROLE queens_hosts")
            && log.contains("  queens run 10 --campaign postgres://lab1@127.0.0.1:"),
        "{log}"
    );
    // `db stats` says the same, and the fix.
    let st =
        String::from_utf8_lossy(&queens().args(["db", "stats", &url]).output().unwrap().stdout).into_owned();
    assert!(st.contains(&total) && st.contains(why), "{st}");
    assert!(st.contains("  queens db init ") && !st.contains(" once "), "{st}");
    assert!(
        st.contains(&format!(
            "host queens: gave {}, checked by no host of another role",
            thousands(subproblems)
        )),
        "{st}"
    );
    let j = ok(&queens().args(["db", "stats", "--json", &url]).output().unwrap());
    let x = &j["cross_checked"];
    assert_eq!(x["one_role"], true, "{j}");
    assert_eq!(x["roles"], serde_json::json!(["queens"]), "{j}");
    assert_eq!(x["hosts_role"], serde_json::Value::Null, "{j}");
    assert_eq!(x["unconfirmable"], subproblems, "{j}");
    assert_eq!(x["pending"], subproblems, "{j}");
    // Finished on purpose: status 0, and the report still says it.
    let r = ok(&run10(&url, &["--json", "--accept-unconfirmed"]));
    assert_eq!(r["total"], 724, "{r}");
    assert_eq!(r["cross_checked"]["one_role"], true, "{r}");
    assert_eq!(r["cross_checked"]["unconfirmable"], subproblems, "{r}");

    // With `db init`, every workstation on the one login role of the host role: the same
    // status, and the fix is one more login role.
    let url = database("q_cross_one_login");
    let group = "q_cross_one_login_hosts";
    ok(&queens()
        .args(["db", "init", &url, "--hosts", group])
        .args(["--owner", "q_cross_one_login_owner", "--n", "10"])
        .output()
        .unwrap());
    let mut admin = client(&url);
    let r = "q_cross_one_login_h";
    admin
        .batch_execute(&format!(
            "DO $$ BEGIN CREATE ROLE {r}; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
             ALTER ROLE {r} LOGIN PASSWORD '{PW}'; GRANT {group} TO {r};"
        ))
        .unwrap();
    let out = run10(&url.replacen("queens@", &format!("{r}@"), 1), &["--json"]);
    let log = unconfirmed_status(&out);
    assert!(
        log.contains(&format!(
            "every host of this campaign logs in as database role {r}, and host role {group} has no other login role"
        )) && log.contains(&format!("IN ROLE {group}\""))
            && !log.contains("db init"),
        "{log}"
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let x = &j["cross_checked"];
    assert_eq!(x["one_role"], true, "{j}");
    assert_eq!(x["hosts_role"], group, "{j}");
    assert_eq!(x["unconfirmable"], subproblems, "{j}");
}
