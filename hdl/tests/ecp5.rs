//! The open ECP5 flow, run for real: the PLL settings against Project Trellis' own
//! `ecppll`, routed figures, and failed runs that name their cause (the ULX3S bitstream is
//! built, with timing met, by the routed netlist's test in `host/tests/netlist.rs`). Needs yosys, nextpnr-ecp5, ecppack and ecppll (scripts/test.sh installs the pinned
//! PyPI builds into a virtual environment and puts them on PATH).

use queens_core::UnitKind;
use queens_hdl::board::clock::{solve, Primitive};
use queens_hdl::board::toolchain::trellis::{find_tool, synth_script, Device};
use queens_hdl::board::Board;
use queens_hdl::pnr::{route, synthesize, Job, PnrError};
use queens_hdl::solver::arbiter::Entry;
use queens_hdl::ArbiterKind;
use std::path::Path;
use std::process::Command;

/// The tools a test runs, or a failure that says how to get them.
fn tools(names: &[&str]) -> Vec<String> {
    names
        .iter()
        .map(|n| {
            find_tool(n).unwrap_or_else(|e| {
                panic!("the open ECP5 tools are needed here (scripts/test.sh installs them): {e}")
            })
        })
        .collect()
}

/// Our EHXPLLL settings are those `ecppll` picks, for clocks a design asks for.
#[test]
fn pll_settings_agree_with_ecppll() {
    let ecppll = tools(&["ecppll"]).remove(0);
    let dir = tempfile::tempdir().unwrap();
    for mhz in [
        37.5, 40.0, 50.0, 60.0, 62.5, 66.6667, 75.0, 80.0, 85.7143, 90.0, 100.0, 110.0, 125.0, 133.333,
        150.0, 160.0,
    ] {
        let out = Command::new(&ecppll)
            .args(["-i", "25", "-o", &mhz.to_string(), "-f", "pll.v"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "ecppll -o {mhz}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let field = |key: &str| -> u32 {
            let line = text
                .lines()
                .find(|l| l.starts_with(key))
                .unwrap_or_else(|| panic!("{key} in {text}"));
            line[key.len()..].trim().parse().unwrap()
        };
        let theirs = (
            field("Refclk divisor:"),
            field("Feedback divisor:"),
            field("clkout0 divisor:"),
        );
        let ours = solve(Primitive::Ehxplll, 25e6, mhz * 1e6).unwrap();
        assert_eq!(
            (ours.divide, ours.multiply, ours.output_divide),
            theirs,
            "{mhz} MHz"
        );
        // And the Verilog says the same.
        let v = std::fs::read_to_string(dir.path().join("pll.v")).unwrap();
        assert!(
            v.contains(&format!(".CLKOP_CPHASE({})", ours.ehxplll_cphase(25e6))),
            "{mhz} MHz: {v}"
        );
    }
    // Where nothing comes within 1% (ecppll settles for 46.875 MHz), we refuse and name it.
    let e = solve(Primitive::Ehxplll, 25e6, 48e6).unwrap_err().to_string();
    assert!(
        e.contains("no legal setting gives 48.000 MHz") && e.contains("nearest: 46.875 MHz"),
        "{e}"
    );
}

fn small_job(verilog: &str, top: &str, part: &str, target_mhz: f64) -> Job {
    Job {
        sources: vec![(format!("{top}.v"), verilog.into())],
        top: top.into(),
        lpf: None,
        target_mhz,
        device: Device::from_part(part).unwrap(),
        require_timing: true,
        seed: 1,
        nextpnr_args: Vec::new(),
        keep: None,
    }
}

/// A `bits`-wide accumulator, module `acc`.
fn accumulator(bits: u32) -> String {
    format!(
        "module acc(input clock, input [{hi}:0] d, output reg [{hi}:0] q);
    always @(posedge clock) q <= q + d;
endmodule\n",
        hi = bits - 1
    )
}

fn assert_kept(dir: &Path, files: &[&str]) {
    for f in files {
        let len = std::fs::metadata(dir.join(f)).map_or(0, |m| m.len());
        assert!(len > 0, "{f} not kept in {}", dir.display());
    }
}

#[test]
fn a_clock_the_design_cannot_meet_is_named_with_what_it_reaches() {
    // A 64-bit accumulator cannot run at 390 MHz.
    // The tools' files are kept when asked, failure or not.
    let keep = tempfile::tempdir().unwrap();
    let mut job = small_job(&accumulator(64), "acc", "LFE5U-85F-6BG381C", 390.0);
    job.keep = Some(keep.path().join("acc"));
    let e = route(&job, &|_| {}).unwrap_err();
    assert_kept(
        &keep.path().join("acc"),
        &[
            "acc.v",
            "yosys.log",
            "net.json",
            "nextpnr-seed1.log",
            "report-seed1.json",
        ],
    );
    match &e {
        PnrError::Timing {
            achieved_mhz,
            wanted_mhz,
            ..
        } => {
            assert!(
                *achieved_mhz > 50.0 && *achieved_mhz < 390.0 && *wanted_mhz == 390.0,
                "{e}"
            )
        }
        other => panic!("expected a timing failure, got {other}"),
    }
    let msg = e.to_string();
    assert!(
        msg.contains("timing not met") && msg.contains("390.00 MHz was asked"),
        "{msg}"
    );
}

#[test]
fn seeds_are_placed_from_one_netlist_and_repeat() {
    // A placement depends only on the netlist and the seed: the same seed placed twice from
    // one synthesis gives the same clock, and every seed's files sit beside the one netlist.
    let keep = tempfile::tempdir().unwrap();
    let mut job = small_job(&accumulator(32), "acc", "LFE5U-85F-6BG381C", 100.0);
    job.require_timing = false;
    job.keep = Some(keep.path().join("acc"));
    let netlist = synthesize(&job, &|_| {}).unwrap();
    let first = netlist.place_route(1, &|_| {}).unwrap();
    let second = netlist.place_route(2, &|_| {}).unwrap();
    let again = netlist.place_route(1, &|_| {}).unwrap();
    assert_eq!(first, again);
    assert_eq!((first.lut4, first.ff), (second.lut4, second.ff));
    netlist.keep(Ok(())).unwrap();
    for f in [
        "net.json",
        "report-seed1.json",
        "report-seed2.json",
        "nextpnr-seed2.log",
    ] {
        let len = std::fs::metadata(keep.path().join("acc").join(f)).map_or(0, |m| m.len());
        assert!(len > 0, "{f} not kept");
    }
}

#[test]
fn a_design_too_big_for_the_device_is_named() {
    // 80 multipliers on a 12k device (28 multiplier blocks).
    let v = "module big(input clock, input [17:0] a, input [17:0] b, output reg q);
    reg [35:0] p [0:79];
    reg [79:0] x;
    genvar i;
    generate for (i = 0; i < 80; i = i + 1) begin : m
        always @(posedge clock) begin
            p[i] <= (a + i) * (b ^ i);
            x[i] <= ^p[i];
        end
    end endgenerate
    always @(posedge clock) q <= ^x;
endmodule\n";
    let e = route(&small_job(v, "big", "LFE5U-12F-6BG256C", 50.0), &|_| {}).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, PnrError::DoesNotFit { .. }), "{msg}");
    assert!(
        msg.contains("big does not fit the --12k CABGA256 device: MULT18X18D 80 of 28"),
        "{msg}"
    );
}

#[test]
fn bad_ecp5_board_files_name_the_pin_or_the_pll() {
    let text = queens_hdl::board::BUILTIN
        .iter()
        .find(|(n, _)| *n == "ulx3s")
        .unwrap()
        .1;
    let broken = |from: &str, to: &str| {
        assert!(text.contains(from), "{from}");
        Board::parse(Path::new("my.toml"), &text.replace(from, to))
            .unwrap_err()
            .to_string()
    };
    let cases = [
        (
            "pins = [\"G2\"]",
            "pins = [\"Z2\"]",
            "my.toml: field clock.pins: pin Z2 is not on the CABGA381 package of LFE5U-85F-6BG381C",
        ),
        (
            "tx = \"L4\"",
            "tx = \"L21\"",
            "field uart.tx: pin L21 is not on the CABGA381 package",
        ),
        (
            "multiply = 4",
            "multiply = 90",
            "field pll: EHXPLLL: multiply = 90 is outside 1..=80",
        ),
        (
            "output_divide = 6",
            "output_divide = 1",
            "field pll: EHXPLLL: VCO of 100.000 MHz is outside 400..=800 MHz",
        ),
    ];
    for (from, to, want) in cases {
        let e = broken(from, to);
        assert!(e.contains(want), "{e}");
    }
    let e = broken("part = \"LFE5U-85F-6BG381C\"", "part = \"LFE5U-85F-6BG999C\"");
    assert!(e.contains("field part") && e.contains("package BG999"), "{e}");
    let b = Board::load("ulx3s").unwrap();
    let e = b.clock_for(450_000_000).unwrap_err().to_string();
    assert!(
        e.contains("EHXPLLL: 450.000 MHz is above its output limit of 400 MHz"),
        "{e}"
    );
}

/// Runs yosys' `script` in `dir` and returns the netlist it wrote to `net.json`.
fn synthesized(yosys: &str, dir: &Path, script: &str) -> serde_json::Value {
    let out = Command::new(yosys)
        .args(["-q", "-p", script])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&std::fs::read(dir.join("net.json")).unwrap()).unwrap()
}

#[test]
fn every_stage_keeps_a_copy_of_the_advance_and_of_the_enables_per_register_group() {
    // The copies exist to split nets of a hundred loads; synthesis merges them back unless
    // the script keeps their modules whole (`advance::COPIES`, `enable::COPIES`).
    let [yosys] = <[String; 1]>::try_from(tools(&["yosys"])).unwrap();
    let device = Device::from_part("LFE5U-85F-6BG381C").unwrap();
    let part = queens_hdl::pnr::jobs::Part {
        unit: UnitKind::Plain,
        m: 4,
        arbiter: ArbiterKind::Adder,
        pipe: Default::default(),
    };
    let job = queens_hdl::pnr::jobs::stage(part, &device, 100.0);
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in &job.sources {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let names: Vec<&str> = job.sources.iter().map(|s| s.0.as_str()).collect();
    let script = synth_script(&names.join(" "), &job.top, "net.json", 100.0);
    let net = synthesized(&yosys, dir.path(), &script);
    let cells = net["modules"][&job.top]["cells"].as_object().unwrap();
    let mut copies: Vec<&str> = cells
        .values()
        .filter_map(|c| c["type"].as_str())
        .filter(|t| t.contains("$adv_") || t.contains("$en_"))
        .collect();
    copies.sort();
    assert_eq!(
        copies,
        [
            "adv_ctl",
            "adv_falling",
            "adv_rising",
            "adv_rows",
            "adv_walk",
            "en_falling",
            "en_rising",
            "en_rows"
        ]
        .map(|g| format!("{}$unit${g}", job.top)),
        "{:?}",
        cells.keys().take(20).collect::<Vec<_>>()
    );
}

#[test]
fn the_ccu2c_form_is_one_ccu2c_per_two_rows_with_no_logic_in_front() {
    // Its point is that the blocking enters the chain cells' own LUTs: yosys must keep the
    // cells as written, with nothing between the ports and the chain.
    let [yosys] = <[String; 1]>::try_from(tools(&["yosys"])).unwrap();
    for (entry, ports) in [
        (Entry::Bottom, ["pass", "near"]),
        (Entry::Queen, ["pass", "have"]),
    ] {
        for m in [4usize, 23] {
            let dir = tempfile::tempdir().unwrap();
            let v = queens_hdl::emit::arbiter_verilog(m, ArbiterKind::Ccu2c, entry, "arb");
            std::fs::write(dir.path().join("arb.v"), v).unwrap();
            let net = synthesized(
                &yosys,
                dir.path(),
                "read_verilog arb.v; synth_ecp5 -top arb -json net.json",
            );
            let cells = net["modules"]["arb"]["cells"].as_object().unwrap();
            let ccu2c: Vec<&serde_json::Value> = cells.values().filter(|c| c["type"] == "CCU2C").collect();
            assert_eq!(ccu2c.len(), (m + 2).div_ceil(2), "{entry:?}, m = {m}");
            let mut into_chain = std::collections::HashSet::new();
            for c in &ccu2c {
                for (pin, bits) in c["connections"].as_object().unwrap() {
                    if pin.len() == 2 && "ABCD".contains(&pin[..1]) {
                        into_chain.extend(bits.as_array().unwrap().iter().cloned());
                    }
                }
            }
            for p in ports {
                for b in net["modules"]["arb"]["ports"][p]["bits"].as_array().unwrap() {
                    assert!(
                        into_chain.contains(b),
                        "{entry:?}, m = {m}: {p} bit {b} goes through logic first"
                    );
                }
            }
        }
    }
}
