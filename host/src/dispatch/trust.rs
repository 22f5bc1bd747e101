//! Trust and verification: which results a second source recomputes, and what its answer
//! means for the board that gave them.

use super::jobs::{Job, Mask, Purpose, Source};
use super::{DispatchError, Dispatcher};
use crate::store::Store;
use crate::validate;
use queens_core::{word, Preplacement};

/// Which results are recomputed by a second source, and where.
#[derive(Debug, Clone, Copy)]
pub struct Trust {
    /// Share of results recomputed after probation (`--verify`).
    pub verify: f64,
    /// A link's first results this session, all recomputed.
    pub probation: u64,
    /// Software recomputes every result of at most this many unit cycles (or, for a board
    /// without cycle counters, every result when N is at most `trivial_n`): cheaper than
    /// receiving the frame. 0: none (a share of a group's walk can be 0 cycles).
    pub trivial_cycles: u64,
    pub trivial_n: u32,
    /// Software recomputes a chosen result of at most this many unit cycles (or any below
    /// `cheap_n`); a larger one goes to another board when there is one. 0: none.
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
        cycles.map_or(n <= self.trivial_n, |c| {
            self.trivial_cycles > 0 && c <= self.trivial_cycles
        })
    }

    fn cheap(&self, n: u32, cycles: Option<u64>) -> bool {
        cycles.map_or(n <= self.cheap_n, |c| {
            self.cheap_cycles > 0 && c <= self.cheap_cycles
        })
    }
}

/// Costly software checks waiting beyond which a chosen one is skipped (only a board alone,
/// at large N, gets there).
const SOFT_BACKLOG: usize = 4;

/// What a software recomputation is for.
#[derive(Clone, Copy)]
pub(super) enum SoftWhy {
    /// A spot check of `by`'s count.
    Check { count: u64, by: usize },
    /// A vote in a dispute.
    Vote,
}

impl<S: Store> Dispatcher<S> {
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

    /// Whether to recompute a result link `l` just gave (its `nth` this session), and where.
    pub(super) fn spot_check(&mut self, l: usize, wire: u64, index: u64, r: validate::Checked, nth: u64) {
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

    pub(super) fn ask_software(&mut self, wire: u64, index: u64, why: SoftWhy) {
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
}
