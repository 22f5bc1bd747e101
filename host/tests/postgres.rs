//! The shared PostgreSQL campaign store against a real server: the one `./scripts/test.sh`
//! starts on loopback (QUEENS_TEST_POSTGRES names it, PGPASSWORD logs in, as a user's would).
//! Without that server these tests fail, saying why; the other test binaries still run.

use queens_core::entry::{Solution, Stamp};
use queens_core::BoardSize;
use queens_host::store::file::{Access, FileStore};
use queens_host::store::pg::PgStore;
use queens_host::store::pg_conn::Target;
use queens_host::store::Store;
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use common::pg::{client, database, server};
use common::{ok_json as ok, queens};

const Q: [u128; 15] = [
    1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2_680, 14_200, 73_712, 365_596,
];

fn err(out: &Output) -> String {
    assert!(
        !out.status.success(),
        "succeeded: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn host(n: u32, url: &str, link: &str, extra: &[&str]) -> Child {
    queens()
        .args(["run", &n.to_string(), "--json", "--campaign", url, "--link", link])
        // One role, the test server's: no host of another role confirms a count.
        .arg("--accept-unconfirmed")
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Solved entries of the campaign, as the database's totals say (0 before the hosts have
/// made the tables).
fn solved(c: &mut postgres::Client, n: i32) -> i64 {
    c.query_opt(
        "SELECT solved[1] + solved[2] + solved[3] FROM queens_campaign WHERE n = $1",
        &[&n],
    )
    .ok()
    .flatten()
    .map_or(0, |r| r.get(0))
}

/// The host process matching `who` has committed to the campaign.
fn committed(c: &mut postgres::Client, who: &str) -> bool {
    c.query_one(
        "SELECT EXISTS (SELECT 1 FROM queens_event WHERE host LIKE $1)",
        &[&who],
    )
    .is_ok_and(|r| r.get(0))
}

/// Waits (up to 30 s) until no other session of this database is running a statement: a
/// commit the server took before the cable went runs to its end.
fn settle(c: &mut postgres::Client) {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(30) {
        let busy: i64 = c
            .query_one(
                "SELECT count(*) FROM pg_stat_activity
                 WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active'",
                &[],
            )
            .unwrap()
            .get(0);
        if busy == 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("a statement of the host still runs 30 s after the cable was pulled");
}

/// Entries solved by each solver id in an exported campaign.
fn per_solver(file: &Path) -> std::collections::BTreeMap<u16, u64> {
    let s = FileStore::open(file, None, Access::Read).unwrap();
    let mut m = std::collections::BTreeMap::new();
    for i in 0..s.len() {
        if let Some(sol) = s.entry(i).unwrap().solution {
            *m.entry(sol.solver).or_default() += 1;
        }
    }
    m
}

#[test]
fn three_hosts_share_q14_and_a_killed_one_costs_only_time() {
    let url = database("q_three_hosts");
    let dir = tempfile::tempdir().unwrap();
    // Boards slow enough that the kill lands mid-run; leases short so its work returns soon.
    let extra = ["--sim-clock", "1MHz", "--lease", "2"];
    let mut hosts: Vec<Child> = ["sim:16", "sim:17", "sim:18"]
        .iter()
        .map(|l| host(14, &url, l, &extra))
        .collect();
    let mut c = client(&url);
    let t = Instant::now();
    // Killed once it has committed results (its first commit carries its session event)
    // and the campaign is well under way.
    let victim = format!("% pid {}.%", hosts[1].id());
    while solved(&mut c, 14) < 80_000 || !committed(&mut c, &victim) {
        // (A guard against a hang only: a busy machine takes minutes.)
        assert!(t.elapsed() < Duration::from_secs(400), "no progress");
        std::thread::sleep(Duration::from_millis(50));
    }
    hosts[1].kill().unwrap();
    hosts[1].wait().unwrap();
    let at_kill = solved(&mut c, 14);
    assert!(
        at_kill < 473_911,
        "the kill came after the end ({at_kill} solved)"
    );
    for (i, h) in hosts.into_iter().enumerate() {
        if i == 1 {
            continue;
        }
        let r = ok(&h.wait_with_output().unwrap());
        assert_eq!(r["total"].as_u64().unwrap() as u128, Q[14], "{r}");
        assert_eq!(r["complete"], true);
        assert_eq!(r["subproblems"], 473_911);
    }
    // The database's running totals against a recount of its entries: exported, every entry
    // checked against the canonical order and the solved ones summed again.
    let file = dir.path().join("q14");
    let out = queens().args(["db", "export", &url]).arg(&file).output().unwrap();
    ok(&out);
    let s = FileStore::open(&file, None, Access::Read).unwrap().summary();
    assert!(s.complete());
    assert_eq!(s.solved.total(), Q[14]);
    // Every host contributed, the killed one included (its solver id is 2).
    let by = per_solver(&file);
    assert_eq!(by.len(), 3, "{by:?}");
    assert_eq!(by.values().sum::<u64>(), 473_911);
    assert!(by.values().all(|&k| k > 0), "{by:?}");
    // The shared campaign read in place: verified against software, drawn.
    let v = ok(&queens()
        .args(["db", "verify", "--json", "--sample", "3000", &url])
        .output()
        .unwrap());
    assert_eq!(
        (
            v["checked"].as_u64(),
            v["disagreements"].as_array().map(|d| d.len())
        ),
        (Some(3000), Some(0)),
        "{v}"
    );
    let svg = dir.path().join("q14.svg");
    ok(&queens()
        .args(["db", "plot", &url, "--out"])
        .arg(&svg)
        .output()
        .unwrap());
    assert!(
        std::fs::read_to_string(&svg).unwrap().contains("cycles"),
        "cycle counts drawn"
    );
    let open: i64 = c
        .query_one(
            "SELECT count(*) FROM queens_block WHERE n = 14 AND (solved < len OR lease IS NOT NULL)",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(open, 0, "every block done and released");
    let st = ok(&queens().args(["db", "stats", "--json", &url]).output().unwrap());
    assert_eq!(st["complete"], true);
    assert_eq!(st["total"].as_u64().unwrap() as u128, Q[14]);
    assert_eq!(st["sessions"].as_array().unwrap().len(), 3, "{st}");
    assert_eq!(st["leases"].as_array().unwrap().len(), 0, "{st}");
    assert_eq!(st["disputes"].as_array().unwrap().len(), 0, "{st}");
    eprintln!("killed at {at_kill} of 473,911 solved; per solver {by:?}");
}

/// Two hosts, one entry: the first lease expires, the block goes to the second host, and
/// both return a count. It lands once; a differing count is a recorded dispute; a result of
/// the first host for an entry the second one now holds under its live lease does not land.
#[test]
fn an_expired_lease_result_is_checked_not_counted_twice() {
    let url = database("q_expired_lease");
    let target = Target::parse(&url).unwrap();
    let size = BoardSize::new(10).unwrap();
    let ttl = Duration::from_secs(1);
    let (mut a, created) = PgStore::open(&target, size, ttl).unwrap();
    assert!(created);
    let got_a = a.claim(4, Stamp::now()).unwrap();
    assert_eq!(got_a.len(), 4);
    // A second host finds nothing free while A's lease lives (N = 10 is one block)...
    let (mut b, created) = PgStore::open(&target, size, ttl).unwrap();
    assert!(!created);
    assert!(b.claim(4, Stamp::now()).unwrap().is_empty());
    assert!(b.more_later().unwrap());
    // ... and the same entries once it has expired (A stalled: no sync, no renewal).
    std::thread::sleep(Duration::from_millis(1500));
    let got_b = b.claim(4, Stamp::now()).unwrap();
    assert_eq!(got_a, got_b);
    let [x, y, z, w] = [0, 1, 2, 3].map(|k| got_a[k]);
    let count = |c: &queens_host::store::Claim| queens_core::completions(&c.sub.pre);
    let sol = |solver, v| Solution::new(solver, v).unwrap();
    // B solves x, y and z first; A's late results then meet them.
    let ia = a.solver_id("sim:a").unwrap();
    let ib = b.solver_id("sim:b").unwrap();
    for c in [x, y, z] {
        b.solve(c.index, sol(ib, count(&c)), None).unwrap();
    }
    b.sync().unwrap();
    a.solve(x.index, sol(ia, count(&x)), None).unwrap();
    a.solve(y.index, sol(ia, count(&y)), None).unwrap();
    a.solve(z.index, sol(ia, count(&z) + 1), None).unwrap();
    a.solve(w.index, sol(ia, count(&w)), None).unwrap();
    a.sync().unwrap();
    let checks = a.cross_checks();
    assert_eq!((checks.agreed, checks.disputed), (2, 1));
    let s = a.summary();
    assert_eq!(
        s.solved.subproblems(),
        3,
        "three entries, each counted once; w is B's now"
    );
    let expected: u64 = [x, y, z].iter().map(count).sum();
    assert_eq!(
        s.solved.solutions.iter().sum::<u64>(),
        expected,
        "the first count of z is kept"
    );
    let mut c = client(&url);
    let disputes: i64 = c
        .query_one(
            "SELECT count(*) FROM queens_dispute WHERE n = 10 AND entry = $1",
            &[&(z.index as i64)],
        )
        .unwrap()
        .get(0);
    assert_eq!(disputes, 1);
    let st = ok(&queens().args(["db", "stats", "--json", &url]).output().unwrap());
    let d = &st["disputes"][0];
    assert_eq!(
        (d["entry"].as_u64(), d["kept"].as_u64(), d["other"].as_u64()),
        (Some(z.index), Some(count(&z)), Some(count(&z) + 1)),
        "{st}"
    );
    assert_eq!(st["leases"].as_array().unwrap().len(), 1, "B's lease: {st}");
    // B's lease is still held and renewed; A's was taken over, so A has nothing more queued.
    assert!(a.claim(10_000, Stamp::now()).unwrap().is_empty());
}

#[test]
fn import_export_round_trip_and_a_campaign_finished_on_postgres() {
    let url = database("q_import_export");
    let dir = tempfile::tempdir().unwrap();
    // A solved file campaign goes in and comes out byte for byte, cycle counts too.
    let f11 = dir.path().join("q11");
    ok(&queens()
        .args(["run", "11", "--json", "--campaign"])
        .arg(&f11)
        .output()
        .unwrap());
    ok(&queens()
        .args(["db", "import"])
        .arg(&f11)
        .arg(&url)
        .output()
        .unwrap());
    let back = dir.path().join("q11.back");
    ok(&queens().args(["db", "export", &url]).arg(&back).output().unwrap());
    assert_eq!(std::fs::read(&f11).unwrap(), std::fs::read(&back).unwrap());
    assert_eq!(
        std::fs::read(dir.path().join("q11.cycles")).unwrap(),
        std::fs::read(dir.path().join("q11.back.cycles")).unwrap()
    );
    let e = err(&queens()
        .args(["db", "import"])
        .arg(&f11)
        .arg(&url)
        .output()
        .unwrap());
    assert!(
        e.contains("N = 11 has a campaign already") && e.contains("--force"),
        "{e}"
    );
    // A fresh Queens@TUD-style file, imported, solved by a host on the database, exported.
    let f12 = dir.path().join("q12");
    ok(&queens()
        .args(["subproblems", "12", "--out"])
        .arg(&f12)
        .output()
        .unwrap());
    ok(&queens()
        .args(["db", "import"])
        .arg(&f12)
        .arg(&url)
        .output()
        .unwrap());
    let r = ok(&queens()
        .args(["run", "12", "--json", "--accept-unconfirmed", "--campaign", &url])
        .output()
        .unwrap());
    assert_eq!(r["total"].as_u64().unwrap() as u128, Q[12], "{r}");
    let e = err(&queens().args(["db", "export", &url]).arg(&back).output().unwrap());
    assert!(e.contains("N = [11, 12]") && e.contains("--n"), "{e}");
    let done = dir.path().join("q12.done");
    ok(&queens()
        .args(["db", "export", &url, "--n", "12"])
        .arg(&done)
        .output()
        .unwrap());
    let v = ok(&queens()
        .args(["db", "verify", "--json", "--sample", "100000"])
        .arg(&done)
        .output()
        .unwrap());
    assert_eq!(v["disagreements"].as_array().map(|a| a.len()), Some(0), "{v}");
    assert!(v["checked"].as_u64().unwrap() > 50_000, "{v}");
}

#[test]
fn bad_urls_and_servers_are_named() {
    let url = database("q_errors");
    let (base, _) = url.rsplit_once('/').unwrap();
    // Nothing listens on port 1.
    let e = err(&queens()
        .args(["run", "10", "--campaign", "postgres://queens@127.0.0.1:1/x"])
        .output()
        .unwrap());
    assert!(
        e.contains("postgres://queens@127.0.0.1:1/x") && e.contains("connecting"),
        "{e}"
    );
    // A password in the URL works when right, is warned about, and never printed.
    let with_pw = base.replacen("queens@", "queens:wrong-pw@", 1) + "/q_errors";
    let e = err(&queens()
        .args(["run", "10", "--campaign", &with_pw])
        .env_remove("PGPASSWORD")
        .output()
        .unwrap());
    assert!(e.contains("password") && !e.contains("wrong-pw"), "{e}");
    let e = err(&queens()
        .args([
            "run",
            "10",
            "--campaign",
            "postgres://queens@127.0.0.1:notaport/x",
        ])
        .output()
        .unwrap());
    assert!(e.contains("campaign URL"), "{e}");
    let e = err(&queens()
        .args(["db", "export", &url, "/nonexistent/x"])
        .output()
        .unwrap());
    assert!(e.contains("holds no campaign"), "{e}");
    let e = err(&queens()
        .args(["run", "10", "--lease", "0", "--campaign", &url])
        .output()
        .unwrap());
    assert!(e.contains("--lease"), "{e}");
    // A campaign laid out in blocks of another size is refused, not misread.
    ok(&queens()
        .args(["run", "8", "--json", "--accept-unconfirmed", "--campaign", &url])
        .output()
        .unwrap());
    client(&url)
        .execute("UPDATE queens_campaign SET block_size = 1024 WHERE n = 8", &[])
        .unwrap();
    let e = err(&queens().args(["run", "8", "--campaign", &url]).output().unwrap());
    assert!(e.contains("blocks of 1024 entries"), "{e}");
}

/// A TCP relay between hosts and the database whose cable can be pulled: every connection
/// cut, new ones refused, until it is plugged in again.
struct Cable {
    port: u16,
    up: std::sync::Arc<std::sync::atomic::AtomicBool>,
    conns: std::sync::Arc<std::sync::Mutex<Vec<std::net::TcpStream>>>,
}

impl Cable {
    fn to(server: &str) -> Cable {
        use std::net::{TcpListener, TcpStream};
        use std::sync::atomic::Ordering;
        let target = Target::parse(server).unwrap();
        let port = *target.config.get_ports().first().unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let cable = Cable {
            port: listener.local_addr().unwrap().port(),
            up: Default::default(),
            conns: Default::default(),
        };
        cable.up.store(true, Ordering::SeqCst);
        let (up, conns) = (cable.up.clone(), cable.conns.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                if !up.load(Ordering::SeqCst) {
                    continue; // dropped: closed at once
                }
                let Ok(db) = TcpStream::connect(("127.0.0.1", port)) else {
                    continue;
                };
                let mut list = conns.lock().unwrap();
                list.push(client.try_clone().unwrap());
                list.push(db.try_clone().unwrap());
                for (mut from, mut to) in [
                    (client.try_clone().unwrap(), db.try_clone().unwrap()),
                    (db, client),
                ] {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(std::net::Shutdown::Both);
                    });
                }
            }
        });
        cable
    }

    fn pull(&self) {
        self.up.store(false, std::sync::atomic::Ordering::SeqCst);
        for c in self.conns.lock().unwrap().drain(..) {
            let _ = c.shutdown(std::net::Shutdown::Both);
        }
    }

    fn plug(&self) {
        self.up.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn a_pulled_database_cable_costs_only_time() {
    let url = database("q_pulled_cable");
    let cable = Cable::to(&url);
    let via = format!("postgres://queens@127.0.0.1:{}/q_pulled_cable", cable.port);
    let h = host(13, &via, "sim:16", &["--sim-clock", "1MHz"]);
    let mut c = client(&url);
    let t = Instant::now();
    while solved(&mut c, 13) < 20_000 {
        assert!(t.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Twice, the second time for longer than a sync: results wait, then land once.
    for pause in [1500, 3000] {
        cable.pull();
        // A commit the server had already taken when the cable went may still land.
        std::thread::sleep(Duration::from_millis(300));
        settle(&mut c);
        let at_pull = solved(&mut c, 13);
        std::thread::sleep(Duration::from_millis(pause));
        assert_eq!(
            solved(&mut c, 13),
            at_pull,
            "nothing reaches the database while unplugged"
        );
        cable.plug();
        std::thread::sleep(Duration::from_millis(700));
    }
    let out = h.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    let r = ok(&out);
    assert_eq!(r["total"].as_u64().unwrap() as u128, Q[13], "{r}\n{log}");
    assert_eq!(r["complete"], true);
    assert!(log.contains("results wait in memory"), "{log}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("q13");
    ok(&queens().args(["db", "export", &url]).arg(&file).output().unwrap());
    let s = FileStore::open(&file, None, Access::Read).unwrap().summary();
    assert!(s.complete());
    assert_eq!(s.solved.total(), Q[13], "recounted from the entries");
}

#[test]
fn a_campaign_over_the_servers_unix_socket() {
    database("q_socket");
    let dir = std::env::var("QUEENS_TEST_POSTGRES_DIR").expect("set with QUEENS_TEST_POSTGRES");
    let port = *Target::parse(&server())
        .unwrap()
        .config
        .get_ports()
        .first()
        .unwrap();
    let url = format!("postgres:///q_socket?host={dir}&port={port}&user=queens");
    let r = ok(&queens()
        .args(["run", "8", "--json", "--accept-unconfirmed", "--campaign", &url])
        .output()
        .unwrap());
    assert_eq!(r["total"].as_u64().unwrap() as u128, Q[8], "{r}");
}

#[test]
fn a_restarted_host_takes_back_the_blocks_of_the_one_killed() {
    let url = database("q_restart");
    // Leases that would hold the killed host's blocks for ten minutes.
    let extra = ["--sim-clock", "100kHz", "--lease", "600"];
    let mut first = host(13, &url, "sim:16", &extra);
    let mut c = client(&url);
    let who = format!("% pid {}.%", first.id());
    let t = Instant::now();
    while solved(&mut c, 13) < 20_000 || !committed(&mut c, &who) {
        assert!(t.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(20));
    }
    first.kill().unwrap();
    first.wait().unwrap();
    let held: i64 = c
        .query_one(
            "SELECT count(*) FROM queens_block WHERE n = 13 AND lease_until > now()",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(held > 0, "the killed host held blocks");
    let t = Instant::now();
    let r = ok(&host(13, &url, "sim:16", &extra[..2]).wait_with_output().unwrap());
    assert_eq!(r["total"].as_u64().unwrap() as u128, Q[13], "{r}");
    assert!(
        t.elapsed() < Duration::from_secs(300),
        "waited for the dead host's leases"
    );
}

#[test]
fn the_store_benchmark_measures_and_cleans_up() {
    let url = database("q_bench");
    let f = ok(&queens()
        .args([
            "db", "bench", &url, "--n", "12", "--hosts", "2", "--batch", "500", "--json",
        ])
        .output()
        .unwrap());
    assert_eq!(f["subproblems"], 51_484);
    assert_eq!(f["leases"], 13, "every block leased once: {f}");
    assert!(f["results_per_second"].as_f64().unwrap() > 0.0, "{f}");
    assert!(f["bytes_per_million_live"].as_f64().unwrap() > 1e6, "{f}");
    let mut c = client(&url);
    let left: i64 = c
        .query_one("SELECT count(*) FROM queens_campaign", &[])
        .unwrap()
        .get(0);
    assert_eq!(left, 0, "the scratch campaign is deleted");
    // A real campaign of that N is never touched.
    ok(&queens()
        .args(["run", "12", "--json", "--accept-unconfirmed", "--campaign", &url])
        .output()
        .unwrap());
    let e = err(&queens()
        .args(["db", "bench", &url, "--n", "12"])
        .output()
        .unwrap());
    assert!(e.contains("holds a campaign of N = 12"), "{e}");
}

/// A host stalled past its own lease takes the block back without handing out twice.
#[test]
fn a_lapsed_lease_of_ones_own_is_not_handed_out_twice() {
    let url = database("q_own_lapse");
    let target = Target::parse(&url).unwrap();
    let size = BoardSize::new(10).unwrap();
    let (mut a, _) = PgStore::open(&target, size, Duration::from_secs(1)).unwrap();
    let first = a.claim(4, Stamp::now()).unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let rest = a.claim(100_000, Stamp::now()).unwrap();
    assert_eq!(
        first.len() + rest.len(),
        3_739,
        "every entry of the one block, once"
    );
    let mut all: Vec<u64> = first.iter().chain(&rest).map(|c| c.index).collect();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 3_739);
}

#[test]
fn a_campaign_over_tls_verifies_the_server() {
    let url = database("q_tls");
    let ca = std::env::var("QUEENS_TEST_POSTGRES_CA").expect("set with QUEENS_TEST_POSTGRES");
    // The server's certificate checked against the test CA, given by variable or in the URL.
    let r = ok(&queens()
        .args([
            "run",
            "9",
            "--json",
            "--accept-unconfirmed",
            "--campaign",
            &format!("{url}?sslmode=verify-full"),
        ])
        .env("PGSSLROOTCERT", &ca)
        .output()
        .unwrap());
    assert_eq!(r["total"].as_u64().unwrap() as u128, Q[9], "{r}");
    let with_root = format!("{url}?sslmode=require&sslrootcert={ca}");
    ok(&queens().args(["db", "stats", &with_root]).output().unwrap());
    // Trusting another certificate than the CA (here the server's own, which the CA
    // signed): the handshake is refused, and said so.
    let leaf = ca.replace("ca.crt", "server.crt");
    let e = err(&queens()
        .args([
            "run",
            "9",
            "--campaign",
            &format!("{url}?sslmode=require&sslrootcert={leaf}"),
        ])
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap());
    assert!(e.contains("TLS handshake") && e.contains("UnknownIssuer"), "{e}");
}

/// A flipped bit in a block's entries that makes an unsolved entry read as solved: the block
/// no longer agrees with its row's count of solved entries, and every reader names it (the
/// run, which would otherwise wait for an entry it never hands out; verify; export) instead
/// of skipping or counting the entry.
#[test]
fn a_flipped_bit_in_a_shared_block_is_named() {
    let url = database("q_flipped");
    let dir = tempfile::tempdir().unwrap();
    // Half a campaign: a fresh one, with the first blocks' worth solved by a run.
    ok(&queens()
        .args(["run", "10", "--json", "--accept-unconfirmed", "--campaign", &url])
        .output()
        .unwrap());
    let mut c = client(&url);
    // Entry 5 of block 0 unsolved again (the row's count follows), then bit 55 of its
    // word 2 flipped: solver 8 (the campaign gave out only 1), count 0.
    c.execute(
        "UPDATE queens_block SET entries = overlay(entries placing '\\x0000000000000000'::bytea from 16 * 5 + 9),
                solved = solved - 1 WHERE n = 10 AND block = 0",
        &[],
    )
    .unwrap();
    c.execute(
        "UPDATE queens_campaign SET solved[1] = solved[1] - 1 WHERE n = 10",
        &[],
    )
    .unwrap();
    c.execute(
        "UPDATE queens_block SET entries = overlay(entries placing '\\x0080'::bytea from 16 * 5 + 9)
         WHERE n = 10 AND block = 0",
        &[],
    )
    .unwrap();
    let start = Instant::now();
    let e = err(&queens().args(["run", "10", "--campaign", &url]).output().unwrap());
    assert!(start.elapsed() < Duration::from_secs(60), "it did not wait");
    for w in ["block 0", "entry 5 names solver 8", "damaged"] {
        assert!(e.contains(w), "{w:?} not in {e}");
    }
    let e = err(&queens().args(["db", "verify", &url]).output().unwrap());
    assert!(
        e.contains("block 0") && e.contains("entry 5 names solver 8"),
        "{e}"
    );
    let file = dir.path().join("q10");
    let e = err(&queens().args(["db", "export", &url]).arg(&file).output().unwrap());
    assert!(e.contains("block 0") && e.contains("damaged"), "{e}");
    assert!(!file.exists(), "nothing exported");
}

/// A quarantined board's counts are withdrawn from a shared campaign: the totals lose them,
/// the block is open again, and solving them anew counts each once.
#[test]
fn withdrawn_counts_leave_the_shared_totals_and_reopen_their_block() {
    let url = database("q_withdraw");
    let target = Target::parse(&url).unwrap();
    let size = BoardSize::new(9).unwrap();
    let (mut s, _) = PgStore::open(&target, size, Duration::from_secs(60)).unwrap();
    let claims = s.claim(100_000, Stamp::now()).unwrap();
    let solver = s.solver_id("test").unwrap();
    // Every claimed subproblem solved with its true count, and committed.
    let solve_right = |s: &mut PgStore, claims: &[&queens_host::store::Claim]| {
        for c in claims {
            let right = queens_core::completions(&c.sub.pre);
            s.solve(c.index, Solution::new(solver, right).unwrap(), None)
                .unwrap();
        }
        s.sync().unwrap();
    };
    solve_right(&mut s, &claims.iter().collect::<Vec<_>>());
    assert!(s.summary().complete());
    assert_eq!(s.summary().solved.total(), Q[9]);
    assert!(!s.more_later().unwrap());
    // Ten counts withdrawn (one of them also wrongly corrected first).
    let gone: Vec<_> = claims
        .iter()
        .filter(|c| c.sub.sym.weight() == 8)
        .take(10)
        .collect();
    s.correct(gone[0].index, Solution::new(solver, 12345).unwrap())
        .unwrap();
    for c in &gone {
        s.retract(c.index).unwrap();
    }
    s.sync().unwrap();
    let sum = s.summary();
    assert_eq!(sum.pending(), 10);
    let lost: u128 = gone
        .iter()
        .map(|c| 8 * queens_core::completions(&c.sub.pre) as u128)
        .sum();
    assert_eq!(sum.solved.total(), Q[9] - lost);
    assert!(s.more_later().unwrap(), "the block is open again");
    solve_right(&mut s, &gone);
    assert!(s.summary().complete());
    assert_eq!(s.summary().solved.total(), Q[9]);
}
