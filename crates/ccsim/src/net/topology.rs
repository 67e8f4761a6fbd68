//! The network's shape, resolved from a checked scenario: its links (name and
//! description, in order) and the route every flow entry, UDP source and
//! background takes across them, as link indices. The dumbbell shorthand
//! becomes the links "downlink" (0) and "uplink" (1): a "down" flow's data
//! crosses the downlink and its ACKs the uplink, an "up" flow the reverse.
//!
//! Also the base RTT that sizes each link's BDP queue (`queue.size = "1bdp"`).

use crate::scenario::{FlowSpec, LinkSpec, Scenario};
use crate::time::Nanos;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

/// The links a flow's data crosses, in order, and those its ACKs cross.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    pub data: Vec<u32>,
    pub ack: Vec<u32>,
    /// The propagation delays of every link on both ways: the round trip of
    /// an empty path, less serialization and the flow's access delay.
    pub delay: Nanos,
}

impl Route {
    fn new(data: Vec<u32>, ack: Vec<u32>, specs: &[LinkSpec]) -> Route {
        let delay = data.iter().chain(&ack).map(|&k| specs[k as usize].delay.ns()).sum();
        Route { data, ack, delay }
    }
}

pub struct Topology {
    /// Link names and descriptions, by link index.
    pub names: Vec<String>,
    pub specs: Vec<LinkSpec>,
    /// Per `[[flows]]` entry.
    pub flows: Vec<Route>,
    /// Per `[[udp]]` source: the links its datagrams cross.
    pub udp: Vec<Vec<u32>>,
    /// The background's route (its `ack` is empty for UDP transfers).
    pub background: Option<Route>,
}

const DOWNLINK: u32 = 0;
const UPLINK: u32 = 1;

fn dumbbell(direction: Option<Direction>, specs: &[LinkSpec]) -> Route {
    match direction.unwrap_or_default() {
        Direction::Down => Route::new(vec![DOWNLINK], vec![UPLINK], specs),
        Direction::Up => Route::new(vec![UPLINK], vec![DOWNLINK], specs),
    }
}

impl Topology {
    /// The topology of a validated scenario.
    pub fn of(s: &Scenario) -> Topology {
        if let (Some(down), Some(up)) = (&s.downlink, s.uplink()) {
            let specs = vec![down.clone(), up];
            return Topology {
                names: vec!["downlink".to_string(), "uplink".to_string()],
                flows: s.flows.iter().map(|f| dumbbell(f.direction, &specs)).collect(),
                udp: s.udp.iter().map(|u| dumbbell(u.direction, &specs).data).collect(),
                background: s.background.as_ref().map(|b| dumbbell(b.direction, &specs)),
                specs,
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
            specs: s.links.clone(),
            flows: s.flows.iter().map(|f| Route::new(index(&f.route), index(&f.ack_route), &s.links)).collect(),
            udp: s.udp.iter().map(|u| index(&u.route)).collect(),
            background: s.background.as_ref().map(|b| Route::new(index(&b.route), index(&b.ack_route), &s.links)),
        }
    }

    /// The base RTT that sizes link `l`'s BDP queue: the shortest round trip
    /// of the `[[flows]]` entries whose data or ACK route crosses it (the
    /// delays of every link on both routes plus twice the flow's access
    /// delay). In the dumbbell every flow crosses both links, so both get
    /// downlink.delay + uplink.delay + 2 x the shortest access delay. A link
    /// only UDP sources or the background cross takes twice its own delay.
    pub fn base_rtt_ns(&self, l: usize, flows: &[FlowSpec]) -> Nanos {
        self.flows
            .iter()
            .zip(flows)
            .filter(|(r, _)| r.data.contains(&(l as u32)) || r.ack.contains(&(l as u32)))
            .map(|(r, f)| r.delay + 2 * f.access_delay.ns())
            .min()
            .unwrap_or(2 * self.specs[l].delay.ns())
    }

    /// The slowest link of a route (the first of equals): its bottleneck.
    pub fn bottleneck(&self, route: &[u32], mean_rate_bps: impl Fn(usize) -> f64) -> usize {
        let mut best = route[0] as usize;
        for &k in &route[1..] {
            if mean_rate_bps(k as usize) < mean_rate_bps(best) {
                best = k as usize;
            }
        }
        best
    }
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
        let t = Topology::of(&s);
        assert_eq!(t.names, ["downlink", "uplink"]);
        assert_eq!(t.flows[1], Route { data: vec![1], ack: vec![0], delay: 25_000_000 });
        for l in 0..2 {
            assert_eq!(t.base_rtt_ns(l, &s.flows), 27_000_000);
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
        let t = Topology::of(&s);
        assert_eq!(t.flows[0], Route { data: vec![0, 1], ack: vec![2], delay: 60_000_000 });
        assert_eq!(t.base_rtt_ns(0, &s.flows), 60_000_000);
        assert_eq!(t.base_rtt_ns(1, &s.flows), 52_000_000);
        assert_eq!(t.base_rtt_ns(2, &s.flows), 52_000_000);
        assert_eq!(t.base_rtt_ns(3, &s.flows), 8_000_000);
        assert_eq!(t.bottleneck(&t.flows[0].data, |k| [10e6, 5e6, 10e6, 1e6][k]), 1);
    }
}
