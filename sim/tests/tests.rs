//! The sim crate's integration tests as one binary: one compile and one link instead of one per
//! file. Each module below is a file beside this one; run one with
//! `cargo test -p queens-sim --test integration -- <module>::`.

mod board;
mod chain;
mod core;
mod decoder;
mod grouped;
mod model;
mod netlist_cells;
mod rtl;
mod tud_board;
mod tud_unit;
mod verilator;
