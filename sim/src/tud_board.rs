//! Queens@TUD's UART board (`queens_uart`, preusser/q27 c8df61d) as a byte-level model in
//! board cycles, so that a host can be tried against one without their VHDL or a board.
//!
//! Written from the behaviour of their design (read, not copied) and held to a recording of
//! it under GHDL (`sim/tud/board/`, which the tests replay): a UART at a baud rate; a
//! two-byte glue register that drops bytes when full (the design has no flow control); an
//! unframer that hunts for the sentinel, writes a payload tentatively into the input FIFO
//! and commits it when the CRC matches, stalling while the FIFO is full; the FIFO (its depth
//! `5 × (solvers + 5)` bytes, rounded up to a power of two); a chain of solvers, each taking
//! the next frame when idle, running it for its unit's cycles (`crate::tud`, plus the cycle
//! that loads it, which the board's counter counts), and holding its result until the output
//! FIFO (the same depth) has taken it; and a framer that sends each result as sentinel,
//! payload and CRC. A result's last payload byte ends in four bits the design leaves
//! undefined; the model sends them as zeros.

use crate::probe::cycles as tree_cycles;
use queens_core::frame::{CRC8_QUEENS, SENTINEL};
use queens_core::result::ResultRecord;
use queens_core::search::completions_of;
use queens_core::{word, Blocking, BoardSize};
use std::collections::VecDeque;

/// What the board is built as.
#[derive(Debug, Clone, Copy)]
pub struct TudConfig {
    pub size: BoardSize,
    pub solvers: usize,
    pub with_cycles: bool,
    /// Board cycles per bit of the UART: their divider, clock / (8 × baud), times 8.
    pub bit_cycles: u64,
}

impl TudConfig {
    /// A board at `clock_hz` with a UART at `baud`.
    pub fn new(size: BoardSize, solvers: usize, with_cycles: bool, clock_hz: f64, baud: u32) -> Self {
        let divider = (clock_hz / (8.0 * baud as f64)).floor().max(1.0) as u64;
        Self {
            size,
            solvers: solvers.max(1),
            with_cycles,
            bit_cycles: 8 * divider,
        }
    }

    /// Bytes of each of the two FIFOs.
    pub fn fifo_bytes(&self) -> usize {
        fifo_bytes(self.solvers)
    }

    /// Subproblems the board holds at once: a frame in each solver and whole frames in the
    /// input FIFO. One more is dropped (the chain's taps may hold a few more; not counted).
    pub fn holds(&self) -> usize {
        holds(self.size, self.solvers)
    }

    fn byte_cycles(&self) -> u64 {
        10 * self.bit_cycles
    }
}

/// Subproblems a board of `solvers` solvers for `size` holds at once (see
/// [`TudConfig::holds`]).
pub fn holds(size: BoardSize, solvers: usize) -> usize {
    fifo_bytes(solvers.max(1)) / word::wire_bytes(size) + solvers.max(1)
}

fn fifo_bytes(solvers: usize) -> usize {
    (5 * (solvers + 5)).next_power_of_two()
}

/// Cycles from a byte's start bit on the line to the receiver's strobe: the middle of its
/// stop bit, as their receiver samples it.
fn strobe_offset(bit_cycles: u64) -> u64 {
    9 * bit_cycles + bit_cycles / 2
}

/// Cycles from a frame's CRC byte at the unframer to its solver's start, besides one a payload
/// byte (the FIFO's registers and the taps of the chain).
const IN_LATENCY: u64 = 9;
/// Cycles from a result's first byte leaving its solver to the framer seeing it.
const OUT_LATENCY: u64 = 8;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Unframe {
    Idle,
    Load { got: usize, crc: u8 },
    Check { crc: u8 },
}

/// The framer: between frames, or sending one (its CRC so far), or its CRC next.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Framer {
    Idle,
    Payload { crc: u8 },
    Crc { crc: u8 },
}

/// The board's state: bytes in, bytes out, in board cycles.
pub struct TudBoard {
    cfg: TudConfig,
    pre_bytes: usize,
    /// Host bytes on the line: each with the cycle its receiver strobes it.
    line: VecDeque<(u64, u8)>,
    line_free: u64,
    glue: VecDeque<u8>,
    unframe: Unframe,
    /// Tentative payload bytes, and committed frames waiting in the input FIFO.
    tentative: Vec<u8>,
    frames: VecDeque<Vec<u8>>,
    /// The frame each stage of the chain holds for its solver or the next stage.
    taps: Vec<Option<Vec<u8>>>,
    /// Each solver's result (payload) and the cycle it is ready, while it holds one.
    results: Vec<Option<(u64, Vec<u8>)>>,
    /// The result moving into the output FIFO (its solver, bytes left), one at a time.
    moving: Option<(usize, VecDeque<u8>)>,
    /// The output FIFO: payload bytes, each with whether it ends its result.
    out: VecDeque<(u8, bool)>,
    framer: Framer,
    /// The cycle the UART transmitter takes its next byte.
    tx_free: u64,
    /// Bytes sent, each with the cycle its stop bit is sampled at the far end.
    sent: VecDeque<(u64, u8)>,
    /// The last cycle settled.
    clock: u64,
    /// Bytes the full glue register dropped, and frames whose CRC failed, for a log.
    pub dropped_bytes: u64,
    pub bad_frames: u64,
}

impl TudBoard {
    pub fn new(cfg: TudConfig) -> Self {
        Self {
            pre_bytes: word::wire_bytes(cfg.size),
            line: VecDeque::new(),
            line_free: 0,
            glue: VecDeque::new(),
            unframe: Unframe::Idle,
            tentative: Vec::new(),
            frames: VecDeque::new(),
            taps: vec![None; cfg.solvers],
            results: vec![None; cfg.solvers],
            moving: None,
            out: VecDeque::new(),
            framer: Framer::Idle,
            tx_free: 0,
            sent: VecDeque::new(),
            clock: 0,
            dropped_bytes: 0,
            bad_frames: 0,
            cfg,
        }
    }

    pub fn config(&self) -> &TudConfig {
        &self.cfg
    }

    /// Host bytes whose first start bit goes on the line at cycle `at` (or once the line is
    /// free), back to back.
    pub fn receive(&mut self, at: u64, bytes: &[u8]) {
        let byte = self.cfg.byte_cycles();
        for &b in bytes {
            let start = at.max(self.line_free);
            self.line
                .push_back((start + strobe_offset(self.cfg.bit_cycles), b));
            self.line_free = start + byte;
        }
    }

    /// The next cycle at which something happens, if anything is pending.
    pub fn next_event(&self) -> Option<u64> {
        let sent = self.sent.front().map(|s| s.0);
        [
            self.line.front().map(|l| l.0),
            self.next_done(),
            self.next_tx(),
            sent,
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Runs the board to cycle `now`; returns the bytes whose stop bit the host has seen by
    /// then, each with that cycle.
    pub fn run_to(&mut self, now: u64) -> Vec<(u64, u8)> {
        loop {
            let line = self.line.front().map(|l| l.0).filter(|&t| t <= now);
            let tx = self.next_tx().filter(|&t| t <= now);
            let done = self.next_done().filter(|&t| t <= now);
            let Some(t) = [line, tx, done].into_iter().flatten().min() else {
                break;
            };
            // What freed room before this moment drains first.
            self.settle(t);
            if line == Some(t) {
                let (_, b) = self.line.pop_front().expect("due");
                if self.glue.len() < 2 {
                    self.glue.push_back(b);
                } else {
                    self.dropped_bytes += 1;
                }
            }
            if tx == Some(t) {
                self.transmit(t);
            }
            self.settle(t);
        }
        let mut out = Vec::new();
        while self.sent.front().is_some_and(|s| s.0 <= now) {
            out.push(self.sent.pop_front().expect("due"));
        }
        out
    }

    /// The earliest result still computing at the last settled cycle.
    fn next_done(&self) -> Option<u64> {
        let moving = self.moving.as_ref().map(|m| m.0);
        self.results
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != moving)
            .filter_map(|(_, r)| r.as_ref().map(|r| r.0))
            .filter(|&t| t > self.clock)
            .min()
    }

    /// When the transmitter takes its next byte, if it has one.
    fn next_tx(&self) -> Option<u64> {
        let has = match self.framer {
            Framer::Idle | Framer::Payload { .. } => !self.out.is_empty(),
            Framer::Crc { .. } => true,
        };
        has.then_some(self.tx_free)
    }

    /// Everything that follows at once at cycle `t`: the unframer drains the glue, frames
    /// move down the chain, finished results move into the output FIFO.
    fn settle(&mut self, t: u64) {
        self.clock = t;
        let cap = self.cfg.fifo_bytes();
        while let Some(&b) = self.glue.front() {
            let used = self.frames.len() * self.pre_bytes + self.tentative.len();
            match self.unframe {
                Unframe::Idle => {
                    if b == SENTINEL {
                        self.unframe = Unframe::Load {
                            got: 0,
                            crc: CRC8_QUEENS.init,
                        };
                    }
                }
                Unframe::Load { got, crc } => {
                    if used >= cap {
                        break;
                    }
                    self.tentative.push(b);
                    let crc = crc8_step(crc, b);
                    self.unframe = if got + 1 == self.pre_bytes {
                        Unframe::Check { crc }
                    } else {
                        Unframe::Load { got: got + 1, crc }
                    };
                }
                Unframe::Check { crc } => {
                    let payload = std::mem::take(&mut self.tentative);
                    if b == crc {
                        self.frames.push_back(payload);
                    } else {
                        self.bad_frames += 1;
                    }
                    self.unframe = Unframe::Idle;
                }
            }
            self.glue.pop_front();
        }
        loop {
            let mut moved = self.move_results(t, cap);
            moved |= self.move_frames(t);
            if !moved {
                break;
            }
        }
    }

    /// Results into the output FIFO, a byte at a time, one result after another: where
    /// several wait, the solver nearest the output goes first (each stage's funnel prefers
    /// its own solver's result to those from before it). A solver is free once its result
    /// is all in.
    fn move_results(&mut self, t: u64, cap: usize) -> bool {
        let mut moved = false;
        loop {
            if self.moving.is_none() {
                let next = (0..self.results.len())
                    .rev()
                    .find(|&i| self.results[i].as_ref().is_some_and(|r| r.0 <= t));
                let Some(i) = next else { break };
                let bytes = self.results[i]
                    .as_ref()
                    .expect("found")
                    .1
                    .iter()
                    .copied()
                    .collect();
                self.moving = Some((i, bytes));
            }
            let (i, bytes) = self.moving.as_mut().expect("set above");
            if self.out.is_empty() && self.framer == Framer::Idle {
                // The framer sees a result a few cycles after its first byte leaves the
                // solver (the funnels' glue registers and the FIFO's output register).
                self.tx_free = self.tx_free.max(t + OUT_LATENCY);
            }
            while self.out.len() < cap {
                let Some(b) = bytes.pop_front() else { break };
                self.out.push_back((b, bytes.is_empty()));
                moved = true;
            }
            if !bytes.is_empty() {
                break;
            }
            self.results[*i] = None;
            self.moving = None;
            moved = true;
        }
        moved
    }

    /// Frames move down the chain: a stage's frame goes to its solver when that is idle,
    /// else on to the next stage when that holds none; the FIFO fills the first stage.
    fn move_frames(&mut self, t: u64) -> bool {
        let mut moved = false;
        for i in (0..self.taps.len()).rev() {
            if self.taps[i].is_none() {
                continue;
            }
            if self.results[i].is_none() {
                let payload = self.taps[i].take().expect("held");
                let start = t + IN_LATENCY + self.pre_bytes as u64;
                let (cycles, result) = self.run(&payload);
                self.results[i] = Some((start + cycles, result));
                moved = true;
            } else if i + 1 < self.taps.len() && self.taps[i + 1].is_none() {
                self.taps[i + 1] = self.taps[i].take();
                moved = true;
            }
        }
        if self.taps[0].is_none() {
            if let Some(f) = self.frames.pop_front() {
                self.taps[0] = Some(f);
                moved = true;
            }
        }
        moved
    }

    /// A frame on a solver: the cycles its board counts, and its result's payload.
    fn run(&self, payload: &[u8]) -> (u64, Vec<u8>) {
        let size = self.cfg.size;
        let wire = word::wire_from_bytes(payload);
        let (count, cycles) = match word::decode_wire(size, wire) {
            Ok(pre) => {
                let b = Blocking::new(&pre);
                (completions_of(&b), tree_cycles(&b).tud + 1)
            }
            // Bytes that passed the CRC by chance: whatever the slice does, it ends.
            Err(_) => (0, 1),
        };
        let record = ResultRecord::new(wire, count, self.cfg.with_cycles.then_some(cycles));
        (cycles, record.encode(size))
    }

    /// The transmitter takes its next byte at cycle `t`: a frame's sentinel, a payload byte
    /// from the output FIFO, or the CRC. It starts on the next tick of its bit clock.
    fn transmit(&mut self, t: u64) {
        let b = match self.framer {
            Framer::Idle => {
                self.framer = Framer::Payload {
                    crc: CRC8_QUEENS.init,
                };
                SENTINEL
            }
            Framer::Payload { crc } => {
                let (b, last) = self.out.pop_front().expect("the transmitter has a byte");
                let crc = crc8_step(crc, b);
                self.framer = if last {
                    Framer::Crc { crc }
                } else {
                    Framer::Payload { crc }
                };
                b
            }
            Framer::Crc { crc } => {
                self.framer = Framer::Idle;
                crc
            }
        };
        let bit = self.cfg.bit_cycles;
        // The bit clock ticks at cycles 1 + k × bit; the start bit shows the cycle after.
        let tick = (t.saturating_sub(1)).div_ceil(bit) * bit + 1;
        let start = tick + 1;
        self.sent.push_back((start + strobe_offset(bit), b));
        self.tx_free = tick + 10 * bit;
    }
}

/// One byte of the CRC-8 the frames carry (polynomial 0x1D5, MSB first).
fn crc8_step(crc: u8, b: u8) -> u8 {
    let mut c = crc ^ b;
    for _ in 0..8 {
        c = if c & 0x80 != 0 {
            (c << 1) ^ CRC8_QUEENS.poly
        } else {
            c << 1
        };
    }
    c
}

impl TudBoard {
    /// Serves one connection in real time at `clock_hz` until the host closes it: `input`
    /// is read on a thread of its own; what the board sends goes to `output` when its stop
    /// bit would have been seen.
    pub fn serve<R: std::io::Read + Send + 'static, W: std::io::Write + ?Sized>(
        &mut self,
        clock_hz: f64,
        mut input: R,
        output: &mut W,
    ) -> std::io::Result<()> {
        use std::sync::mpsc::{self, RecvTimeoutError};
        use std::time::{Duration, Instant};
        let (tx, rx) = mpsc::channel::<Vec<u8>>();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = input.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let t0 = Instant::now();
        let cycle = |at: Instant| (at.duration_since(t0).as_secs_f64() * clock_hz) as u64;
        loop {
            let wait = match self.next_event() {
                Some(c) => Duration::from_secs_f64(c.saturating_sub(cycle(Instant::now())) as f64 / clock_hz),
                None => Duration::from_secs(3600),
            };
            match rx.recv_timeout(wait) {
                Ok(bytes) => self.receive(cycle(Instant::now()), &bytes),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            }
            let out: Vec<u8> = self
                .run_to(cycle(Instant::now()))
                .into_iter()
                .map(|(_, b)| b)
                .collect();
            if !out.is_empty() {
                output.write_all(&out)?;
                output.flush()?;
            }
        }
    }
}
