//! How many solver units a device holds: (capacity x fill - front end) / stage, for LUTs,
//! flip-flops, block RAM and UltraRAM alike (a grouped stage's tally takes block RAM), the
//! smallest wins. The per-stage and front-end figures come from yosys
//! (`report::synthesize_for`, `synth_xilinx` for the board's family: `xcup` on UltraScale+,
//! `xc7` elsewhere), so the count is an estimate to confirm with the vendor's own
//! utilisation report.

use super::Board;
use crate::emit::{front_verilog, stage_verilog, CoreConfig, EmitError};
use crate::front::table_bits;
use crate::report::{synthesize_for, Cost, SynthError};
use crate::solver::load::MAX_UNITS;
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
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Fit {
    pub units: usize,
    /// What limits the count.
    pub limit: &'static str,
    pub luts: u64,
    pub flip_flops: u64,
    /// Block RAM in 18 Kbit blocks.
    pub ram18: u64,
    /// UltraRAM blocks (URAM288).
    pub uram: u64,
    /// Share of the device's LUTs, flip-flops and block RAM the design takes.
    pub lut_share: f64,
    pub ff_share: f64,
    pub ram_share: f64,
    /// Units the device's resources would hold without the array's 4,096 unit ids.
    pub units_by_resources: u64,
    /// The compute clock to ask for.
    pub clock_hz: u64,
}

/// What limits a fit that the device's resources do not: the ids a core addresses.
pub const ID_LIMIT: &str = "the array's 4,096 unit ids";
const _: () = assert!(MAX_UNITS == 4096, "ID_LIMIT names the count");

/// The largest array within the board's fill factor (at least 1, at most 4,096 units).
pub fn fit(b: &Board, stage: &Cost, front: &Cost) -> Fit {
    let d = &b.device;
    let fill = b.defaults.fill;
    let room = |cap: u64, fixed: u64, per: u64| -> u64 {
        let budget = (cap as f64 * fill) as u64;
        budget.saturating_sub(fixed) / per.max(1)
    };
    let by_lut = room(d.luts, front.lut_sites(), stage.lut_sites());
    let by_ff = room(d.flip_flops, front.ff, stage.ff);
    let by_ram = match stage.ram18 {
        0 => u64::MAX,
        per => room(d.ram18, front.ram18, per),
    };
    let by_uram = match stage.uram {
        0 => u64::MAX,
        per => room(d.uram288, front.uram, per),
    };
    let (n, limit) = [
        (by_lut, "LUTs"),
        (by_ff, "flip-flops"),
        (by_ram, "block RAM"),
        (by_uram, "UltraRAM"),
    ]
    .into_iter()
    .min_by_key(|b| b.0)
    .expect("four budgets");
    let units = n.clamp(1, MAX_UNITS as u64) as usize;
    let luts = front.lut_sites() + units as u64 * stage.lut_sites();
    let flip_flops = front.ff + units as u64 * stage.ff;
    let ram18 = front.ram18 + units as u64 * stage.ram18;
    let uram = front.uram + units as u64 * stage.uram;
    Fit {
        units,
        limit: if n > MAX_UNITS as u64 { ID_LIMIT } else { limit },
        luts,
        flip_flops,
        ram18,
        uram,
        lut_share: luts as f64 / d.luts as f64,
        ff_share: flip_flops as f64 / d.flip_flops as f64,
        ram_share: ram18 as f64 / d.ram18 as f64,
        units_by_resources: n,
        clock_hz: b.defaults.clock_hz,
    }
}

/// Units of the front end a fit measures first: the most whose tables are the smallest.
const FIRST_FRONT: usize = 1024;

/// The Verilog of one stage and of the front end of a core of 1,024 `unit` units for `n`, as
/// a fit measures them first: modules `queens_stage` and `queens_front`.
pub fn fit_verilog(n: u32, unit: UnitKind, arbiter: ArbiterKind) -> Result<(String, String), FitError> {
    let m = BoardSize::new(n)?.inner() as usize;
    let stage = stage_verilog(unit, m, arbiter, "queens_stage");
    Ok((stage, front_for(n, FIRST_FRONT, unit, arbiter)?))
}

/// The Verilog of the front end of a core of `units` units (module `queens_front`).
fn front_for(n: u32, units: usize, unit: UnitKind, arbiter: ArbiterKind) -> Result<String, FitError> {
    let cfg = CoreConfig::new(n as usize, units, unit, arbiter, true)?;
    Ok(front_verilog(&cfg, "queens_front"))
}

/// The fit from yosys figures (`synth_xilinx` for the board's family) of one stage and of
/// the front end of `unit` units, with those figures.
pub fn synthesized(
    b: &Board,
    n: u32,
    unit: UnitKind,
    arbiter: ArbiterKind,
) -> Result<(Fit, Cost, Cost), FitError> {
    let (stage, front) = fit_verilog(n, unit, arbiter)?;
    let synth = |what, verilog: String, top| {
        synthesize_for(&verilog, top, b.family.synth_family())
            .map_err(|source| FitError::Synth { what, source })
    };
    let stage = synth("one solver stage", stage, "queens_stage")?;
    let mut front = synth("the front end", front, "queens_front")?;
    let mut f = fit(b, &stage, &front);
    // Past 1,024 units the front end's tables of ids grow: priced again at the count found,
    // which a larger front end can only lower, so the count stays within what was priced.
    if table_bits(f.units) > table_bits(FIRST_FRONT) {
        front = synth(
            "the front end",
            front_for(n, f.units, unit, arbiter)?,
            "queens_front",
        )?;
        f = fit(b, &stage, &front);
    }
    Ok((f, stage, front))
}

/// Where the fit of a board is cached: `$QUEENS_FIT_CACHE` or `<tmp>/queens-fit`, named by a
/// hash of everything the fit depends on here (the board file, N, the arbiter, and the
/// Verilog of a stage and of the front end of the unit's kind).
pub fn cache_path(b: &Board, n: u32, unit: UnitKind, arbiter: ArbiterKind) -> Option<PathBuf> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (
        format!("{b:?}"),
        n,
        arbiter.name(),
        fit_verilog(n, unit, arbiter).ok()?,
    )
        .hash(&mut h);
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
        let f = fit(&b, &cost(600, 488), &cost(2_060, 3_000));
        assert_eq!((f.units, f.limit), (426, "LUTs"));
        assert_eq!(f.luts, 2_060 + 426 * 600);
        // Flip-flop-heavy stages are limited by flip-flops instead.
        let f = fit(&b, &cost(100, 5_000), &cost(0, 0));
        assert_eq!((f.units, f.limit), (607_200 * 85 / 100 / 5_000, "flip-flops"));
        assert!(f.ff_share <= 0.85);
        // A stage of three 18 Kbit blocks: (2,060 x 0.85 - 4) / 3 = 582 units, fewer than
        // its LUTs allow.
        let ram = |lut, ram18| Cost {
            ram18,
            ..cost(lut, 100)
        };
        let f = fit(&b, &ram(300, 3), &ram(2_000, 4));
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
        let f = fit(&b, &uram, &cost(2_000, 2_000));
        assert_eq!((f.units, f.limit, f.uram), (816, "UltraRAM", 816));
        // (1,304,000 x 0.85 - 2,000) / 300 = 3,688 by LUTs: more than 1,024 units.
        let f = fit(&b, &cost(300, 300), &cost(2_000, 2_000));
        assert_eq!((f.units, f.limit), (3_688, "LUTs"));
        // A small stage: the device holds more than a core's 4,096 ids.
        let f = fit(&b, &cost(100, 100), &cost(2_000, 2_000));
        assert_eq!((f.units, f.limit), (4_096, ID_LIMIT));
        assert_eq!(f.units_by_resources, 11_064);
    }
}
