//! `db verify`: solved entries of a campaign recomputed in software, every disagreement
//! named.

use super::campaign::Campaign;
use super::StoreError;
use queens_core::{completions, Entry};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashSet;

/// A stored count that the software count contradicts.
#[derive(Debug, Serialize)]
pub struct Disagreement {
    pub index: u64,
    pub preplacement: String,
    pub stored: u64,
    pub software: u64,
    pub solver: u16,
}

/// What a verification found.
#[derive(Debug, Serialize)]
pub struct Verification {
    pub n: u32,
    /// Entries recomputed.
    pub checked: u64,
    /// Solved entries in the campaign.
    pub solved: u64,
    pub disagreements: Vec<Disagreement>,
}

/// Recomputes the solved entries that [`sample`] picks, in parallel on the current rayon
/// pool.
pub fn verify(campaign: &mut Campaign, sample_size: u64, seed: u64) -> Result<Verification, StoreError> {
    let entries = sample(campaign, sample_size, seed)?;
    Ok(Verification {
        n: campaign.size().n(),
        checked: entries.len() as u64,
        solved: campaign.summary().solved.subproblems(),
        disagreements: disagreements(&entries),
    })
}

/// Recomputes every solved entry whose solver is one of `solvers` (what one host gave).
pub fn verify_solvers(campaign: &mut Campaign, solvers: &[u16]) -> Result<Verification, StoreError> {
    let mut entries = Vec::new();
    for i in 0..campaign.summary().subproblems {
        let e = campaign.entry(i)?;
        if e.solution.is_some_and(|s| solvers.contains(&s.solver)) {
            entries.push((i, e));
        }
    }
    Ok(Verification {
        n: campaign.size().n(),
        checked: entries.len() as u64,
        solved: campaign.summary().solved.subproblems(),
        disagreements: disagreements(&entries),
    })
}

/// The solved entries to recompute, in index order: all of them when there are no more
/// than `sample`, else `sample` of them drawn at random from `seed`.
pub fn sample(campaign: &mut Campaign, sample: u64, seed: u64) -> Result<Vec<(u64, Entry)>, StoreError> {
    let solved = campaign.summary().solved.subproblems();
    let len = campaign.summary().subproblems;
    let mut picks: Vec<u64> = Vec::new();
    if solved <= sample {
        for i in 0..len {
            if campaign.entry(i)?.solution.is_some() {
                picks.push(i);
            }
        }
    } else {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut seen = HashSet::new();
        while (picks.len() as u64) < sample {
            let i = rng.u64(..len);
            if seen.insert(i) && campaign.entry(i)?.solution.is_some() {
                picks.push(i);
            }
        }
    }
    // In index order: a shared campaign is read a block at a time.
    picks.sort_unstable();
    picks.iter().map(|&i| campaign.entry(i).map(|e| (i, e))).collect()
}

/// The entries (solved ones) whose stored count the software count contradicts, recomputed
/// in parallel on the current rayon pool.
pub fn disagreements(entries: &[(u64, Entry)]) -> Vec<Disagreement> {
    entries
        .par_iter()
        .filter_map(|(i, e)| {
            let sol = e.solution.expect("picked solved entries");
            let stored = sol.true_count().unwrap_or(sol.count);
            let software = completions(&e.pre);
            (software != stored).then(|| Disagreement {
                index: *i,
                preplacement: e.pre.to_string(),
                stored,
                software,
                solver: sol.solver,
            })
        })
        .collect()
}
