//! Kernel mode's per-ACK RTT samples, taken on the wire as the simulator's
//! sender takes them (ccsim's `tcp::sender` `on_ack`, after Linux
//! tcp_clean_rtx_queue and tcp_ack_update_rtt), so that the `rtt` table, the
//! flows' RTT statistics and the base RTT mean the same in both modes (SPEC
//! section 5: RTT from per-ACK samples; base RTT = minimum; queuing time =
//! RTT - minimum).
//!
//! The kernel keeps its samples to itself: TCP_INFO has the smoothed RTT and
//! a minimum that counts the handshake, whose SYN is too small to wait a
//! full segment's serialization (1 Mbit/s, 10 ms one way: 21.2 ms against
//! the data's 36 ms). The emulator sees every segment a flow's sender sends
//! (as it enters the data link, dropped there or not) and every ACK the
//! sender gets (as the ACK link delivers it), and times them itself:
//!
//! - a data segment above the highest sequence sent is new and keeps its
//!   send time; one below it is a retransmission and marks the segments it
//!   covers as retransmitted (the SYN and FIN carry no data: no segment);
//! - an ACK's SACK blocks mark the segments they cover whole; the last newly
//!   SACKed one never retransmitted gives the SACK sample;
//! - a cumulative ACK removes the segments it covers: the oldest never
//!   retransmitted nor SACKed gives the sample (Karn), none if one of them
//!   was retransmitted (those above it may have waited for it);
//! - failing that the SACK sample, failing that (for an ACK of new data)
//!   the time since the sender first sent the timestamp value the ACK echoes.
//!
//! Differences from the simulator's sender: the times are the emulator's TUN
//! reads and writes (within microseconds of the kernel's own), and Linux's
//! timestamps tick in milliseconds, so a sample from an echoed timestamp can
//! be up to 1 ms long.

use crate::ip::{self, TcpHeader};
use ccsim::net::packet::{Kind, Packet};
use ccsim::record::rtt_samples::RttSamples;
use ccsim::record::rtt_stats::{self, RttStats};
use ccsim::record::table::Table;
use std::collections::VecDeque;

/// Sequence (or timestamp) `a` comes before `b`, modulo 2^32 (RFC 9293, RFC 7323).
#[inline]
fn before(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

#[derive(Clone, Copy, Debug)]
struct Segment {
    start: u32,
    end: u32,
    sent_at: u64,
    retransmitted: bool,
    sacked: bool,
}

/// One flow's segments in flight, in sequence order.
#[derive(Default)]
struct FlowRtt {
    started: bool,
    una: u32,
    high: u32,
    segments: VecDeque<Segment>,
    /// Each timestamp value of the flow's data and when it was first sent, in sending order.
    tsvals: VecDeque<(u32, u64)>,
}

impl FlowRtt {
    /// The index of the first segment that ends after `seq`.
    fn first_ending_after(&self, seq: u32) -> usize {
        self.segments.partition_point(|s| !before(seq, s.end))
    }

    fn mark_retransmitted(&mut self, start: u32, end: u32) {
        let from = self.first_ending_after(start);
        for s in self.segments.range_mut(from..) {
            if !before(s.start, end) {
                break;
            }
            s.retransmitted = true;
        }
    }

    /// The flow's sender sent data segment `h` at `now`.
    fn on_data(&mut self, now: u64, h: &TcpHeader) {
        let end = h.seq.wrapping_add(h.payload);
        if !self.started {
            (self.started, self.una, self.high) = (true, h.seq, h.seq);
        }
        if let Some((tsval, _)) = h.timestamps {
            if self.tsvals.back().is_none_or(|&(v, _)| v != tsval) {
                self.tsvals.push_back((tsval, now));
            }
        }
        if before(self.high, end) {
            let retransmitted = before(h.seq, self.high);
            if retransmitted {
                self.mark_retransmitted(h.seq, self.high);
            }
            let start = if retransmitted { self.high } else { h.seq };
            self.segments.push_back(Segment { start, end, sent_at: now, retransmitted, sacked: false });
            self.high = end;
        } else {
            self.mark_retransmitted(h.seq, end);
        }
    }

    /// The flow's sender got ACK `h` at `now`: its RTT sample, if it gives one.
    fn on_ack(&mut self, now: u64, h: &TcpHeader) -> Option<u64> {
        if !self.started {
            return None;
        }
        let mut sack_rtt = None;
        for &(left, right) in &h.sack[..h.sack_blocks] {
            let from = self.first_ending_after(left);
            for s in self.segments.range_mut(from..) {
                if before(right, s.end) {
                    break;
                }
                if !before(s.start, left) && !s.sacked {
                    s.sacked = true;
                    if !s.retransmitted {
                        sack_rtt = Some(now - s.sent_at);
                    }
                }
            }
        }
        let acked_new = before(self.una, h.ack);
        let (mut oldest, mut retransmitted_acked) = (None, false);
        if acked_new {
            while let Some(s) = self.segments.front_mut() {
                if before(h.ack, s.end) {
                    // Partly ACKed (a retransmission cut differently): the rest stays.
                    if before(s.start, h.ack) {
                        s.start = h.ack;
                    }
                    break;
                }
                let s = self.segments.pop_front().expect("a front segment");
                if !s.sacked {
                    if s.retransmitted {
                        retransmitted_acked = true;
                    } else {
                        oldest.get_or_insert(now - s.sent_at);
                    }
                }
            }
            self.una = h.ack;
        }
        if retransmitted_acked {
            oldest = None;
        }
        let echoed = h.timestamps.map(|(_, tsecr)| tsecr).filter(|&t| t != 0);
        if let Some(tsecr) = echoed {
            // An echo never goes back (RFC 7323: TS.Recent only grows), so older values go.
            while self.tsvals.front().is_some_and(|&(v, _)| before(v, tsecr)) {
                self.tsvals.pop_front();
            }
        }
        oldest.or(sack_rtt).or_else(|| {
            let tsecr = echoed.filter(|_| acked_new)?;
            self.tsvals.front().filter(|&&(v, _)| v == tsecr).map(|&(_, sent)| now - sent)
        })
    }
}

/// The RTT samples of a run's flows: statistics from every sample, and the
/// `rtt` table's rows as `record.rtt_samples` keeps them (ccsim's own code).
pub struct AckRtt {
    /// The flows' receivers listen on `first_port + flow`.
    first_port: u16,
    flows: Vec<FlowRtt>,
    stats: Vec<RttStats>,
    samples: RttSamples,
}

impl AckRtt {
    /// For `flows` flows whose receivers listen on `first_port`, `first_port + 1`, ...;
    /// the rtt table keeps at most `per_flow` samples of each (None: all), drawn
    /// from `seed` as the simulator draws.
    pub fn new(first_port: u16, flows: usize, per_flow: Option<u64>, seed: u64) -> AckRtt {
        AckRtt {
            first_port,
            flows: (0..flows).map(|_| FlowRtt::default()).collect(),
            stats: vec![RttStats::default(); flows],
            samples: RttSamples::new(per_flow, flows, seed),
        }
    }

    /// The flow whose receiver listens on `port`, if one does.
    fn flow(&self, port: u16) -> Option<usize> {
        let i = port.wrapping_sub(self.first_port) as usize;
        (i < self.flows.len()).then_some(i)
    }

    /// Packet `p` (`bytes`) entered a link at `now`: a flow's data segment counts.
    #[inline]
    pub fn on_sent(&mut self, now: u64, p: &Packet, bytes: &[u8]) {
        // `flow` holds the ports: the destination in its low half.
        if p.kind != Kind::Data {
            return;
        }
        if let (Some(i), Some(h)) = (self.flow(p.flow as u16), ip::tcp_header(bytes)) {
            self.flows[i].on_data(now, &h);
        }
    }

    /// A link delivered packet `p` (`bytes`) at `now`: an ACK from a flow's receiver counts.
    #[inline]
    pub fn on_delivered(&mut self, now: u64, p: &Packet, bytes: &[u8]) {
        if p.kind == Kind::Udp {
            return;
        }
        if let (Some(i), Some(h)) = (self.flow((p.flow >> 16) as u16), ip::tcp_header(bytes)) {
            if let Some(rtt) = self.flows[i].on_ack(now, &h) {
                self.stats[i].add(rtt as f64 / 1e6);
                self.samples.push(now, i, rtt);
            }
        }
    }

    /// The `rtt` table and a table of each flow's RTT statistics (the
    /// simulator's flows-table columns, a row per flow).
    pub fn finish(mut self) -> (Table, Table) {
        self.stats.iter_mut().for_each(RttStats::flush);
        let mut stats = Table::new();
        rtt_stats::add_columns(&mut stats, &self.stats);
        (self.samples.into_table(), stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u32, len: u32, tsval: u32) -> TcpHeader {
        TcpHeader { seq, payload: len, timestamps: Some((tsval, 0)), ..TcpHeader::default() }
    }

    fn ack(ack: u32, sack: &[(u32, u32)], tsecr: u32) -> TcpHeader {
        let mut h = TcpHeader { ack, timestamps: Some((0, tsecr)), ..TcpHeader::default() };
        h.sack[..sack.len()].copy_from_slice(sack);
        h.sack_blocks = sack.len();
        h
    }

    const MS: u64 = 1_000_000;

    #[test]
    fn a_cumulative_ack_samples_its_oldest_segment() {
        let mut f = FlowRtt::default();
        f.on_data(0, &data(1000, 100, 1));
        f.on_data(5 * MS, &data(1100, 100, 6));
        // A delayed ACK of both: the first one's RTT, as Linux's seq_rtt.
        assert_eq!(f.on_ack(40 * MS, &ack(1200, &[], 6)), Some(40 * MS));
        // A duplicate ACK without SACK gives none.
        assert_eq!(f.on_ack(41 * MS, &ack(1200, &[], 6)), None);
    }

    #[test]
    fn sacked_segments_sample_and_retransmissions_do_not() {
        let mut f = FlowRtt::default();
        for k in 0..4u32 {
            f.on_data(k as u64 * MS, &data(k * 100, 100, k + 1));
        }
        // Segment 0 is lost; the SACK of segment 1 samples it.
        assert_eq!(f.on_ack(30 * MS, &ack(0, &[(100, 200)], 1)), Some(29 * MS));
        assert_eq!(f.on_ack(31 * MS, &ack(0, &[(100, 300)], 1)), Some(29 * MS), "segment 2, sent at 2 ms");
        f.on_data(32 * MS, &data(0, 100, 33));
        // The ACK covers the retransmission: no sequence sample (Karn) and
        // nothing newly SACKed; the echoed timestamp (33, first sent at 32 ms) gives it.
        assert_eq!(f.on_ack(62 * MS, &ack(300, &[], 33)), Some(30 * MS));
        // An echo that no data carried gives none.
        f.on_data(63 * MS, &data(400, 100, 60));
        f.on_data(64 * MS, &data(300, 100, 61));
        assert_eq!(f.on_ack(90 * MS, &ack(500, &[], 59)), None);
    }

    #[test]
    fn sequence_numbers_wrap() {
        let mut f = FlowRtt::default();
        f.on_data(0, &data(u32::MAX - 49, 100, 1));
        f.on_data(MS, &data(50, 100, 2));
        assert_eq!(f.on_ack(20 * MS, &ack(50, &[], 1)), Some(20 * MS));
        assert_eq!(f.on_ack(22 * MS, &ack(150, &[], 2)), Some(21 * MS));
    }

    #[test]
    fn only_the_flows_segments_and_their_receivers_acks_count() {
        let mut a = AckRtt::new(20000, 1, None, 1);
        let packet = |source: u16, destination: u16, h: &TcpHeader| {
            let total = 52 + h.payload as u16;
            let mut b = vec![0u8; total as usize];
            b[0] = 0x45;
            b[2..4].copy_from_slice(&total.to_be_bytes());
            b[9] = 6;
            b[20..22].copy_from_slice(&source.to_be_bytes());
            b[22..24].copy_from_slice(&destination.to_be_bytes());
            b[24..28].copy_from_slice(&h.seq.to_be_bytes());
            b[28..32].copy_from_slice(&h.ack.to_be_bytes());
            b[32] = 8 << 4;
            (ip::to_packet(&b).unwrap(), b)
        };
        for (port, t) in [(20000, 0), (20001, MS)] {
            let (p, b) = packet(40000, port, &data(1, 100, 0));
            a.on_sent(t, &p, &b);
        }
        for (port, t) in [(20001, 10 * MS), (20000, 30 * MS)] {
            let (p, b) = packet(port, 40000, &ack(101, &[], 0));
            a.on_delivered(t, &p, &b);
        }
        let (rtt, stats) = a.finish();
        assert_eq!(rtt.f64("rtt_ms"), &[30.0][..]);
        assert_eq!(stats.f64("rtt_min_ms"), &[30.0][..]);
    }
}
