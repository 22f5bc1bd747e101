//! Where a shared campaign stands, for `queens db stats`: its totals, the history of every
//! host process, its solver ids, the live leases, the recorded disputes, and each host
//! role's standing (what it gave, how much of it another host confirmed, its quarantine).

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
    /// Each host role, by name.
    pub hosts: Vec<HostStanding>,
    /// Who can recompute the counts chosen for a check.
    pub checkers: Checkers,
}

/// Who can recompute a shared campaign's counts chosen for a check: a count is confirmed
/// only by a host of another role than the one that gave it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Checkers {
    /// The host roles that may give counts and recompute others': every role that has
    /// worked on the campaign and is not quarantined, every login role of the host role of
    /// `queens db init` (superusers aside), and the role asking when it is a host.
    pub roles: Vec<String>,
    /// The host role of `queens db init`; none when the campaign's tables were made by a
    /// host without it (then every host logs in as their owner).
    pub hosts_role: Option<String>,
    /// Fewer than two roles: no host checks another's counts.
    pub one_role: bool,
    /// Counts chosen for a check that none of `roles` may recompute: each waits for a role
    /// other than the one that gave it (and, once disputed, than the one that disagreed).
    pub unconfirmable: u64,
}

/// A host role's standing in a shared campaign.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HostStanding {
    pub role: String,
    /// Counts it committed that landed (withdrawn ones included).
    pub given: u64,
    /// Its counts chosen for another host to recompute: confirmed by another role's count,
    /// still waiting, or left unsettled (three different counts).
    pub checks_agreed: u64,
    pub checks_pending: u64,
    pub checks_unsettled: u64,
    /// Counts of other roles it confirmed.
    pub confirmed_others: u64,
    /// Why it was quarantined, if it was (every count it gave withdrawn).
    pub quarantined: Option<String>,
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
    let hosts = client
        .query(
            "SELECT h.role, h.given, h.reason,
                    count(c.entry) FILTER (WHERE c.state IN ('agreed', 'settled')),
                    count(c.entry) FILTER (WHERE c.state IN ('open', 'disputed')),
                    count(c.entry) FILTER (WHERE c.state = 'unsettled'),
                    (SELECT count(*) FROM queens_check x
                     WHERE x.n = h.n AND x.confirmer = h.role AND x.state IN ('agreed', 'settled')),
                    h.quarantined IS NOT NULL
             FROM queens_host h LEFT JOIN queens_check c ON c.n = h.n AND c.giver = h.role
             WHERE h.n = $1
             GROUP BY h.n, h.role, h.given, h.reason, h.quarantined ORDER BY h.role",
            &[&n],
        )
        .map_err(e(target, "reading the hosts"))?
        .iter()
        .map(|r| HostStanding {
            role: r.get(0),
            given: r.get::<_, i64>(1) as u64,
            checks_agreed: r.get::<_, i64>(3) as u64,
            checks_pending: r.get::<_, i64>(4) as u64,
            checks_unsettled: r.get::<_, i64>(5) as u64,
            confirmed_others: r.get::<_, i64>(6) as u64,
            quarantined: r
                .get::<_, bool>(7)
                .then(|| r.get::<_, Option<String>>(2).unwrap_or_default()),
        })
        .collect();
    let checkers = checkers(client, target, size, false)?;
    Ok(Status {
        summary,
        histories,
        solvers,
        leases,
        disputes,
        hosts,
        checkers,
    })
}

/// Who can recompute the campaign's chosen counts ([`Checkers`]); `host`: the role asking is
/// a host of the campaign (counted among the roles unless quarantined).
pub fn checkers(
    client: &mut postgres::Client,
    target: &Target,
    size: BoardSize,
    host: bool,
) -> Result<Checkers, StoreError> {
    let r = client
        .query_one(
            "WITH meta AS (SELECT value FROM queens_meta WHERE key = 'hosts'),
                  maybe AS (
                      SELECT role FROM queens_host WHERE n = $1
                      UNION
                      SELECT r.rolname::text FROM pg_roles r
                      JOIN pg_roles g ON g.rolname = (SELECT value FROM meta)
                      WHERE r.rolcanlogin AND NOT r.rolsuper AND pg_has_role(r.oid, g.oid, 'MEMBER')
                      UNION
                      SELECT session_user::text WHERE $2),
                  roles AS (
                      SELECT role FROM maybe
                      WHERE NOT EXISTS (SELECT 1 FROM queens_host h WHERE h.n = $1
                                        AND h.role = maybe.role AND h.quarantined IS NOT NULL))
             SELECT coalesce((SELECT array_agg(role ORDER BY role) FROM roles), '{}'),
                    (SELECT value FROM meta),
                    -- a check excludes two roles at most: with three, every one has a role left
                    CASE WHEN (SELECT count(*) FROM roles) >= 3 THEN 0 ELSE
                        (SELECT count(*) FROM queens_check c
                         WHERE c.n = $1 AND c.state IN ('open', 'disputed')
                           AND NOT EXISTS (SELECT 1 FROM roles WHERE roles.role <> c.giver
                                           AND roles.role IS DISTINCT FROM c.second))
                    END",
            &[&(size.n() as i32), &host],
        )
        .map_err(db_err(target, "reading the host roles"))?;
    let roles: Vec<String> = r.get(0);
    Ok(Checkers {
        one_role: roles.len() < 2,
        roles,
        hosts_role: r.get(1),
        unconfirmable: r.get::<_, i64>(2) as u64,
    })
}

/// The solver ids of host role `role` in the campaign of `size` (for `db verify --host`).
pub fn solvers_of(
    client: &mut postgres::Client,
    target: &Target,
    size: BoardSize,
    role: &str,
) -> Result<Vec<u16>, StoreError> {
    Ok(client
        .query(
            "SELECT id FROM queens_solver WHERE n = $1 AND role = $2 ORDER BY id",
            &[&(size.n() as i32), &role],
        )
        .map_err(db_err(target, "reading solver ids"))?
        .iter()
        .map(|r| r.get::<_, i32>(0) as u16)
        .collect())
}
