//! What a board file must hold, checked when it is loaded: pins that are pins, clocks the
//! primitive can make, links and settings that go with the part and its toolchain.

use super::*;

fn is_pin(p: &str) -> bool {
    let letters = p.chars().take_while(|c| c.is_ascii_uppercase()).count();
    letters > 0 && letters < p.len() && p[letters..].chars().all(|c| c.is_ascii_digit())
}

impl Board {
    /// Every field of a board file checked against the others, each failure naming the file
    /// and the field.
    pub(super) fn check(&self, file: &Path) -> Result<(), BoardError> {
        let bad = |field, reason: String| {
            Err(BoardError::Field {
                file: file.into(),
                field,
                reason,
            })
        };
        // The name becomes file names (`<name>.xdc`) and Tcl words: a name, never a path.
        if !is_board_name(&self.name) {
            return bad(
                "name",
                format!(
                    "{:?} is not a board name (1 to 64 letters, digits, _ or -, starting with a letter or digit; no paths)",
                    self.name
                ),
            );
        }
        if let Err(reason) = self.check_config_bank() {
            return bad("bitstream", reason);
        }
        if let Err(reason) = self.tally_named() {
            return bad("build.tally", reason);
        }
        let want = if self.clock.differential { 2 } else { 1 };
        if self.clock.pins.len() != want {
            return bad(
                "clock.pins",
                format!(
                    "a {} clock has {want} pin(s), found {}",
                    if want == 2 { "differential" } else { "single-ended" },
                    self.clock.pins.len()
                ),
            );
        }
        let ecp5 = match self.family {
            Family::Ecp5 => match toolchain::trellis::Device::from_part(&self.part) {
                Ok(d) => Some(d),
                Err(reason) => return bad("part", reason),
            },
            _ => None,
        };
        if self.uart.rts.is_some() != self.uart.cts.is_some() {
            return bad(
                "uart.rts",
                "rts and cts come as a pair (rts is looped back to cts), or neither".into(),
            );
        }
        let mut pins: Vec<(&'static str, &str)> =
            vec![("uart.rx", &self.uart.rx), ("uart.tx", &self.uart.tx)];
        pins.extend(self.uart.rts.iter().map(|p| ("uart.rts", p.as_str())));
        pins.extend(self.uart.cts.iter().map(|p| ("uart.cts", p.as_str())));
        pins.extend(self.fan.iter().map(|f| ("fan.pin", f.pin.as_str())));
        pins.extend(self.clock.pins.iter().map(|p| ("clock.pins", p.as_str())));
        if let Some(r) = &self.reset {
            pins.push(("reset.pin", &r.pin));
        }
        pins.extend(self.tie.iter().map(|t| ("tie.pin", t.pin.as_str())));
        for (i, (field, p)) in pins.iter().enumerate() {
            if !is_pin(p) {
                return bad(
                    field,
                    format!("{p:?} is not a pin name (letters then digits, e.g. AU33)"),
                );
            }
            if let Some((other, _)) = pins[..i].iter().find(|(_, q)| q == p) {
                return bad(field, format!("pin {p} is also {other}"));
            }
            if let Some(device) = &ecp5 {
                if let Err(reason) = toolchain::trellis::check_pin(device, &self.part, p) {
                    return bad(field, reason);
                }
            }
        }
        for t in &self.tie {
            let ident = t.name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && t.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            let taken = top::ports(self).iter().filter(|p| p.name == t.name).count() > 1;
            if !ident || taken {
                return bad(
                    "tie.name",
                    format!("{:?} is not a free port name (lower case, digits, _)", t.name),
                );
            }
        }
        if let Some(f) = &self.fan {
            if !(0.0..=1.0).contains(&f.duty) {
                return bad("fan.duty", format!("{} is not a share between 0 and 1", f.duty));
            }
        }
        if !(self.defaults.fill > 0.0 && self.defaults.fill <= 1.0) {
            return bad(
                "defaults.fill",
                format!("{} is not a share between 0 and 1", self.defaults.fill),
            );
        }
        if u32::try_from(self.defaults.n).map_or(true, |n| queens_core::BoardSize::new(n).is_err()) {
            return bad(
                "defaults.n",
                format!(
                    "{}: circuits exist for N = {}..={}",
                    self.defaults.n,
                    queens_core::board::MIN_N,
                    queens_core::board::MAX_N
                ),
            );
        }
        if self.device.luts == 0 || self.device.flip_flops == 0 || self.device.ram18 == 0 {
            return bad(
                "device",
                "LUT, flip-flop and block RAM capacity must be positive".into(),
            );
        }
        if self.device.uram288 > 0 && self.family != Family::Virtexuplus {
            return bad(
                "device.uram288",
                format!(
                    "UltraRAM is an UltraScale+ block; {:?} parts have none",
                    self.family
                ),
            );
        }
        if self.device.slrs == 0 {
            return bad("device.slrs", "a device has at least one die (SLR)".into());
        }
        if self.links.contains(&HostLink::Pcie) != self.pcie.is_some() {
            return bad(
                "pcie",
                "a board offers the pcie link exactly when it has a [pcie] table".into(),
            );
        }
        if let Some(p) = &self.pcie {
            if p.refclk.len() != 2 {
                return bad(
                    "pcie.refclk",
                    format!(
                        "the reference clock is a pair (P, N), found {} pin(s)",
                        p.refclk.len()
                    ),
                );
            }
            let (lanes, gens, what): (&[u32], &[u32], &str) = match self.family {
                Family::Virtex7 | Family::Kintex7 => (
                    &[1, 2, 4, 8],
                    &[1, 2],
                    "XDMA on 7-series does x1, x2, x4, x8 at Gen1 or Gen2",
                ),
                Family::Virtexuplus => (
                    &[1, 2, 4, 8, 16],
                    &[1, 2, 3],
                    "XDMA on UltraScale+ (here) does x1 to x16 at Gen1 to Gen3",
                ),
                _ => {
                    return bad(
                        "pcie",
                        "the XDMA top exists for 7-series and UltraScale+ boards only".into(),
                    )
                }
            };
            if !lanes.contains(&p.lanes) || !gens.contains(&p.gen) {
                return bad("pcie", format!("x{} Gen{}: {what}", p.lanes, p.gen));
            }
            for q in p.refclk.iter().chain([&p.perst]) {
                if !is_pin(q) {
                    return bad("pcie", format!("{q:?} is not a pin name"));
                }
            }
        }
        if self.links.is_empty() {
            return bad("links", "a board needs at least one link (uart, pcie)".into());
        }
        // The board's own clock settings must be legal and give its default clock.
        let s = self.pll_settings();
        if let Err(e) = s.check(self.clock.hz as f64) {
            return bad("pll", e.to_string());
        }
        let f = s.output_hz(self.clock.hz as f64);
        if (f - self.defaults.clock_hz as f64).abs() / self.defaults.clock_hz as f64 > 0.01 {
            return bad(
                "defaults.clock_hz",
                format!(
                    "the pll settings give {:.3} MHz, not {:.3} MHz",
                    f / 1e6,
                    self.defaults.clock_hz as f64 / 1e6
                ),
            );
        }
        Ok(())
    }

    /// Vivado boards say how their configuration bank is wired, and only they do; the level
    /// of CFGBVS goes with the voltage (UG470: VCCO for 2.5 or 3.3 V, GND for 1.8 or 1.5 V).
    fn check_config_bank(&self) -> Result<(), String> {
        let given = self
            .bitstream
            .as_ref()
            .map_or((None, None), |b| (b.cfgbvs, b.config_voltage));
        let vivado = self.toolchain() == Toolchain::Vivado;
        match given {
            (None, None) if !vivado => Ok(()),
            (_, _) if !vivado => Err(format!(
                "cfgbvs and config_voltage are 7-series settings; {:?} boards take neither",
                self.family
            )),
            (Some(level), Some(v)) => {
                let fits = match level {
                    Cfgbvs::Vcco => [2.5, 3.3].contains(&v),
                    Cfgbvs::Gnd => [1.5, 1.8].contains(&v),
                };
                if fits {
                    Ok(())
                } else {
                    Err(format!(
                        "cfgbvs = {:?} with config_voltage = {v}: CFGBVS is VCCO for a 2.5 or 3.3 V configuration bank, GND for 1.8 or 1.5 V",
                        level.name()
                    ))
                }
            }
            _ => Err(
                "a 7-series board says how its configuration bank is wired: cfgbvs (\"VCCO\" or \"GND\") and config_voltage (from its user guide)"
                    .into(),
            ),
        }
    }
}
