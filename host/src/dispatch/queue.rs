//! Sending: which job a link runs next (with the rest of its group, on a board of grouped
//! units), how long its result may take, and what goes back to the queue when it does not come.

use super::jobs::{Job, Purpose};
use super::Dispatcher;
use crate::store::{Store, StoreError};
use queens_core::entry::Stamp;
use queens_core::UnitKind;
use queens_core::{frame, group, word};
use std::time::{Duration, Instant};

impl<S: Store> Dispatcher<S> {
    /// Takes a job off its link and puts it back in the queue.
    pub(super) fn requeue(&mut self, wire: u64) {
        self.unsend(wire);
        self.jobs.get_mut(&wire).expect("outstanding").attempts += 1;
        self.queue.push_back(wire);
    }

    /// Takes a job off its link (if it is on one): its deadline goes, and its place on the
    /// link is freed.
    pub(super) fn unsend(&mut self, wire: u64) {
        let job = self.jobs.get_mut(&wire).expect("outstanding");
        let group = job.group.take();
        if let Some((l, _, due)) = job.on.take() {
            self.deadlines.remove(&(due, wire));
            self.release(l, wire, group);
        }
    }

    /// Frees a job's place on link `l`: its request's slot, or (a member of group `group`)
    /// its part of the group's request, whose slot is freed with its last member.
    fn release(&mut self, l: usize, wire: u64, group: Option<u64>) {
        let link = &mut self.links[l];
        if let Some(g) = group {
            let members = link
                .requests
                .get_mut(&g)
                .expect("a member's request is on its link");
            members.retain(|&w| w != wire);
            if !members.is_empty() {
                return;
            }
            link.requests.remove(&g);
        }
        link.in_flight -= 1;
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

    /// Whether waiting job `wire` may go to link `l` now: not while it asks to avoid `l` (and
    /// another link could take it), nor, on a board of grouped units, while its group is
    /// already on `l` (the answers of two requests of one group could not be told apart).
    fn may_take(&self, l: usize, wire: u64) -> bool {
        let Some(job) = self.jobs.get(&wire).filter(|j| j.on.is_none()) else {
            return false;
        };
        let avoided = job.avoid.has(l) && (job.strict || self.other_up(l, job.avoid));
        let link = &self.links[l];
        let group_on_link =
            link.unit == UnitKind::Grouped && link.requests.contains_key(&group::group_of(self.size, wire));
        !(avoided || group_on_link)
    }

    /// Claims the next batch from the store when the claimed ones are used up.
    fn refill(&mut self) -> Result<(), StoreError> {
        if self.fresh.is_empty() && !self.store_exhausted {
            let batch = self.store.claim(256, Stamp::now())?;
            self.store_exhausted = batch.len() < 256;
            self.fresh.extend(batch);
        }
        Ok(())
    }

    /// The next claimed subproblem as a new job, unless this host runs it already (a shared
    /// store may hand out again a block whose lease lapsed and came back to it): one job per
    /// subproblem.
    fn next_fresh(&mut self) -> Result<Option<u64>, StoreError> {
        loop {
            self.refill()?;
            let Some(c) = self.fresh.pop_front() else {
                return Ok(None);
            };
            let wire = word::encode_wire(&c.sub.pre).expect("canonical pre-placements fit their word");
            if let std::collections::hash_map::Entry::Vacant(e) = self.jobs.entry(wire) {
                e.insert(Job::new(c.index, Purpose::Count));
                return Ok(Some(wire));
            }
        }
    }

    /// The next job link `l` should run: a waiting one it may take, or a fresh one.
    fn next_job(&mut self, l: usize) -> Result<Option<u64>, StoreError> {
        let mut k = 0;
        while k < self.queue.len() {
            let wire = self.queue[k];
            // Entries of jobs counted since, or sent again already, are dropped.
            if self.jobs.get(&wire).is_none_or(|j| j.on.is_some()) {
                self.queue.remove(k);
                continue;
            }
            if self.may_take(l, wire) {
                self.queue.remove(k);
                return Ok(Some(wire));
            }
            k += 1;
        }
        while let Some(wire) = self.next_fresh()? {
            if self.may_take(l, wire) {
                return Ok(Some(wire));
            }
            self.queue.push_back(wire);
        }
        Ok(None)
    }

    /// The jobs a group request for `first`'s group carries to link `l`: `first`, the rest of
    /// its group as the store hands it out (a group is a run of the canonical order, claimed
    /// whole unless a lease block of a shared store ends inside it: then the host of each
    /// block walks it and records its own members), and its members waiting in the queue.
    fn gather(&mut self, l: usize, first: u64) -> Result<(u64, Vec<u64>), StoreError> {
        let g = group::group_of(self.size, first);
        let mut members = vec![first];
        loop {
            self.refill()?;
            let Some(c) = self.fresh.front() else {
                break;
            };
            let wire = word::encode_wire(&c.sub.pre).expect("canonical pre-placements fit their word");
            if group::group_of(self.size, wire) != g {
                break;
            }
            if let Some(w) = self.next_fresh()? {
                members.push(w);
            }
        }
        let mut k = 0;
        while k < self.queue.len() {
            let wire = self.queue[k];
            if group::group_of(self.size, wire) == g && !members.contains(&wire) && self.may_take(l, wire) {
                self.queue.remove(k);
                members.push(wire);
            } else {
                k += 1;
            }
        }
        Ok((g, members))
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
            let (group, members) = if self.links[l].unit == UnitKind::Grouped {
                let (g, members) = self.gather(l, wire)?;
                out.extend(group::request_of(self.size, g));
                (Some(g), members)
            } else {
                out.extend(frame::encode(&word::wire_to_bytes(self.size, wire)));
                (None, vec![wire])
            };
            let attempts = self.jobs[&wire].attempts;
            let due = now + self.timeout(l, attempts);
            let depth = self.links[l].in_flight + 1;
            for &w in &members {
                let job = self.jobs.get_mut(&w).expect("just taken");
                job.on = Some((l, now, due));
                job.sent = job.sent.with(l);
                job.depth = depth;
                job.group = group;
                let again = job.attempts > 0;
                self.deadlines.insert((due, w));
                self.links[l].counters.reissued += again as u64;
            }
            let link = &mut self.links[l];
            link.in_flight += 1;
            link.order.push_back((now, wire));
            if let Some(g) = group {
                // Records of an earlier request of this group, cut short, end here.
                link.answers.remove(&g);
                link.requests.insert(g, members);
            }
        }
        Ok(out)
    }
}
