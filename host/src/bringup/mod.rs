//! A board on the bench, checked before a campaign is trusted to it: what it says it is, a
//! known-answer set checked count by count (and cycle by cycle where it reports cycles), the
//! units that answer and the clock they run at, its rate against the prediction, and for each
//! failure the likely cause and the next step.

mod known;
mod timing;

pub use known::{known_set, Known};
pub use timing::{infer, Inferred};

use crate::link::framing::{Framing, Incompatible};
use crate::link::Connection;
use crate::validate;
use queens_core::frame;
use queens_core::ident::{self, Ident};
use queens_core::{word, BoardSize};
use serde::Serialize;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Words our boards queue beyond their running units (the front end's word queue).
const WORD_QUEUE: usize = queens_hdl::front::WORD_QUEUE;

/// How the check runs.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    pub size: BoardSize,
    /// Units to fill when the board does not say (16).
    pub units_hint: usize,
    /// How long to wait for an identification answer.
    pub ident_wait: Duration,
    /// Silence after which an outstanding subproblem is sent again, then given up.
    pub quiet: Duration,
    /// Time to carry one result frame where the link is slow enough to matter (serial).
    pub frame_time: Option<Duration>,
    /// Result frames per second the link carries at most, where it is bounded (serial).
    pub link_rate: Option<f64>,
    /// The identity of the design the user built (its design.json), to compare the board's
    /// answer with.
    pub expected: Option<Ident>,
}

/// One check's failure: what, its likely cause, and what to do next.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    pub what: String,
    pub cause: String,
    pub next: String,
}

/// A subproblem whose answer differed.
#[derive(Debug, Clone, Serialize)]
pub struct Wrong {
    pub index: u64,
    pub preplacement: String,
    pub expected: u64,
    pub got: u64,
}

/// Everything the check found.
#[derive(Debug, Clone, Serialize)]
pub struct BoardReport {
    pub n: u32,
    /// What the board said it is (none: it does not answer identification).
    pub ident: Option<Ident>,
    /// Results carry cycle counters.
    pub with_cycles: Option<bool>,
    pub known_sent: usize,
    pub known_answered: usize,
    pub wrong_counts: Vec<Wrong>,
    pub wrong_cycles: Vec<Wrong>,
    pub bad_crc: u64,
    pub skipped_bytes: u64,
    pub resent: usize,
    pub unanswered: usize,
    /// Subproblems per second over the known-answer set.
    pub rate: f64,
    pub units: Option<usize>,
    /// "answered" (the board said), "inferred" (from its answers' timing), or "unknown".
    pub units_source: &'static str,
    pub clock_hz: Option<f64>,
    pub clock_source: &'static str,
    /// The rate the units and clock predict for the known-answer set, the link's, and which
    /// one limits.
    pub predicted_rate: Option<f64>,
    pub limit: Option<&'static str>,
    pub failures: Vec<Failure>,
    pub passed: bool,
    pub seconds: f64,
}

/// Bytes from the board, each chunk with when it arrived.
struct Incoming(Receiver<(Instant, Vec<u8>)>);

impl Incoming {
    fn spawn(mut reader: Box<dyn Read + Send>) -> Self {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 65536];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send((Instant::now(), buf[..n].to_vec())).is_err() {
                    break;
                }
            }
        });
        Incoming(rx)
    }

    fn next(&self, wait: Duration) -> Result<(Instant, Vec<u8>), RecvTimeoutError> {
        self.0.recv_timeout(wait)
    }
}

fn fail(what: impl Into<String>, cause: &str, next: &str) -> Failure {
    Failure {
        what: what.into(),
        cause: cause.into(),
        next: next.into(),
    }
}

/// The board's answer against the identity of the design the user built.
fn compare_identity(got: Option<Ident>, want: Ident) -> Option<Failure> {
    let Some(got) = got else {
        return Some(fail(
            format!(
                "the board does not identify itself; the design is {:08x}",
                want.design_hash
            ),
            "a bitstream built before identification, a Queens@TUD one, or no bitstream",
            "program the board with the bitstream built next to that design.json",
        ));
    };
    if got == want {
        return None;
    }
    let mut differ = Vec::new();
    let mut field = |name: &str, g: String, w: String| {
        if g != w {
            differ.push(format!("{name} {g} (built: {w})"));
        }
    };
    field("N", got.n.to_string(), want.n.to_string());
    field("units", got.units.to_string(), want.units.to_string());
    field(
        "clock",
        format!("{} Hz", got.clock_hz),
        format!("{} Hz", want.clock_hz),
    );
    field(
        "cycle counters",
        got.with_cycles.to_string(),
        want.with_cycles.to_string(),
    );
    field(
        "design",
        format!("{:08x}", got.design_hash),
        format!("{:08x}", want.design_hash),
    );
    Some(fail(
        format!("the board is another design: {}", differ.join(", ")),
        "another bitstream is loaded, or the design was built again with other settings since",
        "program the board with the bitstream built next to that design.json",
    ))
}

/// Checks the board on `conn`.
pub fn check(conn: Connection, o: &CheckOptions) -> BoardReport {
    let start = Instant::now();
    let Connection { reader, mut writer } = conn;
    let incoming = Incoming::spawn(reader);
    let size = o.size;
    let mut failures = Vec::new();

    // 1. Identification.
    let mut seen = Vec::new();
    // One request for each wire length: a board built for an N of another length answers
    // the one its receiver takes.
    let mut requests = ident::request(size);
    for n in [8, 16, 32] {
        let other = BoardSize::new(n).expect("in range");
        if word::wire_bytes(other) != word::wire_bytes(size) {
            requests.extend(ident::request(other));
        }
    }
    let ident = send(&mut writer, &requests).ok().and_then(|_| {
        let until = Instant::now() + o.ident_wait;
        while let Some(wait) = until.checked_duration_since(Instant::now()) {
            match incoming.next(wait) {
                Ok((_, b)) => seen.extend(b),
                Err(_) => break,
            }
            if let Some(id) = Ident::find(&seen) {
                return Some(id);
            }
        }
        None
    });
    if let Some(id) = ident.filter(|id| id.n != size.n()) {
        failures.push(fail(
            format!("the board says it was built for N = {}, not {}", id.n, size.n()),
            "a bitstream built for another N",
            &format!(
                "check it for its own N (--n {}), or rebuild it for N = {} (queens hdl emit --n {})",
                id.n,
                size.n(),
                size.n()
            ),
        ));
        return BoardReport::only(size, Some(id), failures, start);
    }
    if let Some(want) = o.expected {
        if let Some(f) = compare_identity(ident, want) {
            failures.push(f);
        }
    }
    let units_hint = ident.map_or(o.units_hint, |i| i.units as usize).max(1);

    // 2. The known-answer set; a subproblem is given up for lost only after the longest of
    // them could have run four times over (at the clock the board says, or 10 MHz).
    let set = known_set(size, units_hint);
    let dearest = *set.iter().max_by_key(|k| k.cycles).expect("a set of 16 at least");
    let clock_guess = ident.map_or(10e6, |i| i.clock_hz as f64).max(1e3);
    let quiet = o
        .quiet
        .max(Duration::from_secs_f64(4.0 * dearest.cycles as f64 / clock_guess));
    let mut framing = Framing::new(size);
    let mut known = KnownRun::new(size, &set);
    // Our boards hold their units and a queue; a board that does not say gets no more than
    // any board has room for.
    let window = ident.map_or(WORD_QUEUE / 2, |i| i.units as usize + WORD_QUEUE);
    let mut incompatible: Option<Incompatible> = None;
    let ka_start = Instant::now();
    let mut last_answer = ka_start;
    'run: while !known.done() {
        let frames = known.take_frames(window);
        if !frames.is_empty() && send(&mut writer, &frames).is_err() {
            failures.push(fail(
                "the link closed while sending",
                "the board or the cable went away",
                "check the cable and the board's power",
            ));
            break;
        }
        match incoming.next(Duration::from_millis(50)) {
            Ok((at, bytes)) => match framing.push(&bytes) {
                Ok(r) => {
                    known.bad_crc += r.bad_crc;
                    known.skipped += r.skipped;
                    for (payload, cycles) in r.frames {
                        if known.receive(&payload, cycles) {
                            last_answer = at;
                        }
                    }
                }
                Err(e) => {
                    incompatible = Some(e);
                    break 'run;
                }
            },
            Err(RecvTimeoutError::Timeout) => {
                if last_answer.elapsed() >= quiet {
                    if known.resend_all() == 0 {
                        break;
                    }
                    last_answer = Instant::now();
                }
            }
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    let ka_seconds = last_answer.duration_since(ka_start).as_secs_f64().max(1e-6);
    let with_cycles = framing.with_cycles();
    let answered = known.answered();
    if let Some(e) = &incompatible {
        let text = e.to_string();
        let (cause, next) = if text.contains("its frames are results for N =") {
            (
                "a bitstream built for another N",
                "rebuild for this N, or give the board's N with --n",
            )
        } else {
            (
                "the wrong baud rate or crossed wiring: the bytes are not frames",
                "give the board's baud rate (serial:PATH@BAUD) and check TX/RX and ground",
            )
        };
        failures.push(fail(text, cause, next));
    } else if answered == 0 && seen.is_empty() && known.skipped == 0 && known.bad_crc == 0 {
        failures.push(fail(
            "the board sent nothing",
            "no bitstream loaded, no power, TX and RX swapped, or a board built for another N that drops every frame",
            "program the board (see its README) and check the cable; give the N it was built for with --n",
        ));
    }
    if !known.wrong_counts.is_empty() {
        let first: Vec<String> = known
            .wrong_counts
            .iter()
            .take(5)
            .map(|w| format!("#{}", w.index))
            .collect();
        failures.push(fail(
            format!("{} of {answered} answers have wrong counts (first: {})", known.wrong_counts.len(), first.join(", ")),
            "the board computes wrong: a design that differs from this build, or a board out of spec (power, cooling, timing)",
            "simulate the design's netlist (queens sim check N --engine netlist --board B); if that passes, the board is at fault",
        ));
    }
    if !known.wrong_cycles.is_empty() {
        failures.push(fail(
            format!(
                "{} answers took other unit cycles than the cycle model",
                known.wrong_cycles.len()
            ),
            "the bitstream is of another version of the unit than this host",
            "rebuild the bitstream with this version of queens",
        ));
    }
    if known.unanswered() > 0 || known.bad_crc > 0 || known.resent > 0 {
        failures.push(fail(
            format!(
                "the link lost frames: {} unanswered, {} sent again, {} with bad CRC",
                known.unanswered(),
                known.resent,
                known.bad_crc
            ),
            "a link that drops or corrupts frames (cable, baud rate at the edge, a busy USB hub)",
            "use a shorter cable or a lower baud rate; `queens run` resends, but every loss costs time",
        ));
    }

    // 3. Units and clock: a burst of the dearest subproblem, in waves.
    let mut report_units = ident.map(|i| i.units as usize);
    let mut units_source = if ident.is_some() { "answered" } else { "unknown" };
    let mut clock = ident.map(|i| i.clock_hz as f64).filter(|&c| c > 0.0);
    let mut clock_source = if clock.is_some() { "answered" } else { "unknown" };
    if incompatible.is_none() && answered > 0 {
        let burst = (2 * units_hint + WORD_QUEUE).min(1024);
        let arrivals = probe(&mut writer, &incoming, size, &dearest, burst, quiet);
        match infer(&arrivals, dearest.cycles, o.frame_time) {
            Inferred::Waves { units, clock_hz, .. } => {
                if let Some(claimed) = ident.map(|i| i.units as usize) {
                    if units < claimed {
                        failures.push(fail(
                            format!("{units} units answer; the board says it has {claimed}"),
                            "fewer units than the design has: another bitstream, or units that hang",
                            "reprogram the board with the bitstream of this design; if it persists, simulate its netlist",
                        ));
                    }
                } else {
                    report_units = Some(units);
                    units_source = "inferred";
                }
                if let Some(built) = ident.map(|i| i.clock_hz as f64).filter(|&c| c > 0.0) {
                    if clock_hz < 0.95 * built {
                        failures.push(fail(
                            format!(
                                "the units run at {:.3} MHz; the design was built for {:.3} MHz",
                                clock_hz / 1e6,
                                built / 1e6
                            ),
                            "slower than built: the PLL is not locked to its reference, or another bitstream",
                            "check the reference clock and reprogram the board",
                        ));
                    }
                }
                let built = clock;
                clock = Some(clock_hz);
                clock_source = match built {
                    Some(b) if clock_hz >= 0.95 * b => "answered, confirmed",
                    _ => "inferred",
                };
            }
            Inferred::NoWaves { .. } if ident.is_none() => {
                units_source =
                    "unknown (the answers came as a stream: the link, not the units, sets their pace)";
                clock_source = "unknown";
            }
            Inferred::NoWaves { .. } => {}
        }
    }

    // 4. The rate against the prediction.
    let mean_cycles = set.iter().map(|k| k.cycles as f64).sum::<f64>() / set.len() as f64;
    let compute_rate = match (report_units, clock) {
        (Some(u), Some(c)) => Some(u as f64 * c / mean_cycles.max(1.0)),
        _ => None,
    };
    let (predicted_rate, limit) = match (compute_rate, o.link_rate) {
        (Some(c), Some(l)) if l < c => (Some(l), Some("link")),
        (Some(c), _) => (Some(c), Some("units and clock")),
        (None, Some(l)) => (Some(l), Some("link")),
        (None, None) => (None, None),
    };
    let passed = failures.is_empty();
    BoardReport {
        n: size.n(),
        ident,
        with_cycles,
        known_sent: set.len(),
        known_answered: answered,
        wrong_counts: known.wrong_counts,
        wrong_cycles: known.wrong_cycles,
        bad_crc: known.bad_crc,
        skipped_bytes: known.skipped,
        resent: known.resent,
        unanswered: set.len() - answered,
        rate: answered as f64 / ka_seconds,
        units: report_units,
        units_source,
        clock_hz: clock,
        clock_source,
        predicted_rate,
        limit,
        failures,
        passed,
        seconds: start.elapsed().as_secs_f64(),
    }
}

impl BoardReport {
    /// A report of a check that stopped after identification.
    fn only(size: BoardSize, ident: Option<Ident>, failures: Vec<Failure>, start: Instant) -> Self {
        BoardReport {
            n: size.n(),
            ident,
            with_cycles: ident.map(|i| i.with_cycles),
            known_sent: 0,
            known_answered: 0,
            wrong_counts: vec![],
            wrong_cycles: vec![],
            bad_crc: 0,
            skipped_bytes: 0,
            resent: 0,
            unanswered: 0,
            rate: 0.0,
            units: ident.map(|i| i.units as usize),
            units_source: "answered",
            clock_hz: ident.map(|i| i.clock_hz as f64),
            clock_source: "answered",
            predicted_rate: None,
            limit: None,
            passed: failures.is_empty(),
            failures,
            seconds: start.elapsed().as_secs_f64(),
        }
    }
}

fn send(w: &mut Box<dyn Write + Send>, bytes: &[u8]) -> std::io::Result<()> {
    w.write_all(bytes)?;
    w.flush()
}

/// How long the probe keeps the units busy: waves over a second or more time the clock to a
/// fraction of a percent however late the host sees each one.
const PROBE_SPAN: Duration = Duration::from_secs(1);
/// Copies the probe sends at most (a board that answers at once would take them all).
const MAX_PROBE_COPIES: usize = 20_000;

/// Sends `burst` copies of `k` at once, then one more for each answer until [`PROBE_SPAN`] has
/// passed (so the units never wait), and returns when each answer arrived, counted from the
/// end of the first sending, sorted. Copies the board has no room for are dropped by it.
fn probe(
    writer: &mut Box<dyn Write + Send>,
    incoming: &Incoming,
    size: BoardSize,
    k: &Known,
    burst: usize,
    quiet: Duration,
) -> Vec<Duration> {
    let wire = word::encode_wire(&k.sub.pre).expect("canonical pre-placements encode");
    let one = frame::encode(&word::wire_to_bytes(size, wire));
    let frames: Vec<u8> = one.iter().copied().cycle().take(one.len() * burst).collect();
    if send(writer, &frames).is_err() {
        return Vec::new();
    }
    let sent = Instant::now();
    let mut framing = Framing::new(size);
    let mut arrivals = Vec::new();
    let mut last = sent;
    let mut copies = burst;
    // Waves come one round of the units apart: wait for the next one as long as the longest
    // gap so far, twice over, and at least `quiet`; once no more copies go out, four times
    // the longest gap.
    loop {
        let gap = arrivals
            .windows(2)
            .map(|w: &[Duration]| w[1] - w[0])
            .max()
            .unwrap_or_default();
        let wait = if sent.elapsed() < PROBE_SPAN || arrivals.len() < 2 {
            quiet.max(2 * gap)
        } else {
            (4 * gap).max(Duration::from_millis(100))
        };
        let left = (last + wait).saturating_duration_since(Instant::now());
        match incoming.next(left) {
            Ok((at, bytes)) => {
                let Ok(r) = framing.push(&bytes) else { break };
                let mut more = 0;
                for (payload, cycles) in r.frames {
                    if validate::check(size, &payload, cycles).is_ok_and(|c| c.wire == wire) {
                        arrivals.push(at.duration_since(sent));
                        last = at;
                        more += 1;
                    }
                }
                if sent.elapsed() < PROBE_SPAN && copies < MAX_PROBE_COPIES {
                    let again: Vec<u8> = one.iter().copied().cycle().take(one.len() * more).collect();
                    copies += more;
                    if send(writer, &again).is_err() {
                        break;
                    }
                }
            }
            Err(_) => break,
        }
    }
    arrivals
}

/// The known-answer set in flight: what is outstanding, and what came back.
struct KnownRun<'a> {
    size: BoardSize,
    set: &'a [Known],
    next: usize,
    /// Wire word to position in the set.
    outstanding: HashMap<u64, usize>,
    /// Lost subproblems to send again, and whether each was.
    again: Vec<usize>,
    tried_again: Vec<bool>,
    answered: Vec<bool>,
    wrong_counts: Vec<Wrong>,
    wrong_cycles: Vec<Wrong>,
    bad_crc: u64,
    skipped: u64,
    resent: usize,
}

impl<'a> KnownRun<'a> {
    fn new(size: BoardSize, set: &'a [Known]) -> Self {
        Self {
            size,
            set,
            next: 0,
            outstanding: HashMap::new(),
            again: Vec::new(),
            tried_again: vec![false; set.len()],
            answered: vec![false; set.len()],
            wrong_counts: Vec::new(),
            wrong_cycles: Vec::new(),
            bad_crc: 0,
            skipped: 0,
            resent: 0,
        }
    }

    fn frame(&self, i: usize) -> (u64, Vec<u8>) {
        let wire = word::encode_wire(&self.set[i].sub.pre).expect("canonical pre-placements encode");
        (wire, frame::encode(&word::wire_to_bytes(self.size, wire)))
    }

    /// Frames of subproblems to send again, then of new ones, up to `window` outstanding.
    fn take_frames(&mut self, window: usize) -> Vec<u8> {
        let mut out = Vec::new();
        while self.outstanding.len() < window {
            let Some(i) = self.again.pop() else { break };
            let (wire, f) = self.frame(i);
            self.outstanding.insert(wire, i);
            out.extend(f);
        }
        while self.next < self.set.len() && self.outstanding.len() < window {
            let (wire, f) = self.frame(self.next);
            self.outstanding.insert(wire, self.next);
            out.extend(f);
            self.next += 1;
        }
        out
    }

    /// Puts every outstanding subproblem in line to be sent again, once: those sent again
    /// before are given up. How many go again.
    fn resend_all(&mut self) -> usize {
        let lost: Vec<usize> = self.outstanding.drain().map(|(_, i)| i).collect();
        for i in lost {
            if !self.tried_again[i] {
                self.tried_again[i] = true;
                self.again.push(i);
            }
        }
        self.resent += self.again.len();
        self.again.len()
    }

    /// A result payload; whether it answered an outstanding subproblem.
    fn receive(&mut self, payload: &[u8], with_cycles: bool) -> bool {
        let Ok(c) = validate::check(self.size, payload, with_cycles) else {
            return false;
        };
        let Some(i) = self.outstanding.remove(&c.wire) else {
            return false;
        };
        self.answered[i] = true;
        let k = &self.set[i];
        let wrong = |got| Wrong {
            index: k.index,
            preplacement: k.sub.pre.to_string(),
            expected: 0,
            got,
        };
        if c.count != k.solutions {
            self.wrong_counts.push(Wrong {
                expected: k.solutions,
                ..wrong(c.count)
            });
        }
        if let Some(cy) = c.cycles.filter(|&cy| cy != k.cycles) {
            self.wrong_cycles.push(Wrong {
                expected: k.cycles,
                ..wrong(cy)
            });
        }
        true
    }

    fn answered(&self) -> usize {
        self.answered.iter().filter(|a| **a).count()
    }

    fn unanswered(&self) -> usize {
        self.set.len() - self.answered()
    }

    fn done(&self) -> bool {
        self.next >= self.set.len() && self.outstanding.is_empty() && self.again.is_empty()
    }
}
