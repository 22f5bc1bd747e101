//! The simulated board: serves the wire protocol over any byte stream (a TCP connection, a
//! pseudo-terminal, or in-process pipes), with the solver array played by the fast cycle
//! model. Like the hardware it holds `units` subproblems running and a short queue, drops a
//! frame it has no room for or whose CRC fails, and answers each subproblem once. An optional
//! clock makes each answer wait as long as the real board would take, and a fault injector
//! corrupts, drops or duplicates result frames and resets the board, for the host's
//! reliability tests. A grouped board (issue 50) takes group requests and answers each with
//! its records (`queens_core::group`), walked by the grouped model (`crate::grouped`).

use crate::grouped::run_south_group;
use crate::model::run_subproblem;
use queens_core::deframe::{Deframed, Deframer};
use queens_core::frame;
use queens_core::group::{self, GroupRecord};
use queens_core::ident::{self, Ident};
use queens_core::result::ResultRecord;
use queens_core::south::SouthWalk;
use queens_core::{word, BoardSize, UnitKind};
// Words the board queues beyond its running units: the core's word queue.
use queens_hdl::front::holds;
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Faults {
    /// Probability that a result frame has one bit flipped.
    pub corrupt: f64,
    /// Probability that a result frame is not sent.
    pub drop: f64,
    /// Probability that a result frame is sent twice.
    pub dup: f64,
    /// Reset the board (losing everything it holds) every this often.
    pub reset: Option<Duration>,
    /// Probability that a result's count is one off, its frame otherwise sound: a board that
    /// computes wrong.
    pub lie: f64,
    /// Probability that a grouped board's answer has its first south record's place code
    /// name no south side of the group (inner column 0 in both rows: no south side has its
    /// two queens in one column, and a group that fixes a row names it as held): a board of
    /// grouped units that decodes wrong.
    pub misplace: f64,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FaultsError {
    #[error("fault {0:?}: expected NAME=VALUE with NAME one of corrupt, drop, dup, lie, misplace, reset")]
    Syntax(String),
    #[error("fault {name}={value}: a probability is a number from 0 to 1")]
    Probability { name: String, value: String },
    #[error("fault reset={0}: expected seconds, 0.001 to 1000000")]
    Seconds(String),
}

impl Faults {
    /// Whether any fault is asked for.
    pub fn has_any(&self) -> bool {
        *self != Faults::default()
    }
}

impl std::str::FromStr for Faults {
    type Err = FaultsError;

    /// `corrupt=P,drop=P,dup=P,lie=P,misplace=P,reset=SECONDS`, any subset.
    fn from_str(s: &str) -> Result<Self, FaultsError> {
        let mut f = Faults::default();
        for item in s.split(',').filter(|i| !i.trim().is_empty()) {
            let (name, value) = item
                .split_once('=')
                .ok_or_else(|| FaultsError::Syntax(item.into()))?;
            let (name, value) = (name.trim(), value.trim());
            let p = || match value.parse::<f64>() {
                Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
                _ => Err(FaultsError::Probability {
                    name: name.into(),
                    value: value.into(),
                }),
            };
            match name {
                "corrupt" => f.corrupt = p()?,
                "drop" => f.drop = p()?,
                "dup" => f.dup = p()?,
                "lie" => f.lie = p()?,
                "misplace" => f.misplace = p()?,
                "reset" => match value.parse::<f64>() {
                    // Bounded: a reset every nanosecond would never let a result out, and
                    // a Duration holds no more than about 10^19 seconds.
                    Ok(s) if (1e-3..=1e6).contains(&s) => f.reset = Some(Duration::from_secs_f64(s)),
                    _ => return Err(FaultsError::Seconds(value.into())),
                },
                _ => return Err(FaultsError::Syntax(item.into())),
            }
        }
        Ok(f)
    }
}

#[derive(Debug, Clone)]
pub struct BoardConfig {
    pub size: BoardSize,
    pub units: usize,
    /// Clock in Hz: answer when the hardware would; `None`: as fast as the model runs.
    pub clock_hz: Option<f64>,
    /// Results carry the cycle counter.
    pub with_cycles: bool,
    /// Its units: what requests it takes and what it answers.
    pub unit: UnitKind,
    pub faults: Faults,
    /// Seed of the fault injector.
    pub seed: u64,
}

impl BoardConfig {
    /// What the board truly is, as it answers an identification request.
    pub fn ident(&self) -> Ident {
        Ident {
            n: self.size.n(),
            units: self.units as u32,
            clock_hz: self.clock_hz.map_or(0, |h| h.round() as u64),
            design_hash: ident::design_hash(&format!(
                "simulated board N={} units={} cycles={}{}",
                self.size.n(),
                self.units,
                self.with_cycles,
                if self.unit == UnitKind::Grouped {
                    " grouped"
                } else {
                    ""
                }
            )),
            with_cycles: self.with_cycles,
            unit: self.unit,
        }
        .on_wire()
    }
}

/// What a board did, for its log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoardStats {
    pub received: u64,
    pub bad_frames: u64,
    pub no_room: u64,
    pub answered: u64,
    pub corrupted: u64,
    pub dropped: u64,
    pub duplicated: u64,
    pub resets: u64,
}

/// What a board did for a host, as its log says it: what it answered, the frames it ignored
/// as the protocol asks, and the faults it was told to inject, when any.
impl std::fmt::Display for BoardStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} subproblems received, {} answered",
            self.received, self.answered
        )?;
        if self.bad_frames > 0 {
            write!(
                f,
                "; {} frames with a bad CRC ignored (as the protocol asks; the identification requests for boards of other wire lengths that `queens board check` sends read so)",
                self.bad_frames
            )?;
        }
        if self.no_room > 0 {
            write!(f, "; {} requests beyond its room dropped", self.no_room)?;
        }
        let faults = [
            (self.corrupted, "corrupted"),
            (self.dropped, "dropped"),
            (self.duplicated, "sent twice"),
            (self.resets, "resets"),
        ];
        let injected: Vec<String> = faults
            .iter()
            .filter(|(k, _)| *k > 0)
            .map(|(k, what)| format!("{k} {what}"))
            .collect();
        if !injected.is_empty() {
            write!(f, "; faults injected as asked: {}", injected.join(", "))?;
        }
        Ok(())
    }
}

/// Applies the faults to outgoing result frames.
pub struct Injector {
    faults: Faults,
    rng: fastrand::Rng,
}

impl Injector {
    pub fn new(faults: Faults, seed: u64) -> Self {
        Self {
            faults,
            rng: fastrand::Rng::with_seed(seed),
        }
    }

    /// Whether this result's count is to be off by one.
    pub fn lies(&mut self) -> bool {
        self.faults.lie > 0.0 && self.rng.f64() < self.faults.lie
    }

    /// Whether this grouped answer's first south record is to name no south side.
    pub fn misplaces(&mut self) -> bool {
        self.faults.misplace > 0.0 && self.rng.f64() < self.faults.misplace
    }

    /// Appends `frame` to `out` as the faults decide: not at all, with a bit flipped, twice.
    pub fn send(&mut self, mut frame: Vec<u8>, out: &mut Vec<u8>, stats: &mut BoardStats) {
        stats.answered += 1;
        if self.rng.f64() < self.faults.drop {
            stats.dropped += 1;
            return;
        }
        let dup = self.rng.f64() < self.faults.dup;
        if self.rng.f64() < self.faults.corrupt {
            stats.corrupted += 1;
            // Any bit after the sentinel.
            let bit = self.rng.usize(8..8 * frame.len());
            frame[bit / 8] ^= 1 << (bit % 8);
        }
        if dup {
            stats.duplicated += 1;
            out.extend_from_slice(&frame);
        }
        out.extend_from_slice(&frame);
    }
}

struct Running {
    wire: u64,
    solutions: u64,
    cycles: u64,
    /// A grouped board's answer: the group's records.
    records: Vec<GroupRecord>,
    due: Instant,
    /// The unit id it runs on.
    unit: usize,
}

/// The deframer of what a board of `cfg` takes: pre-placement frames, or group requests.
fn request_deframer(cfg: &BoardConfig) -> Deframer {
    Deframer::new(word::wire_bytes(cfg.size)).with_xor(cfg.unit.crc_xor())
}

/// The board's state between bytes.
pub struct Board {
    cfg: BoardConfig,
    deframer: Deframer,
    /// Words waiting for a unit, each with when it arrived.
    queue: VecDeque<(u64, Instant)>,
    running: Vec<Running>,
    /// Unit ids without work, in the order the core's free list hands them out: every id
    /// once from 0 up, then each as its answer leaves.
    free: VecDeque<usize>,
    /// Answers each unit id has given.
    unit_answers: Vec<u64>,
    /// When each unit falls idle (the clock's schedule).
    unit_free: Vec<Instant>,
    injector: Injector,
    next_reset: Option<Instant>,
    /// What the board answers an identification request with; none for a board that knows
    /// no such request (a Queens@TUD board).
    ident: Option<Ident>,
    /// The identification request of this board's N, and the last bytes received, long
    /// enough to hold one.
    request: Vec<u8>,
    recent: Vec<u8>,
    /// An answer to send at the next poll.
    answer: Vec<u8>,
    pub stats: BoardStats,
}

impl Board {
    pub fn new(cfg: BoardConfig) -> Self {
        let now = Instant::now();
        Self {
            deframer: request_deframer(&cfg),
            queue: VecDeque::new(),
            running: Vec::new(),
            free: (0..cfg.units).collect(),
            unit_answers: vec![0; cfg.units],
            unit_free: vec![now; cfg.units.max(1)],
            injector: Injector::new(cfg.faults, cfg.seed),
            next_reset: cfg.faults.reset.map(|r| now + r),
            ident: Some(cfg.ident()),
            request: ident::request(cfg.size),
            recent: Vec::new(),
            answer: Vec::new(),
            stats: BoardStats::default(),
            cfg,
        }
    }

    /// What the board answers an identification request with (by default what it is); `None`
    /// for a board that does not know the request.
    pub fn with_ident(mut self, ident: Option<Ident>) -> Self {
        self.ident = ident;
        self
    }

    /// Answers each unit id has given (sent, or lost to a fault), by id.
    pub fn unit_answers(&self) -> &[u64] {
        &self.unit_answers
    }

    /// Bytes from the host.
    pub fn receive(&mut self, bytes: &[u8]) {
        if let Some(id) = self.ident {
            let len = self.request.len();
            self.recent.extend_from_slice(bytes);
            if self.recent.windows(len).any(|w| w == self.request) {
                self.answer.extend(id.encode());
                self.recent.clear();
            }
            let cut = self.recent.len().saturating_sub(len - 1);
            self.recent.drain(..cut);
        }
        let mut words = Vec::new();
        let mut bad = 0;
        self.deframer.push(bytes, |d| match d {
            Deframed::Frame(p) => words.push(word::wire_from_bytes(&p)),
            Deframed::BadCrc { .. } => bad += 1,
            Deframed::Skipped(_) | Deframed::Ident(_) => {}
        });
        self.stats.bad_frames += bad;
        for w in words {
            self.stats.received += 1;
            if self.queue.len() + self.running.len() >= holds(self.cfg.units) {
                self.stats.no_room += 1;
                tracing::debug!(word = w, "no room: frame dropped");
                continue;
            }
            self.queue.push_back((w, Instant::now()));
        }
        self.start_queued();
    }

    fn start_queued(&mut self) {
        while !self.free.is_empty() && !self.queue.is_empty() {
            let (wire, arrived) = self.queue.pop_front().expect("not empty");
            let unit = self.free.pop_front().expect("not empty");
            let mut records = Vec::new();
            // A word that is no pre-placement still runs in hardware; here it counts nothing.
            let run = if self.cfg.unit == UnitKind::Grouped {
                let walked = group::some_member(self.cfg.size, wire).map(|p| run_south_group(&p));
                records = match &walked {
                    Ok(w) => w.records(wire),
                    Err(_) => GroupRecord::answer(wire, &[], 0),
                };
                crate::model::UnitRun {
                    solutions: 0,
                    cycles: walked.map_or(0, |w| w.cycles),
                }
            } else {
                word::decode_wire(self.cfg.size, wire)
                    .map(|pre| run_subproblem(&pre))
                    .unwrap_or_default()
            };
            let now = Instant::now();
            let due = match self.cfg.clock_hz {
                None => now,
                Some(hz) => {
                    // A queued word starts when its unit falls idle, as in hardware, not
                    // when this poll gets to it.
                    let begin = self.unit_free[unit].max(arrived);
                    let due = begin + Duration::from_secs_f64(run.cycles as f64 / hz);
                    self.unit_free[unit] = due;
                    due
                }
            };
            self.running.push(Running {
                wire,
                solutions: run.solutions,
                cycles: run.cycles,
                records,
                due,
                unit,
            });
        }
    }

    /// When the next answer or reset is due, if anything is pending.
    pub fn next_event(&self) -> Option<Instant> {
        if !self.answer.is_empty() {
            return Some(Instant::now());
        }
        let answer = self.running.iter().map(|r| r.due).min();
        match (answer, self.next_reset) {
            (Some(a), Some(r)) => Some(a.min(r)),
            (a, r) => a.or(r),
        }
    }

    /// Result frames due by `now` (with the faults applied).
    pub fn poll(&mut self, now: Instant) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.answer);
        if let Some(r) = self.next_reset {
            if now >= r {
                self.stats.resets += 1;
                tracing::info!(lost = self.running.len() + self.queue.len(), "simulated reset");
                self.running.clear();
                self.queue.clear();
                self.deframer = request_deframer(&self.cfg);
                self.unit_free.iter_mut().for_each(|u| *u = now);
                self.free = (0..self.cfg.units).collect();
                self.next_reset = self.cfg.faults.reset.map(|d| now + d);
                return out;
            }
        }
        let (done, still): (Vec<_>, Vec<_>) = self.running.drain(..).partition(|r| r.due <= now);
        self.running = still;
        for r in done {
            // The id is free again once its answer is framed, as in the core.
            self.free.push_back(r.unit);
            self.unit_answers[r.unit] += 1;
            if self.cfg.unit == UnitKind::Grouped {
                // A lie is every south record's count one off (with the end record's
                // residues to match: a unit that miscounts, not a corrupted word; every one,
                // so that a member of the group is among them), a misplace the first record's
                // place code one of no south side; each record is a frame of its own to the
                // faults.
                let lie = self.injector.lies();
                let misplace = self.injector.misplaces();
                let mut records = r.records;
                let mut lies = 0;
                for rec in records.iter_mut() {
                    match &mut rec.body {
                        group::Body::South { count, .. } if lie => {
                            *count += 1;
                            lies += 1;
                        }
                        group::Body::End { mod13, mod15, .. } => {
                            *mod13 = ((*mod13 as u64 + lies) % 13) as u8;
                            *mod15 = ((*mod15 as u64 + lies) % 15) as u8;
                        }
                        _ => {}
                    }
                }
                if let (true, Some(group::Body::South { south, .. })) =
                    (misplace, records.first_mut().map(|r| &mut r.body))
                {
                    *south = SouthWalk::place_code(Some(0), Some(0));
                }
                for rec in records {
                    self.injector
                        .send(rec.encode(self.cfg.size), &mut out, &mut self.stats);
                }
                continue;
            }
            let cycles = self.cfg.with_cycles.then_some(r.cycles);
            let solutions = r.solutions + u64::from(self.injector.lies());
            let f = frame::encode(&ResultRecord::new(r.wire, solutions, cycles).encode(self.cfg.size));
            self.injector.send(f, &mut out, &mut self.stats);
        }
        self.start_queued();
        out
    }

    /// Serves one connection until the host closes it: `input` is read on a thread of its own.
    pub fn serve<R: Read + Send + 'static, W: Write + ?Sized>(
        &mut self,
        input: R,
        output: &mut W,
    ) -> std::io::Result<()> {
        let rx = chunks(input);
        loop {
            let wait = match self.next_event() {
                Some(t) => t.saturating_duration_since(Instant::now()),
                None => Duration::from_secs(3600),
            };
            match rx.recv_timeout(wait) {
                Ok(bytes) => self.receive(&bytes),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
            }
            let out = self.poll(Instant::now());
            if !out.is_empty() {
                output.write_all(&out)?;
                output.flush()?;
            }
        }
    }
}

/// Reads `input` on a thread of its own and hands over what arrives, chunk by chunk, until
/// end of input or an error (then the channel closes).
fn chunks(mut input: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = input.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    rx
}

/// Serves one connection with the emitted core under Verilator as the board: bytes pass
/// through the design; the faults apply to the result frames it sends, and a reset restarts
/// the simulation (losing what it held). The clock is the simulator's own pace.
pub fn serve_verilated<R: Read + Send + 'static, W: Write + ?Sized>(
    design: &crate::verilator::Verilated,
    faults: Faults,
    seed: u64,
    input: R,
    output: &mut W,
) -> Result<BoardStats, crate::verilator::VerilatorError> {
    use std::sync::mpsc;
    let size = BoardSize::new(design.cfg.n as u32).expect("a built size is valid");
    let unit = design.cfg.unit;
    let (payload, xor) = (
        unit.answer_payload_len(size, design.cfg.with_cycles),
        unit.crc_xor(),
    );
    let host_rx = chunks(input);
    let mut injector = Injector::new(faults, seed);
    let mut stats = BoardStats::default();
    loop {
        // One simulation run, until the host leaves or a reset is due.
        let mut child = design.spawn(None)?;
        let mut stdin = child.stdin.take().expect("piped");
        let board_rx = chunks(child.stdout.take().expect("piped"));
        // The injector works on whole frames; identification answers pass untouched. A
        // deframer that looks for them holds a frame shorter than an answer that starts like
        // one, so it looks only where result frames are at least as long.
        let mut deframer = Deframer::new(payload).with_xor(xor);
        if payload + 2 >= ident::ANSWER_FRAME {
            deframer = deframer.with_ident();
        }
        let raw = !faults.has_any();
        let reset_at = faults.reset.map(|d| Instant::now() + d);
        let host_left = loop {
            if reset_at.is_some_and(|t| Instant::now() >= t) {
                break false;
            }
            while let Ok(bytes) = board_rx.try_recv() {
                let mut out = Vec::new();
                if raw {
                    // A fault-free board's bytes reach the host as the design sent them.
                    deframer.push(&bytes, |d| {
                        if let Deframed::Frame(_) = d {
                            stats.answered += 1;
                        }
                    });
                    out = bytes;
                } else {
                    deframer.push(&bytes, |d| match d {
                        Deframed::Frame(p) => {
                            injector.send(frame::encode_xored(&p, xor), &mut out, &mut stats)
                        }
                        Deframed::Ident(i) => out.extend(i.encode()),
                        Deframed::BadCrc { .. } | Deframed::Skipped(_) => {}
                    });
                }
                if !out.is_empty() {
                    output.write_all(&out).and_then(|_| output.flush()).map_err(|e| {
                        crate::verilator::VerilatorError::Io {
                            what: "writing to the host".into(),
                            source: e,
                        }
                    })?;
                }
            }
            match host_rx.recv_timeout(Duration::from_millis(2)) {
                Ok(bytes) => {
                    if stdin.write_all(&bytes).and_then(|_| stdin.flush()).is_err() {
                        break false;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break true,
            }
        };
        let _ = child.kill();
        let _ = child.wait();
        if host_left {
            return Ok(stats);
        }
        stats.resets += 1;
        tracing::info!("simulated reset: the design restarts empty");
    }
}
