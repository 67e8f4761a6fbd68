//! UDP constant-bit-rate cross traffic with an on period [start, stop), as
//! in the high-speed study (200 Mbit/s from 50 s to 100 s of a 150 s run on
//! a 1 Gbit/s path) and iperf's `-u -b RATE` mode: fixed-size datagrams at
//! exact intervals, no reaction to loss.

use super::cbr::Cbr;
use crate::net::packet::{Kind, Packet, UDP_IP_HEADER_BYTES};
use crate::time::Nanos;

pub struct UdpCbr {
    pub id: u32,
    pub start: Nanos,
    pub stop: Nanos,
    cbr: Cbr,
    seq: u64,
}

impl UdpCbr {
    /// `wire_bytes`: the datagram's size on the wire, IPv4 and UDP headers included.
    pub fn new(id: u32, rate_bps: u64, wire_bytes: u32, start: Nanos, stop: Nanos) -> UdpCbr {
        UdpCbr { id, start, stop, cbr: Cbr::new(rate_bps, wire_bytes, start), seq: 0 }
    }

    pub fn next_wakeup(&self) -> Option<Nanos> {
        (self.cbr.next_at < self.stop).then_some(self.cbr.next_at)
    }

    pub fn advance(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        while self.cbr.next_at <= now && self.cbr.next_at < self.stop {
            out.push(datagram(self.id, self.cbr.wire_bytes, self.seq));
            self.seq += 1;
            self.cbr.step();
        }
    }
}

/// A UDP datagram of source `id`; `seq` numbers the source's datagrams.
#[inline]
pub fn datagram(id: u32, wire_bytes: u32, seq: u64) -> Packet {
    let mut p = Packet::new(Kind::Udp, id, wire_bytes);
    p.payload = wire_bytes.saturating_sub(UDP_IP_HEADER_BYTES);
    p.seq = seq;
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_SEC;

    #[test]
    fn sends_only_in_its_period_at_its_rate() {
        // 12 Mbit/s of 1500-byte datagrams is one per millisecond.
        let mut u = UdpCbr::new(0, 12_000_000, 1500, NS_PER_SEC, 2 * NS_PER_SEC);
        let mut out = Vec::new();
        u.advance(NS_PER_SEC / 2, &mut out);
        assert!(out.is_empty());
        assert_eq!(u.next_wakeup(), Some(NS_PER_SEC));
        while let Some(t) = u.next_wakeup() {
            u.advance(t, &mut out);
        }
        assert_eq!(out.len(), 1000);
        assert_eq!(out[0].payload, 1472);
        assert_eq!(out.last().unwrap().seq, 999);
    }
}
