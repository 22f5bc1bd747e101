//! The solver unit and its parts: the carry chain that decides a column in one cycle
//! ([`arbiter`]: adder, CARRY4, CCU2C and parallel-prefix forms), the unit built around two of
//! them ([`unit`](mod@unit)), the LUT-RAM that holds its stack ([`lutram`]), the copies of its
//! advance and clock enables that synthesis keeps whole ([`advance`], [`enable`], [`keep`]),
//! the pre-placement decoder and the walk's orientation ([`decoder`], [`orient`]), the stage
//! that holds a unit and its result record ([`stage`], its [`counter`]s) and stages in
//! series ([`chain`]); for
//! the grouped walk of issue 50, the unit with its [`tally`] in a block RAM ([`bram`], its
//! [`increment`]; a variant's registers as [`optional`] blocks) as [`grouped`], and its stage
//! ([`grouped_stage`]); the decoder's blocks
//! ([`cell`], [`hot`]); the downstream chain's
//! tap both kinds of stage share ([`tap`]), and the ports of a beat ([`beat`]) and of a slot
//! ([`slot`]).

pub mod advance;
pub mod arbiter;
pub mod beat;
pub mod bram;
pub mod cell;
pub mod chain;
pub mod counter;
pub mod decoder;
pub mod enable;
pub mod grouped;
pub mod grouped_stage;
pub mod hot;
pub mod increment;
pub mod keep;
pub mod load;
pub mod load_ports;
pub mod lutram;
pub mod optional;
pub mod orient;
pub mod pass;
pub mod place;
pub mod residues;
pub mod slot;
pub mod stage;
pub mod tally;
pub mod tap;
pub mod unit;
pub mod words;
