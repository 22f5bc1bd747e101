//! `queens hdl fit`: how many solver units fit a board, and the fit other commands use.

use super::{parse_kind, CostJson};
use crate::progress::Steps;
use queens_core::UnitKind;
use queens_hdl::board::fit::{cache_path, read_cached, synthesized, write_cached, Fit, Priced};
use queens_hdl::board::{Board, Family};
use queens_hdl::pnr::figures as pnr;
use queens_hdl::ArbiterKind;
use serde::Serialize;
use std::time::Instant;

#[derive(clap::Args)]
pub struct FitArgs {
    /// A built-in board (vc707, kc705, ml605, de4, ulx3s, u55c) or a board file.
    #[arg(long)]
    board: String,
    /// Board size (default: the board's).
    #[arg(long)]
    n: Option<queens_core::BoardSize>,
    /// Arbiter (default: carry4 on Xilinx, ccu2c on the ECP5, adder on Altera).
    #[arg(long, value_parser = parse_kind)]
    arbiter: Option<ArbiterKind>,
    /// (A grouped unit's tally takes block RAM, or on UltraScale+ UltraRAM.)
    #[command(flatten)]
    unit: crate::cmd::UnitArg,
    #[arg(long)]
    json: bool,
}

/// Fits the board from one stage and the front end of `unit` units for `n`: placed and
/// routed on ECP5 boards (with spinners), synthesized by yosys on the others.
pub(in crate::cmd) fn fit_board(
    b: &Board,
    n: u32,
    unit: UnitKind,
    arbiter: ArbiterKind,
) -> anyhow::Result<(Fit, Priced)> {
    if b.family == Family::Ecp5 {
        let (f, stage, front) = pnr::fit_ecp5(b, n, unit, arbiter, b.tally_pipe(), &Steps::default())?;
        let (stage, front) = (pnr::cost(&stage), pnr::cost(&front));
        return Ok((
            f,
            Priced {
                stage,
                ultra: None,
                front,
            },
        ));
    }
    Ok(synthesized(b, n, unit, arbiter)?)
}

/// What the stage's and front end's figures come from, with the tool.
fn measured_by(b: &Board) -> String {
    if b.family == Family::Ecp5 {
        "LUT4 sites, RAM included, placed and routed out of context by nextpnr-ecp5".into()
    } else {
        format!("yosys synth_xilinx -family {}", b.family.synth_family().name())
    }
}

#[derive(Serialize)]
struct FitJson<'a> {
    board: &'a str,
    part: &'a str,
    n: u32,
    arbiter: &'static str,
    unit_kind: UnitKind,
    /// The form of a grouped stage's tally (the board file's `[build] tally`).
    tally: queens_hdl::solver::tally::TallyPipe,
    #[serde(flatten)]
    fit: Fit,
    stage: CostJson,
    /// The stage with its tally in UltraRAM, where the board has such stages.
    ultra_stage: Option<CostJson>,
    front: CostJson,
    device_luts: u64,
    device_flip_flops: u64,
    device_ram18: u64,
    device_uram288: u64,
    device_slrs: u32,
    /// What measured the stage and front end.
    measured_by: String,
    fill: f64,
    reference_units: Option<usize>,
    reference_clock_hz: Option<u64>,
}

pub(super) fn run(a: FitArgs) -> anyhow::Result<()> {
    let b = Board::load(&a.board)?;
    let n = a.n.map_or(b.defaults.n as u32, |s| s.n());
    let arbiter = a.arbiter.unwrap_or_else(|| b.default_arbiter());
    b.check_arbiter(arbiter)?;
    let unit = a.unit.on_board(&b, queens_core::BoardSize::new(n)?, true)?;
    let (f, Priced { stage, ultra, front }) = fit_board(&b, n, unit, arbiter)?;
    let clock = b.clock_for(f.clock_hz)?;
    if a.json {
        let j = FitJson {
            board: &b.name,
            part: &b.part,
            n,
            arbiter: arbiter.name(),
            unit_kind: unit,
            tally: b.tally_pipe(),
            fit: f,
            stage: (&stage).into(),
            ultra_stage: ultra.as_ref().map(Into::into),
            front: (&front).into(),
            device_luts: b.device.luts,
            device_flip_flops: b.device.flip_flops,
            device_ram18: b.device.ram18,
            device_uram288: b.device.uram288,
            device_slrs: b.device.slrs,
            measured_by: measured_by(&b),
            fill: b.defaults.fill,
            reference_units: b.reference.as_ref().map(|r| r.units),
            reference_clock_hz: b.reference.as_ref().map(|r| r.clock_hz),
        };
        println!("{}", serde_json::to_string(&j)?);
        return Ok(());
    }
    println!(
        "{} ({}), N = {n}, {} arbiter: {} {unit} solver units (limited by {} at {:.0}% fill)",
        b.name,
        b.part,
        arbiter.name(),
        f.units,
        f.limit,
        b.defaults.fill * 100.0
    );
    if queens_hdl::kind::of(unit).has_tally() {
        println!(
            "  the stage's tally: {} (the board file's [build] tally)",
            b.tally_pipe()
        );
    }
    println!(
        "  stage {} LUT / {} FF, front end {} LUT / {} FF ({}): {} of {} LUTs ({:.0}%), {} of {} FFs ({:.0}%)",
        stage.lut_sites(),
        stage.ff,
        front.lut_sites(),
        front.ff,
        measured_by(&b),
        f.luts,
        b.device.luts,
        f.lut_share * 100.0,
        f.flip_flops,
        b.device.flip_flops,
        f.ff_share * 100.0
    );
    if f.ram18 > 0 {
        println!(
            "  block RAM: stage {}, front end {} (18 Kbit blocks): {} of {} ({:.0}%)",
            stage.ram18,
            front.ram18,
            f.ram18,
            b.device.ram18,
            f.ram_share * 100.0
        );
    }
    if let Some(u) = ultra.as_ref().filter(|_| f.uram > 0) {
        println!(
            "  UltraRAM: the tally of the first {} units (stage {} LUT / {} FF, {} URAM288; the other {} in block RAM): {} of {} URAM288 ({:.0}%)",
            f.ultra_units,
            u.lut_sites(),
            u.ff,
            u.uram,
            f.units - f.ultra_units,
            f.uram,
            b.device.uram288,
            f.uram_share * 100.0
        );
    }
    if f.units_by_resources > f.units as u64 {
        println!(
            "  the device's resources would hold {} units; a core addresses {}",
            f.units_by_resources, f.units
        );
    }
    println!(
        "  clock to ask for: {:.3} MHz ({}: divide {}, multiply {}, output divide {})",
        clock.output_hz(b.clock.hz as f64) / 1e6,
        clock.primitive.name(),
        clock.divide,
        clock.multiply,
        clock.output_divide
    );
    if let Some(r) = &b.reference {
        println!(
            "  Queens@TUD ran {} units at {:.1} MHz on this board",
            r.units,
            r.clock_hz as f64 / 1e6
        );
    }
    Ok(())
}

/// `sim estimate`'s unit count of a board as far as it is had at once: from the cache, or,
/// on ECP5 (placed and routed with spinners of its own, before the estimate's bars), made now;
/// otherwise the yosys fit, for the caller to run beside its own work.
#[allow(clippy::type_complexity)]
pub(in crate::cmd) fn estimate_units(
    b: &Board,
    n: u32,
    unit: UnitKind,
    start: Instant,
) -> anyhow::Result<Result<(usize, String), impl FnOnce() -> anyhow::Result<(usize, String)> + Send + '_>> {
    let arbiter = b.default_arbiter();
    let cache = cache_path(b, n, unit, arbiter);
    if let Some(u) = cache.as_deref().and_then(read_cached) {
        return Ok(Ok((u.0, format!("our fit, limited by {}; cached", u.1))));
    }
    super::clean_up_on_interrupt()?;
    let fit = move || fit_units(b, (n, unit), arbiter, cache.as_deref(), start);
    if b.family == Family::Ecp5 {
        return fit().map(Ok);
    }
    Ok(Err(fit))
}

/// `sim estimate`'s unit count of a board: our fit (as `hdl fit`), remembered in the cache;
/// the board file's reference units, said so, when the fit cannot be made.
fn fit_units(
    b: &Board,
    (n, unit): (u32, UnitKind),
    arbiter: ArbiterKind,
    cache: Option<&std::path::Path>,
    start: Instant,
) -> anyhow::Result<(usize, String)> {
    match fit_cached(b, (n, unit), arbiter, cache) {
        Ok(f) => {
            tracing::info!(
                units = f.units,
                seconds = start.elapsed().as_secs_f64(),
                "fit made"
            );
            Ok((f.units, format!("our fit, limited by {}", f.limit)))
        }
        Err(err) => match &b.reference {
            Some(r) => {
                eprintln!(
                    "warning: no fit of {} ({err:#}); using the board file's reference units, {}",
                    b.name, r.units
                );
                Ok((
                    r.units,
                    format!("the board file's reference units, no fit: {err:#}"),
                ))
            }
            None => Err(err.context(format!("fitting {} for its unit count; give --solvers", b.name))),
        },
    }
}

/// `hdl emit`'s unit count of a board when `--solvers` is not given: the cached fit when
/// there is one, else the fit made now (and cached). On an ECP5 board the fit routes one
/// stage with the open ECP5 tools; without them the error says so and how to go on.
pub(in crate::cmd) fn emit_units(
    b: &Board,
    n: u32,
    unit: UnitKind,
    arbiter: ArbiterKind,
) -> anyhow::Result<(usize, String)> {
    let cache = cache_path(b, n, unit, arbiter);
    if let Some(u) = cache.as_deref().and_then(read_cached) {
        return Ok((u.0, format!("{}; our fit, cached", u.1)));
    }
    if b.family == Family::Ecp5 {
        let missing = ["yosys", "nextpnr-ecp5"]
            .into_iter()
            .find_map(|t| queens_hdl::board::toolchain::trellis::find_tool(t).err());
        if let Some(why) = missing {
            anyhow::bail!(
                "{}: finding how many units fit routes one stage with the open ECP5 tools, and this machine lacks them ({why}); give --solvers K to write the project without them (docs/design/unit.md has the units that fit, e.g. `queens hdl emit --board {} --solvers 66` at N = 27), or install the tools, which the project's build.sh needs too",
                b.name,
                b.name
            );
        }
    }
    let f = fit_cached(b, (n, unit), arbiter, cache.as_deref())?;
    Ok((f.units, f.limit.to_string()))
}

/// The fit made now, as `hdl fit` makes it, and remembered at `cache` (a cache that cannot
/// be written is warned of: the fit stands).
fn fit_cached(
    b: &Board,
    (n, unit): (u32, UnitKind),
    arbiter: ArbiterKind,
    cache: Option<&std::path::Path>,
) -> anyhow::Result<Fit> {
    let (f, _) = fit_board(b, n, unit, arbiter)?;
    if let Some(p) = cache {
        if let Err(e) = write_cached(p, &f) {
            tracing::warn!("could not cache the fit in {}: {e}", p.display());
        }
    }
    Ok(f)
}
