//! The one place where the emulator touches ccsim's scenario and
//! link-building API: from a normalized scenario (JSON) to the links to
//! emulate, each with the name, configuration and seed the simulator gives it.
//!
//! Everything else in this crate sees only `EmulatedLink` and ccsim's `Link`,
//! so a change of the scenario schema (named links, routes) is fixed here.

use ccsim::net::build::link_config;
use ccsim::net::link::LinkConfig;
use ccsim::rng::stream;
use ccsim::time::Nanos;
use ccsim::Scenario;

/// One direction of the emulated path, as the simulator would build it.
pub struct EmulatedLink {
    /// "downlink" (sender namespace to receiver namespace) or "uplink".
    pub name: &'static str,
    pub config: LinkConfig,
    pub seed: u64,
    /// Random-stream component of the link (the simulator's, so draws match).
    pub component: u64,
}

/// The links of a scenario and its sampling interval.
pub struct EmulatedPath {
    pub links: Vec<EmulatedLink>,
    pub record_interval_ns: Nanos,
}

/// Parses and checks the scenario, then builds its links as `ccsim::sim`
/// does: BDP-sized queues use the path's base RTT (both delays plus twice
/// the smallest access delay), streams LINK_BASE and LINK_BASE + 1.
pub fn path_from_scenario(scenario_json: &str) -> Result<EmulatedPath, String> {
    let s = Scenario::from_json(scenario_json).map_err(|e| e.to_string())?;
    let access = s.flows.iter().map(|f| f.access_delay.ns()).min().unwrap_or(0);
    let rtt_ns = s.downlink.delay.ns() + s.uplink().delay.ns() + 2 * access;
    let links = vec![
        EmulatedLink {
            name: "downlink",
            config: link_config(&s.downlink, rtt_ns),
            seed: s.seed,
            component: stream::LINK_BASE,
        },
        EmulatedLink {
            name: "uplink",
            config: link_config(&s.uplink(), rtt_ns),
            seed: s.seed,
            component: stream::LINK_BASE + 1,
        },
    ];
    Ok(EmulatedPath { links, record_interval_ns: s.record.interval.ns() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_both_directions_with_bdp_queues() {
        let json = r#"{"duration":"1s","downlink":{"rate":"12Mbit","delay":"10ms","queue":{"size":"1bdp"}},
                       "flows":[{"cc":"cubic"}]}"#;
        let p = path_from_scenario(json).unwrap();
        assert_eq!(p.links.len(), 2);
        assert_eq!(p.links[0].config.delay_ns, 10_000_000);
        // 12 Mbit/s x 20 ms = 30 000 bytes = 20 packets.
        assert_eq!(p.links[0].config.queue.capacity(), ccsim::net::queue::Capacity::Packets(20));
        assert_eq!(p.links[1].component, stream::LINK_BASE + 1);
    }

    #[test]
    fn a_bad_scenario_names_the_field() {
        let e = path_from_scenario(r#"{"duration":"1s","downlink":{},"flows":[{"cc":"cubic"}]}"#).err().unwrap();
        assert!(e.contains("downlink"), "{e}");
    }
}
