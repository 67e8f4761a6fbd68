//! The network's shape as plain indices: the links' names and the route every
//! flow entry, UDP source and background takes across them. Built from a
//! scenario by `crate::scenario::lower`; net itself never reads the scenario.

use crate::time::Nanos;

/// The links a flow's data crosses, in order, and those its ACKs cross.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Route {
    pub data: Vec<u32>,
    pub ack: Vec<u32>,
    /// The propagation delays of every link on both ways: the round trip of
    /// an empty path, less serialization and the flow's access delay.
    pub delay: Nanos,
}

pub struct Topology {
    /// Link names, by link index.
    pub names: Vec<String>,
    /// Per `[[flows]]` entry.
    pub flows: Vec<Route>,
    /// Per `[[udp]]` source: the links its datagrams cross.
    pub udp: Vec<Vec<u32>>,
    /// The background's route (its `ack` is empty for UDP transfers).
    pub background: Option<Route>,
}

impl Topology {
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

    #[test]
    fn the_bottleneck_is_the_slowest_link_the_first_of_equals() {
        let t = Topology { names: Vec::new(), flows: Vec::new(), udp: Vec::new(), background: None };
        assert_eq!(t.bottleneck(&[0, 1, 2], |k| [10e6, 5e6, 10e6, 1e6][k]), 1);
        assert_eq!(t.bottleneck(&[2, 0], |k| [10e6, 5e6, 10e6][k]), 2);
    }
}
