//! Whole-simulator checks of the queue disciplines: with a
//! saturating set of cubic flows, drop-tail fills its buffer while RED keeps the
//! average queue between its thresholds and CoDel keeps the sojourn time near
//! its 5 ms target; with ECN on, both mark instead of dropping.

mod common;
use ccsim::record::table::Column;
use ccsim::Results;
use common::*;

const CAPACITY_BPS: f64 = 20e6;

fn run(queue: &str, ecn: bool) -> Results {
    simulate(&format!(
        r#"{{"duration": 60, "downlink": {{"rate": "20Mbit", "delay": "20ms", "queue": {queue}}},
            "flows": [{{"cc": "cubic", "count": 4, "tcp": {{"ecn": {ecn}}}}}], "record": {{"rtt_samples": false}}}}"#
    ))
}

fn total_goodput_bps(r: &Results) -> f64 {
    (0..r.flows.rows()).map(|i| goodput_bps(r, i)).sum()
}

/// Mean of a downlink series column over the second half of the run (after slow start).
fn downlink_mean(r: &Results, column: &str) -> f64 {
    let names = r.link_series.texts("link");
    let t = r.link_series.f64("t");
    let values: Vec<f64> = match r.link_series.get(column) {
        Some(Column::U64(v)) => v.iter().map(|x| *x as f64).collect(),
        Some(Column::F64(v)) => v.clone(),
        _ => panic!("no column {column}"),
    };
    let picked: Vec<f64> = (0..t.len())
        .filter(|&k| names[k] == "downlink" && t[k] >= 30.0 && !values[k].is_nan())
        .map(|k| values[k])
        .collect();
    picked.iter().sum::<f64>() / picked.len() as f64
}

#[test]
fn red_and_codel_keep_the_queue_short_where_drop_tail_fills_it() {
    // 4 BDP of buffer: 267 packets, 160 ms of queueing at 20 Mbit/s.
    let droptail = run(r#"{"size": "4bdp"}"#, false);
    let red = run(r#"{"kind": "red", "size": "4bdp", "min_th": 20, "max_th": 60}"#, false);
    let codel = run(r#"{"kind": "codel", "size": "4bdp"}"#, false);
    let capacity_pkts = 267.0;
    let (q_dt, q_red, q_codel) = (
        downlink_mean(&droptail, "queue_packets"),
        downlink_mean(&red, "queue_packets"),
        downlink_mean(&codel, "queue_packets"),
    );
    let (s_dt, s_codel) = (downlink_mean(&droptail, "sojourn_ms"), downlink_mean(&codel, "sojourn_ms"));
    eprintln!("mean queue: drop-tail {q_dt:.1} pkts ({s_dt:.1} ms), RED {q_red:.1} pkts, CoDel {q_codel:.1} pkts ({s_codel:.1} ms)");
    for (name, r) in [("drop-tail", &droptail), ("RED", &red), ("CoDel", &codel)] {
        eprintln!(
            "{name}: {:.2} Mbit/s, {} queue drops, {} AQM drops",
            total_goodput_bps(r) / 1e6,
            r.links.u64("queue_drops")[0],
            r.links.u64("aqm_drops")[0]
        );
    }
    // Drop-tail: cubic keeps the buffer mostly full.
    assert!(q_dt > 0.6 * capacity_pkts, "drop-tail mean queue {q_dt}");
    assert_eq!(droptail.links.u64("aqm_drops")[0], 0);
    // RED: the average queue sits between the thresholds, and the drops are early ones.
    assert!((10.0..=60.0).contains(&q_red), "RED mean queue {q_red}");
    let red_drops = red.links.u64("queue_drops")[0];
    assert!(red_drops > 0 && red.links.u64("aqm_drops")[0] == red_drops);
    // CoDel: sojourn near the 5 ms target (a single cubic flow oscillates around it).
    assert!(s_codel > 1.0 && s_codel < 12.0, "CoDel sojourn {s_codel} ms");
    assert!(s_dt > 80.0, "drop-tail sojourn {s_dt} ms");
    assert!(codel.links.u64("aqm_drops")[0] > 0);
    // Both AQMs still use the link.
    for r in [&red, &codel] {
        assert!(total_goodput_bps(r) > 0.9 * CAPACITY_BPS * 1448.0 / 1500.0, "{}", total_goodput_bps(r));
    }
}

#[test]
fn red_and_codel_mark_ecn_capable_packets_instead_of_dropping() {
    for queue in [
        r#"{"kind": "red", "size": "4bdp", "min_th": 20, "max_th": 60, "ecn": true}"#,
        r#"{"kind": "codel", "size": "4bdp", "ecn": true}"#,
    ] {
        let r = run(queue, true);
        let (marks, drops) = (r.links.u64("ecn_marks")[0], r.links.u64("aqm_drops")[0]);
        eprintln!(
            "{queue}: {marks} marks, {drops} AQM drops, {} ECN reductions",
            r.flows.u64("ecn_reductions").iter().sum::<u64>()
        );
        assert!(marks > 20 && drops == 0, "{queue}: {marks} marks, {drops} drops");
        assert!(r.flows.u64("ecn_reductions").iter().sum::<u64>() > 10);
        // Only slow start's overflow of the hard limit, if any, costs retransmissions.
        let retransmitted: u64 = r.flows.u64("retransmitted_segments").iter().sum();
        assert!(retransmitted <= 5, "{queue}: {retransmitted} retransmissions");
    }
}
