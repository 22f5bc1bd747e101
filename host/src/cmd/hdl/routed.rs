//! `queens hdl report --pnr`: the options checked, the routing done by
//! [`queens_host::pnr`], the figures printed.

use super::report::ReportArgs;
use crate::progress::Steps;
use queens_core::UnitKind;
use queens_hdl::board::toolchain::trellis::Device;
use queens_hdl::board::{Board, Family};
use queens_hdl::pnr::figures::{report as route_all, Array, Request, Seeded};
use queens_hdl::pnr::Routed;
use queens_hdl::solver::tally::TallyPipe;
use serde::Serialize;

#[derive(Serialize)]
struct Report<'a> {
    n: u32,
    arbiter: &'static str,
    unit_kind: UnitKind,
    /// The form of the grouped tally routed.
    tally: TallyPipe,
    board: &'a str,
    part: &'a str,
    flow: &'static str,
    /// What `--nextpnr-args` added.
    nextpnr_args: &'a [String],
    target_mhz: f64,
    unit: &'a Seeded,
    stage: &'a Seeded,
    /// The first array asked for.
    array: &'a Array,
    arrays: &'a [Array],
}

pub(super) fn report(a: &ReportArgs) -> anyhow::Result<()> {
    let (n, target_mhz) = (a.n.n(), a.target_mhz);
    // Split as a shell would (quotes keep an argument with spaces whole).
    let nextpnr_args: Vec<String> = match &a.nextpnr_args {
        Some(s) => {
            shlex::split(s).ok_or_else(|| anyhow::anyhow!("--nextpnr-args {s:?}: a quote is not closed"))?
        }
        None => Vec::new(),
    };
    anyhow::ensure!(
        !nextpnr_args
            .iter()
            .any(|x| x == "--seed" || x.starts_with("--seed=")),
        "--nextpnr-args: the placer's seed is set by --seeds K (every design routed with seeds 1..=K)"
    );
    anyhow::ensure!(
        target_mhz.is_finite() && (10.0..=400.0).contains(&target_mhz),
        "--target-mhz {target_mhz}: an ECP5 clock is 10 to 400 MHz"
    );
    let b = Board::load(&a.board)?;
    let unit = a.unit.on_board(&b, a.n, true)?;
    anyhow::ensure!(
        b.family == Family::Ecp5,
        "{}: --pnr routes ECP5 boards, this is a {:?} board",
        b.name,
        b.family
    );
    let arbiter = a.arbiter.unwrap_or_else(|| b.default_arbiter());
    b.check_arbiter(arbiter)?;
    let device = Device::from_part(&b.part).map_err(anyhow::Error::msg)?;
    let pipe = a.tally.unwrap_or_else(|| b.tally_pipe());
    let request = Request {
        board: &b,
        device: &device,
        n,
        arbiter,
        unit,
        pipe,
        target_mhz,
        arrays: &a.solvers,
        seeds: a.seeds,
        array_seeds: a.array_seeds,
        keep: a.keep.clone(),
        nextpnr_args: nextpnr_args.clone(),
    };
    let f = route_all(&request, &Steps::default())?;
    if a.json {
        let r = Report {
            n,
            arbiter: arbiter.name(),
            unit_kind: unit,
            tally: pipe,
            board: &b.name,
            part: &b.part,
            flow: "yosys synth_ecp5, nextpnr-ecp5 (routed)",
            nextpnr_args: &nextpnr_args,
            target_mhz,
            unit: &f.unit,
            stage: &f.stage,
            array: &f.arrays[0],
            arrays: &f.arrays,
        };
        println!("{}", serde_json::to_string(&r)?);
        return Ok(());
    }
    println!(
        "N = {n}, {unit} units, {} arbiter, routed on {} ({} {}) with yosys synth_ecp5 and nextpnr-ecp5, asked for {target_mhz} MHz",
        arbiter.name(),
        b.part,
        device.flag,
        device.package
    );
    if queens_hdl::kind::of(unit).has_tally() {
        println!("the tally: {pipe}");
    }
    if !nextpnr_args.is_empty() {
        println!("nextpnr-ecp5 also given: {}", nextpnr_args.join(" "));
    }
    seeded("unit (out of context)", &f.unit);
    seeded("stage (out of context)", &f.stage);
    for a in &f.arrays {
        seeded(&format!("{} top with {} units", b.name, a.units), &a.routed);
        println!("  array / stage fmax: {:.3}", a.fmax_vs_stage);
        seeded("  its own stage (out of context)", &a.own_stage);
        println!("  array / its own stage fmax: {:.3}", a.fmax_vs_own_stage);
    }
    Ok(())
}

/// One design's figures and critical path.
fn line(what: &str, r: &Routed) {
    println!(
        "{what}: {} LUT4 ({} carry cells) + {} RAMW = {} LUT4 sites, {} FF, {} DP16KD, {:.1} MHz",
        r.lut4, r.carry, r.ramw, r.lut4_sites, r.ff, r.bram, r.fmax_mhz
    );
    let p = &r.critical_path;
    println!(
        "  critical path {:.2} ns ({} logic levels, {:.2} ns logic, {:.2} ns routing): {} -> {}",
        p.total_ns, p.logic_levels, p.logic_ns, p.routing_ns, p.from, p.to
    );
}

/// A design's figures, and its median over the seeds when there were several.
fn seeded(what: &str, s: &Seeded) {
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
}
