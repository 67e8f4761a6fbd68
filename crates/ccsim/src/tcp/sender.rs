//! The TCP sender: the send loop, ACK processing, loss recovery and timers,
//! close to Linux (net/ipv4/tcp_output.c, tcp_input.c) where the RFCs leave room.
//!
//! - Sending: lost segments first, then new data, while the segments in flight
//!   (RFC 6675 "pipe" = Linux tcp_packets_in_flight) stay below cwnd, within
//!   the receiver's window and the send buffer, and, with pacing, not before
//!   the pacing clock allows.
//! - Loss detection: with SACK, RACK by time (rack.rs, RFC 8985, Linux 4.18+)
//!   or, with `rack` off, RFC 6675 IsLost (three SACKed segments above a
//!   hole); without SACK, three duplicate ACKs (each counted as a segment that
//!   left the network, which also gives limited transmit, RFC 3042). With
//!   SACK and `tlp`, a tail loss probe (tlp.rs) goes out when the ACKs stop.
//! - Recovery (recovery.rs): Linux's state machine (Open, Disorder, CWR,
//!   Recovery, Loss). Entering recovery sets ssthresh from the algorithm; the
//!   window then falls to ssthresh by proportional rate reduction (RFC 6937,
//!   Linux default) or at once (RFC 6675 / 6582). Without SACK, NewReno (RFC
//!   6582) partial ACKs retransmit the next hole; Reno leaves recovery at the
//!   first new ACK; Tahoe treats three duplicate ACKs like a timeout.
//! - Timeout (recovery.rs): RFC 6298 timer with backoff; everything
//!   outstanding is marked lost, cwnd = 1, slow start (Linux tcp_enter_loss),
//!   unless F-RTO (frto.rs) finds it spurious; timestamps (Eifel) and
//!   D-SACK (dsack.rs) undo a spurious recovery or timeout.
//! - RTT: from the send time of the oldest newly ACKed segment never
//!   retransmitted (Karn), else from the timestamp echo, as Linux.
//! - ECN (RFC 3168): ECT on data, an ECE enters CWR once per window.
//! - Pacing: with an algorithm's rate (bbr) or `pacing` on, each segment
//!   pushes the earliest next departure by payload / rate (Linux internal TCP
//!   pacing, tcp_update_skb_after_send); a timer wakes the sender then.

use super::chrono::{Chrono, Limit};
use super::dsack::first_block_is_dsack;
use super::early_retransmit::EarlyRetransmit;
use super::frto::{AckFlags, FrtoState, FrtoVariant};
use super::rack::Rack;
use super::rate::RateSampler;
use super::recovery::Episode;
use super::rtt::{RtoStyle, RttEstimator};
use super::scoreboard::{OnRemoved, Removed, Scoreboard, Segment, DUPTHRESH, EVER_RETRANS, SACKED};
use super::send_buffer::SendBuffer;
use super::tlp::Tlp;
use crate::cc::RecoveryPolicy;
use crate::cc::{AckSample, Algorithm, CaEvent, CaState, Conn, Counting, Window};
use crate::net::outbox::Outbox;
use crate::net::packet::{tcp_header_bytes, Kind, Packet, SackBlock};
use crate::time::{Nanos, NS_PER_SEC};

/// The `Conn` that sender `$s`'s algorithm reads at `$now`, as a function of
/// its window. A closure that borrows only the fields it reads (not the
/// algorithm, not the window), so the per-ACK hooks can take it and compute
/// it inside the algorithm's arm (cc::Algorithm::pkts_acked); `Sender::conn`
/// for the others.
macro_rules! conn_of {
    ($s:expr, $now:expr) => {
        |w: &Window| Conn {
            now: $now,
            mss: $s.cfg.mss,
            srtt_ns: $s.rtt.srtt().unwrap_or(0),
            min_rtt_ns: $s.rtt.min_rtt().unwrap_or(0),
            in_flight: $s.sb.in_flight(),
            packets_out: $s.sb.packets_out(),
            delivered: $s.rate.delivered,
            delivered_ce: $s.delivered_ce,
            snd_nxt: $s.sb.nxt(),
            snd_una: $s.sb.una(),
            is_cwnd_limited: $s.is_cwnd_limited || (w.in_slow_start() && w.cwnd < 2 * $s.max_packets_out),
            ca_state: Some($s.ca_state),
        }
    };
}

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub mss: u32,
    pub init_cwnd: u32,
    pub sack: bool,
    pub timestamps: bool,
    pub prr: bool,
    /// RACK loss detection for SACK flows (RFC 8985; Linux 4.4+, alone since 4.18).
    pub rack: bool,
    /// Tail loss probes for SACK flows (RFC 8985; Linux 3.10+).
    pub tlp: bool,
    /// RFC 5827 early retransmit with Linux's delay (3.5 to 4.10).
    pub early_retrans: bool,
    /// What the window's growth counts: ACKed segments, or ACKs (before 3.13/4.0).
    pub counting: Counting,
    /// FACK loss marking for SACK flows without RACK (Linux before 4.15).
    pub fack: bool,
    pub pacing: bool,
    pub ecn: bool,
    /// F-RTO after a retransmission timeout, as a Linux release ran it.
    pub frto: FrtoVariant,
    /// How a spurious recovery is undone (undo26.rs).
    pub undo: super::undo26::UndoStyle,
    pub rto_style: RtoStyle,
    pub initial_rto: Nanos,
    pub min_rto: Nanos,
    pub max_rto: Nanos,
    /// Payload bytes of a fixed send buffer (send_buffer.rs), or None for autotuning.
    pub snd_buf: Option<u64>,
    pub wmem_max: u64,
    /// Bytes a segment takes in the automatic send buffer beyond its payload
    /// (its skb truesize less the payload).
    pub snd_skb_overhead: u64,
    pub start: Nanos,
    /// The application stops writing at this time (bulk flows).
    pub stop: Option<Nanos>,
    /// Bytes to transfer (file transfers); None: unlimited (bulk).
    pub size: Option<u64>,
}

/// Per-flow counters (Linux: tcp_info and the MIB counters).
#[derive(Clone, Copy, Debug, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    /// Payload bytes sent, retransmissions included (throughput).
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    /// Fast recoveries found spurious and undone (Linux TCPFullUndo + TCPPartialUndo).
    pub undone_recoveries: u64,
    /// Timeouts undone as spurious (Linux TCPLossUndo: Eifel, D-SACK or F-RTO).
    pub undone_timeouts: u64,
    /// Timeouts F-RTO found spurious (Linux TCPSpuriousRTOs).
    pub spurious_timeouts: u64,
    /// ACKs whose first SACK block was a D-SACK (Linux TCPDSACKRecv + TCPDSACKOfoRecv).
    pub dsacks_received: u64,
    pub ecn_reductions: u64,
    pub acks_received: u64,
    /// Tail loss probes sent (Linux TCPLossProbes).
    pub loss_probes: u64,
    /// Losses a probe repaired, each with one reduction (Linux TCPLossProbeRecovery).
    pub loss_probe_recoveries: u64,
    /// Segments the sending host's full queue refused (net/host_queue.rs).
    pub local_drops: u64,
}

pub struct Sender {
    pub id: u32,
    pub(super) cfg: SenderConfig,
    pub(super) cc: Algorithm,
    pub w: Window,
    pub ca_state: CaState,
    pub(super) sb: Scoreboard,
    pub rtt: RttEstimator,
    pub(super) rate: RateSampler,
    /// Segments of the transfer (None: unlimited) and the payload of the last one.
    pub(super) total_segments: Option<u64>,
    pub(super) last_segment_payload: u32,
    pub(super) app_active: bool,
    pub(super) started: bool,
    /// The current congestion episode (recovery, CWR or loss).
    pub(super) episode: Episode,
    /// F-RTO between ACKs (frto.rs).
    pub(super) frto: FrtoState,
    /// The receiver's advertised window, in segments.
    pub(super) rwnd: u32,
    pub(super) ts_recent: Nanos,
    pub(super) ece_seen_this_ack: bool,
    /// CWR goes on the next new data (Linux TCP_ECN_QUEUE_CWR): queued by
    /// every window reduction, withdrawn by an undo that restores ssthresh.
    pub(super) cwr_pending: bool,
    pub(super) delivered_ce: u64,
    /// The algorithm declares that it sets the window itself on every ACK
    /// (Linux `cong_control`, bbr): recovery then leaves cwnd alone, as
    /// Linux's tcp_cong_control and tcp_end_cwnd_reduction do.
    pub(super) cc_owns_window: bool,
    /// Segments are paced: `tcp.pacing` is on or the algorithm paces (Linux
    /// sk_pacing_status); fixed at the start, so the send loop asks no rate otherwise.
    paces: bool,
    /// ECN-capable segments carry ECT(1), the L4S identifier (the algorithm
    /// declares SENDS_ECT1, prague); fixed at the start, like `paces`.
    sends_ect1: bool,
    /// How losses revealed by duplicate ACKs or SACK are recovered (declared by the registry entry).
    pub(super) recovery: RecoveryPolicy,
    /// Linux tcp_cwnd_validate state.
    pub(super) is_cwnd_limited: bool,
    pub(super) max_packets_out: u32,
    pub(super) max_packets_seq: u64,
    /// Pacing: earliest time of the next transmission.
    pub(super) next_send_at: Nanos,
    pub(super) rto_at: Option<Nanos>,
    /// RACK state and its reordering timer.
    pub(super) rack: Rack,
    /// Tail loss probe state and its timer.
    pub(super) tlp: Tlp,
    pub(super) early_retransmit: EarlyRetransmit,
    /// Time the last byte of a transfer was ACKed (file transfers).
    pub completed_at: Option<Nanos>,
    pub stats: SenderStats,
    /// Time limited by each cause (chrono.rs), set where the send loop stops.
    pub chrono: Chrono,
    /// The latest RTT sample for the RTO estimator (for recording), per ACK.
    pub last_rtt_sample: Option<Nanos>,
    /// How far new data may run ahead of SND.UNA (send_buffer.rs).
    send_buffer: SendBuffer,
}

/// The scan of the segments a cumulative ACK removes (Linux
/// tcp_clean_rtx_queue): what `Sender::on_ack` hands `Scoreboard::ack_to`,
/// by value, with what it needs to know and what it learns.
struct CleanRtx<'a> {
    rate: &'a mut RateSampler,
    rack: &'a mut Rack,
    now: Nanos,
    min_rtt: Option<Nanos>,
    high_seq: u64,
    rack_on: bool,
    /// Without SACK the duplicate ACKs counted most of these deliveries
    /// already (Linux tcp_clean_rtx_queue counts only with SACK; the rest is
    /// remove_reno_sacks' in `on_ack`); their rate sample is taken all the same.
    sack_on: bool,
    /// The ACK's timestamp echo (0 without timestamps).
    ack_tsecr: Nanos,
    first_acked: bool,
    nonhead_retrans_acked: bool,
    orig_acked_below_high_seq: bool,
    retransmitted_data_acked: bool,
    /// The RTT of the oldest and of the newest never-retransmitted segment removed.
    oldest_rtt: Option<Nanos>,
    newest_rtt: Option<Nanos>,
}

impl OnRemoved for CleanRtx<'_> {
    /// A run of clean segments (scoreboard::Removed) went out in order: the
    /// rate sample and RACK take its last, the oldest RTT its first.
    #[inline(always)]
    fn removed(&mut self, r: Removed) {
        let s = r.last;
        if s.has(EVER_RETRANS) {
            self.nonhead_retrans_acked |= !self.first_acked;
        }
        self.first_acked = false;
        if s.has(SACKED) {
            return;
        }
        self.rate.on_delivered(self.now, if self.sack_on { r.count } else { 0 }, s.sent_at, &s.tx);
        // Linux tcp_skb_spurious_retrans: an ACK echoing a timestamp older
        // than the retransmission was for the original, so RACK does not
        // take the retransmission's send time.
        let original_arrived = s.has(EVER_RETRANS) && self.ack_tsecr > 0 && self.ack_tsecr < s.sent_at;
        if self.rack_on && !original_arrived {
            self.rack.on_delivered(r.last_seq, s, self.now, self.min_rtt);
        }
        if s.has(EVER_RETRANS) {
            self.retransmitted_data_acked = true;
        } else {
            self.orig_acked_below_high_seq |= r.first_seq < self.high_seq;
            self.oldest_rtt.get_or_insert(self.now - r.first.sent_at);
            self.newest_rtt = Some(self.now - s.sent_at);
        }
    }
}

impl Sender {
    pub fn new(id: u32, cfg: SenderConfig, cc: Algorithm) -> Sender {
        let (total_segments, last_segment_payload) = match cfg.size {
            Some(bytes) => {
                let mss = cfg.mss as u64;
                let n = bytes.div_ceil(mss);
                (Some(n), (bytes - (n - 1) * mss) as u32)
            }
            None => (None, cfg.mss),
        };
        let cc_owns_window = cc.owns_window();
        let paces = cfg.pacing || cc.paces();
        let sends_ect1 = cc.sends_ect1();
        let recovery = cc.info().recovery;
        let mut sb = Scoreboard::new();
        sb.fack = cfg.fack;
        Sender {
            id,
            w: Window { counting: cfg.counting, ..Window::new(cfg.init_cwnd) },
            rtt: RttEstimator::new(cfg.rto_style, cfg.initial_rto, cfg.min_rto, cfg.max_rto),
            cfg,
            cc,
            ca_state: CaState::Open,
            sb,
            rate: RateSampler::new(cc_owns_window),
            total_segments,
            last_segment_payload,
            app_active: false,
            started: false,
            episode: Episode::default(),
            frto: FrtoState::default(),
            rwnd: u32::MAX,
            ts_recent: 0,
            ece_seen_this_ack: false,
            cwr_pending: false,
            delivered_ce: 0,
            cc_owns_window,
            paces,
            sends_ect1,
            recovery,
            is_cwnd_limited: false,
            max_packets_out: 0,
            max_packets_seq: 0,
            next_send_at: 0,
            rto_at: None,
            rack: Rack::default(),
            tlp: Tlp::default(),
            early_retransmit: EarlyRetransmit::default(),
            completed_at: None,
            stats: SenderStats::default(),
            chrono: Chrono::default(),
            last_rtt_sample: None,
            send_buffer: SendBuffer::default(),
        }
    }

    pub fn algorithm(&self) -> &Algorithm {
        &self.cc
    }
    pub fn in_flight(&self) -> u32 {
        self.sb.in_flight()
    }
    pub fn snd_una(&self) -> u64 {
        self.sb.una()
    }
    pub fn snd_nxt(&self) -> u64 {
        self.sb.nxt()
    }

    /// RACK finds this flow's losses (it needs SACK; without, the duplicate
    /// ACKs do).
    pub(super) fn uses_rack(&self) -> bool {
        self.cfg.rack && self.cfg.sack
    }

    /// Pacing rate in bytes per second, when pacing is on.
    pub fn pacing_rate(&self) -> Option<f64> {
        if !self.paces {
            return None;
        }
        if let Some(r) = self.cc.pacing_rate() {
            return Some(r);
        }
        if !self.cfg.pacing {
            return None;
        }
        // Linux tcp_update_pacing_rate: 200% of cwnd/srtt in slow start, 120% after.
        let srtt = self.rtt.srtt()?;
        let ratio = if self.w.cwnd < self.w.ssthresh / 2 { 2.0 } else { 1.2 };
        let cwnd = self.w.cwnd.max(self.sb.packets_out()) as f64;
        Some(ratio * cwnd * self.cfg.mss as f64 * NS_PER_SEC as f64 / srtt as f64)
    }

    pub fn conn(&self, now: Nanos) -> Conn {
        conn_of!(self, now)(&self.w)
    }

    /// The next time the sender must be woken (start, stop, pacing, RTO,
    /// loss probe or RACK's reordering timer). Each deadline is a plain
    /// `min` with `Nanos::MAX` for none (no deadline is 585 years away):
    /// branch-free, as this runs after every ACK.
    pub fn next_wakeup(&self, now: Nanos) -> Option<Nanos> {
        const NONE: Nanos = Nanos::MAX;
        let mut t = (self.rto_at.unwrap_or(NONE))
            .min(self.tlp.timer_at.unwrap_or(NONE))
            .min(self.rack.timer_at.unwrap_or(NONE))
            .min(self.early_retransmit.timer_at.unwrap_or(NONE));
        if !self.started {
            t = t.min(self.cfg.start);
        }
        if self.app_active {
            t = t.min(self.cfg.stop.unwrap_or(NONE));
        }
        if self.next_send_at > now && self.has_something_to_send() {
            t = t.min(self.next_send_at);
        }
        (t != NONE).then_some(t)
    }

    /// Timer callback: does whatever is due at `now`.
    pub fn on_timer(&mut self, now: Nanos, out: &mut impl Outbox) {
        if !self.started && now >= self.cfg.start {
            self.started = true;
            self.app_active = true;
            let c = self.conn(now);
            self.cc.init(&mut self.w, &c);
        }
        if self.app_active && self.cfg.stop.is_some_and(|s| now >= s) {
            self.app_active = false;
        }
        // The probe goes first: it restarts the RTO (Linux has one timer for the three).
        if self.tlp.timer_at.is_some_and(|t| now >= t) {
            self.send_loss_probe(now, out);
        }
        if self.rto_at.is_some_and(|t| now >= t) {
            self.rto_at = None;
            self.on_retransmission_timeout(now, out);
            self.tlp.timer_at = None;
            self.rack.timer_at = None;
        }
        if self.rack.timer_at.is_some_and(|t| now >= t) {
            self.on_reordering_timeout(now);
        }
        if self.early_retransmit.timer_at.is_some_and(|t| now >= t) {
            self.on_early_retransmit_timer(now);
        }
        self.send(now, out);
    }

    /// Linux tcp_rack_reo_timeout: RACK's timer found losses: recovery
    /// starts (if it has not) with one PRR step, and the send loop retransmits.
    fn on_reordering_timeout(&mut self, now: Nanos) {
        let reo_wnd = self.rack_reo_wnd();
        let newly_lost = self.rack.on_timer(&mut self.sb, now, reo_wnd);
        if newly_lost > 0 && self.ca_state != CaState::Recovery {
            self.enter_recovery(now, false);
            if !self.cc_owns_window {
                if self.cfg.prr {
                    self.prr_reduce(1, false);
                } else {
                    self.rate_halve(1);
                }
            }
        }
    }

    /// Linux tcp_may_raise_cwnd (tcp_cong_control): whether this ACK may
    /// grow the window. RFC 5681 grows it only on in-order progress (an ACK
    /// of new data), as Linux did through 3.x; today's Linux also grows it on
    /// an ACK that only SACKs new data once the path has shown reordering
    /// beyond DupThresh (tp->reordering above sysctl_tcp_reordering,
    /// FLAG_FORWARD_PROGRESS), since there most data arrives out of order
    /// and its SACKs would otherwise never count. The presets of 3.5 and
    /// before (cwnd_counts = "acks") keep the old rule.
    fn may_raise_cwnd(&self, flags: &AckFlags) -> bool {
        let reordering = self.w.counting == Counting::Segments && self.sb.reordering > DUPTHRESH;
        flags.data_acked || (reordering && flags.data_sacked)
    }

    /// RACK's reordering window now (rack.rs).
    pub(super) fn rack_reo_wnd(&self) -> Nanos {
        self.rack.reo_wnd(
            self.rtt.min_rtt(),
            self.rtt.srtt(),
            matches!(self.ca_state, CaState::Recovery | CaState::Loss),
            self.sb.sacked_out >= self.sb.reordering,
            self.sb.reordering_seen,
        )
    }

    pub(super) fn has_something_to_send(&self) -> bool {
        self.sb.lost_out > self.sb.retrans_out || self.has_new_data()
    }

    pub(super) fn has_new_data(&self) -> bool {
        self.app_active && self.total_segments.is_none_or(|n| self.sb.nxt() < n)
    }

    /// A new segment may go now, the window aside (Linux tcp_may_send_now
    /// with the window F-RTO opened): data, receive window and send buffer allow.
    pub(super) fn may_send_new_segment(&self) -> bool {
        self.has_new_data()
            && self.sb.nxt() < self.sb.una() + self.rwnd.max(1) as u64
            && self.sb.nxt() < self.send_buffer.limit(&self.cfg, self.sb.una())
    }

    /// The send loop (Linux tcp_write_xmit + tcp_xmit_retransmit_queue).
    /// Where it stops says what limits the flow now (chrono.rs). Inlined
    /// into `on_ack` and `on_timer` (see World::arm_sender).
    #[inline(always)]
    pub fn send(&mut self, now: Nanos, out: &mut impl Outbox) {
        if !self.started {
            return;
        }
        self.send_buffer.update(&self.cfg, self.w.cwnd, self.sb.una());
        let nxt_before = self.sb.nxt();
        let limit = if std::mem::take(&mut self.frto.new_data_first) {
            // RFC 5682 step 2.b (frto.rs): new data before any retransmission;
            // if none could go, the conventional recovery.
            let limit = self.send_loop(now, out, false);
            if self.sb.nxt() > self.episode.high_seq {
                limit
            } else {
                self.frto.active = false;
                self.send_loop(now, out, true)
            }
        } else {
            self.send_loop(now, out, true)
        };
        self.chrono.set(now, limit);
        self.validate_cwnd();
        // Linux tcp_write_xmit: new data sent (re)arms the loss probe.
        if self.sb.nxt() > nxt_before && self.cfg.tlp {
            self.schedule_loss_probe(now);
        }
    }

    /// Sends while the window allows, lost segments first when `retransmit`.
    /// Inlined, with `transmit`, into `send`: a call per segment saved and
    /// restored a dozen registers (2% of all instructions on a busy link).
    #[inline(always)]
    fn send_loop(&mut self, now: Nanos, out: &mut impl Outbox, retransmit: bool) -> Limit {
        loop {
            if self.sb.in_flight() >= self.w.cwnd {
                break Limit::Network;
            }
            // The clock first: the rate is asked only when it holds a segment back.
            if now < self.next_send_at && self.pacing_rate().is_some() {
                break Limit::Network;
            }
            if !out.has_room() {
                self.on_local_drop(now);
                break Limit::Network;
            }
            if let Some(seq) = self.sb.next_to_retransmit().filter(|_| retransmit) {
                self.transmit(now, seq, true, out);
                continue;
            }
            if !self.has_new_data() {
                // Room in the window and nothing to send: an app-limited phase.
                if self.sb.in_flight() < self.w.cwnd {
                    self.rate.on_app_limited(self.sb.in_flight());
                }
                break if self.sb.packets_out() == 0 { Limit::Idle } else { Limit::Application };
            }
            let nxt = self.sb.nxt();
            let window_end = self.sb.una() + self.rwnd.max(1) as u64;
            if nxt >= window_end {
                break Limit::ReceiveWindow;
            }
            if nxt >= self.send_buffer.limit(&self.cfg, self.sb.una()) {
                break Limit::SendBuffer;
            }
            if self.sb.packets_out() == 0 {
                let c = self.conn(now);
                self.cc.cwnd_event(&mut self.w, &c, CaEvent::TxStart);
            }
            self.transmit(now, nxt, false, out);
        }
    }

    /// Linux tcp_cwnd_validate: was the window the limit during this flight?
    fn validate_cwnd(&mut self) {
        let limited = self.sb.in_flight() >= self.w.cwnd;
        let packets_out = self.sb.packets_out();
        if self.sb.una() >= self.max_packets_seq || packets_out > self.max_packets_out || limited {
            self.max_packets_out = packets_out;
            self.max_packets_seq = self.sb.nxt();
            self.is_cwnd_limited = limited;
        }
    }

    fn payload_of(&self, seq: u64) -> u32 {
        match self.total_segments {
            Some(n) if seq + 1 == n => self.last_segment_payload,
            _ => self.cfg.mss,
        }
    }

    /// Sends segment `seq` (see `send_loop` for why it is inlined).
    #[inline(always)]
    pub(super) fn transmit(&mut self, now: Nanos, seq: u64, retransmission: bool, out: &mut impl Outbox) {
        let payload = self.payload_of(seq);
        let tx = self.rate.on_send(now, self.sb.packets_out());
        if retransmission {
            if self.uses_rack() {
                self.rack.on_retransmit(seq, now, self.sb.nxt());
            }
            self.sb.on_retransmit(seq, now, tx);
            self.stats.retransmitted_segments += 1;
            if self.episode.retrans_stamp == 0 {
                self.episode.retrans_stamp = now;
            }
            // Linux tcp_retransmit_skb: one more retransmission a D-SACK may prove needless.
            self.episode.undo_retrans = self.episode.undo_retrans.max(0) + 1;
            // Linux restarts the timer when it retransmits the head, so a
            // recovery that takes longer than one RTO does not time out.
            if seq == self.sb.una() {
                self.rto_at = Some(now + self.rtt.rto());
            }
        } else {
            self.sb.push_new(Segment { sent_at: now, tx, flags: 0, nxt_at_retransmit: 0 });
        }
        if matches!(self.ca_state, CaState::Recovery | CaState::Cwr) {
            self.episode.prr_out += 1;
        }
        let mut p = Packet::new(Kind::Data, self.id, payload + tcp_header_bytes(self.cfg.timestamps, 0));
        p.seq = seq;
        p.payload = payload;
        if self.cfg.timestamps {
            p.ts_val = now.max(1);
            p.ts_ecr = self.ts_recent;
        }
        // RFC 3168 6.1.5, Linux tcp_ecn_send: retransmissions go without ECT
        // (so an AQM drops rather than marks them), unless the algorithm
        // needs ECN (dctcp).
        p.ect = self.cfg.ecn && (!retransmission || self.cc.needs_ecn());
        p.ect1 = p.ect && self.sends_ect1;
        if self.cwr_pending && !retransmission {
            p.cwr = true;
            self.cwr_pending = false;
        }
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += payload as u64;
        if let Some(rate) = self.pacing_rate() {
            // Linux tcp_update_skb_after_send: the gap is the segment's payload
            // (skb->len) at the pacing rate, so a rate of bw * mss sends bw segments/s.
            let gap = (payload as f64 * NS_PER_SEC as f64 / rate.max(1.0)) as Nanos;
            self.next_send_at = self.next_send_at.max(now) + gap;
        }
        if self.rto_at.is_none() {
            self.rto_at = Some(now + self.rtt.rto());
        }
        out.send(p);
    }

    /// The ACK's SACK blocks (Linux tcp_sacktag_write_queue): a D-SACK
    /// first, then each newly SACKed segment delivered (rate sample, RACK,
    /// `flags`); returns the RTT of the newest never-retransmitted one.
    #[inline(never)]
    fn tag_sack_blocks(
        &mut self,
        now: Nanos,
        ack_seq: u64,
        sack: &[SackBlock],
        prior_una: u64,
        flags: &mut AckFlags,
    ) -> Option<Nanos> {
        let (high_seq, frto_highmark) = (self.episode.high_seq, self.frto.highmark);
        if first_block_is_dsack(sack, ack_seq) {
            flags.dsack = true;
            self.on_dsack(sack[0], prior_una);
        }
        let rack_on = self.uses_rack();
        let min_rtt = self.rtt.min_rtt();
        let mut sack_rtt = None;
        let rate = &mut self.rate;
        let rack = &mut self.rack;
        for b in sack {
            self.sb.sack(b.start, b.end, |seq, s| {
                rate.on_delivered(now, 1, s.sent_at, &s.tx);
                flags.data_sacked = true;
                if rack_on {
                    rack.on_delivered(seq, s, now, min_rtt);
                }
                if !s.has(EVER_RETRANS) {
                    sack_rtt = Some(now - s.sent_at);
                    flags.orig_acked_below_high_seq |= seq < high_seq;
                    flags.orig_sacked_below_highmark |= seq < frto_highmark;
                }
            });
        }
        sack_rtt
    }

    /// An ACK arrives (Linux tcp_ack) with its SACK blocks `sack` (kept
    /// beside the packet: `Receiver::sack_blocks`).
    pub fn on_ack(&mut self, now: Nanos, ack: &Packet, sack: &[SackBlock], out: &mut impl Outbox) {
        self.stats.acks_received += 1;
        if ack.seq > self.sb.nxt() || !self.started {
            return;
        }
        if ack.seq >= self.sb.una() {
            // Linux tcp_ack: an ACK ends a delayed early retransmit's wait
            // (tcp_rearm_rto); the checks below may start another.
            self.early_retransmit.timer_at = None;
        }
        if self.cfg.timestamps && ack.ts_val > 0 {
            self.ts_recent = ack.ts_val;
        }
        // Linux tcp_ack (old_ack): an ACK below snd_una was overtaken by a
        // later one; only its SACK blocks are used, so without SACK it
        // changes nothing and is no duplicate ACK.
        if !self.cfg.sack && ack.seq < self.sb.una() {
            return;
        }
        self.rwnd = ack.window;
        let prior_in_flight = self.sb.in_flight();
        let prior_una = self.sb.una();
        let prior_delivered = self.rate.delivered;
        let prior_lost_marks = self.sb.lost_marks;
        self.rate.begin_ack();

        // SACK blocks, then the cumulative ACK.
        let mut sack_rtt: Option<Nanos> = None;
        // What F-RTO and the undo need to know of this ACK (frto.rs).
        let mut flags = AckFlags::default();
        let high_seq = self.episode.high_seq;
        self.sb.begin_ack();
        let prior_sacked_out = self.sb.sacked_out;
        let rack_on = self.uses_rack();
        let min_rtt = self.rtt.min_rtt();
        // Most ACKs carry no blocks: their tagging stays out of line.
        if self.cfg.sack && !sack.is_empty() {
            sack_rtt = self.tag_sack_blocks(now, ack.seq, sack, prior_una, &mut flags);
        }
        let newly_sacked = self.sb.sacked_out > prior_sacked_out;
        let scan = self.sb.ack_to(
            ack.seq,
            CleanRtx {
                rate: &mut self.rate,
                rack: &mut self.rack,
                now,
                min_rtt,
                high_seq,
                rack_on,
                sack_on: self.cfg.sack,
                ack_tsecr: if self.cfg.timestamps { ack.ts_ecr } else { 0 },
                first_acked: true,
                nonhead_retrans_acked: false,
                orig_acked_below_high_seq: false,
                retransmitted_data_acked: false,
                oldest_rtt: None,
                newest_rtt: None,
            },
        );
        flags.nonhead_retrans_acked |= scan.nonhead_retrans_acked;
        flags.orig_acked_below_high_seq |= scan.orig_acked_below_high_seq;
        let retransmitted_data_acked = scan.retransmitted_data_acked;
        let (mut oldest_rtt, mut newest_rtt) = (scan.oldest_rtt, scan.newest_rtt);
        let ack_tsecr = scan.ack_tsecr;
        if self.cfg.sack {
            self.sb.end_ack();
        }
        // Linux tcp_clean_rtx_queue (FLAG_RETRANS_DATA_ACKED): a cumulative
        // ACK that also covers retransmitted data gives no RTT sample of its
        // own, since the segments above the hole may have waited for the
        // retransmission (their SACKs can have been crowded out of the three
        // blocks an ACK carries); the timestamp echo measures it instead.
        if retransmitted_data_acked {
            oldest_rtt = None;
            newest_rtt = None;
        }
        let acked_new = self.sb.una() > prior_una;
        if acked_new {
            // Linux tcp_ack: an ACK of new data clears icsk_retransmits.
            self.episode.timeouts_in_a_row = 0;
        }
        let cum_acked = (self.sb.una() - prior_una) as u32;
        flags.data_acked = acked_new;
        flags.cum_acked = cum_acked;
        flags.retrans_acked = retransmitted_data_acked;
        flags.dupack = !acked_new && !flags.data_sacked;

        if !self.cfg.sack {
            // In Loss everything sent before the timeout is marked lost:
            // Linux 3.10+ counts a duplicate ACK there only once new data
            // went out past the recovery point (F-RTO step 2.b), and an ACK
            // of new data forgets the count (tcp_process_loss).
            let in_loss = self.ca_state == CaState::Loss;
            if acked_new {
                self.rate.delivered += self.sb.remove_reno_sacks(cum_acked) as u64;
                if in_loss {
                    self.sb.reset_reno_sacks();
                }
            } else if self.sb.packets_out() > 0 && (!in_loss || self.sb.nxt() > self.episode.high_seq) {
                // A delivery as far as it grows the count (tcp_add_reno_sack).
                self.rate.delivered += self.sb.add_reno_sack() as u64;
            }
        }
        let delivered = (self.rate.delivered - prior_delivered) as u32;

        // Linux tcp_in_ack_event: every ACK not older than snd_una, before
        // tcp_clean_rtx_queue hands over the RTT sample (pkts_acked below).
        if ack.seq >= prior_una {
            self.cc.in_ack_event(&mut self.w, conn_of!(self, now));
        }

        // ECN echo (Linux: per ACK; DCTCP counts the delivered segments with CE).
        self.ece_seen_this_ack = self.cfg.ecn && ack.ece;
        if self.cfg.ecn {
            if ack.ece {
                self.delivered_ce += delivered as u64;
            }
            let c = self.conn(now);
            let ev = if ack.ece { CaEvent::EcnEcho } else { CaEvent::EcnNoEcho };
            self.cc.cwnd_event(&mut self.w, &c, ev);
        }

        // RTT: oldest never-retransmitted newly ACKed segment (Karn), else SACK, else timestamps.
        let mut seq_rtt = oldest_rtt.or(sack_rtt);
        if seq_rtt.is_none() && acked_new && self.cfg.timestamps && ack.ts_ecr > 0 {
            seq_rtt = Some(now.saturating_sub(ack.ts_ecr));
        }
        if let Some(r) = seq_rtt {
            self.rtt.on_sample(r);
        }
        self.last_rtt_sample = seq_rtt;
        // Linux: the newest SACKed segment if this ACK SACKed any, else the newest cumulatively ACKed one.
        let ca_rtt = sack_rtt.or(newest_rtt).or(seq_rtt);
        if delivered > 0 || ca_rtt.is_some() {
            let (rcv_tsval, rcv_tsecr) = if self.cfg.timestamps { (ack.ts_val, ack.ts_ecr) } else { (0, 0) };
            let sample = AckSample {
                acked: delivered,
                rtt_ns: ca_rtt,
                prior_in_flight,
                ece: self.ece_seen_this_ack,
                rcv_tsval,
                rcv_tsecr,
            };
            self.cc.pkts_acked(&mut self.w, conn_of!(self, now), &sample);
        }

        // The RFC 4138 F-RTO judges this ACK first, and no loss is marked
        // while it runs (Linux tcp_process_frto, tcp_time_to_recover).
        let frto_holds_cwnd = self.frto.counter > 0 && self.process_frto(now, &flags);
        self.process_tlp_ack(now, ack.seq, !acked_new && !newly_sacked);
        if rack_on {
            // What the ACK delivered updates RACK here (Linux tcp_rack_advance,
            // from tcp_sacktag_write_queue and tcp_clean_rtx_queue); RACK
            // marks losses inside the state machine (identify_packet_loss).
            if self.frto.counter == 0 {
                self.rack.end_ack(now, self.sb.una());
            }
        } else if self.cfg.sack {
            if self.frto.counter == 0 {
                self.sb.mark_lost_by_sack();
            }
            if self.ca_state == CaState::Recovery {
                self.sb.mark_lost_retransmissions();
            }
        }
        self.update_congestion_state(now, &flags, prior_una, ack_tsecr);
        // Linux tcp_ack: what this ACK marked lost is tp->lost's growth, the
        // head NewReno marks without SACK included (tcp_newreno_mark_lost).
        let newly_lost = (self.sb.lost_marks - prior_lost_marks) as u32;
        let reordering_timer_armed = rack_on && self.rack.timer_at.is_some();
        if reordering_timer_armed {
            self.tlp.timer_at = None; // one timer in Linux
        }

        // Window update (Linux tcp_cong_control).
        if self.cc_owns_window {
            let rs = self.rate.end_ack(delivered, newly_lost, prior_in_flight, self.rtt.min_rtt());
            self.cc.cong_control(&mut self.w, conn_of!(self, now), &rs);
        } else if matches!(self.ca_state, CaState::Recovery | CaState::Cwr) {
            if self.cfg.prr {
                self.prr_reduce(delivered, acked_new && newly_lost == 0);
            } else {
                // Linux tcp_cwnd_down: every duplicate ACK of a flow
                // without SACK counts, whether or not it grew sacked_out.
                self.rate_halve(if flags.dupack && !self.cfg.sack { delivered.max(1) } else { delivered });
            }
        } else if self.may_raise_cwnd(&flags) && delivered > 0 && !frto_holds_cwnd {
            // Before 3.13 cong_avoid had no count: each such ACK was one.
            let counted = match self.w.counting {
                Counting::Segments => delivered,
                Counting::Acks => 1,
            };
            self.cc.cong_avoid(&mut self.w, conn_of!(self, now), counted);
        }
        self.w.cwnd = self.w.cwnd.max(1);

        // Retransmission timer (RFC 6298 5.2/5.3), or the loss probe in its
        // place (Linux tcp_set_xmit_timer) unless RACK's timer now holds it.
        let mut rearm_probe = false;
        if self.sb.packets_out() == 0 {
            self.rto_at = None;
            self.tlp.timer_at = None;
            self.rack.timer_at = None;
        } else if acked_new {
            self.rto_at = Some(now + self.rtt.rto());
            rearm_probe = self.cfg.tlp && !reordering_timer_armed;
        }
        if self.total_segments.is_some_and(|n| self.sb.una() >= n) && self.completed_at.is_none() {
            self.completed_at = Some(now);
            self.app_active = false;
        }
        let nxt_before = self.sb.nxt();
        self.send(now, out);
        // The probe is armed once: `send` arms it if it sent new data (the
        // same timer from the state after sending); otherwise it is armed
        // here. Nothing `send` reads depends on the probe's timer, and
        // without new data it leaves what the timer is computed from
        // (packets out, the RTO's deadline, the state) as it was.
        if rearm_probe && self.sb.nxt() == nxt_before {
            self.schedule_loss_probe(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::NS_PER_MS;

    /// The driver's sender (reno, SACK, timestamps, PRR, MSS 1000), driven by hand here.
    fn sender() -> Sender {
        crate::tcp::driver::Driver::new("reno", 10).s
    }

    fn ack(seq: u64, ts_val: Nanos, ts_ecr: Nanos) -> Packet {
        let mut p = Packet::new(Kind::Ack, 0, 52);
        p.seq = seq;
        p.window = 1000;
        p.ts_val = ts_val;
        p.ts_ecr = ts_ecr;
        p
    }

    fn blocks(sack: &[(u64, u64)]) -> Vec<SackBlock> {
        sack.iter().map(|&(start, end)| SackBlock { start, end }).collect()
    }

    #[test]
    fn a_cumulative_ack_over_retransmitted_data_is_timed_by_its_timestamp() {
        let mut s = sender();
        let mut out = Vec::new();
        s.on_timer(1, &mut out);
        assert_eq!(out.len(), 10);
        // Segment 0 is lost; 1..=3 are SACKed: fast retransmit of 0 at 100 ms.
        let t_r = 100 * NS_PER_MS;
        out.clear();
        s.on_ack(t_r, &ack(0, t_r, 1), &blocks(&[(1, 2)]), &mut out);
        s.on_ack(t_r, &ack(0, t_r, 1), &blocks(&[(1, 3)]), &mut out);
        s.on_ack(t_r, &ack(0, t_r, 1), &blocks(&[(1, 4)]), &mut out);
        let retransmitted = out.iter().find(|p| p.seq == 0).expect("fast retransmit of segment 0");
        assert_eq!(retransmitted.ts_val, t_r);
        // Segments 4..9 arrived too but their SACKs were never seen (crowded
        // out); the ACK that the retransmission triggers covers them all. Their
        // age (sent at 1 ns) says nothing about the path: Linux takes no RTT
        // from such an ACK (FLAG_RETRANS_DATA_ACKED) and uses the echo.
        let now = t_r + 80 * NS_PER_MS;
        s.on_ack(now, &ack(10, now, t_r), &[], &mut out);
        assert_eq!(s.last_rtt_sample, Some(80 * NS_PER_MS));
    }

    /// Reno in slow start with 10 segments out: segment 0 is delayed, an ACK
    /// SACKs 1 and 2, then one covers 0..=2. Returns cwnd after each ACK.
    fn late_head(reordering: u32, counting: crate::cc::Counting) -> (u32, u32) {
        let mut d = crate::tcp::driver::Driver::new("reno", 10);
        d.s.w.counting = counting;
        d.s.sb.reordering = reordering;
        d.start();
        d.ack(1, 0, &[(1, 3)]);
        let after_sack = d.s.w.cwnd;
        d.ack(1, 3, &[]);
        (after_sack, d.s.w.cwnd)
    }

    #[test]
    fn sacked_data_grows_the_window_once_reordering_is_beyond_dupthresh() {
        use crate::cc::Counting;
        // Linux tcp_may_raise_cwnd: with tp->reordering at its default 3 only
        // an ACK of new data grows cwnd, so the two SACKed segments never
        // count (the cumulative ACK delivers only segment 0): 10 -> 11.
        assert_eq!(late_head(3, Counting::Segments), (10, 11));
        // Once the path has shown reordering beyond DupThresh
        // (FLAG_FORWARD_PROGRESS), the SACK-only ACK counts too: slow start
        // adds each segment delivered, 10 + 2 on the SACK, + 1 on segment 0.
        assert_eq!(late_head(5, Counting::Segments), (12, 13));
        // Linux 3.10 and before grew only on FLAG_DATA_ACKED, one per ACK
        // (the presets with cwnd_counts = "acks").
        assert_eq!(late_head(5, Counting::Acks), (10, 11));
    }

    #[test]
    fn without_sack_acks_overtaken_by_later_ones_are_no_duplicate_acks() {
        // The return path reorders ACKs: three ACKs of segment 3 arrive after
        // the ACK of segment 5. Linux (tcp_ack, old_ack) ignores them; counted
        // as duplicates they would start a needless fast retransmit.
        let mut d = crate::tcp::driver::Driver::new("reno", 20);
        d.s.cfg.sack = false;
        d.start();
        d.ack(1, 5, &[]);
        let cwnd = d.s.w.cwnd;
        for _ in 0..3 {
            assert!(d.ack(1, 3, &[]).is_empty());
        }
        assert_eq!((d.s.ca_state, d.s.sb.sacked_out, d.s.w.cwnd), (CaState::Open, 0, cwnd));
        assert_eq!(d.s.stats.fast_recoveries, 0);
    }
}
