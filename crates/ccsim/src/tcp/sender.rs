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
//! - Without pacing (as Linux before 3.12's fq and 4.13's internal pacing),
//!   a window far below the path's bandwidth-delay product leaves as one
//!   train at the bottleneck's rate, and ACK clocking keeps it one train
//!   round after round: the flow delivers during W * MSS / C of each RTT and
//!   nothing in between (ccp's cwnd of 215 on 1 Gbit/s and 20 ms: about 5
//!   ms of every 20; at line rate the train would last 2.5 ms).
//!   A series sampled every 10 ms then has rows of zero goodput while the
//!   flight is full and the state Open, up to one row in two when the train
//!   and the sampling are in phase, seconds of them over a run; none of the
//!   gaps is longer than an RTT. That is the model working, not a stall.

use super::ack_scan::{AckFlags, AckScan, AckSummary};
use super::chrono::{Chrono, Limit};
pub use super::config::SenderConfig;
use super::dsack::{count_dsack, first_block_is_dsack};
use super::flight::{conn_view, flight, Flight};
use super::loss_detection::LossDetection;
use super::rate::RateSampler;
use super::recovery::{Delivered, Recovery};
use super::rtt::RttEstimator;
use super::scoreboard::{Scoreboard, Segment, DUPTHRESH};
use super::send_buffer::SendBuffer;
pub use super::stats::SenderStats;
use super::tlp::probe_timeout;
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
        |w: &Window| {
            conn_view(
                $now,
                &$s.cfg,
                &$s.rtt,
                &$s.sb,
                w,
                ($s.rate.delivered, $s.delivered_ce),
                ($s.is_cwnd_limited, $s.max_packets_out),
                $s.recovery.state(),
            )
        }
    };
}

pub struct Sender {
    pub id: u32,
    pub(super) cfg: SenderConfig,
    pub(super) cc: Algorithm,
    pub w: Window,
    pub(super) sb: Scoreboard,
    pub rtt: RttEstimator,
    pub(super) rate: RateSampler,
    /// Segments of the transfer (None: unlimited) and the payload of the last one.
    pub(super) total_segments: Option<u64>,
    pub(super) last_segment_payload: u32,
    pub(super) app_active: bool,
    pub(super) started: bool,
    /// The congestion state machine, its episode, F-RTO and undo (recovery.rs).
    pub(super) recovery: Recovery,
    /// The receiver's advertised window, in segments.
    pub(super) rwnd: u32,
    pub(super) ts_recent: Nanos,
    pub(super) ece_seen_this_ack: bool,
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
    /// Linux tcp_cwnd_validate state.
    pub(super) is_cwnd_limited: bool,
    pub(super) max_packets_out: u32,
    pub(super) max_packets_seq: u64,
    /// Pacing: earliest time of the next transmission.
    pub(super) next_send_at: Nanos,
    pub(super) rto_at: Option<Nanos>,
    /// RACK, the tail loss probe and early retransmit, and their timers
    /// (loss_detection.rs).
    pub(super) loss: LossDetection,
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
        let recovery = Recovery::new(cc.info().recovery);
        let mut sb = Scoreboard::new();
        sb.fack = cfg.fack;
        Sender {
            id,
            w: Window { counting: cfg.counting, ..Window::new(cfg.init_cwnd) },
            rtt: RttEstimator::new(cfg.rto_style, cfg.initial_rto, cfg.min_rto, cfg.max_rto),
            cfg,
            cc,
            sb,
            rate: RateSampler::new(cc_owns_window),
            total_segments,
            last_segment_payload,
            app_active: false,
            started: false,
            rwnd: u32::MAX,
            ts_recent: 0,
            ece_seen_this_ack: false,
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
            loss: LossDetection::default(),
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
    /// The congestion state (Linux icsk_ca_state).
    pub fn ca_state(&self) -> CaState {
        self.recovery.state()
    }

    /// RACK finds this flow's losses (`SenderConfig::uses_rack`).
    pub(super) fn uses_rack(&self) -> bool {
        self.cfg.uses_rack()
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

    /// Whether `pacing_rate()` is `Some`, without computing the rate: the
    /// send loop asks this whenever the pacing clock holds a segment back
    /// (once per ACK and per pacing wake of a paced flow), and the rate's
    /// float math (two divisions for `tcp.pacing`) was most of that check.
    #[inline]
    fn paces_now(&self) -> bool {
        self.paces && (self.cc.pacing_rate().is_some() || (self.cfg.pacing && self.rtt.srtt().is_some()))
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
        let mut t = (self.rto_at.unwrap_or(NONE)).min(self.loss.next_timer());
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
        if self.loss.tlp.timer_at.is_some_and(|t| now >= t) {
            self.send_loss_probe(now, out);
        }
        if self.rto_at.is_some_and(|t| now >= t) {
            self.rto_at = None;
            self.on_retransmission_timeout(now, out);
            self.loss.cancel_probe_and_reordering_timers();
        }
        if self.loss.rack.timer_at.is_some_and(|t| now >= t) {
            self.on_reordering_timeout(now);
        }
        if self.loss.early_retransmit.timer_at.is_some_and(|t| now >= t) {
            self.recovery.on_early_retransmit_timer(&mut flight!(self, now));
        }
        self.send(now, out);
    }

    /// Linux tcp_rack_reo_timeout: RACK's timer found losses: recovery
    /// starts (if it has not) with one PRR step, and the send loop retransmits.
    fn on_reordering_timeout(&mut self, now: Nanos) {
        let reo_wnd = self.loss.rack_reo_wnd(&self.sb, &self.rtt, self.recovery.state());
        let newly_lost = self.loss.rack.on_timer(&mut self.sb, now, reo_wnd);
        if newly_lost > 0 {
            self.recovery.on_reordering_losses(&mut flight!(self, now));
        }
    }

    /// The retransmission timer fired (recovery.rs): F-RTO's retransmission
    /// of the head, if it took the timeout, then the timer backs off (RFC 6298 5.5).
    fn on_retransmission_timeout(&mut self, now: Nanos, out: &mut impl Outbox) {
        if self.sb.packets_out() == 0 {
            return;
        }
        if let Some(head) = self.recovery.on_retransmission_timeout(&mut flight!(self, now)) {
            self.transmit(now, head, true, out);
        }
        self.rtt.on_timeout();
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// The sending host's queue refused a segment (recovery.rs reduces the
    /// window). It stays unsent; the next ACK tries again; with nothing in
    /// flight no ACK comes, so the sender tries again after an RTO (Linux
    /// tcp_check_probe_timer arms the probe timer).
    fn on_local_drop(&mut self, now: Nanos) {
        self.stats.local_drops += 1;
        self.recovery.on_local_drop(&mut flight!(self, now));
        if self.sb.packets_out() == 0 {
            self.next_send_at = self.next_send_at.max(now + self.rtt.rto());
        }
    }

    /// Linux tcp_schedule_loss_probe (tlp.rs): arms the probe timer, or
    /// clears it when no probe applies (the RTO then stands alone).
    pub(super) fn schedule_loss_probe(&mut self, now: Nanos) {
        let packets_out = self.sb.packets_out();
        if !self.cfg.tlp
            || !self.cfg.sack
            || packets_out == 0
            || !matches!(self.ca_state(), CaState::Open | CaState::Cwr)
        {
            self.loss.tlp.timer_at = None;
            return;
        }
        let pto = probe_timeout(self.rtt.srtt(), packets_out, self.cfg.min_rto, self.cfg.initial_rto);
        self.loss.tlp.arm(now, pto, self.rto_at);
        // One timer in Linux: the probe replaces a pending reordering timer.
        self.loss.rack.timer_at = None;
    }

    /// Linux tcp_send_loss_probe: the probe timer fired (tlp.rs). New data
    /// goes whatever cwnd says (tcp_write_xmit with push_one = 2).
    fn send_loss_probe(&mut self, now: Nanos, out: &mut impl Outbox) {
        let may_send_new = self.may_send_new_segment();
        let Some((seq, retransmission)) = self.loss.tlp.choose_probe(&self.sb, may_send_new) else { return };
        let nxt = self.sb.nxt();
        self.transmit(now, seq, retransmission, out);
        self.loss.tlp.on_probe_sent(retransmission, nxt.max(self.sb.nxt()));
        self.stats.loss_probes += 1;
        self.rto_at = Some(now + self.rtt.rto());
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
        let limit = if std::mem::take(&mut self.recovery.frto.new_data_first) {
            // RFC 5682 step 2.b (frto.rs): new data before any retransmission;
            // if none could go, the conventional recovery.
            let limit = self.send_loop(now, out, false);
            if self.sb.nxt() > self.recovery.episode.high_seq {
                limit
            } else {
                self.recovery.frto.active = false;
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
            // The clock first: whether pacing is on is asked only when it holds a segment back.
            if now < self.next_send_at && self.paces_now() {
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
                self.loss.rack.on_retransmit(seq, now, self.sb.nxt());
            }
            self.sb.on_retransmit(seq, now, tx);
            self.stats.retransmitted_segments += 1;
            self.recovery.episode.undo.on_retransmit(now);
            // Linux restarts the timer when it retransmits the head, so a
            // recovery that takes longer than one RTO does not time out.
            if seq == self.sb.una() {
                self.rto_at = Some(now + self.rtt.rto());
            }
        } else {
            self.sb.push_new(Segment { sent_at: now, tx, flags: 0, nxt_at_retransmit: 0 });
        }
        if matches!(self.ca_state(), CaState::Recovery | CaState::Cwr) {
            self.recovery.episode.prr.on_sent();
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
        if self.recovery.cwr_pending && !retransmission {
            p.cwr = true;
            self.recovery.cwr_pending = false;
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

    /// An ACK arrives (Linux tcp_ack) with its SACK blocks `sack` (kept
    /// beside the packet in the pool: `PacketPool::remove_with_sack`).
    pub fn on_ack(&mut self, now: Nanos, ack: &Packet, sack: &[SackBlock], out: &mut impl Outbox) {
        self.stats.acks_received += 1;
        if ack.seq > self.sb.nxt() || !self.started {
            return;
        }
        if ack.seq >= self.sb.una() {
            // Linux tcp_ack: an ACK ends a delayed early retransmit's wait
            // (tcp_rearm_rto); the checks below may start another.
            self.loss.early_retransmit.timer_at = None;
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

        let summary = self.scan_ack(now, ack, sack, prior_una);
        let flags = summary.flags;
        let acked_new = flags.data_acked;
        let rack_on = self.uses_rack();
        if acked_new {
            // Linux tcp_ack: an ACK of new data clears icsk_retransmits.
            self.recovery.episode.timeouts_in_a_row = 0;
        }

        if !self.cfg.sack {
            self.count_duplicate_acks(acked_new, flags.cum_acked);
        }
        let delivered = (self.rate.delivered - prior_delivered) as u32;

        // Linux tcp_in_ack_event: every ACK not older than snd_una, before
        // tcp_clean_rtx_queue hands over the RTT sample (pkts_acked below).
        if ack.seq >= prior_una {
            self.cc.in_ack_event(&mut self.w, conn_of!(self, now));
        }

        self.ecn_echo(now, ack.ece, delivered);

        self.rtt_sample_and_pkts_acked(now, ack, &summary, delivered, prior_in_flight);

        // The RFC 4138 F-RTO judges this ACK first, and no loss is marked
        // while it runs (Linux tcp_process_frto, tcp_time_to_recover).
        let frto_holds_cwnd =
            self.recovery.frto.counter > 0 && self.recovery.process_frto(&mut flight!(self, now), &flags);
        if self.loss.tlp.on_ack(ack.seq, !acked_new && !summary.newly_sacked) {
            self.recovery.reduce_after_repaired_tail_loss(&mut flight!(self, now));
        }
        let (frto_running, in_recovery) = (self.recovery.frto.counter > 0, self.ca_state() == CaState::Recovery);
        self.loss.on_ack(&mut self.sb, now, rack_on, self.cfg.sack, frto_running, in_recovery);
        let ack_tsecr = if self.cfg.timestamps { ack.ts_ecr } else { 0 };
        // The congestion state machine (recovery.rs), for the ACKs Linux's
        // tcp_ack_is_dubious sends to it; an in-order ACK in Open has its RTO
        // or loss probe replace a pending reordering timer (one timer in Linux).
        if self.recovery.ack_is_dubious(&flags, self.ece_seen_this_ack) {
            self.recovery.fastretrans_alert(&mut flight!(self, now), &flags, prior_una, ack_tsecr);
        } else {
            self.loss.rack.timer_at = None;
        }
        // Linux tcp_ack: what this ACK marked lost is tp->lost's growth, the
        // head NewReno marks without SACK included (tcp_newreno_mark_lost).
        let newly_lost = (self.sb.lost_marks - prior_lost_marks) as u32;
        let reordering_timer_armed = rack_on && self.loss.rack.timer_at.is_some();
        if reordering_timer_armed {
            self.loss.tlp.timer_at = None; // one timer in Linux
        }

        self.cong_control(now, &flags, delivered, newly_lost, prior_in_flight, frto_holds_cwnd);

        let rearm_probe = self.rearm_timers(now, acked_new, reordering_timer_armed);
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

    /// The scoreboard step of the ACK (ack_scan.rs): its SACK blocks, then
    /// the cumulative ACK. A D-SACK is counted first, against the tags of
    /// before (Linux tcp_sacktag_write_queue).
    #[inline(always)]
    fn scan_ack(&mut self, now: Nanos, ack: &Packet, sack: &[SackBlock], prior_una: u64) -> AckSummary {
        self.sb.begin_ack();
        let sack = if self.cfg.sack { sack } else { &[] };
        let dsack = first_block_is_dsack(sack, ack.seq);
        if dsack {
            // The sender's one entry point for "a duplicate was reported"
            // (Linux tcp_check_dsack with tcp_dsack_seen): a mechanism that
            // adapts to D-SACKs (RACK's reordering window) hooks here.
            self.stats.dsacks_received += 1;
            if self.cfg.rack {
                self.loss.rack.on_dsack(self.sb.una(), self.sb.nxt());
            }
            count_dsack(&mut self.sb, &mut self.recovery.episode.undo, sack[0], prior_una);
        }
        let rack_on = self.uses_rack();
        let mut summary = AckScan {
            sb: &mut self.sb,
            rate: &mut self.rate,
            rack: &mut self.loss.rack,
            now,
            min_rtt: self.rtt.min_rtt(),
            high_seq: self.recovery.episode.high_seq,
            frto_highmark: self.recovery.frto.highmark,
            rack_on,
            sack_on: self.cfg.sack,
            ack_tsecr: if self.cfg.timestamps { ack.ts_ecr } else { 0 },
        }
        .run(ack.seq, sack, prior_una);
        summary.flags.dsack = dsack;
        summary
    }

    /// Without SACK, what the ACK delivered is counted from the duplicate
    /// ACKs (Linux tcp_remove_reno_sacks, tcp_add_reno_sack). In Loss
    /// everything sent before the timeout is marked lost: Linux 3.10+
    /// counts a duplicate ACK there only once new data went out past the
    /// recovery point (F-RTO step 2.b), and an ACK of new data forgets the
    /// count (tcp_process_loss).
    #[inline(always)]
    fn count_duplicate_acks(&mut self, acked_new: bool, cum_acked: u32) {
        let in_loss = self.ca_state() == CaState::Loss;
        if acked_new {
            self.rate.delivered += self.sb.remove_reno_sacks(cum_acked) as u64;
            if in_loss {
                self.sb.reset_reno_sacks();
            }
        } else if self.sb.packets_out() > 0 && (!in_loss || self.sb.nxt() > self.recovery.episode.high_seq) {
            // A delivery as far as it grows the count (tcp_add_reno_sack).
            self.rate.delivered += self.sb.add_reno_sack() as u64;
        }
    }

    /// The ACK's ECN echo `ece` (Linux: per ACK; DCTCP counts the
    /// `delivered` segments with CE).
    #[inline(always)]
    fn ecn_echo(&mut self, now: Nanos, ece: bool, delivered: u32) {
        self.ece_seen_this_ack = self.cfg.ecn && ece;
        if self.cfg.ecn {
            if ece {
                self.delivered_ce += delivered as u64;
            }
            let c = self.conn(now);
            let ev = if ece { CaEvent::EcnEcho } else { CaEvent::EcnNoEcho };
            self.cc.cwnd_event(&mut self.w, &c, ev);
        }
    }

    /// The RTT estimator's sample (Linux tcp_ack_update_rtt): the oldest
    /// never-retransmitted newly ACKed segment (Karn), else SACK, else the
    /// timestamp echo; then the algorithm's (pkts_acked): the newest SACKed
    /// segment if this ACK SACKed any, else the newest cumulatively ACKed one.
    #[inline(always)]
    fn rtt_sample_and_pkts_acked(
        &mut self,
        now: Nanos,
        ack: &Packet,
        summary: &AckSummary,
        delivered: u32,
        prior_in_flight: u32,
    ) {
        let mut seq_rtt = summary.oldest_rtt.or(summary.sack_rtt);
        if seq_rtt.is_none() && summary.flags.data_acked && self.cfg.timestamps && ack.ts_ecr > 0 {
            seq_rtt = Some(now.saturating_sub(ack.ts_ecr));
        }
        if let Some(r) = seq_rtt {
            self.rtt.on_sample(r);
        }
        self.last_rtt_sample = seq_rtt;
        let ca_rtt = summary.sack_rtt.or(summary.newest_rtt).or(seq_rtt);
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
    }

    /// The window update (Linux tcp_cong_control): the algorithm's own
    /// (cong_control), the reduction of Recovery and CWR, or growth.
    #[inline(always)]
    fn cong_control(
        &mut self,
        now: Nanos,
        flags: &AckFlags,
        delivered: u32,
        newly_lost: u32,
        prior_in_flight: u32,
        frto_holds_cwnd: bool,
    ) {
        if self.cc_owns_window {
            let rs = self.rate.end_ack(delivered, newly_lost, prior_in_flight, self.rtt.min_rtt());
            self.cc.cong_control(&mut self.w, conn_of!(self, now), &rs);
        } else if matches!(self.ca_state(), CaState::Recovery | CaState::Cwr) {
            // Linux tcp_cwnd_down: every duplicate ACK of a flow without
            // SACK counts, whether or not it grew sacked_out.
            let for_halving = if flags.dupack && !self.cfg.sack { delivered.max(1) } else { delivered };
            let una_advanced_without_loss = flags.data_acked && newly_lost == 0;
            let step = Delivered { segments: delivered, una_advanced_without_loss, for_halving };
            self.recovery.reduce_cwnd(&mut self.w, &self.cc, &self.cfg, &self.sb, step);
        } else if self.may_raise_cwnd(flags) && delivered > 0 && !frto_holds_cwnd {
            // Before 3.13 cong_avoid had no count: each such ACK was one.
            let counted = match self.w.counting {
                Counting::Segments => delivered,
                Counting::Acks => 1,
            };
            self.cc.cong_avoid(&mut self.w, conn_of!(self, now), counted);
        }
        self.w.cwnd = self.w.cwnd.max(1);
    }

    /// Retransmission timer (RFC 6298 5.2/5.3), or the loss probe in its
    /// place (Linux tcp_set_xmit_timer) unless RACK's timer now holds it;
    /// and the end of a transfer. Returns whether the probe is to be armed.
    #[inline(always)]
    fn rearm_timers(&mut self, now: Nanos, acked_new: bool, reordering_timer_armed: bool) -> bool {
        let mut rearm_probe = false;
        if self.sb.packets_out() == 0 {
            self.rto_at = None;
            self.loss.cancel_probe_and_reordering_timers();
        } else if acked_new {
            self.rto_at = Some(now + self.rtt.rto());
            rearm_probe = self.cfg.tlp && !reordering_timer_armed;
        }
        if self.total_segments.is_some_and(|n| self.sb.una() >= n) && self.completed_at.is_none() {
            self.completed_at = Some(now);
            self.app_active = false;
        }
        rearm_probe
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

    /// `paces_now` is `pacing_rate().is_some()` without the rate: off for an
    /// unpaced flow; with `tcp.pacing`, off until the first RTT sample (the
    /// rate is cwnd / srtt); always on with an algorithm's own rate (bbr).
    #[test]
    fn paces_now_says_whether_there_is_a_pacing_rate() {
        for (cc, pacing, before_rtt, after_rtt) in
            [("reno", false, false, false), ("reno", true, false, true), ("bbr", false, true, true)]
        {
            let mut d = crate::tcp::driver::Driver::new(cc, 10);
            let cfg = SenderConfig { pacing, ..d.s.cfg.clone() };
            let algorithm = crate::cc::build(cc, &Default::default(), cfg.mss).expect("known algorithm");
            d.s = Sender::new(0, cfg, algorithm);
            d.start();
            assert_eq!((d.s.paces_now(), d.s.pacing_rate().is_some()), (before_rtt, before_rtt), "{cc} {pacing}");
            d.ack(20, 1, &[]);
            assert_eq!((d.s.paces_now(), d.s.pacing_rate().is_some()), (after_rtt, after_rtt), "{cc} {pacing}");
        }
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
        assert_eq!((d.s.ca_state(), d.s.sb.sacked_out, d.s.w.cwnd), (CaState::Open, 0, cwnd));
        assert_eq!(d.s.stats.fast_recoveries, 0);
    }

    /// Pins the module doc's "one train per RTT": ccp Kp = 1 holds a window
    /// of about 215 on the high-speed study's 1 Gbit/s, 20 ms path (a BDP of
    /// about 1730), Open and with a full flight. Sampled every millisecond,
    /// deliveries come in a few rows of each 20 (the train), so most rows
    /// show zero goodput, but no gap without a delivery lasts an RTT: there
    /// is no stall.
    #[test]
    fn a_window_below_the_pipe_is_delivered_as_one_train_per_rtt() {
        let json = r#"{"duration": 6, "seed": 2012,
            "downlink": {"rate": "1Gbit", "delay": "10ms", "queue": {"size": "256000B"}},
            "uplink": {"rate": "1Gbit", "delay": "10ms", "queue": {"size": "256000B"}},
            "flows": [{"cc": "ccp", "cc_params": {"kp": 1},
                       "tcp": {"kernel": "2.6.26", "rmem_max": 268435456, "wmem_max": 268435456}}],
            "record": {"interval": "1ms"}}"#;
        let r = crate::run(&crate::Scenario::from_json(json).unwrap());
        let s = &r.series;
        let u32s = |name: &str| match s.get(name) {
            Some(crate::record::table::Column::U32(v)) => v.clone(),
            _ => panic!("no u32 column {name}"),
        };
        let (t, delivered, cwnd, in_flight, state) =
            (s.f64("t"), s.u64("delivered_bytes"), u32s("cwnd"), u32s("in_flight"), u32s("ca_state"));
        let steady: Vec<usize> = (1..t.len()).filter(|&k| t[k] >= 2.0).collect();
        let (mut rows_with_delivery, mut gap, mut longest_gap) = (0, 0, 0);
        for &k in &steady {
            assert_eq!(state[k], CaState::Open as u32, "Open at {}", t[k]);
            assert!((150..=300).contains(&cwnd[k]) && in_flight[k] + 2 >= cwnd[k], "full flight at {}", t[k]);
            if delivered[k] > delivered[k - 1] {
                rows_with_delivery += 1;
                gap = 0;
            } else {
                gap += 1;
                longest_gap = longest_gap.max(gap);
            }
        }
        // The train: about 5 ms of each 20 ms round (6 to 8 rows of 20).
        let share = rows_with_delivery as f64 / steady.len() as f64;
        assert!(share < 0.5, "rows with a delivery: {share}");
        // No stall: something is delivered in every round (20 rows).
        assert!((10..20).contains(&longest_gap), "longest gap {longest_gap} ms");
    }
}
