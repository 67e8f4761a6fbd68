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

use super::scoreboard::Scoreboard;
use super::undo::Undo;
use crate::cc::{Algorithm, CaState, Window};

/// Which undo procedure a sender runs (`tcp.undo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UndoStyle {
    /// Today's Linux (tcp_undo_cwnd_reduction and its callers).
    Modern,
    /// Linux 2.6.24 to 2.6.32 (see the module doc).
    Linux26,
}

impl UndoStyle {
    /// Whether a D-SACK undo may run in state `state` (2.6: in Disorder only).
    pub(super) fn dsack_undo_allowed_in(self, state: CaState) -> bool {
        self != UndoStyle::Linux26 || state == CaState::Disorder
    }
}

/// Linux 2.6 tcp_moderate_cwnd after an undo: at most the packets in
/// flight plus the reordering degree (tcp_max_burst).
pub(super) fn moderate_cwnd(w: &mut Window, sb: &Scoreboard) {
    let cap = sb.in_flight() + sb.reordering;
    w.cwnd = w.cwnd.min(cap.max(1));
}

/// Linux 2.6 tcp_try_undo_partial, once the reordering is noted: the window
/// comes back (to what `cc` makes of `prior_cwnd` if the episode made the
/// reduction, `prior_ssthresh` > 0), moderated; ssthresh and the Recovery
/// state stay. The ACK marks nothing more lost.
pub(super) fn undo_partial(
    w: &mut Window,
    cc: &mut Algorithm,
    sb: &Scoreboard,
    undo: &mut Undo,
    prior_cwnd: u32,
    prior_ssthresh: u32,
) {
    undo.restart_stamp_unless_retransmitting(sb.retrans_out);
    if prior_ssthresh > 0 {
        w.cwnd = cc.undo_cwnd(w, prior_cwnd);
    } else {
        w.cwnd = w.cwnd.max(w.ssthresh);
    }
    moderate_cwnd(w, sb);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_undo_is_moderated_to_the_flight_plus_the_reordering_degree() {
        // 5 segments in flight, the default degree 3: at most 8.
        let mut sb = Scoreboard::new();
        for _ in 0..5 {
            sb.push_new(crate::tcp::scoreboard::Segment::default());
        }
        let mut w = Window::new(20);
        moderate_cwnd(&mut w, &sb);
        assert_eq!(w.cwnd, 8);
        moderate_cwnd(&mut w, &sb);
        assert_eq!(w.cwnd, 8, "a window below the cap stays");
    }

    #[test]
    fn linux_2_6_undoes_by_d_sack_in_disorder_only() {
        assert!(UndoStyle::Linux26.dsack_undo_allowed_in(CaState::Disorder));
        assert!(!UndoStyle::Linux26.dsack_undo_allowed_in(CaState::Recovery));
        assert!(UndoStyle::Modern.dsack_undo_allowed_in(CaState::Recovery));
    }
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
        assert_eq!(d.s.ca_state(), CaState::Recovery);
        d
    }

    #[test]
    fn a_partial_undo_restores_the_window_moderated_and_stays_in_recovery() {
        let mut d = spurious_recovery(UndoStyle::Linux26);
        // The late original fills the hole: a partial ACK (up to 10 of 20)
        // echoing its old timestamp.
        d.ack_echo(1, 10, &[], 1);
        assert_eq!(d.s.ca_state(), CaState::Recovery, "2.6 stays in Recovery");
        assert_eq!(d.s.w.ssthresh, 10, "ssthresh is not restored by a partial undo");
        assert_eq!(d.s.stats.undone_recoveries, 0);
        assert!(d.s.w.cwnd <= d.s.in_flight() + d.s.sb.reordering, "cwnd {}", d.s.w.cwnd);
        // Today's Linux undoes in full on the same ACK (no retransmission out).
        let mut m = spurious_recovery(UndoStyle::Modern);
        m.ack_echo(1, 10, &[], 1);
        assert_eq!((m.s.ca_state(), m.s.stats.undone_recoveries), (CaState::Open, 1));
    }

    #[test]
    fn the_recovery_is_undone_in_full_at_its_end_and_the_window_moderated() {
        let mut d = spurious_recovery(UndoStyle::Linux26);
        d.ack_echo(1, 10, &[], 1);
        let high = d.s.snd_nxt();
        // The ACK at the recovery point echoes a recent timestamp, but the
        // partial undo cleared retrans_stamp (no retransmission out).
        d.ack(1, high, &[]);
        assert_eq!(d.s.ca_state(), CaState::Open);
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
        assert_eq!((d.s.ca_state(), d.s.stats.undone_recoveries), (CaState::Open, 1));
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
        assert_eq!((d.s.ca_state(), d.s.stats.undone_recoveries), (CaState::Recovery, 0));
        let high = d.s.snd_nxt();
        d.ack(1, high, &[]);
        assert_eq!((d.s.ca_state(), d.s.stats.undone_recoveries), (CaState::Open, 1));
        assert_eq!(d.s.w.ssthresh, crate::cc::INFINITE_SSTHRESH);
    }
}
