//! The dispatcher: which subproblem goes to which link, and what each returned frame means.
//! No I/O here: the runner feeds it bytes, the clock and the software recomputations it asked
//! for, and sends what it returns, so every rule below is tested without threads or sockets.
//!
//! Rules:
//! - A link holds at most its window of subproblems. The window is learned as TCP learns its
//!   own: it starts small, grows while results come back and halves when one goes missing,
//!   never beyond the link's limit (`--solvers` plus the margin).
//! - A result counts only from a link its subproblem was sent to, while it is outstanding;
//!   then it leaves the outstanding set, so nothing is counted twice. A subproblem whose
//!   result does not come back in time goes back to the queue, preferably for another link,
//!   with twice the timeout each time.
//! - Trust is earned: every result of a link's first [`Trust::probation`] and a random
//!   [`Trust::verify`] share of the rest are recomputed by another source, in software where
//!   that is cheap and on another board otherwise (every result when software is cheaper than
//!   the frame). A disagreement is settled only when two independent sources (two boards, or a
//!   board and software) agree; a board whose count differs from the settled one, or from
//!   software, or from its own earlier count, is quarantined: its link is dropped and every
//!   result it gave in this session is withdrawn and computed again elsewhere.
//! - A link that sends no valid frame (another protocol, another N, garbage) is dropped; the
//!   others go on.

use crate::store::history::{self, Event};
use crate::store::{Claim, Store, StoreError};
use crate::validate::{self, Rejection};
use queens_core::entry::{Solution, Stamp};
use queens_core::frame::{self, Deframed, Deframer};
use queens_core::result::ResultRecord;
use queens_core::{word, BoardSize, Preplacement};
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
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

/// Which results are recomputed by a second source, and where.
#[derive(Debug, Clone, Copy)]
pub struct Trust {
    /// Share of results recomputed after probation (`--verify`).
    pub verify: f64,
    /// A link's first results this session, all recomputed.
    pub probation: u64,
    /// Software recomputes every result of at most this many unit cycles (or, for a board
    /// without cycle counters, every result when N is at most `trivial_n`): cheaper than
    /// receiving the frame.
    pub trivial_cycles: u64,
    pub trivial_n: u32,
    /// Software recomputes a chosen result of at most this many unit cycles (or any below
    /// `cheap_n`); a larger one goes to another board when there is one.
    pub cheap_cycles: u64,
    pub cheap_n: u32,
}

impl Default for Trust {
    fn default() -> Self {
        Self {
            verify: 0.01,
            probation: 16,
            trivial_cycles: 20_000,
            trivial_n: 13,
            cheap_cycles: 100_000_000,
            cheap_n: 18,
        }
    }
}

impl Trust {
    /// Nothing recomputed (`--verify 0`): every count is taken as the board gave it.
    pub const OFF: Trust = Trust {
        verify: 0.0,
        probation: 0,
        trivial_cycles: 0,
        trivial_n: 0,
        cheap_cycles: 0,
        cheap_n: 0,
    };

    fn trivial(&self, n: u32, cycles: Option<u64>) -> bool {
        cycles.map_or(n <= self.trivial_n, |c| c <= self.trivial_cycles)
    }

    fn cheap(&self, n: u32, cycles: Option<u64>) -> bool {
        cycles.map_or(n <= self.cheap_n, |c| c <= self.cheap_cycles)
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
    /// Results of no subproblem sent to this link and outstanding (late answers of an earlier
    /// session, or answers for another link's work).
    pub unknown: u64,
    /// Bytes skipped while hunting for a frame.
    pub skipped_bytes: u64,
    /// Counted results a second source recomputed and agreed with.
    pub verified: u64,
    /// Counted results withdrawn when the link was quarantined.
    pub withdrawn: u64,
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
        self.verified += o.verified;
        self.withdrawn += o.withdrawn;
    }
}

/// Links a dispatcher can drive (one bit each in a job's masks).
pub const MAX_LINKS: usize = 64;

#[derive(Debug, thiserror::Error)]
pub enum DispatchError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("more than {MAX_LINKS} links in one run")]
    TooManyLinks,
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

/// The window a link starts with, and after it reconnects.
const INITIAL_WINDOW: f64 = 4.0;

/// Costly software checks waiting beyond which a chosen one is skipped (only a board alone,
/// at large N, gets there).
const SOFT_BACKLOG: usize = 4;

/// Counts gathered for one disputed subproblem before it is left unsettled.
const MAX_VOTES: usize = 5;

pub struct Link {
    pub label: String,
    pub solver: u16,
    /// The most it may ever hold (units and queue, as configured).
    pub limit: usize,
    /// Probably lost subproblems that may be replaced by new work before they time out.
    pub slack: usize,
    pub up: bool,
    /// Why the link was given up for this run (quarantined or incompatible), if it was.
    pub dropped: Option<String>,
    /// Dropped because its board was caught giving wrong counts.
    pub quarantined: bool,
    /// Subproblems on the board now.
    pub in_flight: usize,
    /// The learned window (congestion window) and its slow-start threshold.
    cwnd: f64,
    ssthresh: f64,
    /// What the board is believed to hold: lowered to just below the depth at which a
    /// subproblem went missing, raised by one again after `ceiling << backoff` clean results
    /// (a board without back-pressure drops what it has no room for; probing its size
    /// costs a lost frame each time, so it is done ever more rarely).
    ceiling: usize,
    backoff: u32,
    clean: u64,
    /// The latest send time of a subproblem this link answered.
    answered_upto: Option<Instant>,
    /// Jobs sent before this were in flight at the last cut of the window.
    cut_at: Option<Instant>,
    /// Subproblems sent, oldest first (entries of jobs no longer on the link are dropped
    /// lazily).
    order: VecDeque<(Instant, u64)>,
    pub counters: Counters,
    framing: Framing,
    /// Longest latency of the current and the previous 1024 results.
    lat_max: [Duration; 2],
    lat_n: u32,
    /// Results counted from this link this session (index, wire), withdrawn if it is caught.
    gave: Vec<(u64, u64)>,
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

    /// Subproblems it may hold now.
    pub fn window(&self) -> usize {
        (self.cwnd as usize).clamp(1, self.ceiling.min(self.limit))
    }

    fn live(&self) -> bool {
        self.dropped.is_none()
    }

    /// A result came back: the window grows, by one per result below the threshold (slow
    /// start) and by one per window above it.
    fn grow(&mut self) {
        let step = if self.cwnd < self.ssthresh {
            1.0
        } else {
            1.0 / self.cwnd
        };
        self.cwnd = (self.cwnd + step).min(self.limit as f64);
        self.clean += 1;
        if self.ceiling < self.limit && self.clean >= (self.ceiling as u64) << self.backoff {
            self.ceiling += 1;
            self.clean = 0;
        }
    }

    /// A subproblem sent at `sent` went missing: the window halves, once for all the
    /// subproblems that were in flight together.
    fn cut(&mut self, sent: Instant, depth: usize, now: Instant) {
        if self.cut_at.is_some_and(|c| sent < c) {
            return;
        }
        // The board answered work sent after this: it was alive and had no room, so it
        // holds less than this one's depth. (A board that lost everything, reset or not yet
        // up, says nothing of its size.)
        if self.answered_upto.is_some_and(|a| a > sent) {
            let below = depth.saturating_sub(1).max(1);
            if below < self.ceiling {
                self.ceiling = below;
            }
        }
        self.backoff = (self.backoff + 1).min(12);
        self.clean = 0;
        self.cwnd = (self.cwnd / 2.0).max(1.0);
        self.ssthresh = self.cwnd.max(2.0);
        self.cut_at = Some(now);
    }
}

/// One bit per link.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Mask(u64);

impl Mask {
    fn has(self, l: usize) -> bool {
        self.0 >> l & 1 == 1
    }

    fn with(self, l: usize) -> Mask {
        Mask(self.0 | 1 << l)
    }

    fn without(self, l: usize) -> Mask {
        Mask(self.0 & !(1 << l))
    }
}

/// Who gave a count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Board(usize),
    Software,
}

/// What an outstanding subproblem waits for.
enum Purpose {
    /// Its first count.
    Count,
    /// A second board's count of a result `by` counted as `count`.
    Check { count: u64, by: usize },
    /// Counts from independent sources, until two agree; `stored` is in the store.
    Dispute { votes: Vec<(Source, u64)>, stored: u64 },
}

struct Job {
    index: u64,
    /// The link it is on, when it was sent, and when it is due.
    on: Option<(usize, Instant, Instant)>,
    /// Times it went back to the queue.
    attempts: u32,
    /// Subproblems its link held with it, when it was sent.
    depth: usize,
    /// Links it was sent to on their current connection: only their answers count.
    sent: Mask,
    /// Links it should not go to while another can take it (or, when `strict`, at all:
    /// a check or a dispute needs another source).
    avoid: Mask,
    strict: bool,
    purpose: Purpose,
}

/// A counted subproblem, remembered to recognise its duplicates and contradictions.
#[derive(Clone, Copy)]
struct Counted {
    index: u64,
    count: u64,
    by: usize,
    sent: Mask,
}

/// What a software recomputation is for.
#[derive(Clone, Copy)]
enum SoftWhy {
    /// A spot check of `by`'s count.
    Check { count: u64, by: usize },
    /// A vote in a dispute.
    Vote,
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
    trust: Trust,
    rng: fastrand::Rng,
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
    /// Software recomputations asked for and not yet answered, and those not yet handed out.
    soft: WordMap<(u64, SoftWhy)>,
    soft_new: Vec<u64>,
    /// Entries withdrawn from the store (a quarantined board's), to be solved again.
    withdrawn: HashSet<u64>,
    /// Links dropped since the runner last asked.
    newly_dropped: Vec<usize>,
    /// Disputes that failed to settle.
    pub unsettled: u64,
}

impl<S: Store> Dispatcher<S> {
    pub fn new(store: S, timeouts: Timeouts) -> Self {
        Self {
            size: store.size(),
            store,
            timeouts,
            trust: Trust::default(),
            rng: fastrand::Rng::new(),
            links: Vec::new(),
            jobs: WordMap::default(),
            queue: VecDeque::new(),
            fresh: VecDeque::new(),
            store_exhausted: false,
            deadlines: BTreeSet::new(),
            recent: WordMap::default(),
            recent_order: VecDeque::new(),
            soft: WordMap::default(),
            soft_new: Vec::new(),
            withdrawn: HashSet::new(),
            newly_dropped: Vec::new(),
            unsettled: 0,
        }
    }

    /// Which results to recompute; `seed` fixes the random choice (tests).
    pub fn with_trust(mut self, trust: Trust, seed: Option<u64>) -> Self {
        self.trust = trust;
        if let Some(s) = seed {
            self.rng = fastrand::Rng::with_seed(s);
        }
        self
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

    /// A board behind `label` that may hold up to `limit` subproblems, of which `slack` may
    /// be replaced when they look lost; starts down.
    pub fn add_link(&mut self, label: &str, limit: usize, slack: usize) -> Result<usize, DispatchError> {
        if self.links.len() == MAX_LINKS {
            return Err(DispatchError::TooManyLinks);
        }
        let solver = self.store.solver_id(label)?;
        let plen = |c| ResultRecord::payload_len(self.size, c);
        let limit = limit.max(1);
        self.links.push(Link {
            label: label.into(),
            solver,
            limit,
            slack,
            up: false,
            dropped: None,
            quarantined: false,
            in_flight: 0,
            cwnd: INITIAL_WINDOW.min(limit as f64),
            ssthresh: limit as f64,
            ceiling: limit,
            backoff: 0,
            clean: 0,
            answered_upto: None,
            cut_at: None,
            order: VecDeque::new(),
            counters: Counters::default(),
            framing: Framing::Detecting {
                plain: Deframer::new(plen(false)),
                cycles: Deframer::new(plen(true)),
                seen: Vec::new(),
            },
            lat_max: [Duration::ZERO; 2],
            lat_n: 0,
            gave: Vec::new(),
        });
        Ok(self.links.len() - 1)
    }

    /// A link's connection is open; a reconnected board may have been reset, so the framing
    /// is detected afresh and the window learned again.
    pub fn link_up(&mut self, l: usize) {
        let plen = |c| ResultRecord::payload_len(self.size, c);
        let link = &mut self.links[l];
        if !link.live() {
            return;
        }
        link.up = true;
        link.cwnd = INITIAL_WINDOW.min(link.limit as f64);
        link.ceiling = link.limit;
        link.backoff = 0;
        link.cut_at = None;
        if let Framing::Locked { with_cycles, .. } = link.framing {
            link.framing = Framing::Locked {
                deframer: Deframer::new(plen(with_cycles)),
                with_cycles,
            };
        }
    }

    /// A link's connection is gone: everything it held goes back to the queue, and what the
    /// old connection might still answer no longer counts.
    pub fn link_down(&mut self, l: usize) {
        self.links[l].up = false;
        let mut held = Vec::new();
        for (&w, j) in self.jobs.iter_mut() {
            j.sent = j.sent.without(l);
            if j.on.is_some_and(|(on, _, _)| on == l) {
                held.push(w);
            }
        }
        for wire in held {
            self.requeue(wire);
        }
    }

    /// Links given up since the last call (quarantined or incompatible): the runner closes
    /// them and does not reopen them.
    pub fn take_dropped(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.newly_dropped)
    }

    /// Whether every link has been given up.
    pub fn all_dropped(&self) -> bool {
        self.links.iter().all(|l| !l.live())
    }

    /// Software recomputations to start: (wire word, pre-placement). Answer each with
    /// [`Dispatcher::software`].
    pub fn take_software(&mut self) -> Vec<(u64, Preplacement)> {
        let size = self.size;
        std::mem::take(&mut self.soft_new)
            .into_iter()
            .map(|w| {
                let pre = word::decode_wire(size, w).expect("words the host sent decode");
                (w, pre)
            })
            .collect()
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

    /// Sends results that did not come back in time to the queue again, preferably for
    /// another link; the link's window shrinks.
    pub fn expire(&mut self, now: Instant) {
        while let Some(&(due, wire)) = self.deadlines.first() {
            if due > now {
                break;
            }
            if let Some((l, sent, _)) = self.jobs.get(&wire).and_then(|j| j.on) {
                tracing::info!(link = %self.links[l].label, wire = format_args!("{wire:#x}"), "no result in time: sending again");
                let depth = self.jobs[&wire].depth;
                self.links[l].cut(sent, depth, now);
                let job = self.jobs.get_mut(&wire).expect("outstanding");
                job.avoid = job.avoid.with(l);
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

    /// Every subproblem this session could claim is counted, and every recomputation done.
    pub fn finished(&self) -> bool {
        self.store_exhausted && self.fresh.is_empty() && self.jobs.is_empty() && self.soft.is_empty()
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

    /// Whether a live link other than `l` and outside `avoid` is up.
    fn other_up(&self, l: usize, avoid: Mask) -> bool {
        self.links
            .iter()
            .enumerate()
            .any(|(i, k)| i != l && k.up && k.live() && !avoid.has(i))
    }

    /// Whether a live link outside `avoid` exists (up or coming back).
    fn any_live(&self, avoid: Mask) -> bool {
        self.links
            .iter()
            .enumerate()
            .any(|(i, k)| k.live() && !avoid.has(i))
    }

    /// The next job link `l` should run: a waiting one it is not asked to avoid, or a fresh one.
    fn next_job(&mut self, l: usize) -> Result<Option<u64>, StoreError> {
        let mut k = 0;
        while k < self.queue.len() {
            let wire = self.queue[k];
            // Entries of jobs counted since, or sent again already, are dropped.
            let Some(job) = self.jobs.get(&wire).filter(|j| j.on.is_none()) else {
                self.queue.remove(k);
                continue;
            };
            let avoided = job.avoid.has(l) && (job.strict || self.other_up(l, job.avoid));
            if !avoided {
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
        self.jobs.insert(wire, Job::new(c.index, Purpose::Count));
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
        if !self.links[l].up || !self.links[l].live() {
            return Ok(out);
        }
        let suspects = self.suspects(l, now);
        while self.links[l].in_flight < self.links[l].window() + suspects {
            let Some(wire) = self.next_job(l)? else {
                break;
            };
            let attempts = self.jobs[&wire].attempts;
            let due = now + self.timeout(l, attempts);
            let job = self.jobs.get_mut(&wire).expect("just taken");
            job.on = Some((l, now, due));
            job.sent = job.sent.with(l);
            job.depth = self.links[l].in_flight + 1;
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
        if !self.links[l].live() {
            return Ok(());
        }
        let mut frames: Vec<(Vec<u8>, bool)> = Vec::new();
        let mut bad = 0u64;
        let mut skipped = 0u64;
        let size = self.size;
        let link = &mut self.links[l];
        let mut incompatible = None;
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
                    incompatible = Some(format!(
                        "the board does not speak this protocol for N = {}: {}",
                        size.n(),
                        diagnose(seen, size)
                    ));
                }
            }
        }
        if let Some(why) = incompatible {
            return self.drop_link(l, why);
        }
        let link = &mut self.links[l];
        link.counters.rejected_frames += bad;
        link.counters.skipped_bytes += skipped;
        if bad > 0 {
            tracing::info!(link = %link.label, frames = bad, "frames with a bad CRC rejected");
        }
        for (p, c) in frames {
            if !self.links[l].live() {
                break;
            }
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

    fn solution(&self, l: usize, count: u64) -> Solution {
        Solution::new(self.links[l].solver, count).expect("solver ids are 1..=4095")
    }

    fn result(&mut self, l: usize, r: validate::Checked, now: Instant) -> Result<(), DispatchError> {
        let wire = r.wire;
        if r.wrapped {
            tracing::warn!(link = %self.links[l].label, count = r.count, "the board's 44-bit counter wrapped; the digits restored the count");
        }
        let Some(job) = self.jobs.get(&wire).filter(|j| j.sent.has(l)) else {
            return self.late(l, r);
        };
        let (on, purpose) = (job.on, job.purpose.kind());
        if let Some((on, sent, _)) = on {
            if on == l {
                self.observe_latency(l, now - sent);
                let link = &mut self.links[l];
                link.grow();
                link.answered_upto = link.answered_upto.max(Some(sent));
            }
        }
        match purpose {
            Kind::Count => {
                let job = self.finish(wire);
                let sol = self.solution(l, r.count);
                self.withdrawn.remove(&job.index);
                self.store.solve(job.index, sol, r.cycles)?;
                let link = &mut self.links[l];
                link.counters.solved += 1;
                link.gave.push((job.index, wire));
                let nth = link.counters.solved;
                self.remember(
                    wire,
                    Counted {
                        index: job.index,
                        count: r.count,
                        by: l,
                        sent: job.sent,
                    },
                );
                self.spot_check(l, wire, job.index, r, nth);
            }
            Kind::Check { count, by } => {
                let job = self.finish(wire);
                if let Some(c) = self.recent.get_mut(&wire) {
                    c.sent = Mask(c.sent.0 | job.sent.0);
                }
                if r.count == count {
                    self.links[by].counters.verified += 1;
                } else {
                    self.links[l].counters.conflicts += 1;
                    tracing::error!(link = %self.links[l].label, first = %self.links[by].label, index = job.index, counted = count, now = r.count, "a recomputation disagrees: asking software and another board");
                    let votes = vec![(Source::Board(by), count), (Source::Board(l), r.count)];
                    self.dispute(wire, job.index, count, votes, job.sent)?;
                }
            }
            Kind::Dispute => {
                self.vote(wire, Source::Board(l), r.count)?;
            }
        }
        Ok(())
    }

    /// Whether to recompute a result link `l` just gave (its `nth` this session), and where.
    fn spot_check(&mut self, l: usize, wire: u64, index: u64, r: validate::Checked, nth: u64) {
        let t = self.trust;
        let n = self.size.n();
        let trivial = t.trivial(n, r.cycles);
        let chosen = nth <= t.probation || (t.verify > 0.0 && self.rng.f64() < t.verify);
        if !trivial && !chosen {
            return;
        }
        let why = SoftWhy::Check {
            count: r.count,
            by: l,
        };
        if trivial || t.cheap(n, r.cycles) {
            self.ask_software(wire, index, why);
            return;
        }
        if !self.any_live(Mask::default().with(l)) {
            // No other board: software, as far as one thread keeps up (a board of large N
            // answers faster than software recomputes); the probation is done whatever it costs.
            if nth <= t.probation || self.soft.len() < SOFT_BACKLOG {
                self.ask_software(wire, index, why);
            }
            return;
        }
        let mut job = Job::new(
            index,
            Purpose::Check {
                count: r.count,
                by: l,
            },
        );
        job.avoid = Mask::default().with(l);
        job.strict = true;
        self.jobs.insert(wire, job);
        self.queue.push_back(wire);
    }

    fn ask_software(&mut self, wire: u64, index: u64, why: SoftWhy) {
        if self.soft.insert(wire, (index, why)).is_none() {
            self.soft_new.push(wire);
        }
    }

    /// Software's count of a subproblem it was asked for.
    pub fn software(&mut self, wire: u64, count: u64) -> Result<(), DispatchError> {
        let Some((index, why)) = self.soft.remove(&wire) else {
            return Ok(());
        };
        if matches!(
            self.jobs.get(&wire).map(|j| &j.purpose),
            Some(Purpose::Dispute { .. })
        ) {
            return self.vote(wire, Source::Software, count);
        }
        let SoftWhy::Check { count: given, by } = why else {
            return Ok(());
        };
        // A check of a board given up since is moot: its results are being recomputed.
        if !self.links[by].live() {
            return Ok(());
        }
        if count == given {
            self.links[by].counters.verified += 1;
            return Ok(());
        }
        self.links[by].counters.conflicts += 1;
        tracing::error!(link = %self.links[by].label, index, counted = given, software = count, "a board's count differs from software's");
        self.quarantine(
            by,
            format!("its count {given} of subproblem {index} differs from software's {count}"),
        )?;
        let votes = vec![(Source::Board(by), given), (Source::Software, count)];
        self.dispute(wire, index, given, votes, Mask::default())
    }

    /// A result of no subproblem outstanding on link `l`: a duplicate, a contradiction, or
    /// unknown.
    fn late(&mut self, l: usize, r: validate::Checked) -> Result<(), DispatchError> {
        let label = self.links[l].label.clone();
        let Some(c) = self.recent.get(&r.wire).copied().filter(|c| c.sent.has(l)) else {
            self.links[l].counters.unknown += 1;
            match word::decode_wire(self.size, r.wire) {
                Ok(pre) => {
                    tracing::info!(link = %label, "result for ({pre}), which this link does not hold, ignored")
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
        if c.by == l {
            tracing::error!(link = %label, index = c.index, first = c.count, now = r.count, "a board gave two counts for one subproblem");
            return self.quarantine(
                l,
                format!(
                    "it gave two counts ({} and {}) for subproblem {}",
                    c.count, r.count, c.index
                ),
            );
        }
        tracing::error!(
            link = %label,
            first = %self.links[c.by].label,
            index = c.index,
            counted = c.count,
            now = r.count,
            "conflicting results for one subproblem: asking software and another board"
        );
        let votes = vec![(Source::Board(c.by), c.count), (Source::Board(l), r.count)];
        self.dispute(r.wire, c.index, c.count, votes, c.sent)
    }

    /// Opens (or joins) the dispute of a subproblem whose store entry holds `stored`.
    fn dispute(
        &mut self,
        wire: u64,
        index: u64,
        stored: u64,
        votes: Vec<(Source, u64)>,
        sent: Mask,
    ) -> Result<(), DispatchError> {
        let job = self
            .jobs
            .entry(wire)
            .or_insert_with(|| Job::new(index, Purpose::Count));
        job.sent = Mask(job.sent.0 | sent.0);
        job.strict = true;
        let mut all = match std::mem::replace(&mut job.purpose, Purpose::Count) {
            Purpose::Dispute { votes, .. } => votes,
            Purpose::Check { count, by } => vec![(Source::Board(by), count)],
            Purpose::Count => Vec::new(),
        };
        for v in votes {
            if !all.iter().any(|(s, _)| *s == v.0) {
                all.push(v);
            }
        }
        for (s, _) in &all {
            if let Source::Board(b) = s {
                job.avoid = job.avoid.with(*b);
            }
        }
        let has_software = all.iter().any(|(s, _)| *s == Source::Software);
        job.purpose = Purpose::Dispute { votes: all, stored };
        if job.on.is_none() {
            self.queue.push_back(wire);
        }
        if !has_software {
            self.ask_software(wire, index, SoftWhy::Vote);
        }
        self.try_settle(wire).map(|_| ())
    }

    /// A count for a disputed subproblem.
    fn vote(&mut self, wire: u64, s: Source, count: u64) -> Result<(), DispatchError> {
        let job = self.jobs.get_mut(&wire).expect("disputed");
        let Purpose::Dispute { votes, .. } = &mut job.purpose else {
            unreachable!("a vote for a dispute");
        };
        if !votes.iter().any(|(v, _)| *v == s) {
            votes.push((s, count));
        }
        if let Source::Board(b) = s {
            job.avoid = job.avoid.with(b);
        }
        if !self.try_settle(wire)? {
            // Still open: another board is asked (a job answered by its board goes back).
            if self.jobs[&wire]
                .on
                .is_some_and(|(on, _, _)| Source::Board(on) == s)
            {
                self.requeue(wire);
            }
        }
        Ok(())
    }

    /// Settles a dispute when two sources agree: boards that said otherwise are quarantined
    /// and the store gets the agreed count. Gives up (unsettled) after [`MAX_VOTES`] counts or
    /// when no other board is left to ask.
    fn try_settle(&mut self, wire: u64) -> Result<bool, DispatchError> {
        let job = &self.jobs[&wire];
        let Purpose::Dispute { votes, stored } = &job.purpose else {
            return Ok(false);
        };
        let (index, stored) = (job.index, *stored);
        let agreed = votes
            .iter()
            .find(|(_, c)| votes.iter().filter(|(_, d)| d == c).count() >= 2)
            .map(|&(_, c)| c);
        let Some(v) = agreed else {
            let software_due = self.soft.contains_key(&wire);
            let exhausted = votes.len() >= MAX_VOTES || !self.any_live(job.avoid);
            if exhausted && !software_due {
                self.unsettled += 1;
                tracing::error!(index, "a disputed subproblem found no two agreeing counts; the stored one stays, verify it with `queens db verify`");
                self.finish(wire);
                if self.withdrawn.contains(&index) {
                    tracing::error!(index, "its entry stays unsolved: the campaign is not complete");
                }
                return Ok(true);
            }
            return Ok(false);
        };
        let liars: Vec<usize> = votes
            .iter()
            .filter_map(|&(s, c)| match s {
                Source::Board(b) if c != v => Some(b),
                _ => None,
            })
            .collect();
        let winner = votes
            .iter()
            .find_map(|&(s, c)| match s {
                Source::Board(b) if c == v => Some(b),
                _ => None,
            })
            .expect("two agreeing sources include a board");
        let software = votes.iter().find(|(s, _)| *s == Source::Software).map(|v| v.1);
        if software.is_some_and(|s| s != v) {
            tracing::error!(
                index,
                agreed = v,
                software = software,
                "two boards agree against software"
            );
        }
        let job = self.finish(wire);
        self.soft.remove(&wire);
        for b in liars {
            self.quarantine(
                b,
                format!("its count of subproblem {index} was outvoted ({v} agreed by two sources)"),
            )?;
        }
        let sol = self.solution(winner, v);
        if self.withdrawn.remove(&index) {
            self.store.solve(index, sol, None)?;
        } else if stored != v {
            tracing::warn!(
                index,
                was = stored,
                now = v,
                "dispute settled: the counted result was wrong and is corrected"
            );
            self.store.correct(index, sol)?;
        } else {
            tracing::warn!(index, count = v, "dispute settled: the counted result stands");
        }
        // Quarantining a liar above requeued this subproblem among its results: settled here.
        if self.jobs.contains_key(&wire) {
            self.finish(wire);
        }
        self.remember(
            wire,
            Counted {
                index,
                count: v,
                by: winner,
                sent: job.sent,
            },
        );
        Ok(true)
    }

    /// Gives up link `l` for this run.
    fn drop_link(&mut self, l: usize, why: String) -> Result<(), DispatchError> {
        if !self.links[l].live() {
            return Ok(());
        }
        tracing::error!(link = %self.links[l].label, "link given up: {why}");
        self.link_down(l);
        self.links[l].dropped = Some(why);
        self.newly_dropped.push(l);
        for j in self.jobs.values_mut() {
            j.avoid = j.avoid.with(l);
        }
        self.unstrand()
    }

    /// A board caught lying: its link is dropped, every count it gave this session withdrawn
    /// from the store and computed again elsewhere.
    fn quarantine(&mut self, l: usize, why: String) -> Result<(), DispatchError> {
        if !self.links[l].live() {
            return Ok(());
        }
        let label = self.links[l].label.clone();
        self.store.record(&Event::Quarantined {
            t: history::now(),
            link: label.clone(),
            solver: self.links[l].solver,
            reason: why.clone(),
        });
        self.drop_link(l, format!("quarantined: {why}"))?;
        self.links[l].quarantined = true;
        let gave = std::mem::take(&mut self.links[l].gave);
        tracing::error!(link = %label, results = gave.len(), "every count of the quarantined board withdrawn, to be computed again");
        for (index, wire) in gave {
            self.store.retract(index)?;
            self.withdrawn.insert(index);
            self.links[l].counters.withdrawn += 1;
            if self.recent.get(&wire).is_some_and(|c| c.by == l) {
                self.recent.remove(&wire);
            }
            match self.jobs.get_mut(&wire) {
                Some(j) => {
                    if let Purpose::Check { .. } = j.purpose {
                        j.purpose = Purpose::Count;
                        j.strict = false;
                    }
                }
                None => {
                    let mut job = Job::new(index, Purpose::Count);
                    job.avoid = Mask::default().with(l);
                    self.jobs.insert(wire, job);
                    self.queue.push_back(wire);
                }
            }
        }
        Ok(())
    }

    /// Checks and disputes that no live board may take any more go to software, or end.
    fn unstrand(&mut self) -> Result<(), DispatchError> {
        let stuck: Vec<u64> = self
            .jobs
            .iter()
            .filter(|(_, j)| j.on.is_none() && j.strict && !self.any_live(j.avoid))
            .map(|(&w, _)| w)
            .collect();
        for w in stuck {
            match self.jobs[&w].purpose {
                Purpose::Check { count, by } => {
                    let job = self.finish(w);
                    self.ask_software(w, job.index, SoftWhy::Check { count, by });
                }
                Purpose::Dispute { .. } => {
                    self.try_settle(w)?;
                }
                Purpose::Count => {}
            }
        }
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
}

/// A purpose without its votes.
#[derive(Clone, Copy)]
enum Kind {
    Count,
    Check { count: u64, by: usize },
    Dispute,
}

impl Purpose {
    fn kind(&self) -> Kind {
        match *self {
            Purpose::Count => Kind::Count,
            Purpose::Check { count, by } => Kind::Check { count, by },
            Purpose::Dispute { .. } => Kind::Dispute,
        }
    }
}

impl Job {
    fn new(index: u64, purpose: Purpose) -> Self {
        Job {
            index,
            on: None,
            attempts: 0,
            depth: 0,
            sent: Mask::default(),
            avoid: Mask::default(),
            strict: false,
            purpose,
        }
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
