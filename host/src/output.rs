//! Standard output and error as a command line tool writes them: `println!` and friends in
//! this binary come here (see the macros in `main.rs`) instead of std's, which panic when
//! the stream is gone.
//!
//! A closed standard output (`queens db stats F | head -1`) ends the process the way it ends
//! any Unix filter: quietly, by SIGPIPE. Only standard output does so; SIGPIPE stays ignored
//! for everything else the process writes (the pipes and FIFOs of links and simulators,
//! which report a closed peer as an error). Any other failure to write standard output (a
//! full disk) is reported once and ends the process with status 1. A closed standard error
//! is ignored: there is nowhere left to report anything.

use std::io::Write;

/// Writes to standard output, and a newline when `newline`.
pub fn out(args: std::fmt::Arguments, newline: bool) {
    let mut o = std::io::stdout().lock();
    let r = o
        .write_fmt(args)
        .and_then(|_| if newline { o.write_all(b"\n") } else { Ok(()) });
    if let Err(e) = r {
        drop(o);
        gone(e);
    }
}

/// Writes to standard error; a failure is ignored.
pub fn err(args: std::fmt::Arguments, newline: bool) {
    let mut e = std::io::stderr().lock();
    let _ = e
        .write_fmt(args)
        .and_then(|_| if newline { e.write_all(b"\n") } else { Ok(()) });
}

/// Standard output failed: end as a filter ends.
fn gone(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        broken_pipe()
    }
    err(format_args!("Error: writing to standard output: {e}"), true);
    std::process::exit(1)
}

/// The reader of standard output has gone: the process ends by SIGPIPE, as `cat` or `grep`
/// do (a shell says nothing; its pipeline status is 141).
pub fn broken_pipe() -> ! {
    // The default action of SIGPIPE restored and the signal raised (Rust ignores it); where
    // that cannot end the process, it aborts.
    let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGPIPE);
    // Not reached where SIGPIPE is known; the shell's status for it otherwise.
    std::process::exit(128 + signal_hook::consts::SIGPIPE)
}
