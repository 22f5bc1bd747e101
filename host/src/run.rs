//! `queens run`: the dispatcher driven by real links. One reader and one writer thread per
//! link turn its byte streams into messages; this loop owns the dispatcher and the store,
//! so every decision happens in one place and in order. Links that fail are reopened every
//! few seconds (a pulled cable, a rebooted board) while the others keep working.

use crate::dispatch::{Counters, DispatchError, Dispatcher, LinkState, Timeouts, Trust};
use crate::link::{LinkError, LinkSpec, SimSettings};
use crate::store::history::{self, Event};
use crate::store::{CrossChecks, Store, StoreError, Summary};
use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct RunConfig {
    pub links: Vec<LinkSpec>,
    /// Units per board when the link does not say.
    pub units: usize,
    /// Subproblems a link holds beyond its units (the board's word queue).
    pub margin: usize,
    pub timeouts: Timeouts,
    /// Which results are recomputed by a second source.
    pub trust: Trust,
    /// The in-process simulated board of `sim` links.
    pub sim: SimSettings,
    /// How often results are made durable.
    pub sync_every: Duration,
    /// A board that has said nothing this long while holding work is worth a warning (at
    /// least the time the slowest of its first subproblems may take at this N).
    pub silence: Duration,
    /// Set (by Ctrl-C or SIGTERM) to end the run: results in hand are kept, work in flight
    /// goes back to the pool, and the report says so.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// What a run shows while it goes (the binary draws bars from it; nothing by default).
pub trait Progress {
    /// The links are open: their labels, and the campaign as it stood before this run.
    fn start(&mut self, _labels: &[String], _before: &Summary) {}
    /// The first subproblems are on their way.
    fn sent(&mut self) {}
    /// A sample, ten times a second at most: the campaign now and the dispatcher's links.
    fn update(&mut self, _campaign: &Summary, _links: &[LinkState]) {}
    /// How the store keeps up, with each sample.
    fn store(&mut self, _health: &crate::store::StoreHealth) {}
    /// The run is over: whatever is shown goes away.
    fn finish(&mut self) {}
}

/// Shows nothing.
pub struct Quiet;

impl Progress for Quiet {}

#[derive(Debug, Clone, serde::Serialize)]
pub struct LinkReport {
    pub link: String,
    pub solver: u16,
    pub cycles: Option<bool>,
    /// The units its board is built of, as it said (plain when it said nothing).
    pub unit_kind: queens_core::UnitKind,
    /// Why the link was given up (quarantined, or not speaking the protocol), if it was.
    pub dropped: Option<String>,
    #[serde(flatten)]
    pub counters: Counters,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct RunReport {
    pub n: u32,
    /// Q(N) when every subproblem is solved; the running total otherwise.
    pub total: u128,
    pub complete: bool,
    pub subproblems: u64,
    pub solved_before: u64,
    #[serde(flatten)]
    pub counters: Counters,
    pub unsettled: u64,
    /// Results a shared store found solved by another host already (compared, not counted).
    pub cross_checked: CrossChecks,
    pub seconds: f64,
    pub links: Vec<LinkReport>,
    /// Stopped by Ctrl-C or SIGTERM before the campaign was done.
    pub interrupted: bool,
    /// Subproblems on the boards when the run stopped: unsolved in the campaign, handed out
    /// again by the next run.
    pub in_flight: u64,
    /// Entries whose counts were trusted from the campaign file's summary and not yet read
    /// again when the run ended: the total is not final until they are.
    pub unchecked: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Link(#[from] LinkError),
    #[error(transparent)]
    Dispatch(#[from] DispatchError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("no link is left to finish N = {n}: {why}; {solved} of {subproblems} subproblems are solved, none of them by a quarantined board, and the campaign resumes where it stopped{untrusted}")]
    NoLinks {
        n: u32,
        why: String,
        solved: u64,
        subproblems: u64,
        untrusted: &'static str,
    },
}

enum Msg {
    Bytes(usize, u64, Vec<u8>),
    Down(usize, u64, String),
    /// Software's count of a subproblem (by wire word).
    Software(u64, u64),
}

/// The runner's end of a link: the connection open now (its generation and its writer
/// thread's channel), and when to open it again.
struct Connector {
    spec: LinkSpec,
    gen: u64,
    tx: Option<mpsc::Sender<Vec<u8>>>,
    retry_at: Option<Instant>,
    /// When the connection opened, until the board is heard (then None).
    silent_since: Option<Instant>,
}

impl Connector {
    /// The connection failed (read or write side): its work goes to the other links and the
    /// link is reopened in 2 s. Later messages of the dead connection are ignored.
    fn down<S: Store>(&mut self, l: usize, d: &mut Dispatcher<S>, why: &str) {
        tracing::warn!(link = %self.spec, "link down: {why}; its subproblems go to the others");
        self.tx = None;
        self.retry_at = Some(Instant::now() + Duration::from_secs(2));
        d.link_down(l);
    }
}

/// Out of work, a session asks a shared store for more this soon at first (other hosts'
/// last checks come within a commit or two), then less often, up to `POLL_MAX`.
const POLL_MIN: Duration = Duration::from_millis(100);
const POLL_MAX: Duration = Duration::from_millis(500);

fn connect(
    spec: &LinkSpec,
    sim: &SimSettings,
    l: usize,
    gen: u64,
    events: &mpsc::Sender<Msg>,
) -> Result<mpsc::Sender<Vec<u8>>, LinkError> {
    let conn = spec.open(sim)?;
    let (mut reader, mut writer) = (conn.reader, conn.writer);
    let ev = events.clone();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => break ev.send(Msg::Down(l, gen, "the board closed the link".into())),
                Ok(n) => {
                    if ev.send(Msg::Bytes(l, gen, buf[..n].to_vec())).is_err() {
                        break Ok(());
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break ev.send(Msg::Down(l, gen, e.to_string())),
            }
        }
    });
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let ev = events.clone();
    std::thread::spawn(move || {
        for bytes in rx {
            if let Err(e) = writer.write_all(&bytes).and_then(|_| writer.flush()) {
                let _ = ev.send(Msg::Down(l, gen, e.to_string()));
                return;
            }
        }
    });
    Ok(tx)
}

/// The software recomputations the dispatcher asks for, on a thread of their own (one core
/// at most, so a host never starves its links); answers come back as messages.
fn checker(events: &mpsc::Sender<Msg>) -> mpsc::Sender<(u64, queens_core::Preplacement)> {
    let (tx, rx) = mpsc::channel::<(u64, queens_core::Preplacement)>();
    let ev = events.clone();
    std::thread::Builder::new()
        .name("software-check".into())
        .spawn(move || {
            for (wire, pre) in rx {
                if ev
                    .send(Msg::Software(wire, queens_core::completions(&pre)))
                    .is_err()
                {
                    return;
                }
            }
        })
        .expect("a thread for software checks");
    tx
}

/// A progress sample: what this session solved on top of `base`, where the campaign stood
/// at its start (a shared campaign's other hosts record their own).
fn record_progress<S: Store>(d: &mut Dispatcher<S>, base: u64) {
    let solved = base + d.totals().solved;
    let boards = d
        .links()
        .iter()
        .map(|l| history::BoardSample {
            solver: l.solver,
            solved: l.counters.solved,
        })
        .collect();
    d.store_mut().record(&Event::Progress {
        t: history::now(),
        solved,
        boards,
    });
}

/// Runs the campaign in `store` on the links of `cfg` until every subproblem is solved,
/// telling `progress` how it goes.
pub fn run<S: Store>(store: S, cfg: &RunConfig, progress: &mut dyn Progress) -> Result<RunReport, RunError> {
    let start = Instant::now();
    let size = store.size();
    let before = store.summary();
    let mut d = Dispatcher::new(store, cfg.timeouts).with_trust(cfg.trust, None);
    d.store_mut().record(&Event::Session {
        t: history::now(),
        n: size.n(),
        links: cfg.links.iter().map(|l| l.to_string()).collect(),
    });
    let base = before.solved.subproblems();
    record_progress(&mut d, base);
    let (ev_tx, ev_rx) = mpsc::channel();
    let software = checker(&ev_tx);
    let mut connectors = Vec::new();
    for spec in &cfg.links {
        let units = spec.units().unwrap_or(cfg.units);
        let l = d.add_link(&spec.to_string(), units + cfg.margin, cfg.margin)?;
        // A link that cannot be opened at the start is a mistake to report, not to retry.
        let tx = connect(spec, &cfg.sim, l, 0, &ev_tx)?;
        d.link_up(l);
        connectors.push(Connector {
            spec: spec.clone(),
            gen: 0,
            tx: Some(tx),
            retry_at: None,
            silent_since: Some(Instant::now()),
        });
    }
    let labels: Vec<String> = cfg.links.iter().map(|l| l.to_string()).collect();
    progress.start(&labels, &before);
    // When this session runs out of work, when to ask a shared store for more.
    let mut next_poll = Instant::now();
    let mut poll = POLL_MIN;
    let mut last_sync = Instant::now();
    let mut last_history = Instant::now();
    let mut last_sample = Instant::now() - Duration::from_secs(1);
    let mut sent = false;
    let mut interrupted = false;
    let fatal = loop {
        let now = Instant::now();
        if cfg
            .stop
            .as_ref()
            .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
        {
            interrupted = true;
            break None;
        }
        d.expire(now);
        for (wire, pre) in d.take_software() {
            software
                .send((wire, pre))
                .expect("the checker thread lives as long as the run");
        }
        for l in d.take_dropped() {
            let c = &mut connectors[l];
            let why = d.links()[l].dropped.clone().unwrap_or_default();
            tracing::error!(link = %c.spec, "link dropped for the rest of this run: {why}");
            c.tx = None;
            c.retry_at = None;
        }
        if d.all_dropped() {
            let why = d
                .links()
                .iter()
                .map(|l| format!("{} {}", l.label, l.dropped.as_deref().unwrap_or("")))
                .collect::<Vec<_>>()
                .join("; ");
            d.store_mut().sync()?;
            let s = d.store().summary();
            let quarantined = d.links().iter().any(|l| l.quarantined);
            break Some(RunError::NoLinks {
                n: size.n(),
                why,
                solved: s.solved.subproblems(),
                subproblems: s.subproblems,
                untrusted: if quarantined {
                    "; a board was caught giving wrong counts: do not trust a total without an independent recount (`queens db verify`)"
                } else {
                    ""
                },
            });
        }
        for (l, c) in connectors.iter_mut().enumerate() {
            if let Some(tx) = &c.tx {
                let out = d.fill(l, now)?;
                if !out.is_empty() && !sent {
                    sent = true;
                    progress.sent();
                }
                if !out.is_empty() && tx.send(out).is_err() {
                    c.down(l, &mut d, "its writer stopped");
                }
            } else if c.retry_at.is_some_and(|t| now >= t) {
                c.gen += 1;
                match connect(&c.spec, &cfg.sim, l, c.gen, &ev_tx) {
                    Ok(tx) => {
                        tracing::warn!(link = %c.spec, "link reopened");
                        c.tx = Some(tx);
                        c.retry_at = None;
                        c.silent_since = Some(now);
                        d.link_up(l);
                    }
                    Err(e) => {
                        tracing::info!("{e}; trying again");
                        c.retry_at = Some(now + Duration::from_secs(2));
                    }
                }
            }
        }
        for (l, c) in connectors.iter_mut().enumerate() {
            let link = &d.links()[l];
            if link.with_cycles().is_some() {
                c.silent_since = None;
            } else if c.silent_since.is_some_and(|t| now - t > cfg.silence) && link.in_flight > 0 {
                tracing::warn!(
                    link = %c.spec,
                    "no result frame in {} s, longer than the slowest of the first subproblems should take at N = {}: is the board programmed for N = {}, and on this port at this rate?",
                    cfg.silence.as_secs(),
                    size.n(),
                    size.n()
                );
                c.silent_since = None;
            }
        }
        if !d.finished() {
            // Working: once out of work, everything is committed at once.
            next_poll = now;
            poll = POLL_MIN;
        } else if now >= next_poll {
            // Out of work: done unless other hosts' leases may still come free, or their
            // counts wait to be checked.
            d.store_mut().sync()?;
            last_sync = now;
            if !d.store_mut().more_later()? {
                break None;
            }
            d.rewind();
            next_poll = now + poll;
            poll = (poll * 2).min(POLL_MAX);
        }
        if now - last_sync >= cfg.sync_every {
            // The run goes on while a shared store commits.
            d.store_mut().sync_soon()?;
            last_sync = now;
        }
        if now - last_history >= Duration::from_secs(10) {
            record_progress(&mut d, base);
            last_history = now;
        }
        if now - last_sample >= Duration::from_millis(100) {
            last_sample = now;
            progress.update(&d.store().summary(), d.links());
            progress.store(&d.store().health());
        }
        // Wait for bytes, the next deadline, or a tick for the progress and reconnections.
        let mut wait = Duration::from_millis(100);
        if let Some(t) = d.next_deadline() {
            wait = wait.min(t.saturating_duration_since(now));
        }
        let first = match ev_rx.recv_timeout(wait) {
            Ok(m) => Some(m),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => unreachable!("this loop holds a sender"),
        };
        let mut err = None;
        for m in first
            .into_iter()
            .chain(std::iter::from_fn(|| ev_rx.try_recv().ok()).take(256))
        {
            match m {
                Msg::Bytes(l, gen, bytes) if gen == connectors[l].gen => {
                    if let Err(e) = d.feed(l, &bytes, Instant::now()) {
                        err = Some(e.into());
                        break;
                    }
                }
                Msg::Down(l, gen, why) if gen == connectors[l].gen && connectors[l].tx.is_some() => {
                    connectors[l].down(l, &mut d, &why);
                }
                Msg::Software(wire, count) => {
                    if let Err(e) = d.software(wire, count) {
                        err = Some(e.into());
                        break;
                    }
                }
                _ => {} // from a connection already replaced
            }
        }
        if let Some(e) = err {
            break Some(e);
        }
    };
    let in_flight = d.links().iter().map(|l| l.in_flight as u64).sum();
    // A complete campaign's total is final only once every count in it has been read from
    // the campaign this session (a file's background check): wait for that.
    let settled = if fatal.is_none() && !interrupted && d.store().summary().complete() {
        d.store_mut().settle()
    } else {
        Ok(())
    };
    let fatal = fatal.or(settled.err().map(RunError::from));
    // The summary is current: the loop ends after a sync, or on a fatal error (when the
    // Finished event is not recorded anyway).
    let summary = d.store().summary();
    record_progress(&mut d, base);
    if fatal.is_none() && summary.final_total() {
        d.store_mut().record(&Event::Finished {
            t: history::now(),
            total: summary.solved.total().to_string(),
        });
    }
    // Results counted so far are kept whatever happens next; a shared store writes its
    // history with them.
    let synced = d.store_mut().sync();
    // The last sample: what the report says.
    progress.update(&d.store().summary(), d.links());
    progress.store(&d.store().health());
    progress.finish();
    if let Some(e) = fatal {
        return Err(e);
    }
    synced?;
    let links = d
        .links()
        .iter()
        .map(|l| LinkReport {
            link: l.label.clone(),
            solver: l.solver,
            cycles: l.with_cycles(),
            unit_kind: l.unit,
            dropped: l.dropped.clone(),
            counters: l.counters,
        })
        .collect();
    Ok(RunReport {
        n: size.n(),
        total: summary.solved.total(),
        complete: summary.complete(),
        subproblems: summary.subproblems,
        solved_before: before.solved.subproblems(),
        counters: d.totals(),
        unsettled: d.unsettled,
        cross_checked: d.store_mut().cross_checks(),
        seconds: start.elapsed().as_secs_f64(),
        links,
        interrupted,
        in_flight: if interrupted { in_flight } else { 0 },
        unchecked: summary.unchecked,
    })
}
