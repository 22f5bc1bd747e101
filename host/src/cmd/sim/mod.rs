//! `queens sim`: the circuits in simulation. One file per subcommand: [`check`] (the
//! engines it builds in [`engines`]), [`board`], [`estimate`], [`cycles`].

mod board;
mod check;
mod cycles;
mod engines;
mod estimate;

use board::BoardArgs;
use check::CheckArgs;
use cycles::CyclesArgs;
use estimate::EstimateArgs;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Run canonical pre-placements through a simulated circuit and compare every count with
    /// the software counter; exits non-zero on any mismatch.
    #[command(after_help = "Examples:
  queens sim check 10                                 # every subproblem, the cycle model
  queens sim check 9 --engine verilator --solvers 4   # the emitted core under Verilator
  queens sim check 10 --engine netlist --board ulx3s  # the routed ULX3S netlist")]
    Check(CheckArgs),
    /// Serve the wire protocol as a board would, on a TCP port or a pseudo-terminal, with the
    /// solver array played by the cycle model.
    #[command(after_help = "Examples:
  queens sim board --n 12                            # then: queens run 12 --link tcp:127.0.0.1:7027
  queens sim board --n 12 --pty --faults drop=0.01   # a flaky board on a pseudo-terminal")]
    Board(BoardArgs),
    /// Predict the hours a board needs for the whole of Q(N), from the cycle counts of a
    /// sample of its subproblems and the board's units, clock and link.
    #[command(after_help = "Examples:
  queens sim estimate --board vc707 --n 27     # our fit of a VC707, by random probes
  queens sim estimate --board ulx3s --n 20 --json")]
    Estimate(EstimateArgs),
    /// Our unit's mean cycles per subproblem against Queens@TUD's unit and a left-to-right
    /// walk, on fixed sets: small ones run exactly, samples spread over N = 17 to 23 run
    /// exactly, and N = 27 and 28 by random probes. The benchmark to run after changing the
    /// unit or the walk.
    #[command(after_help = "Examples:
  queens sim cycles                 # every set, as a table (a few minutes on 2 cores)
  queens sim cycles --n 27 --json   # the N = 27 ratio and its 95% interval")]
    Cycles(CyclesArgs),
}

/// "250MHz", "100 MHz", "1.5GHz", "50000000": 1 kHz to 10 GHz (a slower clock would put
/// a simulated answer beyond any timeout, and no FPGA runs faster).
pub fn parse_hz(s: &str) -> Result<f64, String> {
    let t = s.trim().to_ascii_lowercase().replace(' ', "");
    let (num, mul) = if let Some(n) = t.strip_suffix("ghz") {
        (n, 1e9)
    } else if let Some(n) = t.strip_suffix("mhz") {
        (n, 1e6)
    } else if let Some(n) = t.strip_suffix("khz") {
        (n, 1e3)
    } else {
        (t.strip_suffix("hz").unwrap_or(&t), 1.0)
    };
    match num.parse::<f64>() {
        Ok(v) if (1e3..=1e10).contains(&(v * mul)) => Ok(v * mul),
        _ => Err(format!(
            "clock {s:?}: expected a frequency from 1kHz to 10GHz, such as 250MHz"
        )),
    }
}

pub fn run(cmd: Command) -> anyhow::Result<()> {
    match cmd {
        Command::Check(a) => check::run(a),
        Command::Board(a) => board::run(a),
        Command::Estimate(a) => estimate::run(a),
        Command::Cycles(a) => cycles::run(a),
    }
}

/// `--method` of `sim estimate`: one of the method names, so that clap lists them.
fn parse_method() -> impl clap::builder::TypedValueParser<Value = queens_sim::estimate::Method> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    use queens_sim::estimate::Method;
    PossibleValuesParser::new(Method::ALL.map(Method::name))
        .map(|s| Method::parse(&s).expect("clap passes only the names it lists"))
}
