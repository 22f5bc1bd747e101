//! Step 2: the known-answer set, every count checked against the software counter; every
//! cycle count against the cycle model of the unit the board says it is, or, for a board
//! that says nothing, against both unit models as information (which unit it runs).

use super::verdict::Verdict;
use super::{send, Incoming, Known, Writer};
use crate::link::framing::{Framing, Incompatible};
use crate::validate;
use queens_core::{frame, word, Blocking, BoardSize};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

/// A subproblem whose answer differed.
#[derive(Debug, Clone, Serialize)]
pub struct Wrong {
    pub index: u64,
    pub preplacement: String,
    pub expected: u64,
    pub got: u64,
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

/// Which unit the cycle counts show.
#[derive(Debug, Clone, Serialize)]
pub struct UnitEvidence {
    /// "queens" (this project's unit), "Queens@TUD", or none when nothing tells.
    pub unit: Option<&'static str>,
    /// "identification", "cycle counts", or "nothing" (no identity and no cycle counters,
    /// or cycle counts that match neither model).
    pub by: &'static str,
    /// Answers with cycle counts, and how many equal this project's cycle model.
    pub cycles_checked: usize,
    pub match_ours: usize,
    /// Answers checked against Queens@TUD's model (sim/src/tud.rs; its board counts the
    /// load cycle too), and how many equal it.
    pub tud_checked: usize,
    pub match_tud: usize,
}

/// What the known-answer set showed.
pub struct Answers {
    pub sent: usize,
    pub answered: usize,
    pub unanswered: usize,
    pub wrong_counts: Vec<Wrong>,
    /// Cycle counts that differ from the model of the unit the board says it is (ours).
    pub wrong_cycles: Vec<Wrong>,
    pub unit: UnitEvidence,
    pub frames: Frames,
    pub bad_crc: u64,
    pub skipped: u64,
    pub with_cycles: Option<bool>,
    pub incompatible: Option<Incompatible>,
    pub link_closed: bool,
    /// Subproblems per second over the set.
    pub rate: f64,
}

/// Answers checked against Queens@TUD's model at most (each costs a walk of its tree).
const TUD_CHECKS: usize = 8;

/// Runs `set` on the board with at most `window` outstanding; a subproblem is sent again
/// after `quiet` without an answer, and given up after a second silence.
pub fn run(
    writer: &mut Writer,
    incoming: &Incoming,
    size: BoardSize,
    set: &[Known],
    window: usize,
    quiet: Duration,
    identified: bool,
) -> Answers {
    let mut framing = Framing::new(size);
    let mut known = KnownRun::new(size, set);
    let mut incompatible = None;
    let mut link_closed = false;
    let start = Instant::now();
    let mut last_answer = start;
    'run: while !known.done() {
        let frames = known.take_frames(window);
        if !frames.is_empty() && send(writer, &frames).is_err() {
            link_closed = true;
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
    let seconds = last_answer.duration_since(start).as_secs_f64().max(1e-6);
    let answered = known.answered();
    let with_cycles = framing.with_cycles();
    let unit = known.unit_evidence(identified, with_cycles == Some(true));
    let frames = Frames {
        sent: known.frames_sent,
        answered: known.frames_answered,
        lost: known.frames_sent - known.frames_answered - known.late,
        resent: known.resent as u64,
    };
    Answers {
        sent: set.len(),
        answered,
        unanswered: set.len() - answered,
        wrong_counts: known.wrong_counts,
        wrong_cycles: if identified {
            known.other_cycles
        } else {
            Vec::new()
        },
        unit,
        frames,
        bad_crc: known.bad_crc,
        skipped: known.skipped,
        with_cycles,
        incompatible,
        link_closed,
        rate: answered as f64 / seconds,
    }
}

impl Answers {
    /// The failures the set shows. `seen`: bytes came back during identification.
    pub fn verdicts(&self, seen: bool) -> Vec<Verdict> {
        let mut v = Vec::new();
        if self.link_closed {
            v.push(Verdict::LinkClosed);
        }
        if let Some(e) = &self.incompatible {
            v.push(match e.frames_for() {
                Some(_) => Verdict::FramesOfOtherN { text: e.to_string() },
                None => Verdict::NotFrames { text: e.to_string() },
            });
        } else if self.answered == 0 && !seen && self.skipped == 0 && self.bad_crc == 0 {
            v.push(Verdict::Silent);
        }
        if !self.wrong_counts.is_empty() {
            v.push(Verdict::WrongCounts {
                wrong: self.wrong_counts.len(),
                answered: self.answered,
                first: self.wrong_counts.iter().take(5).map(|w| w.index).collect(),
            });
        }
        if !self.wrong_cycles.is_empty() {
            v.push(Verdict::OtherUnitVersion {
                differ: self.wrong_cycles.len(),
            });
        }
        v
    }

    /// Whether the set lost frames: it never holds more on the board than the board has room
    /// for, so any loss is the link's.
    pub fn lost_any(&self) -> bool {
        self.answered > 0 && (self.unanswered > 0 || self.bad_crc > 0 || self.frames.lost > 0)
    }
}

/// The known-answer set in flight: what is outstanding, and what came back.
struct KnownRun<'a> {
    size: BoardSize,
    set: &'a [Known],
    next: usize,
    /// Wire word to position in the set, of every subproblem of the set.
    position: HashMap<u64, usize>,
    /// Wire word to position in the set, of those on the board now.
    outstanding: HashMap<u64, usize>,
    /// Lost subproblems to send again, and whether each was.
    again: Vec<usize>,
    tried_again: Vec<bool>,
    answered: Vec<bool>,
    /// Cycle counts each answer carried.
    cycles: Vec<Option<u64>>,
    wrong_counts: Vec<Wrong>,
    /// Cycle counts that differ from this project's model.
    other_cycles: Vec<Wrong>,
    bad_crc: u64,
    skipped: u64,
    resent: usize,
    frames_sent: u64,
    frames_answered: u64,
    /// Answers to frames already given up for lost and sent again.
    late: u64,
}

impl<'a> KnownRun<'a> {
    fn new(size: BoardSize, set: &'a [Known]) -> Self {
        let position = set
            .iter()
            .enumerate()
            .map(|(i, k)| {
                (
                    word::encode_wire(&k.sub.pre).expect("canonical pre-placements encode"),
                    i,
                )
            })
            .collect();
        Self {
            size,
            set,
            next: 0,
            position,
            outstanding: HashMap::new(),
            again: Vec::new(),
            tried_again: vec![false; set.len()],
            answered: vec![false; set.len()],
            cycles: vec![None; set.len()],
            wrong_counts: Vec::new(),
            other_cycles: Vec::new(),
            bad_crc: 0,
            skipped: 0,
            resent: 0,
            frames_sent: 0,
            frames_answered: 0,
            late: 0,
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
            self.frames_sent += 1;
        }
        while self.next < self.set.len() && self.outstanding.len() < window {
            let (wire, f) = self.frame(self.next);
            self.outstanding.insert(wire, self.next);
            out.extend(f);
            self.next += 1;
            self.frames_sent += 1;
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
            // A subproblem of the set answered after it was given up (once per frame sent).
            if self.position.contains_key(&c.wire) && self.frames_answered + self.late < self.frames_sent {
                self.late += 1;
            }
            return false;
        };
        self.frames_answered += 1;
        if self.answered[i] {
            return true;
        }
        self.answered[i] = true;
        self.cycles[i] = c.cycles;
        let k = &self.set[i];
        let wrong = |expected, got| Wrong {
            index: k.index,
            preplacement: k.sub.pre.to_string(),
            expected,
            got,
        };
        if c.count != k.solutions {
            self.wrong_counts.push(wrong(k.solutions, c.count));
        }
        if let Some(cy) = c.cycles.filter(|&cy| cy != k.cycles) {
            self.other_cycles.push(wrong(k.cycles, cy));
        }
        true
    }

    /// Which unit the cycle counts show: an identified board is ours by its word; one that
    /// says nothing is compared with both unit models.
    fn unit_evidence(&self, identified: bool, with_cycles: bool) -> UnitEvidence {
        let checked: Vec<usize> = (0..self.set.len())
            .filter(|&i| self.cycles[i].is_some())
            .collect();
        let ours = checked.len() - self.other_cycles.len();
        let mut e = UnitEvidence {
            unit: None,
            by: "nothing",
            cycles_checked: checked.len(),
            match_ours: ours,
            tud_checked: 0,
            match_tud: 0,
        };
        if identified {
            e.unit = Some("queens");
            e.by = "identification";
            return e;
        }
        if !with_cycles || checked.is_empty() {
            return e;
        }
        if ours == checked.len() {
            e.unit = Some("queens");
            e.by = "cycle counts";
            return e;
        }
        // Queens@TUD's model on the cheapest of those ours does not explain.
        let mut differ: Vec<usize> = checked
            .into_iter()
            .filter(|&i| self.cycles[i] != Some(self.set[i].cycles))
            .collect();
        differ.sort_by_key(|&i| self.set[i].cycles);
        for &i in differ.iter().take(TUD_CHECKS) {
            let tud = queens_sim::probe::cycles(&Blocking::new(&self.set[i].sub.pre)).tud;
            e.tud_checked += 1;
            // Their board's counter also counts the cycle that loads the subproblem.
            e.match_tud += usize::from(self.cycles[i] == Some(tud + 1));
        }
        if e.tud_checked > 0 && e.match_tud == e.tud_checked {
            e.unit = Some("Queens@TUD");
            e.by = "cycle counts";
        }
        e
    }

    fn answered(&self) -> usize {
        self.answered.iter().filter(|a| **a).count()
    }

    fn done(&self) -> bool {
        self.next >= self.set.len() && self.outstanding.is_empty() && self.again.is_empty()
    }
}
