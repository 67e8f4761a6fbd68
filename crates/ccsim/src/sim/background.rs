//! A scenario's background load as a schedule, for kernel mode: the TCP
//! transfers and UDP datagrams its `[background]` source offers, each with
//! its time, as the simulator's run of the same scenario and seed offers
//! them (the same source, built the same way, told the same times).
//!
//! The background's arrivals do not depend on the network (transfer
//! arrivals and sizes, on/off periods and datagram times are drawn from the
//! source's own random streams), so a real-kernel run that follows this
//! schedule carries exactly the simulator's offered load; what the network
//! does with it is the kernel's.

use super::World;
use crate::record::recorded::Recorded;
use crate::scenario::Scenario;
use crate::time::Nanos;
use crate::traffic::SourceCounters;

/// What the background offers, in time order.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct BackgroundSchedule {
    /// TCP transfers: start time and payload bytes.
    pub transfers: Vec<(Nanos, u64)>,
    /// UDP datagrams: send time and size on the wire (IP and UDP headers included).
    pub datagrams: Vec<(Nanos, u32)>,
    /// The source's own count of transfers (web objects, on periods) begun
    /// and, for UDP, finished sending; TCP transfers finish at their receiver.
    pub transfers_started: u64,
    pub transfers_finished: u64,
}

/// The schedule of the scenario's `[background]`, None if it has none.
pub fn background_schedule(s: &Scenario) -> Option<BackgroundSchedule> {
    s.background.as_ref()?;
    let mut quiet = s.clone();
    quiet.record.pcap = None; // building the world must not create the scenario's capture file
    let mut world = World::new(&quiet, Recorded::SUMMARIES_ONLY);
    // The background is the last source (sim::build::make_sources: [[udp]] first).
    let source = world.sources.last_mut()?;
    let (mut counters, mut out, mut spawn) = (SourceCounters::default(), Vec::new(), Vec::new());
    let mut schedule = BackgroundSchedule::default();
    while let Some(t) = source.next_wakeup().filter(|&t| t <= world.end) {
        source.advance(t, &mut counters, &mut out, &mut spawn);
        schedule.transfers.extend(spawn.drain(..).map(|x| (t, x.size_bytes)));
        schedule.datagrams.extend(out.drain(..).map(|p| (t, p.wire_bytes)));
    }
    schedule.transfers_started = counters.transfers_started;
    schedule.transfers_finished = counters.transfers_completed;
    Some(schedule)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(background: &str) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"duration": 20, "seed": 3,
                "downlink": {{"rate": "10Mbit", "delay": "10ms"}},
                "uplink": {{"rate": "10Mbit", "delay": "10ms"}},
                "flows": [{{"cc": "cubic"}}],
                "udp": [{{"rate": "1Mbit", "start": 1, "stop": 2}}],
                "background": {background}}}"#
        ))
        .unwrap()
    }

    /// The sources table of a simulated run of `s`: (packets_sent,
    /// transfers_started, transfers_completed) of the background.
    fn simulated(s: &Scenario) -> (u64, u64, u64) {
        let r = crate::sim::run(s);
        let row = r.sources.rows() - 1;
        let column = |name| r.sources.u64(name)[row];
        (column("packets_sent"), column("transfers_started"), column("transfers_completed"))
    }

    #[test]
    fn udp_background_is_the_simulators_datagrams() {
        let s = scenario(r#"{"kind": "on-off", "load": 0.3, "sources": 4, "on": "0.5s", "off": "0.5s"}"#);
        let schedule = background_schedule(&s).unwrap();
        assert!(schedule.transfers.is_empty());
        let (sent, started, finished) = simulated(&s);
        assert!(sent > 1000, "{sent}");
        assert_eq!(schedule.datagrams.len() as u64, sent);
        assert_eq!((schedule.transfers_started, schedule.transfers_finished), (started, finished));
        assert!(schedule.datagrams.windows(2).all(|w| w[0].0 <= w[1].0));
        assert!(schedule.datagrams.iter().all(|&(t, b)| t <= 20_000_000_000 && b == 1500));
    }

    #[test]
    fn tcp_background_is_the_simulators_transfers() {
        let s = scenario(r#"{"kind": "poisson-web", "load": 0.3, "size": {"dist": "fixed", "mean": "50KB"}}"#);
        let schedule = background_schedule(&s).unwrap();
        assert!(schedule.datagrams.is_empty());
        let (_, started, _) = simulated(&s);
        // 0.3 x 10 Mbit/s / 400 kbit = 7.5 transfers per second.
        assert!((100..200).contains(&started), "{started}");
        assert_eq!(schedule.transfers.len() as u64, started);
        assert_eq!(schedule.transfers_started, started);
        assert!(schedule.transfers.iter().all(|&(_, size)| size == 50_000));
    }

    #[test]
    fn udp_web_bursts_end_with_a_short_datagram_and_nothing_without_background() {
        let s = scenario(
            r#"{"kind": "poisson-web", "load": 0.1, "transport": "udp", "stop": 15,
                "size": {"dist": "fixed", "mean": "3000B"}}"#,
        );
        let schedule = background_schedule(&s).unwrap();
        // Every burst ends before the run does. 3000 bytes of payload:
        // 1472 + 1472 + 56 in datagrams of 1500, 1500 and 84 bytes.
        assert_eq!(schedule.datagrams.iter().filter(|d| d.1 == 84).count() * 3, schedule.datagrams.len());
        let mut none = s.clone();
        none.background = None;
        assert_eq!(background_schedule(&none), None);
    }
}
