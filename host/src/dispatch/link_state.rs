//! What the dispatcher knows of one link: its standing (up, dropped, quarantined), what it
//! holds, its learned window, its framing, its answer times and its figures.

use super::counters::Counters;
use super::window::Window;
use super::word_map::WordMap;
use crate::link::framing::Framing;
use queens_core::group::Answer;
use queens_core::UnitKind;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

pub struct LinkState {
    pub label: String,
    pub solver: u16,
    /// Probably lost subproblems that may be replaced by new work before they time out.
    pub slack: usize,
    pub up: bool,
    /// An identification request goes out before the next subproblem (after each connect).
    pub(super) ask_ident: bool,
    /// Why the link was given up for this run (quarantined or incompatible), if it was.
    pub dropped: Option<String>,
    /// Dropped because its board was caught giving wrong counts.
    pub quarantined: bool,
    /// Requests on the board now: subproblems, or groups on a board of grouped units.
    pub in_flight: usize,
    /// Its units, plain until its identification says otherwise: a board of grouped units is
    /// sent a group request for the subproblems of one group, and answers with a record per
    /// south side.
    pub unit: UnitKind,
    /// Group requests on the board: each group word with the jobs it carries.
    pub(super) requests: WordMap<Vec<u64>>,
    /// The records of group answers received so far.
    pub(super) answers: WordMap<Answer>,
    pub(super) window: Window,
    /// Requests sent (a job of each), oldest first (entries of jobs no longer on the link are dropped
    /// lazily).
    pub(super) order: VecDeque<(Instant, u64)>,
    pub counters: Counters,
    pub(super) framing: Framing,
    /// Longest latency of the current and the previous 1024 results.
    lat_max: [Duration; 2],
    lat_n: u32,
    /// Results counted from this link this session (index, wire), withdrawn if it is caught.
    pub(super) gave: Vec<(u64, u64)>,
}

impl LinkState {
    /// A link of at most `limit` subproblems whose window starts below `start` (see
    /// [`Window`]).
    pub(super) fn new(
        label: &str,
        solver: u16,
        (limit, start): (usize, usize),
        slack: usize,
        framing: Framing,
    ) -> Self {
        LinkState {
            label: label.into(),
            solver,
            slack,
            up: false,
            ask_ident: false,
            dropped: None,
            quarantined: false,
            in_flight: 0,
            unit: UnitKind::Plain,
            requests: WordMap::default(),
            answers: WordMap::default(),
            window: Window::new(limit, start),
            order: VecDeque::new(),
            counters: Counters::default(),
            framing,
            lat_max: [Duration::ZERO; 2],
            lat_n: 0,
            gave: Vec::new(),
        }
    }

    /// The most it may ever hold (units and queue, as configured).
    pub fn limit(&self) -> usize {
        self.window.limit()
    }

    /// The longest answer time of the last 1024 to 2048 results (zero before the first).
    pub(super) fn recent_latency(&self) -> Duration {
        self.lat_max[0].max(self.lat_max[1])
    }

    pub(super) fn observe_latency(&mut self, lat: Duration) {
        self.lat_max[0] = self.lat_max[0].max(lat);
        self.lat_n += 1;
        if self.lat_n == 1024 {
            self.lat_max[1] = self.lat_max[0];
            self.lat_max[0] = Duration::ZERO;
            self.lat_n = 0;
        }
    }

    pub fn with_cycles(&self) -> Option<bool> {
        self.framing.with_cycles()
    }

    /// Subproblems it may hold now.
    pub fn window(&self) -> usize {
        self.window.size()
    }

    pub(super) fn live(&self) -> bool {
        self.dropped.is_none()
    }
}
