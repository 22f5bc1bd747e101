//! The core crate's integration tests as one binary: one compile and one link instead of one per
//! file. Each module below is a file beside this one; run one with
//! `cargo test -p queens-core --test integration -- <module>::`.

mod codecs;
mod reference;
mod symmetry;
