//! Writing a new campaign file: fresh, or from the blocks of a shared store.

use super::blocks::Canon;
use super::{
    cycles_path, history, io, lock, size_of, summary, unnamed_link, Event, FileStore, Solvers, Watch,
};
use crate::store::StoreError;
use queens_core::entry::ENTRY_BYTES;
use queens_core::BoardSize;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// May a new campaign be written at `path`? Not over an existing file unless `force`, and
/// never while a run holds the campaign there: the file returned holds its lock in turn
/// until the new one is in place.
fn replaceable(path: &Path, force: bool) -> Result<Option<File>, StoreError> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path, "looking at")(e)),
        Ok(_) if !force => return Err(StoreError::Exists { path: path.into() }),
        Ok(_) => {}
    }
    // A campaign replaces a file, never a device or a directory (`--out /dev/null --force`
    // must not rename a file over /dev/null).
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(io(path, "replacing")(std::io::Error::other(
            "not a regular file; a campaign replaces only a file",
        )));
    }
    let file = match File::open(path) {
        Ok(f) => f,
        // A dangling link: nothing to hold.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path, "opening")(e)),
    };
    lock(&file, path)?;
    Ok(Some(file))
}

/// A new temporary file beside `path`, or an error in the user's terms: the folder is
/// missing, read-only, not ours to write, or its disk is full.
fn temp_beside(path: &Path) -> Result<tempfile::NamedTempFile, StoreError> {
    crate::store::temp_beside(path).map_err(|e| {
        folder_error(path, &e).unwrap_or_else(|| StoreError::io(path, "creating a file beside", e, 0))
    })
}

/// The folder a file beside `path` goes in.
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// What keeps a new campaign from being written at `path`, said of its folder: missing, on a
/// read-only file system, or not writable by this user.
fn folder_error(path: &Path, e: &std::io::Error) -> Option<StoreError> {
    let dir = folder_of(path).to_path_buf();
    let path = path.to_path_buf();
    match e.kind() {
        std::io::ErrorKind::NotFound => Some(StoreError::NoFolder { dir, path }),
        std::io::ErrorKind::PermissionDenied => Some(StoreError::NotWritable { dir, path }),
        _ if e.raw_os_error() == Some(nix::errno::Errno::EROFS as i32) => {
            Some(StoreError::ReadOnly { dir, path })
        }
        _ => None,
    }
}

/// Before anything is counted or written: the folder of a new campaign at `path` exists, is
/// on a writable file system, and this user may write in it.
fn check_folder(path: &Path) -> Result<(), StoreError> {
    let dir = folder_of(path);
    let nofolder = || StoreError::NoFolder {
        dir: dir.into(),
        path: path.into(),
    };
    match std::fs::metadata(dir) {
        Err(e) => return Err(folder_error(path, &e).unwrap_or_else(|| io(dir, "looking at")(e))),
        Ok(m) if !m.is_dir() => return Err(nofolder()),
        Ok(_) => {}
    }
    if nix::sys::statvfs::statvfs(dir)
        .is_ok_and(|st| st.flags().contains(nix::sys::statvfs::FsFlags::ST_RDONLY))
    {
        return Err(StoreError::ReadOnly {
            dir: dir.into(),
            path: path.into(),
        });
    }
    if let Err(e) = rustix::fs::access(dir, rustix::fs::Access::WRITE_OK) {
        let e = std::io::Error::from(e);
        return Err(folder_error(path, &e).unwrap_or_else(|| io(dir, "looking at")(e)));
    }
    Ok(())
}

/// Renames a complete temporary file onto `path`: over what is there only when `replace`
/// (else a file that appeared meanwhile is an error, and stays).
fn persist(
    tmp: tempfile::NamedTempFile,
    path: &Path,
    replace: bool,
    what: &'static str,
) -> Result<(), StoreError> {
    let r = if replace {
        tmp.persist(path)
    } else {
        tmp.persist_noclobber(path)
    };
    match r {
        Ok(_) => Ok(()),
        Err(e) if !replace && e.error.kind() == std::io::ErrorKind::AlreadyExists => {
            Err(StoreError::Exists { path: path.into() })
        }
        Err(e) => Err(io(path, what)(e.error)),
    }
}

impl FileStore {
    /// Writes a fresh campaign of unsolved entries through a temporary file renamed at the
    /// end, so an interrupted run never leaves a file that looks complete, and its summary
    /// beside it. An existing file is replaced only when `force`, and never while a run holds
    /// it. Partial files a killed creation left beside it are removed first; the free space
    /// is checked before the first byte; `watch` counts the entries written, and its stop
    /// flag ends the creation with its partial file removed. Returns the number of entries.
    pub fn create(path: &Path, size: BoardSize, force: bool, watch: &Watch) -> Result<u64, StoreError> {
        check_folder(path)?;
        let _held = replaceable(path, force)?;
        remove_leftovers(path)?;
        watch.begin("counting the subproblems", 0);
        let census = queens_core::Enumerator::new(size).census();
        let entries = census.total();
        let need = entries * ENTRY_BYTES as u64;
        let free = free_space(path)?;
        if free < need {
            return Err(StoreError::Space {
                path: path.into(),
                disk: crate::store::disk_of(path),
                n: size.n(),
                need: crate::store::Bytes(need),
                free: crate::store::Bytes(free),
            });
        }
        let tmp = temp_beside(path)?;
        // Held while it is written: the next start tells a live creation from a dead one's.
        lock(tmp.as_file(), tmp.path())?;
        watch.begin("writing the campaign", entries);
        let block_entries = summary::block_entries(entries);
        let mut blocks = Vec::new();
        let mut block = Vec::with_capacity(block_entries as usize * ENTRY_BYTES);
        let close = |block: &mut Vec<u8>, blocks: &mut Vec<summary::Block>| {
            let mut canon = Canon::new();
            for raw in block.chunks_exact(ENTRY_BYTES) {
                canon.add(raw);
            }
            blocks.push(summary::Block {
                open: false,
                solved: Default::default(),
                canon: canon.digest(),
                bytes: xxhash_rust::xxh3::xxh3_64(block),
            });
            block.clear();
        };
        let mut out = BufWriter::with_capacity(1 << 20, tmp.as_file());
        let written = crate::store::fresh_entries(size, &watch.done, |mut b| {
            if watch.stopped() {
                return Err(StoreError::Stopped {
                    path: path.into(),
                    what: "writing the new campaign",
                });
            }
            out.write_all(b)
                .map_err(|e| StoreError::io(path, "writing the new campaign", e, need))?;
            while !b.is_empty() {
                let take = (block.capacity() - block.len()).min(b.len());
                block.extend_from_slice(&b[..take]);
                b = &b[take..];
                if block.len() == block.capacity() {
                    close(&mut block, &mut blocks);
                }
            }
            Ok(())
        })?;
        if !block.is_empty() {
            close(&mut block, &mut blocks);
        }
        out.flush()
            .map_err(|e| StoreError::io(path, "writing the new campaign", e, need))?;
        drop(out);
        watch.begin("syncing the campaign to disk", 0);
        tmp.as_file()
            .sync_all()
            .map_err(|e| StoreError::io(path, "syncing the new campaign", e, need))?;
        if watch.stopped() {
            return Err(StoreError::Stopped {
                path: path.into(),
                what: "writing the new campaign",
            });
        }
        persist(tmp, path, force, "renaming the new campaign to")?;
        // Cycle counts or a history left from an earlier campaign of the same name would
        // mislead: a fresh history that will name every solver id.
        let _ = std::fs::remove_file(cycles_path(path));
        let hpath = history::path_of(path);
        history::write_new(
            &hpath,
            &[Event::Created {
                t: history::now(),
                n: size.n(),
                stamped: true,
            }],
        )
        .map_err(io(&hpath, "writing"))?;
        let spath = summary::path_of(path);
        summary::Summary {
            n: size.n(),
            entries: written,
            block_entries,
            identity: summary::Identity::of(path, &hpath).map_err(io(path, "reading the identity of"))?,
            clean: true,
            checked_at: history::now(),
            census: census.count,
            blocks,
        }
        .write(&spath)
        .map_err(io(&spath, "writing"))?;
        Ok(written)
    }

    /// Writes a campaign file from its entries in canonical order, block by block (an
    /// export from a shared store): entries through a temporary file renamed at the end,
    /// cycle counts beside them, the solver ids into a fresh history. `blocks` hands every
    /// block (first entry, entries, cycles if known) to its argument and returns the solver
    /// ids. Returns the number of entries.
    pub fn write_blocks(
        path: &Path,
        force: bool,
        blocks: impl FnOnce(
            &mut dyn FnMut(u64, &[u8], Option<&[u8]>) -> Result<(), StoreError>,
        ) -> Result<Vec<(u16, String)>, StoreError>,
    ) -> Result<u64, StoreError> {
        use std::os::unix::fs::FileExt;
        check_folder(path)?;
        let _held = replaceable(path, force)?;
        let tmp = temp_beside(path)?;
        let mut out = BufWriter::with_capacity(1 << 20, tmp.as_file());
        let mut cycles: Option<tempfile::NamedTempFile> = None;
        let mut written = 0u64;
        let mut used = Solvers::NONE;
        let solvers = blocks(&mut |first, entries, c| {
            out.write_all(entries).map_err(io(tmp.path(), "writing"))?;
            written += (entries.len() / ENTRY_BYTES) as u64;
            for e in entries.chunks_exact(ENTRY_BYTES) {
                let w2 = u64::from_be_bytes(e[8..].try_into().expect("8 bytes"));
                if w2 != 0 {
                    used.insert((w2 >> 52) as u16);
                }
            }
            if let Some(c) = c {
                if cycles.is_none() {
                    cycles = Some(temp_beside(&cycles_path(path))?);
                }
                let f = cycles.as_ref().expect("just made");
                f.as_file()
                    .write_all_at(c, first * 8)
                    .map_err(io(f.path(), "writing"))?;
            }
            Ok(())
        })?;
        out.flush().map_err(io(tmp.path(), "writing"))?;
        drop(out);
        tmp.as_file().sync_all().map_err(io(tmp.path(), "syncing"))?;
        if let Some(f) = &cycles {
            // Sparse up to the full length: entries without a count read as unknown.
            f.as_file().set_len(written * 8).map_err(io(f.path(), "sizing"))?;
            f.as_file().sync_all().map_err(io(f.path(), "syncing"))?;
        }
        persist(tmp, path, force, "renaming the new campaign to")?;
        let _ = std::fs::remove_file(cycles_path(path));
        // Its first open checks every entry and makes the summary.
        let _ = std::fs::remove_file(summary::path_of(path));
        if let Some(f) = cycles {
            persist(f, &cycles_path(path), true, "renaming the cycle counts to")?;
        }
        // The history names every solver id of the entries: the links the source knows, and
        // a placeholder for any other (a Queens@TUD database's ids).
        let t = history::now();
        let mut events: Vec<Event> = Vec::new();
        let mut named = Solvers::NONE;
        for (id, link) in solvers {
            named.insert(id);
            events.push(Event::Solver { t, id, link });
        }
        for id in used.ids().filter(|&id| !named.contains(id)) {
            events.push(Event::Solver {
                t,
                id,
                link: unnamed_link(id),
            });
        }
        let n = size_of(written).map_or(0, |s| s.n());
        events.push(Event::Created { t, n, stamped: false });
        let hpath = history::path_of(path);
        history::write_new(&hpath, &events).map_err(io(&hpath, "writing"))?;
        Ok(written)
    }
}

/// Removes the partial files that creations of the campaign at `path` killed before they
/// finished left beside it (one still being written holds its lock, and stays), naming each.
fn remove_leftovers(path: &Path) -> Result<(), StoreError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Ok(());
    };
    let prefix = format!(".{name}.");
    let Ok(list) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for e in list.flatten() {
        let f = e.file_name().to_string_lossy().into_owned();
        let rest = f.strip_prefix(&prefix).unwrap_or("");
        // Ours are `.<name>.<random>.partial`; `.<name>.summary.<random>.partial` and the
        // like belong to files beside it.
        if !rest.ends_with(".partial") || rest.matches('.').count() != 1 {
            continue;
        }
        let p = e.path();
        let Ok(file) = File::options().read(true).write(true).open(&p) else {
            continue;
        };
        match lock(&file, &p) {
            Ok(()) => {
                let bytes = file.metadata().map_or(0, |m| m.len());
                std::fs::remove_file(&p).map_err(io(&p, "removing"))?;
                tracing::warn!(
                    "removed {} ({bytes} bytes), left by a creation of {} that was killed",
                    p.display(),
                    path.display()
                );
            }
            Err(StoreError::Busy { .. }) => {
                return Err(StoreError::Busy { path: p });
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Bytes free to an unprivileged user on the file system that holds `path`.
fn free_space(path: &Path) -> Result<u64, StoreError> {
    let dir = folder_of(path);
    let st = nix::sys::statvfs::statvfs(dir).map_err(|e| io(dir, "reading the free space of")(e.into()))?;
    Ok(st.blocks_available() as u64 * st.fragment_size() as u64)
}
