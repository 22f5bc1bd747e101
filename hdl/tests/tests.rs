//! The hdl crate's integration tests as one binary: one compile and one link instead of one per
//! file. Each module below is a file beside this one; run one with
//! `cargo test -p queens-hdl --test integration -- <module>::`. The crate builds unoptimised
//! (see the workspace's Cargo.toml): long simulations of its circuits are in `sim/tests`.

mod boards;
mod ecp5;
mod queue;
mod tally;
mod verilog;
