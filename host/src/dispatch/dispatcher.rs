//! The dispatcher itself: its state, its links coming and going, and what the runner asks of
//! it. Sending is in `queue`, receiving in `results`, checking in `trust` and `disputes`.

use super::counters::Counters;
use super::jobs::{Counted, Job, Mask};
use super::link_state::LinkState;
use super::timeouts::Timeouts;
use super::trust::{SoftWhy, Trust};
use super::word_map::WordMap;
use super::{DispatchError, MAX_LINKS};
use crate::link::framing::Framing;
use crate::store::{Claim, Store};
use queens_core::board::PairTable;
use queens_core::BoardSize;
use std::collections::{BTreeSet, HashSet, VecDeque};
use std::time::Instant;

pub struct Dispatcher<S: Store> {
    pub(super) size: BoardSize,
    /// The side pairs of this N (for the members of a group).
    pub(super) table: PairTable,
    pub(super) store: S,
    pub(super) timeouts: Timeouts,
    pub(super) trust: Trust,
    pub(super) rng: fastrand::Rng,
    pub(super) links: Vec<LinkState>,
    pub(super) jobs: WordMap<Job>,
    /// Jobs waiting for a link (by wire word); stale entries are skipped.
    pub(super) queue: VecDeque<u64>,
    /// Claimed from the store, not yet sent.
    pub(super) fresh: VecDeque<Claim>,
    pub(super) store_exhausted: bool,
    pub(super) deadlines: BTreeSet<(Instant, u64)>,
    pub(super) recent: WordMap<Counted>,
    pub(super) recent_order: VecDeque<u64>,
    /// Software recomputations asked for and not yet answered, and those not yet handed out.
    pub(super) soft: WordMap<(u64, SoftWhy)>,
    pub(super) soft_new: Vec<u64>,
    /// Entries withdrawn from the store (a quarantined board's), to be solved again.
    pub(super) withdrawn: HashSet<u64>,
    /// Links dropped since the runner last asked.
    pub(super) newly_dropped: Vec<usize>,
    /// Disputes that failed to settle.
    pub unsettled: u64,
}

impl<S: Store> Dispatcher<S> {
    pub fn new(store: S, timeouts: Timeouts) -> Self {
        Self {
            size: store.size(),
            table: PairTable::new(store.size()),
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

    pub fn links(&self) -> &[LinkState] {
        &self.links
    }

    /// A board behind `label` that may hold up to `limit` subproblems, of which `slack` may
    /// be replaced when they look lost; starts down.
    pub fn add_link(&mut self, label: &str, limit: usize, slack: usize) -> Result<usize, DispatchError> {
        if self.links.len() == MAX_LINKS {
            return Err(DispatchError::TooManyLinks);
        }
        let solver = self.store.solver_id(label)?;
        let framing = Framing::new(self.size);
        // Until the board says what it holds, no more than the smallest Queens@TUD board
        // holds: it has no flow control and drops what it has no room for.
        let start = queens_sim::tud_board::holds(self.size, 1);
        self.links.push(LinkState::new(
            label,
            solver,
            (limit.max(1), start),
            slack,
            framing,
        ));
        Ok(self.links.len() - 1)
    }

    /// A link's connection is open; a reconnected board may have been reset, so the framing
    /// starts afresh and the window is learned again.
    pub fn link_up(&mut self, l: usize) {
        let link = &mut self.links[l];
        if !link.live() {
            return;
        }
        link.up = true;
        link.ask_ident = true;
        link.window.restart();
        link.framing.reconnected();
    }

    /// A link's connection is gone: everything it held goes back to the queue, and what the
    /// old connection might still answer no longer counts.
    pub fn link_down(&mut self, l: usize) {
        self.links[l].up = false;
        // Records of the old connection never complete an answer.
        self.links[l].answers.clear();
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
    pub(super) fn other_up(&self, l: usize, avoid: Mask) -> bool {
        self.links
            .iter()
            .enumerate()
            .any(|(i, k)| i != l && k.up && k.live() && !avoid.has(i))
    }

    /// Whether a live link outside `avoid` exists (up or coming back).
    pub(super) fn any_live(&self, avoid: Mask) -> bool {
        self.links
            .iter()
            .enumerate()
            .any(|(i, k)| k.live() && !avoid.has(i))
    }

    /// Gives up link `l` for this run.
    pub(super) fn drop_link(&mut self, l: usize, why: String) -> Result<(), DispatchError> {
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
}
