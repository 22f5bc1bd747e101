//! How many solver units a device holds: (capacity x fill - front end) / stage, for LUTs,
//! flip-flops, block RAM and UltraRAM alike (a grouped stage's tally takes block RAM), the
//! smallest wins. On UltraScale+ (a device with URAM288) a grouped stage comes in two forms,
//! its tally in UltraRAM or in block RAM: the first stages of the chain keep theirs in
//! UltraRAM, as many as its URAM288 hold at the fill ([`ultra_stages`]), the rest in block
//! RAM, and the count is the most that every resource holds so. The per-stage and front-end
//! figures come from yosys (`report::synthesize_for`, `synth_xilinx` for the board's family:
//! `xcup` on UltraScale+, with `-uram` for the UltraRAM stage; `xc7` elsewhere), so the count
//! is an estimate to confirm with the vendor's own utilisation report.

use super::Board;
use crate::emit::{front_verilog, stage_verilog, stage_verilog_in, CoreConfig, EmitError, Part};
use crate::front::table_bits;
use crate::report::{synthesize_with, Cost, SynthError};
use crate::solver::bram::Memory;
use crate::solver::load::MAX_UNITS;
use crate::solver::tally::TallyPipe;
use crate::ArbiterKind;
use queens_core::UnitKind;
use queens_core::{BoardSize, ModelError};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum FitError {
    #[error(transparent)]
    Size(#[from] ModelError),
    #[error(transparent)]
    Emit(#[from] EmitError),
    #[error("synthesizing {what}")]
    Synth {
        what: &'static str,
        #[source]
        source: SynthError,
    },
    #[error("the stage with its tally in UltraRAM synthesized to {uram} URAM288 and {ram18} 18 Kbit block RAMs, not one URAM288 alone: the emitted chain counts one a stage")]
    UltraStage { uram: u64, ram18: u64 },
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Fit {
    pub units: usize,
    /// What limits the count: the resource the next unit would overrun.
    pub limit: &'static str,
    /// Of the units, those whose tally is in UltraRAM (the first of the chain; 0 without
    /// UltraRAM); the rest keep theirs in block RAM.
    pub ultra_units: usize,
    pub luts: u64,
    pub flip_flops: u64,
    /// Block RAM in 18 Kbit blocks.
    pub ram18: u64,
    /// UltraRAM blocks (URAM288).
    pub uram: u64,
    /// Share of the device's LUTs, flip-flops, block RAM and UltraRAM the design takes.
    pub lut_share: f64,
    pub ff_share: f64,
    pub ram_share: f64,
    pub uram_share: f64,
    /// Units the device's resources would hold without the array's 4,096 unit ids.
    pub units_by_resources: u64,
    /// The compute clock to ask for.
    pub clock_hz: u64,
}

/// What limits a fit that the device's resources do not: the ids a core addresses.
pub const ID_LIMIT: &str = "the array's 4,096 unit ids";
const _: () = assert!(MAX_UNITS == 4096, "ID_LIMIT names the count");

/// URAM288 blocks one tally takes (1,024 words of 52 bits; yosys maps it onto one).
pub const TALLY_URAM: u64 = 1;

/// The stages of a chain of `units` units of kind `unit` on board `b` whose tally is in
/// UltraRAM: the first, as many as the device's URAM288 hold at its fill, [`TALLY_URAM`]
/// each; none on a device without UltraRAM or for a kind without a tally.
pub fn ultra_stages(b: &Board, unit: UnitKind, units: usize) -> usize {
    if !crate::kind::of(unit).has_tally() {
        return 0;
    }
    (ultra_room(b, 0, TALLY_URAM) as usize).min(units)
}

/// Tallies the device's UltraRAM holds at the fill beside a front end of `front` URAM288.
fn ultra_room(b: &Board, front: u64, per: u64) -> u64 {
    let budget = (b.device.uram288 as f64 * b.defaults.fill) as u64;
    budget.saturating_sub(front) / per.max(1)
}

/// The largest array within the board's fill factor (at least 1, at most 4,096 units) of
/// stages costing `stage` (the tally in block RAM), the first as many as UltraRAM holds
/// costing `ultra` instead, where there is such a form ([`ultra_stages`]'s rule).
pub fn fit(b: &Board, stage: &Cost, ultra: Option<&Cost>, front: &Cost) -> Fit {
    let d = &b.device;
    let fill = b.defaults.fill;
    let cap_ultra = ultra.map_or(0, |u| ultra_room(b, front.uram, u.uram));
    let none = Cost::default();
    let ultra_cost = ultra.unwrap_or(&none);
    // LUT sites, flip-flops, block RAM and UltraRAM of n units.
    let need = |n: u64| -> [u64; 4] {
        let u = n.min(cap_ultra);
        let k = n - u;
        [
            front.lut_sites() + u * ultra_cost.lut_sites() + k * stage.lut_sites(),
            front.ff + u * ultra_cost.ff + k * stage.ff,
            front.ram18 + u * ultra_cost.ram18 + k * stage.ram18,
            front.uram + u * ultra_cost.uram + k * stage.uram,
        ]
    };
    let budget = [d.luts, d.flip_flops, d.ram18, d.uram288].map(|c| (c as f64 * fill) as u64);
    let over = |n: u64| (0..4).find(|&r| need(n)[r] > budget[r]);
    // Each unit more takes no less of anything: the most that fit, by bisection (a stage
    // that takes nothing at all is held to 2^32 units).
    let (mut lo, mut hi) = (0u64, 1u64 << 32);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if over(mid).is_none() {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let n = lo;
    let limit = ["LUTs", "flip-flops", "block RAM", "UltraRAM"][over(n + 1).unwrap_or(0)];
    let units = n.clamp(1, MAX_UNITS as u64) as usize;
    let [luts, flip_flops, ram18, uram] = need(units as u64);
    Fit {
        units,
        limit: if n > MAX_UNITS as u64 { ID_LIMIT } else { limit },
        ultra_units: (units as u64).min(cap_ultra) as usize,
        luts,
        flip_flops,
        ram18,
        uram,
        lut_share: luts as f64 / d.luts as f64,
        ff_share: flip_flops as f64 / d.flip_flops as f64,
        ram_share: ram18 as f64 / d.ram18 as f64,
        uram_share: if d.uram288 == 0 {
            0.0
        } else {
            uram as f64 / d.uram288 as f64
        },
        units_by_resources: n,
        clock_hz: b.defaults.clock_hz,
    }
}

/// Units of the front end a fit measures first: the most whose tables are the smallest.
const FIRST_FRONT: usize = 1024;

/// The Verilog of one stage (its tally in form `pipe`) and of the front end of a core of
/// 1,024 `unit` units for `n`, as a fit measures them first: modules `queens_stage` and
/// `queens_front`.
pub fn fit_verilog(
    n: u32,
    unit: UnitKind,
    arbiter: ArbiterKind,
    pipe: TallyPipe,
) -> Result<(String, String), FitError> {
    let m = BoardSize::new(n)?.inner() as usize;
    let stage = stage_verilog(
        Part {
            unit,
            m,
            arbiter,
            pipe,
        },
        "queens_stage",
    );
    Ok((stage, front_for(n, FIRST_FRONT, unit, arbiter)?))
}

/// The Verilog of the front end of a core of `units` units (module `queens_front`).
fn front_for(n: u32, units: usize, unit: UnitKind, arbiter: ArbiterKind) -> Result<String, FitError> {
    let cfg = CoreConfig::new(n as usize, units, unit, arbiter, true)?;
    Ok(front_verilog(&cfg, "queens_front"))
}

/// The Verilog of one stage with its tally in UltraRAM (module `queens_stage`), where board
/// `b` has such stages: a device with URAM288 and a kind of unit with a tally.
pub fn ultra_verilog(
    b: &Board,
    n: u32,
    unit: UnitKind,
    arbiter: ArbiterKind,
) -> Result<Option<String>, FitError> {
    if ultra_stages(b, unit, 1) == 0 {
        return Ok(None);
    }
    let m = BoardSize::new(n)?.inner() as usize;
    let pipe = b.tally_pipe();
    Ok(Some(stage_verilog_in(
        Part {
            unit,
            m,
            arbiter,
            pipe,
        },
        Memory::Ultra,
        "queens_stage",
    )))
}

/// What a fit synthesized: one stage (its tally in block RAM), the same stage with its tally
/// in UltraRAM where the board has such stages, and the front end.
#[derive(Debug, Clone)]
pub struct Priced {
    pub stage: Cost,
    pub ultra: Option<Cost>,
    pub front: Cost,
}

/// The fit from yosys figures (`synth_xilinx` for the board's family) of one stage (in each
/// of its forms) and of the front end of `unit` units, with those figures.
pub fn synthesized(
    b: &Board,
    n: u32,
    unit: UnitKind,
    arbiter: ArbiterKind,
) -> Result<(Fit, Priced), FitError> {
    let (stage, front) = fit_verilog(n, unit, arbiter, b.tally_pipe())?;
    let synth = |what, verilog: String, top, uram| {
        synthesize_with(&verilog, top, b.family.synth_family(), uram)
            .map_err(|source| FitError::Synth { what, source })
    };
    let stage = synth("one solver stage", stage, "queens_stage", false)?;
    let ultra = match ultra_verilog(b, n, unit, arbiter)? {
        Some(v) => {
            let u = synth("one solver stage, its tally in UltraRAM", v, "queens_stage", true)?;
            if u.uram != TALLY_URAM || u.ram18 != 0 {
                return Err(FitError::UltraStage {
                    uram: u.uram,
                    ram18: u.ram18,
                });
            }
            Some(u)
        }
        None => None,
    };
    let mut front = synth("the front end", front, "queens_front", false)?;
    let mut f = fit(b, &stage, ultra.as_ref(), &front);
    // Past 1,024 units the front end's tables of ids grow: priced again at the count found,
    // which a larger front end can only lower, so the count stays within what was priced.
    if table_bits(f.units) > table_bits(FIRST_FRONT) {
        front = synth(
            "the front end",
            front_for(n, f.units, unit, arbiter)?,
            "queens_front",
            false,
        )?;
        f = fit(b, &stage, ultra.as_ref(), &front);
    }
    Ok((f, Priced { stage, ultra, front }))
}

/// Where the fit of a board is cached: `$QUEENS_FIT_CACHE` or `<tmp>/queens-fit`, named by a
/// hash of everything the fit depends on here (the board file, N, the arbiter, and the
/// Verilog of a stage, of its UltraRAM form where the board has one, and of the front end of
/// the unit's kind).
pub fn cache_path(b: &Board, n: u32, unit: UnitKind, arbiter: ArbiterKind) -> Option<PathBuf> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (
        format!("{b:?}"),
        n,
        arbiter.name(),
        fit_verilog(n, unit, arbiter, b.tally_pipe()).ok()?,
    )
        .hash(&mut h);
    // Only where there is one, so that the other boards' cached fits stand.
    if let Some(v) = ultra_verilog(b, n, unit, arbiter).ok()? {
        v.hash(&mut h);
    }
    let root = std::env::var_os("QUEENS_FIT_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("queens-fit"));
    let name: String = b
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let kind = format!("-{unit}");
    Some(root.join(format!(
        "{name}-n{n}-{}{kind}-{:016x}.json",
        arbiter.name(),
        h.finish()
    )))
}

/// A cached fit: units and what limits them.
pub fn read_cached(p: &Path) -> Option<(usize, String)> {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok()?;
    let units = v["units"].as_u64().filter(|&u| u >= 1)? as usize;
    Some((units, v["limit"].as_str().unwrap_or("?").to_string()))
}

/// Remembers a fit at `p` (written whole, then renamed into place).
pub fn write_cached(p: &Path, f: &Fit) -> std::io::Result<()> {
    let text = serde_json::json!({ "units": f.units, "limit": f.limit }).to_string();
    p.parent().map_or(Ok(()), std::fs::create_dir_all)?;
    let tmp = p.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(lut: u64, ff: u64) -> Cost {
        Cost {
            lut,
            ff,
            ..Cost::default()
        }
    }

    #[test]
    fn fit_is_the_smaller_of_the_two_budgets() {
        let b = Board::load("vc707").unwrap();
        // 303,600 x 0.85 = 258,060 LUTs: (258,060 - 2,060) / 600 = 426 units.
        let f = fit(&b, &cost(600, 488), None, &cost(2_060, 3_000));
        assert_eq!((f.units, f.limit), (426, "LUTs"));
        assert_eq!(f.luts, 2_060 + 426 * 600);
        // Flip-flop-heavy stages are limited by flip-flops instead.
        let f = fit(&b, &cost(100, 5_000), None, &cost(0, 0));
        assert_eq!((f.units, f.limit), (607_200 * 85 / 100 / 5_000, "flip-flops"));
        assert!(f.ff_share <= 0.85);
        // A stage of three 18 Kbit blocks: (2,060 x 0.85 - 4) / 3 = 582 units, fewer than
        // its LUTs allow.
        let ram = |lut, ram18| Cost {
            ram18,
            ..cost(lut, 100)
        };
        let f = fit(&b, &ram(300, 3), None, &ram(2_000, 4));
        assert_eq!((f.units, f.limit), (582, "block RAM"));
        assert_eq!(f.ram18, 4 + 582 * 3);
        assert!(f.ram_share <= 0.85);
    }

    #[test]
    fn ultraram_is_a_budget_and_the_unit_ids_cap_the_count() {
        let b = Board::load("u55c").unwrap();
        // A stage of one URAM288 and no block RAM: (960 x 0.85 - 0) / 1 = 816 units.
        let uram = Cost {
            uram: 1,
            ..cost(300, 300)
        };
        let f = fit(&b, &uram, None, &cost(2_000, 2_000));
        assert_eq!((f.units, f.limit, f.uram), (816, "UltraRAM", 816));
        // (1,304,000 x 0.85 - 2,000) / 300 = 3,688 by LUTs: more than 1,024 units.
        let f = fit(&b, &cost(300, 300), None, &cost(2_000, 2_000));
        assert_eq!((f.units, f.limit), (3_688, "LUTs"));
        // A small stage: the device holds more than a core's 4,096 ids.
        let f = fit(&b, &cost(100, 100), None, &cost(2_000, 2_000));
        assert_eq!((f.units, f.limit), (4_096, ID_LIMIT));
        assert_eq!(f.units_by_resources, 11_064);
    }

    /// The U55C's stages as yosys priced them (issue 59): the tally in three RAMB18 or in
    /// one URAM288, the rest alike.
    fn u55c_stages(lut: u64) -> (Cost, Cost, Cost) {
        let block = Cost {
            ram18: 3,
            ..cost(lut, 728)
        };
        let ultra = Cost {
            uram: 1,
            ..cost(lut, 728)
        };
        let front = Cost {
            ram18: 27,
            ..cost(1_431, 1_086)
        };
        (block, ultra, front)
    }

    #[test]
    fn ultraram_tallies_come_first_and_block_ram_holds_the_rest() {
        let b = Board::load("u55c").unwrap();
        let (block, ultra, front) = u55c_stages(686);
        // Block RAM alone: (4,032 x 0.85 - 27) / 3 = 1,133 units.
        let f = fit(&b, &block, None, &front);
        assert_eq!((f.units, f.limit, f.ultra_units), (1_133, "block RAM", 0));
        // With 816 tallies in UltraRAM (960 x 0.85) LUTs bind: (1,304,000 x 0.85 - 1,431) /
        // 686 = 1,613 units, 816 of them in UltraRAM, 797 in block RAM.
        let f = fit(&b, &block, Some(&ultra), &front);
        assert_eq!((f.units, f.limit, f.ultra_units), (1_613, "LUTs", 816));
        assert_eq!((f.uram, f.ram18), (816, 27 + 797 * 3));
        assert_eq!(f.luts, 1_431 + 1_613 * 686);
        assert!(f.lut_share <= 0.85 && f.uram_share <= 0.85 && f.ram_share <= 0.85);
        assert_eq!(ultra_stages(&b, UnitKind::Grouped, f.units), f.ultra_units);
        // Small stages: both RAMs full, 816 + 1,133 units, and block RAM is what the next
        // one would overrun.
        let (block, ultra, front) = u55c_stages(300);
        let f = fit(&b, &block, Some(&ultra), &front);
        assert_eq!((f.units, f.limit, f.ultra_units), (1_949, "block RAM", 816));
        assert_eq!(f.ram18, 27 + 1_133 * 3);
        // Fewer units than UltraRAM holds: every tally in UltraRAM.
        assert_eq!(ultra_stages(&b, UnitKind::Grouped, 500), 500);
        assert_eq!(ultra_stages(&b, UnitKind::Grouped, 2_000), 816);
        // Plain units have no tally; a device without UltraRAM has none.
        assert_eq!(ultra_stages(&b, UnitKind::Plain, 500), 0);
        let vc707 = Board::load("vc707").unwrap();
        assert_eq!(ultra_stages(&vc707, UnitKind::Grouped, 500), 0);
    }
}
