//! The emitted Verilog compiled with Verilator into a board that speaks the wire protocol on
//! stdin/stdout (`verilator/harness.cpp`). Builds are cached by the hash of their inputs, so
//! a design is compiled once per change.

use crate::model::UnitRun;
use crate::wire::{WireDriver, WireError};
use queens_core::{BoardSize, Subproblem};
use queens_hdl::emit::{
    core_verilog, primitive_sim, result_frame_bytes, stream_top_verilog, uart_top_verilog, CoreConfig,
};
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const HARNESS: &str = include_str!("../verilator/harness.cpp");

#[derive(Debug, thiserror::Error)]
pub enum VerilatorError {
    #[error("verilator is not installed (apt-get install verilator): {0}")]
    NotInstalled(std::io::Error),
    #[error("verilator failed to build {top}:\n{log_tail}")]
    Build { top: String, log_tail: String },
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
    #[error(transparent)]
    Wire(#[from] WireError),
    #[error("the simulated board sent nothing for {0:?}")]
    Timeout(Duration),
    #[error("the simulated board exited with {status}: {stderr}")]
    Exit {
        status: std::process::ExitStatus,
        stderr: String,
    },
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> VerilatorError {
    let what = what.into();
    move |source| VerilatorError::Io { what, source }
}

/// Which of the emitted designs runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Top {
    /// The core: bytes straight into its receive stream and out of its transmit stream.
    Core,
    /// The core behind its UART; the harness drives the pins at `cycles_per_sample` × 8
    /// clock cycles per bit.
    Uart { cycles_per_sample: u32 },
    /// The core behind its AXI4-Stream adapters (the PCIe top's core); the harness plays
    /// XDMA: beats of 1 to 16 bytes with gaps, a card-to-host ready that comes and goes, and
    /// a check that TLAST ends every result frame.
    Stream,
}

/// A compiled design.
#[derive(Clone)]
pub struct Verilated {
    exe: PathBuf,
    pub cfg: CoreConfig,
}

impl Verilated {
    /// Emits the design and compiles it, or finds the same build in the cache.
    pub fn build(cfg: CoreConfig, top: Top, trace: bool) -> Result<Self, VerilatorError> {
        let (name, verilog, defines) = match top {
            Top::Core => ("queens_core", core_verilog(&cfg, "queens_core"), vec![]),
            Top::Uart { cycles_per_sample } => (
                "queens_top",
                core_verilog(&cfg, "queens_core")
                    + &uart_top_verilog(cycles_per_sample, "queens_top", "queens_core"),
                vec![
                    "-DUART_TOP".to_string(),
                    format!("-DCYCLES_PER_BIT={}", 8 * cycles_per_sample),
                ],
            ),
            Top::Stream => (
                "queens_stream",
                core_verilog(&cfg, "queens_core") + &stream_top_verilog("queens_stream", "queens_core"),
                vec![
                    "-DSTREAM_TOP".to_string(),
                    format!("-DFRAME_BYTES={}", result_frame_bytes(&cfg)),
                    format!("-DIDENT_BYTES={}", queens_core::ident::ANSWER_FRAME),
                ],
            ),
        };
        Self::build_design(cfg, name, verilog, defines, trace)
    }

    /// Compiles a board top's netlist behind its bench (module `bench`, ports clock,
    /// uart_rx and uart_tx; see `crate::netlist`), the harness driving the UART at
    /// `cycles_per_sample` × 8 clock cycles per bit.
    pub fn build_board(
        cfg: CoreConfig,
        bench: &str,
        verilog: String,
        cycles_per_sample: u32,
    ) -> Result<Self, VerilatorError> {
        let defines = vec![
            "-DUART_TOP".to_string(),
            "-DBOARD_TOP".to_string(),
            format!("-DCYCLES_PER_BIT={}", 8 * cycles_per_sample),
        ];
        Self::build_design(cfg, bench, verilog, defines, false)
    }

    /// Compiles a stream top's netlist (module `name`, the ports of the emitted stream top)
    /// with its cell models in `verilog`, the harness playing XDMA's streams on its ports.
    pub fn build_stream_netlist(
        cfg: CoreConfig,
        name: &str,
        verilog: String,
    ) -> Result<Self, VerilatorError> {
        let size = queens_core::BoardSize::new(cfg.n as u32).expect("a checked size");
        // A core of grouped units answers group records, whose length differs from results.
        let frame = cfg.unit.answer_payload_len(size, cfg.with_cycles) + 2;
        let defines = vec![
            "-DSTREAM_TOP".to_string(),
            // The harness ignores it; it asks for a cell library's compile options below.
            "-DNETLIST".to_string(),
            format!("-DFRAME_BYTES={frame}"),
            format!("-DIDENT_BYTES={}", queens_core::ident::ANSWER_FRAME),
        ];
        Self::build_design(cfg, name, verilog, defines, false)
    }

    /// Compiles a given design (for instance an emitted one changed by hand) whose top
    /// module `name` has the ports of the emitted core or UART top.
    pub fn build_design(
        cfg: CoreConfig,
        name: &str,
        mut verilog: String,
        mut defines: Vec<String>,
        trace: bool,
    ) -> Result<Self, VerilatorError> {
        if let (Some(cell), Some(model)) = (cfg.arbiter.primitive(), primitive_sim(cfg.arbiter)) {
            if !verilog.contains(&format!("module {cell}")) {
                verilog += model;
            }
        }
        if trace {
            defines.push("-DTRACE".into());
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (&verilog, HARNESS, &defines, trace).hash(&mut h);
        let root = std::env::var_os("QUEENS_VERILATOR_CACHE")
            .map(PathBuf::from)
            .unwrap_or_else(|| std::env::temp_dir().join("queens-verilator"));
        let dir = root.join(format!("{name}-{:016x}", h.finish()));
        let exe = dir.join("Vtop");
        if exe.exists() {
            return Ok(Self { exe, cfg });
        }
        // Build beside the cache entry and move it in whole, so that concurrent builds of
        // the same design never see a half-written one.
        std::fs::create_dir_all(&root).map_err(io(format!("creating {}", root.display())))?;
        let tmp = fresh_dir(
            &root,
            &format!("build-{}-{:016x}", std::process::id(), h.finish()),
        )
        .map_err(io(format!("creating a build directory in {}", root.display())))?;
        std::fs::write(tmp.join("design.v"), &verilog).map_err(io("writing design.v"))?;
        std::fs::write(tmp.join("harness.cpp"), HARNESS).map_err(io("writing harness.cpp"))?;
        let mut cmd = Command::new("verilator");
        cmd.current_dir(&tmp)
            .args([
                "--cc",
                "--exe",
                "--build",
                "-j",
                "2",
                "--prefix",
                "Vtop",
                "--top-module",
                name,
            ])
            .args([
                "-O3",
                "--x-assign",
                "fast",
                "--x-initial",
                "fast",
                "-Wno-fatal",
                "-Wno-lint",
            ])
            .args(["-Wno-style", "-Wno-UNOPTFLAT", "-Mdir", "obj", "-o", "Vtop"])
            .args(["-CFLAGS", &format!("-O2 {}", defines.join(" "))]);
        if trace {
            cmd.arg("--trace");
        }
        if defines.iter().any(|d| d == "-DBOARD_TOP" || d == "-DNETLIST") {
            // Cell libraries carry specify blocks and delays, which a cycle simulation skips.
            cmd.args(["--no-timing", "-Wno-MULTIDRIVEN"]);
        }
        let out = cmd
            .args(["design.v", "harness.cpp"])
            .output()
            .map_err(VerilatorError::NotInstalled)?;
        if !out.status.success() {
            let _ = std::fs::remove_dir_all(&tmp);
            let log = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = log.lines().rev().take(30).collect();
            return Err(VerilatorError::Build {
                top: name.into(),
                log_tail: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
            });
        }
        std::fs::create_dir_all(&dir).map_err(io(format!("creating {}", dir.display())))?;
        let built = tmp.join("obj").join("Vtop");
        if std::fs::rename(&built, &exe).is_err() && !exe.exists() {
            std::fs::copy(&built, &exe).map_err(io(format!("copying {}", built.display())))?;
        }
        let _ = std::fs::remove_dir_all(&tmp);
        Ok(Self { exe, cfg })
    }

    /// Talks with the board: `talk` is given every byte received so far (none, first) and
    /// answers with the bytes to send next and whether the exchange is over; then the input
    /// ends, and every byte the board sent before it exited comes back with the clock cycles
    /// it ran (a board top's bench exits only once its line has been quiet for a while,
    /// which a long search outlasts, so the input stays open until `talk` is done). A board
    /// that sends nothing for `quiet` is stopped.
    pub fn converse(
        &self,
        quiet: Duration,
        mut talk: impl FnMut(&[u8]) -> (Vec<u8>, bool),
    ) -> Result<(Vec<u8>, u64), VerilatorError> {
        let mut child = self.spawn(None)?;
        let stdin = child.stdin.take().expect("piped");
        let (to_board, writer) = write_on_thread(stdin);
        let stdout = child.stdout.take().expect("piped");
        let (from_board, reader) = read_on_thread(stdout);
        let mut out = Vec::new();
        let mut stopped = None;
        loop {
            let (send, done) = talk(&out);
            if !send.is_empty() {
                let _ = to_board.send(send);
            }
            if done {
                break;
            }
            match from_board.recv_timeout(quiet) {
                Ok(bytes) => out.extend(bytes.map_err(io("reading the board"))?),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    stopped = Some(VerilatorError::Timeout(quiet));
                    break;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        drop(to_board);
        for bytes in from_board.iter() {
            out.extend(bytes.map_err(io("reading the board"))?);
        }
        let _ = reader.join();
        let mut err = String::new();
        let _ = child.stderr.take().expect("piped").read_to_string(&mut err);
        let status = child.wait().map_err(io("waiting for the board"))?;
        let _ = writer.join();
        if let Some(e) = stopped {
            return Err(e);
        }
        match cycles_said(&err) {
            Some(c) if status.success() => Ok((out, c)),
            _ => Err(VerilatorError::Exit { status, stderr: err }),
        }
    }

    /// Starts the board process, stdin and stdout piped.
    pub fn spawn(&self, vcd: Option<&Path>) -> Result<Child, VerilatorError> {
        let mut cmd = Command::new(&self.exe);
        if let Some(v) = vcd {
            cmd.arg("--vcd").arg(v);
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(io(format!("starting {}", self.exe.display())))
    }

    /// Runs subproblems through the board with `window` of them in flight; the results in
    /// order and the clock cycles the board ran.
    pub fn run(
        &self,
        subproblems: &[Subproblem],
        window: usize,
        vcd: Option<&Path>,
        timeout: Duration,
    ) -> Result<(Vec<UnitRun>, u64), VerilatorError> {
        let size = BoardSize::new(self.cfg.n as u32).expect("a built size is valid");
        let mut child = self.spawn(vcd)?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let mut stderr = child.stderr.take().expect("piped");
        let (to_board, writer) = write_on_thread(stdin);
        let (from_board, reader) = read_on_thread(stdout);
        let result = (|| {
            let mut driver = WireDriver::new(size, subproblems, window).expect_ident(self.cfg.ident());
            let mut send = VecDeque::new();
            while !driver.done() {
                driver.frames_to_send(&mut send);
                if !send.is_empty() {
                    let _ = to_board.send(send.drain(..).collect());
                }
                // Once every result is in, the answer is a frame's time away, not a search's.
                let missing = driver.missing_ident();
                let wait = if missing.is_some() {
                    timeout.min(Duration::from_secs(30))
                } else {
                    timeout
                };
                match from_board.recv_timeout(wait) {
                    Ok(Ok(bytes)) => driver.receive(&bytes)?,
                    Ok(Err(e)) => return Err(io("reading the board")(e)),
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        return Err(missing.map_or(VerilatorError::Timeout(timeout), Into::into))
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
            Ok(driver)
        })();
        drop(to_board);
        if result.is_err() {
            let _ = child.kill();
        }
        let status = child.wait().map_err(io("waiting for the board"))?;
        let _ = writer.join();
        let _ = reader.join();
        let mut err = String::new();
        let _ = stderr.read_to_string(&mut err);
        let driver = result?;
        if !status.success() || !driver.done() {
            return Err(VerilatorError::Exit { status, stderr: err });
        }
        let cycles = cycles_said(&err).ok_or_else(|| VerilatorError::Exit {
            status,
            stderr: err.clone(),
        })?;
        Ok((driver.into_runs(), cycles))
    }
}

/// A new directory `<root>/<stem>-<random>`, made exclusively: one that exists already is
/// never taken over (nor removed afterwards).
/// Writes each chunk sent on the channel to the board's stdin, on a thread of its own, until
/// the channel closes (then stdin closes: the end of input) or the board stops reading.
fn write_on_thread(
    mut stdin: std::process::ChildStdin,
) -> (mpsc::Sender<Vec<u8>>, std::thread::JoinHandle<()>) {
    let (to_board, chunks) = mpsc::channel::<Vec<u8>>();
    let writer = std::thread::spawn(move || {
        for chunk in chunks {
            if stdin.write_all(&chunk).and_then(|_| stdin.flush()).is_err() {
                break;
            }
        }
    });
    (to_board, writer)
}

/// What the board sent, chunk by chunk (see [`read_on_thread`]).
type FromBoard = mpsc::Receiver<std::io::Result<Vec<u8>>>;

/// Reads the board's stdout on a thread of its own and hands over what arrives, chunk by
/// chunk, until its end or an error (sent last).
fn read_on_thread(mut stdout: std::process::ChildStdout) -> (FromBoard, std::thread::JoinHandle<()>) {
    let (tx, from_board) = mpsc::channel();
    let reader = std::thread::spawn(move || loop {
        let mut buf = vec![0u8; 65536];
        match stdout.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                buf.truncate(n);
                if tx.send(Ok(buf)).is_err() {
                    break;
                }
            }
            Err(e) => {
                let _ = tx.send(Err(e));
                break;
            }
        }
    });
    (from_board, reader)
}

/// The clock cycles the harness reports on stderr at its end.
fn cycles_said(stderr: &str) -> Option<u64> {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("cycles ")?.trim().parse().ok())
}

fn fresh_dir(root: &Path, stem: &str) -> std::io::Result<PathBuf> {
    loop {
        let d = root.join(format!("{stem}-{:08x}", fastrand::u32(..)));
        match std::fs::create_dir(&d) {
            Ok(()) => return Ok(d),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}
