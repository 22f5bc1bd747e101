//! Where a shared campaign stands, for `queens db stats`: its totals, the history of every
//! host process, its solver ids, the live leases and the recorded disputes.

use super::db_err;
use super::rows::{read_solvers, read_summary};
use crate::store::history::Event;
use crate::store::pg_conn::Target;
use crate::store::{StoreError, Summary};
use queens_core::entry::Solution;
use queens_core::BoardSize;

pub struct Status {
    pub summary: Summary,
    /// The history, by the host process that recorded it.
    pub histories: Vec<HostHistory>,
    pub solvers: Vec<(u16, String)>,
    /// Live leases, per holder.
    pub leases: Vec<Lease>,
    /// Recorded disputes, oldest first.
    pub disputes: Vec<Dispute>,
}

/// The history events one host process recorded, in order.
pub struct HostHistory {
    /// The host process ("host pid N.K").
    pub host: String,
    pub events: Vec<Event>,
}

/// The live leases of one host process.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Lease {
    pub holder: String,
    pub blocks: u64,
    /// Seconds until the first of them expires.
    pub expires_in: f64,
}

/// Two results for one entry that differ: the count kept (stored first) and the other.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Dispute {
    pub entry: u64,
    pub kept: u64,
    pub kept_solver: u16,
    pub other: u64,
    pub other_solver: u16,
    /// The host process that returned the other result.
    pub host: String,
}

pub fn status(client: &mut postgres::Client, target: &Target, size: BoardSize) -> Result<Status, StoreError> {
    let n = size.n() as i32;
    let summary = read_summary(client, target, n)?;
    let e = db_err;
    let mut histories: Vec<HostHistory> = Vec::new();
    let rows = client
        .query(
            "SELECT host, event::text FROM queens_event WHERE n = $1 ORDER BY host, t",
            &[&n],
        )
        .map_err(e(target, "reading the history"))?;
    for r in &rows {
        let Ok(event) = serde_json::from_str(r.get::<_, &str>(1)) else {
            continue;
        };
        let host: String = r.get(0);
        match histories.last_mut() {
            Some(h) if h.host == host => h.events.push(event),
            _ => histories.push(HostHistory {
                host,
                events: vec![event],
            }),
        }
    }
    let solvers = read_solvers(client, target, n)?;
    let leases = client
        .query(
            "SELECT holder, count(*), extract(epoch FROM min(lease_until) - now())::float8 FROM queens_block
             WHERE n = $1 AND lease IS NOT NULL AND lease_until > now() GROUP BY holder ORDER BY holder",
            &[&n],
        )
        .map_err(e(target, "reading leases"))?
        .iter()
        .map(|r| Lease {
            holder: r.get(0),
            blocks: r.get::<_, i64>(1) as u64,
            expires_in: r.get(2),
        })
        .collect();
    let disputes = client
        .query(
            "SELECT entry, kept, other, host FROM queens_dispute WHERE n = $1 ORDER BY t",
            &[&n],
        )
        .map_err(e(target, "reading disputes"))?
        .iter()
        .map(|r| {
            let kept = Solution::from_word(r.get::<_, i64>(1) as u64);
            let other = Solution::from_word(r.get::<_, i64>(2) as u64);
            Dispute {
                entry: r.get::<_, i64>(0) as u64,
                kept: kept.whole(),
                kept_solver: kept.solver,
                other: other.whole(),
                other_solver: other.solver,
                host: r.get(3),
            }
        })
        .collect();
    Ok(Status {
        summary,
        histories,
        solvers,
        leases,
        disputes,
    })
}
