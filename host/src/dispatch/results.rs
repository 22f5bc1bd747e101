//! Receiving: the frames of a link's bytes, and what each result means (a count, a check, a
//! vote, a duplicate or a contradiction). A board of grouped units answers a group request
//! with records, taken only whole (`queens_core::group::Answer`): then each member of the
//! group this link was sent counts as a result of its own, with its share of the walk's cycles
//! (`queens_core::group::cycle_shares`); an answer short of a record sends the group again.

use super::jobs::{Counted, Job, Kind, Mask, Source};
use super::{DispatchError, Dispatcher};
use crate::store::Store;
use crate::validate::{self, Rejection};
use queens_core::entry::Solution;
use queens_core::group::{self, Walked};
use queens_core::word;
use queens_core::UnitKind;
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
        // A board of another N is dropped by its frames.
        let ident = got.ident.filter(|id| id.n == size.n());
        if let Some(id) = ident.filter(|_| !link.window.said()) {
            // Its units and the front end's queue (of subproblems, or of groups).
            let holds = queens_hdl::front::holds(id.units as usize);
            tracing::info!(link = %link.label, units = id.units, holds, unit = %id.unit, "board identified");
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
        if ident.is_some_and(|id| id.unit == UnitKind::Grouped) && self.links[l].unit == UnitKind::Plain {
            self.grouped(l);
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
        for p in got.records {
            if !self.links[l].live() {
                break;
            }
            match validate::record(size, &p) {
                Ok(r) => self.record(l, r, now)?,
                Err(why) => self.reject(l, why),
            }
        }
        Ok(())
    }

    /// Link `l`'s board said it is one of grouped units: group requests from now on. What
    /// went to it before, one subproblem a frame, its front end dropped as corrupt: back to
    /// the queue, as if never sent.
    fn grouped(&mut self, l: usize) {
        let link = &mut self.links[l];
        tracing::info!(link = %link.label, "a board of grouped units: sending it group requests");
        link.unit = UnitKind::Grouped;
        link.framing.grouped();
        let sent: Vec<u64> = self
            .jobs
            .iter()
            .filter(|(_, j)| j.on.is_some_and(|(on, _, _)| on == l))
            .map(|(&w, _)| w)
            .collect();
        for wire in sent {
            self.unsend(wire);
            self.queue.push_back(wire);
        }
    }

    /// One record of a group answer from link `l`.
    fn record(&mut self, l: usize, r: group::GroupRecord, now: Instant) -> Result<(), DispatchError> {
        let g = r.wire;
        let answer = self.links[l]
            .answers
            .entry(g)
            .or_insert_with(|| group::Answer::new(g));
        match answer.push(&r) {
            Ok(None) => Ok(()),
            Ok(Some(walked)) => {
                self.links[l].answers.remove(&g);
                self.group_answer(l, g, walked, now)
            }
            Err(source) if !source.transient() => Err(DispatchError::WrapLost { group: g }),
            Err(source) => {
                self.links[l].answers.remove(&g);
                self.reject(l, Rejection::Answer { group: g, source });
                self.resend_group(l, g);
                Ok(())
            }
        }
    }

    /// The group request `g` on link `l`, if it is there, goes back to the queue whole.
    fn resend_group(&mut self, l: usize, g: u64) {
        let members = self.links[l].requests.get(&g).cloned().unwrap_or_default();
        for wire in members {
            self.requeue(wire);
        }
    }

    /// A whole answer to group `g` from link `l`: a result for each member this link was sent
    /// (members it was not sent, such as those of another host's lease block, are left alone).
    fn group_answer(&mut self, l: usize, g: u64, walked: Walked, now: Instant) -> Result<(), DispatchError> {
        let members = match group::members(&self.table, g) {
            Ok(m) if !m.is_empty() => m,
            _ => {
                self.reject(l, Rejection::NoGroup { group: g });
                return Ok(());
            }
        };
        let total = walked.souths.iter().fold(0u64, |t, s| t.saturating_add(s.1));
        if total > walked.cycles {
            // A unit finds at most one solution per clock cycle.
            self.reject(
                l,
                Rejection::Implausible {
                    wire: g,
                    count: total,
                    cycles: walked.cycles,
                },
            );
            self.resend_group(l, g);
            return Ok(());
        }
        let results = group::member_results(&self.table, &members, &walked);
        if let Some(code) = results.unknown_place {
            self.reject(l, Rejection::South { group: g, code });
            self.resend_group(l, g);
            return Ok(());
        }
        // The answer time, once for the whole request.
        let first = self.links[l].requests.get(&g).and_then(|m| m.first().copied());
        if let Some((on, sent, _)) = first.and_then(|w| self.jobs[&w].on) {
            if on == l {
                self.answered(l, sent, now);
            }
        }
        for (m, (count, share)) in members.iter().zip(results.each) {
            let wire = word::encode_wire(&m.pre).expect("canonical pre-placements fit their word");
            let sent_here = self.jobs.get(&wire).is_some_and(|j| j.sent.has(l))
                || self.recent.get(&wire).is_some_and(|c| c.sent.has(l));
            if sent_here && self.links[l].live() {
                let r = validate::Checked {
                    wire,
                    count,
                    cycles: Some(share),
                    wrapped: false,
                };
                self.take(l, r)?;
            }
        }
        // Every member of the request has its result now (or went back to the queue); a job
        // a vote kept waiting leaves the request with it.
        self.resend_group(l, g);
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

    /// Removes an outstanding job, freeing its place on its link.
    pub(super) fn finish(&mut self, wire: u64) -> Job {
        self.unsend(wire);
        self.jobs.remove(&wire).expect("outstanding")
    }

    /// Link `l` answered a request sent at `sent`: its latency, and its window grows.
    fn answered(&mut self, l: usize, sent: Instant, now: Instant) {
        let link = &mut self.links[l];
        link.observe_latency(now - sent);
        link.window.grow();
        link.window.answered(sent);
    }

    pub(super) fn solution(&self, l: usize, count: u64) -> Solution {
        Solution::new(self.links[l].solver, count).expect("solver ids are 1..=4095")
    }

    fn result(&mut self, l: usize, r: validate::Checked, now: Instant) -> Result<(), DispatchError> {
        if r.wrapped {
            tracing::warn!(link = %self.links[l].label, count = r.count, "the board's 44-bit counter wrapped; the digits restored the count");
        }
        let on = self
            .jobs
            .get(&r.wire)
            .filter(|j| j.sent.has(l))
            .and_then(|j| j.on);
        if let Some((on, sent, _)) = on {
            if on == l {
                self.answered(l, sent, now);
            }
        }
        self.take(l, r)
    }

    /// The count of one subproblem from link `l`: for its job if the link was sent it, else
    /// a late answer.
    fn take(&mut self, l: usize, r: validate::Checked) -> Result<(), DispatchError> {
        let wire = r.wire;
        let Some(job) = self.jobs.get(&wire).filter(|j| j.sent.has(l)) else {
            return self.late(l, r);
        };
        match job.purpose.kind() {
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
