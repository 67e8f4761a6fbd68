//! Tail loss probe (RFC 8985 section 7; Linux net/ipv4/tcp_output.c
//! tcp_schedule_loss_probe / tcp_send_loss_probe, tcp_input.c
//! tcp_process_tlp_ack): when a SACK flow in Open or CWR hears nothing for
//! a probe timeout, it sends one segment, new data if the receiver's window
//! allows, else the last segment again, so that the ACK it draws lets RACK
//! find a lost tail instead of waiting for the retransmission timeout.
//!
//! - PTO = 2 SRTT, plus the minimum RTO when a single segment is out (the
//!   receiver may delay its ACK; Linux 6.x tcp_rto_min_us) or 2 ms otherwise
//!   (TCP_TIMEOUT_MIN); the initial RTO before any RTT sample; never later
//!   than the RTO would fire. Armed after new data is sent and on each ACK
//!   that advances SND.UNA; the probe restarts the RTO from its own sending.
//! - One probe per episode (Linux tlp_high_seq = SND.NXT at the probe): a
//!   retransmitted probe whose episode ends with an ACK beyond that point,
//!   without a duplicate ACK saying both copies arrived, repaired a real
//!   loss: the window is reduced once, as a CWR (7.4.2). Entering recovery,
//!   CWR or loss ends the episode.

use super::sender::Sender;
use crate::cc::{CaEvent, CaState, INFINITE_SSTHRESH};
use crate::net::outbox::Outbox;
use crate::time::{Nanos, NS_PER_MS};

/// Linux TCP_TIMEOUT_MIN: added to the PTO when several segments are out.
const PTO_SLACK_NS: Nanos = 2 * NS_PER_MS;

#[derive(Clone, Debug, Default)]
pub struct Tlp {
    /// The probe timer.
    pub timer_at: Option<Nanos>,
    /// SND.NXT when the episode's probe was sent (Linux tlp_high_seq).
    high_seq: Option<u64>,
    /// That probe was a retransmission (Linux tlp_retrans).
    probe_was_retransmission: bool,
}

impl Tlp {
    /// A congestion episode began (Linux tcp_init_cwnd_reduction, tcp_enter_loss).
    pub fn end_episode(&mut self) {
        self.high_seq = None;
    }
}

/// The probe timeout (Linux tcp_schedule_loss_probe) for `packets_out`
/// segments out, before the RTO cap.
pub fn probe_timeout(srtt: Option<Nanos>, packets_out: u32, min_rto: Nanos, initial_rto: Nanos) -> Nanos {
    match srtt {
        Some(srtt) => 2 * srtt + if packets_out == 1 { min_rto } else { PTO_SLACK_NS },
        None => initial_rto,
    }
}

impl Sender {
    /// Linux tcp_schedule_loss_probe: arms the probe timer, or clears it when
    /// no probe applies (the RTO then stands alone).
    pub(super) fn schedule_loss_probe(&mut self, now: Nanos) {
        let packets_out = self.sb.packets_out();
        if !self.cfg.tlp || !self.cfg.sack || packets_out == 0 || !matches!(self.ca_state, CaState::Open | CaState::Cwr)
        {
            self.loss.tlp.timer_at = None;
            return;
        }
        let pto = probe_timeout(self.rtt.srtt(), packets_out, self.cfg.min_rto, self.cfg.initial_rto);
        let mut at = now + pto;
        if let Some(rto_at) = self.rto_at.filter(|&t| t > now) {
            at = at.min(rto_at);
        }
        self.loss.tlp.timer_at = Some(at);
        // One timer in Linux: the probe replaces a pending reordering timer.
        self.loss.rack.timer_at = None;
    }

    /// Linux tcp_send_loss_probe: the probe timer fired.
    pub(super) fn send_loss_probe(&mut self, now: Nanos, out: &mut impl Outbox) {
        self.loss.tlp.timer_at = None;
        if self.loss.tlp.high_seq.is_some() || self.sb.packets_out() == 0 {
            return; // at most one probe outstanding; the RTO stays armed
        }
        let nxt = self.sb.nxt();
        if self.may_send_new_segment() {
            // New data, whatever cwnd says (tcp_write_xmit with push_one = 2).
            self.transmit(now, nxt, false, out);
            self.loss.tlp.probe_was_retransmission = false;
        } else {
            let last = nxt - 1;
            if self.sb.get(last).has(super::scoreboard::SACKED) {
                return;
            }
            self.transmit(now, last, true, out);
            self.loss.tlp.probe_was_retransmission = true;
        }
        self.loss.tlp.high_seq = Some(nxt.max(self.sb.nxt()));
        self.stats.loss_probes += 1;
        self.rto_at = Some(now + self.rtt.rto());
    }

    /// Linux tcp_process_tlp_ack (RFC 8985 7.4.2), before the ACK's loss
    /// recovery: did the episode's probe repair a loss?
    /// `dupack`: the ACK neither advanced SND.UNA nor SACKed new data.
    pub(super) fn process_tlp_ack(&mut self, now: Nanos, ack_seq: u64, dupack: bool) {
        let Some(high_seq) = self.loss.tlp.high_seq else { return };
        if ack_seq < high_seq {
            return;
        }
        if !self.loss.tlp.probe_was_retransmission {
            self.loss.tlp.high_seq = None;
        } else if ack_seq > high_seq {
            // Only one copy of the probed segment arrived: it was lost.
            self.reduce_after_repaired_tail_loss(now);
        } else if dupack {
            // Both the original and the probe arrived: no loss.
            self.loss.tlp.high_seq = None;
        }
    }

    /// A loss the probe repaired: one reduction, as a CWR that ends at once
    /// (tcp_init_cwnd_reduction, tcp_end_cwnd_reduction, tcp_try_keep_open).
    fn reduce_after_repaired_tail_loss(&mut self, now: Nanos) {
        self.stats.loss_probe_recoveries += 1;
        self.episode.undo.possible = false;
        self.init_cwnd_reduction(now);
        self.set_state(now, CaState::Cwr);
        if !self.cc_owns_window && self.w.ssthresh < INFINITE_SSTHRESH {
            self.w.cwnd = self.w.ssthresh;
        }
        let c = self.conn(now);
        self.cc.cwnd_event(&mut self.w, &c, CaEvent::CompleteCwr);
        let left_out = self.sb.sacked_out + self.sb.lost_out + self.sb.retrans_out > 0;
        self.set_state(now, if left_out { CaState::Disorder } else { CaState::Open });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CaState;
    use crate::tcp::driver::Driver;
    use crate::time::NS_PER_MS;

    const MS: Nanos = NS_PER_MS;

    #[test]
    fn the_probe_timeout_is_two_srtt_with_room_for_a_delayed_ack_of_one_segment() {
        assert_eq!(probe_timeout(Some(100 * MS), 5, 200 * MS, 1000 * MS), 202 * MS);
        assert_eq!(probe_timeout(Some(100 * MS), 1, 200 * MS, 1000 * MS), 400 * MS);
        assert_eq!(probe_timeout(None, 5, 200 * MS, 1000 * MS), 1000 * MS);
    }

    /// A reno sender with RACK-TLP and a 10,000-byte transfer (10 segments).
    fn ten_segment_transfer() -> Driver {
        let mut d = Driver::modern("reno", 10);
        d.s.cfg.size = Some(10_000);
        d.s.total_segments = Some(10);
        d.s.last_segment_payload = 1000;
        d
    }

    /// A 10-segment transfer with RACK-TLP whose last two segments are
    /// lost: the probe retransmits the last one 2 SRTT after the last ACK,
    /// long before the RTO, and its SACK lets RACK find the other.
    #[test]
    fn a_lost_tail_is_repaired_by_a_probe_not_a_timeout() {
        let mut d = ten_segment_transfer();
        assert_eq!(d.start().len(), 10);
        d.ack(100, 8, &[]);
        let acked_at = d.now;
        let pto = d.s.loss.tlp.timer_at.expect("a probe is armed") - acked_at;
        // 2 SRTT (SRTT 100 ms) + 2 ms, before the RTO (300 ms here).
        assert_eq!(pto, 202 * MS);
        assert_eq!(d.s.rto_at, Some(acked_at + 300 * MS));
        assert_eq!(d.timeout(), [9], "the probe retransmits the last segment");
        assert_eq!(d.now, acked_at + pto);
        assert_eq!(d.s.stats.loss_probes, 1);
        // Its SACK shows segment 8, sent before it, lost: fast recovery.
        assert_eq!(d.ack(100, 8, &[(9, 10)]), [8]);
        assert_eq!(d.s.ca_state, CaState::Recovery);
        d.ack(100, 10, &[]);
        assert!(d.s.completed_at.is_some());
        assert_eq!(d.s.stats.timeouts, 0);
    }

    #[test]
    fn a_single_lost_segment_is_probed_when_the_rto_would_fire_and_no_timeout_happens() {
        // One segment out: PTO = 2 SRTT + min RTO (400 ms) is capped by the
        // RTO (300 ms); the probe goes in its place (Linux's single timer).
        let mut d = ten_segment_transfer();
        d.start();
        d.ack(100, 9, &[]);
        let acked_at = d.now;
        assert_eq!(d.timeout(), [9]);
        assert_eq!(d.now, acked_at + 300 * MS);
        assert_eq!((d.s.stats.timeouts, d.s.ca_state), (0, CaState::Open));
        assert_eq!(d.s.w.cwnd, 19, "no reduction: the window is the slow start's");
        d.ack(100, 10, &[]);
        assert!(d.s.completed_at.is_some());
    }

    #[test]
    fn a_probe_whose_ack_reaches_beyond_it_reduces_the_window_once() {
        // A bulk flow whose receiver offers no more window: segment 9 is
        // lost and no new data may go, so the probe retransmits it.
        let mut d = Driver::modern("reno", 10);
        assert_eq!(d.start().len(), 10);
        d.rwnd = 1;
        d.ack(100, 9, &[]);
        assert_eq!(d.timeout(), [9], "the last segment is probed");
        assert_eq!(d.s.stats.timeouts, 0);
        // Its ACK fills the hole and reopens the window: new data goes.
        d.rwnd = 1000;
        let sent = d.ack(100, 10, &[]);
        assert!(!sent.is_empty());
        assert_eq!(d.s.stats.loss_probe_recoveries, 0, "not yet beyond the probe's SND.NXT");
        let cwnd = d.s.w.cwnd;
        // Data sent after the probe is ACKed: only one copy of segment 9 can
        // have arrived (no duplicate ACK came), so it was lost: one reduction.
        d.ack(100, 11, &[]);
        assert_eq!(d.s.stats.loss_probe_recoveries, 1);
        assert_eq!(d.s.w.ssthresh, cwnd / 2);
        assert_eq!(d.s.ca_state, CaState::Open);
        let nxt = d.s.snd_nxt();
        d.ack(100, nxt, &[]);
        assert_eq!(d.s.stats.loss_probe_recoveries, 1, "once per probe");
    }

    #[test]
    fn a_duplicate_ack_saying_both_copies_arrived_ends_the_episode_without_a_reduction() {
        let mut d = Driver::modern("reno", 10);
        d.start();
        d.rwnd = 1;
        // Segment 9 was only slow: the probe and the original both arrive.
        d.ack(100, 9, &[]);
        assert_eq!(d.timeout(), [9]);
        d.rwnd = 1000;
        d.ack(100, 10, &[]);
        d.ack(0, 10, &[]);
        let nxt = d.s.snd_nxt();
        d.ack(100, nxt, &[]);
        assert_eq!(d.s.stats.loss_probe_recoveries, 0);
    }
}
