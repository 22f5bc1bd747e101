//! `queens run` against a hostile board: a TCP server in this test speaking our frames and
//! misbehaving on purpose, beside the host's honest simulated board or alone. With an honest
//! board beside it the run must end with the exact Q(10), exit 0, within a minute; alone, a
//! lying board must never produce a wrong total with exit 0.

use queens_core::deframe::{Deframed, Deframer};
use queens_core::frame;
use queens_core::result::ResultRecord;
use queens_core::{completions, word, BoardSize};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common;

const N: u32 = 10;
const Q10: u64 = 724;

#[derive(Clone, Copy, Debug)]
enum Hostile {
    /// 8 KiB of random bytes on connecting, then nothing.
    Garbage,
    /// Honest answers, each after a burst of sentinel bytes.
    Bursts,
    /// Takes work and never answers.
    Silent,
    /// Half of its first result frame, then nothing.
    HalfFrame,
    /// Every count one too high, in well-formed frames (good CRC, digits that fit).
    LiesAlways,
    /// One count in ten too high.
    LiesSometimes,
    /// Its own work answered right, and wrong answers for every other subproblem of N
    /// (the other board's work among them).
    AnswersForOthers,
    /// The right count, then the same subproblem again with another.
    RightThenWrong,
    /// A wrong count, then the right one.
    WrongThenRight,
}

fn size() -> BoardSize {
    BoardSize::new(N).unwrap()
}

fn result_frame(wire: u64, count: u64) -> Vec<u8> {
    frame::encode(&ResultRecord::new(wire, count, Some(count + 100)).encode(size()))
}

fn right(wire: u64) -> u64 {
    completions(&word::decode_wire(size(), wire).unwrap())
}

/// Serves connections (the host reconnects after a drop) with the behaviour `h`.
fn serve(h: Hostile) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for s in listener.incoming() {
            let Ok(s) = s else { return };
            std::thread::spawn(move || {
                let _ = board(h, s);
            });
        }
    });
    format!("tcp:{addr}")
}

fn board(h: Hostile, mut s: TcpStream) -> std::io::Result<()> {
    let mut rng = fastrand::Rng::with_seed(5);
    let mut out = s.try_clone()?;
    if let Hostile::Garbage = h {
        let g: Vec<u8> = (0..8192).map(|_| rng.u8(..)).collect();
        out.write_all(&g)?;
    }
    let mut deframer = Deframer::new(word::wire_bytes(size()));
    let mut buf = [0u8; 4096];
    let mut k = 0u64;
    let mut others_sent = false;
    loop {
        let n = s.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        let mut words = Vec::new();
        deframer.push(&buf[..n], |d| {
            if let Deframed::Frame(p) = d {
                words.push(word::wire_from_bytes(&p));
            }
        });
        let mut reply = Vec::new();
        for w in words {
            k += 1;
            let r = right(w);
            match h {
                Hostile::Garbage | Hostile::Silent => {}
                Hostile::HalfFrame => {
                    if k == 1 {
                        let f = result_frame(w, r);
                        reply.extend_from_slice(&f[..f.len() / 2]);
                    }
                }
                Hostile::Bursts => {
                    reply.extend(std::iter::repeat_n(frame::SENTINEL, 300));
                    reply.extend(result_frame(w, r));
                }
                Hostile::LiesAlways => reply.extend(result_frame(w, r + 1)),
                Hostile::LiesSometimes => reply.extend(result_frame(w, if k % 10 == 3 { r + 2 } else { r })),
                Hostile::AnswersForOthers => {
                    reply.extend(result_frame(w, r));
                    if !others_sent {
                        others_sent = true;
                        for sp in queens_core::enumerate::canonical(size()) {
                            let o = word::encode_wire(&sp.pre).unwrap();
                            reply.extend(result_frame(o, right(o) + 3));
                        }
                    }
                }
                Hostile::RightThenWrong => {
                    reply.extend(result_frame(w, r));
                    reply.extend(result_frame(w, r + 1));
                }
                Hostile::WrongThenRight => {
                    reply.extend(result_frame(w, r + 1));
                    reply.extend(result_frame(w, r));
                }
            }
        }
        if !reply.is_empty() {
            out.write_all(&reply)?;
        }
    }
}

struct Ran {
    ok: bool,
    total: Option<u64>,
    complete: bool,
    seconds: f64,
    stderr: String,
}

fn run(links: &[String]) -> Ran {
    let dir = tempfile::tempdir().unwrap();
    let mut c = common::queens();
    c.args(["run", &N.to_string(), "--json", "--campaign"])
        .arg(dir.path().join("q10"));
    for l in links {
        c.args(["--link", l]);
    }
    let t = Instant::now();
    let mut child = c.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if t.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: Option<serde_json::Value> = serde_json::from_str(stdout.trim()).ok();
    Ran {
        ok: out.status.success(),
        total: v.as_ref().and_then(|v| v["total"].as_u64()),
        complete: v.as_ref().is_some_and(|v| v["complete"] == true),
        seconds: t.elapsed().as_secs_f64(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Beside an honest board: the exact total, exit 0, within a minute.
fn exact_beside_an_honest_board(h: Hostile) {
    let r = run(&["sim:32".into(), serve(h)]);
    assert!(r.ok, "{h:?}: {}", r.stderr);
    assert_eq!(r.total, Some(Q10), "{h:?}: {}", r.stderr);
    assert!(r.complete, "{h:?}");
    assert!(r.seconds < 60.0, "{h:?} took {:.1} s", r.seconds);
}

/// Alone: never a wrong total with exit 0.
fn never_wrong_alone(h: Hostile) {
    let r = run(&[serve(h)]);
    assert!(
        !(r.ok && r.total != Some(Q10)),
        "{h:?} alone made a wrong total {:?} with exit 0",
        r.total
    );
    assert!(
        !r.ok,
        "{h:?} alone: a lying board must not finish the run: {:?}",
        r.total
    );
    assert!(
        r.stderr.contains("quarantined") && r.stderr.contains("no link is left"),
        "{h:?}: {}",
        r.stderr
    );
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
}

#[test]
fn garbage_first_costs_only_its_link() {
    exact_beside_an_honest_board(Hostile::Garbage);
}

#[test]
fn sentinel_bursts_cost_only_frames() {
    exact_beside_an_honest_board(Hostile::Bursts);
}

#[test]
fn a_silent_board_gives_its_work_to_the_other() {
    exact_beside_an_honest_board(Hostile::Silent);
}

#[test]
fn half_a_frame_then_silence() {
    exact_beside_an_honest_board(Hostile::HalfFrame);
}

#[test]
fn a_board_that_always_lies_is_quarantined() {
    exact_beside_an_honest_board(Hostile::LiesAlways);
    never_wrong_alone(Hostile::LiesAlways);
}

#[test]
fn a_board_that_sometimes_lies_is_quarantined() {
    exact_beside_an_honest_board(Hostile::LiesSometimes);
    never_wrong_alone(Hostile::LiesSometimes);
}

#[test]
fn answers_for_the_other_boards_work_count_nothing() {
    exact_beside_an_honest_board(Hostile::AnswersForOthers);
}

#[test]
fn right_then_wrong_is_quarantined_not_a_livelock() {
    exact_beside_an_honest_board(Hostile::RightThenWrong);
    never_wrong_alone(Hostile::RightThenWrong);
}

#[test]
fn wrong_then_right_is_quarantined() {
    exact_beside_an_honest_board(Hostile::WrongThenRight);
    never_wrong_alone(Hostile::WrongThenRight);
}
