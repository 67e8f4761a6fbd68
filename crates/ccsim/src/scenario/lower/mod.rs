//! The one step from a checked scenario to the plain configs the simulator
//! (`crate::sim`) and the kernel-mode emulator (crates/ccemu) build from:
//! the links' `LinkConfig`s, the `Topology` of routes, each flow's
//! `SenderConfig` and `ReceiverConfig`, the background's pieces and what the
//! recorders keep. Here, so that `net`, `tcp`, `traffic` and `record` never
//! read the scenario's types, and both modes resolve a scenario the same way.

use super::{PcapSpec, RttSamplesSpec, PCAP_EVERY_LINK};

mod flow;
mod link;
mod topology;
mod traffic;

pub use flow::{cc_params, receiver_config, sender_config};
pub use link::{
    bdp_queue_packets, codel_params, dualpi2_params, link_config, pie_params, queue_capacity, rate_config, red_params,
};
pub use topology::{base_rtt_ns, link_specs, network, topology, Network};
pub use traffic::{background_flow, intensity, size_dist};

/// How many RTT samples per flow the `rtt` table keeps (`record.rtt_samples`):
/// None for all, Some(0) for none.
pub fn rtt_samples_per_flow(spec: RttSamplesSpec) -> Option<u64> {
    match spec {
        RttSamplesSpec::All => None,
        RttSamplesSpec::None => Some(0),
        RttSamplesSpec::PerFlow(n) => Some(n),
    }
}

/// Whether the packet capture records the link called `name` (`record.pcap.link`
/// names it, or every link).
pub fn captures(pcap: &PcapSpec, name: &str) -> bool {
    PCAP_EVERY_LINK.contains(&pcap.link.as_str()) || pcap.link == name
}
