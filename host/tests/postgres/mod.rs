//! The shared PostgreSQL campaign store against a real server: the one `./scripts/test.sh`
//! starts on loopback (QUEENS_TEST_POSTGRES names it, PGPASSWORD logs in, as a user's would).
//! Without that server these tests fail, saying why; the other test binaries still run.

mod connection;
mod contents;
mod sharing;

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
