//! What is never overwritten: a campaign a run holds, a user's file, a device or a link.

use super::*;

/// `subproblems --out F --force` while a run holds F: refused, F untouched.
#[test]
fn force_does_not_replace_a_campaign_a_run_holds() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    // A run that takes a while: the simulated board at 10 kHz.
    let args = [
        "run",
        "12",
        "--json",
        "--solvers",
        "2",
        "--sim-clock",
        "10kHz",
        "--campaign",
    ];
    let mut host = spawn_quiet(&args, &c);
    // It holds the lock once its session is in the history.
    let history = dir.path().join("c.history");
    let t = Instant::now();
    while !std::fs::read_to_string(&history).is_ok_and(|h| h.contains("\"session\"")) {
        assert!(t.elapsed() < Duration::from_secs(20), "the run did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let ino = std::fs::metadata(&c).unwrap().ino();
    let o = queens()
        .args(["subproblems", "12", "--force", "--out"])
        .arg(&c)
        .output()
        .unwrap();
    fails_with(&o, &["in use by another queens process"]);
    assert_eq!(
        std::fs::metadata(&c).unwrap().ino(),
        ino,
        "the campaign was replaced"
    );
    assert!(std::fs::read_to_string(&history).unwrap().contains("\"session\""));
    host.kill().unwrap();
    host.wait().unwrap();
    // Once the run is gone, --force does replace it.
    ok(&queens()
        .args(["subproblems", "12", "--force", "--out"])
        .arg(&c)
        .output()
        .unwrap());
    assert_ne!(std::fs::metadata(&c).unwrap().ino(), ino);
}

/// The same with the lock held here, where the file does not change meanwhile: it is left
/// byte for byte as it was.
#[test]
fn force_leaves_a_locked_campaign_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    ok(&run(9, &c));
    let before = std::fs::read(&c).unwrap();
    let history = std::fs::read(dir.path().join("c.history")).unwrap();
    let f = std::fs::File::open(&c).unwrap();
    // SAFETY: flock on a descriptor this test owns, as a run takes it.
    assert_eq!(
        unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let o = queens()
        .args(["subproblems", "9", "--force", "--out"])
        .arg(&c)
        .output()
        .unwrap();
    fails_with(&o, &["in use", c.to_str().unwrap()]);
    assert_eq!(std::fs::read(&c).unwrap(), before);
    assert_eq!(std::fs::read(dir.path().join("c.history")).unwrap(), history);
    drop(f);
    // Without --force an existing campaign is never replaced.
    let o = queens()
        .args(["subproblems", "9", "--out"])
        .arg(&c)
        .output()
        .unwrap();
    fails_with(&o, &["exists", "--force"]);
    assert_eq!(std::fs::read(&c).unwrap(), before);
}

/// `db plot F --out F` (or onto another campaign, or a file beside F) is refused and leaves
/// the campaign byte for byte.
#[test]
fn a_plot_never_overwrites_a_campaign() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("c");
    let other = dir.path().join("other");
    ok(&run(9, &c));
    fresh(8, &other);
    let keep: Vec<(PathBuf, Vec<u8>)> = [c.clone(), dir.path().join("c.history"), other.clone()]
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    for (out, says) in [
        (&c, "c, of the campaign being drawn"),
        (
            &dir.path().join("c.history"),
            "c.history, of the campaign being drawn",
        ),
        (&other, "a campaign of N = 8"),
    ] {
        let o = queens()
            .args(["db", "plot"])
            .arg(&c)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        fails_with(&o, &["--out", says]);
    }
    for (p, b) in &keep {
        assert_eq!(&std::fs::read(p).unwrap(), b, "{} changed", p.display());
    }
    // A Verilog output never replaces a campaign either.
    let e = dir.path().join("e");
    std::fs::create_dir(&e).unwrap();
    std::fs::copy(&other, e.join("queens_core.v")).unwrap();
    let o = queens()
        .args(["hdl", "emit", "--n", "8", "--out"])
        .arg(&e)
        .output()
        .unwrap();
    fails_with(&o, &["queens_core.v", "is a campaign of N = 8"]);
    assert_eq!(std::fs::read(e.join("queens_core.v")).unwrap(), keep[2].1);
    // And a plot elsewhere is written.
    ok(&queens()
        .args(["db", "plot"])
        .arg(&c)
        .arg("--out")
        .arg(dir.path().join("c.svg"))
        .output()
        .unwrap());
    assert!(std::fs::read_to_string(dir.path().join("c.svg"))
        .unwrap()
        .contains("<svg"));
}

/// Files named like the temporary files of old (`F.partial`, `F` with its extension turned
/// into `.partial` or `.tmp`) are a user's: they survive, and no temporary file is left.
#[test]
fn temporary_files_never_take_a_users_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mine: Vec<(&str, &[u8])> = vec![
        ("q8.campaign.partial", b"mine 1"),
        ("q8.partial", b"mine 2"),
        ("q8.campaign.history.partial", b"mine 3"),
        ("queens_core.tmp", b"mine 4"),
        ("queens_top.tmp", b"mine 5"),
        ("design.tmp", b"mine 6"),
    ];
    for (n, b) in &mine {
        std::fs::write(d.join(n), b).unwrap();
    }
    let c = d.join("q8.campaign");
    fresh(8, &c);
    ok(&queens()
        .args(["subproblems", "8", "--force", "--out"])
        .arg(&c)
        .output()
        .unwrap());
    ok(&run(8, &c));
    ok(&queens()
        .args(["hdl", "emit", "--n", "8", "--out"])
        .arg(d)
        .output()
        .unwrap());
    ok(&queens()
        .args(["db", "plot"])
        .arg(&c)
        .arg("--out")
        .arg(d.join("q8.svg"))
        .output()
        .unwrap());
    for (n, b) in &mine {
        assert_eq!(&std::fs::read(d.join(n)).unwrap()[..], *b, "{n}");
    }
    let mut expect: Vec<String> = mine.iter().map(|m| m.0.to_string()).collect();
    expect.extend(
        [
            "q8.campaign",
            "q8.campaign.history",
            "q8.campaign.cycles",
            "q8.campaign.summary",
            "queens_core.v",
            "queens_top.v",
            "design.json",
            "q8.svg",
        ]
        .map(String::from),
    );
    expect.sort();
    assert_eq!(names(d), expect, "nothing else is left behind");
    // The campaign is made with the user's umask, not a temporary file's 0600.
    let mode = std::fs::metadata(&c).unwrap().mode() & 0o777;
    let umask = unsafe {
        // SAFETY: reading the umask by setting it and restoring it at once.
        let m = libc::umask(0o022);
        libc::umask(m);
        m
    };
    assert_eq!(mode, 0o666 & !umask as u32);
}

/// What is not a regular file is never renamed over: `--force` refuses a device or a pipe in
/// the campaign's place, and an output onto a pipe is written into it (onto a symbolic link,
/// into the file it names, the link kept).
#[test]
fn devices_pipes_and_links_are_written_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = d.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string and mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let o = queens()
        .args(["subproblems", "8", "--force", "--out"])
        .arg(&fifo)
        .output()
        .unwrap();
    fails_with(&o, &["fifo", "not a regular file"]);
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    let camp = d.join("c");
    fresh(8, &camp);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    ok(&queens()
        .args(["db", "plot"])
        .arg(&camp)
        .arg("--out")
        .arg(&fifo)
        .output()
        .unwrap());
    assert!(reader.join().unwrap().contains("<svg"));
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    let real = d.join("real.svg");
    std::fs::write(&real, "old").unwrap();
    std::os::unix::fs::symlink(&real, d.join("link.svg")).unwrap();
    ok(&queens()
        .args(["db", "plot"])
        .arg(&camp)
        .arg("--out")
        .arg(d.join("link.svg"))
        .output()
        .unwrap());
    assert!(std::fs::symlink_metadata(d.join("link.svg"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&real).unwrap().contains("<svg"));
}
