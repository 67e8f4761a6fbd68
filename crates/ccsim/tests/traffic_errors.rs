//! Every malformed traffic entry ([[udp]], [background], record.pcap) is
//! refused with one error naming the field path and the bad value.

use ccsim::Scenario;

fn error_of(extra: &str) -> (String, String) {
    let json = format!(
        r#"{{"duration": 100, "downlink": {{"rate": "10Mbit", "delay": "10ms"}}, "flows": [{{"cc": "cubic"}}] {extra}}}"#
    );
    let e = Scenario::from_json(&json).expect_err(&format!("should be refused: {extra}"));
    (e.path, e.message)
}

#[test]
fn traffic_entries_that_are_wrong_name_their_field() {
    let cases: &[(&str, &str, &str)] = &[
        (r#", "udp": [{"start": 1}]"#, "udp[0]", "rate"),
        (r#", "udp": [{"rate": "1Mbit"}, {"rate": "fast"}]"#, "udp[1].rate", "fast"),
        (r#", "udp": [{"rate": "1Mbit", "colour": 1}]"#, "udp[0].colour", "colour"),
        (r#", "udp": [{"rate": "1Mbit", "start": 200}]"#, "udp[0].start", "200"),
        (r#", "udp": [{"rate": "1Mbit", "start": 50, "stop": 40}]"#, "udp[0].stop", "after start"),
        (r#", "udp": [{"rate": "1Mbit", "direction": "sideways"}]"#, "udp[0].direction", "sideways"),
        (r#", "udp": [{"rate": "1Mbit", "packet_size": 20}]"#, "udp[0].packet_size", "20 bytes"),
        (r#", "background": {"load": 0.3}"#, "background", "kind"),
        (r#", "background": {"kind": "poisson", "load": 0.3}"#, "background.kind", "poisson-web"),
        (r#", "background": {"kind": "on-off", "load": 0}"#, "background.load", "0"),
        (r#", "background": {"kind": "on-off", "load": 0.2, "sources": 0}"#, "background.sources", "0"),
        (r#", "background": {"kind": "on-off", "load": 0.2, "rate": "1Mbit"}"#, "background.rate", "load"),
        (r#", "background": {"kind": "on-off", "load": 0.2, "on": 0}"#, "background.on", "longer than zero"),
        (
            r#", "background": {"kind": "poisson-web", "load": 0.2, "cc": "cubc"}"#,
            "background.cc",
            "did you mean 'cubic'",
        ),
        (r#", "background": {"kind": "poisson-web", "load": 0.2, "tcp": {"mss": 5}}"#, "background.tcp.mss", "5"),
        (
            r#", "background": {"kind": "poisson-web", "load": 0.2, "size": {"dist": "zipf"}}"#,
            "background.size.dist",
            "zipf",
        ),
        (
            r#", "background": {"kind": "poisson-web", "load": 0.2, "size": {"shape": 1.0}}"#,
            "background.size.shape",
            "1",
        ),
        (
            r#", "background": {"kind": "poisson-web", "load": 0.2, "size": {"mean": 0}}"#,
            "background.size.mean",
            "one byte",
        ),
        (
            r#", "background": {"kind": "poisson-web", "load": 0.2, "profile": [[0, 1], [10, -1]]}"#,
            "background.profile[1]",
            "-1",
        ),
        (
            r#", "background": {"kind": "poisson-web", "load": 0.2, "profile": [[10, 1], [5, 2]]}"#,
            "background.profile",
            "decrease",
        ),
        (
            r#", "background": {"kind": "poisson-web", "load": 0.2, "profile": [[0, 0]]}"#,
            "background.profile",
            "nothing",
        ),
        (
            r#", "background": {"kind": "poisson-web", "load": 0.2, "profile": [[0]]}"#,
            "background.profile[0]",
            "expected a tuple of size 2",
        ),
        (
            r#", "background": {"kind": "poisson-web", "load": 0.2, "interpolation": "cubic"}"#,
            "background.interpolation",
            "cubic",
        ),
        (r#", "background": {"kind": "poisson-web", "load": 0.2, "rate": "1Mbit"}"#, "background.rate", "udp"),
        (
            r#", "background": {"kind": "poisson-web", "load": 0.2, "start": 30, "stop": 20}"#,
            "background.stop",
            "after start",
        ),
        (r#", "record": {"pcap": {"path": ""}}"#, "record.pcap.path", "file name"),
        (r#", "record": {"pcap": {"path": "/etc/passwd"}}"#, "record.pcap.path", "relative name"),
        (r#", "record": {"pcap": {"path": "a/../../x.pcap"}}"#, "record.pcap.path", "without '..'"),
        (r#", "record": {"pcap": {"path": "x.pcap", "snaplen": 40}}"#, "record.pcap.snaplen", "40"),
        (r#", "record": {"pcap": {"path": "x.pcap", "link": "sidelink"}}"#, "record.pcap.link", "sidelink"),
        (r#", "record": {"pcap": {"link": "downlink"}}"#, "record.pcap", "path"),
    ];
    for (extra, path, needle) in cases {
        let (p, m) = error_of(extra);
        assert_eq!(&p, path, "{extra}: {p}: {m}");
        assert!(m.contains(needle), "{extra}: message '{m}' should mention '{needle}'");
    }
}

#[test]
fn good_traffic_entries_are_accepted_with_defaults() {
    let s = Scenario::from_json(
        r#"{"duration": 100, "downlink": {"rate": "10Mbit"}, "flows": [{"cc": "cubic"}],
            "udp": [{"rate": "200Mbit", "start": "50s", "stop": "100s", "direction": "down", "packet_size": 1500}],
            "background": {"kind": "poisson-web", "load": 0.3, "profile": [["0s", 0.5], ["6h", 1.0]]},
            "record": {"pcap": {"path": "x.pcap"}}}"#,
    )
    .unwrap();
    let b = s.background.unwrap();
    assert_eq!((b.cc.as_str(), b.size.mean.0, b.size.shape), ("cubic", 100_000, 1.5));
    assert_eq!(s.record.pcap.unwrap().snaplen, 128);
}

#[test]
fn algorithm_parameters_of_the_wrong_kind_name_their_field() {
    let error_of_flow = |flow: &str| {
        let json =
            format!(r#"{{"duration": 10, "downlink": {{"rate": "10Mbit", "delay": "10ms"}}, "flows": [{flow}]}}"#);
        let e = Scenario::from_json(&json).expect_err(flow);
        (e.path, e.message)
    };
    let (path, message) = error_of_flow(r#"{"cc": "vegas", "cc_params": {"alpha": 2.9}}"#);
    assert_eq!(path, "flows[0].cc_params.alpha");
    assert!(message.contains("2.9") && message.contains("integer"), "{message}");
    let (path, message) = error_of_flow(r#"{"cc": "cubic", "cc_params": {"hystart": 0.5}}"#);
    assert_eq!(path, "flows[0].cc_params.hystart");
    assert!(message.contains("0.5") && message.contains("0 or 1"), "{message}");
    let (path, message) = error_of_flow(r#"{"cc": "cubic", "cc_params": {"hystrat": 1}}"#);
    assert_eq!(path, "flows[0].cc_params.hystrat");
    assert!(message.contains("did you mean 'hystart'"), "{message}");
}
