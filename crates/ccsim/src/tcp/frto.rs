//! F-RTO: telling a spurious retransmission timeout (a delay spike, such as a
//! radio bearer's stall, rather than a loss) from a real one by what the
//! first ACKs after the timeout acknowledge, as each Linux release did it.
//!
//! - `Rfc4138` (Linux 2.6.22 to 3.9: tcp_use_frto, tcp_enter_frto,
//!   tcp_process_frto, tcp_enter_frto_loss; sysctl_tcp_frto = 2, the SACK
//!   enhanced variant of RFC 4138 Appendix B when SACK is on, the basic one
//!   without; sysctl_tcp_frto_response = 0). The timeout retransmits the head
//!   only and waits in Disorder with ssthresh already reduced. If the next
//!   two ACKs acknowledge data never retransmitted, the timeout was spurious:
//!   the response is rate halving (tcp_enter_cwr without a new ssthresh), so
//!   the window comes down to the halved ssthresh without slow start from one
//!   segment and without go-back-N retransmissions. Otherwise everything not
//!   SACKed is marked lost and the conventional loss recovery follows.
//! - `Rfc5682` (Linux 3.10 and later: the F-RTO part of tcp_process_loss).
//!   The timeout enters Loss as usual (cwnd 1, everything marked lost); the
//!   first ACK that advances snd_una sends new data instead of
//!   retransmissions; if a later ACK (S)ACKs a segment sent before the
//!   timeout and never retransmitted, the timeout is undone (cwnd and
//!   ssthresh restored, nothing more retransmitted); a duplicate ACK or a
//!   SACK of the new data means the loss was real.
//!
//! Both are in addition to the timestamp (Eifel) and D-SACK undo of a Loss
//! episode (recovery.rs), which every release has.

use super::ack_scan::AckFlags;
pub use super::config::FrtoVariant;
use super::episode::Episode;
use super::flight::Flight;
use super::scoreboard::EVER_RETRANS;
use crate::cc::{CaEvent, CaState, RecoveryPolicy};

/// F-RTO's state between ACKs.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct FrtoState {
    /// RFC 4138 variant: 0 idle, 1 after the timeout's retransmission, 2
    /// after the first ACK of new data (Linux frto_counter).
    pub counter: u8,
    /// RFC 4138 variant: an ACK at or above this point ends the detection
    /// (Linux frto_highmark).
    pub highmark: u64,
    /// RFC 5682 variant: F-RTO runs in this Loss episode (Linux tp->frto).
    pub active: bool,
    /// RFC 5682 step 2.b: this ACK sends new data before any retransmission
    /// (Linux REXMIT_NEW).
    pub new_data_first: bool,
}

/// What the RFC 5682 F-RTO made of an ACK in Loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LossAck {
    /// Not F-RTO's: the state machine goes on with it.
    Passed,
    /// F-RTO's: nothing else to do in Loss.
    Taken,
    /// Step 3.b: the timeout was spurious; the caller undoes it.
    SpuriousTimeout,
}

impl FrtoState {
    /// A retransmission timeout: true if the RFC 4138 F-RTO takes it (the
    /// caller then retransmits the head only), false for the conventional
    /// loss recovery (Linux tcp_retransmit_timer: tcp_use_frto ?
    /// tcp_enter_frto : tcp_enter_loss). `policy`: the sender's recovery policy.
    pub(super) fn takes_timeout(&mut self, ep: &mut Episode, f: &mut Flight, policy: RecoveryPolicy) -> bool {
        if !use_rfc4138_frto(f, policy) {
            self.counter = 0;
            return false;
        }
        self.enter(ep, f);
        true
    }

    /// Linux tcp_enter_frto.
    fn enter(&mut self, ep: &mut Episode, f: &mut Flight) {
        let state = ep.state;
        let (una, high_seq, timeouts) = (f.sb.una(), ep.high_seq, ep.timeouts_in_a_row);
        let counter = self.counter;
        if (counter == 0 && state <= CaState::Disorder)
            || una == high_seq
            || ((state == CaState::Loss || counter > 0) && timeouts == 0)
        {
            ep.prior_ssthresh = f.w.current_ssthresh();
            ep.prior_cwnd = f.w.cwnd;
            let c = f.conn(state);
            if counter > 0 {
                // A second timeout before the first ACK: ssthresh from a window of 2.
                let mut w = *f.w;
                w.cwnd = 2;
                f.w.ssthresh = f.cc.ssthresh(&w, &c);
            } else {
                f.w.ssthresh = f.cc.ssthresh(f.w, &c);
            }
            f.cc.cwnd_event(f.w, &c, CaEvent::Frto);
        }
        ep.undo.marker = una;
        ep.undo.retrans = 0;
        ep.undo.possible = !f.sb.get(una).has(EVER_RETRANS);
        ep.undo.restart_stamp_unless_retransmitting(f.sb.retrans_out);
        f.sb.forget_retransmission(una);
        // Too bad if the flow was application limited.
        f.w.cwnd = f.w.cwnd.min(f.sb.in_flight() + 1);
        // An earlier recovery underway: detection ends at its recovery point
        // (RFC 4138 Appendix B).
        self.highmark =
            if sack_frto(f) && (counter > 0 || matches!(state, CaState::Recovery | CaState::Loss)) && high_seq > una {
                high_seq
            } else {
                f.sb.nxt()
            };
        ep.set_state(f, CaState::Disorder);
        ep.high_seq = f.sb.nxt();
        self.counter = 1;
    }

    /// Linux tcp_enter_frto_loss: the timeout was real after all. Everything
    /// not SACKed is lost, cwnd is the flight plus `allowed_segments`, and
    /// the conventional loss recovery (go-back-N) follows.
    fn enter_loss(&mut self, ep: &mut Episode, f: &mut Flight, allowed_segments: u32, data_acked: bool) {
        if !f.cfg.sack {
            f.sb.reset_reno_sacks();
        }
        let keep_head = self.counter == 1 && !data_acked;
        if f.sb.mark_all_lost_after_frto(keep_head) {
            ep.undo.possible = false;
        }
        f.w.cwnd = f.sb.in_flight() + allowed_segments;
        f.w.cwnd_cnt = 0;
        self.counter = 0;
        f.sb.forget_reordering();
        ep.set_state(f, CaState::Loss);
        ep.high_seq = f.sb.nxt();
        *f.next_send_at = f.now;
    }

    /// Linux tcp_process_frto, on every ACK while the RFC 4138 F-RTO runs.
    /// Returns true when the window must not grow on this ACK.
    pub(super) fn process(&mut self, ep: &mut Episode, f: &mut Flight, ack: &AckFlags) -> bool {
        if ack.nonhead_retrans_acked || (self.counter >= 2 && ack.retrans_acked) {
            ep.undo.possible = false;
        }
        let allowed = if self.counter == 1 { 2 } else { 3 };
        if f.sb.una() >= self.highmark {
            self.enter_loss(ep, f, allowed, ack.data_acked);
            return true;
        }
        if !sack_frto(f) {
            // Basic F-RTO: a duplicate ACK means the timeout was real.
            if !ack.data_acked {
                let allowed = if self.counter == 1 { 0 } else { 3 };
                self.enter_loss(ep, f, allowed, false);
                return true;
            }
        } else {
            if !ack.data_acked && self.counter == 1 {
                // RFC 4138 B.1: wait, without sending, for the ACK of new data.
                f.w.cwnd = f.w.cwnd.min(f.sb.in_flight());
                return true;
            }
            let forward_progress = ack.data_acked || ack.data_sacked;
            if self.counter >= 2 && (!forward_progress || (ack.data_sacked && !ack.orig_sacked_below_highmark)) {
                self.enter_loss(ep, f, 3, ack.data_acked);
                return true;
            }
        }
        if self.counter == 1 {
            // The first ACK of new data: send two new segments (RFC 4138 step 2.b).
            f.w.cwnd = f.sb.in_flight() + 2;
            self.counter = 2;
            if !f.may_send_new {
                self.enter_loss(ep, f, 2, ack.data_acked);
            }
            return true;
        }
        // The second ACK acknowledges data never retransmitted: spurious.
        rate_halving_response(ep, f);
        self.counter = 0;
        ep.undo.possible = false;
        f.stats.spurious_timeouts += 1;
        false
    }

    /// RFC 5682 F-RTO inside the Loss state (Linux 3.10+ tcp_process_loss).
    pub(super) fn process_in_loss(&mut self, ep: &mut Episode, f: &Flight, ack: &AckFlags) -> LossAck {
        if !self.active {
            return LossAck::Passed;
        }
        // Step 3.b: data sent before the timeout and never retransmitted
        // arrived: not everything was lost, the timeout was spurious.
        if ack.orig_acked_below_high_seq {
            return LossAck::SpuriousTimeout;
        }
        let recovered = f.sb.una() >= ep.high_seq;
        if f.sb.nxt() > ep.high_seq {
            if ack.data_sacked || ack.dupack {
                // Step 3.a: the new data was SACKed or duplicate-ACKed: the loss was real.
                self.active = false;
            }
        } else if ack.data_acked && !recovered {
            // Step 2.b: send new data rather than retransmit, if there is any.
            ep.high_seq = f.sb.nxt();
            if f.may_send_new {
                self.new_data_first = true;
                return LossAck::Taken;
            }
            self.active = false;
        }
        LossAck::Passed
    }
}

/// Linux tcp_is_sackfrto: the SACK-enhanced variant (sysctl_tcp_frto 2 with SACK).
fn sack_frto(f: &Flight) -> bool {
    f.cfg.sack
}

/// Linux tcp_use_frto: with SACK always; without, only if nothing but the
/// head was retransmitted (the basic algorithm cannot tell which copy
/// an ACK answers otherwise).
fn use_rfc4138_frto(f: &Flight, policy: RecoveryPolicy) -> bool {
    if f.cfg.frto != FrtoVariant::Rfc4138 || policy == RecoveryPolicy::SlowStart {
        return false;
    }
    if sack_frto(f) {
        return true;
    }
    if f.sb.retrans_out > 1 {
        return false;
    }
    f.sb.only_head_may_be_retransmitted()
}

/// Linux tcp_ratehalving_spur_to_response (sysctl_tcp_frto_response 0):
/// tcp_enter_cwr without a new ssthresh; the window falls to the
/// ssthresh tcp_enter_frto set, by rate halving (or PRR from 3.2).
fn rate_halving_response(ep: &mut Episode, f: &mut Flight) {
    ep.prior_ssthresh = 0;
    ep.high_seq = f.sb.nxt();
    ep.prior_cwnd = f.w.cwnd;
    ep.prr.start(f.w.cwnd);
    if !f.cfg.prr {
        f.w.cwnd = f.w.cwnd.min(f.sb.in_flight() + 1);
    }
    f.w.cwnd_cnt = 0;
    ep.set_state(f, CaState::Cwr);
}

#[cfg(test)]
mod tests {
    use super::FrtoVariant;
    use crate::cc::CaState;
    use crate::tcp::driver::Driver;

    /// 10 segments out, then a delay spike longer than the RTO: the timer
    /// fires, then the original segments' ACKs arrive after all.
    fn spike(frto: FrtoVariant, sack: bool, timestamps: bool) -> (Driver, Vec<u64>) {
        let mut d = Driver::with_timestamps("reno", 10, timestamps);
        d.s.cfg.frto = frto;
        d.s.cfg.sack = sack;
        assert_eq!(d.start().len(), 10);
        // An ACK of the first two, so the window is 12 and 12 are out.
        let sent = d.ack(100, 2, &[]);
        assert_eq!(sent.len(), 4);
        let at_timeout = d.timeout();
        (d, at_timeout)
    }

    #[test]
    fn rfc4138_frto_sees_a_delay_spike_and_halves_without_going_back_n() {
        for sack in [true, false] {
            let (mut d, at_timeout) = spike(FrtoVariant::Rfc4138, sack, false);
            assert_eq!(at_timeout, [2], "only the head goes again");
            assert_eq!(d.s.ca_state(), CaState::Disorder);
            let ssthresh = d.s.w.ssthresh;
            assert_eq!(ssthresh, 6);
            // The delayed originals are ACKed: first 2..4, then 4..6.
            let sent = d.ack(10, 4, &[]);
            assert_eq!(sent, [14, 15], "sack {sack}: two new segments, no retransmission");
            let sent = d.ack(1, 6, &[]);
            assert_eq!(d.s.ca_state(), CaState::Cwr, "sack {sack}");
            assert_eq!(d.s.stats.spurious_timeouts, 1);
            assert!(sent.iter().all(|&s| s >= 16), "sack {sack}: new data only, got {sent:?}");
            // The rest of the flight comes in: never a retransmission.
            for cum in 7..=16 {
                let sent = d.ack(1, cum, &[]);
                assert!(sent.iter().all(|&s| s >= 16), "sack {sack}: retransmitted {sent:?}");
            }
            assert_eq!(d.s.stats.retransmitted_segments, 1, "sack {sack}");
            assert_eq!(d.s.w.ssthresh, ssthresh, "sack {sack}: the halving stays");
            assert!(d.s.w.cwnd >= ssthresh - 1, "sack {sack}: cwnd {}", d.s.w.cwnd);
        }
    }

    #[test]
    fn rfc4138_frto_reports_its_timeout_to_the_algorithm() {
        // Linux 2.6.22 to 3.9 tcp_enter_frto: ssthresh, then CA_EVENT_FRTO,
        // which Westwood+ answers with BWE * RTTmin instead of Reno's half.
        // One segment per 10 ms: first with a receive window of 5 segments
        // (RTT 50 ms, RTTmin), then of 20 (a queue: RTT 200 ms). BWE * RTTmin
        // is 5 segments, Reno's half of the window at least 10.
        let mut d = Driver::with_timestamps("westwood+", 5, false);
        d.s.cfg.frto = FrtoVariant::Rfc4138;
        d.rwnd = 5;
        d.start();
        d.ack(50, 1, &[]);
        for cum in 2..=500 {
            d.rwnd = if cum < 100 { 5 } else { 20 };
            d.ack(10, cum, &[]);
        }
        let cwnd = d.s.w.cwnd;
        d.timeout();
        assert_eq!(d.s.ca_state(), CaState::Disorder, "F-RTO took the timeout");
        assert!(cwnd / 2 >= 10 && (4..=5).contains(&d.s.w.ssthresh), "ssthresh {}, cwnd {cwnd}", d.s.w.ssthresh);
    }

    #[test]
    fn rfc4138_frto_falls_back_to_go_back_n_on_a_duplicate_ack() {
        let (mut d, _) = spike(FrtoVariant::Rfc4138, false, false);
        // The head was really lost: the receiver answers the retransmission's
        // successors... here a duplicate ACK first.
        d.ack(10, 2, &[]);
        assert_eq!(d.s.ca_state(), CaState::Loss);
        assert_eq!(d.s.stats.spurious_timeouts, 0);
    }

    #[test]
    fn rfc5682_frto_undoes_a_spurious_timeout() {
        let (mut d, at_timeout) = spike(FrtoVariant::Rfc5682, true, false);
        assert_eq!(at_timeout, [2]);
        assert_eq!((d.s.ca_state(), d.s.w.cwnd), (CaState::Loss, 1));
        // The first ACK covers the head (retransmitted): new data, not retransmissions.
        let sent = d.ack(10, 3, &[]);
        assert!(sent.iter().all(|&s| s >= 14), "new data first, got {sent:?}");
        assert!(!sent.is_empty());
        // The next ACKs an original segment sent before the timeout: spurious.
        d.ack(1, 5, &[]);
        assert_eq!(d.s.ca_state(), CaState::Open);
        assert_eq!(d.s.stats.spurious_timeouts, 1);
        assert_eq!((d.s.w.ssthresh, d.s.w.cwnd >= 12), (crate::cc::INFINITE_SSTHRESH, true), "cwnd {}", d.s.w.cwnd);
        assert_eq!(d.s.stats.retransmitted_segments, 1);
    }

    #[test]
    fn rfc5682_frto_without_sack_counts_the_duplicate_acks_of_its_new_data() {
        // Linux 3.10+ tcp_process_loss: "A Reno DUPACK means new data in
        // F-RTO step 2.b above are delivered": once new data went out past
        // the recovery point a duplicate ACK is counted (tcp_add_reno_sack),
        // up to the new segments (tcp_limit_reno_sacked: the rest are lost).
        let (mut d, _) = spike(FrtoVariant::Rfc5682, false, false);
        let sent = d.ack(10, 3, &[]);
        assert_eq!(sent, [14, 15], "step 2.b: new data first");
        let delivered = d.s.conn(d.now).delivered;
        for n in 1..=3 {
            d.ack(1, 3, &[]);
            assert_eq!(d.s.ca_state(), CaState::Loss);
            assert_eq!(d.s.sb.sacked_out, n.min(2), "duplicate ACK {n}");
        }
        assert_eq!(d.s.conn(d.now).delivered, delivered + 2);
        // An ACK of new data forgets them.
        d.ack(1, 4, &[]);
        assert_eq!(d.s.sb.sacked_out, 0);
    }

    #[test]
    fn without_frto_a_delay_spike_costs_go_back_n_and_slow_start() {
        let (mut d, _) = spike(FrtoVariant::Off, true, false);
        d.ack(10, 3, &[]);
        d.ack(1, 5, &[]);
        assert_eq!(d.s.ca_state(), CaState::Loss);
        assert!(d.s.stats.retransmitted_segments > 1);
        assert_eq!(d.s.w.ssthresh, 6);
    }

    #[test]
    fn a_timeout_the_timestamps_show_spurious_is_undone_in_every_release() {
        let (mut d, _) = spike(FrtoVariant::Off, true, true);
        // The ACK of the original head echoes its timestamp, older than the retransmission.
        d.ack_echo(10, 4, &[], 2);
        assert_eq!(d.s.ca_state(), CaState::Open);
        assert_eq!(d.s.stats.undone_timeouts, 1);
        assert_eq!(d.s.w.ssthresh, crate::cc::INFINITE_SSTHRESH);
        assert!(d.s.w.cwnd >= 12, "cwnd {}", d.s.w.cwnd);
    }
}
