//! Boards as data: `boards/<name>.toml` says which part, clocks, pins and links a board has;
//! [`clock`] derives legal clock settings for its clock primitive, [`top`] writes the board's
//! top level around the core, [`toolchain`] the vendor build script, [`fit`] how many units
//! the device holds, and [`build`] puts it all into one directory.

pub mod build;
mod check;
pub mod clock;
pub mod fit;
pub mod generic;
pub mod toolchain;
pub mod top;

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The boards that come with the project (their files are compiled in, so an installed
/// binary needs no source tree); `--board path/to/my.toml` adds any other.
pub const BUILTIN: [(&str, &str); 6] = [
    ("vc707", include_str!("../../../boards/vc707.toml")),
    ("kc705", include_str!("../../../boards/kc705.toml")),
    ("ml605", include_str!("../../../boards/ml605.toml")),
    ("de4", include_str!("../../../boards/de4.toml")),
    ("ulx3s", include_str!("../../../boards/ulx3s.toml")),
    ("u55c", include_str!("../../../boards/u55c.toml")),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    Xilinx,
    Altera,
    Lattice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Virtex7,
    Kintex7,
    Virtex6,
    Stratix4,
    Ecp5,
    /// Virtex UltraScale+ (the Alveo cards' parts, `xcu55c`, `xcvu9p`, ...): AMD's own name
    /// for the family, as Vivado's platforms report it.
    Virtexuplus,
}

impl Family {
    /// Whether the family's parts have the cells an arbiter form instantiates (CARRY4 on
    /// Xilinx parts, CCU2C on the ECP5); the plain forms build anywhere.
    pub fn builds(self, kind: crate::ArbiterKind) -> bool {
        match kind {
            crate::ArbiterKind::Carry4 => self.vendor() == Vendor::Xilinx,
            crate::ArbiterKind::Ccu2c => self == Family::Ecp5,
            crate::ArbiterKind::Adder | crate::ArbiterKind::Prefix => true,
        }
    }

    /// The arbiter forms that build on the family's parts, by name.
    pub fn arbiters(self) -> String {
        let names: Vec<&str> = crate::ArbiterKind::ALL
            .into_iter()
            .filter(|&k| self.builds(k))
            .map(|k| k.name())
            .collect();
        names.join(", ")
    }

    pub fn vendor(self) -> Vendor {
        match self {
            Family::Virtex7 | Family::Kintex7 | Family::Virtex6 | Family::Virtexuplus => Vendor::Xilinx,
            Family::Stratix4 => Vendor::Altera,
            Family::Ecp5 => Vendor::Lattice,
        }
    }

    /// The clock primitive the family's top uses.
    pub fn primitive(self) -> clock::Primitive {
        match self {
            Family::Virtex7 | Family::Kintex7 => clock::Primitive::Plle2Base,
            Family::Virtex6 => clock::Primitive::MmcmBase,
            Family::Stratix4 => clock::Primitive::Altpll,
            Family::Ecp5 => clock::Primitive::Ehxplll,
            Family::Virtexuplus => clock::Primitive::Mmcme4Adv,
        }
    }

    pub fn toolchain(self) -> Toolchain {
        match self {
            Family::Virtex7 | Family::Kintex7 | Family::Virtexuplus => Toolchain::Vivado,
            Family::Virtex6 => Toolchain::Ise,
            Family::Stratix4 => Toolchain::Quartus,
            Family::Ecp5 => Toolchain::Trellis,
        }
    }

    /// The Xilinx families yosys' `synth_xilinx` maps for, by its `-family` name: `xcup`
    /// for UltraScale+, `xc7` for the rest (also the proxy of the Virtex-6 and the
    /// Stratix IV, whose own flows do not run here).
    pub fn synth_family(self) -> crate::report::SynthFamily {
        match self {
            Family::Virtexuplus => crate::report::SynthFamily::Xcup,
            _ => crate::report::SynthFamily::Xc7,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toolchain {
    Vivado,
    Ise,
    Quartus,
    /// The open flow: yosys, nextpnr-ecp5 and Project Trellis' ecppack.
    Trellis,
}

/// What a board offers the host to talk over (the host's own transports are `link::*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HostLink {
    Uart,
    Pcie,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RefClock {
    pub hz: u64,
    pub differential: bool,
    /// One pin, or P and N of a differential pair.
    pub pins: Vec<String>,
    pub standard: String,
}

/// The clock primitive's settings (the primitive follows from the family).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PllFile {
    pub divide: u32,
    pub multiply: u32,
    pub output_divide: u32,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Uart {
    pub rx: String,
    pub tx: String,
    /// Request to send from the host (an input); looped back to `cts`. Boards whose USB
    /// UART has no such pair leave both out.
    pub rts: Option<String>,
    pub cts: Option<String>,
    pub standard: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fan {
    pub pin: String,
    pub standard: String,
    /// Share of time the fan is driven, 0..=1.
    pub duty: f64,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reset {
    pub pin: String,
    pub standard: String,
    pub active_low: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pcie {
    pub lanes: u32,
    pub gen: u32,
    /// P and N of the 100 MHz reference clock into the transceivers.
    pub refclk: Vec<String>,
    /// PERST#, the host's reset, active low.
    pub perst: String,
    pub perst_standard: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Device {
    pub luts: u64,
    pub flip_flops: u64,
    /// Block RAM in 18 Kbit blocks (a 7-series or Virtex-6 RAMB18, half a RAMB36; an ECP5
    /// DP16KD; on Stratix IV, a pair of M9K, and three for an M144K, which holds what three
    /// such blocks hold of a 1K-deep memory such as a grouped unit's tally; an UltraScale+
    /// RAMB18E2, half a RAMB36E2).
    pub ram18: u64,
    /// UltraRAM blocks (URAM288, 4K x 72 bits), UltraScale+ only.
    #[serde(default)]
    pub uram288: u64,
    /// Dies (super logic regions) the device is made of; 1 for a monolithic one.
    #[serde(default = "one")]
    pub slrs: u32,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    pub n: usize,
    /// The compute clock to ask for.
    pub clock_hz: u64,
    /// Share of the device the solver array may fill.
    pub fill: f64,
    /// The unit it is built of when none is named, where that is not the default
    /// (`kind::choose`: grouped units wherever their circuits are built).
    #[serde(default)]
    pub unit: Option<queens_core::UnitKind>,
    /// Why `clock_hz` is expected to close timing: a routed result, a published figure of a
    /// comparable design, or an assumption said as one (`sim estimate` prints it).
    pub clock_evidence: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    pub units: usize,
    pub clock_hz: u64,
}

/// A pin the board needs held at a fixed level (e.g. a companion chip's boot strap).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tie {
    /// The top's port name (a Verilog identifier).
    pub name: String,
    pub pin: String,
    pub standard: String,
    pub high: bool,
}

/// What a 7-series board ties its CFGBVS pin to: the configuration bank's supply (2.5 or
/// 3.3 V) or ground (1.8 or 1.5 V).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Cfgbvs {
    Vcco,
    Gnd,
}

impl Cfgbvs {
    /// As Vivado's `CFGBVS` property takes it.
    pub fn name(self) -> &'static str {
        match self {
            Cfgbvs::Vcco => "VCCO",
            Cfgbvs::Gnd => "GND",
        }
    }
}

/// Board-specific bitstream and loading settings (as LiteX keeps them with the board).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bitstream {
    /// ECP5: the LPF's SYSCONFIG settings (configuration I/O voltage, compression, ...).
    pub sysconfig: Option<String>,
    /// openFPGALoader's name for the board (`openFPGALoader -b NAME`).
    pub openfpgaloader: Option<String>,
    /// 7-series (Vivado): the CFGBVS pin's level and the configuration bank's voltage, as
    /// the board is wired (its user guide's bank 0 supply).
    pub cfgbvs: Option<Cfgbvs>,
    pub config_voltage: Option<f64>,
}

/// Board-specific choices of how the circuits are built (as LiteX keeps them with the
/// board).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildSettings {
    /// The grouped stage's tally: `direct`, or `registered` (its block RAM's ports from
    /// registers and its read data into one: more LUTs, a faster clock), for a board whose
    /// grouped units block RAM limits, where the LUTs are free
    /// ([`crate::solver::tally::TallyPipe`]; checked as the file loads, so that a wrong
    /// name is refused with the field's name: [`Board::tally_pipe`]).
    tally: Option<String>,
}

/// One board file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Board {
    pub name: String,
    /// The family fixes the vendor, the toolchain and the clock primitive.
    pub family: Family,
    pub part: String,
    pub links: Vec<HostLink>,
    pub clock: RefClock,
    pub pll: PllFile,
    pub uart: Uart,
    pub fan: Option<Fan>,
    #[serde(default)]
    pub tie: Vec<Tie>,
    pub reset: Option<Reset>,
    pub pcie: Option<Pcie>,
    pub device: Device,
    pub bitstream: Option<Bitstream>,
    pub build: Option<BuildSettings>,
    pub defaults: Defaults,
    pub reference: Option<Reference>,
}

#[derive(Debug, thiserror::Error)]
pub enum BoardError {
    #[error("board {0:?}: no such board (built in: vc707, kc705, ml605, de4, ulx3s, u55c) and no such file")]
    Unknown(String),
    #[error("{file}: {source}")]
    Read { file: PathBuf, source: std::io::Error },
    #[error("{file}: {message}")]
    Parse { file: PathBuf, message: String },
    #[error("{file}: field {field}: {reason}")]
    Field {
        file: PathBuf,
        field: &'static str,
        reason: String,
    },
    #[error("--arbiter {arbiter} is made of {cell} cells, which the {board} ({part}) does not have; it takes {builds}")]
    Arbiter {
        arbiter: &'static str,
        cell: &'static str,
        board: String,
        part: String,
        builds: String,
    },
}

/// A pin name: letters then digits (BGA ball), as the board's user guide writes it.
/// A board's name: what its files are called in a build directory, so no path.
pub fn is_board_name(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && s.starts_with(|c: char| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl Board {
    /// A built-in board by name, or a board file by path.
    pub fn load(name_or_path: &str) -> Result<Board, BoardError> {
        if let Some((name, text)) = BUILTIN.iter().find(|(n, _)| *n == name_or_path) {
            return Board::parse(&PathBuf::from(format!("boards/{name}.toml")), text);
        }
        let path = Path::new(name_or_path);
        if !path.exists() {
            return Err(BoardError::Unknown(name_or_path.into()));
        }
        let text = std::fs::read_to_string(path).map_err(|source| BoardError::Read {
            file: path.into(),
            source,
        })?;
        Board::parse(path, &text)
    }

    /// Parses and checks a board file; `file` names it in errors.
    pub fn parse(file: &Path, text: &str) -> Result<Board, BoardError> {
        let b: Board = toml::from_str(text).map_err(|e| BoardError::Parse {
            file: file.into(),
            message: e.to_string().trim_end().replace('\n', " "),
        })?;
        b.check(file)?;
        Ok(b)
    }

    /// The form of a grouped stage's tally on this board (`[build] tally`; direct if not said).
    pub fn tally_pipe(&self) -> crate::solver::tally::TallyPipe {
        self.tally_named().expect("checked as the file loaded")
    }

    /// `[build] tally` as named, or the reason it names none.
    fn tally_named(&self) -> Result<crate::solver::tally::TallyPipe, String> {
        match self.build.as_ref().and_then(|b| b.tally.as_deref()) {
            Some(name) => name.parse(),
            None => Ok(Default::default()),
        }
    }

    /// The arbiter to build when not told: the vendor's carry cells instantiated directly
    /// (CARRY4 on Xilinx parts, CCU2C on the ECP5), the adder form elsewhere.
    pub fn default_arbiter(&self) -> crate::ArbiterKind {
        match self.vendor() {
            Vendor::Xilinx => crate::ArbiterKind::Carry4,
            Vendor::Lattice => crate::ArbiterKind::Ccu2c,
            Vendor::Altera => crate::ArbiterKind::Adder,
        }
    }

    pub fn vendor(&self) -> Vendor {
        self.family.vendor()
    }

    /// Refuses an arbiter form made of cells this board's part does not have
    /// ([`Family::builds`]), naming the forms that do build.
    pub fn check_arbiter(&self, kind: crate::ArbiterKind) -> Result<(), BoardError> {
        if self.family.builds(kind) {
            return Ok(());
        }
        Err(BoardError::Arbiter {
            arbiter: kind.name(),
            cell: kind.primitive().unwrap_or_default(),
            board: self.name.clone(),
            part: self.part.clone(),
            builds: self.family.arbiters(),
        })
    }

    pub fn toolchain(&self) -> Toolchain {
        self.family.toolchain()
    }

    /// A 7-series board's CFGBVS and configuration voltage: what Vivado writes into its
    /// bitstream, checked when the board file is loaded.
    pub fn config_bank(&self) -> Option<(Cfgbvs, f64)> {
        let b = self.bitstream.as_ref()?;
        Some((b.cfgbvs?, b.config_voltage?))
    }

    /// The clock settings written in the board file.
    pub fn pll_settings(&self) -> clock::Settings {
        clock::Settings {
            primitive: self.family.primitive(),
            divide: self.pll.divide,
            multiply: self.pll.multiply,
            output_divide: self.pll.output_divide,
        }
    }

    /// Settings for a requested compute clock: the board's own when they give it, else the
    /// best legal ones.
    pub fn clock_for(&self, hz: u64) -> Result<clock::Settings, clock::ClockError> {
        let own = self.pll_settings();
        if (own.output_hz(self.clock.hz as f64) - hz as f64).abs() <= 1.0 {
            return Ok(own);
        }
        clock::solve(self.family.primitive(), self.clock.hz as f64, hz as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_boards_load() {
        for (name, _) in BUILTIN {
            let b = Board::load(name).unwrap();
            assert_eq!(b.name, name);
            // The registered tally where block RAM limits the grouped units and its LUTs
            // cost none (the KC705 and DE4 would turn LUT- and flip-flop-limited).
            let registered = name == "ulx3s";
            assert_eq!(
                b.tally_pipe() == crate::solver::tally::TallyPipe::Registered,
                registered,
                "{name}"
            );
        }
    }

    fn broken(edit: impl Fn(String) -> String) -> String {
        let text = edit(BUILTIN[0].1.to_string());
        Board::parse(Path::new("my.toml"), &text).unwrap_err().to_string()
    }

    #[test]
    fn a_bad_board_file_names_file_field_and_reason() {
        let e = broken(|t| t.replace("part = \"xc7vx485t-2-ffg1761\"\n", ""));
        assert!(
            e.starts_with("my.toml:") && e.contains("missing field `part`"),
            "{e}"
        );
        let e = broken(|t| t.replace("luts = 303_600", "luts = \"many\""));
        assert!(e.contains("my.toml") && e.contains("luts"), "{e}");
        let e = broken(|t| t.replace("rx = \"AU33\"", "rx = \"AU36\""));
        assert!(e.contains("field uart.tx: pin AU36 is also uart.rx"), "{e}");
        let e = broken(|t| t.replace("multiply = 31", "multiply = 90"));
        assert!(e.contains("field pll") && e.contains("multiply"), "{e}");
        let e = broken(|t| t.replace("family = \"virtex7\"", "family = \"virtex9\""));
        assert!(e.contains("family") && e.contains("virtex9"), "{e}");
        let e = broken(|t| t.replace("pins = [\"E19\", \"E18\"]", "pins = [\"E19\"]"));
        assert!(
            e.contains("field clock.pins: a differential clock has 2 pin(s)"),
            "{e}"
        );
        let e = broken(|t| t.replace("[fan]", "[fan]\nspeed = 3"));
        assert!(e.contains("unknown field `speed`"), "{e}");
        let build = |t: String, tally: &str| {
            t.replace("\n[defaults]", &format!("\n[build]\ntally = {tally}\n[defaults]"))
        };
        let e = broken(|t| build(t, "\"pipelined\""));
        assert_eq!(
            e,
            "my.toml: field build.tally: \"pipelined\" is not a form of the tally: direct or registered"
        );
        let e = broken(|t| build(t, "3"));
        assert!(e.starts_with("my.toml:") && e.contains("tally"), "{e}");
        let text = build(BUILTIN[0].1.to_string(), "\"registered\"");
        let b = Board::parse(Path::new("my.toml"), &text).unwrap();
        assert_eq!(b.tally_pipe(), crate::solver::tally::TallyPipe::Registered);
    }

    #[test]
    fn the_u55c_is_an_ultrascale_plus_board_with_an_mmcm_and_a_x16_gen3_link() {
        let b = Board::load("u55c").unwrap();
        assert_eq!(b.family, Family::Virtexuplus);
        assert_eq!(b.toolchain(), Toolchain::Vivado);
        assert_eq!(b.pll_settings().primitive, clock::Primitive::Mmcme4Adv);
        assert_eq!(b.family.synth_family(), crate::report::SynthFamily::Xcup);
        let p = b.pcie.as_ref().unwrap();
        assert_eq!((p.lanes, p.gen), (16, 3));
        assert_eq!((b.device.uram288, b.device.slrs), (960, 3));
        assert_eq!(b.config_bank(), Some((Cfgbvs::Gnd, 1.8)));
        let u55c = BUILTIN.iter().find(|(n, _)| *n == "u55c").unwrap().1;
        let parse = |text: String| Board::parse(Path::new("my.toml"), &text).unwrap_err().to_string();
        let e = parse(u55c.replace("gen = 3", "gen = 4"));
        assert!(e.contains("field pcie: x16 Gen4: XDMA on UltraScale+"), "{e}");
        let e = parse(u55c.replace("slrs = 3", "slrs = 0"));
        assert!(e.contains("field device.slrs"), "{e}");
        // The MMCM's VCO stops at 1600 MHz (DS923): 100 / 1 * 20 = 2000 is refused.
        let e = parse(
            u55c.replace("divide = 5\n", "divide = 1\n")
                .replace("multiply = 62", "multiply = 20"),
        );
        assert!(e.contains("field pll: MMCME4_ADV: VCO of 2000.000 MHz"), "{e}");
        // UltraRAM on a 7-series part is refused.
        let e = broken(|t| t.replace("ram18 = 2_060", "ram18 = 2_060\nuram288 = 4"));
        assert!(e.contains("field device.uram288"), "{e}");
        // A 7-series board still stops at x8 Gen2.
        let e = broken(|t| t.replace("gen = 2", "gen = 3"));
        assert!(e.contains("XDMA on 7-series does x1, x2, x4, x8"), "{e}");
    }

    #[test]
    fn a_7_series_board_says_how_its_configuration_bank_is_wired() {
        let b = Board::load("kc705").unwrap();
        assert_eq!(b.config_bank(), Some((Cfgbvs::Vcco, 2.5)));
        let e = broken(|t| t.replace("cfgbvs = \"GND\"\n", ""));
        assert!(e.contains("field bitstream: a 7-series board says"), "{e}");
        let e = broken(|t| t.replace("config_voltage = 1.8", "config_voltage = 3.3"));
        assert!(e.contains("CFGBVS is VCCO for a 2.5 or 3.3 V"), "{e}");
        let ulx3s = BUILTIN.iter().find(|(n, _)| *n == "ulx3s").unwrap().1;
        let text = ulx3s.replace("[bitstream]", "[bitstream]\ncfgbvs = \"GND\"");
        let e = Board::parse(Path::new("my.toml"), &text).unwrap_err().to_string();
        assert!(e.contains("Ecp5 boards take neither"), "{e}");
    }
}
