//! What the sender keeps to tell later whether a congestion episode was
//! spurious (Linux tcp_sock's undo_marker, undo_retrans, retrans_stamp and
//! tcp_may_undo): the time of the episode's first retransmission, which an
//! ACK echoing an older timestamp proves needless (Eifel, RFC 3522), and the
//! count of its retransmissions not yet reported as duplicates by a D-SACK
//! (RFC 3708, dsack.rs). A unit of its own, told what happened, so the
//! decision is tested without a flow; what an undo restores is recovery.rs's.

use crate::time::Nanos;

/// The undo state of the current episode.
#[derive(Clone, Debug, Default)]
pub(super) struct Undo {
    /// The current episode may still be undone (Linux undo_marker set).
    pub possible: bool,
    /// snd_una when the episode that may be undone began (Linux undo_marker).
    pub marker: u64,
    /// Retransmissions of the episode not yet reported as duplicates by a
    /// D-SACK (Linux undo_retrans; -1: none sent yet). At 0 every
    /// retransmission was needless and the reduction is undone.
    pub retrans: i32,
    /// Time of the first retransmission of the episode (Linux retrans_stamp; 0: none).
    pub retrans_stamp: Nanos,
}

impl Undo {
    /// Linux tcp_init_undo: the episode starting at snd_una `una` may be
    /// undone; its retransmissions are counted from the `retrans_out` already out.
    pub(super) fn start(&mut self, una: u64, retrans_out: u32) {
        self.possible = true;
        self.marker = una;
        self.retrans = if retrans_out > 0 { retrans_out as i32 } else { -1 };
    }

    /// The episode's first retransmission is timed anew once none is out
    /// (Linux tcp_enter_recovery, tcp_enter_loss, tcp_enter_frto).
    pub(super) fn restart_stamp_unless_retransmitting(&mut self, retrans_out: u32) {
        if retrans_out == 0 {
            self.retrans_stamp = 0;
        }
    }

    /// A segment was retransmitted at `now` (Linux tcp_retransmit_skb): one
    /// more a D-SACK may prove needless.
    pub(super) fn on_retransmit(&mut self, now: Nanos) {
        if self.retrans_stamp == 0 {
            self.retrans_stamp = now;
        }
        self.retrans = self.retrans.max(0) + 1;
    }

    /// A D-SACK reported `segments` duplicates of data ACKed and forgotten,
    /// up to `end` (Linux's "dumb counting" of tcp_sacktag_write_queue).
    pub(super) fn on_dsack_below_una(&mut self, end: u64, segments: u32) {
        if self.possible && self.retrans > 0 && end > self.marker {
            self.retrans = (self.retrans - segments as i32).max(0);
        }
    }

    /// A D-SACK reported a duplicate of retransmitted segment `seq`.
    pub(super) fn on_dsacked_retransmission(&mut self, seq: u64) {
        if self.possible && self.retrans > 0 && seq >= self.marker {
            self.retrans -= 1;
        }
    }

    /// Linux tcp_try_undo_dsack's condition: the episode may be undone and
    /// D-SACKs reported every one of its retransmissions.
    pub(super) fn all_retransmissions_dsacked(&self) -> bool {
        self.possible && self.retrans == 0
    }

    /// Linux tcp_may_undo: every retransmission of the episode was reported
    /// as a duplicate by D-SACK, or the ACK's timestamp echo `ack_tsecr` is
    /// older than the episode's first retransmission (Eifel,
    /// tcp_packet_delayed), so an original segment, not a retransmission,
    /// filled the hole. `no_stamp_is_delay`: Linux 2.6, where no stamp
    /// means nothing was retransmitted (undo26.rs).
    pub(super) fn may_undo(&self, ack_tsecr: Nanos, no_stamp_is_delay: bool) -> bool {
        self.possible
            && (self.retrans == 0
                || (no_stamp_is_delay && self.retrans_stamp == 0)
                || (self.retrans_stamp > 0 && ack_tsecr > 0 && ack_tsecr < self.retrans_stamp))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An episode begun at snd_una 100 with nothing retransmitted, then two
    /// retransmissions at 10 and 20.
    fn two_retransmissions() -> Undo {
        let mut u = Undo::default();
        u.start(100, 0);
        assert_eq!(u.retrans, -1);
        u.on_retransmit(10);
        u.on_retransmit(20);
        u
    }

    #[test]
    fn the_first_retransmission_stamps_the_episode_and_each_is_counted() {
        let u = two_retransmissions();
        assert_eq!((u.retrans_stamp, u.retrans, u.marker), (10, 2, 100));
        // Retransmissions already out when the episode begins count too.
        let mut u = Undo::default();
        u.start(100, 3);
        assert_eq!(u.retrans, 3);
    }

    #[test]
    fn an_echo_older_than_the_first_retransmission_allows_an_undo() {
        let u = two_retransmissions();
        assert!(u.may_undo(9, false), "the original's timestamp");
        assert!(!u.may_undo(10, false), "the retransmission's own");
        assert!(!u.may_undo(0, false), "no timestamps: no evidence");
        let mut done = u.clone();
        done.possible = false;
        assert!(!done.may_undo(9, false), "an episode that may not be undone");
    }

    #[test]
    fn without_a_stamp_only_linux_2_6_reads_nothing_retransmitted() {
        let mut u = Undo::default();
        u.start(100, 0);
        u.on_retransmit(10);
        u.restart_stamp_unless_retransmitting(1);
        assert_eq!(u.retrans_stamp, 10, "a retransmission is still out");
        u.restart_stamp_unless_retransmitting(0);
        assert!(!u.may_undo(5, false));
        assert!(u.may_undo(5, true));
    }

    #[test]
    fn d_sacks_of_every_retransmission_prove_the_reduction_needless() {
        let mut u = two_retransmissions();
        u.on_dsacked_retransmission(99);
        assert_eq!(u.retrans, 2, "below the marker: an earlier episode's");
        u.on_dsacked_retransmission(101);
        assert!(!u.all_retransmissions_dsacked());
        u.on_dsacked_retransmission(102);
        assert!(u.all_retransmissions_dsacked() && u.may_undo(0, false));
        u.on_dsacked_retransmission(103);
        assert_eq!(u.retrans, 0, "never below 0");
    }

    #[test]
    fn d_sacks_below_snd_una_count_their_segments_once_past_the_marker() {
        let mut u = two_retransmissions();
        u.on_dsack_below_una(100, 1);
        assert_eq!(u.retrans, 2, "ends at the marker: not this episode's");
        u.on_dsack_below_una(105, 5);
        assert_eq!(u.retrans, 0, "at most what is counted");
        assert!(u.all_retransmissions_dsacked());
    }
}
