//! `queens db init URL --hosts ROLE`: an administrator sets up (or upgrades) a database for
//! shared campaigns, with an owner role and a host role that can do only a host's work.

use crate::cmd::thousands;
use queens_core::BoardSize;
use queens_host::store::pg::{self, roles};
use queens_host::store::pg_conn::Target;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  queens db init postgres://admin@db.lab/queens --hosts queens_hosts --n 27
  queens db init postgres://admin@db.lab/queens --hosts queens_hosts --cross-verify 0.05
Then a host: CREATE ROLE lab1 LOGIN PASSWORD '…' IN ROLE queens_hosts, and
  queens run 27 --campaign 'postgres://lab1@db.lab/queens?sslmode=verify-full'")]
pub struct InitArgs {
    /// postgres://[user@]host[:port]/database, as a role that may create roles and own the
    /// tables (a superuser, or one with CREATEROLE that owns the database).
    url: Target,
    /// The role hosts log in as, or are members of (made NOLOGIN when missing; then add a
    /// host with `CREATE ROLE h1 LOGIN PASSWORD '…' IN ROLE <ROLE>`). It may read the tables
    /// and call the host functions: lease, commit, renew and release its own leases, add its
    /// solver ids and events. Nothing else.
    #[arg(long, value_name = "ROLE")]
    hosts: String,
    /// The role that owns the tables and the functions (made NOLOGIN when missing).
    #[arg(long, value_name = "ROLE", default_value = "queens_owner")]
    owner: String,
    /// Share of each host's counts that a host of another role recomputes before they are
    /// final, beyond every count of its first block (a host outvoted by two others is
    /// quarantined and loses every count). 0..=1.
    #[arg(long, value_name = "SHARE", default_value_t = 0.02, value_parser = parse_share)]
    cross_verify: f64,
    /// A campaign to create now (hosts cannot create one); repeat for several.
    #[arg(long = "n", value_name = "N")]
    sizes: Vec<BoardSize>,
    #[arg(long)]
    json: bool,
}

#[derive(serde::Serialize)]
struct InitJson {
    #[serde(flatten)]
    report: roles::Report,
    owner: String,
    hosts: String,
    /// Campaigns created now: N and entries.
    created: Vec<(u32, u64)>,
}

pub fn init(a: InitArgs) -> anyhow::Result<()> {
    let target = &a.url;
    let mut client = pg::connect(target)?;
    let report = roles::init(
        &mut client,
        target,
        &roles::Roles {
            owner: a.owner.clone(),
            hosts: a.hosts.clone(),
            cross_verify: a.cross_verify,
        },
    )?;
    let have = pg::campaigns(&mut client, target)?;
    let mut created = Vec::new();
    for &size in &a.sizes {
        if !have.contains(&size.n()) {
            let watch = queens_host::store::Watch::default();
            let t = std::time::Instant::now();
            let entries = crate::progress::watched(&watch, || {
                pg::create(&mut client, target, size, None, false, &watch)
            })?;
            if !a.json {
                eprintln!(
                    "made the campaign of N = {}: {} subproblems in {:.1} s",
                    size.n(),
                    thousands(entries as u128),
                    t.elapsed().as_secs_f64()
                );
            }
            created.push((size.n(), entries));
        }
    }
    if a.json {
        let j = InitJson {
            report,
            owner: a.owner,
            hosts: a.hosts,
            created,
        };
        println!("{}", serde_json::to_string(&j)?);
        return Ok(());
    }
    println!(
        "{}: campaign tables in schema {} {}, owned by {}; role {} may do a host's work, nothing else",
        target.shown,
        report.schema,
        if report.upgraded { "upgraded" } else { "created" },
        a.owner,
        a.hosts
    );
    for r in &report.created_roles {
        println!("created role {r} (NOLOGIN)");
    }
    for (n, entries) in &created {
        println!(
            "new campaign of N = {n}: {} subproblems",
            thousands(*entries as u128)
        );
    }
    Ok(())
}

fn parse_share(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("expected a share between 0 and 1, e.g. 0.02, not {s:?}")),
    }
}
