//! The known-answer set a board is checked with: subproblems of every symmetry class, the
//! cheapest and the most expensive by the cycle model's count, and enough more, spread over
//! the canonical order, to keep every unit busy twice over. A board of grouped units walks
//! each in its group ([`in_groups`]).

use queens_core::board::PairTable;
use queens_core::group;
use queens_core::{completions, BoardSize, Enumerator, Subproblem, Symmetry};
use queens_sim::grouped::run_south_group;
use queens_sim::{run_subproblem, select, Selection};
use rayon::prelude::*;

/// A subproblem with the answers it must get.
#[derive(Debug, Clone, Copy)]
pub struct Known {
    /// Position in the canonical order.
    pub index: u64,
    pub sub: Subproblem,
    /// The software counter's completions.
    pub solutions: u64,
    /// The cycle model's unit cycles (for a board of grouped units, its share of its group's
    /// walk: `queens_core::group::cycle_shares`).
    pub cycles: u64,
    /// For a board of grouped units: the group it is walked in.
    pub group: Option<InGroup>,
}

/// The group a known subproblem is walked in on a board of grouped units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InGroup {
    /// The group's word (`queens_core::group::group_wire`).
    pub word: u64,
    /// The grouped model's cycles for the whole walk.
    pub walk: u64,
}

/// The set as a board of grouped units answers it: each subproblem in its group, its cycles
/// its share of the grouped model's walk.
pub fn in_groups(set: &[Known]) -> Vec<Known> {
    let Some(first) = set.first() else {
        return Vec::new();
    };
    let table = PairTable::new(first.sub.pre.size());
    set.par_iter()
        .map(|k| {
            let word = group::group_wire(&k.sub.pre).expect("canonical pre-placements encode");
            let members = group::members(&table, word).expect("a canonical member's group");
            let rank = members
                .iter()
                .position(|m| *m == k.sub)
                .expect("a subproblem is a member of its group");
            let walk = run_south_group(&k.sub.pre).cycles;
            Known {
                cycles: group::cycle_shares(walk, members.len())[rank],
                group: Some(InGroup { word, walk }),
                ..*k
            }
        })
        .collect()
}

/// Subproblems the model runs to choose from: all of a small N, an even spread of a large one
/// (a subproblem of N = 20 takes the model about a millisecond, one of N = 27 minutes).
fn candidates_of(size: BoardSize) -> u64 {
    match size.n() {
        ..=13 => u64::MAX,
        14..=16 => 8192,
        17..=19 => 1024,
        20..=22 => 128,
        _ => 16,
    }
}

/// The subproblems the set is chosen from, with their canonical indices.
pub fn candidates(size: BoardSize) -> Vec<(u64, Subproblem)> {
    let total = Enumerator::new(size).census().total();
    select(size, Selection::Sample(candidates_of(size).min(total))).expect("a sample always exists")
}

/// The set for a board of `units` units (at least 16 subproblems, at most 512).
pub fn known_set(size: BoardSize, units: usize) -> Vec<Known> {
    choose(&candidates(size), units)
}

/// The set for a board of `units` units from `picked` ([`candidates`]): the model and the
/// software counter run each of them.
pub fn choose(picked: &[(u64, Subproblem)], units: usize) -> Vec<Known> {
    let runs: Vec<Known> = picked
        .par_iter()
        .map(|&(index, sub)| {
            let run = run_subproblem(&sub.pre);
            Known {
                index,
                sub,
                solutions: completions(&sub.pre),
                cycles: run.cycles,
                group: None,
            }
        })
        .collect();
    let mut chosen: Vec<Known> = Vec::new();
    for sym in [Symmetry::None, Symmetry::Point, Symmetry::Rotate] {
        let of: Vec<&Known> = runs.iter().filter(|k| k.sub.sym == sym).collect();
        if let Some(k) = of.iter().min_by_key(|k| (k.cycles, k.index)) {
            chosen.push(**k);
        }
        if let Some(k) = of.iter().max_by_key(|k| (k.cycles, std::cmp::Reverse(k.index))) {
            chosen.push(**k);
        }
    }
    let size_wanted = (2 * units).clamp(16, 512);
    let step = (runs.len() / size_wanted.max(1)).max(1);
    for k in runs.iter().step_by(step) {
        if chosen.len() >= size_wanted {
            break;
        }
        chosen.push(*k);
    }
    chosen.sort_by_key(|k| k.index);
    chosen.dedup_by_key(|k| k.index);
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use queens_core::enumerate::canonical;

    #[test]
    fn every_class_with_its_cheapest_and_dearest() {
        let size = BoardSize::new(10).unwrap();
        let set = known_set(size, 8);
        assert!(set.len() >= 16);
        for sym in [Symmetry::None, Symmetry::Point, Symmetry::Rotate] {
            assert!(set.iter().any(|k| k.sub.sym == sym), "{sym:?}");
        }
        let all: Vec<u64> = canonical(size).map(|s| run_subproblem(&s.pre).cycles).collect();
        let max = *all.iter().max().unwrap();
        let min = *all.iter().min().unwrap();
        assert!(set.iter().any(|k| k.cycles == max) && set.iter().any(|k| k.cycles == min));
    }
}
