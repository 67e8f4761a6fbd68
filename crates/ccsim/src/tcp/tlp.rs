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

use super::scoreboard::{Scoreboard, SACKED};
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

    /// Linux tcp_schedule_loss_probe's deadline: `pto` after `now`, never
    /// later than a pending retransmission timer at `rto_at`.
    pub(super) fn arm(&mut self, now: Nanos, pto: Nanos, rto_at: Option<Nanos>) {
        let mut at = now + pto;
        if let Some(rto_at) = rto_at.filter(|&t| t > now) {
            at = at.min(rto_at);
        }
        self.timer_at = Some(at);
    }

    /// Linux tcp_send_loss_probe, the timer fired: the segment to probe
    /// with and whether it is a retransmission, new data if `may_send_new`,
    /// else the last segment again; none while a probe is out, with nothing
    /// out, or when the last segment is SACKed (the RTO stays armed).
    pub(super) fn choose_probe(&mut self, sb: &Scoreboard, may_send_new: bool) -> Option<(u64, bool)> {
        self.timer_at = None;
        if self.high_seq.is_some() || sb.packets_out() == 0 {
            return None;
        }
        let nxt = sb.nxt();
        if may_send_new {
            return Some((nxt, false));
        }
        let last = nxt - 1;
        if sb.get(last).has(SACKED) {
            return None;
        }
        Some((last, true))
    }

    /// The probe went out; `high_seq`: SND.NXT after it.
    pub(super) fn on_probe_sent(&mut self, retransmission: bool, high_seq: u64) {
        self.probe_was_retransmission = retransmission;
        self.high_seq = Some(high_seq);
    }

    /// Linux tcp_process_tlp_ack (RFC 8985 7.4.2), before the ACK's loss
    /// recovery: returns true when the episode's probe repaired a loss (the
    /// window is then reduced once). `dupack`: the ACK neither advanced
    /// SND.UNA nor SACKed new data.
    pub(super) fn on_ack(&mut self, ack_seq: u64, dupack: bool) -> bool {
        let Some(high_seq) = self.high_seq else { return false };
        if ack_seq < high_seq {
            return false;
        }
        if !self.probe_was_retransmission {
            self.high_seq = None;
        } else if ack_seq > high_seq {
            // Only one copy of the probed segment arrived: it was lost.
            return true;
        } else if dupack {
            // Both the original and the probe arrived: no loss.
            self.high_seq = None;
        }
        false
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CaState;
    use crate::tcp::driver::Driver;
    use crate::time::NS_PER_MS;

    const MS: Nanos = NS_PER_MS;

    #[test]
    fn the_probe_is_new_data_else_the_last_segment_and_one_per_episode() {
        let mut sb = crate::tcp::scoreboard::Scoreboard::new();
        for _ in 0..4 {
            sb.push_new(crate::tcp::scoreboard::Segment::default());
        }
        let mut tlp = Tlp::default();
        tlp.arm(0, 30, Some(20));
        assert_eq!(tlp.timer_at, Some(20), "never after the RTO");
        assert_eq!(tlp.choose_probe(&sb, true), Some((4, false)));
        assert_eq!((tlp.choose_probe(&sb, false), tlp.timer_at), (Some((3, true)), None));
        tlp.on_probe_sent(true, 4);
        assert_eq!(tlp.choose_probe(&sb, false), None, "one probe per episode");
        // The ACK of 4 without a duplicate: one copy arrived, a loss repaired.
        assert!(!tlp.on_ack(3, false), "below the probe");
        assert!(!tlp.on_ack(4, false), "at it: wait for a duplicate ACK");
        assert!(tlp.on_ack(5, false));
        // A duplicate ACK at the probe's point: both copies arrived.
        assert!(!tlp.on_ack(4, true));
        assert_eq!(tlp.high_seq, None);
    }

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
        assert_eq!(d.s.ca_state(), CaState::Recovery);
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
        assert_eq!((d.s.stats.timeouts, d.s.ca_state()), (0, CaState::Open));
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
        assert_eq!(d.s.ca_state(), CaState::Open);
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
