pub mod count;
pub mod db;
pub mod hdl;
pub mod pg_bench;
pub mod pnr;
pub mod run;
pub mod sim;
pub mod subproblems;
pub mod transfer;

use queens_core::{BoardSize, Symmetry};
use serde::Serialize;
use std::collections::BTreeMap;

/// The board size argument, validated with the model's own error.
pub fn board(n: u32) -> anyhow::Result<BoardSize> {
    Ok(BoardSize::new(n)?)
}

/// A rayon pool of `threads` threads (all cores when `None`).
pub fn pool(threads: Option<usize>) -> anyhow::Result<rayon::ThreadPool> {
    // Big stacks for the same reason as the main thread's (see main.rs).
    let mut b = rayon::ThreadPoolBuilder::new().stack_size(1 << 30);
    if let Some(t) = threads {
        anyhow::ensure!(t > 0, "--threads must be at least 1");
        b = b.num_threads(t);
    }
    Ok(b.build()?)
}

/// Per-class figures as the JSON reports print them: keyed by class name.
#[derive(Serialize)]
pub struct ClassJson {
    pub preplacements: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solutions: Option<u64>,
    pub weight: u64,
}

pub fn classes_json(pre: [u64; 3], sol: Option<[u64; 3]>) -> BTreeMap<&'static str, ClassJson> {
    Symmetry::ALL
        .iter()
        .map(|s| {
            let i = s.slot();
            (
                s.name(),
                ClassJson {
                    preplacements: pre[i],
                    solutions: sol.map(|v| v[i]),
                    weight: s.weight(),
                },
            )
        })
        .collect()
}

/// 1234567 -> "1,234,567".
pub fn grouped(v: u128) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
