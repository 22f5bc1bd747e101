//! Step 2: the known-answer set, every count checked against the software counter; every
//! cycle count against the cycle model of the unit the board says it is, or, for a board
//! that says nothing, against both unit models as information (which unit it runs). A board
//! of grouped units is sent a request per group of the set, and its answers are read member
//! by member, each with its share of the grouped model's walk.

use super::verdict::Verdict;
use super::{send, Frames, Incoming, Known, Writer};
use crate::link::framing::{Framing, Incompatible};
use crate::validate;
use queens_core::board::PairTable;
use queens_core::group::{self, Body};
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
    /// A grouped board's answer held a record of this place code, which names no south side
    /// of the group: the answer is wrong whatever `got` is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_place: Option<u32>,
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
    if set.iter().any(|k| k.group.is_some()) {
        framing.grouped();
    }
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
                    for payload in r.records {
                        if known.receive_record(&payload) {
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

/// One request of the set: a subproblem's frame, or (on a board of grouped units) its group's,
/// with the subproblems of the set it answers.
struct Request {
    word: u64,
    frame: Vec<u8>,
    members: Vec<usize>,
}

/// The known-answer set in flight: what is outstanding, and what came back.
struct KnownRun<'a> {
    size: BoardSize,
    set: &'a [Known],
    requests: Vec<Request>,
    next: usize,
    /// Request word to its request, of every request of the set.
    position: HashMap<u64, usize>,
    /// Request word to its request, of those on the board now.
    outstanding: HashMap<u64, usize>,
    /// Lost requests to send again, and whether each was.
    again: Vec<usize>,
    tried_again: Vec<bool>,
    /// The records of group answers so far.
    records: HashMap<u64, group::Answer>,
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
        let mut requests: Vec<Request> = Vec::new();
        let mut position = HashMap::new();
        for (i, k) in set.iter().enumerate() {
            let (word, frame) = match k.group {
                Some(g) => (g.word, group::request_of(size, g.word)),
                None => {
                    let wire = word::encode_wire(&k.sub.pre).expect("canonical pre-placements encode");
                    (wire, frame::encode(&word::wire_to_bytes(size, wire)))
                }
            };
            let r = *position.entry(word).or_insert_with(|| {
                requests.push(Request {
                    word,
                    frame,
                    members: Vec::new(),
                });
                requests.len() - 1
            });
            requests[r].members.push(i);
        }
        Self {
            size,
            set,
            tried_again: vec![false; requests.len()],
            requests,
            next: 0,
            position,
            outstanding: HashMap::new(),
            again: Vec::new(),
            records: HashMap::new(),
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

    /// Frames of requests to send again, then of new ones, up to `window` outstanding.
    fn take_frames(&mut self, window: usize) -> Vec<u8> {
        let mut out = Vec::new();
        while self.outstanding.len() < window {
            let Some(r) = self.again.pop().or_else(|| {
                (self.next < self.requests.len()).then(|| {
                    self.next += 1;
                    self.next - 1
                })
            }) else {
                break;
            };
            let req = &self.requests[r];
            self.outstanding.insert(req.word, r);
            out.extend_from_slice(&req.frame);
            self.frames_sent += 1;
        }
        out
    }

    /// Puts every outstanding request in line to be sent again, once: those sent again
    /// before are given up. How many go again.
    fn resend_all(&mut self) -> usize {
        let lost: Vec<usize> = self.outstanding.drain().map(|(_, r)| r).collect();
        for r in lost {
            if !self.tried_again[r] {
                self.tried_again[r] = true;
                self.again.push(r);
            }
        }
        self.resent += self.again.len();
        self.again.len()
    }

    /// The request of `word` answered: it leaves the outstanding ones (`None` if it was not
    /// outstanding: an answer after it was given up, counted once per frame sent).
    fn answered_request(&mut self, word: u64) -> Option<usize> {
        let Some(r) = self.outstanding.remove(&word) else {
            if self.position.contains_key(&word) && self.frames_answered + self.late < self.frames_sent {
                self.late += 1;
            }
            return None;
        };
        self.frames_answered += 1;
        Some(r)
    }

    /// A result payload; whether it answered an outstanding subproblem.
    fn receive(&mut self, payload: &[u8], with_cycles: bool) -> bool {
        let Ok(c) = validate::check(self.size, payload, with_cycles) else {
            return false;
        };
        let Some(r) = self.answered_request(c.wire) else {
            return false;
        };
        self.take(self.requests[r].members[0], c.count, c.cycles, None);
        true
    }

    /// A group record; whether it completed the answer to an outstanding group (an answer
    /// short of a record completes nothing: its group is sent again after the silence).
    fn receive_record(&mut self, payload: &[u8]) -> bool {
        let Ok(rec) = validate::record(self.size, payload) else {
            return false;
        };
        let g = rec.wire;
        if !self.outstanding.contains_key(&g) {
            if matches!(rec.body, Body::End { .. }) {
                self.answered_request(g);
            }
            return false;
        }
        let answer = self.records.entry(g).or_insert_with(|| group::Answer::new(g));
        let walked = match answer.push(&rec) {
            Ok(None) => return false,
            Ok(Some(w)) => w,
            Err(_) => {
                self.records.remove(&g);
                return false;
            }
        };
        self.records.remove(&g);
        let r = self.answered_request(g).expect("outstanding");
        let table = PairTable::new(self.size);
        let Ok(members) = group::members(&table, g) else {
            return true;
        };
        // A record of a place code that names no south side of the group makes the whole
        // answer wrong (the host refuses it): each member is then taken as the answer's other
        // records read it, and counted wrong whatever its count.
        let results = group::member_results(&table, &members, &walked);
        for i in self.requests[r].members.clone() {
            let rank = (members.iter())
                .position(|m| *m == self.set[i].sub)
                .expect("a member of its group");
            let (count, share) = results.each[rank];
            self.take(i, count, Some(share), results.unknown_place);
        }
        true
    }

    /// The answer for subproblem `i` of the set, checked against software and the model.
    /// `unknown`: a place code of the answer that names no south side of the group, which
    /// makes the answer wrong.
    fn take(&mut self, i: usize, count: u64, cycles: Option<u64>, unknown: Option<u32>) {
        if self.answered[i] {
            return;
        }
        self.answered[i] = true;
        self.cycles[i] = cycles;
        let k = &self.set[i];
        let wrong = |expected, got| Wrong {
            index: k.index,
            preplacement: k.sub.pre.to_string(),
            expected,
            got,
            unknown_place: None,
        };
        if count != k.solutions || unknown.is_some() {
            let w = Wrong {
                unknown_place: unknown,
                ..wrong(k.solutions, count)
            };
            self.wrong_counts.push(w);
        }
        if let Some(cy) = cycles.filter(|&cy| cy != k.cycles) {
            self.other_cycles.push(wrong(k.cycles, cy));
        }
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
        self.next >= self.requests.len() && self.outstanding.is_empty() && self.again.is_empty()
    }
}
