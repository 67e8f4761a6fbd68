//! The packet capture opens in Wireshark: a run with TCP flows of several
//! kinds (SACK, no SACK with a file transfer, ECN) and UDP cross traffic
//! writes a pcap that tshark reads without errors, and whose counts of
//! segments, retransmissions, SACK blocks and ECN flags match the run's own
//! counters. Needs tshark (Debian package `tshark`): without it the test
//! fails under CI=true and elsewhere says it is skipped.

mod common;
use common::*;
use std::process::Command;

fn tshark(file: &str, args: &[&str]) -> String {
    let out = Command::new("tshark")
        .args([
            "-n",
            "-r",
            file,
            "-o",
            "tcp.check_checksum:TRUE",
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "udp.check_checksum:TRUE",
        ])
        .args(args)
        .output()
        .expect("tshark runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tshark failed: {stderr}");
    assert!(!stderr.contains("damaged") && !stderr.contains("corrupt"), "{stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every packet's fields of interest, read in one tshark pass.
struct Capture {
    rows: Vec<Vec<String>>,
    names: Vec<&'static str>,
}

const FIELDS: &[&str] = &[
    "frame.number",
    "ip.src",
    "tcp.len",
    "tcp.flags.syn",
    "udp.length",
    "tcp.analysis.retransmission",
    "tcp.analysis.fast_retransmission",
    "tcp.analysis.spurious_retransmission",
    "tcp.analysis.out_of_order",
    "tcp.ack",
    "tcp.options.sack_le",
    "tcp.options.sack_perm",
    "tcp.options.timestamp.tsval",
    "ip.dsfield.ecn",
    "tcp.flags.ece",
    "tcp.flags.cwr",
    "_ws.malformed",
    "_ws.expert.severity",
    "tcp.checksum.status",
    "ip.checksum.status",
    "udp.checksum.status",
    "tcp",
];

impl Capture {
    fn read(file: &str) -> Capture {
        let mut args = vec!["-T", "fields", "-E", "separator=|", "-E", "occurrence=f"];
        for f in FIELDS {
            args.extend(["-e", f]);
        }
        let text = tshark(file, &args);
        let rows = text.lines().map(|l| l.split('|').map(str::to_string).collect()).collect();
        Capture { rows, names: FIELDS.to_vec() }
    }

    /// Packets for which `pred` holds.
    fn count(&self, pred: impl Fn(&Row) -> bool) -> u64 {
        self.rows.iter().filter(|cells| pred(&Row { cells, names: &self.names })).count() as u64
    }
}

struct Row<'a> {
    cells: &'a [String],
    names: &'a [&'static str],
}

impl Row<'_> {
    fn get(&self, name: &str) -> &str {
        let k = self.names.iter().position(|n| *n == name).expect("known field");
        self.cells.get(k).map_or("", |s| s.as_str())
    }
}

fn set(v: &str) -> bool {
    !v.is_empty() && v != "0" && v != "False"
}

/// Runs `json` with the capture `pcap_spec` set after validation: scenarios
/// may only name a relative capture path (the front end puts it in the run's
/// output directory), while these tests write to a temporary directory.
fn simulate_with_capture(json: &str, pcap_spec: &str) -> ccsim::Results {
    let mut s = scenario(json);
    s.record.pcap = Some(serde_json::from_str(pcap_spec).unwrap());
    ccsim::run(&s)
}

#[test]
fn tshark_reads_the_capture_and_agrees_with_the_counters() {
    if !require_tool("tshark", "apt-get install tshark") {
        return;
    }
    let dir = std::env::temp_dir().join(format!("ccsim-pcap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |snaplen: u32| {
        let path = dir.join(format!("run-{snaplen}.pcap")).to_str().unwrap().to_string();
        let r = simulate_with_capture(
            r#"{"duration": 8, "seed": 3,
                "downlink": {"rate": "20Mbit", "delay": "20ms", "queue": {"size": "0.5bdp", "ecn_threshold": 8},
                              "loss": {"model": "bernoulli", "p": 0.005}},
                "uplink": {"rate": "20Mbit", "delay": "20ms"},
                "flows": [{"cc": "cubic"},
                          {"cc": "reno", "size": "1MB", "start": "1s", "tcp": {"sack": false}},
                          {"cc": "newreno", "start": "2s", "access_delay": "5ms", "tcp": {"ecn": true}}],
                "udp": [{"rate": "2Mbit", "start": "3s", "stop": "5s"}]}"#,
            &format!(r#"{{"path": {path:?}, "snaplen": {snaplen}}}"#),
        );
        (r, path)
    };
    let (r, file) = run(128);
    let pcap = r.pcap.clone().expect("capture summary");
    assert_eq!(pcap.error, None);

    // No malformed packets, no errors in the expert summary.
    let expert = tshark(&file, &["-q", "-z", "expert"]);
    assert!(!expert.contains("Errors") && !expert.contains("Malformed"), "{expert}");
    let c = Capture::read(&file);
    assert_eq!(
        c.count(|f: &Row| !f.get("_ws.malformed").is_empty() || f.get("_ws.expert.severity").contains("8388608")),
        0
    );
    assert_eq!(c.rows.len() as u64, pcap.packets);

    // Every data segment and datagram is there, and each flow has its own addresses.
    let segments: u64 = r.flows.u64("segments_sent").iter().sum();
    let data = |f: &Row| f.get("tcp.len").parse::<u32>().is_ok_and(|n| n > 0);
    assert_eq!(c.count(data), segments);
    assert_eq!(c.count(|f: &Row| set(f.get("tcp.flags.syn"))), 6);
    assert_eq!(c.count(|f: &Row| !f.get("udp.length").is_empty()), r.sources.u64("packets_sent")[0]);
    let convs = tshark(&file, &["-q", "-z", "conv,tcp"]);
    assert_eq!(convs.lines().filter(|l| l.contains("<->")).count(), 3, "{convs}");

    // Wireshark finds exactly the run's retransmissions (a sender-side capture
    // never reorders, so its "out-of-order" verdicts are retransmissions too).
    let retransmitted: u64 = r.flows.u64("retransmitted_segments").iter().sum();
    assert!(retransmitted > 10, "the scenario should lose packets");
    let flagged = c.count(|f: &Row| {
        [
            "tcp.analysis.retransmission",
            "tcp.analysis.fast_retransmission",
            "tcp.analysis.spurious_retransmission",
            "tcp.analysis.out_of_order",
        ]
        .iter()
        .any(|n| !f.get(n).is_empty())
    });
    assert_eq!(flagged, retransmitted);

    // Byte sequence numbers: the 1 MB transfer is acknowledged up to byte
    // 1,000,000 (relative ack 1,000,001 after the SYN).
    let last_ack = c
        .rows
        .iter()
        .filter(|r| r[1] == "10.2.0.2" && !set(&r[3]))
        .filter_map(|r| r[9].parse::<u64>().ok())
        .max()
        .unwrap();
    assert_eq!(last_ack, 1_000_001);
    // SACK blocks on the SACK flows' ACKs, none on the flow without SACK.
    assert!(c.count(|f: &Row| f.get("ip.src") == "10.2.0.1" && !f.get("tcp.options.sack_le").is_empty()) > 0);
    assert_eq!(c.count(|f: &Row| f.get("ip.src") == "10.2.0.2" && !f.get("tcp.options.sack_le").is_empty()), 0);
    assert_eq!(c.count(|f: &Row| f.get("ip.src") == "10.2.0.2" && !f.get("tcp.options.sack_perm").is_empty()), 0);
    // Timestamps on every TCP segment.
    assert_eq!(c.count(|f: &Row| !f.get("tcp").is_empty() && f.get("tcp.options.timestamp.tsval").is_empty()), 0);
    // ECN: the ECN flow's new data is ECT(0) and its retransmissions are
    // not ECN-capable (RFC 3168 6.1.5, as Linux sends them); its receiver
    // echoes the queue's CE marks (ECE), and the sender announces each window
    // reduction with one CWR: the ECN echoes' and the losses' (Linux queues
    // CWR on both; here new data followed each of them).
    let flow2 = |f: &Row| f.get("ip.src") == "10.1.0.3";
    let retransmitted = r.flows.u64("retransmitted_segments")[2];
    assert!(retransmitted > 0, "the scenario should lose some of the ECN flow's segments");
    assert_eq!(
        c.count(|f: &Row| flow2(f) && data(f) && f.get("ip.dsfield.ecn") == "2"),
        r.flows.u64("segments_sent")[2] - retransmitted
    );
    assert_eq!(c.count(|f: &Row| flow2(f) && data(f) && f.get("ip.dsfield.ecn") == "0"), retransmitted);
    assert_eq!(c.count(|f: &Row| f.get("ip.src") == "10.1.0.1" && !matches!(f.get("ip.dsfield.ecn"), "0" | "")), 0);
    assert!(r.links.u64("ecn_marks")[0] > 0, "the scenario should mark");
    let not_syn = |f: &Row| !set(f.get("tcp.flags.syn"));
    assert!(c.count(|f: &Row| f.get("ip.src") == "10.2.0.3" && set(f.get("tcp.flags.ece")) && not_syn(f)) > 0);
    let reductions = ["ecn_reductions", "fast_recoveries", "timeouts"].map(|k| r.flows.u64(k)[2]);
    assert!(reductions[0] > 0 && reductions[1] > 0, "reductions of both kinds: {reductions:?}");
    assert_eq!(
        c.count(|f: &Row| flow2(f) && set(f.get("tcp.flags.cwr")) && not_syn(f)),
        reductions.iter().sum::<u64>()
    );

    // With full packets kept, every checksum verifies (status 1 = good, 0 = bad).
    let (_, full) = run(2000);
    let c = Capture::read(&full);
    let st = ["tcp.checksum.status", "ip.checksum.status", "udp.checksum.status"];
    assert_eq!(c.count(|f: &Row| st.iter().any(|n| f.get(n) == "0")), 0);
    assert_eq!(c.count(|f: &Row| f.get("ip.checksum.status") == "1"), c.rows.len() as u64);
    assert_eq!(
        c.count(|f: &Row| f.get("tcp.checksum.status") == "1" || f.get("udp.checksum.status") == "1"),
        c.rows.len() as u64
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_unwritable_path_is_reported_and_the_run_still_completes() {
    // Missing folders are created, so the capture goes below a regular file,
    // which no one (root included) can make a folder of.
    let file = std::env::temp_dir().join(format!("ccsim-pcap-not-a-folder-{}", std::process::id()));
    std::fs::write(&file, b"").unwrap();
    let path = file.join("x.pcap").to_str().unwrap().to_string();
    let r = simulate_with_capture(
        r#"{"duration": 1, "downlink": {"rate": "10Mbit", "delay": "10ms"}, "flows": [{"cc": "cubic"}]}"#,
        &format!(r#"{{"path": {path:?}}}"#),
    );
    std::fs::remove_file(&file).ok();
    let p = r.pcap.expect("summary");
    assert!(p.error.as_deref().is_some_and(|e| e.contains(&path)), "{p:?}");
    assert_eq!(p.packets, 0);
    assert!(r.flows.u64("delivered_bytes")[0] > 0);
}
