//! Kernel mode's packet capture (`record.pcap`): the real packets the
//! emulator forwards, written as they are (ccsim's pcap writer, LINKTYPE_RAW,
//! nanosecond stamps since the run's start) at the capture point the
//! simulator uses: the senders' side, as tcpdump on a sender's host sees it.
//!
//! - What a TCP sender sends (data, its SYN and FIN, its ACKs of the
//!   handshake) and every UDP datagram: as it enters the flow's data link,
//!   whether or not the queue takes it.
//! - What a TCP receiver sends (ACKs, its SYN-ACK): as the other link
//!   delivers it to the sender, so ACKs lost on the way are not in the file.
//!
//! A TCP packet is the sender's if its destination port is a receiver's
//! listening port (kernel mode gives each flow one); the selected links
//! name the flows' data links, as `record.pcap.link` does in the simulator.

use ccsim::net::packet::{Kind, Packet};
use ccsim::record::pcap::{PcapSummary, PcapWriter};

pub struct Capture {
    writer: PcapWriter,
    /// Per link index: its traffic is captured (the flows whose data it carries).
    links: [bool; 2],
    /// The receivers' listening ports: `first..first + count`.
    receiver_ports: (u16, u16),
}

impl Capture {
    pub fn create(path: &str, snaplen: u32, links: [bool; 2], receiver_ports: (u16, u16)) -> Capture {
        Capture { writer: PcapWriter::create(path, snaplen), links, receiver_ports }
    }

    /// Packet `p` (`bytes`) entered link `link` at `now`.
    #[inline]
    pub fn on_enter(&mut self, link: u8, now: u64, p: &Packet, bytes: &[u8]) {
        if self.links[link as usize] && !self.sent_by_receiver(p) {
            self.writer.capture_bytes(now, bytes);
        }
    }

    /// Link `link` delivered packet `p` (`bytes`) at `now`.
    #[inline]
    pub fn on_delivery(&mut self, link: u8, now: u64, p: &Packet, bytes: &[u8]) {
        // A receiver's packets cross the link opposite to its flow's data.
        if self.links[1 - link as usize] && self.sent_by_receiver(p) {
            self.writer.capture_bytes(now, bytes);
        }
    }

    /// Whether TCP packet `p` comes from a receiver: its source port (the
    /// high half of the emulator's `flow`) is a listening port.
    fn sent_by_receiver(&self, p: &Packet) -> bool {
        let source_port = (p.flow >> 16) as u16;
        let (first, count) = self.receiver_ports;
        p.kind != Kind::Udp && source_port.wrapping_sub(first) < count
    }

    /// Why the file could not be created or written, if it could not.
    pub fn error(&self) -> Option<&str> {
        self.writer.error()
    }

    pub fn finish(self) -> PcapSummary {
        self.writer.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp(source_port: u16, destination_port: u16, payload: u32) -> Packet {
        let mut p = Packet::new(if payload > 0 { Kind::Data } else { Kind::Ack }, 0, 52 + payload);
        p.flow = (source_port as u32) << 16 | destination_port as u32;
        p.payload = payload;
        p
    }

    fn captured(links: [bool; 2], events: &[(bool, u8, Packet)]) -> u64 {
        let path = std::env::temp_dir().join(format!("ccemu-capture-{}-{links:?}.pcap", std::process::id()));
        let mut c = Capture::create(path.to_str().unwrap(), 128, links, (20000, 2));
        for (i, (enter, link, p)) in events.iter().enumerate() {
            let bytes = [i as u8; 40];
            if *enter {
                c.on_enter(*link, i as u64, p, &bytes);
            } else {
                c.on_delivery(*link, i as u64, p, &bytes);
            }
        }
        let s = c.finish();
        std::fs::remove_file(&path).ok();
        assert_eq!(s.error, None);
        s.packets
    }

    #[test]
    fn a_flow_is_captured_on_its_senders_side_only() {
        // Flow 0 sends on link 0 (downlink) to port 20000; flow 1 on link 1 to port 20001.
        let data0 = tcp(40000, 20000, 1448);
        let ack0 = tcp(20000, 40000, 0);
        let data1 = tcp(40001, 20001, 1448);
        let ack1 = tcp(20001, 40001, 0);
        let journey = [
            (true, 0, data0),  // flow 0's data enters the downlink: captured
            (false, 0, data0), // and reaches the receiver: not again
            (true, 1, ack0),   // its ACK leaves the receiver: not yet
            (false, 1, ack0),  // and reaches the sender: captured
            (true, 1, data1),
            (false, 1, data1),
            (true, 0, ack1),
            (false, 0, ack1),
        ];
        assert_eq!(captured([true, false], &journey), 2, "the downlink's flow: its data and its ACK");
        assert_eq!(captured([false, true], &journey), 2, "the uplink's flow");
        assert_eq!(captured([true, true], &journey), 4, "both, each packet once");
    }

    #[test]
    fn udp_is_captured_as_it_enters_its_link() {
        let mut udp = Packet::new(Kind::Udp, 0, 1500);
        udp.flow = 30000 << 16 | 20000; // a destination port that is a TCP receiver's does not matter
        assert_eq!(captured([true, false], &[(true, 0, udp), (false, 0, udp), (true, 1, udp)]), 1);
    }
}
