//! How many solver units a device holds: (capacity x fill - front end) / stage, for LUTs and
//! flip-flops alike, the smaller wins. The per-stage and front-end figures come from yosys
//! (`report::synthesize`), so the count is an estimate to confirm with the vendor's own
//! utilisation report.

use super::Board;
use crate::report::Cost;

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Fit {
    pub units: usize,
    /// What limits the count.
    pub limit: &'static str,
    pub luts: u64,
    pub flip_flops: u64,
    /// Share of the device's LUTs and flip-flops the design takes.
    pub lut_share: f64,
    pub ff_share: f64,
    /// The compute clock to ask for.
    pub clock_hz: u64,
}

/// The largest array within the board's fill factor (at least 1, at most 1024 units).
pub fn fit(b: &Board, stage: &Cost, front: &Cost) -> Fit {
    let d = &b.device;
    let fill = b.defaults.fill;
    let room = |cap: u64, fixed: u64, per: u64| -> u64 {
        let budget = (cap as f64 * fill) as u64;
        budget.saturating_sub(fixed) / per.max(1)
    };
    let by_lut = room(d.luts, front.lut_sites(), stage.lut_sites());
    let by_ff = room(d.flip_flops, front.ff, stage.ff);
    let (n, limit) = if by_lut <= by_ff {
        (by_lut, "LUTs")
    } else {
        (by_ff, "flip-flops")
    };
    let units = n.clamp(1, 1 << crate::stage::ID_BITS) as usize;
    let luts = front.lut_sites() + units as u64 * stage.lut_sites();
    let flip_flops = front.ff + units as u64 * stage.ff;
    Fit {
        units,
        limit: if n > 1 << crate::stage::ID_BITS {
            "the array's 1024 unit ids"
        } else {
            limit
        },
        luts,
        flip_flops,
        lut_share: luts as f64 / d.luts as f64,
        ff_share: flip_flops as f64 / d.flip_flops as f64,
        clock_hz: b.defaults.clock_hz,
    }
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
    }
}
