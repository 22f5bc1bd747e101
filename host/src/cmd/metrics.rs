//! `queens run --metrics ADDR`: the run's Prometheus metrics served while it runs, and for
//! `--metrics-linger` seconds after it ends.

use queens_host::metrics::{Metered, Metrics, Server};
use queens_host::run::Progress;
use std::sync::Arc;
use std::time::Duration;

/// The metrics of a run, served when `--metrics` asked for them; kept up for the linger
/// time when dropped.
pub struct Exposed {
    served: Option<(Server, Arc<Metrics>)>,
    linger: Duration,
}

impl Exposed {
    /// Serves the metrics at `addr`, when given, and says where (on standard error, also
    /// with `--json`: a scraper is pointed at it).
    pub fn start(addr: Option<&str>, linger: f64) -> anyhow::Result<Self> {
        let served = match addr {
            Some(addr) => {
                let m = Arc::new(Metrics::new());
                let s = Server::start(addr, m.clone())?;
                eprintln!("serving metrics at http://{}/metrics", s.addr);
                Some((s, m))
            }
            None => None,
        };
        Ok(Exposed {
            served,
            linger: Duration::from_secs_f64(linger),
        })
    }

    /// The run's progress, feeding the metrics too when they are served.
    pub fn wrap(&self, p: Box<dyn Progress>) -> Box<dyn Progress> {
        match &self.served {
            Some((_, m)) => Box::new(Metered::new(p, m.clone())),
            None => p,
        }
    }
}

impl Drop for Exposed {
    fn drop(&mut self) {
        if self.served.is_some() && !self.linger.is_zero() {
            std::thread::sleep(self.linger);
        }
    }
}

/// `--metrics-linger`: 0 to an hour.
pub fn parse_linger(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if (0.0..=3600.0).contains(&x) => Ok(x),
        _ => Err("expected seconds, 0 to 3600".into()),
    }
}
