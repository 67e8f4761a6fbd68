//! Congestion control: the interface the sender calls and the algorithms
//! behind it.
//!
//! - `hooks.rs`: what the sender hands an algorithm and the hooks it calls,
//!   with the contract of when each is called (Linux tcp_congestion_ops);
//! - `params.rs`: the parameters an algorithm declares, their checks and values;
//! - `trace.rs`: the internal state an algorithm declares for the series;
//! - `registry.rs`: what each algorithm is (`Info`), the `algorithms!` list
//!   and the static dispatch it generates, lookup and build by name;
//! - one file per algorithm, and the helpers they share (`common`,
//!   `hystart`, `minmax`, `extreme_window`).
//!
//! Adding an algorithm: write `cc/myalgo.rs` with a struct implementing
//! `CongestionControl` and a `pub const INFO: Info`, then add `pub mod
//! myalgo;` and one line `MyAlgo(myalgo::MyAlgo) = myalgo::INFO,` to the
//! `algorithms!` list in registry.rs.

mod hooks;
mod params;
mod registry;
mod trace;
pub use hooks::*;
pub use params::*;
pub use registry::*;
pub use trace::*;

pub mod common;
mod recovery_policy;
pub use recovery_policy::RecoveryPolicy;
pub mod extreme_window;
pub mod hystart;
pub mod minmax;

pub mod bbr;
pub mod bbr3;
pub mod bic;
pub mod ccp;
pub mod ccpd;
pub mod compound;
pub mod copa;
pub mod cubic;
pub mod dctcp;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod illinois;
pub mod ledbat;
pub mod lp;
pub mod prague;
pub mod reno;
pub mod scalable;
pub mod vegas;
pub mod veno;
pub mod vivace;
pub mod westwood;
pub mod westwood_plus;
pub mod yeah;

#[cfg(test)]
pub mod harness;
