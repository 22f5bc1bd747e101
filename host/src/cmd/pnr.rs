//! `queens hdl report --pnr`: routed figures of the unit, the stage and whole arrays on an
//! ECP5, and `hdl fit`'s figures for ECP5 boards.

use super::board;
use super::hdl::{ReportArgs, Units};
use anyhow::Context;
use queens_hdl::board::fit::{fit, Fit};
use queens_hdl::board::toolchain::trellis::Device;
use queens_hdl::board::{Board, Family};
use queens_hdl::emit::CoreConfig;
use queens_hdl::pnr::{jobs, route, synthesize, Job, Routed, Synthesized};
use queens_hdl::report::Cost;
use queens_hdl::ArbiterKind;
use rayon::prelude::*;
use serde::Serialize;

/// Routes `job`, with a spinner that says what is being done and for how long.
pub fn route_shown(what: &str, job: &Job) -> anyhow::Result<Routed> {
    let bar = crate::progress::spinner(what, "");
    let r = route(job, &|phase| bar.set_message(phase.to_string()));
    bar.finish_and_clear();
    r.with_context(|| format!("placing and routing {what}"))
}

/// A routed figure as `hdl fit` counts: LUT4 sites (RAM included) and flip-flops.
pub fn cost(r: &Routed) -> Cost {
    Cost {
        lut: r.lut4,
        lutram: 2 * r.ramw,
        ff: r.ff,
        ..Cost::default()
    }
}

/// The fit of an ECP5 board from routed figures: one stage and the front end, each out of
/// context. Also returns the stage's routed figures.
pub fn fit_ecp5(b: &Board, n: u32, arbiter: ArbiterKind) -> anyhow::Result<(Fit, Routed, Routed)> {
    let device = Device::from_part(&b.part).map_err(anyhow::Error::msg)?;
    let m = board(n)?.inner() as usize;
    let target = b.defaults.clock_hz as f64 / 1e6;
    let stage = route_shown("one stage", &jobs::stage(m, arbiter, &device, target))?;
    let cfg = CoreConfig::new(n as usize, 1024, arbiter, true)?;
    let front_job = jobs::front(&cfg, &device, target);
    let front = route_shown("the front end", &front_job)?;
    Ok((fit(b, &cost(&stage), &cost(&front)), stage, front))
}

/// A design synthesized once and routed with several placer seeds: the first seed's figures
/// (the netlist is the same for every seed), and the clock of each.
#[derive(Serialize)]
struct Seeded {
    #[serde(flatten)]
    routed: Routed,
    fmax_mhz_by_seed: Vec<f64>,
    fmax_mhz_median: f64,
}

/// Synthesizes `job` once and places and routes that netlist with seeds 1..=seeds, as many
/// at once as rayon has threads (one per core): nextpnr places on one core.
fn route_seeds(what: &str, job: &Job, seeds: u64) -> anyhow::Result<(Seeded, Synthesized)> {
    let shown = format!("{what}: synthesis");
    let bar = crate::progress::spinner(&shown, "");
    let show = |phase: &str| bar.set_message(phase.to_string());
    let netlist = synthesize(job, &show).with_context(|| format!("synthesizing {what}"))?;
    bar.finish_and_clear();
    Ok((route_netlist(what, &netlist, seeds)?, netlist))
}

/// Places and routes a netlist with seeds 1..=seeds, as many at once as there are cores, and
/// keeps its files when asked.
fn route_netlist(what: &str, netlist: &Synthesized, seeds: u64) -> anyhow::Result<Seeded> {
    let shown = if seeds == 1 {
        format!("{what}, seed 1")
    } else {
        format!("{what}, seeds 1..={seeds}")
    };
    let bar = crate::progress::spinner(&shown, "");
    let show = |phase: &str| bar.set_message(phase.to_string());
    let runs: anyhow::Result<Vec<Routed>> = (1..=seeds)
        .into_par_iter()
        .map(|seed| {
            // Seed 1's phases stand for all.
            let quiet = |_: &str| {};
            let phase: &dyn Fn(&str) = if seed == 1 { &show } else { &quiet };
            netlist
                .place_route(seed, phase)
                .with_context(|| format!("placing and routing {what}, seed {seed}"))
        })
        .collect();
    bar.finish_and_clear();
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

fn median(xs: &[f64]) -> f64 {
    let mut sorted = xs.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    }
}

#[derive(Serialize)]
struct Array {
    units: usize,
    #[serde(flatten)]
    routed: Seeded,
    /// The array's routed clock over the stage's (their medians over the seeds).
    fmax_vs_stage: f64,
    /// The array's own stage: its stage module, as the array's synthesis mapped it, routed
    /// alone out of context with the stage's seeds. It and the array differ in placement
    /// alone; the stage above is a synthesis of its own, which may draw another netlist.
    own_stage: Seeded,
    /// The array's routed clock over its own stage's (medians).
    fmax_vs_own_stage: f64,
}

#[derive(Serialize)]
struct Report<'a> {
    n: u32,
    arbiter: &'static str,
    board: &'a str,
    part: &'a str,
    flow: &'static str,
    /// What `--nextpnr-args` added.
    nextpnr_args: &'a [String],
    target_mhz: f64,
    unit: Seeded,
    stage: Seeded,
    /// The first array asked for.
    array: &'a Array,
    arrays: &'a [Array],
}

pub fn report(a: &ReportArgs) -> anyhow::Result<()> {
    let (n, target_mhz) = (a.n, a.target_mhz);
    let nextpnr_args: Vec<String> = a
        .nextpnr_args
        .iter()
        .flat_map(|s| s.split_whitespace())
        .map(String::from)
        .collect();
    anyhow::ensure!(
        !nextpnr_args
            .iter()
            .any(|x| x == "--seed" || x.starts_with("--seed=")),
        "--nextpnr-args: the placer's seed is set by --seeds K (every design routed with seeds 1..=K)"
    );
    // Each job keeps its files in DIR/<what> when asked, and takes the extra arguments.
    let kept = |mut job: Job, what: &str| {
        job.keep = a.keep.as_ref().map(|d| d.join(what));
        job.nextpnr_args = nextpnr_args.clone();
        job
    };
    anyhow::ensure!(
        target_mhz.is_finite() && (10.0..=400.0).contains(&target_mhz),
        "--target-mhz {target_mhz}: an ECP5 clock is 10 to 400 MHz"
    );
    let b = Board::load(&a.board)?;
    anyhow::ensure!(
        b.family == Family::Ecp5,
        "{}: --pnr routes ECP5 boards, this is a {:?} board",
        b.name,
        b.family
    );
    let arbiter = a.arbiter.unwrap_or_else(|| b.default_arbiter());
    b.check_arbiter(arbiter)?;
    let device = Device::from_part(&b.part).map_err(anyhow::Error::msg)?;
    let m = board(n)?.inner() as usize;
    let unit = route_seeds(
        "the unit",
        &kept(jobs::unit(m, arbiter, &device, target_mhz), "unit"),
        a.seeds,
    )?
    .0;
    let stage = route_seeds(
        "one stage",
        &kept(jobs::stage(m, arbiter, &device, target_mhz), "stage"),
        a.seeds,
    )?
    .0;
    let mut arrays = Vec::new();
    for k in &a.solvers {
        let units = match k {
            Units::Count(k) => *k,
            Units::Fit => fit_ecp5(&b, n, arbiter)?.0.units,
        };
        let core = CoreConfig::new(n as usize, units, arbiter, true)?;
        let job = kept(jobs::array(&b, core, target_mhz)?, &format!("array-{units}"));
        let (routed, netlist) = route_seeds(
            &format!("{} top, {units} units", b.name),
            &job,
            a.array_seeds.unwrap_or(a.seeds),
        )?;
        let what = format!("the stage of the {units}-unit top");
        let own = netlist
            .stage(job.keep.as_ref().map(|d| d.join("stage")), &|_| {})
            .with_context(|| format!("taking {what} out of its netlist"))?;
        drop(netlist);
        let own_stage = route_netlist(&what, &own, a.seeds)?;
        arrays.push(Array {
            units,
            fmax_vs_stage: routed.fmax_mhz_median / stage.fmax_mhz_median,
            fmax_vs_own_stage: routed.fmax_mhz_median / own_stage.fmax_mhz_median,
            own_stage,
            routed,
        });
    }
    if a.json {
        let r = Report {
            n,
            arbiter: arbiter.name(),
            board: &b.name,
            part: &b.part,
            flow: "yosys synth_ecp5, nextpnr-ecp5 (routed)",
            nextpnr_args: &nextpnr_args,
            target_mhz,
            unit,
            stage,
            array: &arrays[0],
            arrays: &arrays,
        };
        println!("{}", serde_json::to_string(&r)?);
        return Ok(());
    }
    println!(
        "N = {n}, {} arbiter, routed on {} ({} {}) with yosys synth_ecp5 and nextpnr-ecp5, asked for {target_mhz} MHz",
        arbiter.name(),
        b.part,
        device.flag,
        device.package
    );
    if !nextpnr_args.is_empty() {
        println!("nextpnr-ecp5 also given: {}", nextpnr_args.join(" "));
    }
    let line = |what: &str, r: &Routed| {
        println!(
            "{what}: {} LUT4 ({} carry cells) + {} RAMW = {} LUT4 sites, {} FF, {} DP16KD, {:.1} MHz",
            r.lut4, r.carry, r.ramw, r.lut4_sites, r.ff, r.bram, r.fmax_mhz
        );
        let p = &r.critical_path;
        println!(
            "  critical path {:.2} ns ({} logic levels, {:.2} ns logic, {:.2} ns routing): {} -> {}",
            p.total_ns, p.logic_levels, p.logic_ns, p.routing_ns, p.from, p.to
        );
    };
    let seeded = |what: &str, s: &Seeded| {
        line(what, &s.routed);
        if s.fmax_mhz_by_seed.len() > 1 {
            let each: Vec<String> = s.fmax_mhz_by_seed.iter().map(|f| format!("{f:.1}")).collect();
            println!(
                "  median {:.1} MHz over seeds 1..={} ({} MHz)",
                s.fmax_mhz_median,
                each.len(),
                each.join(", ")
            );
        }
    };
    seeded("unit (out of context)", &unit);
    seeded("stage (out of context)", &stage);
    for a in &arrays {
        seeded(&format!("{} top with {} units", b.name, a.units), &a.routed);
        println!("  array / stage fmax: {:.3}", a.fmax_vs_stage);
        seeded("  its own stage (out of context)", &a.own_stage);
        println!("  array / its own stage fmax: {:.3}", a.fmax_vs_own_stage);
    }
    Ok(())
}
