//! Sending: which job a link runs next, how long its result may take, and what goes back to
//! the queue when it does not come.

use super::jobs::{Job, Purpose};
use super::Dispatcher;
use crate::store::{Store, StoreError};
use queens_core::entry::Stamp;
use queens_core::{frame, word};
use std::time::{Duration, Instant};

impl<S: Store> Dispatcher<S> {
    /// Takes a job off its link and puts it back in the queue.
    pub(super) fn requeue(&mut self, wire: u64) {
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
                self.links[l].window.cut(sent, depth, now);
                let job = self.jobs.get_mut(&wire).expect("outstanding");
                job.avoid = job.avoid.with(l);
            }
            self.requeue(wire);
        }
    }

    pub fn next_deadline(&self) -> Option<Instant> {
        self.deadlines.first().map(|&(d, _)| d)
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

    /// Jobs on link `l` older than the suspect age and sent before one it answered (at most
    /// its slack): a board that answers nothing may be stalled, holding every slot.
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
        let answered = link.window.answered_upto();
        link.order
            .iter()
            .take_while(|&&(t, _)| now.saturating_duration_since(t) > age && answered.is_some_and(|a| a > t))
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
        if std::mem::take(&mut self.links[l].ask_ident) {
            // Our boards answer with what they hold; Queens@TUD's drop it as a bad frame.
            out.extend(queens_core::ident::request(self.size));
        }
        let suspects = self.suspects(l, now);
        while self.links[l].in_flight < self.links[l].window.room(suspects) {
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
}
