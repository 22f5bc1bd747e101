//! The summary kept beside a campaign file (`<campaign>.summary`): per block of entries, what
//! it holds (solved per class, their counts) and two digests, so that a run can start and
//! `db stats` can answer without reading the whole file.
//!
//! A block is *closed* when the summary's digest of its bytes is current, *open* when this
//! host may have written it since. Before the first write into a closed block, the summary is
//! rewritten with that block open (and made durable), so after a kill or a power cut only the
//! open blocks need reading before the start. Every other block is trusted provisionally and
//! re-read by a background pass; see `docs/design/stores.md`.
//!
//! The format is ours: little-endian, fixed records, the last 8 bytes an xxh3 of the rest,
//! written to a temporary file and renamed into place, so a reader sees a whole summary or
//! the previous one.

use queens_core::Tally;
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"QSUMMARY";
const VERSION: u32 = 1;
const HEADER: usize = 8 + 4 + 4 + 8 + 8 + 8 + 8 + 8 + 4 + 8 + 1 + 8 + 24 + 8;
const RECORD: usize = 1 + 48 + 8 + 8;

/// The file that holds a campaign's summary.
pub fn path_of(campaign: &Path) -> PathBuf {
    crate::store::beside(campaign, ".summary")
}

/// Entries per block for a campaign of `entries`: 2^20 (16 MiB) at scale, smaller for small
/// campaigns so that even they have tens of blocks (and the tests see many).
pub fn block_entries(entries: u64) -> u64 {
    (entries / 64)
        .clamp(256, 1 << 20)
        .next_power_of_two()
        .min(1 << 20)
}

/// One block's record.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Block {
    /// Written since its digest was taken (or may be): read again before it is trusted.
    pub open: bool,
    /// Its solved entries per class and their counts.
    pub solved: Tally,
    /// xxh3 of its entries' fixed bits (word 1 above the stamp): what the canonical order
    /// put there, taken when the block was written fresh or checked against the order.
    pub canon: u64,
    /// xxh3 of its bytes when it was last closed.
    pub bytes: u64,
}

/// Which file a summary describes, and whether the file is as it left it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Identity {
    pub dev: u64,
    pub ino: u64,
    pub mtime_s: i64,
    pub mtime_ns: u32,
    /// Bytes of the history when the summary was written.
    pub history: u64,
}

impl Identity {
    /// The campaign file's identity now, with its history's length.
    pub fn of(campaign: &Path, history: &Path) -> std::io::Result<Self> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(campaign)?;
        let h = std::fs::metadata(history).map_or(0, |m| m.len());
        Ok(Self {
            dev: m.dev(),
            ino: m.ino(),
            mtime_s: m.mtime(),
            mtime_ns: m.mtime_nsec() as u32,
            history: h,
        })
    }

    /// The same file (not a copy, not a campaign made anew at its path).
    pub fn same_file(&self, o: &Identity) -> bool {
        self.dev == o.dev && self.ino == o.ino
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub n: u32,
    pub entries: u64,
    pub block_entries: u64,
    pub identity: Identity,
    /// Every block closed by a clean stop: nothing was written after it.
    pub clean: bool,
    /// When every block was last read against this summary (Unix seconds; 0 = never).
    pub checked_at: f64,
    pub census: [u64; 3],
    pub blocks: Vec<Block>,
}

/// Why a summary cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum Unusable {
    #[error("there is none")]
    Missing,
    #[error("it cannot be read: {0}")]
    Io(std::io::Error),
    #[error("it is torn or damaged ({0})")]
    Torn(&'static str),
    #[error("it describes {0}")]
    Other(String),
    #[error("the campaign was written after it was (it is stale)")]
    Stale,
}

impl Summary {
    pub fn blocks_for(entries: u64, block_entries: u64) -> usize {
        entries.div_ceil(block_entries) as usize
    }

    /// The range of entries of block `b`.
    pub fn range(&self, b: usize) -> std::ops::Range<u64> {
        let start = b as u64 * self.block_entries;
        start..(start + self.block_entries).min(self.entries)
    }

    pub fn solved(&self) -> Tally {
        self.blocks
            .iter()
            .fold(Tally::default(), |t, b| t.merge(&b.solved))
    }

    fn encode(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(HEADER + RECORD * self.blocks.len() + 8);
        v.extend_from_slice(MAGIC);
        v.extend_from_slice(&VERSION.to_le_bytes());
        v.extend_from_slice(&self.n.to_le_bytes());
        v.extend_from_slice(&self.entries.to_le_bytes());
        v.extend_from_slice(&self.block_entries.to_le_bytes());
        let id = &self.identity;
        v.extend_from_slice(&id.dev.to_le_bytes());
        v.extend_from_slice(&id.ino.to_le_bytes());
        v.extend_from_slice(&id.mtime_s.to_le_bytes());
        v.extend_from_slice(&id.mtime_ns.to_le_bytes());
        v.extend_from_slice(&id.history.to_le_bytes());
        v.push(self.clean as u8);
        v.extend_from_slice(&self.checked_at.to_le_bytes());
        for c in self.census {
            v.extend_from_slice(&c.to_le_bytes());
        }
        v.extend_from_slice(&(self.blocks.len() as u64).to_le_bytes());
        for b in &self.blocks {
            v.push(b.open as u8);
            for x in b.solved.preplacements.iter().chain(&b.solved.solutions) {
                v.extend_from_slice(&x.to_le_bytes());
            }
            v.extend_from_slice(&b.canon.to_le_bytes());
            v.extend_from_slice(&b.bytes.to_le_bytes());
        }
        let sum = xxhash_rust::xxh3::xxh3_64(&v);
        v.extend_from_slice(&sum.to_le_bytes());
        v
    }

    fn decode(b: &[u8]) -> Result<Self, Unusable> {
        if b.len() < HEADER + 8 || &b[..8] != MAGIC {
            return Err(Unusable::Torn("not a summary, or cut short"));
        }
        let (body, sum) = b.split_at(b.len() - 8);
        if xxhash_rust::xxh3::xxh3_64(body).to_le_bytes() != sum {
            return Err(Unusable::Torn("its checksum does not match"));
        }
        let mut r = Reader(body, 8);
        if r.u32() != VERSION {
            return Err(Unusable::Other("another version of the summary format".into()));
        }
        let n = r.u32();
        let entries = r.u64();
        let block_entries = r.u64();
        let identity = Identity {
            dev: r.u64(),
            ino: r.u64(),
            mtime_s: r.u64() as i64,
            mtime_ns: r.u32(),
            history: r.u64(),
        };
        let clean = r.byte() != 0;
        let checked_at = f64::from_bits(r.u64());
        let census = [r.u64(), r.u64(), r.u64()];
        let count = r.u64();
        if block_entries == 0
            || count != Self::blocks_for(entries, block_entries) as u64
            || body.len() != HEADER + RECORD * count as usize
        {
            return Err(Unusable::Torn("its blocks do not match its length"));
        }
        let blocks = (0..count)
            .map(|_| Block {
                open: r.byte() != 0,
                solved: Tally {
                    preplacements: [r.u64(), r.u64(), r.u64()],
                    solutions: [r.u64(), r.u64(), r.u64()],
                },
                canon: r.u64(),
                bytes: r.u64(),
            })
            .collect();
        Ok(Self {
            n,
            entries,
            block_entries,
            identity,
            clean,
            checked_at,
            census,
            blocks,
        })
    }

    /// Reads the summary at `path`, whole or not at all.
    pub fn read(path: &Path) -> Result<Self, Unusable> {
        match std::fs::read(path) {
            Ok(b) => Self::decode(&b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Unusable::Missing),
            Err(e) => Err(Unusable::Io(e)),
        }
    }

    /// Writes the summary durably: a temporary file, synced, renamed onto `path`, and the
    /// directory synced, so that a crash leaves this summary or the one before.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let tmp = crate::store::temp_beside(path)?;
        // Through the file itself: its errors as the system gives them (a full disk is
        // told apart), not wrapped with the temporary file's name.
        tmp.as_file().write_all(&self.encode())?;
        tmp.as_file().sync_all()?;
        tmp.persist(path).map_err(|e| e.error)?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        std::fs::File::open(dir)?.sync_all()
    }
}

struct Reader<'a>(&'a [u8], usize);

impl Reader<'_> {
    fn take<const K: usize>(&mut self) -> [u8; K] {
        let b = self.0[self.1..self.1 + K].try_into().expect("length checked");
        self.1 += K;
        b
    }
    fn byte(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Summary {
        Summary {
            n: 12,
            entries: 1000,
            block_entries: 256,
            identity: Identity {
                dev: 1,
                ino: 2,
                mtime_s: 3,
                mtime_ns: 4,
                history: 5,
            },
            clean: true,
            checked_at: 1.5,
            census: [7, 8, 985],
            blocks: (0..4)
                .map(|i| Block {
                    open: i == 2,
                    solved: Tally {
                        preplacements: [i, 0, 1],
                        solutions: [10 * i, 0, 3],
                    },
                    canon: i * 99,
                    bytes: i * 77,
                })
                .collect(),
        }
    }

    #[test]
    fn a_summary_reads_back_as_written_and_any_flipped_bit_is_caught() {
        let s = sample();
        let bytes = s.encode();
        assert_eq!(Summary::decode(&bytes).unwrap(), s);
        for bit in [0, 77, 8 * HEADER + 3, 8 * (bytes.len() - 1)] {
            let mut b = bytes.clone();
            b[bit / 8] ^= 1 << (bit % 8);
            assert!(Summary::decode(&b).is_err(), "bit {bit} flipped was not caught");
        }
        assert!(matches!(
            Summary::decode(&bytes[..bytes.len() - 20]),
            Err(Unusable::Torn(_))
        ));
    }

    #[test]
    fn blocks_are_at_most_a_mebientry_and_small_campaigns_have_tens() {
        assert_eq!(block_entries(3_739), 256);
        assert_eq!(block_entries(2_024_110_796), 1 << 20);
        assert!(2_024_110_796u64.div_ceil(block_entries(2_024_110_796)) < 2000);
    }
}
