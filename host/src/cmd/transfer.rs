//! `queens db import` and `queens db export`: move a campaign between a file (ours or a
//! Queens@TUD database) and a shared PostgreSQL store, entries byte for byte.

use super::thousands;
use queens_core::BoardSize;
use queens_host::store::file::{Access, FileStore};
use queens_host::store::pg::{self, Import};
use queens_host::store::pg_conn::Target;
use queens_host::store::Store;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ImportArgs {
    /// The campaign file (checked entry by entry first).
    file: PathBuf,
    /// postgres://[user@]host[:port]/database (password from PGPASSWORD or ~/.pgpass).
    url: Target,
    /// Replace a campaign of the same N in the database (its results are lost).
    #[arg(long)]
    force: bool,
}

#[derive(clap::Args)]
pub struct ExportArgs {
    /// postgres://[user@]host[:port]/database.
    url: Target,
    /// The campaign file to write.
    file: PathBuf,
    /// Which campaign, when the database holds several.
    #[arg(long)]
    n: Option<BoardSize>,
    /// Replace the file if it exists.
    #[arg(long)]
    force: bool,
}

pub fn import(a: ImportArgs) -> anyhow::Result<()> {
    let store = FileStore::open(&a.file, None, Access::Read)?;
    let size = store.size();
    let target = a.url;
    let mut client = pg::connect(&target)?;
    // Ids the file's history does not name (a Queens@TUD database's) are named as such, so
    // that the database knows every id in its entries and gives new ones above them.
    let mut solvers = store.solvers();
    solvers.extend(
        store
            .unnamed_solvers()
            .iter()
            .map(|&id| (id, format!("unnamed solver {id} of {}", a.file.display()))),
    );
    let entries = pg::create(
        &mut client,
        &target,
        size,
        Some(Import {
            entries: &mut |i| store.raw_entry(i),
            cycles: &mut |i| store.cycles(i),
            solvers,
        }),
        a.force,
        &queens_host::store::Watch::default(),
    )?;
    let s = store.summary();
    eprintln!(
        "imported {} into {}: N = {}, {} entries, {} solved",
        a.file.display(),
        target.shown,
        size.n(),
        thousands(entries as u128),
        thousands(s.solved.subproblems() as u128)
    );
    Ok(())
}

pub fn export(a: ExportArgs) -> anyhow::Result<()> {
    let target = a.url;
    let mut client = pg::connect(&target)?;
    let size = pg::which(&mut client, &target, a.n)?;
    FileStore::write_blocks(&a.file, a.force, |block| {
        pg::export(&mut client, &target, size, block)
    })?;
    // Read back as any campaign file is opened: every entry checked, the solved ones summed.
    let store = FileStore::open(&a.file, Some(size), Access::Read)?;
    let s = store.summary();
    eprintln!(
        "exported N = {size} from {} to {}: {} entries, {} solved",
        target.shown,
        a.file.display(),
        thousands(s.subproblems as u128),
        thousands(s.solved.subproblems() as u128)
    );
    Ok(())
}
