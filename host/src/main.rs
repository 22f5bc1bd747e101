//! `queens`: counts N-Queens solutions in software, and (with later subcommands) on FPGA
//! boards or their simulation.

// Printing in this binary never panics: these shadow std's macros in every module below
// (see output.rs).
macro_rules! println {
    () => { $crate::output::out(format_args!(""), true) };
    ($($arg:tt)*) => { $crate::output::out(format_args!($($arg)*), true) };
}
#[allow(unused_macros)]
macro_rules! print {
    ($($arg:tt)*) => { $crate::output::out(format_args!($($arg)*), false) };
}
macro_rules! eprintln {
    () => { $crate::output::err(format_args!(""), true) };
    ($($arg:tt)*) => { $crate::output::err(format_args!($($arg)*), true) };
}
#[allow(unused_macros)]
macro_rules! eprint {
    ($($arg:tt)*) => { $crate::output::err(format_args!($($arg)*), false) };
}

mod cmd;
mod output;
mod progress;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "queens",
    version,
    about = "Count all solutions of the N-Queens puzzle"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count Q(N) on boards (a simulated one by default): the main job; resumes a campaign.
    Run(cmd::run::Args),
    /// Campaign files: statistics, verification, plots.
    #[command(subcommand)]
    Db(cmd::db::Command),
    /// Count Q(N) in software through the canonical coronal pre-placements.
    Count(cmd::count::Args),
    /// Enumerate the canonical pre-placements (subproblems) of N.
    Subproblems(cmd::subproblems::Args),
    /// The circuits: Verilog and its cost.
    #[command(subcommand)]
    Hdl(cmd::hdl::Command),
    /// Simulate the circuits: check them against software.
    #[command(subcommand)]
    Sim(cmd::sim::Command),
    /// A board on the bench: check it before a campaign.
    #[command(subcommand)]
    Board(cmd::board::Command),
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    // The circuits are instantiated for every supported width in one function; unoptimised
    // builds give each instantiation its own stack slot, more than a default stack holds
    // (the rayon pool gets big stacks too).
    std::thread::Builder::new()
        .name("queens".into())
        .stack_size(1 << 30)
        .spawn(move || match cli.command {
            Command::Run(a) => cmd::run::run_cmd(a),
            Command::Db(c) => cmd::db::run(c),
            Command::Count(a) => cmd::count::run(a),
            Command::Subproblems(a) => cmd::subproblems::run(a),
            Command::Hdl(c) => cmd::hdl::run(c),
            Command::Sim(c) => cmd::sim::run(c),
            Command::Board(c) => cmd::board::run(c),
        })?
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
