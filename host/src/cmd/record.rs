//! `queens db record` and `queens db check-record`: a campaign's record that outsiders can
//! check (docs/spec/record.md), and its check against a software recount or another
//! campaign.

use super::{pool, thousands};
use anyhow::Context;
use queens_core::BoardSize;
use queens_host::record::{self, Record};
use queens_host::store::campaign::Campaign;
use queens_host::store::Location;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;

#[derive(clap::Args)]
pub struct RecordArgs {
    /// A campaign file, or a shared campaign's database (postgres://…).
    campaign: Location,
    /// Which campaign of the database, when it holds several.
    #[arg(long)]
    n: Option<BoardSize>,
    /// Where to write the record.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Entries per block (the last block may be shorter).
    #[arg(long, value_name = "ENTRIES", default_value_t = 4096,
          value_parser = clap::value_parser!(u64).range(1..=1 << 32))]
    block: u64,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// A record written by `queens db record`.
    record: PathBuf,
    /// Blocks to recount in software, drawn at random among the wholly solved ones (all
    /// when fewer).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..))]
    sample: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Compare every block with another campaign of the same N instead (a file or a
    /// database): its record is made in the same blocks.
    #[arg(long, value_name = "CAMPAIGN", conflicts_with = "sample")]
    against: Option<Location>,
    #[arg(long, value_parser = super::parse_threads)]
    threads: Option<usize>,
    #[arg(long)]
    json: bool,
}

pub fn record(a: RecordArgs) -> anyhow::Result<()> {
    for f in a.campaign.files() {
        anyhow::ensure!(
            !super::same_file(&f, &a.out),
            "--out {}: that is {}, of the campaign being recorded; choose another name",
            a.out.display(),
            f.display()
        );
    }
    let mut c = Campaign::open(&a.campaign, a.n)?;
    let done = AtomicU64::new(0);
    let entries = c.summary().subproblems;
    let r = crate::progress::with_bar(
        "reading the entries",
        &done,
        || entries,
        || Record::of(&mut c, a.block, &done),
    )?;
    super::write_output("--out", &a.out, r.to_text().as_bytes())?;
    let solved: u64 = r.blocks.iter().map(|b| b.solved).sum();
    println!(
        "wrote {}: N = {}, {} blocks of {} entries, {} of {} entries solved, total {}",
        a.out.display(),
        r.n,
        thousands(r.blocks.len() as u128),
        thousands(r.block_entries as u128),
        thousands(solved as u128),
        thousands(r.entries as u128),
        thousands(r.total)
    );
    Ok(())
}

pub fn check(a: CheckArgs) -> anyhow::Result<()> {
    let name = a.record.display().to_string();
    let text = std::fs::read_to_string(&a.record)
        .with_context(|| format!("{name}: reading the record (`queens db record` writes one)"))?;
    let r = Record::parse(&name, &text)?;
    let pool = pool(a.threads)?;
    let (found, against) = match &a.against {
        Some(other) => {
            let mut c = Campaign::open(other, Some(BoardSize::new(r.n)?))?;
            anyhow::ensure!(
                c.size().n() == r.n,
                "{} is a campaign of N = {}, the record of N = {}",
                other.shown(),
                c.size().n(),
                r.n
            );
            let done = AtomicU64::new(0);
            let o = crate::progress::with_bar(
                "reading the entries",
                &done,
                || r.entries,
                || Record::of(&mut c, r.block_entries, &done),
            )?;
            (
                o.blocks.into_iter().enumerate().collect::<Vec<_>>(),
                Some(c.name()),
            )
        }
        None => {
            let whole: Vec<usize> = (0..r.blocks.len())
                .filter(|&b| r.blocks[b].solved == r.blocks[b].last - r.blocks[b].first + 1)
                .collect();
            let mut rng = fastrand::Rng::with_seed(a.seed);
            let mut pick = whole.clone();
            rng.shuffle(&mut pick);
            pick.truncate(a.sample as usize);
            (pool.install(|| record::recount(&r, &pick))?, None)
        }
    };
    let bad = record::differences(&r, &found);
    let source = against
        .clone()
        .unwrap_or_else(|| "a software recount".to_string());
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "record": name,
                "n": r.n,
                "total": r.total.to_string(),
                "blocks": r.blocks.len(),
                "checked": found.len(),
                "against": source,
                "differences": bad,
            })
        );
    } else {
        println!(
            "{name}: N = {}, total {}, {} blocks; {} of them checked against {source}",
            r.n,
            thousands(r.total),
            thousands(r.blocks.len() as u128),
            thousands(found.len() as u128)
        );
        for m in &bad {
            let which = if m.recorded.first == m.recorded.last {
                format!("entry {}", thousands(m.recorded.first as u128))
            } else {
                format!(
                    "entries {} to {}",
                    thousands(m.recorded.first as u128),
                    thousands(m.recorded.last as u128)
                )
            };
            println!(
                "block {} ({which}): the record says {} solved, sum {}, hash {}; {source} gives {} solved, sum {}, hash {}",
                m.block,
                m.recorded.solved,
                m.recorded.sum,
                &m.recorded.hash[..16],
                m.found.solved,
                m.found.sum,
                &m.found.hash[..16]
            );
        }
    }
    anyhow::ensure!(
        bad.is_empty(),
        "{} of {} blocks checked differ from {source} (named above)",
        bad.len(),
        found.len()
    );
    anyhow::ensure!(
        !found.is_empty(),
        "{name}: no block is wholly solved, so none could be recounted"
    );
    if !a.json {
        println!("all agree");
    }
    Ok(())
}
