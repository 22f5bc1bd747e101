//! Helpers the host's integration tests share: the `queens` binary, and what its output must
//! show. Each test file uses some of them.
#![allow(dead_code)]

pub mod pg;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};

/// The `queens` binary of this build.
pub fn queens() -> Command {
    Command::new(env!("CARGO_BIN_EXE_queens"))
}

/// Succeeded: its standard output.
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Succeeded: its standard output as JSON (null when it printed none).
pub fn ok_json(o: &Output) -> serde_json::Value {
    serde_json::from_str(&ok(o)).unwrap_or(serde_json::Value::Null)
}

/// Failed, without a panic, and said each of `words` on standard error.
pub fn fails_with(o: &Output, words: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success(),
        "succeeded: {}{err}",
        String::from_utf8_lossy(&o.stdout)
    );
    for w in words {
        assert!(err.contains(w), "{w:?} not in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

/// `queens` with `args` and then `campaign`, in the background and silent.
pub fn spawn_quiet(args: &[&str], campaign: &std::path::Path) -> Child {
    queens()
        .args(args)
        .arg(campaign)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// A `queens sim board` process, killed when dropped.
pub struct SimBoard {
    child: Child,
    /// `tcp:ADDR` or `serial:PATH`.
    pub link: String,
    pub units: usize,
}

impl SimBoard {
    pub fn start(args: &[&str]) -> SimBoard {
        SimBoard::spawn(args, Stdio::null(), "warn")
    }

    /// A board whose log says when a host connects: see [`SimBoard::wait_for_host`].
    pub fn logged(args: &[&str]) -> SimBoard {
        SimBoard::spawn(args, Stdio::piped(), "info")
    }

    fn spawn(args: &[&str], log: Stdio, level: &str) -> SimBoard {
        let mut child = queens()
            .args(["sim", "board"])
            .args(args)
            .env("RUST_LOG", level)
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .expect("board starts");
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let link = if let Some((_, a)) = line.trim().rsplit_once("listening on ") {
            format!("tcp:{a}")
        } else if let Some((_, p)) = line.trim().rsplit_once("serial port ") {
            format!("serial:{p}")
        } else {
            panic!("unexpected board banner {line:?}")
        };
        let units = args
            .iter()
            .position(|&a| a == "--solvers")
            .map_or(360, |i| args[i + 1].parse().unwrap());
        SimBoard { child, link, units }
    }

    pub fn tcp(n: u32, extra: &[&str]) -> SimBoard {
        let n = n.to_string();
        let mut a = vec!["--n", n.as_str(), "--listen", "127.0.0.1:0"];
        a.extend_from_slice(extra);
        SimBoard::start(&a)
    }

    /// Blocks until a host has connected to a [`SimBoard::logged`] board: a test that acts
    /// mid-run waits for the run, not for a guess at how long a loaded machine takes to start.
    pub fn wait_for_host(&mut self) {
        let log = self.child.stderr.as_mut().expect("a logged board");
        let mut line = String::new();
        for b in std::io::Read::bytes(log) {
            let b = b.expect("the board's log");
            if b != b'\n' {
                line.push(b as char);
            } else if line.contains("host connected") {
                return;
            } else {
                line.clear();
            }
        }
        panic!("the board ended before a host connected");
    }

    pub fn pty(n: u32) -> SimBoard {
        SimBoard::start(&["--n", &n.to_string(), "--solvers", "32", "--pty"])
    }
}

impl Drop for SimBoard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
