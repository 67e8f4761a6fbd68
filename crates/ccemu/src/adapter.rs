//! The one place where the emulator touches ccsim's scenario and
//! link-building API: from a normalized scenario (JSON) to the links to
//! emulate, each with the name, configuration and seed the simulator gives it.
//!
//! Everything else in this crate sees only `EmulatedLink` and ccsim's `Link`,
//! so a change of the scenario schema (named links, routes) is fixed here.

use ccsim::net::link::LinkConfig;
use ccsim::rng::stream;
use ccsim::scenario::lower;
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

/// The links of a scenario, its sampling interval and its packet capture.
pub struct EmulatedPath {
    pub links: Vec<EmulatedLink>,
    pub record_interval_ns: Nanos,
    pub pcap: Option<PcapRequest>,
    /// How many RTT samples per flow the `rtt` table keeps (`record.rtt_samples`;
    /// None: all), and the run's seed, from which its reservoir draws as the
    /// simulator's does.
    pub rtt_samples: Option<u64>,
    pub seed: u64,
}

/// `record.pcap` for the emulator: the file (as the scenario names it), the
/// bytes kept of each packet, and per link index whether its flows are captured.
#[derive(Debug, PartialEq)]
pub struct PcapRequest {
    pub path: String,
    pub snaplen: u32,
    pub links: [bool; 2],
}

/// Parses and checks the scenario, then builds its links exactly as
/// `ccsim::sim` does (`lower::network`: the dumbbell's two links, BDP-sized
/// queues from each link's base RTT, streams LINK_BASE + link index).
/// Kernel mode emulates the dumbbell only: a `[[links]]` topology is refused.
pub fn path_from_scenario(scenario_json: &str) -> Result<EmulatedPath, String> {
    let s = Scenario::from_json(scenario_json).map_err(|e| e.to_string())?;
    if !s.links.is_empty() {
        return Err(
            "links: kernel mode emulates the downlink/uplink dumbbell; [[links]] topologies run in the simulator only"
                .into(),
        );
    }
    let names: [&'static str; 2] = ["downlink", "uplink"];
    let links = names
        .iter()
        .zip(lower::network(&s).links)
        .enumerate()
        .map(|(l, (name, config))| EmulatedLink { name, config, seed: s.seed, component: stream::LINK_BASE + l as u64 })
        .collect();
    let pcap = s.record.pcap.as_ref().map(|p| PcapRequest {
        path: p.path.clone(),
        snaplen: p.snaplen,
        links: names.map(|name| lower::captures(p, name)),
    });
    Ok(EmulatedPath {
        links,
        record_interval_ns: s.record.interval_ns(),
        pcap,
        rtt_samples: lower::rtt_samples_per_flow(s.record.rtt_samples),
        seed: s.seed,
    })
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
    fn the_capture_selects_the_links_record_pcap_names() {
        let with = |link: &str| {
            let json = format!(
                r#"{{"duration":"1s","downlink":{{"rate":"12Mbit","delay":"10ms"}},"flows":[{{"cc":"cubic"}}],
                     "record":{{"pcap":{{"path":"k.pcap","link":"{link}","snaplen":96}}}}}}"#
            );
            path_from_scenario(&json).unwrap().pcap.unwrap()
        };
        assert_eq!(with("downlink"), PcapRequest { path: "k.pcap".into(), snaplen: 96, links: [true, false] });
        assert_eq!(with("uplink").links, [false, true]);
        assert_eq!(with("both").links, [true, true]);
        assert_eq!(with("all").links, [true, true]);
    }

    #[test]
    fn the_rtt_table_keeps_what_record_rtt_samples_says_from_the_runs_seed() {
        let with = |record: &str| {
            let json = format!(
                r#"{{"duration":"1s","seed":7,"downlink":{{"rate":"12Mbit","delay":"10ms"}},"flows":[{{"cc":"cubic"}}],
                     "record":{{{record}}}}}"#
            );
            let p = path_from_scenario(&json).unwrap();
            (p.rtt_samples, p.seed)
        };
        assert_eq!(with(r#""rtt_samples":"none""#), (Some(0), 7));
        assert_eq!(with(r#""rtt_samples":"all""#).0, None);
        assert_eq!(with(r#""rtt_samples":50"#).0, Some(50));
        assert_eq!(with("").0, Some(ccsim::scenario::DEFAULT_RTT_SAMPLES_PER_FLOW));
    }

    #[test]
    fn a_bad_scenario_names_the_field() {
        let e = path_from_scenario(r#"{"duration":"1s","downlink":{},"flows":[{"cc":"cubic"}]}"#).err().unwrap();
        assert!(e.contains("downlink"), "{e}");
    }
}
