//! The open ECP5 flow: yosys `synth_ecp5`, nextpnr-ecp5 and Project Trellis' `ecppack`.
//! LPF constraints written from the board file, and a shell build script that stops when the
//! routed design does not meet the asked clock (nextpnr's own check).
//!
//! The tools are the pinned WebAssembly builds from PyPI (`scripts/ecp5-tools.txt`) or native
//! ones (the OSS CAD Suite); [`find_tool`] finds them the same way the build script does.

use super::{ref_clock, Files, SOURCES, TOP};
use crate::board::top::Port;
use crate::board::Board;

/// The pinned tool versions, one requirement per line (comments start with `#`).
pub const REQUIREMENTS: &str = include_str!("../../../../scripts/ecp5-tools.txt");

/// `pip install ...` for the pinned tools.
pub fn pip_install() -> String {
    let reqs: Vec<&str> = REQUIREMENTS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    format!("pip install {}", reqs.join(" "))
}

/// abc9's delay target as a share of the asked clock's period. Routing takes most of a routed
/// ECP5 path (the stage's and the array's critical paths measured 25 to 30% logic,
/// nextpnr-ecp5 0.11, -6 speed grade); 0.4 is where, asked for 100 MHz, the stage kept its
/// routed clock (109.0 against 110.4 MHz) with 716 logic LUT4s instead of 1,006.
const LOGIC_SHARE: f64 = 0.4;

/// The heap placer's anchoring weight (nextpnr-ecp5 0.11's default is 0.1). An array loses
/// its clock in placement, each of many stages placed worse than one alone (README.md,
/// "Every stage placed alike"); with weaker anchors the full ULX3S (69 units, one netlist)
/// routed at 124.6 and 124.7 MHz against 118.6 and 120.5, though a stage alone routes a
/// little slower. Given in nextpnr arguments of one's own, a placer setting replaces it
/// (nextpnr takes an option once).
pub const PLACER: [&str; 2] = ["--placer-heap-alpha", "0.03"];

/// [`PLACER`], unless `extra` (arguments of one's own) sets it.
pub fn placer_args(extra: &[String]) -> Vec<String> {
    if extra.iter().any(|a| a.starts_with(PLACER[0])) {
        Vec::new()
    } else {
        PLACER.iter().map(|a| a.to_string()).collect()
    }
}

/// The yosys commands that synthesize `sources` for `top`, writing `json`.
/// - abc9 maps against a delay target, a share of the asked clock's period. Without one it
///   maps a unit alone for its shortest depth, and among a front end with deeper paths for
///   area, into different, deeper logic; with one, both alike, and about 30% smaller.
/// - The solver stage keeps its hierarchy, so that it is mapped in the array exactly as alone:
///   the stage's routed figures are then those of every stage of the array.
/// - So does each copy of the unit's advance ([`crate::solver::advance`]) and of its blocking
///   registers' enables ([`crate::solver::enable`]), which would otherwise be merged back into one.
pub fn synth_script(sources: &str, top: &str, json: &str, target_mhz: f64) -> String {
    let delay_ps = (1e6 / target_mhz * LOGIC_SHARE).round() as u64;
    format!(
        "read_verilog {sources}; setattr -mod -set keep_hierarchy 1 {stages} {advance} {enable}; \
         scratchpad -set abc9.D {delay_ps}; synth_ecp5 -top {top} -json {json}",
        stages = crate::emit::STAGE_MODULES,
        advance = crate::solver::advance::COPIES,
        enable = crate::solver::enable::COPIES
    )
}

/// An ECP5 part as nextpnr-ecp5 names it, read from the part number (LFE5U-85F-6BG381C:
/// family and size, speed grade, package, temperature grade).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Device {
    /// nextpnr's device flag, e.g. `--85k` or `--um5g-45k`.
    pub flag: String,
    /// nextpnr's package name, e.g. `CABGA381`.
    pub package: &'static str,
    pub speed: u8,
}

/// Packages by their code in the part number (Lattice DS1044, ordering information).
const PACKAGES: [(&str, &str); 6] = [
    ("BG256", "CABGA256"),
    ("BG381", "CABGA381"),
    ("BG554", "CABGA554"),
    ("BG756", "CABGA756"),
    ("MG285", "CSFBGA285"),
    ("TG144", "TQFP144"),
];

impl Device {
    pub fn from_part(part: &str) -> Result<Device, String> {
        let bad = |why: &str| {
            Err(format!(
                "{part:?} is not an ECP5 part number ({why}; e.g. LFE5U-85F-6BG381C)"
            ))
        };
        let fields: Vec<&str> = part.split('-').collect();
        let [family, size, rest] = fields[..] else {
            return bad("three fields joined by '-'");
        };
        let prefix = match family {
            "LFE5U" => "",
            "LFE5UM" => "um-",
            "LFE5UM5G" => "um5g-",
            _ => return bad("the family is LFE5U, LFE5UM or LFE5UM5G"),
        };
        let kluts = match size {
            "12F" if prefix.is_empty() => "12",
            "25F" => "25",
            "45F" => "45",
            "85F" => "85",
            _ => return bad("the size is 12F, 25F, 45F or 85F"),
        };
        let mut chars = rest.chars();
        let speed = match chars.next().and_then(|c| c.to_digit(10)) {
            Some(s @ 6..=8) => s as u8,
            _ => return bad("the speed grade is 6, 7 or 8"),
        };
        let tail = chars.as_str();
        let Some(code) = tail.strip_suffix('C').or_else(|| tail.strip_suffix('I')) else {
            return bad("it ends in the temperature grade C or I");
        };
        let Some((_, package)) = PACKAGES.iter().find(|(c, _)| *c == code) else {
            return bad(&format!(
                "package {code} is not one of BG256, BG381, BG554, BG756, MG285, TG144"
            ));
        };
        Ok(Device {
            flag: format!("--{prefix}{kluts}k"),
            package,
            speed,
        })
    }

    /// nextpnr-ecp5's arguments for the device.
    pub fn args(&self) -> Vec<String> {
        vec![
            self.flag.clone(),
            "--package".into(),
            self.package.into(),
            "--speed".into(),
            self.speed.to_string(),
        ]
    }
}

/// A ball of the part's package. The caBGA256 and caBGA381 grids (rows A.. without I, O, Q,
/// S, X, Z; columns from 1) are checked here; a ball missing inside a grid, or one of another
/// package, is named by nextpnr ("IO pin ... does not exist for package ...").
pub fn check_pin(device: &Device, part: &str, pin: &str) -> Result<(), String> {
    let side = match device.package {
        "CABGA256" => 16,
        "CABGA381" => 20,
        _ => return Ok(()),
    };
    let rows: Vec<char> = ('A'..='Z')
        .filter(|c| !"IOQSXZ".contains(*c))
        .take(side)
        .collect();
    let row = pin.chars().next().unwrap_or(' ');
    let col: Option<usize> = pin.get(1..).and_then(|c| c.parse().ok());
    match col {
        Some(c)
            if rows.contains(&row)
                && (1..=side).contains(&c)
                && pin[1..].chars().all(|d| d.is_ascii_digit()) =>
        {
            Ok(())
        }
        _ => Err(format!(
            "pin {pin} is not on the {} package of {part} (balls A1..{}{side})",
            device.package,
            rows[side - 1]
        )),
    }
}

/// The LPF: bitstream settings, each pin's site and I/O type, and the reference clock.
/// nextpnr derives the compute clock's constraint through the PLL from the reference clock's
/// frequency, and does not time paths to and from unconstrained pins (the UART's pins are
/// asynchronous to the compute clock).
fn lpf(b: &Board, ports: &[Port]) -> String {
    let mut s = format!(
        "# {name} ({part}): pins and clock of the board top `{TOP}`.\nBLOCK RESETPATHS;\nBLOCK ASYNCPATHS;\n",
        name = b.name,
        part = b.part
    );
    if let Some(sys) = b.bitstream.as_ref().and_then(|x| x.sysconfig.as_ref()) {
        s += &format!("SYSCONFIG {sys};\n");
    }
    for p in ports {
        s += &format!("LOCATE COMP \"{}\" SITE \"{}\";\n", p.name, p.pin);
        s += &format!("IOBUF PORT \"{}\" IO_TYPE={};\n", p.name, p.standard);
    }
    s += &format!(
        "FREQUENCY PORT \"{}\" {:.3} MHZ;\n",
        ref_clock(ports).name,
        b.clock.hz as f64 / 1e6
    );
    s
}

/// The build script: synthesis, place and route against the LPF (nextpnr stops with an
/// error when the routed clock is below the asked one), and the bitstream.
fn script(b: &Board, device: &Device, lpf_name: &str, compute_hz: f64) -> String {
    let sources = SOURCES.join(" ");
    let args = device.args().join(" ");
    format!(
        r#"#!/bin/sh
# Open ECP5 build of the queens accelerator for {name} ({part}), {mhz:.3} MHz compute clock.
# Run: sh build.sh    Tools: {pip}
# (or the OSS CAD Suite on PATH; YOSYS, NEXTPNR and ECPPACK name others;
# NEXTPNR_ARGS adds arguments, e.g. NEXTPNR_ARGS="--seed 2"; PLACER_ARGS replaces
# our placer setting, {placer}).
set -eu
cd "$(dirname "$0")"
tool() {{
    for t in "yowasp-$1" "$1"; do
        if command -v "$t" >/dev/null 2>&1; then echo "$t"; return 0; fi
    done
    echo "build.sh: $1 not found: {pip}, or put the OSS CAD Suite on PATH" >&2
    return 127
}}
YOSYS=${{YOSYS:-$(tool yosys)}}
NEXTPNR=${{NEXTPNR:-$(tool nextpnr-ecp5)}}
ECPPACK=${{ECPPACK:-$(tool ecppack)}}
mkdir -p out
echo "synthesis: $YOSYS synth_ecp5 (log: out/yosys.log)"
$YOSYS -q -l out/yosys.log -p "{synth}"
PLACER_ARGS=${{PLACER_ARGS-"{placer}"}}
echo "place and route: $NEXTPNR {args} $PLACER_ARGS ${{NEXTPNR_ARGS:-}} (log: out/nextpnr.log)"
# shellcheck disable=SC2086 # the argument variables are split into arguments on purpose
if ! $NEXTPNR -q -l out/nextpnr.log {args} $PLACER_ARGS ${{NEXTPNR_ARGS:-}} --json out/{TOP}.json --lpf {lpf_name} \
        --textcfg out/{TOP}.config --report out/report.json; then
    grep -E "ERROR|Max frequency" out/nextpnr.log >&2 || true
    echo "build.sh: place and route failed (above: timing not met at the asked clock, a design too big for the device, or a pin not on the package); see out/nextpnr.log" >&2
    exit 1
fi
grep "Max frequency" out/nextpnr.log | tail -n 1
$ECPPACK --compress out/{TOP}.config queens.bit
echo "bitstream: queens.bit"
"#,
        name = b.name,
        part = b.part,
        mhz = compute_hz / 1e6,
        pip = pip_install(),
        synth = synth_script(&sources, TOP, &format!("out/{TOP}.json"), compute_hz / 1e6),
        placer = PLACER.join(" "),
    )
}

pub fn files(b: &Board, ports: &[Port], compute_hz: f64) -> Files {
    let device = Device::from_part(&b.part).expect("the board file's part was checked on load");
    let lpf_name = format!("{}.lpf", b.name);
    let script = script(b, &device, &lpf_name, compute_hz);
    Files {
        constraints: vec![(lpf_name, lpf(b, ports))],
        script,
        script_name: "build.sh",
        command: "sh build.sh",
        program: match b.bitstream.as_ref().and_then(|x| x.openfpgaloader.as_ref()) {
            Some(board) => format!(
                "openFPGALoader -b {board} queens.bit   (into the FPGA's configuration RAM; add -f to write the flash)"
            ),
            None => "openFPGALoader -c CABLE queens.bit   (name your JTAG cable; add -f to write the flash)".into(),
        },
        extra: vec![],
    }
}

/// One of the open tools as this machine has it: the pinned PyPI build (`yowasp-NAME`)
/// first, then a native one (as `build.sh` looks for them).
pub fn find_tool(name: &str) -> Result<String, String> {
    for t in [format!("yowasp-{name}"), name.to_string()] {
        if which::which(&t).is_ok() {
            return Ok(t);
        }
    }
    Err(format!(
        "{name} not found: {}, or put the OSS CAD Suite on PATH",
        pip_install()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placer_setting_of_ones_own_replaces_ours() {
        assert_eq!(placer_args(&[]), PLACER.map(String::from).to_vec());
        let own = ["--seed".to_string(), "2".into()];
        assert_eq!(placer_args(&own), PLACER.map(String::from).to_vec());
        for own in [
            vec!["--placer-heap-alpha".to_string(), "0.1".into()],
            vec!["--placer-heap-alpha=0.1".to_string()],
        ] {
            assert!(placer_args(&own).is_empty(), "{own:?}");
        }
    }
}
