//! `queens serve`: the status page as a user sees it, in headless Chromium (Debian's
//! `chromium`, installed by ./scripts/test.sh), against `db stats --json`, on a campaign in
//! progress on three simulated boards, one of them stopped halfway.

use crate::common::{ok_json, queens, SimBoard};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The page at `url` as headless Chromium renders it: its DOM after loading.
pub fn dump_dom(url: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--dump-dom", url])
        .stdin(Stdio::null())
        .output()
        .expect("chromium runs (Debian package chromium; ./scripts/test.sh installs it)");
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        dom.contains("</html>"),
        "no page: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    dom
}

/// The text of the element with id `id`.
pub fn by_id<'a>(dom: &'a str, id: &str) -> &'a str {
    let at = dom
        .find(&format!("id=\"{id}\""))
        .unwrap_or_else(|| panic!("no #{id} in {dom}"));
    let rest = &dom[at..];
    let start = rest.find('>').unwrap() + 1;
    let end = rest[start..].find('<').unwrap();
    &rest[start..start + end]
}

/// The table row of the board with solver id `id`.
fn board_row(dom: &str, id: u64) -> &str {
    let at = dom
        .find(&format!("data-solver=\"{id}\""))
        .unwrap_or_else(|| panic!("no row of solver {id} in {dom}"));
    let start = dom[..at].rfind("<tr").unwrap();
    let end = at + dom[at..].find("</tr>").unwrap();
    &dom[start..end]
}

/// As the page prints counts.
pub fn thousands(v: u64) -> String {
    queens_host::number::thousands(v as u128)
}

/// GET over plain HTTP/1.0: the body.
fn get(addr: &str, path: &str) -> String {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut all = String::new();
    s.read_to_string(&mut all).unwrap();
    all.split_once("\r\n\r\n")
        .map_or(String::new(), |x| x.1.to_string())
}

/// A child process killed when dropped.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A `queens serve` process, killed when dropped (a failing test leaves none behind).
pub struct Serving {
    child: Child,
    pub addr: String,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `queens serve` on `campaign`, and the address it serves at.
pub fn serve(campaign: &Path, extra: &[&str]) -> Serving {
    let mut child = queens()
        .arg("serve")
        .arg(campaign)
        .args(["--listen", "127.0.0.1:0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .rsplit_once("http://")
        .and_then(|x| x.1.split('/').next())
        .map(str::to_string)
        .unwrap_or_else(|| panic!("banner {line:?}"));
    Serving { child, addr }
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: a plain kill(2) to a child of this test.
    unsafe { libc::kill(child.id() as i32, sig) };
}

#[test]
fn the_status_page_shows_a_campaign_in_progress_and_a_board_gone_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let campaign = dir.path().join("q13.campaign");
    let boards: Vec<SimBoard> = (0..3)
        .map(|_| SimBoard::tcp(13, &["--solvers", "4", "--clock", "1kHz"]))
        .collect();
    let host = KillOnDrop(
        queens()
            .args(["run", "13", "--json", "--campaign"])
            .arg(&campaign)
            .args(boards.iter().flat_map(|b| ["--link", b.link.as_str()]))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    while !campaign.exists() {
        std::thread::sleep(Duration::from_millis(100));
    }
    let server = serve(&campaign, &["--quiet", "12"]);
    let addr = server.addr.clone();
    let status = || -> serde_json::Value { serde_json::from_str(&get(&addr, "/status.json")).unwrap() };
    // Three boards working, in a progress sample (one every 10 s).
    let stopped_id = loop {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no sample of three boards: {}",
            status()
        );
        let s = status();
        let rows = s["boards"].as_array().cloned().unwrap_or_default();
        if rows.iter().filter(|b| b["solved"].as_u64() > Some(0)).count() == 3 {
            let third = rows.iter().find(|b| b["link"] == boards[2].link.as_str());
            break third.expect("the third board's row")["solver"].as_u64().unwrap();
        }
        std::thread::sleep(Duration::from_millis(500));
    };
    // When the campaign should end, as a time.
    let end = |s: &serde_json::Value| Some(s["at"].as_f64()? + s["eta"]["seconds"].as_f64()?);
    let end_before = end(&status());
    // The third board stops halfway through; the page names it quiet within a minute.
    let [a, b, c]: [SimBoard; 3] = boards.try_into().ok().unwrap();
    drop(c);
    let cut = Instant::now();
    let s = loop {
        assert!(
            cut.elapsed() < Duration::from_secs(60),
            "not quiet within a minute: {}",
            status()
        );
        let s = status();
        let quiet: Vec<u64> = s["boards"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["quiet"] == true)
            .map(|b| b["solver"].as_u64().unwrap())
            .collect();
        if quiet == [stopped_id] {
            break s;
        }
        assert!(quiet.is_empty(), "only the stopped board goes quiet: {s}");
        std::thread::sleep(Duration::from_millis(500));
    };
    assert_eq!(s["running"], true, "{s}");
    // The expected end moved later: two boards of three.
    let (before, after) = (end_before.unwrap(), end(&s).unwrap());
    assert!(
        after > before,
        "expected end at {before} before, at {after} after"
    );
    // The campaign held still while the page and db stats are read: the host paused.
    signal(&host.0, libc::SIGSTOP);
    let stats = ok_json(
        &queens()
            .args(["db", "stats", "--json"])
            .arg(&campaign)
            .output()
            .unwrap(),
    );
    let dom = dump_dom(&format!("http://{addr}/"));
    signal(&host.0, libc::SIGCONT);
    drop((host, a, b, server));
    let solved = stats["solved"].as_u64().unwrap();
    assert!(
        solved > 0 && solved < stats["subproblems"].as_u64().unwrap(),
        "{stats}"
    );
    assert_eq!(by_id(&dom, "solved"), thousands(solved));
    assert_eq!(
        by_id(&dom, "subproblems"),
        thousands(stats["subproblems"].as_u64().unwrap())
    );
    assert_eq!(
        by_id(&dom, "pending"),
        thousands(stats["pending"].as_u64().unwrap())
    );
    let total: u64 = stats["total"].as_u64().unwrap();
    assert_eq!(by_id(&dom, "total"), thousands(total));
    assert!(
        by_id(&dom, "eta").contains("the end is expected in") || dom.contains("the end is expected in"),
        "{dom}"
    );
    let row = board_row(&dom, stopped_id);
    assert!(
        row.contains("class=\"quiet\"") && row.contains("quiet: nothing for over"),
        "{row}"
    );
    for b in s["boards"].as_array().unwrap() {
        let id = b["solver"].as_u64().unwrap();
        if id != stopped_id {
            assert!(
                !board_row(&dom, id).contains("class=\"quiet\""),
                "{}",
                board_row(&dom, id)
            );
        }
    }
    // Its plots, drawn on the server, are in the page.
    assert!(dom.matches("<polyline").count() >= 4, "{dom}");
}

#[test]
fn the_status_page_beyond_this_machine_needs_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let campaign = dir.path().join("q8.campaign");
    ok_json(
        &queens()
            .args(["run", "8", "--json", "--campaign"])
            .arg(&campaign)
            .output()
            .unwrap(),
    );
    let o = queens()
        .arg("serve")
        .arg(&campaign)
        .args(["--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    crate::common::fails_with(&o, &["needs a token", "--token"]);
    let server = serve(&campaign, &["--token", "s3cret"]);
    assert!(get(&server.addr, "/").contains("a token is needed"));
    let page = get(&server.addr, "/?token=s3cret");
    assert!(page.contains("every subproblem solved"), "{page}");
    // Every route asks for it, the JSON too.
    assert!(get(&server.addr, "/status.json").contains("a token is needed"));
    let json = get(&server.addr, "/status.json?token=s3cret");
    assert!(
        !json.contains("a token is needed") && json.contains('{'),
        "{json}"
    );
}
