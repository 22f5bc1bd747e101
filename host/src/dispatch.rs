//! The dispatcher: which subproblem goes to which link, and what each returned frame means.
//! No I/O here: the runner feeds it bytes and the clock and sends what it returns, so every
//! rule below is tested without threads or sockets.
//!
//! Rules: a link holds at most its window of subproblems. A result counts only if its echoed
//! word is outstanding, and then it leaves the outstanding set, so nothing is counted twice.
//! A subproblem whose result does not come back in time (lost, corrupted, the board reset)
//! goes back to the queue and is sent again, with twice the timeout each time. A second,
//! identical result is a duplicate; a different one is a conflict: the subproblem is
//! recomputed on another link, and two agreeing counts settle it.

use crate::store::{Claim, Store, StoreError};
use crate::validate::{self, Rejection};
use queens_core::entry::{Solution, Stamp};
use queens_core::frame::{self, Deframed, Deframer};
use queens_core::result::ResultRecord;
use queens_core::{word, BoardSize};
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::time::{Duration, Instant};

/// How long to wait for a result before sending its subproblem again.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// Before a link has returned anything (its latency is unknown), or always when `fixed`.
    pub first: Duration,
    /// Otherwise `factor` times the longest recent latency of the link, at least `floor`.
    pub factor: f64,
    pub floor: Duration,
    pub fixed: bool,
    /// A result older than `suspect` times the longest recent latency is probably lost: its
    /// slot in the window goes to new work (up to the link's slack) until it times out.
    pub suspect: f64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            first: Duration::from_secs(10),
            factor: 8.0,
            floor: Duration::from_millis(50),
            fixed: false,
            suspect: 2.0,
        }
    }
}

/// Figures of one link, or of the whole run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counters {
    /// Results counted.
    pub solved: u64,
    /// Subproblems sent again after a timeout, a link going down or a conflict.
    pub reissued: u64,
    /// Frames that failed their CRC or a check of their content.
    pub rejected_frames: u64,
    /// Identical results of a subproblem already counted.
    pub duplicates: u64,
    /// Results that contradicted a counted one.
    pub conflicts: u64,
    /// Results of no outstanding subproblem (late answers of an earlier session).
    pub unknown: u64,
    /// Bytes skipped while hunting for a frame.
    pub skipped_bytes: u64,
}

impl Counters {
    fn add(&mut self, o: &Counters) {
        self.solved += o.solved;
        self.reissued += o.reissued;
        self.rejected_frames += o.rejected_frames;
        self.duplicates += o.duplicates;
        self.conflicts += o.conflicts;
        self.unknown += o.unknown;
        self.skipped_bytes += o.skipped_bytes;
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DispatchError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{link}: the board does not speak this protocol for N = {n}: {diagnosis}")]
    Incompatible { link: String, n: u32, diagnosis: String },
}

/// Frames of one payload length, until the first good result tells whether the board sends
/// cycle counters.
enum Framing {
    Detecting {
        plain: Deframer,
        cycles: Deframer,
        seen: Vec<u8>,
    },
    Locked {
        deframer: Deframer,
        with_cycles: bool,
    },
}

/// Bytes a link may send without one good frame before it is called incompatible.
const DETECT_BYTES: usize = 4096;

pub struct Link {
    pub label: String,
    pub solver: u16,
    pub window: usize,
    /// Probably lost subproblems that may be replaced by new work before they time out.
    pub slack: usize,
    pub up: bool,
    /// Subproblems on the board now.
    pub in_flight: usize,
    /// Subproblems sent, oldest first (entries of jobs no longer on the link are dropped
    /// lazily).
    order: VecDeque<(Instant, u64)>,
    pub counters: Counters,
    framing: Framing,
    /// Longest latency of the current and the previous 1024 results.
    lat_max: [Duration; 2],
    lat_n: u32,
}

impl Link {
    /// The longest answer time of the last 1024 to 2048 results (zero before the first).
    fn recent_latency(&self) -> Duration {
        self.lat_max[0].max(self.lat_max[1])
    }

    pub fn with_cycles(&self) -> Option<bool> {
        match self.framing {
            Framing::Locked { with_cycles, .. } => Some(with_cycles),
            Framing::Detecting { .. } => None,
        }
    }
}

struct Job {
    index: u64,
    /// The link it is on, when it was sent, and when it is due.
    on: Option<(usize, Instant, Instant)>,
    /// Times it went back to the queue.
    attempts: u32,
    dispute: Option<Dispute>,
}

/// A counted result was contradicted: the counts seen since, and the links to avoid.
struct Dispute {
    stored: u64,
    seen: Vec<u64>,
    avoid: Vec<usize>,
}

/// A counted subproblem, remembered to recognise its duplicates.
#[derive(Clone, Copy)]
struct Counted {
    index: u64,
    count: u64,
    link: u32,
}

/// Hashes the u64 keys of the dispatcher's maps (wire words: already well mixed bits, no
/// adversary) with one multiplication instead of SipHash.
#[derive(Default, Clone, Copy)]
struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ v >> 29).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type WordMap<V> = HashMap<u64, V, std::hash::BuildHasherDefault<WordHasher>>;

/// How many counted results are remembered for duplicates (late answers come within seconds).
const RECENT: usize = 1 << 18;

pub struct Dispatcher<S: Store> {
    size: BoardSize,
    store: S,
    timeouts: Timeouts,
    links: Vec<Link>,
    jobs: WordMap<Job>,
    /// Jobs waiting for a link (by wire word); stale entries are skipped.
    queue: VecDeque<u64>,
    /// Claimed from the store, not yet sent.
    fresh: VecDeque<Claim>,
    store_exhausted: bool,
    deadlines: BTreeSet<(Instant, u64)>,
    recent: WordMap<Counted>,
    recent_order: VecDeque<u64>,
    /// Disputes that failed to settle after many recomputations.
    pub unsettled: u64,
}

impl<S: Store> Dispatcher<S> {
    pub fn new(store: S, timeouts: Timeouts) -> Self {
        Self {
            size: store.size(),
            store,
            timeouts,
            links: Vec::new(),
            jobs: WordMap::default(),
            queue: VecDeque::new(),
            fresh: VecDeque::new(),
            store_exhausted: false,
            deadlines: BTreeSet::new(),
            recent: WordMap::default(),
            recent_order: VecDeque::new(),
            unsettled: 0,
        }
    }

    pub fn store(&self) -> &S {
        &self.store
    }

    pub fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }

    pub fn into_store(self) -> S {
        self.store
    }

    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// A board behind `label` that holds `window` subproblems, of which `slack` may be
    /// replaced when they look lost; starts down.
    pub fn add_link(&mut self, label: &str, window: usize, slack: usize) -> Result<usize, StoreError> {
        let solver = self.store.solver_id(label)?;
        let plen = |c| ResultRecord::payload_len(self.size, c);
        self.links.push(Link {
            label: label.into(),
            solver,
            window: window.max(1),
            slack,
            up: false,
            in_flight: 0,
            order: VecDeque::new(),
            counters: Counters::default(),
            framing: Framing::Detecting {
                plain: Deframer::new(plen(false)),
                cycles: Deframer::new(plen(true)),
                seen: Vec::new(),
            },
            lat_max: [Duration::ZERO; 2],
            lat_n: 0,
        });
        Ok(self.links.len() - 1)
    }

    /// A link's connection is open; a reconnected board may have been reset, so the framing
    /// is detected afresh.
    pub fn link_up(&mut self, l: usize) {
        let plen = |c| ResultRecord::payload_len(self.size, c);
        let link = &mut self.links[l];
        link.up = true;
        if let Framing::Locked { with_cycles, .. } = link.framing {
            link.framing = Framing::Locked {
                deframer: Deframer::new(plen(with_cycles)),
                with_cycles,
            };
        }
    }

    /// A link's connection is gone: everything it held goes back to the queue.
    pub fn link_down(&mut self, l: usize) {
        self.links[l].up = false;
        let held: Vec<u64> = self
            .jobs
            .iter()
            .filter(|(_, j)| j.on.is_some_and(|(on, _, _)| on == l))
            .map(|(&w, _)| w)
            .collect();
        for wire in held {
            self.requeue(wire);
        }
    }

    /// Takes a job off its link and puts it back in the queue.
    fn requeue(&mut self, wire: u64) {
        let job = self.jobs.get_mut(&wire).expect("outstanding");
        if let Some((l, _, due)) = job.on.take() {
            self.links[l].in_flight -= 1;
            self.deadlines.remove(&(due, wire));
        }
        job.attempts += 1;
        self.queue.push_back(wire);
    }

    fn timeout(&self, l: usize, attempts: u32) -> Duration {
        let t = &self.timeouts;
        let lat = self.links[l].recent_latency();
        let base = if t.fixed || lat.is_zero() {
            t.first
        } else {
            lat.mul_f64(t.factor).max(t.floor)
        };
        base * (1u32 << attempts.min(6))
    }

    /// Sends results that did not come back in time to the queue again.
    pub fn expire(&mut self, now: Instant) {
        while let Some(&(due, wire)) = self.deadlines.first() {
            if due > now {
                break;
            }
            if let Some((l, _, _)) = self.jobs.get(&wire).and_then(|j| j.on) {
                tracing::info!(link = %self.links[l].label, wire = format_args!("{wire:#x}"), "no result in time: sending again");
            }
            self.requeue(wire);
        }
    }

    pub fn next_deadline(&self) -> Option<Instant> {
        self.deadlines.first().map(|&(d, _)| d)
    }

    /// Asks the store for work again after it ran out (a shared store's leases expire).
    pub fn rewind(&mut self) {
        self.store_exhausted = false;
    }

    /// Every subproblem this session could claim is counted.
    pub fn finished(&self) -> bool {
        self.store_exhausted && self.fresh.is_empty() && self.jobs.is_empty()
    }

    /// Subproblems outstanding on links or waiting to be sent again.
    pub fn outstanding(&self) -> usize {
        self.jobs.len()
    }

    pub fn totals(&self) -> Counters {
        let mut c = Counters::default();
        for l in &self.links {
            c.add(&l.counters);
        }
        c
    }

    /// The next job link `l` should run: a waiting one it is not asked to avoid, or a fresh one.
    fn next_job(&mut self, l: usize) -> Result<Option<u64>, StoreError> {
        let others_up = self.links.iter().enumerate().any(|(i, k)| i != l && k.up);
        let mut k = 0;
        while k < self.queue.len() {
            let wire = self.queue[k];
            // Entries of jobs counted since, or sent again already, are dropped.
            let Some(job) = self.jobs.get(&wire).filter(|j| j.on.is_none()) else {
                self.queue.remove(k);
                continue;
            };
            let avoided = job.dispute.as_ref().is_some_and(|d| d.avoid.contains(&l));
            if !avoided || !others_up {
                self.queue.remove(k);
                return Ok(Some(wire));
            }
            k += 1;
        }
        if self.fresh.is_empty() && !self.store_exhausted {
            let batch = self.store.claim(256, Stamp::now())?;
            self.store_exhausted = batch.len() < 256;
            self.fresh.extend(batch);
        }
        // A shared store may hand out again what this host already runs (a block whose lease
        // lapsed and came back to it): one job per subproblem.
        let (c, wire) = loop {
            let Some(c) = self.fresh.pop_front() else {
                return Ok(None);
            };
            let wire = word::encode_wire(&c.sub.pre).expect("canonical pre-placements fit their word");
            if !self.jobs.contains_key(&wire) {
                break (c, wire);
            }
        };
        self.jobs.insert(
            wire,
            Job {
                index: c.index,
                on: None,
                attempts: 0,
                dispute: None,
            },
        );
        Ok(Some(wire))
    }

    /// Jobs on link `l` older than the suspect age (at most its slack).
    fn suspects(&mut self, l: usize, now: Instant) -> usize {
        let lat = self.links[l].recent_latency();
        if lat.is_zero() || self.links[l].slack == 0 {
            return 0;
        }
        let age = lat.mul_f64(self.timeouts.suspect).max(self.timeouts.floor / 2);
        let jobs = &self.jobs;
        let on_l = |&(t, w): &(Instant, u64)| {
            jobs.get(&w)
                .is_some_and(|j| j.on.is_some_and(|(k, s, _)| k == l && s == t))
        };
        let link = &mut self.links[l];
        if link.order.len() > 2 * link.in_flight + 64 {
            link.order.retain(on_l);
        }
        while link.order.front().is_some_and(|e| !on_l(e)) {
            link.order.pop_front();
        }
        link.order
            .iter()
            .take_while(|&&(t, _)| now.saturating_duration_since(t) > age)
            .filter(|e| on_l(e))
            .take(link.slack)
            .count()
    }

    /// Frames to send on link `l` so that it holds its window.
    pub fn fill(&mut self, l: usize, now: Instant) -> Result<Vec<u8>, StoreError> {
        let mut out = Vec::new();
        let suspects = self.suspects(l, now);
        while self.links[l].up && self.links[l].in_flight < self.links[l].window + suspects {
            let Some(wire) = self.next_job(l)? else {
                break;
            };
            let attempts = self.jobs[&wire].attempts;
            let due = now + self.timeout(l, attempts);
            let job = self.jobs.get_mut(&wire).expect("just taken");
            job.on = Some((l, now, due));
            self.deadlines.insert((due, wire));
            let link = &mut self.links[l];
            link.in_flight += 1;
            link.order.push_back((now, wire));
            if attempts > 0 {
                link.counters.reissued += 1;
            }
            out.extend_from_slice(&frame::encode(&word::wire_to_bytes(self.size, wire)));
        }
        Ok(out)
    }

    /// Bytes received from link `l`.
    pub fn feed(&mut self, l: usize, bytes: &[u8], now: Instant) -> Result<(), DispatchError> {
        let mut frames: Vec<(Vec<u8>, bool)> = Vec::new();
        let mut bad = 0u64;
        let mut skipped = 0u64;
        let size = self.size;
        let link = &mut self.links[l];
        match &mut link.framing {
            Framing::Locked {
                deframer,
                with_cycles,
            } => {
                let c = *with_cycles;
                deframer.push(bytes, |d| match d {
                    Deframed::Frame(p) => frames.push((p, c)),
                    Deframed::BadCrc { .. } => bad += 1,
                    Deframed::Skipped(n) => skipped += n as u64,
                });
            }
            Framing::Detecting { plain, cycles, seen } => {
                // Both variants read the stream; the first good result decides.
                let mut found = None;
                for (d, c) in [(plain, false), (cycles, true)] {
                    d.push(bytes, |x| {
                        if let Deframed::Frame(p) = x {
                            if found.is_none() && validate::check(size, &p, c).is_ok() {
                                found = Some(c);
                            }
                        }
                    });
                }
                seen.extend_from_slice(bytes);
                if let Some(c) = found {
                    tracing::info!(link = %link.label, cycles = c, "results recognised");
                    let mut d = Deframer::new(ResultRecord::payload_len(size, c));
                    let replay = std::mem::take(seen);
                    d.push(&replay, |x| match x {
                        Deframed::Frame(p) => frames.push((p, c)),
                        Deframed::BadCrc { .. } => bad += 1,
                        Deframed::Skipped(n) => skipped += n as u64,
                    });
                    link.framing = Framing::Locked {
                        deframer: d,
                        with_cycles: c,
                    };
                } else if seen.len() > DETECT_BYTES {
                    return Err(DispatchError::Incompatible {
                        link: link.label.clone(),
                        n: size.n(),
                        diagnosis: diagnose(seen, size),
                    });
                }
            }
        }
        let link = &mut self.links[l];
        link.counters.rejected_frames += bad;
        link.counters.skipped_bytes += skipped;
        if bad > 0 {
            tracing::info!(link = %link.label, frames = bad, "frames with a bad CRC rejected");
        }
        for (p, c) in frames {
            match validate::check(size, &p, c) {
                Ok(r) => self.result(l, r, now)?,
                Err(why) => self.reject(l, why),
            }
        }
        Ok(())
    }

    fn reject(&mut self, l: usize, why: Rejection) {
        let link = &mut self.links[l];
        link.counters.rejected_frames += 1;
        tracing::info!(link = %link.label, "result rejected: {why}");
    }

    fn remember(&mut self, wire: u64, c: Counted) {
        if self.recent.insert(wire, c).is_none() {
            self.recent_order.push_back(wire);
            if self.recent_order.len() > RECENT {
                let old = self.recent_order.pop_front().expect("not empty");
                self.recent.remove(&old);
            }
        }
    }

    /// Removes an outstanding job, freeing its link's slot.
    fn finish(&mut self, wire: u64) -> Job {
        let job = self.jobs.remove(&wire).expect("outstanding");
        if let Some((on, _, due)) = job.on {
            self.links[on].in_flight -= 1;
            self.deadlines.remove(&(due, wire));
        }
        job
    }

    fn result(&mut self, l: usize, r: validate::Checked, now: Instant) -> Result<(), DispatchError> {
        let wire = r.wire;
        let label = self.links[l].label.clone();
        if r.wrapped {
            tracing::warn!(link = %label, count = r.count, "the board's 44-bit counter wrapped; the digits restored the count");
        }
        let Some(job) = self.jobs.get(&wire) else {
            return self.stray(l, r);
        };
        if job.dispute.is_some() {
            return self.settle(l, r);
        }
        if let Some((on, sent, _)) = job.on {
            if on == l {
                self.observe_latency(l, now - sent);
            }
        }
        let job = self.finish(wire);
        let solver = self.links[l].solver;
        self.store.solve(
            job.index,
            Solution::new(solver, r.count).expect("solver ids are 1..=4095"),
            r.cycles,
        )?;
        self.links[l].counters.solved += 1;
        self.remember(
            wire,
            Counted {
                index: job.index,
                count: r.count,
                link: l as u32,
            },
        );
        Ok(())
    }

    fn observe_latency(&mut self, l: usize, lat: Duration) {
        let link = &mut self.links[l];
        link.lat_max[0] = link.lat_max[0].max(lat);
        link.lat_n += 1;
        if link.lat_n == 1024 {
            link.lat_max[1] = link.lat_max[0];
            link.lat_max[0] = Duration::ZERO;
            link.lat_n = 0;
        }
    }

    /// A result of no outstanding subproblem: a duplicate, a conflict, or unknown.
    fn stray(&mut self, l: usize, r: validate::Checked) -> Result<(), DispatchError> {
        let label = self.links[l].label.clone();
        let Some(c) = self.recent.get(&r.wire).copied() else {
            self.links[l].counters.unknown += 1;
            match word::decode_wire(self.size, r.wire) {
                Ok(pre) => {
                    tracing::info!(link = %label, "result for ({pre}), which is not outstanding, ignored")
                }
                Err(e) => {
                    tracing::info!(link = %label, "result for a word that is no pre-placement ignored: {e}")
                }
            }
            return Ok(());
        };
        if c.count == r.count {
            self.links[l].counters.duplicates += 1;
            return Ok(());
        }
        self.links[l].counters.conflicts += 1;
        tracing::error!(
            link = %label,
            first = %self.links[c.link as usize].label,
            index = c.index,
            counted = c.count,
            now = r.count,
            "conflicting results for one subproblem: recomputing it on another link"
        );
        self.jobs.insert(
            r.wire,
            Job {
                index: c.index,
                on: None,
                attempts: 1,
                dispute: Some(Dispute {
                    stored: c.count,
                    seen: vec![r.count],
                    avoid: vec![l, c.link as usize],
                }),
            },
        );
        self.queue.push_back(r.wire);
        Ok(())
    }

    /// A recomputation of a disputed subproblem: two agreeing counts settle it.
    fn settle(&mut self, l: usize, r: validate::Checked) -> Result<(), DispatchError> {
        let wire = r.wire;
        let label = self.links[l].label.clone();
        let job = self.jobs.get_mut(&wire).expect("outstanding");
        let d = job.dispute.as_mut().expect("disputed");
        let index = job.index;
        if r.count == d.stored {
            tracing::warn!(link = %label, index, count = r.count, "dispute settled: the counted result stands");
        } else if d.seen.contains(&r.count) {
            tracing::warn!(link = %label, index, was = d.stored, now = r.count, "dispute settled: the counted result was wrong and is corrected");
            let solver = self.links[l].solver;
            self.store.correct(
                index,
                Solution::new(solver, r.count).expect("solver ids are 1..=4095"),
            )?;
        } else {
            d.seen.push(r.count);
            d.avoid.push(l);
            if d.seen.len() < 5 {
                tracing::error!(link = %label, index, count = r.count, "a third count for a disputed subproblem: recomputing again");
                self.requeue(wire);
                return Ok(());
            }
            self.unsettled += 1;
            tracing::error!(index, "a disputed subproblem gave five different counts; the first stays, verify it with `queens db verify`");
        }
        self.finish(wire);
        self.remember(
            wire,
            Counted {
                index,
                count: r.count,
                link: l as u32,
            },
        );
        Ok(())
    }
}

/// What the bytes of an incompatible board look like: results of which N and variant, if any.
fn diagnosis_of(seen: &[u8]) -> Option<(u32, bool)> {
    let mut best = None;
    let mut best_n = 2usize;
    for n in queens_core::board::MIN_N..=queens_core::board::MAX_N {
        let size = BoardSize::new(n).expect("in range");
        for c in [false, true] {
            let mut good = 0;
            Deframer::new(ResultRecord::payload_len(size, c)).push(seen, |d| {
                if let Deframed::Frame(p) = d {
                    // The words must be pre-placements of that N, too: that tells sizes of
                    // one word width apart.
                    if let Ok(r) = validate::check(size, &p, c) {
                        good += word::decode_wire(size, r.wire).is_ok() as usize;
                    }
                }
            });
            if good > best_n {
                best_n = good;
                best = Some((n, c));
            }
        }
    }
    best
}

fn diagnose(seen: &[u8], size: BoardSize) -> String {
    match diagnosis_of(seen) {
        // Frames that pass the checks for this N end the detection, so this is another N.
        Some((n, c)) => format!(
            "its frames are results for N = {n}{} (wire words of {} bytes, not {})",
            if c { " with cycle counters" } else { "" },
            BoardSize::new(n).map(word::wire_bytes).unwrap_or(0),
            word::wire_bytes(size)
        ),
        None => format!(
            "no valid result frame in its first {} bytes (another protocol, baud rate or device?)",
            seen.len()
        ),
    }
}
