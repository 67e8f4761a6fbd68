//! The network's shape, resolved from a checked scenario: its links (name and
//! description, in order) and the route every flow entry, UDP source and
//! background takes across them, as link indices (`crate::net::topology`). The
//! dumbbell shorthand becomes the links "downlink" (0) and "uplink" (1): a
//! "down" flow's data crosses the downlink and its ACKs the uplink, an "up"
//! flow the reverse.
//!
//! Also the base RTT that sizes each link's BDP queue (`queue.size = "1bdp"`).

use super::link::link_config;
use crate::net::link::LinkConfig;
use crate::net::topology::{Route, Topology};
use crate::scenario::{Direction, FlowSpec, LinkSpec, Scenario};
use crate::time::Nanos;

/// What the simulator and the emulator build the links from: the topology,
/// and each link's config (by link index), BDP queues sized.
pub struct Network {
    pub topology: Topology,
    pub links: Vec<LinkConfig>,
}

/// The network of a validated scenario; a link's BDP queue is sized by its
/// base RTT (`base_rtt_ns`).
pub fn network(s: &Scenario) -> Network {
    let specs = link_specs(s);
    let topology = topology(s, &specs);
    let links = specs
        .iter()
        .enumerate()
        .map(|(l, spec)| link_config(spec, base_rtt_ns(&topology, &specs, l, &s.flows)))
        .collect();
    Network { topology, links }
}

/// The descriptions of a validated scenario's links, by link index: the
/// shorthand's downlink and uplink (or its mirror), or `[[links]]`.
pub fn link_specs(s: &Scenario) -> Vec<LinkSpec> {
    match (&s.downlink, s.uplink()) {
        (Some(down), Some(up)) => vec![down.clone(), up],
        _ => s.links.clone(),
    }
}

fn route(data: Vec<u32>, ack: Vec<u32>, specs: &[LinkSpec]) -> Route {
    let delay = data.iter().chain(&ack).map(|&k| specs[k as usize].delay.ns()).sum();
    Route { data, ack, delay }
}

const DOWNLINK: u32 = 0;
const UPLINK: u32 = 1;

fn dumbbell(direction: Option<Direction>, specs: &[LinkSpec]) -> Route {
    match direction.unwrap_or_default() {
        Direction::Down => route(vec![DOWNLINK], vec![UPLINK], specs),
        Direction::Up => route(vec![UPLINK], vec![DOWNLINK], specs),
    }
}

/// The topology of a validated scenario whose links are `specs` (`link_specs`).
pub fn topology(s: &Scenario, specs: &[LinkSpec]) -> Topology {
    if s.downlink.is_some() {
        return Topology {
            names: vec!["downlink".to_string(), "uplink".to_string()],
            flows: s.flows.iter().map(|f| dumbbell(f.direction, specs)).collect(),
            udp: s.udp.iter().map(|u| dumbbell(u.direction, specs).data).collect(),
            background: s.background.as_ref().map(|b| dumbbell(b.direction, specs)),
        };
    }
    let index = |names: &[String]| -> Vec<u32> {
        names
            .iter()
            .map(|n| s.links.iter().position(|l| &l.name == n).expect("a checked route names links") as u32)
            .collect()
    };
    Topology {
        names: s.links.iter().map(|l| l.name.clone()).collect(),
        flows: s.flows.iter().map(|f| route(index(&f.route), index(&f.ack_route), specs)).collect(),
        udp: s.udp.iter().map(|u| index(&u.route)).collect(),
        background: s.background.as_ref().map(|b| route(index(&b.route), index(&b.ack_route), specs)),
    }
}

/// The base RTT that sizes link `l`'s BDP queue: the shortest round trip
/// of the `[[flows]]` entries whose data or ACK route crosses it (the
/// delays of every link on both routes plus twice the flow's access
/// delay). In the dumbbell every flow crosses both links, so both get
/// downlink.delay + uplink.delay + 2 x the shortest access delay. A link
/// only UDP sources or the background cross takes twice its own delay.
pub fn base_rtt_ns(topology: &Topology, specs: &[LinkSpec], l: usize, flows: &[FlowSpec]) -> Nanos {
    topology
        .flows
        .iter()
        .zip(flows)
        .filter(|(r, _)| r.data.contains(&(l as u32)) || r.ack.contains(&(l as u32)))
        .map(|(r, f)| r.delay + 2 * f.access_delay.ns())
        .min()
        .unwrap_or(2 * specs[l].delay.ns())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(json: &str) -> Scenario {
        Scenario::from_json(json).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn dumbbell_base_rtt_is_both_delays_and_the_shortest_access_twice() {
        let s = scenario(
            r#"{"duration": 1, "downlink": {"rate": "10Mbit", "delay": "20ms"}, "uplink": {"rate": "1Mbit", "delay": "5ms"},
               "flows": [{"cc": "reno", "access_delay": "3ms"}, {"cc": "reno", "direction": "up", "access_delay": "1ms"}]}"#,
        );
        let specs = link_specs(&s);
        let t = topology(&s, &specs);
        assert_eq!(t.names, ["downlink", "uplink"]);
        assert_eq!(t.flows[1], Route { data: vec![1], ack: vec![0], delay: 25_000_000 });
        for l in 0..2 {
            assert_eq!(base_rtt_ns(&t, &specs, l, &s.flows), 27_000_000);
        }
    }

    #[test]
    fn named_links_take_the_shortest_round_trip_crossing_them() {
        let s = scenario(
            r#"{"duration": 1,
               "links": [{"name": "a", "rate": "10Mbit", "delay": "10ms"}, {"name": "b", "rate": "5Mbit", "delay": "20ms"},
                         {"name": "back", "rate": "10Mbit", "delay": "30ms"}, {"name": "udp-only", "rate": "1Mbit", "delay": "4ms"}],
               "flows": [{"cc": "reno", "route": ["a", "b"], "ack_route": ["back"]},
                         {"cc": "reno", "route": ["b"], "ack_route": ["back"], "access_delay": "1ms"}],
               "udp": [{"rate": "1Mbit", "route": ["udp-only"]}]}"#,
        );
        let specs = link_specs(&s);
        let t = topology(&s, &specs);
        assert_eq!(t.flows[0], Route { data: vec![0, 1], ack: vec![2], delay: 60_000_000 });
        let rtt = |l| base_rtt_ns(&t, &specs, l, &s.flows);
        assert_eq!((rtt(0), rtt(1), rtt(2), rtt(3)), (60_000_000, 52_000_000, 52_000_000, 8_000_000));
        assert_eq!(t.bottleneck(&t.flows[0].data, |k| [10e6, 5e6, 10e6, 1e6][k]), 1);
        assert_eq!(network(&s).links.len(), 4);
    }
}
