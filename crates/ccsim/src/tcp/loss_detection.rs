//! The sender's loss detection in one place: RACK (rack.rs, RFC 8985),
//! RFC 6675 DupThresh or FACK marking by the scoreboard for SACK flows
//! without RACK, early retransmit (early_retransmit.rs, RFC 5827) and the
//! tail loss probe (tlp.rs). It answers the two questions the rest of the
//! sender asks: what this ACK showed lost, and when the next of its timers
//! (reordering, early retransmit, probe) fires. Without SACK the duplicate
//! ACKs find losses in the state machine (recovery.rs).

use super::early_retransmit::EarlyRetransmit;
use super::rack::Rack;
use super::rtt::RttEstimator;
use super::scoreboard::Scoreboard;
use super::tlp::Tlp;
use crate::cc::CaState;
use crate::time::Nanos;

/// The states and timers of the loss detectors.
#[derive(Default)]
pub(super) struct LossDetection {
    /// RACK state and its reordering timer.
    pub rack: Rack,
    /// Tail loss probe state and its timer.
    pub tlp: Tlp,
    pub early_retransmit: EarlyRetransmit,
}

impl LossDetection {
    /// The earliest of the detectors' timers (`Nanos::MAX`: none), a plain
    /// `min` as `Sender::next_wakeup` wants it.
    #[inline(always)]
    pub(super) fn next_timer(&self) -> Nanos {
        const NONE: Nanos = Nanos::MAX;
        (self.tlp.timer_at.unwrap_or(NONE))
            .min(self.rack.timer_at.unwrap_or(NONE))
            .min(self.early_retransmit.timer_at.unwrap_or(NONE))
    }

    /// Nothing is out, or the retransmission timer fired: the probe and
    /// RACK's reordering timer have nothing left to watch.
    pub(super) fn cancel_probe_and_reordering_timers(&mut self) {
        self.tlp.timer_at = None;
        self.rack.timer_at = None;
    }

    /// What the ACK showed lost before the state machine runs. `rack_on`:
    /// RACK learns what the ACK delivered (Linux tcp_rack_advance, from
    /// tcp_sacktag_write_queue and tcp_clean_rtx_queue) and marks losses
    /// inside the state machine (`rack_mark_lost`); otherwise, with `sack_on`,
    /// the scoreboard marks them here by DupThresh or FACK, as Linux before
    /// 4.18, and in Recovery its lost retransmissions too. Nothing is marked
    /// while the RFC 4138 F-RTO runs (`frto_running`).
    #[inline(always)]
    pub(super) fn on_ack(
        &mut self,
        sb: &mut Scoreboard,
        now: Nanos,
        rack_on: bool,
        sack_on: bool,
        frto_running: bool,
        in_recovery: bool,
    ) {
        if rack_on {
            if !frto_running {
                self.rack.end_ack(now, sb.una());
            }
        } else if sack_on {
            if !frto_running {
                sb.mark_lost_by_sack();
            }
            if in_recovery {
                sb.mark_lost_retransmissions();
            }
        }
    }

    /// RACK's reordering window now (rack.rs), in congestion state `state`.
    pub(super) fn rack_reo_wnd(&self, sb: &Scoreboard, rtt: &RttEstimator, state: CaState) -> Nanos {
        self.rack.reo_wnd(
            rtt.min_rtt(),
            rtt.srtt(),
            matches!(state, CaState::Recovery | CaState::Loss),
            sb.sacked_out >= sb.reordering,
            sb.reordering_seen,
        )
    }

    /// RACK's loss marking with the reordering window `reo_wnd` (Linux
    /// tcp_identify_packet_loss, 4.18+). Returns whether a retransmission
    /// was marked lost (FLAG_LOST_RETRANS).
    pub(super) fn rack_mark_lost(&mut self, sb: &mut Scoreboard, now: Nanos, reo_wnd: Nanos) -> bool {
        let retrans_out = sb.retrans_out;
        self.rack.mark_lost(sb, now, reo_wnd);
        sb.retrans_out < retrans_out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::scoreboard::Segment;

    #[test]
    fn the_next_timer_is_the_earliest_armed() {
        let mut l = LossDetection::default();
        assert_eq!(l.next_timer(), Nanos::MAX, "none armed");
        l.early_retransmit.timer_at = Some(30);
        l.tlp.timer_at = Some(20);
        assert_eq!(l.next_timer(), 20);
        l.rack.timer_at = Some(10);
        assert_eq!(l.next_timer(), 10);
        l.cancel_probe_and_reordering_timers();
        assert_eq!(l.next_timer(), 30, "the early retransmit's wait stays");
    }

    #[test]
    fn without_rack_three_sacks_above_a_hole_mark_it_lost() {
        let mut sb = Scoreboard::new();
        for _ in 0..6 {
            sb.push_new(Segment::default());
        }
        sb.sack(1, 4, |_, _| {});
        let mut l = LossDetection::default();
        l.on_ack(&mut sb, 1, false, true, true, false);
        assert_eq!(sb.lost_out, 0, "not while F-RTO runs");
        l.on_ack(&mut sb, 1, false, true, false, false);
        assert_eq!(sb.lost_out, 1);
        assert_eq!(sb.next_to_retransmit(), Some(0));
    }
}
