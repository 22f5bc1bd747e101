//! The run's settings from its arguments: the stop flag, the pace and timeouts, the links
//! and the simulated board, and how progress is shown.

use super::report::human;
use super::{say, Args};
use crate::progress::RunBars;
use anyhow::Context;
use queens_host::dispatch::{Pace, Trust};
use queens_host::link::{LinkSpec, SimSettings};
use queens_host::run::{Progress, Quiet, RunConfig};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Ctrl-C and SIGTERM set the flag the run stops on (a second one ends the process at once).
pub(super) fn stop_flag() -> anyhow::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    ctrlc::set_handler(move || {
        if s.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
    })
    .context("installing the Ctrl-C handler")?;
    Ok(stop)
}

pub(super) fn config(a: &Args, stop: Option<Arc<AtomicBool>>) -> RunConfig {
    let size = a.n;
    let pace = Pace::of(size, a.sim_clock);
    let silence = pace.silence();
    if pace.mean > 1.0 {
        say(a, format!(
            "a subproblem of N = {} takes about {} on a unit at {:.0} MHz (the slowest of {} probed: {}); first results in about that time, a silent board is named after {}",
            size.n(),
            human(pace.mean),
            pace.hz / 1e6,
            Pace::PROBED,
            human(pace.slow),
            human(silence.as_secs_f64())
        ));
    }
    // --timeout is positive and finite (its parser).
    let timeouts = pace.timeouts(a.timeout);
    let links = if a.links.is_empty() {
        vec![LinkSpec::Sim { units: None }]
    } else {
        a.links.clone()
    };
    RunConfig {
        links,
        units: a.solvers,
        margin: a.margin,
        timeouts,
        trust: if a.verify > 0.0 {
            Trust {
                verify: a.verify,
                ..Trust::default()
            }
        } else {
            Trust::OFF
        },
        sim: SimSettings {
            size,
            units: a.solvers,
            with_cycles: true,
            unit: a.sim_unit,
            clock_hz: a.sim_clock,
            faults: a.sim_faults,
            seed: fastrand::u64(..),
        },
        sync_every: Duration::from_secs(1),
        silence,
        stop,
    }
}

/// Bars on standard error, except with `--json`.
pub(super) fn shown(a: &Args, since: Instant) -> Box<dyn Progress> {
    if a.json {
        Box::new(Quiet)
    } else {
        Box::new(RunBars::since(since))
    }
}
