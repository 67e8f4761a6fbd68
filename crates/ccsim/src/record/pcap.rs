//! Packet capture of a link in the classic pcap format (nanosecond variant,
//! magic 0xa1b23c4d; LINKTYPE_RAW: each record starts at the IPv4 header),
//! which Wireshark, tshark and tcpdump read.
//!
//! References: the pcap file format (draft-ietf-opsawg-pcap), IPv4 (RFC 791),
//! TCP (RFC 9293) with SACK (RFC 2018), timestamps and window scaling
//! (RFC 7323), ECN (RFC 3168), UDP (RFC 768), the Internet checksum
//! (RFC 1071).
//!
//! The simulator counts segments; the capture speaks bytes: a data segment n
//! carries sequence number ISN + 1 + n x MSS, an ACK of segment n
//! acknowledges ISN + 1 + n x MSS (capped at the transfer's size for the
//! short last segment), SACK blocks likewise. Because the simulator has no
//! connection setup, each flow's capture begins with a synthetic SYN and
//! SYN-ACK (MSS, SACK-permitted, timestamps, window scale, ECN setup)
//! stamped at its first packet, so Wireshark knows the window scale and
//! sequence origin. Timestamp options carry the simulated clock in ms.
//! Payload bytes are zeros, so checksums are exact even when `snaplen`
//! truncates the record.
//!
//! Addresses: TCP flow i runs from 10.1.x.y (sender) to 10.2.x.y (receiver)
//! with x.y = i + 1, sender port 32768 + i mod 28000, receiver port 5201;
//! UDP source s from 10.3.x.y port 40000 + s to 10.4.x.y port 5001.

use crate::net::packet::{Kind, Packet, SackBlock, TCP_IP_HEADER_BYTES, TIMESTAMP_OPTION_BYTES};
use crate::time::Nanos;
use std::fs::File;
use std::io::{BufWriter, Write};

/// What the capture needs to know of a TCP flow.
#[derive(Clone, Copy, Debug)]
pub struct FlowMeta {
    pub mss: u32,
    pub timestamps: bool,
    pub sack: bool,
    pub ecn: bool,
    /// Transfer size in bytes (None: bulk).
    pub size: Option<u64>,
    /// Largest receive buffer, which sets the window scale.
    pub rcv_buf_max: u64,
}

#[derive(Clone, Copy, Debug)]
struct FlowState {
    meta: FlowMeta,
    isn_snd: u32,
    isn_rcv: u32,
    wscale: u8,
    opened: bool,
}

/// Summary of a finished capture.
#[derive(Clone, Debug, PartialEq)]
pub struct PcapSummary {
    pub path: String,
    pub packets: u64,
    /// The first I/O error, if any (the capture stops there; the run does not).
    pub error: Option<String>,
}

pub struct PcapWriter {
    out: Option<BufWriter<File>>,
    path: String,
    snaplen: u32,
    flows: Vec<Option<FlowState>>,
    ip_id: u16,
    packets: u64,
    error: Option<String>,
}

const TCP_SYN: u8 = 0x02;
const TCP_PSH: u8 = 0x08;
const TCP_ACK: u8 = 0x10;
const TCP_ECE: u8 = 0x40;
const TCP_CWR: u8 = 0x80;

const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;
const LINKTYPE_RAW: u32 = 101;
const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// Largest header we build: IPv4 20 + TCP 20 + options 40.
const MAX_HEADER: usize = 80;
const ZEROS: [u8; 4096] = [0; 4096];

/// The Internet checksum's running one's-complement sum over big-endian 16-bit words.
fn sum16(mut acc: u32, bytes: &[u8]) -> u32 {
    let mut chunks = bytes.chunks_exact(2);
    for c in &mut chunks {
        acc += u16::from_be_bytes([c[0], c[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        acc += (*last as u32) << 8;
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc >> 16 != 0 {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

fn host(net: u8, n: u32) -> [u8; 4] {
    let a = n + 1;
    [10, net.wrapping_add(4 * (a >> 16) as u8), (a >> 8) as u8, a as u8]
}

/// Segment number to a byte offset from the first data byte.
fn bytes_of(seg: u64, meta: &FlowMeta) -> u64 {
    let b = seg * meta.mss as u64;
    meta.size.map_or(b, |s| b.min(s))
}

impl PcapWriter {
    /// Creates the file (and its missing parent directories) and writes the
    /// global header; an error is kept and reported in the summary (nothing
    /// more is written). Record times are the simulated time since the run's
    /// start on the pcap epoch: a packet sent 1.5 s into the run is stamped
    /// 1970-01-01 00:00:01.5 UTC, so absolute and relative times in
    /// Wireshark both read as simulated seconds.
    pub fn create(path: &str, snaplen: u32) -> PcapWriter {
        let mut w = PcapWriter {
            out: None,
            path: path.to_string(),
            snaplen,
            flows: Vec::new(),
            ip_id: 0,
            packets: 0,
            error: None,
        };
        let parent = std::path::Path::new(path).parent().filter(|p| !p.as_os_str().is_empty());
        match parent.map_or(Ok(()), std::fs::create_dir_all).and_then(|()| File::create(path)) {
            Ok(f) => {
                w.out = Some(BufWriter::with_capacity(1 << 16, f));
                let mut h = [0u8; 24];
                h[0..4].copy_from_slice(&MAGIC_NS.to_le_bytes());
                h[4..6].copy_from_slice(&2u16.to_le_bytes());
                h[6..8].copy_from_slice(&4u16.to_le_bytes());
                h[16..20].copy_from_slice(&snaplen.to_le_bytes());
                h[20..24].copy_from_slice(&LINKTYPE_RAW.to_le_bytes());
                w.write(&h, &[]);
            }
            Err(e) => w.error = Some(format!("cannot create {path}: {e}")),
        }
        w
    }

    /// Declares TCP flow `flow` (before its first packet).
    pub fn register_flow(&mut self, flow: u32, meta: FlowMeta) {
        let i = flow as usize;
        if self.flows.len() <= i {
            self.flows.resize(i + 1, None);
        }
        let mut wscale = 0u8;
        while wscale < 14 && (65_535u64 << wscale) < meta.rcv_buf_max {
            wscale += 1;
        }
        // Distinct, deterministic initial sequence numbers per flow.
        let isn_snd = flow.wrapping_mul(0x9E37_79B9).wrapping_add(0x1000);
        let isn_rcv = flow.wrapping_mul(0x85EB_CA6B).wrapping_add(0x2000);
        self.flows[i] = Some(FlowState { meta, isn_snd, isn_rcv, wscale, opened: false });
    }

    fn write(&mut self, a: &[u8], b: &[u8]) {
        if let Some(out) = self.out.as_mut() {
            if let Err(e) = out.write_all(a).and_then(|_| out.write_all(b)) {
                self.error = Some(format!("writing {}: {e}", self.path));
                self.out = None;
            }
        }
    }

    /// Writes a record's own header for a packet of `orig` bytes stamped
    /// `now`; returns how many of its bytes the record keeps (`snaplen`).
    fn record_header(&mut self, now: Nanos, orig: u32) -> u32 {
        let incl = orig.min(self.snaplen);
        let mut rec = [0u8; 16];
        rec[0..4].copy_from_slice(&((now / 1_000_000_000) as u32).to_le_bytes());
        rec[4..8].copy_from_slice(&((now % 1_000_000_000) as u32).to_le_bytes());
        rec[8..12].copy_from_slice(&incl.to_le_bytes());
        rec[12..16].copy_from_slice(&orig.to_le_bytes());
        self.write(&rec, &[]);
        self.packets += 1;
        incl
    }

    /// Writes one record of a real IPv4 packet, `bytes` from its IP header
    /// on, stamped `now` (kernel mode's emulator captures what it forwards).
    pub fn capture_bytes(&mut self, now: Nanos, bytes: &[u8]) {
        if self.out.is_none() {
            return;
        }
        let incl = self.record_header(now, bytes.len() as u32);
        self.write(&bytes[..incl as usize], &[]);
    }

    /// Writes one record: `header` (IP and transport) then `payload` zero bytes.
    fn record(&mut self, now: Nanos, header: &[u8], payload: u32) {
        if self.out.is_none() {
            return;
        }
        let incl = self.record_header(now, header.len() as u32 + payload);
        let from_header = (incl as usize).min(header.len());
        self.write(&header[..from_header], &[]);
        let mut zeros = incl as usize - from_header;
        while zeros > 0 {
            let n = zeros.min(ZEROS.len());
            self.write(&ZEROS[..n], &[]);
            zeros -= n;
        }
    }

    /// Fills the IPv4 header at h[0..20] for a datagram of `total` bytes.
    fn ip_header(&mut self, h: &mut [u8], tos: u8, total: u32, proto: u8, src: [u8; 4], dst: [u8; 4]) {
        self.ip_id = self.ip_id.wrapping_add(1);
        h[0] = 0x45;
        h[1] = tos;
        h[2..4].copy_from_slice(&(total.min(65_535) as u16).to_be_bytes());
        h[4..6].copy_from_slice(&self.ip_id.to_be_bytes());
        h[6..8].copy_from_slice(&0x4000u16.to_be_bytes()); // don't fragment
        h[8] = 64;
        h[9] = proto;
        h[10..12].copy_from_slice(&[0, 0]);
        h[12..16].copy_from_slice(&src);
        h[16..20].copy_from_slice(&dst);
        let c = fold(sum16(0, &h[..20]));
        h[10..12].copy_from_slice(&c.to_be_bytes());
    }

    /// Transport checksum over the pseudo header, the header `seg` and `payload` zero bytes.
    fn l4_checksum(src: [u8; 4], dst: [u8; 4], proto: u8, seg: &[u8], payload: u32) -> u16 {
        let len = seg.len() as u32 + payload;
        let mut acc = sum16(0, &src);
        acc = sum16(acc, &dst);
        acc += proto as u32 + (len & 0xffff) + (len >> 16);
        fold(sum16(acc, seg))
    }

    /// Records a packet entering a link at `now`; `sack`: the SACK blocks an
    /// ACK carries (kept beside the packet, in the packet pool's side table).
    pub fn capture(&mut self, now: Nanos, p: &Packet, sack: &[SackBlock]) {
        match p.kind {
            Kind::Udp => self.capture_udp(now, p),
            Kind::Data | Kind::Ack => self.capture_tcp(now, p, sack),
        }
    }

    fn capture_udp(&mut self, now: Nanos, p: &Packet) {
        let (src, dst) = (host(3, p.flow), host(4, p.flow));
        let mut h = [0u8; 28];
        let udp_len = 8 + p.payload;
        let sport = 40_000u16.wrapping_add(p.flow as u16);
        h[20..22].copy_from_slice(&sport.to_be_bytes());
        h[22..24].copy_from_slice(&5001u16.to_be_bytes());
        h[24..26].copy_from_slice(&(udp_len.min(65_535) as u16).to_be_bytes());
        let c = Self::l4_checksum(src, dst, PROTO_UDP, &h[20..28], p.payload);
        h[26..28].copy_from_slice(&(if c == 0 { 0xffff } else { c }).to_be_bytes());
        self.ip_header(&mut h, 0, 28 + p.payload, PROTO_UDP, src, dst);
        self.record(now, &h, p.payload);
    }

    fn capture_tcp(&mut self, now: Nanos, p: &Packet, blocks: &[SackBlock]) {
        let Some(Some(mut st)) = self.flows.get(p.flow as usize).copied() else { return };
        if !st.opened {
            st.opened = true;
            self.flows[p.flow as usize] = Some(st);
            self.handshake(now, p.flow, &st);
        }
        let m = &st.meta;
        let snd = (host(1, p.flow), 32_768 + (p.flow % 28_000) as u16);
        let rcv = (host(2, p.flow), 5201u16);
        let first_byte = st.isn_snd.wrapping_add(1);
        let ts_ms = |t: Nanos| if t == 0 { 0 } else { (t / 1_000_000) as u32 + 1 };
        let mut opts = [0u8; 40];
        let mut n = 0;
        if m.timestamps {
            opts[0..4].copy_from_slice(&[1, 1, 8, 10]);
            opts[4..8].copy_from_slice(&ts_ms(p.ts_val).to_be_bytes());
            opts[8..12].copy_from_slice(&ts_ms(p.ts_ecr).to_be_bytes());
            n = 12;
        }
        let (src, dst, seq, ack, mut flags, window, tos);
        if p.kind == Kind::Data {
            (src, dst) = (snd, rcv);
            seq = first_byte.wrapping_add(bytes_of(p.seq, m) as u32);
            ack = st.isn_rcv.wrapping_add(1);
            flags = TCP_ACK | TCP_PSH;
            if p.cwr {
                flags |= TCP_CWR;
            }
            window = (65_535u32 >> st.wscale).max(1); // the sender's own (unused) receive window
            tos = match (p.ect, p.ce) {
                (_, true) => 0x03,
                (true, false) => 0x02,
                _ => 0,
            };
        } else {
            (src, dst) = (rcv, snd);
            seq = st.isn_rcv.wrapping_add(1);
            ack = first_byte.wrapping_add(bytes_of(p.seq, m) as u32);
            flags = TCP_ACK;
            if p.ece {
                flags |= TCP_ECE;
            }
            let win_bytes = p.window as u64 * m.mss as u64;
            window = (win_bytes >> st.wscale).min(65_535) as u32;
            tos = 0;
            if !blocks.is_empty() {
                opts[n..n + 4].copy_from_slice(&[1, 1, 5, 2 + 8 * blocks.len() as u8]);
                n += 4;
                for b in blocks {
                    let l = first_byte.wrapping_add(bytes_of(b.start, m) as u32);
                    let r = first_byte.wrapping_add(bytes_of(b.end, m) as u32);
                    opts[n..n + 4].copy_from_slice(&l.to_be_bytes());
                    opts[n + 4..n + 8].copy_from_slice(&r.to_be_bytes());
                    n += 8;
                }
            }
        }
        // The bytes written are the bytes the simulator sent (net::packet::tcp_header_bytes).
        debug_assert_eq!(TCP_IP_HEADER_BYTES + n as u32 + p.payload, p.wire_bytes);
        self.tcp_segment(now, (src, dst), (seq, ack), flags, window as u16, &opts[..n], p.payload, tos);
    }

    #[allow(clippy::too_many_arguments)]
    fn tcp_segment(
        &mut self,
        now: Nanos,
        ((src, sport), (dst, dport)): (([u8; 4], u16), ([u8; 4], u16)),
        (seq, ack): (u32, u32),
        flags: u8,
        window: u16,
        opts: &[u8],
        payload: u32,
        tos: u8,
    ) {
        debug_assert!(opts.len().is_multiple_of(4) && opts.len() <= 40);
        let mut h = [0u8; MAX_HEADER];
        let tcp_len = 20 + opts.len();
        let t = &mut h[20..20 + tcp_len];
        t[0..2].copy_from_slice(&sport.to_be_bytes());
        t[2..4].copy_from_slice(&dport.to_be_bytes());
        t[4..8].copy_from_slice(&seq.to_be_bytes());
        t[8..12].copy_from_slice(&ack.to_be_bytes());
        t[12] = ((tcp_len / 4) as u8) << 4;
        t[13] = flags;
        t[14..16].copy_from_slice(&window.to_be_bytes());
        t[20..].copy_from_slice(opts);
        let c = Self::l4_checksum(src, dst, PROTO_TCP, t, payload);
        t[16..18].copy_from_slice(&c.to_be_bytes());
        let total = 20 + tcp_len as u32 + payload;
        self.ip_header(&mut h[..20], tos, total, PROTO_TCP, src, dst);
        self.record(now, &h[..20 + tcp_len], payload);
    }

    /// The synthetic SYN and SYN-ACK that open flow `flow` in the capture.
    fn handshake(&mut self, now: Nanos, flow: u32, st: &FlowState) {
        let m = &st.meta;
        let snd = (host(1, flow), 32_768 + (flow % 28_000) as u16);
        let rcv = (host(2, flow), 5201u16);
        let mss_opt = (m.mss + if m.timestamps { TIMESTAMP_OPTION_BYTES } else { 0 }).min(65_535) as u16;
        let ts_now = (now / 1_000_000) as u32 + 1;
        for syn_ack in [false, true] {
            // MSS, SACK-permitted, timestamps, NOP, window scale (Linux's SYN layout).
            let mut o = [1u8; 20];
            o[0..2].copy_from_slice(&[2, 4]);
            o[2..4].copy_from_slice(&mss_opt.to_be_bytes());
            if m.sack {
                o[4..6].copy_from_slice(&[4, 2]);
            }
            if m.timestamps {
                o[6..8].copy_from_slice(&[8, 10]);
                o[8..12].copy_from_slice(&ts_now.to_be_bytes());
                let ecr = if syn_ack { ts_now } else { 0 };
                o[12..16].copy_from_slice(&ecr.to_be_bytes());
            }
            o[17..20].copy_from_slice(&[3, 3, st.wscale]);
            let (ends, seq, ack, mut flags) = if syn_ack {
                ((rcv, snd), st.isn_rcv, st.isn_snd.wrapping_add(1), TCP_SYN | TCP_ACK)
            } else {
                ((snd, rcv), st.isn_snd, 0, TCP_SYN)
            };
            if m.ecn {
                flags |= if syn_ack { TCP_ECE } else { TCP_ECE | TCP_CWR };
            }
            self.tcp_segment(now, ends, (seq, ack), flags, 65_535, &o, 0, 0);
        }
    }

    /// The first error (the file could not be created or written), if any.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Flushes the file and reports.
    pub fn finish(mut self) -> PcapSummary {
        if let Some(mut out) = self.out.take() {
            if let Err(e) = out.flush() {
                self.error.get_or_insert(format!("writing {}: {e}", self.path));
            }
        }
        PcapSummary { path: self.path, packets: self.packets, error: self.error }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internet_checksum_of_a_known_header() {
        // RFC 1071-style example: an IPv4 header whose checksum is 0xb861.
        let h: [u8; 20] = [0x45, 0, 0, 0x73, 0, 0, 0x40, 0, 0x40, 0x11, 0, 0, 0xc0, 0xa8, 0, 1, 0xc0, 0xa8, 0, 0xc7];
        assert_eq!(fold(sum16(0, &h)), 0xb861);
    }

    #[test]
    fn sequence_numbers_are_bytes_and_capped_at_the_transfer() {
        let m =
            FlowMeta { mss: 1448, timestamps: true, sack: true, ecn: false, size: Some(3000), rcv_buf_max: 6 << 20 };
        assert_eq!(bytes_of(1, &m), 1448);
        assert_eq!(bytes_of(3, &m), 3000);
    }

    #[test]
    fn writes_a_readable_file() {
        let path = std::env::temp_dir().join(format!("ccsim-pcap-unit-{}.pcap", std::process::id()));
        let path = path.to_str().unwrap().to_string();
        let mut w = PcapWriter::create(&path, 96);
        w.register_flow(
            0,
            FlowMeta { mss: 1448, timestamps: true, sack: true, ecn: false, size: None, rcv_buf_max: 6 << 20 },
        );
        let mut p = Packet::new(Kind::Data, 0, 1500);
        p.payload = 1448;
        w.capture(1_000, &p, &[]);
        let s = w.finish();
        assert_eq!((s.packets, s.error), (3, None));
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).ok();
        assert_eq!(&bytes[0..4], &MAGIC_NS.to_le_bytes());
        // Global header, two 60-byte SYNs with 16-byte record headers, then a truncated data record.
        let data = 24 + 2 * (16 + 60);
        assert_eq!(u32::from_le_bytes(bytes[data + 8..data + 12].try_into().unwrap()), 96);
        assert_eq!(u32::from_le_bytes(bytes[data + 12..data + 16].try_into().unwrap()), 1500);
        assert_eq!(bytes.len(), data + 16 + 96);
    }

    #[test]
    fn a_real_packet_is_kept_as_it_is_up_to_snaplen() {
        let path = std::env::temp_dir().join(format!("ccsim-pcap-raw-{}.pcap", std::process::id()));
        let mut w = PcapWriter::create(path.to_str().unwrap(), 8);
        let packet: Vec<u8> = (0..12).collect();
        w.capture_bytes(3_000_000_001, &packet);
        w.capture_bytes(3_000_000_002, &packet[..4]);
        let s = w.finish();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).ok();
        assert_eq!((s.packets, s.error), (2, None));
        let field = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        // First record: stamped 3 s + 1 ns, 8 of its 12 bytes kept, verbatim.
        assert_eq!((field(24), field(28), field(32), field(36)), (3, 1, 8, 12));
        assert_eq!(&bytes[40..48], &packet[..8]);
        // Second: shorter than snaplen, kept whole.
        assert_eq!((field(52), field(56), field(60)), (2, 4, 4));
        assert_eq!(&bytes[64..68], &packet[..4]);
        assert_eq!(bytes.len(), 68);
    }

    #[test]
    fn creates_missing_folders_and_stamps_simulated_seconds() {
        let dir = std::env::temp_dir().join(format!("ccsim-pcap-folders-{}", std::process::id()));
        let path = dir.join("a/b/run.pcap");
        let mut w = PcapWriter::create(path.to_str().unwrap(), 128);
        w.capture(2_500_000_000, &Packet::new(Kind::Udp, 0, 1500), &[]);
        let s = w.finish();
        let bytes = std::fs::read(&path);
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!((s.packets, s.error), (1, None));
        let bytes = bytes.unwrap();
        // The record's seconds and nanoseconds: 2.5 s after the run's start.
        assert_eq!(u32::from_le_bytes(bytes[24..28].try_into().unwrap()), 2);
        assert_eq!(u32::from_le_bytes(bytes[28..32].try_into().unwrap()), 500_000_000);
    }
}
