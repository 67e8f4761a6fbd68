//! The scenario's field types: links, flows and TCP settings, traffic
//! sources, what to record; with their defaults (Linux's for TCP).
//!
//! One file per part of a scenario: `link` (a link's rate, queue, loss,
//! ARQ, jitter, outages), `flow` (a flow and its TCP settings), `traffic`
//! (UDP sources and background load) and `record` (what a run records).
//! The JSON Schema is generated from these types (`json_schema.rs`).

mod flow;
mod link;
mod record;
mod traffic;
pub use flow::*;
pub use link::*;
pub use record::*;
pub use traffic::*;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// An input notion: lower turns it into routes of link indices, so net never sees it.
/// Which way a flow or source of the dumbbell goes. The scenario schema
/// uses this enum itself (as "down" and "up"): a second one there would only
/// be mapped onto this one.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Data on the downlink, ACKs on the uplink.
    #[default]
    Down,
    /// Data on the uplink, ACKs on the downlink.
    Up,
}

fn yes() -> bool {
    true
}
