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
pub use sim::{run, run_unless_interrupted, Results};
