//! The emitted Verilog: it passes yosys' checks, the CARRY4 form really maps to CARRY4 cells,
//! and every arbiter form computes the same grants as the behavioural model (iverilog,
//! exhaustively over a small column, the CARRY4 and CCU2C forms on models of their cells).

use queens_core::UnitKind;
use queens_hdl::emit::{arbiter_verilog, unit_verilog, Part, CARRY4_SIM, CCU2C_SIM};
use queens_hdl::report::synthesize;
use queens_hdl::solver::arbiter::Entry;
use queens_hdl::solver::tally::TallyPipe;
use queens_hdl::ArbiterKind;
use std::process::Command;

const KINDS: [ArbiterKind; 4] = ArbiterKind::ALL;

/// A plain unit or stage of inner width `m` with the `arbiter` form.
fn plain(m: usize, arbiter: ArbiterKind) -> Part {
    Part {
        unit: UnitKind::Plain,
        m,
        arbiter,
        pipe: TallyPipe::Direct,
    }
}

fn yosys_check(verilog: &str, top: &str, tag: &str) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join(format!("{tag}.v"));
    // The cells' models, read with -lib: black boxes of their ports.
    let stub = dir.path().join("cells.v");
    std::fs::write(&src, verilog).unwrap();
    std::fs::write(&stub, format!("{CARRY4_SIM}{CCU2C_SIM}")).unwrap();
    let script = format!(
        "read_verilog -lib {}; read_verilog {}; hierarchy -check -top {top}; proc; check -assert",
        stub.display(),
        src.display()
    );
    let out = Command::new("yosys")
        .args(["-q", "-p", &script])
        .output()
        .expect("yosys is installed");
    assert!(
        out.status.success(),
        "{tag}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn unit_verilog_passes_yosys_checks() {
    for kind in KINDS {
        for m in [4, 23] {
            let v = unit_verilog(plain(m, kind), "queens_unit");
            yosys_check(&v, "queens_unit", &format!("unit_{m}_{}", kind.name()));
        }
    }
}

/// A core of either kind, with each form of the tally: no name leaks from the Rust source, no
/// name is a Verilog keyword, and nothing is left undriven (what rust-hdl's own simulator
/// cannot see). In the quick tier: it takes seconds and reads the front end every core holds.
#[test]
fn core_verilog_passes_yosys_checks() {
    use queens_hdl::emit::{core_verilog, CoreConfig};
    for (unit, n, kind, pipe) in [
        (UnitKind::Plain, 10, ArbiterKind::Ccu2c, TallyPipe::Direct),
        (UnitKind::Grouped, 10, ArbiterKind::Ccu2c, TallyPipe::Direct),
        (UnitKind::Grouped, 27, ArbiterKind::Carry4, TallyPipe::Direct),
        (UnitKind::Grouped, 27, ArbiterKind::Ccu2c, TallyPipe::Registered),
    ] {
        let cfg = CoreConfig::new(n, 3, unit, kind, true).unwrap().with_pipe(pipe);
        let v = core_verilog(&cfg, "queens_core");
        yosys_check(
            &v,
            "queens_core",
            &format!("{unit}_core_{n}_{}_{pipe}", kind.name()),
        );
    }
}

#[test]
fn carry4_form_maps_to_carry4_cells() {
    for m in [5usize, 23] {
        let v = arbiter_verilog(m, ArbiterKind::Carry4, Entry::Queen, "arb");
        let c = synthesize(&v, "arb").unwrap();
        assert_eq!(c.carry4, m.div_ceil(4) as u64, "m = {m}: {c:?}");
        let v = arbiter_verilog(m, ArbiterKind::Prefix, Entry::Queen, "arb");
        assert_eq!(
            synthesize(&v, "arb").unwrap().carry4,
            0,
            "the prefix form uses no carry chain"
        );
    }
}

/// The token walk, written plainly: the reference for every arbiter form.
fn walk(m: u32, pass: u32, have: u32, tin: bool) -> (u32, bool) {
    let mut token = tin;
    for i in 0..m {
        let (p, h) = (pass >> i & 1 == 1, have >> i & 1 == 1);
        if token && !p && !h {
            return (1 << i, false);
        }
        token = h || (token && p);
    }
    (0, token)
}

#[test]
fn every_arbiter_form_grants_like_the_model() {
    let m = 5u32;
    let full = (1u32 << m) - 1;
    for kind in KINDS {
        for entry in [Entry::Bottom, Entry::Queen] {
            let dut = arbiter_verilog(m as usize, kind, entry, "arb");
            // Stimulus: every pass, with the token entering at the bottom or nowhere, and
            // from each row for a queen entry (one-hot have, tin = 0); for a bottom entry
            // also with a queen beside at each row (one-hot near) or none.
            let mut tb = String::from(
                "module tb;\nreg [4:0] pass, near, have; reg tin; wire [4:0] grant; wire tout;\n",
            );
            tb += "arb dut(.pass(pass), .near(near), .have(have), .tin(tin), .grant(grant), .tout(tout));\ninitial begin\n";
            let one_hot = || std::iter::once(0).chain((0..m).map(|i| 1u32 << i));
            let mut expect = String::new();
            for pass in 0..32u32 {
                let cases: Vec<(u32, u32, bool)> = match entry {
                    Entry::Bottom => one_hot()
                        .flat_map(|near| [(near, 0, false), (near, 0, true)])
                        .collect(),
                    Entry::Queen => one_hot()
                        .map(|have| (0, have, false))
                        .chain([(0, 0, true)])
                        .collect(),
                };
                for (near, have, tin) in cases {
                    tb += &format!("pass = 5'd{pass}; near = 5'd{near}; have = 5'd{have}; tin = {}; #1 $display(\"%0d %0d\", grant, tout);\n", tin as u8);
                    let blocked = (pass | near | near >> 1 | near << 1) & full;
                    let (g, t) = walk(m, blocked, have, tin);
                    expect += &format!("{g} {}\n", t as u8);
                }
            }
            tb += "$finish;\nend\nendmodule\n";
            let tag = format!("{}_{entry:?}", kind.name());
            let got = iverilog(
                &tag,
                &[
                    ("dut.v", &dut),
                    ("tb.v", &tb),
                    ("carry4.v", CARRY4_SIM),
                    ("ccu2c.v", CCU2C_SIM),
                ],
            );
            assert_eq!(
                got, expect,
                "{kind:?} arbiter, {entry:?} entry, disagrees with the token walk"
            );
        }
    }
}

/// Compiles the files with iverilog, runs them, and returns what they printed (less $finish).
fn iverilog(tag: &str, files: &[(&str, &str)]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<_> = files
        .iter()
        .map(|(name, text)| {
            let p = dir.path().join(format!("{tag}_{name}"));
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect();
    let exe = dir.path().join(format!("{tag}_sim"));
    let c = Command::new("iverilog")
        .arg("-o")
        .arg(&exe)
        .args(&paths)
        .output()
        .expect("iverilog is installed");
    assert!(
        c.status.success(),
        "{tag}: {}",
        String::from_utf8_lossy(&c.stderr)
    );
    let r = Command::new("vvp").arg(&exe).output().expect("vvp runs");
    String::from_utf8_lossy(&r.stdout)
        .lines()
        .filter(|l| !l.contains("finish"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// On UltraScale+ the first stages keep their tally in UltraRAM (issue 59): a second stage
/// module, chosen by index in the generate loop, whose memory alone carries the attribute;
/// yosys maps each such tally onto one URAM288 and the others onto block RAM.
#[test]
fn chain_with_ultraram_stages_maps_their_tallies_to_uram288_in_yosys() {
    use queens_hdl::emit::{chain_verilog, core_verilog, CoreConfig, EmitError};
    use queens_hdl::report::{synthesize_with, SynthFamily};
    let cfg = CoreConfig::new(10, 3, UnitKind::Grouped, ArbiterKind::Carry4, true).unwrap();
    let block = core_verilog(&cfg, "queens_core");
    assert!(!block.contains("ultra"), "no UltraRAM unless asked");
    let v = core_verilog(&cfg.with_ultra(2).unwrap(), "queens_core");
    assert_eq!(v.matches("(* ram_style = \"ultra\" *)").count(), 1);
    // The stage's modules once more, under the UltraRAM stage's name.
    let stage = |v: &str, name: &str| v.lines().filter(|l| l.starts_with(name)).count();
    let per_stage = stage(&block, "module queens_core_chain_stage");
    assert_eq!(stage(&v, "module queens_core_chain_stage_ultra"), per_stage);
    assert_eq!(modules(&v), modules(&block) + per_stage);
    yosys_check(&v, "queens_core", "grouped_core_10_ultra");
    let grouped = Part {
        unit: UnitKind::Grouped,
        m: 6,
        arbiter: ArbiterKind::Carry4,
        pipe: TallyPipe::Direct,
    };
    let chain = chain_verilog(grouped, 3, 2, "chain");
    let c = synthesize_with(&chain, "chain", SynthFamily::Xcup, false).unwrap();
    assert_eq!(
        (c.uram, c.ram18),
        (2, 2),
        "two tallies in URAM288, one in two RAMB18 (36-bit words)"
    );
    // Only a kind with a tally, and no more stages than the core has.
    assert!(matches!(cfg.with_ultra(4), Err(EmitError::Ultra { .. })));
    let plain = CoreConfig::new(10, 3, UnitKind::Plain, ArbiterKind::Carry4, true).unwrap();
    assert!(plain.with_ultra(1).is_err() && plain.with_ultra(0).is_ok());
}

/// Module definitions in a Verilog text.
fn modules(v: &str) -> usize {
    v.lines()
        .filter(|l| l.trim_start().starts_with("module "))
        .count()
}

/// 1,100 units: past the 1,024 that 10-bit ids held, with the front end's tables twice as large.
#[test]
fn design_of_8_360_and_1100_units_for_n27_passes_yosys_with_the_same_modules() {
    use queens_hdl::emit::{core_verilog, uart_top_verilog, CoreConfig};
    let top = |k| {
        let cfg = CoreConfig::new(27, k, UnitKind::Plain, ArbiterKind::Carry4, true).unwrap();
        core_verilog(&cfg, "queens_core") + &uart_top_verilog(217, "queens_top", "queens_core")
    };
    let (small, big, past) = (top(8), top(360), top(1100));
    for (v, k) in [(&big, 360), (&past, 1100)] {
        assert_eq!(modules(&small), modules(v));
        assert!(
            v.len() < small.len() + 200,
            "the Verilog grows with the unit count: {} vs {} at {k}",
            small.len(),
            v.len()
        );
    }
    // The word table: 1,024 words up to 1,024 units, 2,048 past them.
    assert!(big.contains("mem [0:1023]") && !big.contains("mem [0:2047]"));
    assert!(past.contains("mem [0:2047]"));
    yosys_check(&small, "queens_top", "top8");
    yosys_check(&big, "queens_top", "top360");
    yosys_check(&past, "queens_top", "top1100");
}

/// Both vendor-cell forms, each on its cell's model: a chain of three stages counts N = 8.
#[test]
fn emitted_chain_counts_like_software_in_iverilog() {
    for kind in [ArbiterKind::Carry4, ArbiterKind::Ccu2c] {
        chain_in_iverilog(kind, 3, &[0, 1, 2], usize::MAX);
    }
}

/// Units 76 and 1,100 of a core (a chain of 1,100 stages takes iverilog too long: two stages
/// given those ids): 10 bits would alias 1,100 to 76, 12 bits tell them apart.
#[test]
fn stages_whose_ids_differ_past_1023_answer_apart() {
    chain_in_iverilog(ArbiterKind::Carry4, 2, &[1100, 76], 4);
}

/// `k` stages for N = 8 in iverilog, the first `count` subproblems sent in turn to the units
/// `ids`, each answered (by its unit) before the next is sent. Stage i has id i, or with
/// two stages `ids` themselves.
fn chain_in_iverilog(kind: ArbiterKind, k: usize, ids: &[usize], count: usize) {
    use queens_core::{completions, enumerate::canonical, Blocking, BoardSize};
    use queens_hdl::solver::load::ID_BITS;
    let n = 8u32;
    let m = (n - 4) as usize;
    let subs: Vec<_> = canonical(BoardSize::new(n).unwrap()).take(count).collect();
    let id1 = ID_BITS - 1;
    let mut dut = queens_hdl::emit::chain_verilog(plain(m, kind), k, 0, "chain");
    if ids.iter().any(|&i| i >= k) {
        assert_eq!(ids.len(), 2);
        let at = format!(".links$my_id(i[{id1}:0])");
        assert!(dut.contains(&at));
        dut = dut.replace(
            &at,
            &format!(
                ".links$my_id(i == 0 ? {ID_BITS}'d{} : {ID_BITS}'d{})",
                ids[0], ids[1]
            ),
        );
    }
    let mut tb = format!(
        "module tb;\nreg clock = 0; always #1 clock = ~clock;\nreg dn_valid = 0; reg [1:0] dn_kind = 0; reg [{id1}:0] dn_id = 0; reg [3:0] dn_data = 0;\n\
         wire up_valid; wire [{id1}:0] up_id; wire [99:0] up_data;\n\
         chain dut(.clock(clock), .dn_valid(dn_valid), .dn_id(dn_id), .dn_kind(dn_kind), .dn_data(dn_data),\n\
         .first_valid(1'b0), .first_id({ID_BITS}'d0), .first_data(100'd0), .up_valid(up_valid), .up_id(up_id), .up_data(up_data));\n\
         task beat(input [{id1}:0] id, input [1:0] kind, input [3:0] data); begin\n\
         @(negedge clock) dn_valid = 1; dn_id = id; dn_kind = kind; dn_data = data;\n\
         @(negedge clock) dn_valid = 0; end endtask\n\
         initial begin\n",
    );
    let mut expect = String::new();
    for (j, sp) in subs.iter().enumerate() {
        let b = Blocking::new(&sp.pre);
        let id = ids[j % ids.len()];
        for (kind, data) in queens_hdl::solver::load::beats(&b) {
            tb += &format!("beat({id}, {}, {data});\n", kind as u64);
        }
        // The plain slot's record (`stage::SLOT_BITS`): mod 13, mod 15, count, cycles.
        tb += "@(posedge up_valid) $display(\"%0d %0d %0d %0d %0d\", up_id, up_data[91:48], up_data[99:96], up_data[95:92], up_data[47:0]);\n";
        let want = completions(&sp.pre);
        expect += &format!(
            "{id} {want} {} {} {}\n",
            want % 13,
            want % 15,
            queens_sim_cycles(&b)
        );
    }
    tb += "$finish;\nend\nendmodule\n";
    let cells = queens_hdl::emit::primitive_sim(kind).unwrap();
    let got = iverilog(
        &format!("chain_{}_{k}", kind.name()),
        &[("chain.v", &dut), ("chain_tb.v", &tb), ("cells.v", cells)],
    );
    assert_eq!(got, expect, "{kind:?}");
}

/// The model's cycle count at N = 8, re-derived here to keep this crate free of the
/// simulator: the number of cycles equals the unit's steps, which the rust-hdl run reports.
fn queens_sim_cycles(b: &queens_core::Blocking) -> u64 {
    assert_eq!(b.m, 4, "the chain's N = 8");
    queens_hdl::rtl::RtlUnit::<4, 5, 7>::new(ArbiterKind::Carry4)
        .run(b)
        .cycles
}

/// The orientation stage's Verilog for inner width M, fed blocking vectors in iverilog: the
/// vectors it turns them into are those of `Blocking::oriented`.
fn orient_in_iverilog<const M: usize, const D: usize>(tag: &str, blocks: &[queens_core::Blocking]) {
    use queens_hdl::solver::orient::{Orient, LATENCY};
    use rust_hdl::prelude::*;
    let mut o = Orient::<M, D>::default();
    o.connect_all();
    let v = generate_verilog(&o);
    let mut tb = format!(
        "module tb;\nreg clock = 0; always #1 clock = ~clock;\nreg [{mh}:0] rows, cols; reg [{dh}:0] down, up;\n\
         wire [{mh}:0] rows_o, cols_o; wire [{dh}:0] down_o, up_o;\n\
         top dut(.clock(clock), .rows(rows), .cols(cols), .down(down), .up(up), .rows_o(rows_o), .cols_o(cols_o), .down_o(down_o), .up_o(up_o));\n\
         initial begin\n",
        mh = M - 1,
        dh = D - 1
    );
    let mut expect = String::new();
    for b in blocks {
        tb += &format!(
            "@(negedge clock) rows = {M}'d{}; cols = {M}'d{}; down = {D}'d{}; up = {D}'d{};\nrepeat ({LATENCY}) @(posedge clock);\n#0.5 $display(\"%0d %0d %0d %0d\", rows_o, cols_o, down_o, up_o);\n",
            b.rows, b.cols, b.down, b.up
        );
        let t = b.oriented();
        expect += &format!("{} {} {} {}\n", t.rows, t.cols, t.down, t.up);
    }
    tb += "$finish;\nend\nendmodule\n";
    let got = iverilog(tag, &[("orient.v", &v), ("tb.v", &tb)]);
    assert_eq!(got.lines().count(), blocks.len(), "{tag}: {got}");
    for (i, (g, w)) in got.lines().zip(expect.lines()).enumerate() {
        assert_eq!(g, w, "{tag}: block {i} {:?}", blocks[i]);
    }
}

#[test]
fn orientation_stage_turns_like_software_in_iverilog() {
    use queens_core::{enumerate::canonical, Blocking, BoardSize, Orientation};
    let blocks = |n: u32, step: usize| -> Vec<Blocking> {
        canonical(BoardSize::new(n).unwrap())
            .step_by(step)
            .map(|sp| Blocking::new(&sp.pre))
            .collect()
    };
    let small = blocks(12, 7);
    // Every orientation is chosen somewhere, so every case arm is exercised.
    for o in Orientation::ALL {
        assert!(small.iter().any(|b| b.orientation() == o), "{o:?} never chosen");
    }
    orient_in_iverilog::<8, 15>("orient12", &small);
    orient_in_iverilog::<2, 3>("orient6", &blocks(6, 1));
    // N = 27: the first subproblem of every 400th prefix of the canonical order.
    let e = queens_core::Enumerator::new(BoardSize::new(27).unwrap());
    let mut big = Vec::new();
    for p in e.prefixes().into_iter().step_by(400) {
        let mut first = None;
        e.for_each_in(p, |sp| {
            first.get_or_insert(Blocking::new(&sp.pre));
        });
        big.extend(first);
    }
    assert!(big.len() > 50);
    orient_in_iverilog::<23, 45>("orient27", &big);
}

/// The unit's values for a step that does not advance are kept whole (one LUT4 after the
/// advance) with the ECP5's CCU2C form only: on a LUT6 fabric the cut would only add LUTs.
#[test]
fn the_unit_keeps_its_retreat_values_whole_only_with_the_ccu2c_form() {
    let (m, d) = (23, 45);
    for kind in KINDS {
        let v = unit_verilog(plain(m, kind), "queens_unit");
        let rows = v
            .matches(&format!("(* keep *) wire [{}:0] w = a;", m - 1))
            .count();
        let diagonals = v
            .matches(&format!("(* keep *) wire [{}:0] w = a;", d - 1))
            .count();
        let want = if kind == ArbiterKind::Ccu2c {
            (1, 2)
        } else {
            (0, 0)
        };
        assert_eq!((rows, diagonals), want, "{}", kind.name());
    }
}

/// The tally's increment, each form, as Verilog: `{carry, sum}` is the chosen word plus one
/// (zero when clearing) for every input, proved by yosys' SAT solver over all 36-bit words;
/// the CCU2C form on the cell's model. The carry is a wrap of the tally's word.
#[test]
fn the_increments_carry_is_the_words_wrap() {
    use queens_hdl::solver::increment::Increment;
    use queens_hdl::solver::tally::COUNT_BITS;
    use rust_hdl::prelude::*;
    for kind in [ArbiterKind::Adder, ArbiterKind::Ccu2c] {
        let mut inc = Increment::<COUNT_BITS>::new(kind);
        inc.connect_all();
        let dir = tempfile::tempdir().unwrap();
        let w = COUNT_BITS;
        let check = format!(
            "module chk(input [{t}:0] word, input [{t}:0] fwd_word, input fwd, input clr, output ok);
    wire [{t}:0] sum;
    wire carry;
    top u(.word(word), .fwd_word(fwd_word), .fwd(fwd), .clr(clr), .sum(sum), .carry(carry));
    wire [{w}:0] want = clr ? {w1}'d0 : {{1'b0, fwd ? fwd_word : word}} + {w1}'d1;
    assign ok = {{carry, sum}} == want;
endmodule
",
            t = w - 1,
            w1 = w + 1
        );
        std::fs::write(dir.path().join("inc.v"), generate_verilog(&inc)).unwrap();
        std::fs::write(dir.path().join("chk.v"), check).unwrap();
        std::fs::write(dir.path().join("cells.v"), CCU2C_SIM).unwrap();
        let out = Command::new("yosys")
            .current_dir(dir.path())
            .args([
                "-q",
                "-p",
                "read_verilog cells.v inc.v chk.v; hierarchy -top chk; proc; flatten; opt_clean; \
                 sat -prove ok 1 -verify",
            ])
            .output()
            .expect("yosys is installed");
        assert!(
            out.status.success(),
            "{}: {}{}",
            kind.name(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
