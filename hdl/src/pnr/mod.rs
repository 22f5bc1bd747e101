//! Routed figures on an ECP5: a design synthesized with yosys `synth_ecp5`, placed and routed
//! with nextpnr-ecp5, and read back from nextpnr's report: the cells it takes, the clock it
//! reaches after routing, and the critical path as nextpnr reports it.
//!
//! The tools run in a scratch directory with relative file names (the PyPI builds see only
//! their working directory).

use crate::board::toolchain::trellis::{find_tool, synth_script, Device};
use crate::scratch::{run_tool, Scratch, ScratchError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::process::Command;
use thiserror::Error;

pub mod figures;

#[derive(Debug, Error)]
pub enum PnrError {
    #[error("the open ECP5 tools: {0}")]
    Tools(String),
    #[error("{what}: {reason}")]
    Io { what: String, reason: String },
    #[error("yosys synth_ecp5 failed on {top}:\n{log_tail}")]
    Synthesis { top: String, log_tail: String },
    #[error("{top} does not fit the {device} device: {detail}")]
    DoesNotFit {
        top: String,
        device: String,
        detail: String,
    },
    #[error("{top}: a pin is not on the package: {detail}")]
    Pin { top: String, detail: String },
    #[error("{top}: timing not met: the routed clock reaches {achieved_mhz:.2} MHz, {wanted_mhz:.2} MHz was asked")]
    Timing {
        top: String,
        achieved_mhz: f64,
        wanted_mhz: f64,
    },
    #[error("nextpnr-ecp5 failed on {top}:\n{log_tail}")]
    Route { top: String, log_tail: String },
    #[error("reading nextpnr's report of {top}: {reason}")]
    Report { top: String, reason: String },
}

/// What to place and route.
#[derive(Debug, Clone)]
pub struct Job {
    /// Verilog sources, (file name, text), read in this order.
    pub sources: Vec<(String, String)>,
    pub top: String,
    /// Pin constraints, (file name, text); none = out of context (no I/O placed, the top's
    /// ports left to the fabric).
    pub lpf: Option<(String, String)>,
    /// The clock to ask for (out of context; with an LPF the LPF's clocks rule).
    pub target_mhz: f64,
    pub device: Device,
    /// Fail with [`PnrError::Timing`] when the routed clock is below the target.
    pub require_timing: bool,
    pub seed: u64,
    /// More arguments for nextpnr-ecp5, after ours: placer or router settings to try.
    pub nextpnr_args: Vec<String>,
    /// Copy the tools' files (sources, netlist, logs, nextpnr's report) into this directory
    /// when done, for a designer to read the whole critical path or to run a tool again.
    pub keep: Option<std::path::PathBuf>,
}

/// The critical path of the slowest clock.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CriticalPath {
    pub from: String,
    pub to: String,
    pub total_ns: f64,
    pub logic_ns: f64,
    pub routing_ns: f64,
    /// Logic steps: LUT4s, carry cells, wide multiplexers, RAM reads (a carry chain's
    /// ripple through one CCU2C counts as one).
    pub logic_levels: usize,
}

/// A routed design.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Routed {
    /// Every LUT4 site taken (nextpnr's TRELLIS_COMB): logic, the halves of carry cells, and
    /// the read ports of distributed RAM.
    pub lut4: u64,
    /// Carry cells (CCU2C, two LUT4 sites each), from yosys.
    pub carry: u64,
    /// Distributed RAM write ports (TRELLIS_RAMW); each takes a slice whose two LUT4s then
    /// serve no logic.
    pub ramw: u64,
    /// LUT4 sites, RAM included: `lut4 + 2 ramw`.
    pub lut4_sites: u64,
    pub ff: u64,
    /// Block RAMs (DP16KD).
    pub bram: u64,
    /// The routed clock, the slowest clock of the design.
    pub fmax_mhz: f64,
    pub target_mhz: f64,
    pub critical_path: CriticalPath,
}

/// Synthesizes, places and routes `job` with its seed; `phase` hears what is being done.
pub fn route(job: &Job, phase: &dyn Fn(&str)) -> Result<Routed, PnrError> {
    let netlist = synthesize(job, phase)?;
    netlist.keep(netlist.place_route(job.seed, phase))
}

/// A design synthesized once and placed and routed with as many placer seeds as wanted, all
/// from the one netlist: yosys maps the same Verilog differently from run to run, and only
/// the placer's seed should vary. The tools' files stay in one scratch directory, each
/// seed's named after it (`nextpnr-seed2.log`, `report-seed2.json`).
pub struct Synthesized {
    job: Job,
    dir: Scratch,
    carry: u64,
}

/// Synthesizes `job` with yosys `synth_ecp5`, ready for [`Synthesized::place_route`]. A
/// failed synthesis still leaves its files in the job's `keep` directory.
pub fn synthesize(job: &Job, phase: &dyn Fn(&str)) -> Result<Synthesized, PnrError> {
    let dir = Scratch::new("queens-pnr").map_err(io)?;
    let carry = synthesize_in(job, &dir, phase);
    Synthesized::made(job.clone(), dir, carry)
}

fn synthesize_in(job: &Job, dir: &Scratch, phase: &dyn Fn(&str)) -> Result<u64, PnrError> {
    for (name, text) in job.sources.iter().chain(job.lpf.iter()) {
        dir.write(name, text).map_err(io)?;
    }
    let names: Vec<&str> = job.sources.iter().map(|s| s.0.as_str()).collect();
    phase("synthesis (yosys synth_ecp5)");
    let script = synth_script(&names.join(" "), &job.top, "net.json", job.target_mhz);
    yosys_in(dir, &script, &job.top)
}

/// Runs yosys on `script`, which writes `net.json`, in `dir` (its log in `yosys.log`), and
/// counts the netlist's carry cells.
fn yosys_in(dir: &Scratch, script: &str, top: &str) -> Result<u64, PnrError> {
    let yosys = find_tool("yosys").map_err(PnrError::Tools)?;
    let script = format!("{script}; tee -q -o stat.json stat -json");
    let out = run_tool(
        Command::new(&yosys)
            .args(["-q", "-l", "yosys.log", "-p", &script])
            .current_dir(dir.path()),
    )
    .map_err(|e| PnrError::Tools(format!("running {yosys}: {e}")))?;
    if !out.status.success() {
        return Err(PnrError::Synthesis {
            top: top.into(),
            log_tail: tail(
                &(dir.read("yosys.log").unwrap_or_default() + &String::from_utf8_lossy(&out.stderr)),
                12,
            ),
        });
    }
    Ok(carry_cells(&dir.read("stat.json").unwrap_or_default()))
}

impl Synthesized {
    /// Places and routes the netlist with placer seed `seed`. Several seeds may run at once.
    pub fn place_route(&self, seed: u64, phase: &dyn Fn(&str)) -> Result<Routed, PnrError> {
        let job = &self.job;
        let nextpnr = find_tool("nextpnr-ecp5").map_err(PnrError::Tools)?;
        phase("place and route (nextpnr-ecp5)");
        let (log_name, report_name) = (
            format!("nextpnr-seed{seed}.log"),
            format!("report-seed{seed}.json"),
        );
        let mut args = job.device.args();
        args.extend(["--json", "net.json", "-q"].map(String::from));
        args.extend([
            "--report".into(),
            report_name.clone(),
            "-l".into(),
            log_name.clone(),
        ]);
        args.extend(["--seed".into(), seed.to_string()]);
        match &job.lpf {
            Some((name, _)) => args.extend(["--lpf".into(), name.clone()]),
            None => args.extend([
                "--out-of-context".into(),
                "--freq".into(),
                format!("{}", job.target_mhz),
            ]),
        }
        args.extend(crate::board::toolchain::trellis::placer_args(&job.nextpnr_args));
        args.extend(job.nextpnr_args.iter().cloned());
        args.push("--timing-allow-fail".into());
        let out = run_tool(Command::new(&nextpnr).args(&args).current_dir(self.dir.path()))
            .map_err(|e| PnrError::Tools(format!("running {nextpnr}: {e}")))?;
        // nextpnr writes a bad argument's complaint to stdout, its log not yet open.
        let log = self.dir.read(&log_name).unwrap_or_default()
            + &String::from_utf8_lossy(&out.stderr)
            + &String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(route_failure(job, &log));
        }
        let report: Report =
            serde_json::from_str(&self.dir.read(&report_name).unwrap_or_default()).map_err(|e| {
                PnrError::Report {
                    top: job.top.clone(),
                    reason: e.to_string(),
                }
            })?;
        let routed = read_report(&report, self.carry, job.target_mhz).map_err(|reason| PnrError::Report {
            top: job.top.clone(),
            reason,
        })?;
        if job.require_timing && routed.fmax_mhz < job.target_mhz {
            return Err(PnrError::Timing {
                top: job.top.clone(),
                achieved_mhz: routed.fmax_mhz,
                wanted_mhz: job.target_mhz,
            });
        }
        Ok(routed)
    }

    /// The solver stage of this array netlist as a design of its own, out of context and
    /// asked for the same clock: the stage exactly as the array's synthesis mapped it (every
    /// stage keeps its hierarchy), so that it and the array differ in placement alone. A
    /// stage synthesized apart may draw another netlist (abc9 varies from run to run), and
    /// those routed 4 to 8% apart. Its files go to `keep`, if given.
    pub fn stage(
        &self,
        keep: Option<std::path::PathBuf>,
        phase: &dyn Fn(&str),
    ) -> Result<Synthesized, PnrError> {
        let job = &self.job;
        let suffix = crate::emit::STAGE_MODULES.trim_start_matches('*');
        let net: serde_json::Value =
            serde_json::from_str(&self.dir.read("net.json").map_err(io)?).map_err(|e| PnrError::Report {
                top: job.top.clone(),
                reason: format!("net.json: {e}"),
            })?;
        let stages: Vec<&String> = net["modules"]
            .as_object()
            .map(|m| m.keys().filter(|k| k.ends_with(suffix)).collect())
            .unwrap_or_default();
        let [module] = stages[..] else {
            return Err(PnrError::Report {
                top: job.top.clone(),
                reason: format!("net.json: {} modules named *{suffix}, not one", stages.len()),
            });
        };
        let dir = Scratch::new("queens-pnr").map_err(io)?;
        let whole = dir.path().join("array.json");
        std::fs::copy(self.dir.path().join("net.json"), &whole).map_err(|e| PnrError::Io {
            what: whole.display().to_string(),
            reason: e.to_string(),
        })?;
        phase("the stage out of the array's netlist (yosys)");
        let script = format!("read_json array.json; hierarchy -top {module}; write_json net.json");
        let carry = yosys_in(&dir, &script, module);
        let _ = std::fs::remove_file(&whole);
        let job = Job {
            sources: Vec::new(),
            top: module.clone(),
            lpf: None,
            keep,
            ..job.clone()
        };
        Synthesized::made(job, dir, carry)
    }

    /// The netlist yosys made in `dir` for `job`, or its failure, with the files kept either
    /// way when the job asks.
    fn made(job: Job, dir: Scratch, carry: Result<u64, PnrError>) -> Result<Synthesized, PnrError> {
        let netlist = Synthesized { job, dir, carry: 0 };
        match carry {
            Ok(carry) => Ok(Synthesized { carry, ..netlist }),
            Err(e) => netlist.keep(Err(e)),
        }
    }

    /// Copies the tools' files into the job's `keep` directory, if it has one, and passes
    /// `result` on: a failed run's own error says more than a failed copy of its files.
    pub fn keep<T>(&self, result: Result<T, PnrError>) -> Result<T, PnrError> {
        let Some(keep) = &self.job.keep else { return result };
        let kept = copy_dir(self.dir.path(), keep);
        match (result, kept) {
            (Err(e), Err(k)) => {
                tracing::warn!("{k}");
                Err(e)
            }
            (result, kept) => kept.and(result),
        }
    }
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) -> Result<(), PnrError> {
    let copy = || -> std::io::Result<()> {
        std::fs::create_dir_all(to)?;
        for e in std::fs::read_dir(from)? {
            let e = e?;
            if e.file_type()?.is_file() {
                std::fs::copy(e.path(), to.join(e.file_name()))?;
            }
        }
        Ok(())
    };
    copy().map_err(|e| PnrError::Io {
        what: to.display().to_string(),
        reason: e.to_string(),
    })
}

fn io(e: ScratchError) -> PnrError {
    PnrError::Io {
        what: e.path,
        reason: e.reason,
    }
}

/// Names the cause of a failed run: an overfull device, a pin the package lacks, or the log.
fn route_failure(job: &Job, log: &str) -> PnrError {
    let errors: Vec<&str> = log.lines().filter(|l| l.contains("ERROR")).collect();
    let detail = errors.join("; ");
    let top = job.top.clone();
    if log.contains("no BELs remaining")
        || log.contains("utilisation limit")
        || log.contains("utilization limit")
    {
        let over: Vec<String> = log
            .lines()
            .filter_map(|l| {
                // "Info:     MULT18X18D:      80/     28   285%"
                let (kind, rest) = l.trim_start_matches("Info:").trim().split_once(':')?;
                let mut nums = rest
                    .split(|c: char| c == '/' || c.is_whitespace())
                    .filter(|w| !w.is_empty());
                let (u, a): (u64, u64) = (nums.next()?.parse().ok()?, nums.next()?.parse().ok()?);
                (u > a).then(|| format!("{kind} {u} of {a}"))
            })
            .collect();
        return PnrError::DoesNotFit {
            top,
            device: format!("{} {}", job.device.flag, job.device.package),
            detail: if over.is_empty() { detail } else { over.join(", ") },
        };
    }
    if log.contains("does not exist for package") {
        return PnrError::Pin { top, detail };
    }
    PnrError::Route {
        top,
        log_tail: tail(log, 12),
    }
}

#[derive(Deserialize)]
struct Report {
    utilization: BTreeMap<String, Use>,
    fmax: BTreeMap<String, Fmax>,
    critical_paths: Vec<Path_>,
}

#[derive(Deserialize)]
struct Use {
    used: u64,
}

#[derive(Deserialize)]
struct Fmax {
    achieved: f64,
}

#[derive(Deserialize)]
struct Path_ {
    from: String,
    to: String,
    path: Vec<PathStep>,
}

#[derive(Deserialize)]
struct PathStep {
    #[serde(rename = "type")]
    kind: String,
    from: End,
    to: End,
    delay: f64,
}

#[derive(Deserialize)]
struct End {
    cell: String,
    port: String,
}

fn read_report(r: &Report, carry: u64, target_mhz: f64) -> Result<Routed, String> {
    let used = |k: &str| r.utilization.get(k).map_or(0, |u| u.used);
    let (clock, fmax) = r
        .fmax
        .iter()
        .min_by(|a, b| a.1.achieved.total_cmp(&b.1.achieved))
        .ok_or("no clock in the report")?;
    // The critical path of that clock (a path between two edges of it).
    let path = r
        .critical_paths
        .iter()
        .filter(|p| p.from.ends_with(clock.as_str()) && p.to.ends_with(clock.as_str()))
        .max_by(|a, b| total(a).total_cmp(&total(b)))
        .or_else(|| {
            r.critical_paths
                .iter()
                .max_by(|a, b| total(a).total_cmp(&total(b)))
        })
        .map(critical)
        .unwrap_or_default();
    Ok(Routed {
        lut4: used("TRELLIS_COMB"),
        carry,
        ramw: used("TRELLIS_RAMW"),
        lut4_sites: used("TRELLIS_COMB") + 2 * used("TRELLIS_RAMW"),
        ff: used("TRELLIS_FF"),
        bram: used("DP16KD"),
        fmax_mhz: fmax.achieved,
        target_mhz,
        critical_path: path,
    })
}

fn total(p: &Path_) -> f64 {
    p.path.iter().map(|s| s.delay).sum()
}

fn critical(p: &Path_) -> CriticalPath {
    // A ripple from carry-in to carry-out stays inside one carry chain: count it once.
    let logic_levels = p
        .path
        .iter()
        .filter(|s| s.kind == "logic" && !(s.from.port == "FCI" && s.to.port == "FCO"))
        .count();
    let sum = |k: &str| {
        p.path
            .iter()
            .filter(|s| s.kind == k)
            .map(|s| s.delay)
            .sum::<f64>()
    };
    CriticalPath {
        from: p.path.first().map_or(String::new(), |s| s.from.cell.clone()),
        to: p.path.last().map_or(String::new(), |s| s.to.cell.clone()),
        total_ns: total(p),
        logic_ns: sum("logic"),
        routing_ns: sum("routing"),
        logic_levels,
    }
}

/// CCU2C cells in yosys' `stat -json` output.
fn carry_cells(stat: &str) -> u64 {
    let v: serde_json::Value = serde_json::from_str(stat).unwrap_or_default();
    v.pointer("/design/num_cells_by_type/CCU2C")
        .and_then(|c| c.as_u64())
        .unwrap_or(0)
}

fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// The designs `queens hdl report --pnr` routes.
pub mod jobs {
    use super::Job;
    use crate::board::build::{build_dir, BuildError, BuildOptions};
    use crate::board::toolchain::trellis::Device;
    use crate::board::{Board, HostLink};
    pub use crate::emit::Part;
    use crate::emit::{front_verilog, stage_verilog, unit_verilog, CoreConfig};
    use queens_core::UnitKind;

    fn ooc(verilog: String, top: &str, device: &Device, target_mhz: f64) -> Job {
        Job {
            sources: vec![(format!("{top}.v"), verilog)],
            top: top.into(),
            lpf: None,
            target_mhz,
            device: device.clone(),
            require_timing: false,
            seed: 1,
            nextpnr_args: Vec::new(),
            keep: None,
        }
    }

    /// The top module's name of a routed `what` of `unit` units: names change what the tools
    /// make of a design, so the plain unit's keep the names of its recorded figures.
    fn top(unit: UnitKind, what: &str) -> String {
        format!("queens_{}{what}", crate::kind::of(unit).top_prefix())
    }

    /// The bare unit `p`, out of context.
    pub fn unit(p: Part, device: &Device, target_mhz: f64) -> Job {
        piece(p, "unit", unit_verilog, device, target_mhz)
    }

    /// One solver stage of `p` (unit, record, chain registers), out of context.
    pub fn stage(p: Part, device: &Device, target_mhz: f64) -> Job {
        piece(p, "stage", stage_verilog, device, target_mhz)
    }

    fn piece(p: Part, what: &str, emit: fn(Part, &str) -> String, device: &Device, target_mhz: f64) -> Job {
        let top = top(p.unit, what);
        ooc(emit(p, &top), &top, device, target_mhz)
    }

    /// The array's front end for `core`, out of context.
    pub fn front(core: &CoreConfig, device: &Device, target_mhz: f64) -> Job {
        ooc(
            front_verilog(core, "queens_front"),
            "queens_front",
            device,
            target_mhz,
        )
    }

    /// The whole board top of an ECP5 board with `core.units` units, in context (its pins,
    /// its PLL set to the target clock), as `hdl emit` writes it.
    pub fn array(b: &Board, core: CoreConfig, target_mhz: f64) -> Result<Job, BuildError> {
        let device = Device::from_part(&b.part).map_err(|reason| BuildError::Board {
            board: b.name.clone(),
            reason,
        })?;
        let clock = b
            .clock_for((target_mhz * 1e6).round() as u64)
            .map_err(|e| BuildError::Board {
                board: b.name.clone(),
                reason: e.to_string(),
            })?;
        let d = build_dir(
            b,
            &BuildOptions {
                core,
                clock,
                baud: 115_200,
                link: HostLink::Uart,
            },
        )?;
        let sources: Vec<(String, String)> =
            d.files.iter().filter(|f| f.0.ends_with(".v")).cloned().collect();
        let lpf = d.files.iter().find(|f| f.0.ends_with(".lpf")).cloned();
        Ok(Job {
            sources,
            top: crate::board::toolchain::TOP.into(),
            lpf,
            target_mhz: clock.output_hz(b.clock.hz as f64) / 1e6,
            device,
            require_timing: false,
            seed: 1,
            nextpnr_args: Vec::new(),
            keep: None,
        })
    }
}
