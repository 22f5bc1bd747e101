//! `queens sim board`: the wire protocol served as a board would.

use super::parse_hz;
use anyhow::Context;
use queens_core::{BoardSize, UnitKind};
use queens_hdl::ArbiterKind;

#[derive(clap::Args)]
pub struct BoardArgs {
    /// Board size, 6..=32.
    #[arg(long)]
    n: BoardSize,
    /// Solver units, 1..=4096 (default 360; a netlist: 2).
    #[arg(long, value_parser = crate::cmd::units())]
    solvers: Option<usize>,
    /// The board whose netlist plays the board (netlist engine): ulx3s, kc705, vc707, u55c.
    #[arg(long, value_name = "B")]
    board: Option<String>,
    /// Listen on this TCP address (one host connection at a time).
    #[arg(
        long,
        value_name = "ADDR",
        conflicts_with = "pty",
        default_value = "127.0.0.1:7027",
        value_parser = parse_listen
    )]
    listen: String,
    /// Serve on a new pseudo-terminal instead (its path is printed), like a USB UART.
    #[arg(long)]
    pty: bool,
    /// Serve on FIFOs standing in for the XDMA driver's devices instead, BASE_h2c_0 and
    /// BASE_c2h_0 (made once the board is ready), for `queens run --link pcie:BASE`.
    #[arg(long, value_name = "BASE", conflicts_with = "pty")]
    xdma: Option<std::path::PathBuf>,
    /// Answer when hardware at this clock would, e.g. 250MHz (default: as fast as possible).
    #[arg(long, value_parser = parse_hz)]
    clock: Option<f64>,
    /// Faults to inject: corrupt=P,drop=P,dup=P,lie=P,reset=SECONDS (grouped units also
    /// misplace=P: a place code of no south side).
    #[arg(long, default_value = "")]
    faults: queens_sim::board::Faults,
    /// Seed of the fault injector.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Results without the cycle counter (the Queens@TUD frames).
    #[arg(long)]
    no_cycles: bool,
    /// (Grouped units take group requests and answer group records; the verilator and
    /// netlist engines build their circuits, for N = 8 to 11, 27 and 28.)
    #[command(flatten)]
    unit: crate::cmd::UnitArg,
    /// What plays the board: the cycle model, or the emitted core under Verilator (at the
    /// simulator's own pace; no --clock).
    #[arg(long, value_enum, default_value = "model")]
    engine: BoardEngine,
    /// Answer no identification request, as a Queens@TUD board (model engine).
    #[arg(long)]
    no_ident: bool,
    /// Play Queens@TUD's UART board (their design: no identification, no flow control, an
    /// input FIFO of 5 × (solvers + 5) bytes, their unit's cycles; held to a recording of
    /// their VHDL under GHDL, sim/tud/board/) at --clock (default 100 MHz) behind a UART at
    /// --baud.
    #[arg(long, conflicts_with_all = ["no_ident", "claim_units", "claim_clock", "board"])]
    tud: bool,
    /// The UART's baud rate of --tud.
    #[arg(long, default_value_t = 115_200, requires = "tud")]
    baud: u32,
    /// Claim this many units when identified (default: the units it has), to play a board
    /// whose units do not all answer (model engine).
    #[arg(long, value_name = "K", value_parser = crate::cmd::units())]
    claim_units: Option<usize>,
    /// Claim this clock when identified (default: --clock), to play a board slower than
    /// built (model engine).
    #[arg(long, value_name = "HZ", value_parser = parse_hz)]
    claim_clock: Option<f64>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BoardEngine {
    Model,
    Verilator,
    /// The board top of --board as its build makes it, driven through its UART pins (see
    /// `queens sim check --engine netlist`).
    Netlist,
}

pub(super) fn run(a: BoardArgs) -> anyhow::Result<()> {
    use queens_sim::board::{Board, BoardConfig};
    let size = a.n;
    let netlist = a.engine == BoardEngine::Netlist;
    anyhow::ensure!(
        netlist == a.board.is_some(),
        "--engine netlist and --board go together (the board whose netlist plays the board)"
    );
    let unit = match (a.tud, a.engine) {
        (true, _) => {
            anyhow::ensure!(
                a.unit.unit.is_none(),
                "--tud plays Queens@TUD's board: its units are theirs"
            );
            UnitKind::Plain
        }
        // A board that does not identify itself is sent plain frames: a host sends group
        // requests only to a board that said it is of grouped units.
        (false, BoardEngine::Model) if a.no_ident => {
            anyhow::ensure!(
                a.unit.unit.is_none_or(|u| u == UnitKind::Plain),
                "--unit grouped with --no-ident: a host sends group requests only to a board that says it is of grouped units"
            );
            UnitKind::Plain
        }
        (false, BoardEngine::Model) => a.unit.model(!a.no_cycles)?,
        (false, _) => match &a.board {
            Some(b) => a
                .unit
                .on_board(&queens_hdl::board::Board::load(b)?, size, !a.no_cycles)?,
            None => a.unit.circuit(size, !a.no_cycles)?,
        },
    };
    let units = a.solvers.unwrap_or(if netlist { 2 } else { 360 });
    let cfg = BoardConfig {
        size,
        units,
        clock_hz: a.clock,
        with_cycles: !a.no_cycles,
        unit,
        faults: a.faults,
        seed: a.seed,
    };
    if a.tud {
        use queens_sim::tud_board::{TudBoard, TudConfig};
        anyhow::ensure!(
            a.engine == BoardEngine::Model && !cfg.faults.has_any(),
            "--tud plays Queens@TUD's board with its own model, fault-free"
        );
        let clock = a.clock.unwrap_or(100e6);
        let tud = TudConfig::new(size, units, cfg.with_cycles, clock, a.baud);
        let what = format!("Queens@TUD's UART board at {} MHz, {} baud", clock / 1e6, a.baud);
        return serve_board(&a, units, &what, |input, out| {
            let mut board = TudBoard::new(tud);
            board.serve(clock, input, out)?;
            tracing::info!(dropped = board.dropped_bytes, bad = board.bad_frames, "host left");
            Ok(Default::default())
        });
    }
    match a.engine {
        BoardEngine::Model => {
            let what = a.clock.map_or("as fast as it can".to_string(), |hz| {
                format!("at {} MHz", hz / 1e6)
            });
            // What it claims: what it is, but for the units and clock asked to claim.
            let ident = (!a.no_ident).then(|| queens_core::ident::Ident {
                units: a.claim_units.unwrap_or(units) as u32,
                clock_hz: a.claim_clock.or(a.clock).map_or(0, |h| h.round() as u64),
                ..cfg.ident()
            });
            serve_board(&a, units, &what, |input, out| {
                // Each connection finds a board that has kept nothing (as after a power cycle).
                let mut board = Board::new(cfg.clone()).with_ident(ident);
                board.serve(input, out)?;
                Ok(board.stats)
            })
        }
        BoardEngine::Netlist => {
            anyhow::ensure!(
                a.clock.is_none() && !cfg.faults.has_any(),
                "--clock and --faults: the netlist board runs at the simulator's pace, fault-free"
            );
            let board = a.board.as_deref().expect("checked above");
            let engine = super::engines::netlist(board, a.n, units, unit, false, None)?;
            let design = engine.verilated().map_err(anyhow::Error::msg)?;
            serve_board(
                &a,
                units,
                &format!("{} netlist under Verilator", engine.netlist.board.name),
                |input, out| {
                    Ok(queens_sim::board::serve_verilated(
                        &design, cfg.faults, cfg.seed, input, out,
                    )?)
                },
            )
        }
        BoardEngine::Verilator => {
            use queens_sim::verilator::{Top, Verilated};
            anyhow::ensure!(
                a.clock.is_none(),
                "--clock: the verilator board runs at the simulator's pace"
            );
            let core = queens_hdl::emit::CoreConfig::new(
                size.n() as usize,
                units,
                unit,
                ArbiterKind::Carry4,
                cfg.with_cycles,
            )?;
            eprintln!("building the emitted core with Verilator ({units} units)...");
            let design = Verilated::build(core, Top::Core, false)?;
            serve_board(&a, units, "Verilator", |input, out| {
                Ok(queens_sim::board::serve_verilated(
                    &design, cfg.faults, cfg.seed, input, out,
                )?)
            })
        }
    }
}

/// Serves hosts on a pseudo-terminal or, one connection at a time, on a TCP port.
fn serve_board(
    a: &BoardArgs,
    units: usize,
    what: &str,
    mut serve: impl FnMut(
        Box<dyn std::io::Read + Send>,
        &mut dyn std::io::Write,
    ) -> anyhow::Result<queens_sim::board::BoardStats>,
) -> anyhow::Result<()> {
    if let Some(base) = &a.xdma {
        let (h2c, c2h) = queens_host::link::pcie::make_fifos(base).map_err(anyhow::Error::msg)?;
        println!(
            "simulated board N = {}, {} units, {what}: XDMA-style FIFOs {} and {}",
            a.n,
            units,
            h2c.display(),
            c2h.display()
        );
        // One host at a time, opening them as `pcie:` does: host-to-card first.
        loop {
            let input = std::fs::File::open(&h2c).with_context(|| format!("opening {}", h2c.display()))?;
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .open(&c2h)
                .with_context(|| format!("opening {}", c2h.display()))?;
            match serve(Box::new(input), &mut out) {
                Ok(stats) => println!("host left: {stats}"),
                Err(e) => tracing::warn!("connection lost: {e}"),
            }
        }
    }
    if a.pty {
        let (port, path) = queens_sim::pty::open().context("opening a pseudo-terminal")?;
        println!(
            "simulated board N = {}, {} units, {what}: serial port {path}",
            a.n, units
        );
        let mut out = port.try_clone()?;
        serve(Box::new(port), &mut out)?;
        return Ok(());
    }
    let listener =
        std::net::TcpListener::bind(&a.listen).with_context(|| format!("listening on {}", a.listen))?;
    println!(
        "simulated board N = {}, {} units, {what}: listening on {}",
        a.n,
        units,
        listener.local_addr()?
    );
    for conn in listener.incoming() {
        let conn = conn?;
        let peer = conn.peer_addr()?;
        tracing::info!(%peer, "host connected");
        let _ = conn.set_nodelay(true);
        let mut out = conn.try_clone()?;
        match serve(Box::new(conn), &mut out) {
            Ok(stats) => println!("host {peer} left: {stats}"),
            Err(e) => tracing::warn!(%peer, "connection lost: {e}"),
        }
    }
    Ok(())
}

/// `--listen`: HOST:PORT, the port a number (0: any free port).
fn parse_listen(s: &str) -> Result<String, String> {
    match s.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => Ok(s.to_string()),
        _ => Err(format!(
            "expected HOST:PORT, e.g. 127.0.0.1:7027, localhost:7027 or 0.0.0.0:7027 (port 0: any free port), not {s:?}"
        )),
    }
}
