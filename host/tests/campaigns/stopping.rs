//! A run or a creation stopped by a signal: its report, and nothing half written.

use super::*;

/// Ctrl-C ends a run with its report: what it solved, what was in flight, how to resume.
#[test]
fn ctrl_c_ends_a_run_with_its_report_and_the_resume_command() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    let host = queens()
        .args([
            "run",
            "12",
            "--solvers",
            "4",
            "--sim-clock",
            "20kHz",
            "--campaign",
        ])
        .arg(&c)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_progress(&c);
    signal(&host, libc::SIGINT);
    let o = host.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        out.contains("running total for N = 12") && out.contains("solved in this run"),
        "{out}"
    );
    assert!(
        err.contains("go out again; to resume: queens run 12 --solvers 4 --sim-clock 20kHz --campaign"),
        "{err}"
    );
}

/// Stopped while it creates the file: SIGTERM removes the partial file; one a SIGKILL
/// left is removed, and named, by the next start.
#[test]
fn a_creation_stopped_leaves_no_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("q20.campaign");
    let partials = || {
        names(dir.path())
            .into_iter()
            .filter(|n| n.ends_with(".partial"))
            .collect::<Vec<_>>()
    };
    let start = || {
        queens()
            .args(["run", "20", "--campaign"])
            .arg(&c)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let wait_partial = || {
        let t = Instant::now();
        while partials().is_empty() {
            assert!(t.elapsed() < Duration::from_secs(60), "no partial file");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let mut host = start();
    wait_partial();
    host.kill().unwrap();
    host.wait().unwrap();
    let left = partials();
    assert_eq!(left.len(), 1, "{left:?}");
    let host = start();
    // The leftover goes first; then the new creation is stopped.
    let t = Instant::now();
    while partials() == left {
        assert!(t.elapsed() < Duration::from_secs(60), "the leftover stayed");
        std::thread::sleep(Duration::from_millis(20));
    }
    wait_partial();
    signal(&host, libc::SIGTERM);
    let o = host.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("removed {}", dir.path().join(&left[0]).display())),
        "{err}"
    );
    assert!(err.contains("the partial file is removed"), "{err}");
    assert!(partials().is_empty() && !c.exists(), "{:?}", names(dir.path()));
}
