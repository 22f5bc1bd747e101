//! Hosts sharing a campaign: leases, and a host, lease or cable lost costs only time.

use super::*;

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
