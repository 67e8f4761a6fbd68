//! How Linux 2.6 undid a loss recovery it found spurious (`tcp.undo =
//! "2.6"`, set by the 2.6.24, 2.6.26 and 2.6.32 kernel presets), where it
//! differs from today's Linux (recovery.rs, dsack.rs). Read in
//! net/ipv4/tcp_input.c of 2.6.32 (tcp_fastretrans_alert, tcp_undo_cwr,
//! tcp_may_undo, tcp_packet_delayed, tcp_try_undo_recovery,
//! tcp_try_undo_dsack, tcp_try_undo_partial, tcp_moderate_cwnd):
//! - every undo ends in tcp_moderate_cwnd: the window is capped at the
//!   packets in flight plus tcp_max_burst, the reordering degree, so an undo
//!   never releases a burst; the sender climbs back by slow start to the
//!   restored ssthresh;
//! - a partial ACK that tcp_may_undo allows (tcp_try_undo_partial) restores
//!   the window only (tcp_undo_cwr(sk, 0): not ssthresh), notes the
//!   reordering, marks nothing more lost on that ACK and stays in Recovery,
//!   whose rate halving goes on; once no retransmission is out it clears
//!   retrans_stamp, which tcp_packet_delayed then reads as "nothing was
//!   retransmitted", so the recovery is undone in full when it ends;
//! - D-SACK undo (tcp_try_undo_dsack) runs in Disorder only; a Recovery
//!   whose retransmissions were all D-SACKed is undone when snd_una reaches
//!   its recovery point (tcp_try_undo_recovery), not at once.
//!
//! Not modelled: tcp_undo_cwr's window for an algorithm without undo_cwnd
//! (max(cwnd, 2 ssthresh)): the algorithm's own undo_cwnd is used, as for
//! every preset; without SACK, 2.6 held Recovery until something above the
//! recovery point was ACKed (RFC 2582).

use super::sender::Sender;
use crate::cc::CaState;
use crate::time::Nanos;

/// Which undo procedure a sender runs (`tcp.undo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UndoStyle {
    /// Today's Linux (tcp_undo_cwnd_reduction and its callers).
    Modern,
    /// Linux 2.6.24 to 2.6.32 (see the module doc).
    Linux26,
}

impl Sender {
    pub(super) fn undoes_as_2_6(&self) -> bool {
        self.cfg.undo == UndoStyle::Linux26
    }

    /// Whether a D-SACK undo may run in state `state` (2.6: in Disorder only).
    pub(super) fn dsack_undo_allowed_in(&self, state: CaState) -> bool {
        !self.undoes_as_2_6() || state == CaState::Disorder
    }

    /// Linux 2.6 tcp_moderate_cwnd after an undo: at most the packets in
    /// flight plus the reordering degree (tcp_max_burst).
    pub(super) fn moderate_cwnd_2_6(&mut self) {
        if self.undoes_as_2_6() {
            let cap = self.sb.in_flight() + self.sb.reordering;
            self.w.cwnd = self.w.cwnd.min(cap.max(1));
        }
    }

    /// Linux 2.6 tcp_try_undo_partial: the window comes back (moderated),
    /// ssthresh and the Recovery state stay. Returns true: the ACK marks
    /// nothing more lost.
    pub(super) fn undo_partial_2_6(&mut self, _now: Nanos, prior_una: u64, cum_acked: u32) -> bool {
        if self.cfg.sack {
            self.sb.note_reordering(prior_una);
        } else {
            self.sb.note_reno_reordering(cum_acked);
        }
        self.episode.undo.restart_stamp_unless_retransmitting(self.sb.retrans_out);
        if self.episode.prior_ssthresh > 0 {
            self.w.cwnd = self.cc.undo_cwnd(&self.w, self.episode.prior_cwnd);
        } else {
            self.w.cwnd = self.w.cwnd.max(self.w.ssthresh);
        }
        self.moderate_cwnd_2_6();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::driver::Driver;

    /// 20 segments of Reno out with the 2.6 undo; segment 0 is late, 1..=3
    /// SACKed: Recovery, segment 0 retransmitted.
    fn spurious_recovery(undo: UndoStyle) -> Driver {
        let mut d = Driver::new("reno", 20);
        d.s.cfg.undo = undo;
        d.s.cfg.prr = false; // 2.6's rate halving
        d.start();
        for k in 1..=3u64 {
            d.ack(100, 0, &[(1, k + 1)]);
        }
        assert_eq!(d.s.ca_state, CaState::Recovery);
        d
    }

    #[test]
    fn a_partial_undo_restores_the_window_moderated_and_stays_in_recovery() {
        let mut d = spurious_recovery(UndoStyle::Linux26);
        // The late original fills the hole: a partial ACK (up to 10 of 20)
        // echoing its old timestamp.
        d.ack_echo(1, 10, &[], 1);
        assert_eq!(d.s.ca_state, CaState::Recovery, "2.6 stays in Recovery");
        assert_eq!(d.s.w.ssthresh, 10, "ssthresh is not restored by a partial undo");
        assert_eq!(d.s.stats.undone_recoveries, 0);
        assert!(d.s.w.cwnd <= d.s.in_flight() + d.s.sb.reordering, "cwnd {}", d.s.w.cwnd);
        // Today's Linux undoes in full on the same ACK (no retransmission out).
        let mut m = spurious_recovery(UndoStyle::Modern);
        m.ack_echo(1, 10, &[], 1);
        assert_eq!((m.s.ca_state, m.s.stats.undone_recoveries), (CaState::Open, 1));
    }

    #[test]
    fn the_recovery_is_undone_in_full_at_its_end_and_the_window_moderated() {
        let mut d = spurious_recovery(UndoStyle::Linux26);
        d.ack_echo(1, 10, &[], 1);
        let high = d.s.snd_nxt();
        // The ACK at the recovery point echoes a recent timestamp, but the
        // partial undo cleared retrans_stamp (no retransmission out).
        d.ack(1, high, &[]);
        assert_eq!(d.s.ca_state, CaState::Open);
        assert_eq!(d.s.stats.undone_recoveries, 1);
        assert_eq!(d.s.w.ssthresh, crate::cc::INFINITE_SSTHRESH, "ssthresh of before the episode");
        assert!(d.s.w.cwnd <= d.s.in_flight() + d.s.sb.reordering + 1, "moderated: cwnd {}", d.s.w.cwnd);
    }

    #[test]
    fn a_dsack_inside_recovery_undoes_at_once_today() {
        let mut d = Driver::with_timestamps("reno", 20, false);
        d.start();
        for k in 1..=3u64 {
            d.ack(100, 0, &[(1, k + 1)]);
        }
        d.ack(1, 4, &[]);
        d.ack(1, 4, &[(0, 1)]);
        assert_eq!((d.s.ca_state, d.s.stats.undone_recoveries), (CaState::Open, 1));
    }

    #[test]
    fn a_dsack_inside_recovery_waits_for_its_end() {
        // No timestamps: only the D-SACK can tell.
        let mut d = Driver::with_timestamps("reno", 20, false);
        d.s.cfg.undo = UndoStyle::Linux26;
        d.start();
        for k in 1..=3u64 {
            d.ack(100, 0, &[(1, k + 1)]);
        }
        // The late original of 0 arrives (a partial ACK; nothing tells yet
        // that the retransmission was needless), then the retransmission
        // comes back D-SACKed: today's Linux undoes at once, 2.6 stays in
        // Recovery until its recovery point is ACKed.
        d.ack(1, 4, &[]);
        assert_eq!(d.s.stats.undone_recoveries, 0);
        d.ack(1, 4, &[(0, 1)]);
        assert_eq!(d.s.stats.dsacks_received, 1);
        assert_eq!((d.s.ca_state, d.s.stats.undone_recoveries), (CaState::Recovery, 0));
        let high = d.s.snd_nxt();
        d.ack(1, high, &[]);
        assert_eq!((d.s.ca_state, d.s.stats.undone_recoveries), (CaState::Open, 1));
        assert_eq!(d.s.w.ssthresh, crate::cc::INFINITE_SSTHRESH);
    }
}
