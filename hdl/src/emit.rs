//! Verilog text of the circuits.

use crate::kind;
use crate::solver::arbiter::ArbiterKind;
use crate::solver::bram::Memory;
use crate::solver::load::MAX_UNITS;
use crate::solver::stage::COUNT_BITS;
use crate::solver::tally::TallyPipe;
use queens_core::UnitKind;
use rust_hdl::prelude::*;

/// What a bare unit or a stage is built as: its kind, inner width M, arbiter and tally form.
#[derive(Clone, Copy, Debug)]
pub struct Part {
    pub unit: UnitKind,
    pub m: usize,
    pub arbiter: ArbiterKind,
    pub pipe: TallyPipe,
}

/// The Verilog of the bare unit `p` (the grouped unit with its tally, not yet in a stage),
/// its top module renamed to `name`.
pub fn unit_verilog(p: Part, name: &str) -> String {
    rename_top(&kind::of(p.unit).unit(p.m, p.arbiter, p.pipe), name)
}

/// The Verilog of the tally's increment (`solver::increment`) for a word of `width` bits (8,
/// for tests, or the count's 44), its module named `name`.
pub fn increment_verilog(width: usize, kind: ArbiterKind, name: &str) -> String {
    use crate::solver::increment::Increment;
    let v = match width {
        8 => {
            let mut i = Increment::<8>::new(kind);
            i.connect_all();
            generate_verilog(&i)
        }
        COUNT_BITS => {
            let mut i = Increment::<COUNT_BITS>::new(kind);
            i.connect_all();
            generate_verilog(&i)
        }
        _ => panic!("no increment built for {width} bits"),
    };
    rename_top(&v, name)
}

/// The Verilog of one solver stage of `p` (the unit, its record, its place on the chains),
/// its tally (a kind with one) in block RAM.
pub fn stage_verilog(p: Part, name: &str) -> String {
    stage_verilog_in(p, Memory::Block, name)
}

/// [`stage_verilog`] with the tally in `memory` (a kind with a tally; a plain stage is the
/// same in either).
pub fn stage_verilog_in(p: Part, memory: Memory, name: &str) -> String {
    rename_top(&kind::of(p.unit).stage(p.m, p.arbiter, memory, p.pipe), name)
}

/// rust-hdl names the top module `top` and its children `top$path`: give them a prefix of
/// our own so that several generated blocks can share one file.
pub fn rename_top(v: &str, name: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for line in v.lines() {
        let l = line
            .replace("module top(", &format!("module {name}("))
            .replace("module top$", &format!("module {name}$"));
        // Instantiations of children: "top$a$b inst(" at the start of a line.
        let l = if let Some(rest) = l.trim_start().strip_prefix("top$") {
            let indent = &l[..l.len() - l.trim_start().len()];
            format!("{indent}{name}${rest}")
        } else {
            l
        };
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// The Verilog of one arbiter for m rows, its module named `name`.
pub fn arbiter_verilog(
    m: usize,
    kind: ArbiterKind,
    entry: crate::solver::arbiter::Entry,
    name: &str,
) -> String {
    let v = crate::with_width!(m, |M, M1, D| {
        let _ = D;
        let mut a = crate::solver::arbiter::Arbiter::<M, M1>::new(kind, entry);
        a.connect_all();
        generate_verilog(&a)
    });
    rename_top(&v, name)
}

/// Behavioural model of CARRY4 for simulators (not for synthesis); read with yosys'
/// `read_verilog -lib`, the cell as a black box for checks outside the vendor tools.
pub const CARRY4_SIM: &str = include_str!("../verilog/CARRY4_sim.v");
/// Behavioural model of CCU2C for simulators, and its black box, as [`CARRY4_SIM`].
pub const CCU2C_SIM: &str = include_str!("../verilog/CCU2C_sim.v");

/// The simulation model of the vendor cell an arbiter form instantiates, if it has one.
pub fn primitive_sim(kind: ArbiterKind) -> Option<&'static str> {
    match kind {
        ArbiterKind::Carry4 => Some(CARRY4_SIM),
        ArbiterKind::Ccu2c => Some(CCU2C_SIM),
        ArbiterKind::Adder | ArbiterKind::Prefix => None,
    }
}

/// The stage modules of every chain [`chain_verilog`] writes (`<chain>_stage`) inside a core
/// (`<core>_chain`), as a yosys selection (the stages with their tally in block RAM; those in
/// UltraRAM are `<chain>_stage_ultra`, on UltraScale+ only).
pub const STAGE_MODULES: &str = "*_chain_stage";

/// K solver stages of `p` in series: the stage module once, instantiated by a
/// generate loop, so the Verilog does not grow with K. Ports as
/// [`crate::solver::chain::Chain`], each bundle's fields as `<bundle>_<field>`: the beat in
/// (`dn_*`), the slot into stage 0 (`first_*`: empty, or a hold) and the slot out (`up_*`);
/// stage i has id i. The first `ultra` stages keep their tally in UltraRAM (module
/// `<name>_stage_ultra`, [`Memory::Ultra`]), the rest in block RAM (`<name>_stage`); with
/// `ultra` 0 the chain is one stage module, as on every board without UltraRAM.
pub fn chain_verilog(part: Part, k: usize, ultra: usize, name: &str) -> String {
    let stage = format!("{name}_stage");
    let s = kind::of(part.unit).slot_bits();
    assert!((1..=MAX_UNITS).contains(&k), "1 to {MAX_UNITS} units");
    assert!(ultra <= k, "{ultra} of {k} stages in UltraRAM");
    let (id, w, k1) = (crate::solver::stage::ID_BITS, part.m, k + 1);
    let (id1, w1, s1, last) = (id - 1, w - 1, s - 1, k - 1);
    let instance = |module: &str, indent: &str| {
        format!(
            "{indent}{module} s(
{indent}    .clock(clock), .links$my_id(i[{id1}:0]),
{indent}    .links$dn$valid(dn_valid_at[i]), .links$dn$id(dn_id_at[{id}*i +: {id}]), .links$dn$kind(dn_kind_at[2*i +: 2]), .links$dn$data(dn_data_at[{w}*i +: {w}]),
{indent}    .links$dn_o$valid(dn_valid_at[i+1]), .links$dn_o$id(dn_id_at[{id}*(i+1) +: {id}]), .links$dn_o$kind(dn_kind_at[2*(i+1) +: 2]), .links$dn_o$data(dn_data_at[{w}*(i+1) +: {w}]),
{indent}    .links$up$valid(up_valid_at[i]), .links$up$id(up_id_at[{id}*i +: {id}]), .links$up$data(up_data_at[{s}*i +: {s}]),
{indent}    .links$up_o$valid(up_valid_at[i+1]), .links$up_o$id(up_id_at[{id}*(i+1) +: {id}]), .links$up_o$data(up_data_at[{s}*(i+1) +: {s}]));
"
        )
    };
    let (modules, body) = if ultra == 0 {
        (stage_verilog(part, &stage), instance(&stage, "            "))
    } else {
        let ultra_stage = format!("{stage}_ultra");
        (
            stage_verilog_in(part, Memory::Ultra, &ultra_stage) + &stage_verilog(part, &stage),
            format!(
                "            // Stages 0 to {u1}: the tally in UltraRAM; the rest in block RAM.
            if (i < {ultra}) begin : ultra
{}            end else begin : block
{}            end
",
                instance(&ultra_stage, "                "),
                instance(&stage, "                "),
                u1 = ultra - 1,
            ),
        )
    };
    modules
        + &format!(
            "
// {k} solver stages in series; beats and records both travel from stage 0 to stage {last}.
module {name}(clock, dn_valid, dn_id, dn_kind, dn_data, first_valid, first_id, first_data,
    up_valid, up_id, up_data);
    input wire clock;
    input wire dn_valid;
    input wire [{id1}:0] dn_id;
    input wire [1:0] dn_kind;
    input wire [{w1}:0] dn_data;
    input wire first_valid;
    input wire [{id1}:0] first_id;
    input wire [{s1}:0] first_data;
    output wire up_valid;
    output wire [{id1}:0] up_id;
    output wire [{s1}:0] up_data;
    // Each `*_at` bus holds every link of the chain: link i enters stage i, link {k} leaves
    // the last stage.
    wire [{k}:0] dn_valid_at, up_valid_at;
    wire [{id}*{k1}-1:0] dn_id_at, up_id_at;
    wire [2*{k1}-1:0] dn_kind_at;
    wire [{w}*{k1}-1:0] dn_data_at;
    wire [{s}*{k1}-1:0] up_data_at;
    assign dn_valid_at[0] = dn_valid;
    assign dn_id_at[{id1}:0] = dn_id;
    assign dn_kind_at[1:0] = dn_kind;
    assign dn_data_at[{w1}:0] = dn_data;
    assign up_valid_at[0] = first_valid;
    assign up_id_at[{id1}:0] = first_id;
    assign up_data_at[{s1}:0] = first_data;
    genvar i;
    generate
        for (i = 0; i < {k}; i = i + 1) begin : unit
{body}        end
    endgenerate
    assign up_valid = up_valid_at[{k}];
    assign up_id = up_id_at[{id}*{k} +: {id}];
    assign up_data = up_data_at[{s}*{k} +: {s}];
endmodule
"
        )
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EmitError {
    #[error("no UART divisor gives {baud} baud from a {clock_hz} Hz clock within 1.5%")]
    Baud { clock_hz: u64, baud: u64 },
    #[error("board size {0}: circuits exist for N = {min}..={max}", min = queens_core::board::MIN_N, max = queens_core::board::MAX_N)]
    Size(usize),
    #[error("{0} solver units: an array holds 1 to {max}", max = MAX_UNITS)]
    Units(usize),
    #[error(transparent)]
    Kind(#[from] kind::KindError),
    #[error("{ultra} stages with the tally in UltraRAM: a core of {units} {unit} units has no more (plain units have no tally)")]
    Ultra {
        ultra: usize,
        units: usize,
        unit: UnitKind,
    },
}

/// What a core is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoreConfig {
    /// Board size N.
    pub n: usize,
    /// Solver units.
    pub units: usize,
    /// The units it is built of, and so the requests it takes and what it answers.
    pub unit: UnitKind,
    pub arbiter: ArbiterKind,
    /// Results carry the 48-bit cycle counter (the protocol's optional frame variant).
    pub with_cycles: bool,
    /// The board build the core is part of, if any ([`CoreConfig::built`]).
    pub build: Option<Build>,
    /// Stages whose tally is in UltraRAM, the first of the chain ([`CoreConfig::with_ultra`]).
    pub ultra: usize,
    /// The form of every stage's tally ([`CoreConfig::with_pipe`]).
    pub pipe: TallyPipe,
}

/// What a board build adds to a core's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Build {
    /// The compute clock, Hz.
    pub clock_hz: u64,
    /// Hash of the board-level choices (board, link, baud).
    pub board_hash: u32,
}

impl CoreConfig {
    /// What its stages are built as.
    pub fn part(&self) -> Part {
        Part {
            unit: self.unit,
            m: self.n - 4,
            arbiter: self.arbiter,
            pipe: self.pipe,
        }
    }

    /// A core of `units` units of kind `unit` for board size `n`: refused where no circuit of
    /// that kind is built for `n`, or where the kind cannot leave out the cycle counter.
    pub fn new(
        n: usize,
        units: usize,
        unit: UnitKind,
        arbiter: ArbiterKind,
        with_cycles: bool,
    ) -> Result<Self, EmitError> {
        if u32::try_from(n).map_or(true, |n| queens_core::BoardSize::new(n).is_err()) {
            return Err(EmitError::Size(n));
        }
        if !(1..=MAX_UNITS).contains(&units) {
            return Err(EmitError::Units(units));
        }
        kind::choose(Some(unit), n, with_cycles)?;
        Ok(Self {
            n,
            units,
            unit,
            arbiter,
            with_cycles,
            build: None,
            ultra: 0,
            pipe: TallyPipe::Direct,
        })
    }

    /// The core with every stage's tally in form `pipe` (the board's, `Board::tally_pipe`;
    /// a kind without a tally ignores it). Like the memory, the form changes no result
    /// (only when, a few cycles later, a group's records leave), so it is not part of the
    /// identity.
    pub fn with_pipe(mut self, pipe: TallyPipe) -> Self {
        self.pipe = pipe;
        self
    }

    /// The core with the tally of its first `ultra` stages in UltraRAM (UltraScale+ only; the
    /// count is the board's, `board::fit::ultra_stages`). The memory changes no behaviour,
    /// so it is not part of the identity.
    pub fn with_ultra(mut self, ultra: usize) -> Result<Self, EmitError> {
        if ultra > 0 && !kind::of(self.unit).has_tally() || ultra > self.units {
            return Err(EmitError::Ultra {
                ultra,
                units: self.units,
                unit: self.unit,
            });
        }
        self.ultra = ultra;
        Ok(self)
    }

    /// The core as part of a board build: `board` names the board-level choices (board,
    /// link, baud), `clock_hz` the compute clock.
    pub fn built(mut self, board: &str, clock_hz: u64) -> Self {
        self.build = Some(Build {
            clock_hz,
            board_hash: queens_core::ident::design_hash(board),
        });
        self
    }

    /// What the core answers an identification request with: N, units and the cycle flag;
    /// a board build's clock (0 without one); a hash of every choice it was built from.
    pub fn ident(&self) -> queens_core::ident::Ident {
        let mut what = format!(
            "N={} units={} arbiter={} cycles={}",
            self.n,
            self.units,
            self.arbiter.name(),
            self.with_cycles
        );
        if self.unit != UnitKind::Plain {
            what += &format!(" {}", self.unit);
        }
        if let Some(b) = self.build {
            what += &format!(" clock_hz={} board={:08x}", b.clock_hz, b.board_hash);
        }
        queens_core::ident::Ident {
            n: self.n as u32,
            units: self.units as u32,
            clock_hz: self.build.map_or(0, |b| b.clock_hz),
            design_hash: queens_core::ident::design_hash(&what),
            with_cycles: self.with_cycles,
            unit: self.unit,
        }
        .on_wire()
    }
}

/// The front end (frame parser, dispatch, collection, framer) for a core.
pub fn front_verilog(cfg: &CoreConfig, name: &str) -> String {
    let front = kind::of(cfg.unit).front(cfg.n, cfg.units, cfg.with_cycles, &cfg.ident());
    rename_top(&front, name)
}

/// The board-independent core: byte streams in and out, the front end and `cfg.units` solver
/// stages. Ports: clock, rx_data, rx_valid, rx_ready, tx_data, tx_valid, tx_last, tx_ready,
/// idle (a byte moves when valid and ready are both high at a rising edge; a UART ignores
/// rx_ready; tx_last marks the last byte of a frame). A core of grouped units takes group
/// requests and answers group records (`queens_core::group`).
pub fn core_verilog(cfg: &CoreConfig, name: &str) -> String {
    let mut v = front_verilog(cfg, &format!("{name}_front"));
    v += &chain_verilog(cfg.part(), cfg.units, cfg.ultra, &format!("{name}_chain"));
    v + &core_module(cfg, name)
}

/// The core module joining `<name>_front` and `<name>_chain`: the beat, the first slot and
/// the last (the front end's are a bundle of ports, `chain$dn$valid` ...; the chain's plain ports).
fn core_module(cfg: &CoreConfig, name: &str) -> String {
    let m = cfg.n - 4;
    let id = crate::solver::stage::ID_BITS;
    let s = kind::of(cfg.unit).slot_bits();
    format!(
        "
// Queens core for N = {n}: {k} solver units ({arbiter:?} arbiter), frames in and out as bytes.
module {name}(clock, rx_data, rx_valid, rx_ready, tx_data, tx_valid, tx_last, tx_ready, idle);
    input wire clock;
    input wire [7:0] rx_data;
    input wire rx_valid;
    output wire rx_ready;
    output wire [7:0] tx_data;
    output wire tx_valid;
    output wire tx_last;
    input wire tx_ready;
    output wire idle;
    wire dn_valid, first_valid, up_valid;
    wire [1:0] dn_kind;
    wire [{id1}:0] dn_id, first_id, up_id;
    wire [{m1}:0] dn_data;
    wire [{s1}:0] first_data, up_data;
    {name}_front front(
        .clock(clock), .link$rx_data(rx_data), .link$rx_valid(rx_valid), .link$rx_ready(rx_ready),
        .link$tx_data(tx_data), .link$tx_valid(tx_valid), .link$tx_last(tx_last), .link$tx_ready(tx_ready), .idle(idle),
        .chain$dn$valid(dn_valid), .chain$dn$id(dn_id), .chain$dn$kind(dn_kind), .chain$dn$data(dn_data),
        .chain$first$valid(first_valid), .chain$first$id(first_id), .chain$first$data(first_data),
        .chain$up$valid(up_valid), .chain$up$id(up_id), .chain$up$data(up_data));
    {name}_chain chain(
        .clock(clock), .dn_valid(dn_valid), .dn_id(dn_id), .dn_kind(dn_kind), .dn_data(dn_data),
        .first_valid(first_valid), .first_id(first_id), .first_data(first_data),
        .up_valid(up_valid), .up_id(up_id), .up_data(up_data));
endmodule
",
        n = cfg.n,
        k = cfg.units,
        arbiter = cfg.arbiter,
        id1 = id - 1,
        m1 = m - 1,
        s1 = s - 1,
    )
}

/// UART receiver and transmitter modules `{name}_rx` and `{name}_tx`.
pub fn uart_verilog(cycles_per_sample: u32, name: &str) -> String {
    let mut rx = crate::link::uart_rx::UartRx::new(cycles_per_sample);
    rx.connect_all();
    let mut tx = crate::link::uart_tx::UartTx::new(cycles_per_sample);
    tx.connect_all();
    rename_top(&generate_verilog(&rx), &format!("{name}_rx"))
        + &rename_top(&generate_verilog(&tx), &format!("{name}_tx"))
}

/// Clock cycles per UART sample (8 samples per bit) for a clock and baud rate.
pub fn cycles_per_sample(clock_hz: u64, baud: u64) -> Result<u32, EmitError> {
    // Rounded to the nearest divisor, in 128 bits so that no clock or baud rate overflows.
    let c = match (clock_hz as u128 + 4 * baud as u128).checked_div(8 * baud as u128) {
        Some(c) => c,
        None => return Err(EmitError::Baud { clock_hz, baud }),
    };
    // 8N1 tolerates about 2% between the two ends; rounding the divisor must stay well inside.
    let actual = clock_hz as f64 / (8.0 * c.max(1) as f64);
    if !crate::link::DIVISORS.contains(&(c as u64)) || (actual - baud as f64).abs() / baud as f64 > 0.015 {
        return Err(EmitError::Baud { clock_hz, baud });
    }
    Ok(c as u32)
}

/// The core (module `core`, see [`core_verilog`]) behind a UART on two pins: the top for
/// boards whose link is a serial port. Ports: clock, uart_rx, uart_tx, idle (for a LED).
pub fn uart_top_verilog(cycles_per_sample: u32, name: &str, core: &str) -> String {
    let mut v = uart_verilog(cycles_per_sample, &format!("{name}_uart"));
    v += &format!(
        "
// The core behind a UART (8N1, {cycles_per_sample} clock cycles per sample, 8 samples per bit).
module {name}(clock, uart_rx, uart_tx, idle);
    input wire clock;
    input wire uart_rx;
    output wire uart_tx;
    output wire idle;
    wire [7:0] rx_data, tx_data;
    wire rx_valid, tx_valid, tx_ready;
    {name}_uart_rx rx(.clock(clock), .rxd(uart_rx), .data(rx_data), .valid(rx_valid));
    {name}_uart_tx tx(.clock(clock), .data(tx_data), .valid(tx_valid), .ready(tx_ready), .txd(uart_tx));
    // A UART cannot wait: rx_ready stays open, and the core drops a frame it has no room for.
    {core} core(.clock(clock), .rx_data(rx_data), .rx_valid(rx_valid), .rx_ready(),
        .tx_data(tx_data), .tx_valid(tx_valid), .tx_last(), .tx_ready(tx_ready), .idle(idle));
endmodule
"
    );
    v
}

/// The AXI4-Stream adapters `{name}_in` and `{name}_out`.
pub fn axis_verilog(name: &str) -> String {
    let mut i = crate::link::axis::AxisIn::default();
    i.connect_all();
    let mut o = crate::link::axis::AxisOut::default();
    o.connect_all();
    rename_top(&generate_verilog(&i), &format!("{name}_in"))
        + &rename_top(&generate_verilog(&o), &format!("{name}_out"))
}

/// Bytes of one result frame of a core (sentinel, payload, CRC).
pub fn result_frame_bytes(cfg: &CoreConfig) -> usize {
    let size = queens_core::BoardSize::new(cfg.n as u32).expect("a checked size");
    queens_core::result::ResultRecord::payload_len(size, cfg.with_cycles) + 2
}

/// The core (module `core`) behind two 128-bit AXI4-Stream ports, as XDMA's streaming
/// channels present them: the top for PCIe. Ports: clock, s_axis_* (host to card), m_axis_*
/// (card to host, one frame per packet), idle.
pub fn stream_top_verilog(name: &str, core: &str) -> String {
    let mut v = axis_verilog(&format!("{name}_axis"));
    v += &format!(
        "
// The core behind AXI4-Stream (128-bit beats, lane 0 first; TLAST ends each frame).
module {name}(clock, s_axis_tdata, s_axis_tkeep, s_axis_tvalid, s_axis_tready, s_axis_tlast,
    m_axis_tdata, m_axis_tkeep, m_axis_tvalid, m_axis_tready, m_axis_tlast, idle);
    input wire clock;
    input wire [127:0] s_axis_tdata;
    input wire [15:0] s_axis_tkeep;
    input wire s_axis_tvalid;
    output wire s_axis_tready;
    input wire s_axis_tlast;
    output wire [127:0] m_axis_tdata;
    output wire [15:0] m_axis_tkeep;
    output wire m_axis_tvalid;
    input wire m_axis_tready;
    output wire m_axis_tlast;
    output wire idle;
    wire [7:0] rx_data, tx_data;
    wire rx_valid, rx_ready, tx_valid, tx_last, tx_ready;
    // Frames need no packet boundaries on the way in: the core hunts for sentinels.
    {name}_axis_in h2c(.clock(clock), .tdata(s_axis_tdata), .tkeep(s_axis_tkeep),
        .tvalid(s_axis_tvalid), .tready(s_axis_tready),
        .data(rx_data), .valid(rx_valid), .ready(rx_ready));
    {core} core(.clock(clock), .rx_data(rx_data), .rx_valid(rx_valid), .rx_ready(rx_ready),
        .tx_data(tx_data), .tx_valid(tx_valid), .tx_last(tx_last), .tx_ready(tx_ready), .idle(idle));
    {name}_axis_out c2h(.clock(clock), .data(tx_data), .valid(tx_valid), .last(tx_last), .ready(tx_ready),
        .tdata(m_axis_tdata), .tkeep(m_axis_tkeep), .tvalid(m_axis_tvalid),
        .tready(m_axis_tready), .tlast(m_axis_tlast));
endmodule
"
    );
    v
}
