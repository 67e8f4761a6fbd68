//! D-SACK at the sender (RFC 2883; RFC 3708 for what it proves): the first
//! SACK block of an ACK reports a segment the receiver got twice. Linux's
//! tcp_check_dsack tells it from an ordinary block (below the cumulative ACK,
//! or inside the second block), the dup_sack part of tcp_sacktag_one counts
//! the episode's retransmissions so proven needless (undo_retrans) and notes
//! the reordering of a duplicate that was SACKed already, and
//! tcp_try_undo_dsack undoes the reduction once all of them are (recovery.rs).
//! The sender counts each D-SACK here, and RACK widens its window (rack.rs).

use super::scoreboard::{Scoreboard, EVER_RETRANS, SACKED};
use super::undo::Undo;
use crate::net::packet::SackBlock;

/// Linux tcp_check_dsack: the first block is a D-SACK when it lies below the
/// cumulative ACK `ack_seq` or inside the second block.
pub(super) fn first_block_is_dsack(sack: &[SackBlock], ack_seq: u64) -> bool {
    match sack {
        [] => false,
        [first, ..] if first.start < ack_seq => true,
        [first, second, ..] => first.start >= second.start && first.end <= second.end,
        _ => false,
    }
}

/// A D-SACK `block` arrived on an ACK; `prior_una` is snd_una before that
/// ACK (the dup_sack part of Linux tcp_sacktag_write_queue): the episode's
/// retransmissions it proves needless are counted off `undo`, and a
/// duplicate of a segment SACKed already was reordered. Before the ACK's
/// blocks are tagged.
pub(super) fn count_dsack(sb: &mut Scoreboard, undo: &mut Undo, block: SackBlock, prior_una: u64) {
    if block.end <= prior_una {
        // Data already ACKed and forgotten: count it (Linux's "dumb counting").
        undo.on_dsack_below_una(block.end, (block.end - block.start) as u32);
        return;
    }
    let (una, nxt) = (sb.una(), sb.nxt());
    for seq in block.start.max(una)..block.end.min(nxt) {
        let s = sb.get(seq);
        if !s.has(EVER_RETRANS) {
            continue;
        }
        undo.on_dsacked_retransmission(seq);
        // A retransmission needless because the original was SACKed
        // already: it had been reordered.
        if s.has(SACKED) {
            sb.note_reordering(seq);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CaState;
    use crate::tcp::driver::Driver;

    fn b(start: u64, end: u64) -> SackBlock {
        SackBlock { start, end }
    }

    #[test]
    fn a_dsack_counts_the_retransmissions_it_proves_needless() {
        // 10 out from snd_una 0, segments 2 and 3 retransmitted in this
        // episode, then the original of 3 SACKed.
        let mut sb = Scoreboard::new();
        for _ in 0..10 {
            sb.push_new(crate::tcp::scoreboard::Segment::default());
        }
        let mut undo = Undo::default();
        undo.start(0, 0);
        for seq in [2, 3] {
            sb.on_retransmit(seq, 5, Default::default());
            undo.on_retransmit(5);
        }
        sb.sack(3, 4, |_, _| {});
        // A D-SACK of 1..4: 1 was never retransmitted, 2 and 3 were.
        count_dsack(&mut sb, &mut undo, b(1, 4), 0);
        assert_eq!(undo.retrans, 0);
        assert!(undo.all_retransmissions_dsacked());
        assert!(sb.reordering_seen, "3 was SACKed before its duplicate came");
    }

    #[test]
    fn a_dsack_is_below_the_ack_or_inside_the_second_block() {
        assert!(first_block_is_dsack(&[b(3, 4)], 5));
        assert!(first_block_is_dsack(&[b(7, 8), b(6, 9)], 5));
        assert!(!first_block_is_dsack(&[b(7, 8), b(10, 12)], 5));
        assert!(!first_block_is_dsack(&[b(7, 8)], 5));
        assert!(!first_block_is_dsack(&[], 5));
    }

    #[test]
    fn a_fast_retransmit_the_dsack_shows_needless_is_undone() {
        // No timestamps: only the D-SACK can tell.
        let mut d = Driver::with_timestamps("reno", 20, false);
        d.start();
        for k in 1..=3u64 {
            d.ack(100, 0, &[(1, k + 1)]);
        }
        assert_eq!(d.s.ca_state(), CaState::Recovery);
        assert_eq!(d.s.w.ssthresh, 10);
        // Segment 0 was only late: the original fills the hole and recovery
        // ends (nothing tells yet that the retransmission was needless).
        let high = d.s.snd_nxt();
        d.ack(1, high, &[]);
        assert_eq!(d.s.ca_state(), CaState::Open);
        assert_eq!((d.s.stats.undone_recoveries, d.s.w.ssthresh), (0, 10));
        // Then the retransmission arrives as a duplicate: the receiver D-SACKs it.
        let nxt = d.s.snd_nxt();
        d.ack(1, nxt, &[(0, 1)]);
        assert_eq!(d.s.stats.dsacks_received, 1);
        assert_eq!(d.s.stats.undone_recoveries, 1);
        assert_eq!(d.s.w.ssthresh, crate::cc::INFINITE_SSTHRESH, "ssthresh restored");
        assert!(d.s.w.cwnd >= 20, "cwnd {}", d.s.w.cwnd);
        assert_eq!(d.s.ca_state(), CaState::Open);
    }

    #[test]
    fn the_undo_waits_until_every_retransmission_is_dsacked() {
        let mut d = Driver::with_timestamps("reno", 20, false);
        d.start();
        // Segments 0 and 1 are late; 2.. are SACKed: both are retransmitted.
        let mut retransmitted = Vec::new();
        for k in 2..=8u64 {
            retransmitted.extend(d.ack(100, 0, &[(2, k + 1)]).into_iter().filter(|&s| s < 2));
        }
        assert_eq!(retransmitted, [0, 1]);
        let high = d.s.snd_nxt();
        d.ack(1, high, &[]);
        let nxt = d.s.snd_nxt();
        d.ack(1, nxt, &[(0, 1)]);
        assert_eq!((d.s.stats.undone_recoveries, d.s.w.ssthresh), (0, 10), "one of two reported");
        d.ack(1, nxt, &[(1, 2)]);
        assert_eq!(d.s.stats.undone_recoveries, 1);
        assert_eq!(d.s.w.ssthresh, crate::cc::INFINITE_SSTHRESH);
    }
}
