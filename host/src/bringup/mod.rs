//! A board on the bench, checked before a campaign is trusted to it, in named steps:
//!
//! 1. `identify`: what the board says it is (our boards answer; Queens@TUD's cannot);
//! 2. `answers`: a known-answer set checked count by count, and cycle by cycle against the
//!    model of the unit the board says it is (one that says nothing has its cycle counts
//!    compared with both unit models, as information: which unit it runs);
//! 3. `probe`: bursts of copies of two subproblems, every frame counted;
//! 4. `speed`: units and clock where the probes show them, the bound that set the answers'
//!    pace (units, link, host), and the rate the board should reach.
//!
//! Each failure is a [`Verdict`] with the likely cause and next step that fit it; the report
//! accounts for every frame sent. Before a long check (large N), `forecast` says how long.

mod answers;
mod forecast;
mod identify;
mod known;
mod probe;
mod speed;
mod timing;
mod verdict;

pub use answers::{UnitEvidence, Wrong};
pub use identify::IdentFrames;
pub use known::{known_set, Known};
pub use probe::Probe;
pub use speed::Bound;
pub use timing::{infer, Inferred};
pub use verdict::{Failure, Verdict};

use crate::link::Connection;
use queens_core::ident::Ident;
use queens_core::BoardSize;
use queens_core::UnitKind;
use serde::Serialize;
use std::io::{Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Words our boards queue beyond their running units (the front end's word queue).
const WORD_QUEUE: usize = queens_hdl::front::WORD_QUEUE;
/// How long the first probe keeps the units busy: waves over a second or more time the
/// clock to a fraction of a percent however late the host sees each one.
const PROBE_SPAN: Duration = Duration::from_secs(1);
/// The second probe only needs its pace.
const SECOND_PROBE_SPAN: Duration = Duration::from_millis(500);
/// Probe pairs at most, where their pace is too uneven to judge.
const PROBE_TRIES: usize = 3;

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
    /// No N was asked for: the board is checked for the N it identifies itself with (`size`
    /// only when it says none).
    pub board_n: bool,
}

impl CheckOptions {
    /// The same options for a board of `size`: a serial link's frame time and frame rate
    /// scaled to that N's frames.
    fn for_size(&self, size: BoardSize) -> CheckOptions {
        use queens_core::{result::ResultRecord, word};
        let result = |s| (ResultRecord::payload_len(s, true) + 2) as f64;
        let longest = |s| result(s).max((word::wire_bytes(s) + 2) as f64);
        let (was, now) = (self.size, size);
        CheckOptions {
            size,
            frame_time: self.frame_time.map(|t| t.mul_f64(result(now) / result(was))),
            link_rate: self.link_rate.map(|r| r * longest(was) / longest(now)),
            ..self.clone()
        }
    }
}

/// Frames of one step of the check: every frame sent is answered or lost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Frames {
    pub sent: u64,
    pub answered: u64,
    pub lost: u64,
    /// Of `sent`, frames of subproblems sent again after a silence.
    pub resent: u64,
}

/// Every frame of the check: sent, answered, lost, sent again, by step.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct FrameAccount {
    pub identification: IdentFrames,
    pub known_answers: Frames,
    pub probes: Frames,
    /// Frames that came back with a bad CRC, and bytes outside frames (all steps).
    pub bad_crc: u64,
    pub skipped_bytes: u64,
}

/// Everything the check found.
#[derive(Debug, Clone, Serialize)]
pub struct BoardReport {
    pub n: u32,
    /// What the board said it is (none: it does not answer identification).
    pub ident: Option<Ident>,
    /// Which unit it runs, and what says so.
    pub unit: Option<UnitEvidence>,
    /// Results carry cycle counters.
    pub with_cycles: Option<bool>,
    pub known_sent: usize,
    pub known_answered: usize,
    pub wrong_counts: Vec<Wrong>,
    /// Cycle counts that differ from the model of the unit the board says it is.
    pub wrong_cycles: Vec<Wrong>,
    pub bad_crc: u64,
    pub skipped_bytes: u64,
    pub resent: usize,
    pub unanswered: usize,
    pub frames: FrameAccount,
    /// Subproblems per second over the known-answer set.
    pub rate: f64,
    pub units: Option<usize>,
    /// "answered" (the board said), "inferred" (from its answers' timing), or "unknown: why".
    pub units_source: String,
    pub clock_hz: Option<f64>,
    /// "answered", "answered, confirmed" (measured within 5%), "measured; ...", "inferred",
    /// or "... (not measurable through this link: ...)".
    pub clock_source: String,
    /// Units × clock in cycles a second, where the units bound a probe; a lower bound of it
    /// where the link or the host did.
    pub cycles_per_second: Option<f64>,
    pub cycles_per_second_at_least: Option<f64>,
    /// What bound the probes' answers: units, link, or link_or_host.
    pub bound: Option<Bound>,
    pub probes: Vec<Probe>,
    /// The rate the units, clock and link predict for the known-answer set, and which limits.
    pub predicted_rate: Option<f64>,
    pub limit: Option<&'static str>,
    pub failures: Vec<Failure>,
    pub passed: bool,
    pub seconds: f64,
}

/// The board's side of the link the check writes to.
pub(crate) type Writer = Box<dyn Write + Send>;

/// Bytes from the board, each chunk with when it arrived.
pub(crate) struct Incoming(Receiver<(Instant, Vec<u8>)>);

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

fn send(w: &mut Writer, bytes: &[u8]) -> std::io::Result<()> {
    w.write_all(bytes)?;
    w.flush()
}

/// Checks the board on `conn`.
pub fn check(conn: Connection, o: &CheckOptions) -> BoardReport {
    check_saying(conn, o, &mut |_| {})
}

/// Checks the board on `conn`, telling `say` what a user waiting for it should know (how
/// long it will take, where that is long).
pub fn check_saying(conn: Connection, o: &CheckOptions, say: &mut dyn FnMut(String)) -> BoardReport {
    let start = Instant::now();
    let Connection { reader, mut writer } = conn;
    let incoming = Incoming::spawn(reader);
    let mut verdicts = Vec::new();

    let id = identify::identify(&mut writer, &incoming, o.size, o.ident_wait);
    let ident = id.ident;
    let size = match ident.map(|i| BoardSize::new(i.n)) {
        Some(Ok(said)) if o.board_n => said,
        _ => o.size,
    };
    if o.board_n && ident.is_some() {
        say(format!(
            "the board says it is built for N = {}: checking it for that N",
            size.n()
        ));
    }
    let o = &o.for_size(size);
    let mut report = BoardReport::new(size, ident, id.frames);
    if let Some(v) = identify::other_n(ident, size) {
        return report.finish(vec![v], start);
    }
    if let Some(want) = o.expected {
        verdicts.extend(identify::compare(ident, want));
    }
    let units_hint = ident.map_or(o.units_hint, |i| i.units as usize).max(1);

    let picked = known::candidates(size);
    let set_len = picked.len().min((2 * units_hint).clamp(16, 512));
    if let Some(text) = forecast::say(size, &picked, set_len, ident, units_hint) {
        say(text);
    }
    let set = known::choose(&picked, units_hint);
    // A board of grouped units walks each subproblem in its group: a request costs the walk.
    let set = match ident.map_or(UnitKind::Plain, |i| i.unit) {
        UnitKind::Grouped => known::in_groups(&set),
        UnitKind::Plain => set,
    };
    let cost = |k: &Known| k.group.map_or(k.cycles, |g| g.walk);
    // The requests the set makes (one per group on a board of grouped units) and the cycles
    // they cost in all.
    let mut walks = std::collections::HashMap::new();
    for k in &set {
        walks.insert(k.group.map_or(k.index, |g| g.word), cost(k));
    }
    let (requests, work) = (walks.len(), walks.values().sum::<u64>());
    // A subproblem is given up for lost only after the longest of them could have run four
    // times over (at the clock the board says, or 10 MHz).
    let dearest = *set.iter().max_by_key(|k| cost(k)).expect("a set of 16 at least");
    let clock_guess = ident.map_or(10e6, |i| i.clock_hz as f64).max(1e3);
    let quiet = o
        .quiet
        .max(Duration::from_secs_f64(4.0 * cost(&dearest) as f64 / clock_guess));
    // Our boards hold their units and a queue; a board that does not say gets no more than
    // any board has room for.
    let room = ident.map(|i| queens_hdl::front::holds(i.units as usize));
    let window = room.unwrap_or(WORD_QUEUE / 2);
    let answers = answers::run(&mut writer, &incoming, size, &set, window, quiet, ident.is_some());
    verdicts.extend(answers.verdicts(!id.seen.is_empty()));
    report.take_answers(&answers);
    let mut probe_losses = Frames::default();

    if answers.incompatible.is_none() && answers.answered > 0 && !answers.link_closed {
        // The dearest, then one about half as dear: where the units set the pace, the second
        // comes back twice as fast.
        let half = set
            .iter()
            .filter(|k| 3 * cost(k) <= 2 * cost(&dearest))
            .min_by_key(|k| cost(k).abs_diff(cost(&dearest) / 2))
            .copied();
        // At most what the largest core holds: enough to keep every unit of any of ours busy.
        let most = queens_hdl::front::holds(queens_hdl::solver::load::MAX_UNITS);
        let burst = room.unwrap_or(2 * units_hint + WORD_QUEUE).min(most);
        let plan = |span| probe::ProbePlan {
            burst,
            span,
            quiet,
            frame_time: o.frame_time,
        };
        let mut pair = || {
            let d = probe::probe(&mut writer, &incoming, size, &dearest, &plan(PROBE_SPAN));
            let h = half.map(|k| probe::probe(&mut writer, &incoming, size, &k, &plan(SECOND_PROBE_SPAN)));
            (d, h)
        };
        // A host busy with other work makes the answers' pace uneven: the pair is probed
        // again before the pace is called unmeasurable (the report keeps every probe, and
        // so every copy sent).
        let mut earlier: Vec<Probe> = Vec::new();
        let (mut d, mut h) = pair();
        for _ in 1..PROBE_TRIES {
            if !h.as_ref().is_some_and(|h| speed::uneven(&d, h)) {
                break;
            }
            tracing::info!("the probes' pace was too uneven to judge: probing again");
            earlier.push(d);
            earlier.extend(h);
            (d, h) = pair();
        }
        let mut s = speed::judge(ident, &d, h.as_ref(), size, o.link_rate);
        let pace = h.as_ref().map_or(d.rate, |h| h.rate.max(d.rate));
        let probes: Vec<Probe> = earlier.into_iter().chain([d]).chain(h).collect();
        // Copies beyond its room are dropped by a board without flow control; ours say
        // their room, and the probes stay within it (unless its units do not all answer).
        let fewer = s.verdicts.iter().any(|v| matches!(v, Verdict::FewerUnits { .. }));
        if room.is_some() && !fewer {
            for p in &probes {
                probe_losses.sent += p.frames.sent;
                probe_losses.lost += p.frames.lost;
            }
        }
        verdicts.append(&mut s.verdicts);
        // Per subproblem of the set: a probe's answer is one request.
        let per_request = set.len() as f64 / requests as f64;
        let mean = work as f64 / set.len() as f64;
        let (predicted, limit) = speed::predict(&s, mean, o.link_rate, Some(pace * per_request));
        report.take_speed(s, probes, predicted, limit);
    }
    if answers.lost_any() || probe_losses.lost > 0 {
        verdicts.push(Verdict::LinkLoses {
            known: answers.frames,
            unanswered: answers.unanswered,
            probes: probe_losses,
            bad_crc: answers.bad_crc,
        });
    }
    report.finish(verdicts, start)
}

impl BoardReport {
    fn new(size: BoardSize, ident: Option<Ident>, frames: IdentFrames) -> Self {
        let s = speed::unmeasured(ident);
        BoardReport {
            n: size.n(),
            ident,
            unit: None,
            with_cycles: ident.map(|i| i.with_cycles),
            known_sent: 0,
            known_answered: 0,
            wrong_counts: vec![],
            wrong_cycles: vec![],
            bad_crc: 0,
            skipped_bytes: 0,
            resent: 0,
            unanswered: 0,
            frames: FrameAccount {
                identification: frames,
                ..Default::default()
            },
            rate: 0.0,
            units: s.units,
            units_source: s.units_source,
            clock_hz: s.clock_hz,
            clock_source: s.clock_source,
            cycles_per_second: None,
            cycles_per_second_at_least: None,
            bound: None,
            probes: vec![],
            predicted_rate: None,
            limit: None,
            failures: vec![],
            passed: false,
            seconds: 0.0,
        }
    }

    fn take_answers(&mut self, a: &answers::Answers) {
        self.unit = Some(a.unit.clone());
        self.with_cycles = a.with_cycles.or(self.with_cycles);
        self.known_sent = a.sent;
        self.known_answered = a.answered;
        self.wrong_counts = a.wrong_counts.clone();
        self.wrong_cycles = a.wrong_cycles.clone();
        self.bad_crc = a.bad_crc;
        self.skipped_bytes = a.skipped;
        self.resent = a.frames.resent as usize;
        self.unanswered = a.unanswered;
        self.frames.known_answers = a.frames;
        self.frames.bad_crc = a.bad_crc;
        self.frames.skipped_bytes = a.skipped;
        self.rate = a.rate;
    }

    fn take_speed(
        &mut self,
        s: speed::Speed,
        probes: Vec<Probe>,
        predicted: Option<f64>,
        limit: Option<Bound>,
    ) {
        for p in &probes {
            self.frames.probes.sent += p.frames.sent;
            self.frames.probes.answered += p.frames.answered;
            self.frames.probes.lost += p.frames.lost;
        }
        self.units = s.units;
        self.units_source = s.units_source;
        self.clock_hz = s.clock_hz;
        self.clock_source = s.clock_source;
        self.cycles_per_second = s.cycles_per_second;
        self.cycles_per_second_at_least = s.cycles_per_second_at_least;
        self.bound = s.bound;
        self.probes = probes;
        self.predicted_rate = predicted;
        self.limit = limit.map(Bound::text);
    }

    fn finish(mut self, verdicts: Vec<Verdict>, start: Instant) -> Self {
        self.failures = verdicts.iter().map(Verdict::failure).collect();
        self.passed = self.failures.is_empty();
        self.seconds = start.elapsed().as_secs_f64();
        self
    }
}
