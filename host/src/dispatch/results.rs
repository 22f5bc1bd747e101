//! Receiving: the frames of a link's bytes, and what each result means (a count, a check, a
//! vote, a duplicate or a contradiction).

use super::jobs::{Counted, Job, Kind, Mask, Source};
use super::{DispatchError, Dispatcher};
use crate::store::Store;
use crate::validate::{self, Rejection};
use queens_core::entry::Solution;
use queens_core::word;
use std::time::Instant;

/// How many counted results are remembered for duplicates (late answers come within seconds).
const RECENT: usize = 1 << 18;

impl<S: Store> Dispatcher<S> {
    /// Bytes received from link `l`.
    pub fn feed(&mut self, l: usize, bytes: &[u8], now: Instant) -> Result<(), DispatchError> {
        if !self.links[l].live() {
            return Ok(());
        }
        let size = self.size;
        let link = &mut self.links[l];
        let got = match link.framing.push(bytes) {
            Ok(got) => got,
            Err(incompatible) => return self.drop_link(l, incompatible.to_string()),
        };
        if let Some(id) = got.ident.filter(|id| id.n == size.n() && !link.window.said()) {
            // Its units and the front end's queue; a board of another N is dropped by its
            // frames.
            let holds = queens_hdl::front::holds(id.units as usize);
            tracing::info!(link = %link.label, units = id.units, holds, "board identified");
            link.window.board_holds(holds);
        }
        if let Some(c) = got.recognised {
            tracing::info!(link = %link.label, cycles = c, "results recognised");
        }
        let bad = got.bad_crc;
        link.counters.rejected_frames += bad;
        link.counters.skipped_bytes += got.skipped;
        if bad > 0 {
            tracing::info!(link = %link.label, frames = bad, "frames with a bad CRC rejected");
        }
        for (p, c) in got.frames {
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

    pub(super) fn remember(&mut self, wire: u64, c: Counted) {
        if self.recent.insert(wire, c).is_none() {
            self.recent_order.push_back(wire);
            if self.recent_order.len() > RECENT {
                let old = self.recent_order.pop_front().expect("not empty");
                self.recent.remove(&old);
            }
        }
    }

    /// Removes an outstanding job, freeing its link's slot.
    pub(super) fn finish(&mut self, wire: u64) -> Job {
        let job = self.jobs.remove(&wire).expect("outstanding");
        if let Some((on, _, due)) = job.on {
            self.links[on].in_flight -= 1;
            self.deadlines.remove(&(due, wire));
        }
        job
    }

    pub(super) fn solution(&self, l: usize, count: u64) -> Solution {
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
                let link = &mut self.links[l];
                link.observe_latency(now - sent);
                link.window.grow();
                link.window.answered(sent);
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
}
