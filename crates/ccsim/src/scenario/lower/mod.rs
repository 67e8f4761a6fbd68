//! The one step from a checked scenario to the plain configs the simulator
//! (`crate::sim`) and the kernel-mode emulator (crates/ccemu) build from:
//! the links' `LinkConfig`s and the `Topology` of routes. Here, so that `net`
//! never reads the scenario's types, and both modes resolve a scenario the
//! same way.

mod link;
mod topology;

pub use link::{
    bdp_queue_packets, codel_params, dualpi2_params, link_config, pie_params, queue_capacity, rate_config, red_params,
};
pub use topology::{base_rtt_ns, link_specs, network, topology, Network};
