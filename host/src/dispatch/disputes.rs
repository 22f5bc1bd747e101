//! Disputes and quarantine: counts that disagree are settled when two independent sources
//! agree, and a board caught giving a wrong count loses every count it ever gave, in this
//! session and the earlier ones.

use super::jobs::{Counted, Job, Mask, Purpose, Source};
use super::trust::SoftWhy;
use super::{DispatchError, Dispatcher};
use crate::store::history::{self, Event};
use crate::store::Store;

/// Counts gathered for one disputed subproblem before it is left unsettled.
const MAX_VOTES: usize = 5;

impl<S: Store> Dispatcher<S> {
    /// Opens (or joins) the dispute of a subproblem whose store entry holds `stored`.
    pub(super) fn dispute(
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
    pub(super) fn vote(&mut self, wire: u64, s: Source, count: u64) -> Result<(), DispatchError> {
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
    pub(super) fn try_settle(&mut self, wire: u64) -> Result<bool, DispatchError> {
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

    /// A board caught lying: its link is dropped, every count it gave withdrawn from the
    /// store (this session's one by one, the earlier sessions' by its solver id) and computed
    /// again elsewhere.
    pub(super) fn quarantine(&mut self, l: usize, why: String) -> Result<(), DispatchError> {
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
        // And every count it gave in earlier sessions: the store hands those out again.
        let solver = self.links[l].solver;
        self.store
            .withdraw_solver(solver, &format!("{label} quarantined: {why}"))?;
        self.store_exhausted = false;
        Ok(())
    }

    /// Checks and disputes that no live board may take any more go to software, or end.
    pub(super) fn unstrand(&mut self) -> Result<(), DispatchError> {
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
}
