//! ccsim: the packet-level simulator at the core of ccbench.
//!
//! A pure library: `run(&Scenario) -> Results`. A scenario is validated
//! (`Scenario::from_json`) before anything runs; results come back as
//! columnar tables. No files, no Python, no wall clock.

pub mod cc;
pub mod event;
pub mod net;
pub mod record;
pub mod rng;
pub mod scenario;
pub mod sim;
pub mod suggest;
pub mod tcp;
pub mod time;
pub mod traffic;
pub mod units;

pub use scenario::{Scenario, ScenarioError};

/// A fingerprint of the sources this core and the kernel-mode emulator were
/// built from (build.rs): the emulator binary and the Python extension must
/// agree on it to work together.
pub const SOURCE_ID: &str = env!("CCSIM_SOURCE_ID");
pub use record::recorded::Recorded;
pub use sim::{run, run_unless_interrupted, Results};
