//! Checks of the network's shape: either the dumbbell shorthand (`downlink`,
//! optional `uplink`, a `direction` per flow and source) or named `[[links]]`
//! with a `route` (data) and `ack_route` per flow, a `route` per UDP source
//! and background. Every error names the field path, the bad value and what
//! is allowed. The routes themselves are resolved in `super::lower`.

use super::check_link::check_link;
use super::error::{err, suggestion};
use super::lower::{base_rtt_ns, bdp_queue_packets, link_specs, queue_capacity, rate_config, red_params, topology};
use super::{Direction, QueueKind, Scenario, ScenarioError, TransportSpec, PCAP_EVERY_LINK};
use crate::net::queue::Capacity;
use crate::units::QueueSize;

/// Random streams are numbered per link (see `crate::rng::stream::LINK_BASE`
/// and the offsets in `crate::net::link`): 256 links keep them apart.
pub const MAX_LINKS: usize = 256;
/// A packet's position on its route is a byte.
pub const MAX_ROUTE_LINKS: usize = 64;

const SHORTHAND: &str = "downlink (and uplink), the dumbbell shorthand";

/// The mode, the links' names and every link's own fields.
pub(super) fn check_links(s: &Scenario) -> Result<(), ScenarioError> {
    match (&s.downlink, s.links.is_empty()) {
        (Some(_), false) => {
            err("links", format!("give either {SHORTHAND}, or [[links]] with a route per flow, not both"))
        }
        (None, true) => err(
            "downlink",
            "missing: give downlink = { rate = \"10Mbit\", delay = \"20ms\" } (a dumbbell), \
             or [[links]] with a route per flow (any topology)",
        ),
        (Some(down), true) => {
            for (path, link) in [("downlink", Some(down)), ("uplink", s.uplink.as_ref())] {
                let Some(link) = link else { continue };
                if !link.name.is_empty() {
                    return err(
                        format!("{path}.name"),
                        format!(
                            "\"{}\": the shorthand's links are named downlink and uplink; names belong to [[links]]",
                            link.name
                        ),
                    );
                }
                check_link(path, link)?;
            }
            Ok(())
        }
        (None, false) => {
            if s.uplink.is_some() {
                return err("uplink", "belongs to the dumbbell shorthand (with downlink); with [[links]], name every link and give routes");
            }
            if s.links.len() > MAX_LINKS {
                return err("links", format!("{} links; at most {MAX_LINKS} are allowed", s.links.len()));
            }
            for (i, link) in s.links.iter().enumerate() {
                let path = format!("links[{i}]");
                check_name(&format!("{path}.name"), &link.name)?;
                if let Some(j) = s.links[..i].iter().position(|l| l.name == link.name) {
                    return err(
                        format!("{path}.name"),
                        format!("\"{}\" is already the name of links[{j}]; names must be unique", link.name),
                    );
                }
                check_link(&path, link)?;
            }
            Ok(())
        }
    }
}

fn check_name(path: &str, name: &str) -> Result<(), ScenarioError> {
    let allowed = "letters, digits, '_', '-' and '.'";
    if name.is_empty() {
        return err(path, format!("every link needs a name (routes refer to it): {allowed}"));
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) {
        return err(path, format!("\"{name}\" is not a link name; allowed: {allowed}"));
    }
    if PCAP_EVERY_LINK.contains(&name) {
        return err(path, format!("\"{name}\" is reserved (record.pcap.link = \"{name}\" means every link)"));
    }
    Ok(())
}

/// A queue given in bandwidth-delay products must come to at least one packet
/// on its link (rate x the base RTT of the flows that cross it): rounded up
/// silently, "0.0001bdp" would run with a one-packet queue nobody asked for.
/// A path without any delay has no BDP; its queue holds one packet (the
/// README says so), so minimal scenarios without delays still run.
/// Needs checked routes.
///
/// A queue of a known number of packets (given in packets or BDP multiples)
/// must also be able to reach its thresholds: a drop-tail `ecn_threshold` of
/// as many packets as it holds never marks (an arrival that finds it that
/// full is dropped), and RED whose `min_th` is above what it holds never
/// acts (its average cannot exceed the queue).
pub(super) fn check_bdp_queues(s: &Scenario) -> Result<(), ScenarioError> {
    let specs = link_specs(s);
    let topology = topology(s, &specs);
    for (l, spec) in specs.iter().enumerate() {
        let path = if s.links.is_empty() { topology.names[l].clone() } else { format!("links[{l}]") };
        let rate = rate_config(spec);
        let rtt_ns = base_rtt_ns(&topology, &specs, l, &s.flows);
        if let QueueSize::Bdp(multiple) = spec.queue.size() {
            let packets = bdp_queue_packets(&rate, multiple, rtt_ns);
            if rtt_ns > 0 && packets.round() < 1.0 {
                // A size not given is the default's failure: the message names the field to set.
                let (field, what, advice) = match spec.queue.size {
                    Some(_) => ("queue.size", format!("{multiple}bdp"), "give".to_string()),
                    None => ("queue", format!("the default size, {multiple}bdp,"), format!("set {path}.queue.size to")),
                };
                return err(
                    format!("{path}.{field}"),
                    format!(
                        "{what} is {packets:.3} packets here ({:.4} Mbit/s x {} ms base RTT): a queue must hold at \
                         least one packet; {advice} a larger multiple or a size such as \"20pkt\"",
                        rate.mean_rate_bps() / 1e6,
                        rtt_ns as f64 / 1e6
                    ),
                );
            }
        }
        if rtt_ns > 0 || !matches!(spec.queue.size(), QueueSize::Bdp(_)) {
            // (A BDP queue on a path without delay holds one packet only so that toy scenarios run.)
            check_thresholds(&format!("{path}.queue"), spec, queue_capacity(spec, &rate, rtt_ns))?;
        }
    }
    Ok(())
}

/// A queue's ECN and RED thresholds against its capacity in packets (see
/// `check_bdp_queues`); a queue in bytes may hold more small packets, so it
/// is not judged.
fn check_thresholds(path: &str, spec: &super::LinkSpec, capacity: Capacity) -> Result<(), ScenarioError> {
    let Capacity::Packets(holds) = capacity else { return Ok(()) };
    let size = match spec.queue.size() {
        QueueSize::Bdp(m) => format!("size {m}bdp comes to {holds} packets here"),
        _ => format!("size is {holds} packets"),
    };
    let q = &spec.queue;
    match q.kind {
        QueueKind::Droptail => match q.ecn_threshold {
            Some(k) if k >= holds => err(
                format!("{path}.ecn_threshold"),
                format!(
                    "{k} packets is never reached: the queue's {size}, and an arrival that finds it full is \
                     dropped, not marked; give a threshold below {holds} packets or a larger size"
                ),
            ),
            _ => Ok(()),
        },
        QueueKind::Red => {
            let min_th = red_params(q).min_th_pkts;
            if min_th > holds as f64 {
                let given = if q.min_th.is_some() { "" } else { " (the default)" };
                return err(
                    format!("{path}.min_th"),
                    format!(
                        "{min_th} packets{given} is never reached: the queue's {size}, so RED would never act; \
                         give min_th and max_th below {holds} packets or a larger size"
                    ),
                );
            }
            Ok(())
        }
        QueueKind::Codel | QueueKind::Pie | QueueKind::Dualpi2 => Ok(()),
    }
}

/// Routes and directions of flows, UDP sources and the background, links
/// no route uses, and the link a packet capture names.
pub(super) fn check_routes(s: &Scenario) -> Result<(), ScenarioError> {
    if s.links.is_empty() {
        check_shorthand_routes(s)?;
    } else {
        check_named_routes(s)?;
    }
    if let Some(p) = &s.record.pcap {
        let names = link_names(s);
        if !PCAP_EVERY_LINK.contains(&p.link.as_str()) && !names.contains(&p.link.as_str()) {
            return err(
                "record.pcap.link",
                format!(
                    "\"{}\" is not a link{}; allowed: {}, both, all",
                    p.link,
                    suggestion(&p.link, &names),
                    names.join(", ")
                ),
            );
        }
    }
    Ok(())
}

/// The names of the links, in order: downlink and uplink, or `[[links]]`'.
pub fn link_names(s: &Scenario) -> Vec<&str> {
    if s.links.is_empty() {
        vec!["downlink", "uplink"]
    } else {
        s.links.iter().map(|l| l.name.as_str()).collect()
    }
}

fn not_with_shorthand(path: &str, field: &str, route: &[String]) -> Result<(), ScenarioError> {
    if route.is_empty() {
        return Ok(());
    }
    err(
        format!("{path}.{field}"),
        format!("{route:?}: routes need [[links]]; with downlink and uplink, give direction = \"down\" or \"up\""),
    )
}

fn check_shorthand_routes(s: &Scenario) -> Result<(), ScenarioError> {
    for (i, f) in s.flows.iter().enumerate() {
        let path = format!("flows[{i}]");
        not_with_shorthand(&path, "route", &f.route)?;
        not_with_shorthand(&path, "ack_route", &f.ack_route)?;
    }
    for (i, u) in s.udp.iter().enumerate() {
        not_with_shorthand(&format!("udp[{i}]"), "route", &u.route)?;
    }
    if let Some(b) = &s.background {
        not_with_shorthand("background", "route", &b.route)?;
        not_with_shorthand("background", "ack_route", &b.ack_route)?;
    }
    Ok(())
}

fn no_direction(path: &str, direction: Option<Direction>) -> Result<(), ScenarioError> {
    match direction {
        None => Ok(()),
        Some(d) => err(
            format!("{path}.direction"),
            format!(
                "\"{}\" belongs to the dumbbell shorthand; with [[links]], give route = [...] (and ack_route for TCP)",
                format!("{d:?}").to_lowercase()
            ),
        ),
    }
}

/// One route: not empty, known names, no link twice. Marks the links used.
fn check_route(path: &str, route: &[String], names: &[&str], used: &mut [bool]) -> Result<(), ScenarioError> {
    if route.is_empty() {
        return err(
            path,
            format!("is needed with [[links]]: the names of the links crossed, in order; links: {}", names.join(", ")),
        );
    }
    if route.len() > MAX_ROUTE_LINKS {
        return err(path, format!("{} links; a route crosses at most {MAX_ROUTE_LINKS}", route.len()));
    }
    for (j, name) in route.iter().enumerate() {
        let Some(k) = names.iter().position(|n| n == name) else {
            return err(
                format!("{path}[{j}]"),
                format!("\"{name}\" is not a link{}; links: {}", suggestion(name, names), names.join(", ")),
            );
        };
        if route[..j].contains(name) {
            return err(format!("{path}[{j}]"), format!("\"{name}\" comes twice; a route crosses a link once"));
        }
        used[k] = true;
    }
    Ok(())
}

fn check_named_routes(s: &Scenario) -> Result<(), ScenarioError> {
    let names = link_names(s);
    let mut used = vec![false; names.len()];
    for (i, f) in s.flows.iter().enumerate() {
        let path = format!("flows[{i}]");
        no_direction(&path, f.direction)?;
        check_route(&format!("{path}.route"), &f.route, &names, &mut used)?;
        check_route(&format!("{path}.ack_route"), &f.ack_route, &names, &mut used)?;
    }
    for (i, u) in s.udp.iter().enumerate() {
        let path = format!("udp[{i}]");
        no_direction(&path, u.direction)?;
        check_route(&format!("{path}.route"), &u.route, &names, &mut used)?;
    }
    if let Some(b) = &s.background {
        no_direction("background", b.direction)?;
        check_route("background.route", &b.route, &names, &mut used)?;
        let tcp = b.kind == super::BackgroundKind::PoissonWeb && b.transport == TransportSpec::Tcp;
        if tcp {
            check_route("background.ack_route", &b.ack_route, &names, &mut used)?;
        } else if !b.ack_route.is_empty() {
            return err(
                "background.ack_route",
                "only TCP transfers have ACKs (kind = \"poisson-web\", transport = \"tcp\")",
            );
        }
    }
    if let Some(k) = used.iter().position(|u| !u) {
        return err(
            format!("links[{k}]"),
            format!(
                "\"{}\" is on no route; every link must be crossed by a flow's route or ack_route, a UDP source's or the background's route",
                names[k]
            ),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    const LINKS: &str =
        r#""links": [{"name": "a", "rate": "10Mbit", "delay": "5ms"}, {"name": "b", "rate": "10Mbit"}]"#;
    const FLOW: &str = r#"{"cc": "reno", "route": ["a"], "ack_route": ["b"]}"#;

    fn named(links: &str, flows: &str, extra: &str) -> String {
        format!(r#"{{"duration": 10, {links}, "flows": [{flows}]{extra}}}"#)
    }

    /// (scenario JSON, expected path, words the message must contain)
    fn bad() -> Vec<(String, &'static str, Vec<&'static str>)> {
        let down = r#""downlink": {"rate": "10Mbit"}"#;
        let queue = |q: &str| format!(r#""downlink": {{"rate": "10Mbit", "delay": "10ms", "queue": {q}}}"#);
        vec![
            // Thresholds a queue of that many packets never reaches.
            (
                named(&queue(r#"{"size": "100pkt", "ecn_threshold": 100}"#), r#"{"cc": "dctcp"}"#, ""),
                "downlink.queue.ecn_threshold",
                vec!["100 packets is never reached", "size is 100 packets", "below 100"],
            ),
            (
                // 10 Mbit/s x 20 ms (the mirrored uplink's 10 ms too) = 25,000 bytes: 17 packets.
                named(&queue(r#"{"size": "1bdp", "ecn_threshold": 40}"#), r#"{"cc": "dctcp"}"#, ""),
                "downlink.queue.ecn_threshold",
                vec!["40 packets", "size 1bdp comes to 17 packets here", "below 17 packets"],
            ),
            (
                named(
                    r#""links": [{"name": "a", "rate": "10Mbit", "queue": {"size": "8pkt", "ecn_threshold": 9}},
                                 {"name": "b", "rate": "10Mbit"}]"#,
                    FLOW,
                    "",
                ),
                "links[0].queue.ecn_threshold",
                vec!["9 packets is never reached", "size is 8 packets"],
            ),
            (
                named(&queue(r#"{"kind": "red", "size": "4pkt"}"#), r#"{"cc": "reno"}"#, ""),
                "downlink.queue.min_th",
                vec!["5 packets (the default) is never reached", "size is 4 packets", "RED would never act"],
            ),
            (
                named(
                    &queue(r#"{"kind": "red", "size": "20pkt", "min_th": 30, "max_th": 60}"#),
                    r#"{"cc": "reno"}"#,
                    "",
                ),
                "downlink.queue.min_th",
                vec!["30 packets is never reached"],
            ),
            (named(&format!("{down}, {LINKS}"), FLOW, ""), "links", vec!["either downlink", "not both"]),
            (r#"{"duration": 10, "flows": [{"cc": "reno"}]}"#.into(), "downlink", vec!["missing", "[[links]]"]),
            (
                named(&format!(r#""uplink": {{"rate": "1Mbit"}}, {LINKS}"#), FLOW, ""),
                "uplink",
                vec!["shorthand", "[[links]]"],
            ),
            (
                named(down, r#"{"cc": "reno", "route": ["a"]}"#, ""),
                "flows[0].route",
                vec!["[\"a\"]", "need [[links]]", "direction"],
            ),
            (
                named(down, r#"{"cc": "reno"}"#, r#", "udp": [{"rate": "1Mbit", "route": ["a"]}]"#),
                "udp[0].route",
                vec!["need [[links]]"],
            ),
            (
                r#"{"duration": 10, "downlink": {"rate": "1Mbit", "name": "x"}, "flows": [{"cc": "reno"}]}"#.into(),
                "downlink.name",
                vec!["\"x\"", "downlink and uplink"],
            ),
            (named(r#""links": [{"rate": "1Mbit"}]"#, FLOW, ""), "links[0].name", vec!["needs a name", "letters"]),
            (
                named(r#""links": [{"name": "a b", "rate": "1Mbit"}]"#, FLOW, ""),
                "links[0].name",
                vec!["\"a b\"", "allowed"],
            ),
            (named(r#""links": [{"name": "all", "rate": "1Mbit"}]"#, FLOW, ""), "links[0].name", vec!["reserved"]),
            (
                named(r#""links": [{"name": "a", "rate": "1Mbit"}, {"name": "a", "rate": "2Mbit"}]"#, FLOW, ""),
                "links[1].name",
                vec!["\"a\"", "links[0]", "unique"],
            ),
            (named(r#""links": [{"name": "a", "rate": "-1Mbit"}]"#, FLOW, ""), "links[0].rate", vec!["negative"]),
            (
                r#"{"duration": 10, "downlink": {"rate": "5Mbit", "delay": "10ms", "queue": {"size": "0.0001bdp"}},
                    "flows": [{"cc": "reno"}]}"#
                    .into(),
                "downlink.queue.size",
                vec!["0.0001bdp", "0.001 packets", "5.0000 Mbit/s x 20 ms", "at least one packet"],
            ),
            (
                // No size given: the default is what fails, and the message says which field to set.
                r#"{"duration": 10, "downlink": {"rate": "10kbit", "delay": "10ms"}, "flows": [{"cc": "reno"}]}"#
                    .into(),
                "downlink.queue",
                vec![
                    "the default size, 1bdp, is 0.017 packets",
                    "x 20 ms",
                    "; set downlink.queue.size to a larger multiple or a size such as \"20pkt\"",
                ],
            ),
            (
                named(
                    r#""links": [{"name": "a", "rate": "10Mbit", "delay": "5ms"}, {"name": "b", "rate": "10Mbit"},
                                 {"name": "u", "rate": "10Mbit", "delay": "1ms", "queue": {"size": "0.05bdp"}}]"#,
                    FLOW,
                    r#", "udp": [{"rate": "1Mbit", "route": ["u"]}]"#,
                ),
                "links[2].queue.size",
                vec!["0.05bdp is 0.083 packets", "x 2 ms base RTT"],
            ),
            (named(r#""links": [{"name": "a"}]"#, FLOW, ""), "links[0]", vec!["exactly one of rate"]),
            (
                named(LINKS, r#"{"cc": "reno", "ack_route": ["b"]}"#, ""),
                "flows[0].route",
                vec!["is needed", "links: a, b"],
            ),
            (
                named(LINKS, r#"{"cc": "reno", "route": [], "ack_route": ["b"]}"#, ""),
                "flows[0].route",
                vec!["is needed"],
            ),
            (named(LINKS, r#"{"cc": "reno", "route": ["a"]}"#, ""), "flows[0].ack_route", vec!["is needed"]),
            (
                named(LINKS, r#"{"cc": "reno", "route": ["a", "c"], "ack_route": ["b"]}"#, ""),
                "flows[0].route[1]",
                vec!["\"c\" is not a link", "links: a, b"],
            ),
            (
                named(LINKS, r#"{"cc": "reno", "route": ["a", "a"], "ack_route": ["b"]}"#, ""),
                "flows[0].route[1]",
                vec!["\"a\" comes twice"],
            ),
            (
                named(LINKS, r#"{"cc": "reno", "route": ["a"], "ack_route": ["b"], "direction": "up"}"#, ""),
                "flows[0].direction",
                vec!["\"up\"", "route"],
            ),
            (
                named(LINKS, r#"{"cc": "reno", "route": ["a"], "ack_route": ["a"]}"#, ""),
                "links[1]",
                vec!["\"b\" is on no route"],
            ),
            (named(LINKS, FLOW, r#", "udp": [{"rate": "1Mbit"}]"#), "udp[0].route", vec!["is needed"]),
            (
                named(LINKS, FLOW, r#", "background": {"kind": "poisson-web", "load": 0.5, "route": ["a"]}"#),
                "background.ack_route",
                vec!["is needed"],
            ),
            (
                named(
                    LINKS,
                    FLOW,
                    r#", "background": {"kind": "on-off", "load": 0.5, "route": ["a"], "ack_route": ["b"]}"#,
                ),
                "background.ack_route",
                vec!["only TCP"],
            ),
            (
                named(LINKS, FLOW, r#", "record": {"pcap": {"path": "x.pcap", "link": "downlink"}}"#),
                "record.pcap.link",
                vec!["\"downlink\" is not a link", "a, b, both, all"],
            ),
            (
                named(
                    r#""downlink": {"rate": "1Mbit"}"#,
                    r#"{"cc": "reno"}"#,
                    r#", "record": {"pcap": {"path": "x.pcap", "link": "uplnk"}}"#,
                ),
                "record.pcap.link",
                vec!["did you mean 'uplink'"],
            ),
        ]
    }

    #[test]
    fn every_malformed_topology_names_path_value_and_choices() {
        for (json, path, words) in bad() {
            let e = Scenario::from_json(&json).expect_err(&json);
            assert_eq!(e.path, path, "{json}: {e}");
            for w in words {
                assert!(e.message.contains(w), "{json}: message \"{}\" lacks \"{w}\"", e.message);
            }
        }
    }

    #[test]
    fn well_formed_topologies_pass_and_keep_their_routes() {
        let s = Scenario::from_json(&named(
            LINKS,
            FLOW,
            r#", "udp": [{"rate": "1Mbit", "route": ["a", "b"]}],
               "background": {"kind": "poisson-web", "load": 0.5, "route": ["a"], "ack_route": ["b"]},
               "record": {"pcap": {"path": "x.pcap", "link": "b"}}"#,
        ))
        .unwrap();
        assert_eq!(s.flows[0].route, ["a"]);
        assert_eq!(s.flows[0].direction, None);
        // The shorthand's directions are written out, as before.
        let s = Scenario::from_json(r#"{"duration": 1, "downlink": {"rate": "1Mbit"}, "flows": [{"cc": "reno"}]}"#)
            .unwrap();
        let normalized = serde_json::to_value(&s).unwrap();
        assert_eq!(normalized["flows"][0]["direction"], "down");
        assert!(normalized["flows"][0].get("route").is_none() && normalized.get("links").is_none());
        assert_eq!(normalized["record"]["pcap"], serde_json::Value::Null);
    }
}
