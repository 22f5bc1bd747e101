//! The learned window of a link: how many subproblems it may hold now. Learned as TCP learns
//! its own: it starts small, grows while results come back and halves when one goes missing,
//! never beyond the link's limit.
//!
//! A board that has not said what it holds (Queens@TUD's knows no identification and no flow
//! control: it drops what it has no room for) starts below what the smallest such board
//! holds, and the ceiling rises from its answers. A board of ours says its units; it then
//! holds its units and its queue at once.

use std::time::Instant;

/// The window a link starts with, and after it reconnects.
const INITIAL_WINDOW: f64 = 4.0;

pub(super) struct Window {
    /// The most the link may ever hold (units and queue, as configured or as the board said).
    limit: usize,
    configured: usize,
    /// The congestion window and its slow-start threshold.
    cwnd: f64,
    ssthresh: f64,
    /// The ceiling a link starts with before its board says what it holds.
    start: usize,
    /// The board said what it holds.
    said: bool,
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
    /// A window of at most `limit`, its ceiling `start` until the board says more.
    pub(super) fn new(limit: usize, start: usize) -> Self {
        let start = start.clamp(1, limit);
        Self {
            limit,
            configured: limit,
            cwnd: INITIAL_WINDOW.min(start as f64),
            ssthresh: limit as f64,
            start,
            said: false,
            ceiling: start,
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

    /// Subproblems the link may hold now with `suspects` of them probably lost. A board that
    /// has not said what it holds gets none beyond its ceiling: the suspect may only be late,
    /// and a board without flow control drops what it has no room for.
    pub(super) fn room(&self, suspects: usize) -> usize {
        let room = self.size() + suspects;
        if self.said {
            room
        } else {
            room.min(self.ceiling.min(self.limit))
        }
    }

    /// A reconnected board may have been reset: its window is learned again.
    pub(super) fn restart(&mut self) {
        self.limit = self.configured;
        self.cwnd = INITIAL_WINDOW.min(self.start as f64);
        self.ceiling = self.start;
        self.said = false;
        self.backoff = 0;
        self.cut_at = None;
    }

    /// The board said it holds `holds` subproblems at once (its units and queue): the window
    /// opens to that at once, whatever was configured (the board knows better).
    pub(super) fn board_holds(&mut self, holds: usize) {
        let holds = holds.max(1);
        self.limit = holds;
        self.ceiling = holds;
        self.cwnd = holds as f64;
        self.ssthresh = holds as f64;
        self.backoff = 0;
        self.clean = 0;
        self.said = true;
    }

    /// Whether the board said what it holds.
    pub(super) fn said(&self) -> bool {
        self.said
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
        // up, says nothing of its size; one that said what it holds is never sent more, so
        // what it lost the link lost: its room stays.)
        if !self.said && self.answered_upto.is_some_and(|a| a > sent) {
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
