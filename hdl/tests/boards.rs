//! The four boards' build directories: Verilog that yosys accepts with the vendors'
//! primitives as black boxes, Tcl that parses, constraints whose every port exists in the top
//! and whose every pin and clock agrees with the board file, and committed constraint files
//! that are what `emit` writes.

use queens_hdl::board::build::{build_dir, BuildOptions};
use queens_hdl::board::top::ports;
use queens_hdl::board::{Board, Vendor, BUILTIN};
use queens_hdl::emit::CoreConfig;
use queens_hdl::ArbiterKind;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Altera's clock control block, port for port, as a black box (yosys ships none).
const ALTCLKCTRL_BB: &str = "(* blackbox *)
module altclkctrl(inclk, clkselect, ena, outclk);
    parameter intended_device_family = \"\";
    parameter number_of_clocks = 4;
    parameter clock_type = \"AUTO\";
    parameter ena_register_mode = \"falling edge\";
    parameter lpm_type = \"altclkctrl\";
    input [3:0] inclk;
    input [1:0] clkselect;
    input ena;
    output outclk;
endmodule
";

fn emit(name: &str, dir: &Path) -> (Board, Vec<String>) {
    let b = Board::load(name).unwrap();
    let arbiter = if b.vendor == Vendor::Xilinx { ArbiterKind::Carry4 } else { ArbiterKind::Adder };
    let core = CoreConfig::new(27, 8, arbiter, true).unwrap();
    let clock = b.clock_for(b.defaults.clock_hz).unwrap();
    let d = build_dir(&b, &BuildOptions { core, clock, baud: 115_200 }).unwrap();
    for (f, text) in &d.files {
        std::fs::write(dir.join(f), text).unwrap();
    }
    (b, d.files.iter().map(|f| f.0.clone()).collect())
}

#[test]
fn board_verilog_passes_yosys_with_vendor_primitives_as_black_boxes() {
    for (name, _) in BUILTIN {
        let dir = tempfile::tempdir().unwrap();
        let (b, _) = emit(name, dir.path());
        let libs = match b.vendor {
            Vendor::Xilinx => "read_verilog -lib +/xilinx/cells_sim.v +/xilinx/cells_xtra.v".to_string(),
            Vendor::Altera => {
                std::fs::write(dir.path().join("altclkctrl_bb.v"), ALTCLKCTRL_BB).unwrap();
                "read_verilog -lib -DNO_CLEARBOX +/intel/common/altpll_bb.v altclkctrl_bb.v".to_string()
            }
        };
        let script = format!(
            "{libs}; read_verilog queens_core.v queens_top.v queens_board.v; \
             hierarchy -check -top queens_board; proc; check -assert"
        );
        let out = Command::new("yosys")
            .args(["-q", "-p", &script])
            .current_dir(dir.path())
            .output()
            .expect("yosys is installed (scripts/test.sh installs it)");
        assert!(
            out.status.success(),
            "{name}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn scripts_and_constraints_parse_as_tcl() {
    for (name, _) in BUILTIN {
        let dir = tempfile::tempdir().unwrap();
        let (_, files) = emit(name, dir.path());
        for f in files.iter().filter(|f| [".tcl", ".xdc", ".sdc", ".qsf"].iter().any(|e| f.ends_with(e))) {
            // Build scripts must be complete Tcl; constraint files are also run, with every
            // vendor command stubbed, so that each bracket and brace is checked too.
            let run = !f.ends_with("build.tcl") && !f.ends_with("program.tcl");
            let check = format!(
                "set f [open {{{}}}]; set s [read $f]; close $f\n\
                 if {{![info complete $s]}} {{ puts stderr incomplete; exit 1 }}\n\
                 if {{{}}} {{ proc unknown args {{ return {{}} }}; eval $s }}\n",
                dir.path().join(f).display(),
                run as u8
            );
            let out = Command::new("tclsh")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut c| {
                    use std::io::Write;
                    c.stdin.take().unwrap().write_all(check.as_bytes())?;
                    c.wait_with_output()
                })
                .expect("tclsh is installed (scripts/test.sh installs it)");
            assert!(out.status.success(), "{name}/{f}: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
}

/// What a constraint file says: port -> (pin, I/O standard), and the clock (port, period ns).
#[derive(Debug, Default)]
struct Constraints {
    pins: BTreeMap<String, (String, String)>,
    clock: Option<(String, f64)>,
}

fn words(line: &str) -> Vec<String> {
    line.split(|c: char| c.is_whitespace() || "{}[]\";|=".contains(c))
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect()
}

fn after(w: &[String], key: &str) -> Option<String> {
    w.iter().position(|x| x == key).and_then(|i| w.get(i + 1).cloned())
}

fn parse(file: &Path) -> Constraints {
    let text = std::fs::read_to_string(file).unwrap();
    let ext = file.extension().unwrap().to_str().unwrap();
    let mut c = Constraints::default();
    let mut standards = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
        let w = words(line);
        if w.is_empty() {
            continue;
        }
        match (ext, w[0].as_str()) {
            ("xdc", "set_property") => {
                let port = after(&w, "get_ports").unwrap();
                c.pins.insert(port, (after(&w, "PACKAGE_PIN").unwrap(), after(&w, "IOSTANDARD").unwrap()));
            }
            ("xdc" | "sdc", "create_clock") => {
                c.clock = Some((after(&w, "get_ports").unwrap(), after(&w, "-period").unwrap().parse().unwrap()))
            }
            ("ucf", "NET") if w.contains(&"LOC".to_string()) => {
                c.pins.insert(w[1].clone(), (after(&w, "LOC").unwrap(), after(&w, "IOSTANDARD").unwrap()));
            }
            ("ucf", "TIMESPEC") => {
                let net = c.pins.keys().find(|p| text.contains(&format!("NET \"{p}\" TNM_NET"))).cloned();
                c.clock = Some((net.unwrap(), after(&w, "clk_ref").unwrap().parse().unwrap()));
            }
            ("qsf", "set_location_assignment") => {
                let pin = w[1].strip_prefix("PIN_").unwrap().to_string();
                c.pins.insert(after(&w, "-to").unwrap(), (pin, String::new()));
            }
            ("qsf", "set_instance_assignment") => {
                // The standard is quoted and may hold a space: take it between the quotes.
                let std = line.split('"').nth(1).unwrap().to_string();
                standards.insert(after(&w, "-to").unwrap(), std);
            }
            _ => {}
        }
    }
    for (port, std) in standards {
        c.pins.get_mut(&port).expect("a standard for a placed port").1 = std;
    }
    c
}

fn committed(name: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../constraints");
    ["xdc", "ucf", "qsf", "sdc"]
        .iter()
        .map(|e| dir.join(format!("{name}.{e}")))
        .filter(|p| p.exists())
        .collect()
}

#[test]
fn constraints_agree_with_board_files_and_the_top() {
    for (name, _) in BUILTIN {
        let b = Board::load(name).unwrap();
        let files = committed(name);
        assert!(!files.is_empty(), "{name}: no constraints");
        let mut pins = BTreeMap::new();
        let mut clock = None;
        for f in &files {
            let c = parse(f);
            pins.extend(c.pins);
            clock = clock.or(c.clock);
        }
        // Every port of the top is constrained with the board file's pin and standard, and
        // nothing else is.
        let top: BTreeMap<String, (String, String)> = ports(&b)
            .into_iter()
            .map(|p| (p.name.to_string(), (p.pin, p.standard)))
            .collect();
        assert_eq!(pins, top, "{name}: constraints vs board file");
        // The top module declares exactly those ports.
        let dir = tempfile::tempdir().unwrap();
        emit(name, dir.path());
        let v = std::fs::read_to_string(dir.path().join("queens_board.v")).unwrap();
        let header = v.lines().find(|l| l.starts_with("module queens_board(")).unwrap();
        let mut declared: Vec<&str> = header["module queens_board(".len()..header.len() - 2].split(", ").collect();
        declared.sort();
        let mut constrained: Vec<&str> = pins.keys().map(|s| s.as_str()).collect();
        constrained.sort();
        assert_eq!(declared, constrained, "{name}: top ports vs constraints");
        // The clock constraint is on the reference clock pin, with its period.
        let (port, period) = clock.expect("a clock constraint");
        assert_eq!(pins[&port].0, b.clock.pins[0], "{name}: clock pin");
        assert!((period - 1e9 / b.clock.hz as f64).abs() < 1e-3, "{name}: period {period}");
    }
}

#[test]
fn committed_constraints_are_what_emit_writes() {
    for (name, _) in BUILTIN {
        let dir = tempfile::tempdir().unwrap();
        emit(name, dir.path());
        for f in committed(name) {
            let fresh = std::fs::read_to_string(dir.path().join(f.file_name().unwrap())).unwrap();
            assert_eq!(
                std::fs::read_to_string(&f).unwrap(),
                fresh,
                "{}: regenerate with `queens hdl emit --board {name}`",
                f.display()
            );
        }
    }
}

#[test]
fn an_impossible_clock_is_refused_with_the_reason() {
    let b = Board::load("ml605").unwrap();
    let e = b.clock_for(1_000_000_000).unwrap_err().to_string();
    assert!(e.contains("MMCM_BASE") && e.contains("output limit of 700 MHz"), "{e}");
    let s = b.clock_for(200_000_000).unwrap();
    s.check(b.clock.hz as f64).unwrap();
    assert!((s.output_hz(b.clock.hz as f64) - 200e6).abs() / 200e6 <= 0.01);
}
