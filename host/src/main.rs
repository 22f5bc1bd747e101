//! `queens`: counts N-Queens solutions in software and on FPGA boards, and makes and checks
//! the circuits and the boards that do it.

// The doc comments under cmd/ are clap's help text, written for a terminal
// (`[user@]host[:port]`, `q<N>.campaign`), not rustdoc links or HTML.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

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
#[cfg(test)]
mod docs;
mod output;
mod progress;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "queens",
    version,
    about = "Count all solutions of the N-Queens puzzle, in software or on FPGA boards",
    after_help = "Examples:
  queens count 14                              # Q(14) in software
  queens sim check 10                          # the circuits against software
  queens hdl emit --board ulx3s --out build    # a board's bitstream project
  queens board check serial:/dev/ttyUSB0       # a board on the bench
  queens run 14                                # the main job, on a simulated board

Guides: README.md and docs/ in the repository."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The tasks in the order a user meets them: software, simulation, a bitstream, the bench,
/// the campaign, and the campaign's store.
#[derive(Subcommand)]
enum Command {
    /// Count Q(N) in software through the canonical coronal pre-placements.
    #[command(after_help = "Examples:
  queens count 14                      # Q(14) on all cores
  queens count 17 --threads 1 --json   # one thread, the report as JSON")]
    Count(cmd::count::Args),
    /// Enumerate the canonical pre-placements (subproblems) of N.
    #[command(after_help = "Examples:
  queens subproblems 27 --stats            # how many per symmetry class
  queens subproblems 16 --out q16.campaign # a fresh campaign file
  queens subproblems 27 --spread 1000      # 1,000 spread evenly over the canonical order")]
    Subproblems(cmd::subproblems::Args),
    /// Simulate the circuits: check them against software, predict a board's hours, play a
    /// board.
    #[command(
        subcommand,
        after_help = "Examples:
  queens sim check 10                          # the cycle model against software
  queens sim estimate --board vc707 --n 27     # hours of Q(27) on a VC707"
    )]
    Sim(cmd::sim::Command),
    /// The circuits: Verilog, board projects, and what they cost.
    #[command(
        subcommand,
        after_help = "Examples:
  queens hdl emit --board ulx3s --out ulx3s-build   # a ULX3S project and build.sh
  queens hdl fit --board kc705                      # units that fit a KC705"
    )]
    Hdl(cmd::hdl::Command),
    /// A board on the bench: check it before a campaign.
    #[command(
        subcommand,
        after_help = "Example:
  queens board check serial:/dev/ttyUSB0@115200 --n 27"
    )]
    Board(cmd::board::Command),
    /// Count Q(N) on boards (a simulated one by default): the main job; resumes a campaign.
    #[command(after_help = "Examples:
  queens run 14                                # one simulated board, q14.campaign
  queens run 27 --link serial:/dev/ttyUSB0 --link serial:/dev/ttyUSB1 --solvers 360
  queens run 27 --campaign 'postgres://lab1@db.lab/queens?sslmode=verify-full' --link serial:/dev/ttyUSB0
  queens run 10 --campaign postgres://queens@db.lab/scratch --accept-unconfirmed   # one role on purpose
Exit status: 0 done; 1 an error; 2 a command line refused; 3 a shared campaign finished
whose total no host of another database role can confirm (its hosts share one role:
docs/sharing.md), unless --accept-unconfirmed; 130 stopped by Ctrl-C or SIGTERM.")]
    Run(cmd::run::Args),
    /// Campaigns, in a file or shared in PostgreSQL: statistics, verification, plots, moves.
    #[command(
        subcommand,
        after_help = "Examples:
  queens db stats q14.campaign                 # progress, per class and per session
  queens db verify q14.campaign --sample 100   # recompute 100 solved entries"
    )]
    Db(Box<cmd::db::Command>),
    /// Serve a campaign's status page: progress and the expected end, throughput per host and
    /// board, quiet boards, cross-checks, the total (read-only; 127.0.0.1 unless told).
    #[command(after_help = "Examples:
  queens serve q27.campaign                    # http://127.0.0.1:8027/
  queens serve postgres://lab1@db.lab/queens --listen 0.0.0.0:8027 --token SECRET")]
    Serve(cmd::serve::ServeArgs),
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        // Colour codes only on a terminal: a log file or a pipe gets plain text.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cli = Cli::parse();
    std::thread::Builder::new()
        .name("queens".into())
        .stack_size(cmd::CIRCUIT_STACK)
        .spawn(move || match cli.command {
            Command::Count(a) => cmd::count::run(a),
            Command::Subproblems(a) => cmd::subproblems::run(a),
            Command::Sim(c) => cmd::sim::run(c),
            Command::Hdl(c) => cmd::hdl::run(c),
            Command::Board(c) => cmd::board::run(c),
            Command::Run(a) => cmd::run::run_cmd(a),
            Command::Db(c) => cmd::db::run(*c),
            Command::Serve(a) => cmd::serve::serve(a),
        })?
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
