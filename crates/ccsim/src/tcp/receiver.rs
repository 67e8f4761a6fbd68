//! The TCP receiver: in-order delivery to the application, out-of-order
//! buffering, cumulative ACKs with SACK blocks (RFC 2018) and D-SACK (RFC
//! 2883: a segment received twice is reported in the first block of the ACK
//! it triggers, as Linux does with tcp_dsack on, its default), delayed ACKs
//! (RFC 5681 4.2 / RFC 1122: every second full segment or a timer, at once
//! for out-of-order data or a filled hole), timestamps echo (RFC 7323), the
//! quick ACKs (Linux tcp_incr_quickack: every segment ACKed at once for up to
//! 16 ACKs, as many as half the offered window holds, from the first data,
//! after a segment that arrives twice, after a gap in the data longer than
//! the receiver's own RTO, as tcp_event_data_recv does, and for each segment
//! that grows the offered window, as tcp_grow_window does), the
//! advertised window from the receive buffer with Linux-like autotuning
//! (dynamic right-sizing: buffer >= twice the data the application read in the
//! last RTT, up to rmem_max), and the ECN echo: classic (RFC 3168: ECE on
//! every ACK from a CE mark until the sender's CWR; as Linux, data with CWR
//! is ACKed at once, and the first CE mark of an echo, or data without ECT
//! after ECT data, brings two quick ACKs) or accurate for DCTCP
//! (RFC 8257 3.2: ECE mirrors the CE bit of the latest segment; when that bit
//! changes, the segments received so far are ACKed at once with the old value,
//! so the sender can count exactly how many segments were marked).

use crate::net::packet::{tcp_header_bytes, Kind, Packet, SackBlock, MAX_SACK_BLOCKS};
use crate::net::sack_store::SackBlocks;
use crate::time::Nanos;

/// With autotuning, the window first offered (Linux since 4.19: about 64 KB).
const INITIAL_WINDOW_BYTES: u64 = 65_535;
/// Linux TCP_MAX_QUICKACKS: at most this many quick ACKs in a row.
const MAX_QUICK_ACKS: u32 = 16;
/// Linux __tcp_ecn_check_ce: the quick ACKs a congestion mark, or a segment
/// without ECT after ECT ones (a retransmission, probably), asks for.
const ECN_QUICK_ACKS: u32 = 2;
/// Linux tcp_init_buffer_space: the first autotuning measure is an initial window's worth.
const INITIAL_SPACE_SEGMENTS: u64 = 10;

#[derive(Clone, Debug)]
pub struct ReceiverConfig {
    pub mss: u32,
    pub sack: bool,
    pub timestamps: bool,
    pub delayed_ack: bool,
    pub delack_segments: u32,
    pub delack_timeout: Nanos,
    /// Initial receive buffer (bytes); grows up to `rcv_buf_max` when autotuning.
    pub rcv_buf: u64,
    pub rcv_buf_max: u64,
    pub autotune: bool,
    /// With autotuning, the window first offered in segments (Linux before
    /// 4.19: tcp_select_initial_window's 4, or 10 since 2.6.39); None: about 64 KB.
    pub init_rcv_wnd: Option<u32>,
    /// The receiver's own retransmission timeout (Linux icsk_rto), set by the
    /// one RTT sample a receiver that sends no data takes: its handshake's.
    /// In-order data after a longer gap starts quick ACKs again.
    pub rto: Nanos,
    pub ecn_echo: EcnEcho,
    pub accounting: BufferAccounting,
}

/// How receive-buffer space is counted. ccbench's default counts payload
/// only; Linux before 6.6 counted each segment's skb truesize against the
/// buffer and offered as window the share tcp_adv_win_scale leaves of it
/// (tcp_win_from_space: space - space/2^scale).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferAccounting {
    /// None: the whole buffer is window (payload accounting).
    pub adv_win_scale: Option<i32>,
    /// Bytes a segment takes in the buffer beyond its payload (skb truesize - payload).
    pub skb_overhead_bytes: u64,
}

impl BufferAccounting {
    pub const PAYLOAD: BufferAccounting = BufferAccounting { adv_win_scale: None, skb_overhead_bytes: 0 };

    /// The window (payload bytes) `space` bytes of buffer allow (Linux tcp_win_from_space).
    fn window_from_space(self, space: u64) -> u64 {
        match self.adv_win_scale {
            None => space,
            Some(scale) if scale > 0 => space - (space >> scale),
            Some(scale) => space >> (-scale),
        }
    }

    /// The buffer space `payload` bytes take in segments of `mss` bytes.
    fn space_of(self, payload: u64, mss: u64) -> u64 {
        payload + payload * self.skb_overhead_bytes / mss
    }

    /// The buffer that holds a window of `window` payload bytes: their
    /// truesize, and enough that its window share is the whole window (Linux
    /// tcp_rcv_space_adjust: rcvbuf = segments x rcvmem, rcvmem grown until
    /// tcp_win_from_space(rcvmem) >= advmss).
    fn space_for_window(self, window: u64, mss: u64) -> u64 {
        let share = match self.adv_win_scale {
            None => window,
            Some(scale) if scale > 0 => {
                let whole = 1u64 << scale.min(62);
                (window * whole).div_ceil(whole - 1)
            }
            Some(scale) => window << (-scale).min(62),
        };
        self.space_of(window, mss).max(share)
    }
}

/// How the receiver echoes CE marks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EcnEcho {
    /// ECN not negotiated: the ECN bits are not looked at (Linux without TCP_ECN_OK).
    #[default]
    Off,
    /// RFC 3168: set ECE from a CE mark until a segment with CWR arrives.
    Classic,
    /// RFC 8257 3.2 (DCTCP): ECE = CE of the latest segment, an immediate ACK
    /// when it changes (Linux dctcp_ece_ack_update).
    Dctcp,
}

/// An ACK as the receiver makes it: the packet, and its SACK blocks, which
/// travel beside it in the packet pool once it is sent
/// (`PacketPool::insert_with_sack`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ack {
    pub packet: Packet,
    pub sack: SackBlocks,
}

/// What the receiver wants from its owner after handling a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckAction {
    /// Nothing to send now.
    None,
    /// Send an ACK now: the owner builds it with `ack` before it hands the
    /// receiver anything else (the ACK is built where it is sent, not
    /// carried out of `on_data` in this value).
    Send,
    /// Arm the delayed-ACK timer for this time (if not armed).
    Delay(Nanos),
}

/// A range of segments held out of order, with its payload bytes.
#[derive(Clone, Copy, Debug)]
struct Range {
    start: u64,
    end: u64,
    bytes: u64,
}

pub struct Receiver {
    flow: u32,
    cfg: ReceiverConfig,
    /// Next segment expected in order.
    rcv_nxt: u64,
    /// Out-of-order data, sorted, disjoint, not adjacent to rcv_nxt.
    ooo: Vec<Range>,
    ooo_bytes: u64,
    /// The range touched by the latest out-of-order segment (first SACK block).
    latest_range_start: Option<u64>,
    /// A segment received twice, for the D-SACK block of the next ACK
    /// (Linux tcp_dsack_set).
    duplicate_to_report: Option<u64>,
    /// Payload bytes delivered in order to the application.
    pub delivered_bytes: u64,
    /// Time the application got its latest bytes.
    pub last_delivery: Nanos,
    /// Segments received, duplicates included.
    pub segments_received: u64,
    pub duplicate_segments: u64,
    unacked_segments: u32,
    /// Quick ACKs left (Linux icsk_ack.quick): segments ACKed at once.
    quick_acks: u32,
    /// When in-order data last arrived (Linux icsk_ack.lrcvtime).
    last_data_at: Nanos,
    last_ack_sent: u64,
    ts_recent: Nanos,
    /// ECN: CE seen, echo until the sender says CWR (classic); the CE state
    /// of the latest segment (DCTCP).
    ece_pending: bool,
    /// An ECN-capable segment has arrived (Linux TCP_ECN_SEEN).
    ect_seen: bool,
    /// DCTCP: the ACK for the segments before a CE change, with the old ECE.
    early_ack: Option<Ack>,
    pub acks_sent: u64,
    /// Right edge of the last advertised window (segment number).
    right_edge: u64,
    // Autotuning (dynamic right-sizing).
    rcv_buf: u64,
    rtt_estimate: Option<Nanos>,
    /// Without timestamps (Linux tcp_rcv_rtt_measure): the segment number that
    /// ends the window being timed, and when its timing began.
    rtt_window_end: u64,
    rtt_window_start: Option<Nanos>,
    space_time: Nanos,
    space_bytes: u64,
    /// Bytes copied in the last measured RTT that grew the buffer (Linux rcvq_space.space).
    space: u64,
    /// The window the receiver is willing to offer (Linux rcv_ssthresh): with
    /// autotuning it starts at 64 KB and grows by two segments per in-order
    /// segment, so a sender in slow start is never held back (it doubles per
    /// RTT, this triples).
    rcv_ssthresh: u64,
}

impl Receiver {
    pub fn new(flow: u32, cfg: ReceiverConfig) -> Receiver {
        // Linux since 4.19 offers about 64 KB in the SYN (rmem_default 128 KB).
        let offer = cfg.accounting.window_from_space(cfg.rcv_buf);
        let initial = cfg.init_rcv_wnd.map_or(INITIAL_WINDOW_BYTES, |n| n as u64 * cfg.mss as u64);
        let rcv_ssthresh = if cfg.autotune { offer.min(initial) } else { offer };
        let space = INITIAL_SPACE_SEGMENTS * cfg.mss as u64;
        Receiver {
            rcv_ssthresh,
            space,
            flow,
            rcv_buf: cfg.rcv_buf,
            cfg,
            rcv_nxt: 0,
            ooo: Vec::new(),
            ooo_bytes: 0,
            latest_range_start: None,
            duplicate_to_report: None,
            delivered_bytes: 0,
            last_delivery: 0,
            segments_received: 0,
            duplicate_segments: 0,
            unacked_segments: 0,
            quick_acks: 0,
            last_data_at: 0,
            last_ack_sent: 0,
            ts_recent: 0,
            ece_pending: false,
            ect_seen: false,
            early_ack: None,
            acks_sent: 0,
            right_edge: 0,
            rtt_estimate: None,
            rtt_window_end: 0,
            rtt_window_start: None,
            space_time: 0,
            space_bytes: 0,
        }
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// The advertised window in segments.
    /// The window to advertise, in segments: the free buffer space, but never
    /// less than what keeps the right edge where an earlier ACK put it (RFC 7323
    /// 2.4 / RFC 1122: a receiver should not shrink the window; Linux
    /// tcp_select_window does the same), so out-of-order data does not make
    /// duplicate ACKs look like window updates.
    pub fn window_segments(&self) -> u32 {
        let free = self.free_window_bytes() / self.cfg.mss as u64;
        let promised = self.right_edge.saturating_sub(self.rcv_nxt);
        free.max(promised).min(u32::MAX as u64) as u32
    }

    /// The window the free buffer space allows (out-of-order data holds its
    /// share), at most rcv_ssthresh.
    fn free_window_bytes(&self) -> u64 {
        let acc = self.cfg.accounting;
        // Without held data (the usual case) the whole buffer is free: no division.
        let free_space = match self.ooo_bytes {
            0 => self.rcv_buf,
            held => self.rcv_buf.saturating_sub(acc.space_of(held, self.cfg.mss as u64)),
        };
        acc.window_from_space(free_space).min(self.rcv_ssthresh)
    }

    pub fn rcv_buf(&self) -> u64 {
        self.rcv_buf
    }

    /// A data segment arrives.
    ///
    /// The in-order segment is the common case and stays inline where the
    /// owner calls this; what only some segments or receivers need (ECN
    /// echo, duplicates, out-of-order data, window timing without
    /// timestamps, buffer growth) is in functions of their own.
    #[inline]
    pub fn on_data(&mut self, now: Nanos, p: &Packet) -> AckAction {
        self.segments_received += 1;
        let seq = p.seq;
        // The held ranges all start past rcv_nxt: the next segment in order is new.
        let duplicate = seq < self.rcv_nxt || (seq > self.rcv_nxt && self.holds(seq));
        if self.cfg.ecn_echo != EcnEcho::Off {
            self.echo_ecn(now, p, duplicate);
        }
        // RFC 7323: remember TSval of the segment that starts the unacknowledged
        // data; TS.Recent never goes back (an old segment filling a hole after
        // its retransmission arrived does not lower it).
        if self.cfg.timestamps && p.seq <= self.last_ack_sent && p.ts_val >= self.ts_recent {
            self.ts_recent = p.ts_val;
        }
        if self.cfg.timestamps && p.ts_ecr > 0 && p.seq >= self.rcv_nxt {
            self.rtt_estimate = Some(now.saturating_sub(p.ts_ecr).max(1));
        }
        if duplicate {
            return self.on_duplicate(seq);
        }
        if seq != self.rcv_nxt {
            self.insert_out_of_order(seq, p.payload as u64);
            return AckAction::Send;
        }
        let had_holes = !self.ooo.is_empty();
        // Linux tcp_event_data_recv: the first data starts quick ACKs, and
        // so does data after a gap longer than the RTO ("apparently sender
        // failed to restart window"): after an outage, say.
        if self.rcv_nxt == 0 || now.saturating_sub(self.last_data_at) > self.cfg.rto {
            self.add_quick_acks(MAX_QUICK_ACKS);
        }
        self.last_data_at = now;
        self.rcv_nxt += 1;
        self.deliver(now, p.payload as u64);
        if had_holes {
            self.deliver_held(now);
        }
        if self.cfg.autotune {
            // Linux tcp_grow_window: two segments more per segment while
            // the buffer has room, and a window that grew is announced at
            // once (icsk_ack.quick |= 1, which also keeps an even count of
            // quick ACKs from running out): a receiver ACKs every segment
            // while its window opens, as in slow start.
            let most = self.cfg.accounting.window_from_space(self.rcv_buf);
            let grown = (self.rcv_ssthresh + 2 * self.cfg.mss as u64).min(most);
            if grown > self.rcv_ssthresh {
                self.rcv_ssthresh = grown;
                self.quick_acks |= 1;
            }
        }
        if !self.cfg.timestamps {
            self.measure_rtt_by_window(now);
        }
        self.autotune(now);
        // Linux tcp_ecn_accept_cwr (4.18+): data with CWR is ACKed at once,
        // since the sender's window may be down to one segment.
        if had_holes || !self.cfg.delayed_ack || self.quick_acks > 0 || p.cwr {
            return AckAction::Send;
        }
        self.unacked_segments += 1;
        if self.unacked_segments >= self.cfg.delack_segments {
            return AckAction::Send;
        }
        AckAction::Delay(now + self.cfg.delack_timeout)
    }

    /// The ECN echo of segment `p` (before the segment is otherwise handled).
    #[inline(never)]
    fn echo_ecn(&mut self, now: Nanos, p: &Packet, duplicate: bool) {
        match self.cfg.ecn_echo {
            EcnEcho::Off => {}
            EcnEcho::Classic => {
                // Linux tcp_ecn_accept_cwr: the sender has reduced its window.
                if p.cwr {
                    self.ece_pending = false;
                }
                // Linux __tcp_ecn_check_ce, of new data: the first mark of an
                // episode starts the echo, and quick ACKs ("sender can have a
                // very low cwnd"); so does a segment without ECT after ECT ones.
                if !duplicate {
                    if p.ce {
                        if !self.ece_pending {
                            self.add_quick_acks(ECN_QUICK_ACKS);
                        }
                        self.ece_pending = true;
                    } else if !p.ect && self.ect_seen {
                        self.add_quick_acks(ECN_QUICK_ACKS);
                    }
                    self.ect_seen |= p.ect;
                }
            }
            EcnEcho::Dctcp => {
                // RFC 8257 3.2: on a change of the CE state, ACK what was
                // received so far (held back by delayed ACKs) with the old state.
                if p.ce != self.ece_pending {
                    if self.unacked_segments > 0 {
                        self.early_ack = Some(self.ack(now));
                    }
                    self.ece_pending = p.ce;
                }
            }
        }
    }

    /// Segment `seq` arrived before: ACKed at once with a D-SACK block.
    #[inline(never)]
    fn on_duplicate(&mut self, seq: u64) -> AckAction {
        self.duplicate_segments += 1;
        self.duplicate_to_report = Some(seq);
        // Linux tcp_sack_new_ofo_skb: the block holding it comes next, so
        // the sender sees the D-SACK inside the second block (RFC 2883).
        if let Some(i) = self.range_holding(seq) {
            self.latest_range_start = Some(self.ooo[i].start);
        }
        // Linux tcp_data_queue: a retransmission; ACK at once and keep
        // quick ACKs going (tcp_enter_quickack_mode).
        self.add_quick_acks(MAX_QUICK_ACKS);
        AckAction::Send
    }

    /// After an in-order segment: the held range it reaches, if any, is delivered too.
    #[inline(never)]
    fn deliver_held(&mut self, now: Nanos) {
        if let Some(first) = self.ooo.first().copied() {
            if first.start == self.rcv_nxt {
                self.ooo.remove(0);
                self.ooo_bytes -= first.bytes;
                self.rcv_nxt = first.end;
                self.deliver(now, first.bytes);
                if self.latest_range_start == Some(first.start) {
                    self.latest_range_start = None;
                }
            }
        }
    }

    /// The ACK that must leave before the one `on_data` asked for (DCTCP echo
    /// on a CE change), if any.
    pub fn take_early_ack(&mut self) -> Option<Ack> {
        self.early_ack.take()
    }

    /// Whether `take_early_ack` has an ACK.
    #[inline]
    pub fn has_early_ack(&self) -> bool {
        self.early_ack.is_some()
    }

    /// The delayed-ACK timer fired.
    pub fn on_delack_timer(&mut self, now: Nanos) -> Option<Ack> {
        (self.unacked_segments > 0).then(|| self.ack(now))
    }

    /// Linux tcp_incr_quickack: as many quick ACKs as half the offered
    /// window holds segments (2 if none), at most `max`, if that is more.
    #[inline(never)]
    fn add_quick_acks(&mut self, max: u32) {
        let half_window = self.free_window_bytes() / (2 * self.cfg.mss as u64);
        let quick = if half_window == 0 { 2 } else { half_window }.min(max as u64) as u32;
        self.quick_acks = self.quick_acks.max(quick);
    }

    fn deliver(&mut self, now: Nanos, bytes: u64) {
        self.delivered_bytes += bytes;
        self.last_delivery = now;
    }

    fn holds(&self, seq: u64) -> bool {
        self.range_holding(seq).is_some()
    }

    /// The index of the held range that holds `seq`, if any. A flow that
    /// keeps losing holds many ranges, and the segment that arrives is most
    /// often the next one after the highest (in order after a hole): that
    /// range is looked at first, then the others by binary search (they are
    /// sorted and disjoint).
    #[inline]
    fn range_holding(&self, seq: u64) -> Option<usize> {
        let last = self.ooo.last()?;
        if seq >= last.end {
            return None;
        }
        let i = match seq >= last.start {
            true => self.ooo.len() - 1,
            false => self.ooo.partition_point(|r| r.end <= seq),
        };
        (self.ooo[i].start <= seq).then_some(i)
    }

    /// The index of the held range that starts at `start`, if any (the
    /// highest looked at first, as in `range_holding`).
    #[inline]
    fn range_starting_at(&self, start: u64) -> Option<usize> {
        let last = self.ooo.last()?;
        let i = match last.start == start {
            true => self.ooo.len() - 1,
            false => self.ooo.partition_point(|r| r.start < start),
        };
        (i < self.ooo.len() && self.ooo[i].start == start).then_some(i)
    }

    #[inline(never)]
    fn insert_out_of_order(&mut self, seq: u64, bytes: u64) {
        self.ooo_bytes += bytes;
        // The common case: the segment after the highest held one.
        if let Some(last) = self.ooo.last_mut() {
            if last.end == seq {
                last.end += 1;
                last.bytes += bytes;
                self.latest_range_start = Some(last.start);
                return;
            }
        }
        let i = self.ooo.partition_point(|r| r.end < seq);
        if i < self.ooo.len() && self.ooo[i].end == seq {
            // Extends range i at its end; maybe joins the next one.
            self.ooo[i].end += 1;
            self.ooo[i].bytes += bytes;
            if i + 1 < self.ooo.len() && self.ooo[i + 1].start == self.ooo[i].end {
                let next = self.ooo.remove(i + 1);
                self.ooo[i].end = next.end;
                self.ooo[i].bytes += next.bytes;
            }
            self.latest_range_start = Some(self.ooo[i].start);
        } else if i < self.ooo.len() && self.ooo[i].start == seq + 1 {
            self.ooo[i].start = seq;
            self.ooo[i].bytes += bytes;
            self.latest_range_start = Some(seq);
        } else {
            self.ooo.insert(i, Range { start: seq, end: seq + 1, bytes });
            self.latest_range_start = Some(seq);
        }
    }

    /// The receiver's RTT without timestamps (Linux tcp_rcv_rtt_measure and
    /// tcp_rcv_rtt_update with win_dep): the time to receive one advertised
    /// window's worth of data past the point where the timing began; the
    /// estimate keeps the smallest such time (a window the sender did not fill
    /// at once takes longer than an RTT, never less).
    #[inline(never)]
    fn measure_rtt_by_window(&mut self, now: Nanos) {
        if let Some(start) = self.rtt_window_start {
            if self.rcv_nxt < self.rtt_window_end {
                return;
            }
            let sample = now.saturating_sub(start).max(1);
            self.rtt_estimate = Some(self.rtt_estimate.map_or(sample, |rtt| rtt.min(sample)));
        }
        // One past the offered window: the segment that ends it can only be
        // sent after the sender hears a later ACK (Linux times rcv_nxt +
        // rcv_wnd in bytes, past the right edge by what is not yet ACKed).
        self.rtt_window_end = self.rcv_nxt + self.window_segments() as u64 + 1;
        self.rtt_window_start = Some(now);
    }

    /// Receive-buffer autotuning, once per receiver-side RTT (Linux
    /// tcp_rcv_space_adjust): when more was copied in the last RTT than in the
    /// last one that grew the buffer, the buffer becomes twice that plus 16
    /// segments, plus twice its relative growth, for a sender in slow start.
    /// The buffer is counted in payload bytes (no skb overhead).
    #[inline(always)]
    fn autotune(&mut self, now: Nanos) {
        if !self.cfg.autotune {
            return;
        }
        let Some(rtt) = self.rtt_estimate else { return };
        if now < self.space_time + rtt {
            return;
        }
        self.adjust_space(now);
    }

    /// `autotune` once an RTT has passed since the last measure.
    #[inline(never)]
    fn adjust_space(&mut self, now: Nanos) {
        let copied = self.delivered_bytes - self.space_bytes;
        if copied > self.space {
            let mut want = 2 * copied + 16 * self.cfg.mss as u64;
            want += 2 * (want * (copied - self.space) / self.space);
            // The buffer that holds `want` payload bytes (and their window share).
            let want = self.cfg.accounting.space_for_window(want, self.cfg.mss as u64);
            if want > self.rcv_buf {
                self.rcv_buf = want.min(self.cfg.rcv_buf_max);
            }
            self.space = copied;
        }
        self.space_time = now;
        self.space_bytes = self.delivered_bytes;
    }

    /// The ACK to send now: the one `on_data` asked for (AckAction::Send).
    #[inline(always)]
    pub fn ack(&mut self, now: Nanos) -> Ack {
        // Most ACKs have no blocks: none are looked for.
        let sack = match self.cfg.sack && (self.duplicate_to_report.is_some() || !self.ooo.is_empty()) {
            true => self.sack_blocks_to_send(),
            false => SackBlocks::default(),
        };
        self.duplicate_to_report = None;
        let mut p = Packet::new(Kind::Ack, self.flow, tcp_header_bytes(self.cfg.timestamps, sack.len()));
        p.seq = self.rcv_nxt;
        p.window = self.window_segments();
        self.right_edge = self.rcv_nxt + p.window as u64;
        if self.cfg.timestamps {
            p.ts_val = now.max(1);
            p.ts_ecr = self.ts_recent;
        }
        p.ece = self.ece_pending;
        self.unacked_segments = 0;
        self.quick_acks = self.quick_acks.saturating_sub(1); // Linux tcp_dec_quickack_mode
        self.last_ack_sent = self.rcv_nxt;
        self.acks_sent += 1;
        Ack { packet: p, sack }
    }

    /// The SACK blocks of the next ACK: the D-SACK block of a segment
    /// received twice, then (RFC 2018) the range of the latest segment, then
    /// the others, highest first.
    #[inline(never)]
    fn sack_blocks_to_send(&self) -> SackBlocks {
        let mut sack = SackBlocks::default();
        if let Some(seq) = self.duplicate_to_report {
            sack.push(SackBlock { start: seq, end: seq + 1 });
        }
        if !self.ooo.is_empty() {
            let mut first = None;
            if let Some(start) = self.latest_range_start {
                if let Some(r) = self.range_starting_at(start).map(|i| self.ooo[i]) {
                    if sack.len() < MAX_SACK_BLOCKS {
                        sack.push(SackBlock { start: r.start, end: r.end });
                    }
                    first = Some(r.start);
                }
            }
            for r in self.ooo.iter().rev() {
                if sack.len() == MAX_SACK_BLOCKS {
                    break;
                }
                if first == Some(r.start) {
                    continue;
                }
                sack.push(SackBlock { start: r.start, end: r.end });
            }
        }
        sack
    }
}

/// What the owner gets from `on_data`, with the ACK asked for built at once.
#[cfg(test)]
#[derive(Debug, PartialEq)]
enum Reply {
    Ack(Ack),
    Delay(Nanos),
    Nothing,
}

#[cfg(test)]
impl Receiver {
    /// `on_data` as its owner handles it.
    fn reply(&mut self, now: Nanos, p: &Packet) -> Reply {
        match self.on_data(now, p) {
            AckAction::Send => Reply::Ack(self.ack(now)),
            AckAction::Delay(at) => Reply::Delay(at),
            AckAction::None => Reply::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receiver(delayed: bool) -> Receiver {
        Receiver::new(
            0,
            ReceiverConfig {
                mss: 1000,
                sack: true,
                timestamps: true,
                delayed_ack: delayed,
                delack_segments: 2,
                delack_timeout: 40,
                rcv_buf: 100_000,
                rcv_buf_max: 100_000,
                autotune: false,
                init_rcv_wnd: None,
                rto: 200,
                ecn_echo: EcnEcho::Classic,
                accounting: BufferAccounting::PAYLOAD,
            },
        )
    }

    fn data(seq: u64) -> Packet {
        let mut p = Packet::new(Kind::Data, 0, 1052);
        p.seq = seq;
        p.payload = 1000;
        p
    }

    /// Feeds in-order segments from 0 until the quick ACKs of the first
    /// data are used up (each ACKed at once); returns the next segment.
    fn past_quick_acks(r: &mut Receiver, now: Nanos) -> u64 {
        let mut seq = 0;
        while seq == 0 || r.quick_acks > 0 {
            assert!(matches!(r.reply(now, &data(seq)), Reply::Ack(_)), "segment {seq} ACKed at once");
            seq += 1;
        }
        seq
    }

    #[test]
    fn quick_acks_for_the_first_data_as_many_as_half_the_window_holds() {
        // 100 KB offered, 1000-byte segments: half is 50, capped at 16.
        let mut r = receiver(true);
        assert_eq!(past_quick_acks(&mut r, 1), 16);
        assert_eq!(r.reply(2, &data(16)), Reply::Delay(42), "then every other segment");
        // A fixed buffer of 3000 bytes: one segment in half of it.
        let mut r = Receiver::new(0, ReceiverConfig { rcv_buf: 3_000, rcv_buf_max: 3_000, ..receiver(true).cfg });
        assert_eq!(past_quick_acks(&mut r, 1), 1);
        // Linux 2.6's first window of 4 segments (in a buffer that holds no
        // more, so the window does not open further): 2 quick ACKs.
        let cfg = ReceiverConfig {
            autotune: true,
            init_rcv_wnd: Some(4),
            rcv_buf: 4_000,
            rcv_buf_max: 4_000,
            ..receiver(true).cfg
        };
        assert_eq!(past_quick_acks(&mut Receiver::new(0, cfg), 1), 2);
    }

    #[test]
    fn every_segment_is_acked_at_once_while_the_window_opens() {
        // Linux tcp_grow_window: icsk_ack.quick |= 1 whenever rcv_ssthresh
        // grows, which keeps the first data's 2 quick ACKs from running out.
        let cfg = ReceiverConfig {
            autotune: true,
            init_rcv_wnd: Some(4),
            rcv_buf: 20_000,
            rcv_buf_max: 20_000,
            ..receiver(true).cfg
        };
        let mut r = Receiver::new(0, cfg);
        // From 4 segments to the buffer's 20, two more a segment: 8 segments.
        for seq in 0..8 {
            assert!(matches!(r.reply(1, &data(seq)), Reply::Ack(_)), "segment {seq}");
        }
        assert_eq!(r.rcv_ssthresh, 20_000);
        // Open: the 2 quick ACKs left, then delayed ACKs again.
        for seq in 8..10 {
            assert!(matches!(r.reply(2, &data(seq)), Reply::Ack(_)), "segment {seq}");
        }
        assert_eq!(r.reply(2, &data(10)), Reply::Delay(42));
    }

    #[test]
    fn in_order_data_after_a_gap_longer_than_the_rto_starts_quick_acks_again() {
        // Linux tcp_event_data_recv: m > icsk_rto (200 here).
        let mut r = receiver(true);
        let next = past_quick_acks(&mut r, 1);
        assert_eq!(r.reply(201, &data(next)), Reply::Delay(241), "a gap of the RTO itself: delayed");
        assert!(matches!(r.reply(202, &data(next + 1)), Reply::Ack(_)));
        for k in 0..16 {
            let at = 403 + k;
            assert!(matches!(r.reply(at, &data(next + 2 + k)), Reply::Ack(_)), "segment {k} after the gap");
        }
        assert_eq!(r.reply(420, &data(next + 18)), Reply::Delay(460), "16 quick ACKs, then delayed again");
    }

    #[test]
    fn a_segment_received_twice_starts_quick_acks_again() {
        let mut r = receiver(true);
        let next = past_quick_acks(&mut r, 1);
        assert!(matches!(r.reply(2, &data(next - 1)), Reply::Ack(_)));
        assert_eq!(r.quick_acks, 15, "16 again, one used by the ACK of the duplicate");
        assert!(matches!(r.reply(3, &data(next)), Reply::Ack(_)));
    }

    #[test]
    fn delays_every_other_ack_and_acks_holes_at_once() {
        let mut r = receiver(true);
        let b = past_quick_acks(&mut r, 1);
        assert_eq!(r.reply(1, &data(b)), Reply::Delay(41));
        let Reply::Ack(a) = r.reply(2, &data(b + 1)) else { panic!() };
        assert_eq!(a.packet.seq, b + 2);
        let Reply::Ack(a) = r.reply(3, &data(b + 3)) else { panic!() };
        assert_eq!((a.packet.seq, a.sack.as_slice()), (b + 2, &[SackBlock { start: b + 3, end: b + 4 }][..]));
        let Reply::Ack(a) = r.reply(4, &data(b + 5)) else { panic!() };
        assert_eq!(
            a.sack.as_slice(),
            &[SackBlock { start: b + 5, end: b + 6 }, SackBlock { start: b + 3, end: b + 4 }][..]
        );
        let Reply::Ack(a) = r.reply(5, &data(b + 2)) else { panic!() };
        assert_eq!((a.packet.seq, a.sack.as_slice().len()), (b + 4, 1));
        assert_eq!(r.delivered_bytes, (b + 4) * 1000);
        let Reply::Ack(a) = r.reply(6, &data(b + 4)) else { panic!() };
        assert_eq!((a.packet.seq, a.sack.as_slice().len()), (b + 6, 0));
        assert_eq!(r.delivered_bytes, (b + 6) * 1000);
    }

    #[test]
    fn a_segment_received_twice_is_reported_in_a_dsack_block() {
        let mut r = receiver(false);
        r.reply(1, &data(0));
        r.reply(2, &data(1));
        // Below the cumulative ACK: the first block lies under it.
        let Reply::Ack(a) = r.reply(3, &data(0)) else { panic!() };
        assert_eq!((a.packet.seq, a.sack.as_slice()), (2, &[SackBlock { start: 0, end: 1 }][..]));
        // Only once: the next ACK has no D-SACK.
        let Reply::Ack(a) = r.reply(4, &data(4)) else { panic!() };
        assert_eq!(a.sack.as_slice(), &[SackBlock { start: 4, end: 5 }][..]);
        // Out of order, held already: the D-SACK block, then the block that holds it.
        let Reply::Ack(a) = r.reply(5, &data(4)) else { panic!() };
        assert_eq!(a.sack.as_slice(), &[SackBlock { start: 4, end: 5 }, SackBlock { start: 4, end: 5 }][..]);
        assert_eq!(r.duplicate_segments, 2);
    }

    #[test]
    fn many_held_ranges_are_found_as_a_walk_over_them_finds_them() {
        // Islands of 1 to 3 segments with holes of 1 or 2 between them,
        // filled partly in order after each hole, partly out of it.
        let mut r = receiver(false);
        let mut seq = 1;
        for k in 0..40u64 {
            let len = 1 + k % 3;
            let order: Vec<u64> =
                if k % 4 == 3 { (seq..seq + len).rev().collect() } else { (seq..seq + len).collect() };
            for q in order {
                let Reply::Ack(a) = r.reply(1, &data(q)) else { panic!() };
                let latest = a.sack.as_slice()[0];
                assert!(latest.start <= q && q < latest.end, "segment {q}: the first block holds it");
            }
            seq += len + 1 + k % 2;
        }
        let walk = |q: u64| r.ooo.iter().position(|g| g.start <= q && q < g.end);
        for q in 0..seq + 2 {
            assert_eq!(r.range_holding(q), walk(q), "segment {q}");
            assert_eq!(r.holds(q), walk(q).is_some());
            let starting = r.ooo.iter().position(|g| g.start == q);
            assert_eq!(r.range_starting_at(q), starting, "segment {q}");
        }
        assert_eq!(r.ooo.len(), 40);
        // A duplicate inside an island: its block follows the D-SACK block.
        let middle = r.ooo[20];
        let Reply::Ack(a) = r.reply(2, &data(middle.start)) else { panic!() };
        let blocks = a.sack.as_slice();
        assert_eq!(blocks[0], SackBlock { start: middle.start, end: middle.start + 1 });
        assert_eq!(blocks[1], SackBlock { start: middle.start, end: middle.end });
    }

    #[test]
    fn out_of_order_data_does_not_shrink_the_window() {
        let mut r = Receiver::new(
            0,
            ReceiverConfig {
                mss: 1000,
                sack: true,
                timestamps: true,
                delayed_ack: false,
                delack_segments: 2,
                delack_timeout: 40,
                rcv_buf: 10_000,
                rcv_buf_max: 10_000,
                autotune: false,
                init_rcv_wnd: None,
                rto: 200,
                ecn_echo: EcnEcho::Classic,
                accounting: BufferAccounting::PAYLOAD,
            },
        );
        let Reply::Ack(a) = r.reply(1, &data(0)) else { panic!() };
        assert_eq!((a.packet.seq, a.packet.window), (1, 10));
        // Holes: segments 2..6 arrive out of order and occupy buffer space,
        // yet the right edge (ack + window = 11) stays put.
        for seq in 2..6 {
            let Reply::Ack(a) = r.reply(2, &data(seq)) else { panic!() };
            assert_eq!(a.packet.seq + a.packet.window as u64, 11, "right edge moved at seq {seq}");
        }
    }

    #[test]
    fn autotuning_keeps_ahead_of_a_sender_in_slow_start() {
        let mut r = Receiver::new(
            0,
            ReceiverConfig {
                mss: 1000,
                sack: true,
                timestamps: true,
                delayed_ack: false,
                delack_segments: 2,
                delack_timeout: 40,
                rcv_buf: 131_072,
                rcv_buf_max: 6_291_456,
                autotune: true,
                init_rcv_wnd: None,
                rto: 200,
                ecn_echo: EcnEcho::Classic,
                accounting: BufferAccounting::PAYLOAD,
            },
        );
        // About 64 KB offered at first (Linux since 4.19).
        assert_eq!(r.window_segments(), 65);
        // A slow-start sender: each RTT (100 ns here) delivers twice the last
        // flight, every segment echoing a timestamp one RTT old.
        let (mut seq, mut now, mut flight) = (0u64, 100, 10u64);
        for round in 0..6 {
            for _ in 0..flight {
                let mut p = data(seq);
                p.ts_ecr = now - 100;
                r.reply(now, &p);
                seq += 1;
            }
            now += 100;
            flight *= 2;
            // tcp_grow_window adds two segments per segment received, so the
            // offer stays ahead of the next flight (twice this one).
            assert!(
                r.window_segments() as u64 >= flight,
                "round {round}: window {} < next flight {flight}",
                r.window_segments()
            );
        }
        // tcp_rcv_space_adjust grew the buffer with the flights (from 128 KB).
        assert!(r.rcv_buf() >= flight * 1000, "buffer {} for a next flight of {}", r.rcv_buf(), flight);
    }

    #[test]
    fn autotuning_without_timestamps_times_a_window_of_data() {
        let mut r = Receiver::new(
            0,
            ReceiverConfig {
                mss: 1000,
                sack: true,
                timestamps: false,
                delayed_ack: false,
                delack_segments: 2,
                delack_timeout: 40,
                rcv_buf: 131_072,
                rcv_buf_max: 6_291_456,
                autotune: true,
                init_rcv_wnd: None,
                rto: 200,
                ecn_echo: EcnEcho::Classic,
                accounting: BufferAccounting::PAYLOAD,
            },
        );
        // A sender limited by the offered window: each RTT (100 ns) it sends
        // what the receiver last offered, with no timestamps to echo.
        let (mut seq, mut now) = (0u64, 100);
        for _ in 0..12 {
            let flight = r.window_segments() as u64;
            for _ in 0..flight {
                r.reply(now, &data(seq));
                seq += 1;
            }
            now += 100;
        }
        // The window-timed RTT lets tcp_rcv_space_adjust grow the buffer past
        // the 128 KB it started from.
        assert!(r.rcv_buf() > 1_000_000, "buffer {} never grew", r.rcv_buf());
    }
}

#[cfg(test)]
mod accounting_tests {
    use super::*;

    fn receiver(accounting: BufferAccounting, rcv_buf: u64) -> Receiver {
        Receiver::new(
            0,
            ReceiverConfig {
                mss: 1448,
                sack: true,
                timestamps: true,
                delayed_ack: false,
                delack_segments: 2,
                delack_timeout: 40,
                rcv_buf,
                rcv_buf_max: rcv_buf,
                autotune: false,
                init_rcv_wnd: None,
                rto: 200,
                ecn_echo: EcnEcho::Classic,
                accounting,
            },
        )
    }

    #[test]
    fn the_window_is_the_adv_win_scale_share_of_the_buffer() {
        // Linux 2.6.32's default tcp_rmem[1] = 87380 offers 65535 bytes (scale 2).
        let old = BufferAccounting { adv_win_scale: Some(2), skb_overhead_bytes: 520 };
        assert_eq!(receiver(old, 87_380).window_segments(), 65_535 / 1448);
        assert_eq!(receiver(BufferAccounting::PAYLOAD, 87_380).window_segments(), 87_380 / 1448);
        // A 4 MB buffer offers 3 MB; the buffer for a window holds its truesize.
        assert_eq!(old.window_from_space(4 << 20), 3 << 20);
        assert_eq!(old.space_for_window(1448 * 1000, 1448), 1968 * 1000);
        let half = BufferAccounting { adv_win_scale: Some(1), skb_overhead_bytes: 0 };
        assert_eq!(half.space_for_window(1000, 1000), 2000);
    }

    #[test]
    fn out_of_order_segments_take_their_truesize() {
        let old = BufferAccounting { adv_win_scale: Some(2), skb_overhead_bytes: 552 };
        let mut r = receiver(old, 200_000);
        let mut p = Packet::new(Kind::Data, 0, 1500);
        p.payload = 1448;
        for seq in 1..=10 {
            p.seq = seq;
            r.reply(1, &p);
        }
        // 10 held segments take 20000 bytes of the buffer: (200000 - 20000) * 3/4 offered.
        assert_eq!(r.free_window_bytes(), (200_000 - 20_000) * 3 / 4);
    }
}

#[cfg(test)]
mod dctcp_echo_tests {
    use super::*;

    fn data(seq: u64, ce: bool) -> Packet {
        let mut p = Packet::new(Kind::Data, 0, 1052);
        p.seq = seq;
        p.payload = 1000;
        p.ect = true;
        p.ce = ce;
        p
    }

    fn receiver(echo: EcnEcho) -> Receiver {
        Receiver::new(
            0,
            ReceiverConfig {
                mss: 1000,
                sack: true,
                timestamps: true,
                delayed_ack: true,
                delack_segments: 2,
                delack_timeout: 40,
                rcv_buf: 100_000,
                rcv_buf_max: 100_000,
                autotune: false,
                init_rcv_wnd: None,
                rto: 200,
                ecn_echo: echo,
                accounting: BufferAccounting::PAYLOAD,
            },
        )
    }

    /// A receiver past the quick ACKs of the first data, with one segment
    /// held by the delayed ACK; returns the next segment.
    fn delaying(echo: EcnEcho) -> (Receiver, u64) {
        let mut r = receiver(echo);
        let mut b = 0;
        while b == 0 || r.quick_acks > 0 {
            r.reply(1, &data(b, false));
            b += 1;
        }
        assert_eq!(r.reply(1, &data(b, false)), Reply::Delay(41));
        (r, b + 1)
    }

    #[test]
    fn dctcp_echo_acks_at_once_with_the_old_state_when_ce_changes() {
        let (mut r, b) = delaying(EcnEcho::Dctcp);
        let b = b - 1; // the segment held
                       // CE arrives with one segment held back: ACK it now without ECE, then
                       // this segment starts a new delayed ACK that carries ECE.
        assert_eq!(r.reply(2, &data(b + 1, true)), Reply::Delay(42));
        let early = r.take_early_ack().expect("immediate ACK on the CE change");
        assert_eq!((early.packet.seq, early.packet.ece), (b + 1, false));
        let Reply::Ack(a) = r.reply(3, &data(b + 2, true)) else { panic!() };
        assert_eq!((a.packet.seq, a.packet.ece), (b + 3, true));
        assert!(r.take_early_ack().is_none());
        // Back to no CE: the held segment b + 3 (CE) is ACKed with ECE first.
        assert_eq!(r.reply(4, &data(b + 3, true)), Reply::Delay(44));
        assert!(r.take_early_ack().is_none());
        r.reply(5, &data(b + 4, false));
        let early = r.take_early_ack().expect("immediate ACK on the CE change");
        assert_eq!((early.packet.seq, early.packet.ece), (b + 4, true));
        // ECE now follows CE without waiting for CWR.
        let a = r.on_delack_timer(6).unwrap();
        assert_eq!((a.packet.seq, a.packet.ece), (b + 5, false));
    }

    #[test]
    fn the_first_ce_mark_of_an_echo_is_acked_at_once_with_one_more() {
        // Linux __tcp_ecn_check_ce: tcp_enter_quickack_mode(sk, 2) on CE when
        // not already echoing; later marks of the same echo change nothing.
        let (mut r, b) = delaying(EcnEcho::Classic);
        let Reply::Ack(a) = r.reply(2, &data(b, true)) else { panic!("CE: at once") };
        assert!(a.packet.ece);
        assert!(matches!(r.reply(2, &data(b + 1, false)), Reply::Ack(_)), "the second quick ACK");
        assert_eq!(r.reply(2, &data(b + 2, true)), Reply::Delay(42), "echoing already: delayed");
    }

    #[test]
    fn data_with_cwr_is_acked_at_once() {
        // Linux tcp_ecn_accept_cwr (4.18+): ICSK_ACK_NOW.
        let (mut r, b) = delaying(EcnEcho::Classic);
        let mut cwr = data(b, false);
        cwr.cwr = true;
        assert!(matches!(r.reply(2, &cwr), Reply::Ack(_)));
        assert_eq!(r.reply(3, &data(b + 1, false)), Reply::Delay(43), "no quick ACKs after it");
    }

    #[test]
    fn data_without_ect_after_ect_is_acked_at_once_with_one_more() {
        // Linux __tcp_ecn_check_ce: a segment without ECT after ECT ones is
        // probably a retransmission (which RFC 3168 sends without ECT).
        let (mut r, b) = delaying(EcnEcho::Classic);
        let mut plain = data(b, false);
        plain.ect = false;
        assert!(matches!(r.reply(2, &plain), Reply::Ack(_)));
        assert!(matches!(r.reply(2, &data(b + 1, false)), Reply::Ack(_)));
        assert_eq!(r.reply(2, &data(b + 2, false)), Reply::Delay(42));
    }

    #[test]
    fn a_ce_mark_on_a_duplicate_starts_no_echo() {
        // Linux checks CE on new data only (tcp_event_data_recv, tcp_data_queue_ofo).
        let (mut r, b) = delaying(EcnEcho::Classic);
        let Reply::Ack(a) = r.reply(2, &data(b - 2, true)) else { panic!("a duplicate: at once") };
        assert!(!a.packet.ece);
    }

    #[test]
    fn classic_echo_holds_ece_until_cwr() {
        let mut r = receiver(EcnEcho::Classic);
        r.reply(1, &data(0, true));
        assert!(r.take_early_ack().is_none());
        let Reply::Ack(a) = r.reply(2, &data(1, false)) else { panic!() };
        assert!(a.packet.ece);
        let mut cwr = data(2, false);
        cwr.cwr = true;
        r.reply(3, &cwr);
        let Reply::Ack(a) = r.reply(4, &data(3, false)) else { panic!() };
        assert!(!a.packet.ece);
    }
}
