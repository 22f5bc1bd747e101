//! The learned window of a link: how many subproblems it may hold now. Learned as TCP learns
//! its own: it starts small, grows while results come back and halves when one goes missing,
//! never beyond the link's limit.

use std::time::Instant;

/// The window a link starts with, and after it reconnects.
const INITIAL_WINDOW: f64 = 4.0;

pub(super) struct Window {
    /// The most the link may ever hold (units and queue, as configured).
    limit: usize,
    /// The congestion window and its slow-start threshold.
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
}

impl Window {
    pub(super) fn new(limit: usize) -> Self {
        Self {
            limit,
            cwnd: INITIAL_WINDOW.min(limit as f64),
            ssthresh: limit as f64,
            ceiling: limit,
            backoff: 0,
            clean: 0,
            answered_upto: None,
            cut_at: None,
        }
    }

    pub(super) fn limit(&self) -> usize {
        self.limit
    }

    /// Subproblems the link may hold now.
    pub(super) fn size(&self) -> usize {
        (self.cwnd as usize).clamp(1, self.ceiling.min(self.limit))
    }

    /// A reconnected board may have been reset: its window is learned again.
    pub(super) fn restart(&mut self) {
        self.cwnd = INITIAL_WINDOW.min(self.limit as f64);
        self.ceiling = self.limit;
        self.backoff = 0;
        self.cut_at = None;
    }

    /// A result came back: the window grows, by one per result below the threshold (slow
    /// start) and by one per window above it.
    pub(super) fn grow(&mut self) {
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

    /// The link answered a subproblem sent at `sent`.
    pub(super) fn answered(&mut self, sent: Instant) {
        self.answered_upto = self.answered_upto.max(Some(sent));
    }

    /// The latest send time of a subproblem this link answered.
    pub(super) fn answered_upto(&self) -> Option<Instant> {
        self.answered_upto
    }

    /// A subproblem sent at `sent` went missing: the window halves, once for all the
    /// subproblems that were in flight together.
    pub(super) fn cut(&mut self, sent: Instant, depth: usize, now: Instant) {
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
