//! Early retransmit (RFC 5827, with the delay of its appendix A.3), as
//! Linux 3.5 to 4.10 ran it with tcp_early_retrans = 2 (net/ipv4/
//! tcp_input.c: tcp_time_to_recover's "Trick#6", tcp_pause_early_retransmit,
//! tcp_resume_early_retransmit).
//!
//! With fewer than four segments out, a lost first segment can never draw
//! the three duplicate ACKs of the classic rule. So when every segment out
//! but the first is SACKed (or duplicate-ACKed without SACK), nothing has
//! been retransmitted yet and nothing new may be sent, the first segment
//! is taken as lost after max(SRTT/4, 2 ms) without another ACK, and fast
//! recovery starts instead of the retransmission timeout. Any ACK restarts
//! the wait; without an RTT sample, with ECE, or when the RTO would fire
//! first, recovery starts at once. Once reordering is seen the connection
//! stops doing it (tcp_update_reordering -> tcp_disable_early_retrans).
//! Linux 4.11 replaced it by RACK's reordering timer.

use super::scoreboard::{Scoreboard, DUPTHRESH};
use crate::time::{Nanos, NS_PER_MS};

/// Linux msecs_to_jiffies(2): the shortest wait.
const MIN_DELAY_NS: Nanos = 2 * NS_PER_MS;

#[derive(Clone, Debug, Default)]
pub struct EarlyRetransmit {
    /// When the delayed early retransmit fires (Linux early_retrans_delayed
    /// with the retransmission timer set to it).
    pub timer_at: Option<Nanos>,
}

impl EarlyRetransmit {
    /// Linux tcp_time_to_recover's Trick#6 and tcp_pause_early_retransmit,
    /// for an ACK in Open, Disorder or CWR that found no loss: true when the
    /// first segment is to be taken as lost now; when the rule says wait, the
    /// timer is armed instead. `may_send_new`: a new segment may go now, the
    /// window included; `ece`: the ACK echoed congestion; `rto_at`: the
    /// retransmission timer.
    pub(super) fn head_lost_now(
        &mut self,
        sb: &Scoreboard,
        may_send_new: bool,
        srtt: Option<Nanos>,
        ece: bool,
        rto_at: Option<Nanos>,
        now: Nanos,
    ) -> bool {
        let applies = sb.reordering <= DUPTHRESH
            && sb.retrans_out == 0
            && sb.sacked_out > 0
            && sb.packets_out() == sb.sacked_out + 1
            && sb.packets_out() < 4
            && !may_send_new;
        if !applies {
            return false;
        }
        let Some(srtt) = srtt else { return true };
        if ece {
            return true;
        }
        let at = now + (srtt / 4).max(MIN_DELAY_NS);
        if rto_at.is_some_and(|rto| rto <= at) {
            return true;
        }
        self.timer_at = Some(at);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CaState;
    use crate::tcp::driver::Driver;
    use crate::time::NS_PER_MS;

    const MS: u64 = NS_PER_MS;

    #[test]
    fn the_rule_waits_a_quarter_srtt_unless_something_says_now() {
        // 3 out, the two above the first SACKed.
        let mut sb = Scoreboard::new();
        for _ in 0..3 {
            sb.push_new(crate::tcp::scoreboard::Segment::default());
        }
        sb.sack(1, 3, |_, _| {});
        let mut er = EarlyRetransmit::default();
        assert!(!er.head_lost_now(&sb, false, Some(100 * MS), false, None, 0));
        assert_eq!(er.timer_at, Some(25 * MS), "SRTT / 4");
        assert!(!er.head_lost_now(&sb, false, Some(4 * MS), false, None, 0));
        assert_eq!(er.timer_at, Some(2 * MS), "at least 2 ms");
        assert!(er.head_lost_now(&sb, false, None, false, None, 0), "no RTT sample");
        assert!(er.head_lost_now(&sb, false, Some(100 * MS), true, None, 0), "ECE");
        assert!(er.head_lost_now(&sb, false, Some(100 * MS), false, Some(20 * MS), 0), "the RTO comes first");
        er.timer_at = None;
        assert!(!er.head_lost_now(&sb, true, Some(100 * MS), false, None, 0), "new data may go");
        assert_eq!(er.timer_at, None);
    }

    /// A 3.5-like sender (SACK, DupThresh marking, no RACK or TLP) with a
    /// 10-segment transfer: after the ACK of the first 7 segments, 3 are out.
    fn ten_segment_transfer(early_retrans: bool) -> Driver {
        let mut d = Driver::new("reno", 10);
        d.s.cfg.early_retrans = early_retrans;
        d.s.cfg.size = Some(10_000);
        d.s.total_segments = Some(10);
        d.s.last_segment_payload = 1000;
        assert_eq!(d.start().len(), 10);
        d.ack(100, 7, &[]);
        d
    }

    #[test]
    fn a_lost_segment_in_a_short_flight_is_retransmitted_a_quarter_rtt_after_the_sacks() {
        // Segment 7 is lost, 8 and 9 arrive: two duplicate ACKs, never three.
        let mut d = ten_segment_transfer(true);
        assert!(d.ack(0, 7, &[(8, 9)]).is_empty());
        assert!(d.s.loss.early_retransmit.timer_at.is_none(), "8 is SACKed but 9 is still out");
        assert!(d.ack(0, 7, &[(8, 10)]).is_empty());
        let sacked_at = d.now;
        // SRTT is 100 ms: the wait is 25 ms, well before the RTO.
        assert_eq!(d.s.loss.early_retransmit.timer_at, Some(sacked_at + 25 * MS));
        assert_eq!(d.timeout(), [7], "the first segment goes again");
        assert_eq!(d.now, sacked_at + 25 * MS);
        assert_eq!(d.s.ca_state(), CaState::Recovery);
        assert_eq!((d.s.stats.timeouts, d.s.stats.fast_recoveries), (0, 1));
        d.ack(100, 10, &[]);
        assert!(d.s.completed_at.is_some());
        assert_eq!(d.s.stats.timeouts, 0);
    }

    #[test]
    fn without_early_retransmit_the_same_loss_waits_for_the_rto() {
        let mut d = ten_segment_transfer(false);
        d.ack(0, 7, &[(8, 9)]);
        d.ack(0, 7, &[(8, 10)]);
        assert!(d.s.loss.early_retransmit.timer_at.is_none());
        assert_eq!(d.timeout(), [7]);
        assert_eq!(d.s.stats.timeouts, 1);
    }

    #[test]
    fn another_ack_restarts_the_wait() {
        let mut d = ten_segment_transfer(true);
        d.ack(0, 7, &[(8, 10)]);
        let first = d.s.loss.early_retransmit.timer_at.expect("armed");
        // A duplicate of that ACK 10 ms later: the wait starts again from it.
        d.ack(10, 7, &[(8, 10)]);
        assert_eq!(d.s.loss.early_retransmit.timer_at, Some(first + 10 * MS));
    }

    #[test]
    fn reordering_seen_on_the_connection_turns_it_off() {
        let mut d = ten_segment_transfer(true);
        d.s.sb.raise_reordering(5);
        d.ack(0, 7, &[(8, 10)]);
        assert!(d.s.loss.early_retransmit.timer_at.is_none());
        assert_eq!(d.s.ca_state(), CaState::Disorder);
    }

    #[test]
    fn a_flight_of_four_is_left_to_the_duplicate_ack_rule() {
        // After the ACK of 6 segments, 4 are out: three SACKs can come.
        let mut d = Driver::new("reno", 10);
        d.s.cfg.early_retrans = true;
        d.s.cfg.size = Some(10_000);
        d.s.total_segments = Some(10);
        d.s.last_segment_payload = 1000;
        d.start();
        d.ack(100, 6, &[]);
        d.ack(0, 6, &[(7, 9)]);
        assert!(d.s.loss.early_retransmit.timer_at.is_none());
        assert_eq!(d.ack(0, 6, &[(7, 10)]), [6], "three SACKed: DupThresh");
    }
}
