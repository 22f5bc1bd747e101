//! Clock synthesis: the divide (D), multiply (M) and output divide (O) of each family's
//! clock primitive, f_out = f_in / D * M / O, kept inside the primitive's ranges.
//!
//! The ranges are those of the speed grades of our boards' parts (Virtex-7 / Kintex-7 -2,
//! data sheets DS182 / DS183; Virtex-6 -1, DS152; Stratix IV GX C2, the device handbook;
//! ECP5 EHXPLLL, Lattice TN1263 and the limits Project Trellis' `ecppll` searches within;
//! Virtex UltraScale+ -2 at 0.85 V, DS923 v1.20 (2024-08-09) table "MMCM Specification", and
//! the MMCME4_ADV counter ranges of UG974 / UG572), rounded to the safe side where grades differ.
//!
//! The ECP5 PLL is fed back from its own output (FEEDBK_PATH "CLKOP", as `ecppll` writes
//! it), so there f_out = f_in / D * M and the VCO runs at f_out * O.

/// A clock primitive and the ranges it works in (MHz, and counter values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primitive {
    /// 7-series PLL.
    Plle2Base,
    /// Virtex-6 mixed-mode clock manager.
    MmcmBase,
    /// Stratix IV PLL megafunction.
    Altpll,
    /// ECP5 PLL: D = CLKI_DIV, M = CLKFB_DIV, O = CLKOP_DIV.
    Ehxplll,
    /// UltraScale+ mixed-mode clock manager (integer multiply and divides used).
    Mmcme4Adv,
}

#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub fin: (f64, f64),
    pub pfd: (f64, f64),
    pub vco: (f64, f64),
    pub fout_max: f64,
    pub divide: (u32, u32),
    pub multiply: (u32, u32),
    pub output_divide: (u32, u32),
}

impl Primitive {
    pub fn name(self) -> &'static str {
        match self {
            Primitive::Plle2Base => "PLLE2_BASE",
            Primitive::MmcmBase => "MMCM_BASE",
            Primitive::Altpll => "altpll",
            Primitive::Ehxplll => "EHXPLLL",
            Primitive::Mmcme4Adv => "MMCME4_ADV",
        }
    }

    pub fn limits(self) -> Limits {
        match self {
            Primitive::Plle2Base => Limits {
                fin: (19.0, 800.0),
                pfd: (19.0, 450.0),
                vco: (800.0, 1866.0),
                fout_max: 800.0,
                divide: (1, 56),
                multiply: (2, 64),
                output_divide: (1, 128),
            },
            Primitive::MmcmBase => Limits {
                fin: (10.0, 700.0),
                pfd: (10.0, 450.0),
                vco: (600.0, 1200.0),
                fout_max: 700.0,
                divide: (1, 80),
                multiply: (5, 64),
                output_divide: (1, 128),
            },
            Primitive::Altpll => Limits {
                fin: (5.0, 717.0),
                pfd: (5.0, 325.0),
                vco: (600.0, 1300.0),
                fout_max: 717.0,
                divide: (1, 512),
                multiply: (1, 512),
                output_divide: (1, 512),
            },
            // DS923 v1.20, -2 at 0.85 V: input 10..933 MHz, VCO 800..1600 MHz. The phase
            // detector's and the output's maxima are kept at 450 and 775 MHz, below the
            // data sheet's figures for any grade (the safe side; the clocking wizard was
            // not run). Counters: DIVCLK_DIVIDE 1..106, CLKFBOUT_MULT_F 2..128,
            // CLKOUT0_DIVIDE_F 1..128.
            Primitive::Mmcme4Adv => Limits {
                fin: (10.0, 933.0),
                pfd: (10.0, 450.0),
                vco: (800.0, 1600.0),
                fout_max: 775.0,
                divide: (1, 106),
                multiply: (2, 128),
                output_divide: (1, 128),
            },
            Primitive::Ehxplll => Limits {
                fin: (8.0, 400.0),
                pfd: (3.125, 400.0),
                vco: (400.0, 800.0),
                fout_max: 400.0,
                divide: (1, 128),
                multiply: (1, 80),
                output_divide: (1, 128),
            },
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub primitive: Primitive,
    pub divide: u32,
    pub multiply: u32,
    pub output_divide: u32,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClockError {
    #[error("{primitive}: {what} = {value} is outside {lo}..={hi}")]
    Counter {
        primitive: &'static str,
        what: &'static str,
        value: u32,
        lo: u32,
        hi: u32,
    },
    #[error("{primitive}: {what} of {mhz:.3} MHz is outside {lo}..={hi} MHz")]
    Frequency {
        primitive: &'static str,
        what: &'static str,
        mhz: f64,
        lo: f64,
        hi: f64,
    },
    #[error("{primitive}: {want_mhz:.3} MHz is above its output limit of {max} MHz")]
    TooFast {
        primitive: &'static str,
        want_mhz: f64,
        max: f64,
    },
    #[error("{primitive}: no legal setting gives {want_mhz:.3} MHz from {fin_mhz:.3} MHz within 1% (nearest: {best_mhz:.3} MHz)")]
    NoSetting {
        primitive: &'static str,
        want_mhz: f64,
        fin_mhz: f64,
        best_mhz: f64,
    },
}

impl Settings {
    pub fn vco_hz(&self, fin: f64) -> f64 {
        match self.primitive {
            Primitive::Ehxplll => self.output_hz(fin) * self.output_divide as f64,
            _ => fin / self.divide as f64 * self.multiply as f64,
        }
    }

    pub fn output_hz(&self, fin: f64) -> f64 {
        match self.primitive {
            Primitive::Ehxplll => fin / self.divide as f64 * self.multiply as f64,
            _ => self.vco_hz(fin) / self.output_divide as f64,
        }
    }

    /// EHXPLLL: the output's coarse phase (CLKOP_CPHASE), half an output period in VCO
    /// cycles as `ecppll` computes it (in its arithmetic, which truncates an exact 3.0 to 2),
    /// so that our PLL is bit for bit the one that tool writes and boards have run.
    pub fn ehxplll_cphase(&self, fin: f64) -> u32 {
        let fpfd = (fin / 1e6) as f32 / self.divide as f32;
        let (fvco, fout) = ehxplll_f32(fpfd, self.multiply, self.output_divide);
        let ns_phase = (1.0 / (f64::from(fout) * 1e6) * 0.5) as f32;
        (f64::from(ns_phase) * (f64::from(fvco) * 1e6)) as u32
    }

    /// Every counter and frequency inside the primitive's ranges.
    pub fn check(&self, fin: f64) -> Result<(), ClockError> {
        let l = self.primitive.limits();
        let p = self.primitive.name();
        for (what, value, (lo, hi)) in [
            ("divide", self.divide, l.divide),
            ("multiply", self.multiply, l.multiply),
            ("output_divide", self.output_divide, l.output_divide),
        ] {
            if !(lo..=hi).contains(&value) {
                return Err(ClockError::Counter {
                    primitive: p,
                    what,
                    value,
                    lo,
                    hi,
                });
            }
        }
        let mhz = |hz: f64| hz / 1e6;
        for (what, f, (lo, hi)) in [
            ("input", mhz(fin), l.fin),
            ("phase detector", mhz(fin / self.divide as f64), l.pfd),
            ("VCO", mhz(self.vco_hz(fin)), l.vco),
            ("output", mhz(self.output_hz(fin)), (0.0, l.fout_max)),
        ] {
            if !(lo..=hi).contains(&f) {
                return Err(ClockError::Frequency {
                    primitive: p,
                    what,
                    mhz: f,
                    lo,
                    hi,
                });
            }
        }
        Ok(())
    }
}

/// The legal setting closest to `want` Hz from `fin` Hz (ties: the higher VCO, for less
/// jitter, then the smaller divide); refused when nothing comes within 1%.
pub fn solve(primitive: Primitive, fin: f64, want: f64) -> Result<Settings, ClockError> {
    let l = primitive.limits();
    if want / 1e6 > l.fout_max {
        return Err(ClockError::TooFast {
            primitive: primitive.name(),
            want_mhz: want / 1e6,
            max: l.fout_max,
        });
    }
    if primitive == Primitive::Ehxplll {
        return solve_ehxplll(fin, want);
    }
    let mut best: Option<(f64, f64, Settings)> = None;
    for divide in l.divide.0..=l.divide.1 {
        for multiply in l.multiply.0..=l.multiply.1 {
            let base = Settings {
                primitive,
                divide,
                multiply,
                output_divide: 1,
            };
            let vco = base.vco_hz(fin);
            let o = (vco / want)
                .round()
                .clamp(l.output_divide.0 as f64, l.output_divide.1 as f64) as u32;
            for output_divide in [o.saturating_sub(1).max(1), o, o + 1] {
                let s = Settings {
                    output_divide,
                    ..base
                };
                if s.check(fin).is_err() {
                    continue;
                }
                let err = (s.output_hz(fin) - want).abs();
                let better = match &best {
                    None => true,
                    Some((e, v, _)) => err < *e - 1e-6 || ((err - *e).abs() <= 1e-6 && vco > *v + 1e-6),
                };
                if better {
                    best = Some((err, vco, s));
                }
            }
        }
    }
    within_one_percent(primitive, fin, want, best.map(|(_, _, s)| s))
}

/// The best setting found, if it is legal and within 1% of `want`; else the refusal naming
/// the nearest.
fn within_one_percent(
    primitive: Primitive,
    fin: f64,
    want: f64,
    best: Option<Settings>,
) -> Result<Settings, ClockError> {
    match best {
        Some(s) if s.check(fin).is_ok() && (s.output_hz(fin) - want).abs() / want <= 0.01 => Ok(s),
        other => Err(ClockError::NoSetting {
            primitive: primitive.name(),
            want_mhz: want / 1e6,
            fin_mhz: fin / 1e6,
            best_mhz: other.map_or(0.0, |s| s.output_hz(fin) / 1e6),
        }),
    }
}

/// The ECP5 PLL as `ecppll` picks it: the nearest output, then the VCO nearest 600 MHz
/// (mid-range), then the first in the order of its search (divide, multiply, output divide,
/// each rising). Computed in single precision as that tool computes, so that near-ties fall
/// the same way and our settings are the ones boards have run.
fn solve_ehxplll(fin: f64, want: f64) -> Result<Settings, ClockError> {
    let primitive = Primitive::Ehxplll;
    let l = primitive.limits();
    let (input, output) = ((fin / 1e6) as f32, (want / 1e6) as f32);
    let mut best: Option<(f32, f32, Settings)> = None;
    for divide in l.divide.0..=l.divide.1 {
        let fpfd = input / divide as f32;
        if !(l.pfd.0 as f32..=l.pfd.1 as f32).contains(&fpfd) {
            continue;
        }
        for multiply in l.multiply.0..=l.multiply.1 {
            for output_divide in l.output_divide.0..=l.output_divide.1 {
                let (fvco, fout) = ehxplll_f32(fpfd, multiply, output_divide);
                if !(l.vco.0 as f32..=l.vco.1 as f32).contains(&fvco) {
                    continue;
                }
                let err = (fout - output).abs();
                let better = match &best {
                    None => true,
                    Some((e, v, _)) => err < *e || (err == *e && (fvco - 600.0).abs() < (v - 600.0).abs()),
                };
                if better {
                    let s = Settings {
                        primitive,
                        divide,
                        multiply,
                        output_divide,
                    };
                    best = Some((err, fvco, s));
                }
            }
        }
    }
    within_one_percent(primitive, fin, want, best.map(|(_, _, s)| s))
}

/// VCO and output in MHz, in `ecppll`'s single-precision steps.
fn ehxplll_f32(fpfd: f32, multiply: u32, output_divide: u32) -> (f32, f32) {
    let fvco = fpfd * multiply as f32 * output_divide as f32;
    (fvco, fvco / output_divide as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_met_within_one_percent_and_legally() {
        for (p, fin) in [
            (Primitive::Plle2Base, 200e6),
            (Primitive::MmcmBase, 200e6),
            (Primitive::Altpll, 50e6),
            (Primitive::Ehxplll, 25e6),
            (Primitive::Mmcme4Adv, 100e6),
        ] {
            for mhz in [100.0, 125.0, 171.4, 200.0, 248.0, 250.0, 284.4, 300.0, 333.3] {
                if mhz > p.limits().fout_max {
                    continue;
                }
                let s = solve(p, fin, mhz * 1e6).unwrap();
                s.check(fin).unwrap();
                let got = s.output_hz(fin) / 1e6;
                assert!((got - mhz).abs() / mhz <= 0.01, "{p:?} {mhz}: {got} with {s:?}");
            }
        }
    }

    #[test]
    fn impossible_requests_say_why() {
        let e = solve(Primitive::MmcmBase, 200e6, 900e6).unwrap_err().to_string();
        assert!(e.contains("above its output limit of 700 MHz"), "{e}");
        let e = solve(Primitive::Plle2Base, 200e6, 3e6).unwrap_err().to_string();
        assert!(e.contains("no legal setting gives 3.000 MHz"), "{e}");
        let s = Settings {
            primitive: Primitive::Plle2Base,
            divide: 1,
            multiply: 20,
            output_divide: 5,
        };
        let e = s.check(200e6).unwrap_err().to_string();
        assert!(e.contains("VCO of 4000.000 MHz is outside 800..=1866 MHz"), "{e}");
    }
}
