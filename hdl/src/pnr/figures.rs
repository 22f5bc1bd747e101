//! Routed figures on an ECP5, as `queens hdl report --pnr` and `queens hdl fit` report them:
//! the unit, the stage and whole board tops, each synthesized once and placed and routed
//! with several placer seeds (a routed clock moves by several percent from seed to seed, so
//! only medians compare), and each array against its own stage. The tools run in
//! [`super`]; this module decides what to route and keeps the figures.

use super::{jobs, route, synthesize, Job, PnrError, Routed, Synthesized};
use crate::board::build::BuildError;
use crate::board::fit::{fit, Fit};
use crate::board::toolchain::trellis::Device;
use crate::board::Board;
use crate::emit::{CoreConfig, EmitError};
use crate::report::Cost;
use crate::solver::tally::TallyPipe;
use crate::ArbiterKind;
use queens_core::{BoardSize, ModelError, UnitKind};
use rayon::prelude::*;
use serde::Serialize;
use std::path::PathBuf;

/// What can stop a routed report: a tool's failure, with what was being done, or a design
/// that cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    #[error("{doing}")]
    Tool {
        doing: String,
        #[source]
        source: PnrError,
    },
    #[error("{0}")]
    Device(String),
    #[error(transparent)]
    Size(#[from] ModelError),
    #[error(transparent)]
    Core(#[from] EmitError),
    #[error(transparent)]
    Build(#[from] BuildError),
    /// A tool's failure that names itself (keeping the files of a routed design).
    #[error(transparent)]
    Pnr(#[from] PnrError),
}

fn tool(doing: String) -> impl FnOnce(PnrError) -> RouteError {
    move |source| RouteError::Tool { doing, source }
}

/// How the steps are shown (a spinner in the binary): a step begins, its tool phases follow
/// (those of one seed stand for all), and it ends.
pub trait Show: Sync {
    fn begin(&self, what: &str);
    fn phase(&self, phase: &str);
    fn end(&self);
}

/// No display at all.
pub struct Silent;

impl Show for Silent {
    fn begin(&self, _: &str) {}
    fn phase(&self, _: &str) {}
    fn end(&self) {}
}

/// Routes one job with one seed, shown as `what`.
pub fn route_shown(what: &str, job: &Job, show: &dyn Show) -> Result<Routed, RouteError> {
    show.begin(what);
    let r = route(job, &|p| show.phase(p));
    show.end();
    r.map_err(tool(format!("placing and routing {what}")))
}

/// A routed figure as `hdl fit` counts: LUT4 sites (RAM included) and flip-flops.
pub fn cost(r: &Routed) -> Cost {
    Cost {
        lut: r.lut4,
        lutram: 2 * r.ramw,
        ff: r.ff,
        ram18: r.bram,
        ..Cost::default()
    }
}

/// The fit of an ECP5 board from routed figures: one stage (its tally in form `pipe`) and the
/// front end of `unit` units, each out of context, at the board's own clock. Also returns the
/// two routed figures.
pub fn fit_ecp5(
    b: &Board,
    n: u32,
    unit: UnitKind,
    arbiter: ArbiterKind,
    pipe: TallyPipe,
    show: &dyn Show,
) -> Result<(Fit, Routed, Routed), RouteError> {
    let device = Device::from_part(&b.part).map_err(RouteError::Device)?;
    let m = BoardSize::new(n)?.inner() as usize;
    let target = b.defaults.clock_hz as f64 / 1e6;
    let cfg = CoreConfig::new(n as usize, 1024, unit, arbiter, true)?;
    let part = jobs::Part {
        unit,
        m,
        arbiter,
        pipe,
    };
    let stage_job = jobs::stage(part, &device, target);
    let stage = route_shown("one stage", &stage_job, show)?;
    let front = route_shown("the front end", &jobs::front(&cfg, &device, target), show)?;
    Ok((fit(b, &cost(&stage), None, &cost(&front)), stage, front))
}

/// A design synthesized once and routed with several placer seeds: the first seed's figures
/// (the netlist is the same for every seed), and the clock of each.
#[derive(Serialize)]
pub struct Seeded {
    #[serde(flatten)]
    pub routed: Routed,
    pub fmax_mhz_by_seed: Vec<f64>,
    pub fmax_mhz_median: f64,
}

/// Synthesizes `job` once and places and routes that netlist with seeds 1..=seeds.
fn route_seeds(
    what: &str,
    job: &Job,
    seeds: u64,
    show: &dyn Show,
) -> Result<(Seeded, Synthesized), RouteError> {
    show.begin(&format!("{what}: synthesis"));
    let netlist = synthesize(job, &|p| show.phase(p));
    show.end();
    let netlist = netlist.map_err(tool(format!("synthesizing {what}")))?;
    Ok((route_netlist(what, &netlist, seeds, show)?, netlist))
}

/// Places and routes a netlist with seeds 1..=seeds, as many at once as rayon has threads
/// (nextpnr places on one core), and keeps its files when its job asks.
fn route_netlist(
    what: &str,
    netlist: &Synthesized,
    seeds: u64,
    show: &dyn Show,
) -> Result<Seeded, RouteError> {
    show.begin(&if seeds == 1 {
        format!("{what}, seed 1")
    } else {
        format!("{what}, seeds 1..={seeds}")
    });
    let runs: Result<Vec<Routed>, RouteError> = (1..=seeds)
        .into_par_iter()
        .map(|seed| {
            // Seed 1's phases stand for all.
            let quiet = |_: &str| {};
            let shown = |p: &str| show.phase(p);
            let phase: &dyn Fn(&str) = if seed == 1 { &shown } else { &quiet };
            netlist
                .place_route(seed, phase)
                .map_err(tool(format!("placing and routing {what}, seed {seed}")))
        })
        .collect();
    show.end();
    // Keep the files of failed seeds too, but name a failed seed before a failed copy.
    let kept = netlist.keep(Ok(()));
    let mut runs = runs?;
    kept?;
    let fmax_mhz_by_seed: Vec<f64> = runs.iter().map(|r| r.fmax_mhz).collect();
    Ok(Seeded {
        routed: runs.swap_remove(0),
        fmax_mhz_median: median(&fmax_mhz_by_seed),
        fmax_mhz_by_seed,
    })
}

/// The median of a non-empty list.
pub fn median(xs: &[f64]) -> f64 {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    }
}

/// An array size to route.
#[derive(Debug, Clone, Copy)]
pub enum Units {
    Count(usize),
    /// As many as `hdl fit` puts on the board.
    Fit,
}

/// A whole board top with its array, against the stage.
#[derive(Serialize)]
pub struct Array {
    pub units: usize,
    #[serde(flatten)]
    pub routed: Seeded,
    /// The array's routed clock over the stage's (their medians over the seeds).
    pub fmax_vs_stage: f64,
    /// The array's own stage: its stage module, as the array's synthesis mapped it, routed
    /// alone out of context with the stage's seeds. It and the array differ in placement
    /// alone; the stage above is a synthesis of its own, which may draw another netlist.
    pub own_stage: Seeded,
    /// The array's routed clock over its own stage's (medians).
    pub fmax_vs_own_stage: f64,
}

/// What to route: every design at `target_mhz` on the board's device.
pub struct Request<'a> {
    pub board: &'a Board,
    pub device: &'a Device,
    pub n: u32,
    pub arbiter: ArbiterKind,
    /// The kind of unit of the unit, the stages and the arrays routed.
    pub unit: UnitKind,
    /// The form of their tally (the board's, `Board::tally_pipe`, unless told).
    pub pipe: TallyPipe,
    pub target_mhz: f64,
    pub arrays: &'a [Units],
    /// Seeds 1..=seeds of the unit and the stages, and of the arrays unless `array_seeds`.
    pub seeds: u64,
    pub array_seeds: Option<u64>,
    /// Keep each design's tool files in DIR/DESIGN.
    pub keep: Option<PathBuf>,
    /// More arguments for nextpnr-ecp5, on every design.
    pub nextpnr_args: Vec<String>,
}

/// The routed figures of the unit, the stage and each array.
pub struct Figures {
    pub unit: Seeded,
    pub stage: Seeded,
    pub arrays: Vec<Array>,
}

/// Routes the unit and the stage out of context, then each array with its own stage.
pub fn report(r: &Request, show: &dyn Show) -> Result<Figures, RouteError> {
    // Each job keeps its files in DIR/<what> when asked, and takes the extra arguments.
    let kept = |mut job: Job, what: &str| {
        job.keep = r.keep.as_ref().map(|d| d.join(what));
        job.nextpnr_args = r.nextpnr_args.clone();
        job
    };
    let m = BoardSize::new(r.n)?.inner() as usize;
    let (arbiter, device, target) = (r.arbiter, r.device, r.target_mhz);
    let part = jobs::Part {
        unit: r.unit,
        m,
        arbiter,
        pipe: r.pipe,
    };
    let unit = jobs::unit(part, device, target);
    let stage = jobs::stage(part, device, target);
    let unit = route_seeds("the unit", &kept(unit, "unit"), r.seeds, show)?.0;
    let stage = route_seeds("one stage", &kept(stage, "stage"), r.seeds, show)?.0;
    let mut arrays = Vec::new();
    for k in r.arrays {
        let units = match k {
            Units::Count(k) => *k,
            Units::Fit => fit_ecp5(r.board, r.n, r.unit, arbiter, r.pipe, show)?.0.units,
        };
        let core = CoreConfig::new(r.n as usize, units, r.unit, arbiter, true)?.with_pipe(r.pipe);
        let job = kept(jobs::array(r.board, core, target)?, &format!("array-{units}"));
        let what = format!("{} top, {units} units", r.board.name);
        let (routed, netlist) = route_seeds(&what, &job, r.array_seeds.unwrap_or(r.seeds), show)?;
        let what = format!("the stage of the {units}-unit top");
        let own = netlist
            .stage(job.keep.as_ref().map(|d| d.join("stage")), &|_| {})
            .map_err(tool(format!("taking {what} out of its netlist")))?;
        drop(netlist);
        let own_stage = route_netlist(&what, &own, r.seeds, show)?;
        arrays.push(Array {
            units,
            fmax_vs_stage: routed.fmax_mhz_median / stage.fmax_mhz_median,
            fmax_vs_own_stage: routed.fmax_mhz_median / own_stage.fmax_mhz_median,
            own_stage,
            routed,
        });
    }
    Ok(Figures { unit, stage, arrays })
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn the_median_of_odd_and_even_lists() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[7.0]), 7.0);
    }
}
