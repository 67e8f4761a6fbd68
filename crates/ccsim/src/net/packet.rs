//! A packet as the network sees it: a small `Copy` struct (one cache line).
//! Inside the network it stays in one slot of the `PacketPool` (net/pool.rs)
//! and queues and delay lines pass its handle; nothing is allocated per
//! packet. An ACK's SACK blocks are not in it but in the pool's side table,
//! named by the packet's `sack` slot.
//!
//! Sequence numbers count segments, not bytes (a segment is one MSS of
//! payload, the last one of a transfer possibly shorter); the pcap writer and
//! reports convert to bytes where a person reads them.

use crate::time::Nanos;

/// Up to three SACK blocks fit beside the timestamp option (RFC 2018 + 7323).
pub const MAX_SACK_BLOCKS: usize = 3;

/// Where an ACK's SACK blocks are kept in the pool's side table (a
/// `SackStore`): packets carry this slot number rather than the blocks.
pub type SackSlot = u32;
/// The slot of a packet without SACK blocks.
pub const NO_SACK: SackSlot = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// TCP data segment number `seq`.
    Data,
    /// TCP pure ACK: cumulative `ack` (next expected segment) and SACK blocks (in the pool).
    Ack,
    /// A datagram of a UDP source (cross traffic): `flow` is the source index.
    Udp,
}

/// A half-open range [start, end) of segment numbers held by the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    pub kind: Kind,
    /// Index of the flow (TCP) or source (UDP) the packet belongs to.
    pub flow: u32,
    /// Bytes on the wire (payload and headers): what links serialize and queues count.
    pub wire_bytes: u32,
    /// Payload bytes (0 for pure ACKs).
    pub payload: u32,
    /// Data: segment number. Ack: cumulative ACK (next segment expected).
    pub seq: u64,
    /// Timestamp option: sender's clock (TSval) and the echoed value (TSecr).
    pub ts_val: Nanos,
    pub ts_ecr: Nanos,
    /// Receive window advertised by an ACK, in segments.
    pub window: u32,
    /// The ACK's SACK blocks in the pool's side table (`NO_SACK`: none);
    /// only the pool sets it (`PacketPool::insert_with_sack`).
    pub(crate) sack: SackSlot,
    /// ECN: congestion experienced (set by a marking queue), echo, window reduced.
    pub ce: bool,
    pub ece: bool,
    pub cwr: bool,
    /// ECN-capable transport (ECT) codepoint on data.
    pub ect: bool,
    /// With `ect`: the codepoint is ECT(1), the L4S identifier (RFC 9331),
    /// rather than ECT(0). DualPI2 classifies on it.
    pub ect1: bool,
    /// When this packet entered the current queue (for sojourn-time AQMs).
    pub enqueued_at: Nanos,
    /// Position on its route: the index of the link it is crossing (set by the simulator).
    pub hop: u8,
}

impl Packet {
    pub fn new(kind: Kind, flow: u32, wire_bytes: u32) -> Packet {
        Packet {
            kind,
            flow,
            wire_bytes,
            payload: 0,
            seq: 0,
            ts_val: 0,
            ts_ecr: 0,
            window: 0,
            sack: NO_SACK,
            ce: false,
            ece: false,
            cwr: false,
            ect: false,
            ect1: false,
            enqueued_at: 0,
            hop: 0,
        }
    }
}

/// IPv4 (20) + TCP (20) header bytes.
pub const TCP_IP_HEADER_BYTES: u32 = 40;
/// Bytes of a full-size packet (for AQM packet times and BDP conversions).
pub const MTU_BYTES: u64 = 1500;
/// The timestamp option, padded (RFC 7323): 12 bytes.
pub const TIMESTAMP_OPTION_BYTES: u32 = 12;
/// IPv4 (20) + UDP (8) header bytes.
pub const UDP_IP_HEADER_BYTES: u32 = 28;

/// Header bytes of a TCP segment: base headers, timestamps, and SACK blocks
/// (2 bytes of option header + 8 per block, padded to 4).
pub fn tcp_header_bytes(timestamps: bool, sack_blocks: usize) -> u32 {
    let mut h = TCP_IP_HEADER_BYTES;
    if timestamps {
        h += TIMESTAMP_OPTION_BYTES;
    }
    if sack_blocks > 0 {
        h += (2 + 8 * sack_blocks as u32).div_ceil(4) * 4;
    }
    h
}

/// The share of a full data segment's wire bytes that is payload, mss / (mss
/// + headers): what turns a link's rate into its payload capacity.
pub fn payload_share(mss_bytes: u32, timestamps: bool) -> f64 {
    mss_bytes as f64 / (mss_bytes + tcp_header_bytes(timestamps, 0)) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_fits_in_a_cache_line() {
        assert!(std::mem::size_of::<Packet>() <= 64, "{} bytes", std::mem::size_of::<Packet>());
    }

    #[test]
    fn header_bytes_of_segments() {
        assert_eq!(tcp_header_bytes(false, 0), 40);
        assert_eq!(tcp_header_bytes(true, 0), 52);
        // SACK: 2 + 8 per block, padded to 4.
        assert_eq!(tcp_header_bytes(true, 1), 64);
        assert_eq!(tcp_header_bytes(true, 3), 80);
    }

    #[test]
    fn payload_share_of_a_full_segment() {
        assert_eq!(payload_share(1448, true), 1448.0 / 1500.0);
        assert_eq!(payload_share(1460, false), 1460.0 / 1500.0);
    }
}
