//! The host crate's integration tests as one binary: one compile and one link instead of one per
//! file. Each module below is a file beside this one; run one with
//! `cargo test -p queens-host --test integration -- <module>::`.

mod args;
mod board_check;
mod campaigns;
mod cli;
mod common;
mod dispatch;
mod errors;
mod estimate;
mod faults;
mod hostile;
mod metrics;
mod netlist;
mod pg_cross;
mod pg_merge;
mod pg_roles;
mod pg_serve;
mod postgres;
mod record;
mod run;
mod serve;
mod units;
mod withdrawal;
