//! Bad input as a new user gives it: each error names the problem in the user's terms and
//! the next step, panics nowhere, and leaves no file behind.

use crate::common::{fails_with, ok, queens};
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    queens().current_dir(dir).args(args).output().unwrap()
}

/// `script` under sh in a user and mount namespace of its own (`unshare -rm`), where it may
/// mount a small or read-only file system; `$QUEENS` is the binary.
pub fn in_namespace(script: &str) -> Output {
    let out = Command::new("unshare")
        .args(["-rm", "sh", "-euc", script])
        .env("QUEENS", env!("CARGO_BIN_EXE_queens"))
        .output()
        .expect("unshare (util-linux) runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.starts_with("unshare:"),
        "this test mounts a file system in a namespace of its own and could not: {err}"
    );
    out
}

#[test]
fn stats_of_a_missing_campaign_says_how_to_make_one() {
    let dir = tempfile::tempdir().unwrap();
    let o = run_in(dir.path(), &["db", "stats", "missing.campaign"]);
    fails_with(&o, &["missing.campaign: no such campaign file", "queens run N"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("os error"), "{err}");
    assert!(listing(dir.path()).is_empty(), "{:?}", listing(dir.path()));
}

#[test]
fn stats_of_a_file_that_is_no_campaign_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# not a campaign\n".repeat(571)).unwrap();
    let o = run_in(dir.path(), &["db", "stats", "README.md"]);
    fails_with(&o, &["README.md is not a campaign file", "queens run N"]);
    assert_eq!(listing(dir.path()), ["README.md"]);
}

#[test]
fn stats_keeps_the_campaigns_name_as_typed() {
    let dir = tempfile::tempdir().unwrap();
    ok(&run_in(dir.path(), &["run", "8"]));
    let out = ok(&run_in(dir.path(), &["db", "stats", "q8.campaign"]));
    assert!(out.starts_with("q8.campaign: campaign of N = 8"), "{out}");
}

#[test]
fn a_campaign_in_a_missing_folder_names_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let o = run_in(dir.path(), &["run", "8", "--campaign", "results/q8.campaign"]);
    fails_with(&o, &["results: no such folder", "mkdir -p results"]);
    assert!(listing(dir.path()).is_empty(), "{:?}", listing(dir.path()));
}

#[test]
fn a_campaign_on_a_read_only_disk_says_it_is_read_only() {
    let o = in_namespace(
        r#"d=$(mktemp -d); mount -t tmpfs -o ro,size=1m tmpfs "$d"
        "$QUEENS" run 8 --campaign "$d/q8.campaign" && exit 9
        ls -A "$d" | sed 's/^/LEFT /' >&2; exit 1"#,
    );
    fails_with(&o, &["is on a read-only file system", "q8.campaign"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("0 bytes free") && !err.contains("LEFT "), "{err}");
}

#[test]
fn a_campaign_in_a_folder_not_ours_names_the_folder_not_a_temporary_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    let campaign = locked.join("q8.campaign");
    // Root writes anywhere: run as nobody there, as a user without the permission is.
    let mut cmd = if nix_is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_queens"));
        c
    } else {
        queens()
    };
    let o = cmd
        .args(["run", "8", "--campaign"])
        .arg(&campaign)
        .current_dir("/")
        .output()
        .unwrap();
    fails_with(&o, &["may not write in that folder", "locked"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains(".partial"), "{err}");
    assert!(listing(&locked).is_empty(), "{:?}", listing(&locked));
}

fn nix_is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn a_missing_serial_port_is_named_before_any_campaign_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let o = run_in(dir.path(), &["run", "8", "--link", "serial:/dev/ttyUSB9"]);
    fails_with(&o, &["/dev/ttyUSB9: no such serial port", "ls /dev/ttyUSB*"]);
    assert!(listing(dir.path()).is_empty(), "{:?}", listing(dir.path()));
}

#[test]
fn a_refused_board_leaves_no_campaign_behind() {
    let dir = tempfile::tempdir().unwrap();
    // A port nothing listens on: one just given up.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let link = format!("tcp:127.0.0.1:{port}");
    let o = run_in(dir.path(), &["run", "8", "--link", &link]);
    fails_with(
        &o,
        &["refused, nothing listens there", "queens sim board --listen"],
    );
    assert!(listing(dir.path()).is_empty(), "{:?}", listing(dir.path()));
    // A campaign that was there before is kept.
    ok(&run_in(dir.path(), &["subproblems", "8", "--out", "q8.campaign"]));
    fails_with(&run_in(dir.path(), &["run", "8", "--link", &link]), &["refused"]);
    assert!(listing(dir.path()).contains(&"q8.campaign".to_string()));
}

#[test]
fn sim_board_listen_without_a_port_says_host_port() {
    let o = queens()
        .args(["sim", "board", "--n", "8", "--listen", "localhost"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    fails_with(&o, &["HOST:PORT", "127.0.0.1:7027"]);
}

#[test]
fn a_new_campaigns_first_line_says_it_is_new_and_logs_carry_no_colour() {
    let dir = tempfile::tempdir().unwrap();
    let o = queens()
        .current_dir(dir.path())
        .args(["run", "8"])
        .env("RUST_LOG", "info")
        .output()
        .unwrap();
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("opened the new campaign q8.campaign"), "{err}");
    assert!(!err.contains("trusted from its summary"), "{err}");
    // Logged at info (a log line was written) and piped: no escape codes.
    assert!(err.contains("INFO"), "{err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
}

#[test]
fn board_check_without_n_checks_the_n_the_board_says() {
    let mut board = Command::new(env!("CARGO_BIN_EXE_queens"))
        .args([
            "sim",
            "board",
            "--n",
            "10",
            "--solvers",
            "8",
            "--listen",
            "127.0.0.1:0",
        ])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(board.stdout.take().unwrap());
    let mut banner = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut banner).unwrap();
    let addr = banner.trim().rsplit_once("listening on ").unwrap().1.to_string();
    let o = queens()
        .args(["board", "check", &format!("tcp:{addr}"), "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["n"], 10, "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(v["passed"], true, "{v}");
    // The board's log of the check: readable, and its ignored frames not an alarm.
    let mut left = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut left).unwrap();
    let _ = board.kill();
    let _ = board.wait();
    assert!(left.contains("left: ") && left.contains("answered"), "{left}");
    assert!(!left.contains("BoardStats") && !left.contains('{'), "{left}");
}

#[test]
fn emit_for_the_ulx3s_without_the_ecp5_tools_says_what_to_do_and_works_with_solvers() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("bin");
    std::fs::create_dir(&empty).unwrap();
    let cache = dir.path().join("cache");
    let emit = |extra: &[&str]| {
        queens()
            .current_dir(dir.path())
            .args(["hdl", "emit", "--board", "ulx3s", "--out", "ulx3s-build"])
            .args(extra)
            .env("PATH", &empty)
            .env("QUEENS_FIT_CACHE", &cache)
            .output()
            .unwrap()
    };
    fails_with(&emit(&[]), &["open ECP5 tools", "--solvers"]);
    assert!(!dir.path().join("ulx3s-build").exists());
    ok(&emit(&["--solvers", "66"]));
    assert!(dir.path().join("ulx3s-build/build.sh").exists());
}
