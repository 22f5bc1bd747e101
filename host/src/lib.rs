//! The workstation side of the accelerator: links to boards ([`link`]), the campaign store
//! ([`store`]), the checks of every returned result ([`validate`]), the dispatcher that keeps
//! boards busy and never counts a result twice ([`dispatch`]), the loop that drives it all
//! ([`run`]), its metrics ([`metrics`]) and the picture of a campaign ([`plot`]). Routed figures on an ECP5 are
//! `queens_hdl::pnr`'s.

pub mod bringup;
pub mod dispatch;
pub mod link;
pub mod metrics;
pub mod number;
pub mod plot;
pub mod record;
pub mod run;
pub mod status;
pub mod store;
pub mod validate;
