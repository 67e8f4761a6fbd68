//! From a real IPv4 packet to the simulator's `Packet` (what the link model
//! needs: size on the wire, kind, ECN capability), and back: a CE mark the
//! queue set is written into the real header (RFC 3168, section 5), with the
//! header checksum recomputed (RFC 791).

use ccsim::net::packet::{Kind, Packet};

const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;
const ECN_MASK: u8 = 0b11;
const ECN_CE: u8 = 0b11;

/// The link's view of the IPv4 packet `bytes`, or `None` if it is not IPv4.
/// `flow` holds the ports (source << 16 | destination) for the records.
#[inline]
pub fn to_packet(bytes: &[u8]) -> Option<Packet> {
    if bytes.len() < 20 || bytes[0] >> 4 != 4 {
        return None;
    }
    let ihl = ((bytes[0] & 0x0f) as usize) * 4;
    let total = u16::from_be_bytes([bytes[2], bytes[3]]) as usize;
    let total = total.min(bytes.len());
    let proto = bytes[9];
    let ecn = bytes[1] & ECN_MASK;
    let ports = |b: &[u8]| {
        if b.len() >= ihl + 4 {
            (u16::from_be_bytes([b[ihl], b[ihl + 1]]) as u32) << 16
                | u16::from_be_bytes([b[ihl + 2], b[ihl + 3]]) as u32
        } else {
            0
        }
    };
    let (kind, payload) = match proto {
        PROTO_TCP if bytes.len() >= ihl + 20 => {
            let doff = ((bytes[ihl + 12] >> 4) as usize) * 4;
            let payload = total.saturating_sub(ihl + doff);
            (if payload > 0 { Kind::Data } else { Kind::Ack }, payload)
        }
        PROTO_UDP => (Kind::Udp, total.saturating_sub(ihl + 8)),
        _ => (Kind::Udp, total.saturating_sub(ihl)),
    };
    let mut p = Packet::new(kind, ports(bytes), total as u32);
    p.payload = payload as u32;
    p.ect = ecn == 0b01 || ecn == 0b10;
    p.ce = ecn == ECN_CE;
    Some(p)
}

/// Most SACK blocks a TCP header carries (40 bytes of options: 4 with no
/// timestamps, 3 beside them).
pub const MAX_SACK_BLOCKS: usize = 4;
const TCP_OPTION_END: u8 = 0;
const TCP_OPTION_NOP: u8 = 1;
const TCP_OPTION_SACK: u8 = 5;
const TCP_OPTION_TIMESTAMPS: u8 = 8;

/// What the emulator's RTT measurement reads of a TCP header (RFC 9293;
/// SACK, RFC 2018; timestamps, RFC 7323).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpHeader {
    pub seq: u32,
    pub ack: u32,
    /// Payload bytes.
    pub payload: u32,
    /// The timestamp option: (TSval, TSecr).
    pub timestamps: Option<(u32, u32)>,
    /// SACK blocks (left edge, right edge), `sack_blocks` of them.
    pub sack: [(u32, u32); MAX_SACK_BLOCKS],
    pub sack_blocks: usize,
}

/// The TCP header of the IPv4 packet `bytes`; `None` for anything else or a
/// truncated header.
#[inline]
pub fn tcp_header(bytes: &[u8]) -> Option<TcpHeader> {
    if bytes.len() < 20 || bytes[0] >> 4 != 4 || bytes[9] != PROTO_TCP {
        return None;
    }
    let ihl = ((bytes[0] & 0x0f) as usize) * 4;
    let total = (u16::from_be_bytes([bytes[2], bytes[3]]) as usize).min(bytes.len());
    let tcp = bytes.get(ihl..total)?;
    if tcp.len() < 20 {
        return None;
    }
    let word = |i: usize| u32::from_be_bytes([tcp[i], tcp[i + 1], tcp[i + 2], tcp[i + 3]]);
    let doff = ((tcp[12] >> 4) as usize) * 4;
    let options = tcp.get(20..doff.max(20))?;
    let mut h = TcpHeader { seq: word(4), ack: word(8), payload: (tcp.len() - doff) as u32, ..TcpHeader::default() };
    let mut i = 0;
    while i < options.len() {
        match options[i] {
            TCP_OPTION_END => break,
            TCP_OPTION_NOP => i += 1,
            kind => {
                let len = *options.get(i + 1)? as usize;
                let body = options.get(i + 2..i + len.max(2))?;
                let be = |k: usize| u32::from_be_bytes([body[k], body[k + 1], body[k + 2], body[k + 3]]);
                if kind == TCP_OPTION_TIMESTAMPS && body.len() == 8 {
                    h.timestamps = Some((be(0), be(4)));
                } else if kind == TCP_OPTION_SACK {
                    for k in (0..body.len() / 8).take(MAX_SACK_BLOCKS) {
                        h.sack[k] = (be(8 * k), be(8 * k + 4));
                        h.sack_blocks = k + 1;
                    }
                }
                i += len.max(2);
            }
        }
    }
    Some(h)
}

/// Sets CE in the header of an ECN-capable packet and fixes the checksum.
/// Returns whether the packet was marked.
pub fn mark_ce(bytes: &mut [u8]) -> bool {
    let ecn = bytes[1] & ECN_MASK;
    if ecn != 0b01 && ecn != 0b10 {
        return false;
    }
    bytes[1] |= ECN_CE;
    let ihl = ((bytes[0] & 0x0f) as usize) * 4;
    bytes[10] = 0;
    bytes[11] = 0;
    let sum = header_checksum(&bytes[..ihl]);
    bytes[10..12].copy_from_slice(&sum.to_be_bytes());
    true
}

/// The Internet checksum of an IPv4 header (checksum field zeroed).
pub fn header_checksum(header: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for pair in header.chunks(2) {
        sum += u16::from_be_bytes([pair[0], *pair.get(1).unwrap_or(&0)]) as u32;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TCP segment of `payload` bytes with a 32-byte TCP header (timestamps), ECN bits `ecn`.
    fn tcp(payload: usize, ecn: u8) -> Vec<u8> {
        let total = 20 + 32 + payload;
        let mut b = vec![0u8; total];
        b[0] = 0x45;
        b[1] = ecn;
        b[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        b[8] = 64;
        b[9] = PROTO_TCP;
        b[12..16].copy_from_slice(&[10, 0, 0, 1]);
        b[16..20].copy_from_slice(&[10, 0, 0, 2]);
        b[20..22].copy_from_slice(&5001u16.to_be_bytes());
        b[22..24].copy_from_slice(&40000u16.to_be_bytes());
        b[32] = 8 << 4;
        let sum = header_checksum(&b[..20]);
        b[10..12].copy_from_slice(&sum.to_be_bytes());
        b
    }

    #[test]
    fn a_full_segment_is_data_of_1500_bytes() {
        let p = to_packet(&tcp(1448, 0b10)).unwrap();
        assert_eq!((p.kind, p.wire_bytes, p.payload, p.ect, p.ce), (Kind::Data, 1500, 1448, true, false));
        assert_eq!(p.flow, 5001 << 16 | 40000);
        assert_eq!(to_packet(&tcp(0, 0)).unwrap().kind, Kind::Ack);
    }

    #[test]
    fn a_tcp_header_gives_its_numbers_timestamps_and_sack_blocks() {
        let mut b = tcp(1448, 0);
        b[24..28].copy_from_slice(&7u32.to_be_bytes());
        b[28..32].copy_from_slice(&9u32.to_be_bytes());
        // A 44-byte TCP header: NOP NOP TS(10: 100, 50), NOP NOP SACK(10: one block).
        b[32] = 11 << 4;
        b[40..52].copy_from_slice(&[1, 1, 8, 10, 0, 0, 0, 100, 0, 0, 0, 50]);
        b[52..56].copy_from_slice(&[1, 1, 5, 10]);
        b[56..64].copy_from_slice(&[0, 0, 1, 0, 0, 0, 2, 0]);
        let h = tcp_header(&b).unwrap();
        assert_eq!((h.seq, h.ack, h.payload, h.timestamps), (7, 9, 1436, Some((100, 50))));
        assert_eq!(&h.sack[..h.sack_blocks], &[(256, 512)]);
        assert_eq!(tcp_header(&tcp(0, 0)).unwrap().payload, 0);
        let mut truncated = tcp(0, 0);
        truncated[40..42].copy_from_slice(&[8, 40]); // an option longer than the header
        assert_eq!(tcp_header(&truncated), None);
    }

    #[test]
    fn ipv6_and_runts_are_not_taken() {
        let mut b = tcp(10, 0);
        b[0] = 0x60;
        assert!(to_packet(&b).is_none());
        assert!(to_packet(&[0x45; 10]).is_none());
    }

    #[test]
    fn ce_mark_keeps_the_checksum_valid_and_skips_not_ect() {
        let mut b = tcp(100, 0b10);
        assert!(mark_ce(&mut b));
        assert_eq!(b[1] & 0b11, 0b11);
        // A valid header sums to zero (all ones before the complement).
        assert_eq!(header_checksum(&b[..20]), 0);
        let mut n = tcp(100, 0);
        assert!(!mark_ce(&mut n));
        assert_eq!(n[1], 0);
    }
}
