//! How long the dispatcher waits for a result before sending its subproblem again, and what
//! a subproblem of one N takes, which those waits follow.

use queens_core::BoardSize;
use std::time::Duration;

/// How long to wait for a result before sending its subproblem again.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// Before a link has returned anything (its latency is unknown), or always when `fixed`.
    pub first: Duration,
    /// Otherwise `factor` times the longest recent latency of the link, at least `floor`.
    pub factor: f64,
    pub floor: Duration,
    pub fixed: bool,
    /// A result older than `suspect` times the longest recent latency is probably lost: its
    /// slot in the window goes to new work (up to the link's slack) until it times out.
    pub suspect: f64,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            first: Duration::from_secs(10),
            factor: 8.0,
            floor: Duration::from_millis(50),
            fixed: false,
            suspect: 2.0,
        }
    }
}

/// The clock assumed for a board that does not say its own: slower than any board built
/// here (the slowest routed design runs above 100 MHz), so waits err on the long side.
pub const ASSUMED_HZ: f64 = 50e6;

/// What a subproblem of one N takes on a unit: the waits of a run follow from it (at N = 27
/// a mean one takes about 7 x 10^9 cycles, half a minute at 250 MHz, the slow ones far longer).
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    /// Seconds of a mean subproblem and of the slowest of those probed.
    pub mean: f64,
    pub slow: f64,
    /// The clock these assume.
    pub hz: f64,
}

impl Pace {
    /// Subproblems probed for the slowest.
    pub const PROBED: usize = 32;

    /// The pace of `size` on a unit at `hz` ([`ASSUMED_HZ`] when the board does not say).
    pub fn of(size: BoardSize, hz: Option<f64>) -> Self {
        let hz = hz.unwrap_or(ASSUMED_HZ);
        let (mean, slow) = queens_sim::estimate::subproblem_cycles(size, Self::PROBED);
        Self {
            mean: mean / hz,
            slow: slow / hz,
            hz,
        }
    }

    /// How long a board holding work may say nothing before it is named.
    pub fn silence(&self) -> Duration {
        Duration::from_secs_f64((3.0 * self.slow).max(30.0))
    }

    /// `fixed` seconds for every wait when given; else a first wait long enough for the
    /// slowest subproblem, then the defaults' latency-based ones.
    pub fn timeouts(&self, fixed: Option<f64>) -> Timeouts {
        match fixed {
            Some(t) => Timeouts {
                first: Duration::from_secs_f64(t),
                fixed: true,
                ..Timeouts::default()
            },
            None => Timeouts {
                first: Duration::from_secs_f64((8.0 * self.slow).max(10.0)),
                ..Timeouts::default()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_follow_the_slowest_subproblem() {
        let p = Pace {
            mean: 1.0,
            slow: 100.0,
            hz: ASSUMED_HZ,
        };
        assert_eq!(p.silence(), Duration::from_secs(300));
        assert_eq!(p.timeouts(None).first, Duration::from_secs(800));
        assert!(!p.timeouts(None).fixed);
        let t = p.timeouts(Some(2.5));
        assert_eq!((t.first, t.fixed), (Duration::from_millis(2500), true));
        let quick = Pace {
            mean: 1e-6,
            slow: 1e-5,
            hz: ASSUMED_HZ,
        };
        assert_eq!(quick.silence(), Duration::from_secs(30));
        assert_eq!(quick.timeouts(None).first, Duration::from_secs(10));
    }

    #[test]
    fn a_faster_clock_is_a_faster_pace() {
        let size = BoardSize::new(12).unwrap();
        let slow = Pace::of(size, None);
        let fast = Pace::of(size, Some(2.0 * ASSUMED_HZ));
        assert!(slow.mean > 0.0 && slow.slow >= slow.mean, "{slow:?}");
        assert!((slow.mean / fast.mean - 2.0).abs() < 1e-9, "{slow:?} {fast:?}");
    }
}
