//! What a unit is loaded with before a start, and the beats down the chain that carry it:
//! the unit's own loads in order ([`load_sequence`], [`south_load_sequence`]) and the beat
//! kinds and unit ids of the downstream chain, which both kinds of stage and the front end
//! share.

use queens_core::south::SouthWalk;
use queens_core::Blocking;
use rust_hdl::prelude::*;

/// Width of a unit id on the chains: up to 4,096 units. The largest device of boards/ holds
/// 1,613 (the U55C's LUTs at N = 28); two bits more than that needs cost each stage four
/// flip-flops and a compare one LUT input wider, and leave room for larger devices.
pub const ID_BITS: usize = 12;
/// The most units a core addresses.
pub const MAX_UNITS: usize = 1 << ID_BITS;
/// Bits of a count of units, 0 to [`MAX_UNITS`].
pub const UNITS_BITS: usize = ID_BITS + 1;

/// Kinds of downstream beat: the unit's three loads ([`Load`]), then its start. On the wire
/// a beat's `kind` is the variant's index (`kind as u64`), in two bits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum BeatKind {
    Rows,
    Cols,
    Diag,
    Start,
}

/// The beats, kind and data, that load a plain unit with `b` (as walked) and start it.
pub fn beats(b: &Blocking) -> Vec<(BeatKind, u64)> {
    beats_of(load_sequence(b))
}

/// The beats, kind and data, that load a grouped unit with the walk `w` and start it.
pub fn south_beats(w: &SouthWalk) -> Vec<(BeatKind, u64)> {
    beats_of(south_load_sequence(w))
}

/// The beats of a unit's `loads`, then its start.
fn beats_of(loads: Vec<(Load, u64)>) -> Vec<(BeatKind, u64)> {
    let kind = |l| match l {
        Load::Rows => BeatKind::Rows,
        Load::Cols => BeatKind::Cols,
        Load::Diag => BeatKind::Diag,
    };
    let mut out: Vec<_> = loads.into_iter().map(|(l, v)| (kind(l), v)).collect();
    out.push((BeatKind::Start, 0));
    out
}

/// What a unit takes before a start, in order: its port for each value, and the value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Load {
    /// `load.rows`: the rows the ring holds.
    Rows,
    /// `load.cols`: the columns the ring fills.
    Cols,
    /// `load.shift`: one falling (bit 0) and one rising (bit 1) diagonal.
    Diag,
}

/// The loads that set a unit up for `b` (as walked: oriented already): rows, columns, then
/// D diagonal shifts. After them `bd` bit j holds falling diagonal j and `bu` bit j rising
/// diagonal (j + L - 1) mod D, which is where line 0 reads them.
pub fn load_sequence(b: &Blocking) -> Vec<(Load, u64)> {
    loads(b.m, b.m, b.rows, b.cols, b.down, b.up)
}

/// The loads of a south group's walk, for a unit built with D = 2M + 1: as
/// [`load_sequence`], with the filled-line bits of lines M and M + 1 in bits 2 and 3 of
/// every diagonal shift (the last one's stay).
pub fn south_load_sequence(w: &SouthWalk) -> Vec<(Load, u64)> {
    loads(w.m, w.l, w.rows, w.cols, w.down, w.up)
}

fn loads(m: u32, l: u32, rows: u32, cols: u32, down: u64, up: u64) -> Vec<(Load, u64)> {
    let (m, l) = (m as usize, l as usize);
    let d = l + m - 1;
    let cols_hi = (cols >> m & 3) as u64;
    let mut out = vec![
        (Load::Rows, rows as u64),
        (Load::Cols, (cols & ((1 << m) - 1)) as u64),
    ];
    out.extend((0..d).map(|t| {
        let fall = down >> (d - 1 - t) & 1;
        let rise = up >> ((t + l - 1) % d) & 1;
        (Load::Diag, fall | rise << 1 | cols_hi << 2)
    }));
    out
}
