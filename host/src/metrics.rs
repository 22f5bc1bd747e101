//! Prometheus metrics of a run (`queens run --metrics ADDR`): what it solved, sent again and
//! rejected, what is on the boards, each board's rate and last result, how far the store's
//! commits lag and the leases it holds, served at `http://ADDR/metrics` in the text
//! exposition format (prometheus-client's encoder; tiny_http serves it).
//!
//! [`Metered`] is a [`Progress`] that feeds the metrics from the samples a run gives its
//! display, and passes them on: the run itself knows nothing of them.

use crate::dispatch::LinkState;
use crate::run::Progress;
use crate::store::{StoreHealth, Summary};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("--metrics {addr}: cannot serve metrics there: {why} (expected HOST:PORT, e.g. 127.0.0.1:9127, a port no other program uses)")]
    Bind { addr: String, why: String },
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Board {
    link: String,
    /// The solver id the campaign records the board's counts under.
    solver: String,
}

type FloatGauge = Gauge<f64, AtomicU64>;

/// The metrics of one run.
pub struct Metrics {
    registry: Registry,
    solved: Counter,
    resent: Counter,
    rejected: Counter,
    withdrawn: Counter,
    in_flight: Gauge,
    campaign_subproblems: Gauge,
    campaign_solved: Gauge,
    last_result: FloatGauge,
    board_solved: Family<Board, Counter>,
    board_rate: Family<Board, FloatGauge>,
    board_last_result: Family<Board, FloatGauge>,
    board_up: Family<Board, Gauge>,
    board_quarantined: Family<Board, Gauge>,
    uncommitted: Gauge,
    commit_lag: FloatGauge,
    leases: Gauge,
    lease_seconds: FloatGauge,
    store_online: Gauge,
    disputes: Counter,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut r = Registry::with_prefix("queens");
        let m = Metrics {
            solved: Counter::default(),
            resent: Counter::default(),
            rejected: Counter::default(),
            withdrawn: Counter::default(),
            in_flight: Gauge::default(),
            campaign_subproblems: Gauge::default(),
            campaign_solved: Gauge::default(),
            last_result: FloatGauge::default(),
            board_solved: Family::default(),
            board_rate: Family::default(),
            board_last_result: Family::default(),
            board_up: Family::default(),
            board_quarantined: Family::default(),
            uncommitted: Gauge::default(),
            commit_lag: FloatGauge::default(),
            leases: Gauge::default(),
            lease_seconds: FloatGauge::default(),
            store_online: Gauge::default(),
            disputes: Counter::default(),
            registry: Registry::default(),
        };
        r.register("solved", "Subproblems solved in this run", m.solved.clone());
        r.register(
            "resent",
            "Subproblems sent again (a lost or late answer)",
            m.resent.clone(),
        );
        r.register(
            "rejected_frames",
            "Result frames that failed a check",
            m.rejected.clone(),
        );
        r.register(
            "withdrawn",
            "Counts withdrawn from quarantined boards",
            m.withdrawn.clone(),
        );
        r.register("in_flight", "Subproblems on the boards now", m.in_flight.clone());
        r.register(
            "campaign_subproblems",
            "Subproblems in the campaign",
            m.campaign_subproblems.clone(),
        );
        r.register(
            "campaign_solved",
            "Subproblems of the campaign solved, by every host",
            m.campaign_solved.clone(),
        );
        r.register(
            "last_result_timestamp_seconds",
            "When this host last took a result (Unix time; 0: none yet)",
            m.last_result.clone(),
        );
        r.register(
            "board_solved",
            "Subproblems a board solved in this run",
            m.board_solved.clone(),
        );
        r.register(
            "board_rate",
            "Subproblems a board solved per second over the last minute",
            m.board_rate.clone(),
        );
        r.register(
            "board_last_result_timestamp_seconds",
            "When a board last answered (Unix time; 0: not yet)",
            m.board_last_result.clone(),
        );
        r.register("board_up", "1 while a board's link is open", m.board_up.clone());
        r.register(
            "board_quarantined",
            "1 once a board was caught giving a wrong count",
            m.board_quarantined.clone(),
        );
        r.register(
            "store_uncommitted_results",
            "Results this host holds that its store has not yet made durable",
            m.uncommitted.clone(),
        );
        r.register(
            "store_commit_lag_seconds",
            "Seconds since the store last made results durable while some wait (0: none wait)",
            m.commit_lag.clone(),
        );
        r.register(
            "store_leases",
            "Blocks of a shared campaign this host leases",
            m.leases.clone(),
        );
        r.register(
            "store_lease_seconds",
            "Seconds a lease lasts without renewal (a shared campaign)",
            m.lease_seconds.clone(),
        );
        r.register(
            "store_online",
            "1 while the store answers (a shared campaign's database reachable)",
            m.store_online.clone(),
        );
        r.register(
            "disputes",
            "Results whose count differs from another host's for the same entry",
            m.disputes.clone(),
        );
        Metrics { registry: r, ..m }
    }

    /// The exposition text.
    pub fn encode(&self) -> String {
        let mut s = String::new();
        prometheus_client::encoding::text::encode(&mut s, &self.registry)
            .expect("writing to a String does not fail");
        s
    }
}

/// Unix time now, in seconds.
fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Raises a counter to `to` (counters only go up; a lower value is ignored).
fn raise(c: &Counter, to: u64) {
    let now = c.get();
    if to > now {
        c.inc_by(to - now);
    }
}

/// A run's progress that also feeds [`Metrics`], then passes each sample on to `inner`.
pub struct Metered {
    inner: Box<dyn Progress>,
    m: Arc<Metrics>,
    /// Per board: its solved count over the last minute, for its rate.
    history: HashMap<usize, VecDeque<(Instant, u64)>>,
    /// When the store last had nothing waiting, or made some of it durable.
    committed_at: Instant,
    waiting: u64,
}

/// The span a board's rate is taken over.
const RATE_SPAN: Duration = Duration::from_secs(60);

impl Metered {
    pub fn new(inner: Box<dyn Progress>, m: Arc<Metrics>) -> Self {
        Metered {
            inner,
            m,
            history: HashMap::new(),
            committed_at: Instant::now(),
            waiting: 0,
        }
    }
}

impl Progress for Metered {
    fn start(&mut self, labels: &[String], before: &Summary) {
        self.inner.start(labels, before);
    }

    fn sent(&mut self) {
        self.inner.sent();
    }

    fn update(&mut self, campaign: &Summary, links: &[LinkState]) {
        let m = &self.m;
        let now = Instant::now();
        m.campaign_subproblems.set(campaign.subproblems as i64);
        m.campaign_solved.set(campaign.solved.subproblems() as i64);
        let sum = |f: fn(&LinkState) -> u64| links.iter().map(f).sum::<u64>();
        raise(&m.solved, sum(|l| l.counters.solved));
        raise(&m.resent, sum(|l| l.counters.reissued));
        raise(&m.rejected, sum(|l| l.counters.rejected_frames));
        raise(&m.withdrawn, sum(|l| l.counters.withdrawn));
        m.in_flight.set(sum(|l| l.in_flight as u64) as i64);
        for (i, l) in links.iter().enumerate() {
            let board = Board {
                link: l.label.clone(),
                solver: l.solver.to_string(),
            };
            let solved = l.counters.solved;
            let h = self.history.entry(i).or_default();
            if h.back().is_some_and(|&(_, s)| s < solved) || (h.is_empty() && solved > 0) {
                let t = unix_now();
                m.board_last_result.get_or_create(&board).set(t);
                m.last_result.set(t);
            }
            h.push_back((now, solved));
            while h.len() > 2 && now - h[1].0 >= RATE_SPAN {
                h.pop_front();
            }
            let (t0, s0) = h[0];
            let dt = (now - t0).as_secs_f64();
            let rate = if dt > 0.0 {
                solved.saturating_sub(s0) as f64 / dt
            } else {
                0.0
            };
            m.board_rate.get_or_create(&board).set(rate);
            raise(&m.board_solved.get_or_create(&board), solved);
            m.board_up.get_or_create(&board).set(i64::from(l.up));
            m.board_quarantined
                .get_or_create(&board)
                .set(i64::from(l.quarantined));
        }
        self.inner.update(campaign, links);
    }

    fn store(&mut self, h: &StoreHealth) {
        let m = &self.m;
        if h.uncommitted == 0 || h.uncommitted < self.waiting {
            self.committed_at = Instant::now();
        }
        self.waiting = h.uncommitted;
        m.uncommitted.set(h.uncommitted as i64);
        m.commit_lag.set(if h.uncommitted == 0 {
            0.0
        } else {
            self.committed_at.elapsed().as_secs_f64()
        });
        m.leases.set(h.leases as i64);
        m.lease_seconds.set(h.lease.map_or(0.0, |d| d.as_secs_f64()));
        m.store_online.set(i64::from(h.online));
        raise(&m.disputes, h.disputed);
        self.inner.store(h);
    }

    fn finish(&mut self) {
        self.inner.finish();
    }
}

/// The metrics served over HTTP on a thread of their own, as long as this lives.
pub struct Server {
    server: Arc<tiny_http::Server>,
    pub addr: std::net::SocketAddr,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Serves `metrics` at `http://ADDR/metrics` (port 0: any free one; see `addr`).
    pub fn start(addr: &str, metrics: Arc<Metrics>) -> Result<Self, MetricsError> {
        let bind = |why: String| MetricsError::Bind {
            addr: addr.into(),
            why,
        };
        let server = tiny_http::Server::http(addr).map_err(|e| bind(e.to_string()))?;
        let local = server
            .server_addr()
            .to_ip()
            .ok_or_else(|| bind("not an IP address".into()))?;
        let server = Arc::new(server);
        let s = server.clone();
        let thread = std::thread::Builder::new()
            .name("metrics".into())
            .spawn(move || {
                for req in s.incoming_requests() {
                    let path = req.url().split('?').next().unwrap_or("");
                    let resp = if path == "/metrics" {
                        let header = tiny_http::Header::from_bytes(
                            "Content-Type",
                            "application/openmetrics-text; version=1.0.0; charset=utf-8",
                        )
                        .expect("a valid header");
                        tiny_http::Response::from_string(metrics.encode()).with_header(header)
                    } else {
                        tiny_http::Response::from_string("queens: metrics at /metrics\n")
                            .with_status_code(404)
                    };
                    let _ = req.respond(resp);
                }
            })
            .map_err(|e| bind(e.to_string()))?;
        Ok(Server {
            server,
            addr: local,
            thread: Some(thread),
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
