//! The sender's per-segment record of what is outstanding (Linux's
//! retransmission queue with its SACK tags and the sacked_out / lost_out /
//! retrans_out counters).
//!
//! Segments [una, nxt) live in a ring buffer indexed by `seq - una`. Loss
//! marking follows RFC 6675 IsLost(): a hole is lost once DupThresh (3)
//! SACKed segments lie above it; a scan pointer makes it O(1) amortized per
//! ACK instead of a walk over the window. A retransmission is lost again
//! once data first sent after it is SACKed (Linux tcp_mark_lost_retrans).
//!
//! With FACK (Linux before 4.15, `fack`), a hole is lost once the highest
//! SACKed segment lies DupThresh or more above it, however many below
//! that were SACKed (tcp_update_scoreboard, tcp_mark_head_lost with
//! fackets_out - reordering); seeing reordering turns FACK off
//! (tcp_update_reordering -> tcp_disable_fack).
//!
//! DupThresh starts at 3 and learns the path's reordering as Linux does
//! (tcp_check_sack_reordering): when a segment that was never retransmitted
//! is SACKed or cumulatively ACKed below the highest segment SACKed by an
//! earlier ACK, it arrived late rather than lost, and DupThresh grows to the
//! distance (at most 300, Linux's tcp_max_reordering).

use super::rate::TxSnapshot;
use super::sacked_ranges::SackedRanges;
use crate::time::Nanos;
use std::collections::VecDeque;

pub const SACKED: u8 = 1;
pub const LOST: u8 = 2;
/// Retransmitted and that retransmission is still outstanding.
pub const RETRANS: u8 = 4;
/// Retransmitted at least once (Karn's rule: no RTT sample from it).
pub const EVER_RETRANS: u8 = 8;

/// RFC 6675 DupThresh, and the reordering degree assumed before any is seen
/// (Linux sysctl tcp_reordering).
pub const DUPTHRESH: u32 = 3;
/// The largest reordering degree learned (Linux sysctl tcp_max_reordering).
pub const MAX_REORDERING: u32 = 300;

#[derive(Clone, Copy, Debug, Default)]
pub struct Segment {
    /// Time of the latest transmission.
    pub sent_at: Nanos,
    pub tx: TxSnapshot,
    pub flags: u8,
    /// `nxt()` when this segment was last retransmitted (Linux's skb ack_seq).
    pub nxt_at_retransmit: u64,
}

impl Segment {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }
}

/// What `Scoreboard::ack_to` hands over: one segment (`count` 1, `first`
/// and `last` the same), or a run of `count` consecutive clean segments
/// (flags 0: never SACKed, marked lost or retransmitted). A clean segment
/// went out once, in sequence order, so a run was also sent in time order
/// with non-decreasing delivery snapshots: whoever keeps the most recently
/// sent or the oldest of the delivered segments (the rate sample, RACK, the
/// RTT samples) needs only the run's ends, and one call per ACK replaces
/// one per segment in the common case.
pub struct Removed<'a> {
    pub first_seq: u64,
    pub first: &'a Segment,
    pub last_seq: u64,
    pub last: &'a Segment,
    pub count: u32,
}

/// What `Scoreboard::ack_to` hands the segments a cumulative ACK removes
/// to: the sender's scan (Linux tcp_clean_rtx_queue), or any closure.
pub trait OnRemoved {
    fn removed(&mut self, r: Removed);
}

impl<F: FnMut(Removed)> OnRemoved for F {
    #[inline(always)]
    fn removed(&mut self, r: Removed) {
        self(r)
    }
}

#[derive(Default)]
pub struct Scoreboard {
    una: u64,
    segs: VecDeque<Segment>,
    /// SACKed segments (or, without SACK, duplicate ACKs counted as Linux's tcp_add_reno_sack does).
    pub sacked_out: u32,
    pub lost_out: u32,
    pub retrans_out: u32,
    /// Transmissions marked lost so far, lost retransmissions included
    /// (Linux tp->lost): what an ACK marked is its growth. The RFC 4138
    /// F-RTO's re-marking, from releases before tp->lost, is not counted.
    pub lost_marks: u64,
    /// Lost and not yet retransmitted.
    lost_pending: u32,
    /// Lowest segment that may be lost and not yet retransmitted.
    retransmit_hint: u64,
    /// IsLost scan position and the SACKed segments below it.
    scan: u64,
    sacked_below_scan: u32,
    /// One past the highest segment ever SACKed (Linux tcp_highest_sack_seq).
    highest_sacked_end: u64,
    /// The ranges marked SACKed, which the next SACK blocks skip.
    sacked_ranges: SackedRanges,
    /// Lowest `nxt_at_retransmit` of the outstanding retransmissions
    /// (Linux lost_retrans_low); u64::MAX when there are none.
    lost_retrans_low: u64,
    /// DupThresh in use: segments SACKed above a hole before it is lost (Linux tp->reordering).
    pub reordering: u32,
    /// Reordering has been seen on this connection (Linux tp->reord_seen;
    /// RACK keeps its reordering window open once it is set).
    pub reordering_seen: bool,
    /// Forward acknowledgment loss marking (Linux tcp_is_fack), until
    /// reordering is seen.
    pub fack: bool,
    /// `highest_sacked_end` before the ACK being processed, and the lowest
    /// never-retransmitted segment that ACK delivered below it.
    prior_highest_sacked_end: u64,
    reordered_low: u64,
}

impl Scoreboard {
    pub fn new() -> Scoreboard {
        Scoreboard {
            lost_retrans_low: u64::MAX,
            reordering: DUPTHRESH,
            reordered_low: u64::MAX,
            ..Scoreboard::default()
        }
    }

    pub fn una(&self) -> u64 {
        self.una
    }
    pub fn nxt(&self) -> u64 {
        self.una + self.segs.len() as u64
    }
    pub fn packets_out(&self) -> u32 {
        self.segs.len() as u32
    }

    /// Segments in the network (Linux tcp_packets_in_flight; RFC 6675 "pipe").
    #[inline]
    pub fn in_flight(&self) -> u32 {
        (self.packets_out() + self.retrans_out).saturating_sub(self.sacked_out + self.lost_out)
    }

    pub fn get(&self, seq: u64) -> &Segment {
        &self.segs[(seq - self.una) as usize]
    }

    /// Records the first transmission of segment `nxt()`.
    #[inline]
    pub fn push_new(&mut self, seg: Segment) {
        self.segs.push_back(seg);
    }

    /// Marks [start, end) SACKed; calls `on_newly` with each newly SACKed
    /// segment, in place (no copy of it). Only the parts of the range not
    /// SACKed before are walked (sacked_ranges.rs).
    #[inline]
    pub fn sack(&mut self, start: u64, end: u64, mut on_newly: impl FnMut(u64, &Segment)) {
        let start = start.max(self.una);
        let end = end.min(self.nxt());
        // Taken out for the walk, which marks segments of `self`.
        let mut ranges = std::mem::take(&mut self.sacked_ranges);
        ranges.mark(start, end, |from, to| {
            for q in from..to {
                debug_assert!(!self.get(q).has(SACKED), "segment {q}: the ranges hold every SACKed one");
                self.sack_one(q, &mut on_newly);
            }
        });
        self.sacked_ranges = ranges;
    }

    /// Takes a segment that leaves the repair (SACKed, or acknowledged
    /// cumulatively) off the lost and retransmitted counts its `flags` put
    /// it in.
    #[inline(always)]
    fn uncount_repair(&mut self, flags: u8) {
        if flags & LOST != 0 {
            self.lost_out -= 1;
            if flags & RETRANS == 0 {
                self.lost_pending -= 1;
            }
        }
        if flags & RETRANS != 0 {
            self.retrans_out -= 1;
        }
    }

    /// Marks segment `seq` SACKed, unless it is already.
    #[inline(always)]
    fn sack_one(&mut self, seq: u64, on_newly: &mut impl FnMut(u64, &Segment)) {
        let i = (seq - self.una) as usize;
        if self.segs[i].has(SACKED) {
            return;
        }
        self.uncount_repair(self.segs[i].flags);
        let s = &mut self.segs[i];
        if !s.has(EVER_RETRANS) && seq < self.prior_highest_sacked_end {
            self.reordered_low = self.reordered_low.min(seq);
        }
        s.flags = (s.flags & !(LOST | RETRANS)) | SACKED;
        self.sacked_out += 1;
        self.highest_sacked_end = self.highest_sacked_end.max(seq + 1);
        if seq < self.scan {
            self.sacked_below_scan += 1;
        }
        on_newly(seq, s);
    }

    /// Cumulative ACK up to `ack` (exclusive): hands `on_removed` the
    /// segments it removes, read in place before the ring lets go of them
    /// (no copy of them): one at a time, except that consecutive clean
    /// segments come as one run (see `Removed`). `on_removed` is taken and
    /// given back by value, so that for the usual ACK (one clean run, inline
    /// here) the caller's state in it stays in registers; only the other
    /// ACKs hand it to `ack_each` through memory.
    #[inline]
    pub fn ack_to<V: OnRemoved>(&mut self, ack: u64, mut on_removed: V) -> V {
        let una = self.una;
        let n = ack.saturating_sub(una).min(self.segs.len() as u64) as usize;
        let mut clean = 0;
        while clean < n && self.segs[clean].flags == 0 {
            clean += 1;
        }
        if n > 0 && clean == n {
            if una < self.prior_highest_sacked_end {
                self.reordered_low = self.reordered_low.min(una);
            }
            on_removed.removed(Removed {
                first_seq: una,
                first: &self.segs[0],
                last_seq: una + n as u64 - 1,
                last: &self.segs[n - 1],
                count: n as u32,
            });
        } else {
            on_removed = self.ack_each(n, on_removed);
        }
        self.segs.drain(..n);
        self.una += n as u64;
        self.sacked_ranges.forget_below(self.una);
        if self.scan < self.una {
            self.scan = self.una;
            self.sacked_below_scan = 0;
        }
        self.retransmit_hint = self.retransmit_hint.max(self.una);
        on_removed
    }

    /// `ack_to`'s hand-over of the first `n` segments when they are not one
    /// clean run, counting each off the counters it is in.
    #[inline(never)]
    fn ack_each<V: OnRemoved>(&mut self, n: usize, mut on_removed: V) -> V {
        let una = self.una;
        let mut k = 0;
        while k < n {
            let seq = una + k as u64;
            let flags = self.segs[k].flags;
            let mut end = k + 1;
            if flags == 0 {
                // A clean run: nothing to count off.
                while end < n && self.segs[end].flags == 0 {
                    end += 1;
                }
            } else if flags & SACKED != 0 {
                self.sacked_out -= 1;
                if seq < self.scan {
                    self.sacked_below_scan -= 1;
                }
            } else {
                self.uncount_repair(flags);
            }
            // An original delivered below what an earlier ACK SACKed came
            // late (of a clean run, the first is the lowest).
            if flags & (SACKED | EVER_RETRANS) == 0 && seq < self.prior_highest_sacked_end {
                self.reordered_low = self.reordered_low.min(seq);
            }
            let last = &self.segs[end - 1];
            on_removed.removed(Removed {
                first_seq: seq,
                first: &self.segs[k],
                last_seq: una + end as u64 - 1,
                last,
                count: (end - k) as u32,
            });
            k = end;
        }
        on_removed
    }

    /// Before an ACK's SACK blocks and cumulative ACK are applied.
    pub fn begin_ack(&mut self) {
        self.prior_highest_sacked_end = self.highest_sacked_end;
        self.reordered_low = u64::MAX;
    }

    /// After them: a never-retransmitted segment delivered below what an
    /// earlier ACK had SACKed was reordered, not lost (Linux
    /// tcp_check_sack_reordering); DupThresh grows to the distance.
    pub fn end_ack(&mut self) {
        if self.reordered_low < self.prior_highest_sacked_end {
            self.note_reordering(self.reordered_low);
        }
    }

    /// Reordering by the segments from `low` up to the highest SACKed (seen by
    /// `end_ack`, or by the timestamps of a fast recovery that was undone).
    pub fn note_reordering(&mut self, low: u64) {
        if low < self.highest_sacked_end {
            self.reordering_seen = true;
            let degree = (self.highest_sacked_end - low).min(MAX_REORDERING as u64) as u32;
            self.raise_reordering(degree);
        }
    }

    /// An undone recovery: nothing is lost after all (Linux
    /// tcp_undo_cwnd_reduction with unmark_loss). The IsLost scan starts
    /// over, so holes are judged again against the new DupThresh.
    pub fn unmark_lost(&mut self) {
        let mut still_lost = 0;
        for s in self.segs.iter_mut() {
            if s.has(LOST) && !s.has(RETRANS) {
                s.flags &= !LOST;
            }
            still_lost += s.has(LOST) as u32;
        }
        // Retransmissions still out keep their LOST mark (they are counted in
        // flight); an F-RTO head retransmission or a loss probe's
        // retransmission never had one.
        self.lost_out = still_lost;
        self.lost_pending = 0;
        self.scan = self.una;
        self.sacked_below_scan = 0;
    }

    /// A retransmission timeout with many segments SACKed and no recovery
    /// suggests the reordering degree was overestimated (Linux tcp_enter_loss).
    pub fn on_timeout_without_recovery(&mut self) {
        if self.sacked_out >= DUPTHRESH {
            self.reordering = self.reordering.min(DUPTHRESH);
        }
    }

    /// RFC 6675 IsLost: marks every hole with at least DupThresh SACKed
    /// segments above it; with FACK, every hole DupThresh or more below the
    /// highest SACKed segment. Returns how many were newly marked.
    pub fn mark_lost_by_sack(&mut self) -> u32 {
        let mut newly = 0;
        let nxt = self.nxt();
        let fack_bound = if self.fack { self.highest_sacked_end.saturating_sub(self.reordering as u64) } else { 0 };
        while self.scan < nxt && (self.scan < fack_bound || self.sacked_out - self.sacked_below_scan >= self.reordering)
        {
            let seq = self.scan;
            if self.get(seq).has(SACKED) {
                self.sacked_below_scan += 1;
            } else if self.mark_lost(seq) {
                newly += 1;
            }
            self.scan += 1;
        }
        newly
    }

    /// Marks the first unacknowledged segment lost (NewReno's head, an early
    /// retransmit). True if it was not already.
    pub fn mark_head_lost(&mut self) -> bool {
        self.mark_lost(self.una)
    }

    /// Marks one segment lost (NewReno's head, or IsLost). True if it was not already.
    pub fn mark_lost(&mut self, seq: u64) -> bool {
        if seq < self.una || seq >= self.nxt() {
            return false;
        }
        if self.get(seq).has(LOST) {
            return false;
        }
        self.mark_transmission_lost(seq)
    }

    /// Marks the latest transmission of segment `seq` lost, a retransmission
    /// included, which is then due to be sent again (RACK, Linux
    /// tcp_mark_skb_lost). True if it was not already lost.
    pub fn mark_transmission_lost(&mut self, seq: u64) -> bool {
        let s = self.get(seq);
        if s.has(SACKED) || (s.has(LOST) && !s.has(RETRANS)) {
            return false;
        }
        self.set_lost(seq);
        self.lost_pending += 1;
        self.retransmit_hint = self.retransmit_hint.min(seq);
        true
    }

    /// Linux tcp_mark_lost_retrans (2.6.22 to 4.3, before RACK took it over):
    /// an outstanding retransmission is lost when a segment first sent after
    /// it has been SACKed, and is then retransmitted again. Without this only
    /// the retransmission timer recovers a lost retransmission. Returns how
    /// many were marked.
    pub fn mark_lost_retransmissions(&mut self) -> u32 {
        if self.retrans_out == 0 || self.highest_sacked_end <= self.lost_retrans_low {
            return 0;
        }
        let mut newly = 0;
        let mut still_out = 0;
        let mut new_low = u64::MAX;
        let mut seq = self.una;
        while seq < self.nxt() && still_out < self.retrans_out {
            let s = self.get(seq);
            if s.has(RETRANS) {
                if self.highest_sacked_end > s.nxt_at_retransmit {
                    // Due for another retransmission (a loss probe's segment,
                    // not marked lost before, now is).
                    self.mark_transmission_lost(seq);
                    newly += 1;
                } else {
                    new_low = new_low.min(s.nxt_at_retransmit);
                    still_out += 1;
                }
            }
            seq += 1;
        }
        self.lost_retrans_low = if self.retrans_out == 0 { u64::MAX } else { new_low };
        newly
    }

    /// Linux tcp_use_frto without SACK: no segment after the head was
    /// retransmitted, looking up to the first one not SACKed.
    pub fn only_head_may_be_retransmitted(&self) -> bool {
        for s in self.segs.iter().skip(1) {
            if s.has(EVER_RETRANS) {
                return false;
            }
            if !s.has(SACKED) {
                break;
            }
        }
        true
    }

    /// Whether a segment still outstanding was ever retransmitted.
    pub fn any_ever_retransmitted(&self) -> bool {
        self.segs.iter().any(|s| s.has(EVER_RETRANS))
    }

    /// Segment `seq` is lost, and a retransmission of it in flight no longer
    /// counts as in flight (Linux tcp_mark_skb_lost's flag updates).
    fn set_lost(&mut self, seq: u64) {
        let s = &mut self.segs[(seq - self.una) as usize];
        // A transmission is newly lost: the segment's first, or a retransmission out.
        self.lost_marks += (!s.has(LOST) || s.has(RETRANS)) as u64;
        if s.has(RETRANS) {
            s.flags &= !RETRANS;
            self.retrans_out -= 1;
        }
        if !s.has(LOST) {
            s.flags |= LOST;
            self.lost_out += 1;
        }
    }

    /// After a retransmission timeout: every segment not SACKed is lost.
    pub fn mark_all_lost(&mut self) {
        for seq in self.una..self.nxt() {
            if !self.get(seq).has(SACKED) {
                self.set_lost(seq);
            }
        }
        self.lost_pending = self.lost_out;
        self.retransmit_hint = self.una;
    }

    /// The lowest lost segment not yet retransmitted.
    pub fn next_to_retransmit(&mut self) -> Option<u64> {
        if self.lost_pending == 0 {
            return None;
        }
        let nxt = self.nxt();
        let mut seq = self.retransmit_hint.max(self.una);
        while seq < nxt {
            let s = self.get(seq);
            if s.has(LOST) && !s.has(RETRANS) {
                self.retransmit_hint = seq;
                return Some(seq);
            }
            seq += 1;
        }
        None
    }

    /// Records the retransmission of segment `seq`: a lost one, or (a tail
    /// loss probe) one still outstanding and not SACKed, which is then in
    /// flight twice, as Linux counts it (retrans_out).
    pub fn on_retransmit(&mut self, seq: u64, now: Nanos, tx: TxSnapshot) {
        let nxt = self.nxt();
        let s = &mut self.segs[(seq - self.una) as usize];
        debug_assert!(!s.has(SACKED));
        // Lost segments are retransmitted; so are the head after a timeout
        // that F-RTO handles (frto.rs) and a loss probe's segment (tlp.rs),
        // without being marked lost, the probe's possibly a second time.
        let already_out = s.has(RETRANS);
        if s.has(LOST) && !already_out {
            self.lost_pending -= 1;
        }
        s.flags |= RETRANS | EVER_RETRANS;
        s.sent_at = now;
        s.tx = tx;
        s.nxt_at_retransmit = nxt;
        self.lost_retrans_low = self.lost_retrans_low.min(s.nxt_at_retransmit);
        if !already_out {
            self.retrans_out += 1;
        }
    }

    /// Forgets that segment `seq`'s retransmission is out, without judging it
    /// lost (Linux tcp_enter_frto on the head: its SACKED_RETRANS bit goes).
    pub fn forget_retransmission(&mut self, seq: u64) {
        if seq < self.una || seq >= self.nxt() {
            return;
        }
        let s = &mut self.segs[(seq - self.una) as usize];
        if s.has(RETRANS) {
            s.flags &= !RETRANS;
            self.retrans_out -= 1;
            if s.has(LOST) {
                self.lost_pending += 1;
                self.retransmit_hint = self.retransmit_hint.min(seq);
            }
        }
    }

    /// After F-RTO decided the timeout was real (Linux tcp_enter_frto_loss):
    /// every segment not SACKed is lost and due for retransmission, except
    /// that the head keeps its timeout retransmission when `keep_head_retransmission`.
    /// Returns whether another segment had been retransmitted before (then
    /// no undo is possible).
    pub fn mark_all_lost_after_frto(&mut self, keep_head_retransmission: bool) -> bool {
        let mut other_retransmitted = false;
        self.lost_out = 0;
        self.retrans_out = 0;
        self.lost_pending = 0;
        for (i, s) in self.segs.iter_mut().enumerate() {
            s.flags &= !LOST;
            if i == 0 && keep_head_retransmission {
                if s.has(RETRANS) {
                    self.retrans_out += 1;
                }
            } else {
                other_retransmitted |= s.has(EVER_RETRANS);
                s.flags &= !RETRANS;
            }
            if !s.has(SACKED) {
                s.flags |= LOST;
                self.lost_out += 1;
                if !s.has(RETRANS) {
                    self.lost_pending += 1;
                }
            }
        }
        self.retransmit_hint = self.una;
        self.scan = self.una;
        self.sacked_below_scan = 0;
        self.lost_retrans_low = u64::MAX;
        other_retransmitted
    }

    /// The reordering degree assumed again after a timeout (Linux
    /// tcp_enter_frto_loss: min(reordering, sysctl_tcp_reordering)).
    pub fn forget_reordering(&mut self) {
        self.reordering = self.reordering.min(DUPTHRESH);
    }

    /// Raises the reordering degree to `degree` segments (Linux
    /// tcp_update_reordering: it only grows, up to tcp_max_reordering).
    pub fn raise_reordering(&mut self, degree: u32) {
        if degree > self.reordering {
            self.fack = false; // Linux tcp_disable_fack
        }
        self.reordering = self.reordering.max(degree.min(MAX_REORDERING));
    }

    /// Without SACK: a partial ACK that the delayed original filled (Linux
    /// tcp_check_sack_reordering from tcp_try_undo_partial). Since 5.5 ("tcp:
    /// fix highest_sack and highest_sack_seq") a SACK-less flow's
    /// highest_sack is the head of its queue, so the distance is measured
    /// from snd_una: the degree grows to the `cum_acked` segments this ACK
    /// covered, not to the whole flight.
    pub fn note_reno_reordering(&mut self, cum_acked: u32) {
        self.reordering_seen = true;
        self.raise_reordering(cum_acked);
    }

    /// Without SACK: a duplicate ACK stands for one segment that left the
    /// network (Linux tcp_add_reno_sack). Returns the segments it delivered:
    /// what sacked_out grew by, 0 once the count is at its limit (more
    /// duplicate ACKs than segments out beside the holes).
    pub fn add_reno_sack(&mut self) -> u32 {
        let prior = self.sacked_out;
        self.sacked_out += 1;
        self.check_reno_reordering(0);
        self.sacked_out.saturating_sub(prior)
    }

    /// Without SACK: `acked` segments were cumulatively ACKed; one filled the
    /// hole, the rest had already been counted by duplicate ACKs (Linux
    /// tcp_remove_reno_sacks). Returns the segments the ACK delivered: those
    /// no duplicate ACK counted, at least one.
    pub fn remove_reno_sacks(&mut self, acked: u32) -> u32 {
        let mut delivered = 0;
        if acked > 0 {
            delivered = acked.saturating_sub(self.sacked_out).max(1);
            self.sacked_out -= self.sacked_out.min(acked - 1);
        }
        self.check_reno_reordering(acked);
        delivered
    }

    /// Linux tcp_check_reno_reordering (with tcp_limit_reno_sacked): more
    /// duplicate ACKs than segments outstanding beside the holes can only
    /// come from reordering (or duplication): the count is cut back, and the
    /// reordering degree grows to the segments outstanding plus `addend`
    /// (those this ACK covered).
    fn check_reno_reordering(&mut self, addend: u32) {
        let packets_out = self.packets_out();
        let holes = self.lost_out.max(1).min(packets_out);
        if self.sacked_out + holes > packets_out {
            self.sacked_out = packets_out - holes;
            self.raise_reordering(packets_out + addend);
        }
    }

    /// Without SACK: forget the duplicate-ACK count (end of recovery).
    pub fn reset_reno_sacks(&mut self) {
        self.sacked_out = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Collects what `sack` reports.
    fn collect_into(v: &mut Vec<(u64, Segment)>) -> impl FnMut(u64, &Segment) + '_ {
        |seq, s| v.push((seq, *s))
    }

    /// Collects what `ack_to` reports, a run as its two ends and its count.
    fn collect_removed(v: &mut Vec<(u64, u64, u32)>) -> impl FnMut(Removed) + '_ {
        |r| v.push((r.first_seq, r.last_seq, r.count))
    }

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::new();
        for _ in 0..n {
            b.push_new(Segment::default());
        }
        b
    }

    #[test]
    fn hole_is_lost_after_three_sacks_above_it() {
        let mut b = board(10);
        let mut v = Vec::new();
        b.sack(1, 3, collect_into(&mut v));
        assert_eq!(b.mark_lost_by_sack(), 0);
        b.sack(3, 4, collect_into(&mut v));
        assert_eq!(b.mark_lost_by_sack(), 1);
        assert_eq!(b.next_to_retransmit(), Some(0));
        assert_eq!(b.in_flight(), 10 - 3 - 1);
        b.on_retransmit(0, 5, TxSnapshot::default());
        assert_eq!(b.in_flight(), 10 - 3);
        assert_eq!(b.next_to_retransmit(), None);
        let mut removed = Vec::new();
        let _ = b.ack_to(4, collect_removed(&mut removed));
        assert_eq!(removed, [(0, 0, 1), (1, 1, 1), (2, 2, 1), (3, 3, 1)], "none of them clean");
        assert_eq!((b.sacked_out, b.lost_out, b.retrans_out, b.in_flight()), (0, 0, 0, 6));
    }

    #[test]
    fn with_fack_one_sack_far_enough_above_the_holes_marks_them_lost() {
        // Segments 0-4 lost, 5 arrives: RFC 6675 waits for three SACKed
        // segments; FACK marks the first fackets_out - reordering = 6 - 3
        // at once (Linux tcp_mark_head_lost): 0, 1 and 2.
        let mut v = Vec::new();
        let mut b = board(10);
        b.sack(5, 6, collect_into(&mut v));
        assert_eq!(b.mark_lost_by_sack(), 0);
        let mut b = board(10);
        b.fack = true;
        b.sack(5, 6, collect_into(&mut v));
        assert_eq!(b.mark_lost_by_sack(), 3);
        assert_eq!((b.lost_out, b.next_to_retransmit()), (3, Some(0)));
        b.sack(6, 7, collect_into(&mut v));
        assert_eq!(b.mark_lost_by_sack(), 1, "segment 3 next");
    }

    #[test]
    fn seeing_reordering_turns_fack_off() {
        let mut b = board(10);
        b.fack = true;
        b.raise_reordering(3);
        assert!(b.fack, "not above the degree in use");
        b.raise_reordering(5);
        assert!(!b.fack, "Linux tcp_update_reordering -> tcp_disable_fack");
    }

    #[test]
    fn a_cumulative_ack_hands_over_clean_segments_as_runs() {
        let mut b = board(10);
        let mut v = Vec::new();
        b.sack(4, 5, collect_into(&mut v));
        let mut removed = Vec::new();
        let _ = b.ack_to(8, collect_removed(&mut removed));
        assert_eq!(removed, [(0, 3, 4), (4, 4, 1), (5, 7, 3)], "the SACKed segment 4 splits the run");
        assert_eq!((b.una(), b.sacked_out, b.in_flight()), (8, 0, 2));
    }

    #[test]
    fn a_retransmission_is_lost_again_once_later_data_is_sacked() {
        let mut b = board(6);
        let mut v = Vec::new();
        b.sack(1, 4, collect_into(&mut v));
        assert_eq!(b.mark_lost_by_sack(), 1);
        b.on_retransmit(0, 10, TxSnapshot::default());
        // Segments 4 and 5 were sent before the retransmission: their SACKs
        // say nothing about it.
        b.sack(4, 6, collect_into(&mut v));
        assert_eq!(b.mark_lost_retransmissions(), 0);
        assert_eq!(b.next_to_retransmit(), None);
        // New data sent after it (segment 6) arrives: the retransmission was lost.
        b.push_new(Segment::default());
        b.sack(6, 7, collect_into(&mut v));
        assert_eq!(b.mark_lost_retransmissions(), 1);
        assert_eq!((b.retrans_out, b.lost_out, b.in_flight()), (0, 1, 0));
        assert_eq!(b.next_to_retransmit(), Some(0));
        b.on_retransmit(0, 20, TxSnapshot::default());
        assert_eq!(b.mark_lost_retransmissions(), 0, "the new retransmission went out after segment 6");
        assert_eq!(b.in_flight(), 1);
    }

    #[test]
    fn every_transmission_marked_lost_counts_once_a_lost_retransmission_again() {
        // Linux tp->lost (tcp_mark_skb_lost): a segment marked lost counts;
        // marking it again while its retransmission is out counts again (that
        // transmission was lost too); marking what is already lost does not.
        let mut b = board(6);
        assert!(b.mark_head_lost());
        assert!(!b.mark_head_lost());
        assert_eq!(b.lost_marks, 1);
        b.on_retransmit(0, 10, TxSnapshot::default());
        assert!(b.mark_transmission_lost(0));
        assert_eq!((b.lost_marks, b.lost_out, b.retrans_out), (2, 1, 0));
        b.mark_all_lost();
        assert_eq!((b.lost_marks, b.lost_out), (7, 6), "segment 0 was lost already");
    }

    #[test]
    fn a_late_original_segment_raises_dupthresh_to_the_reordering_seen() {
        let mut b = board(20);
        let mut v = Vec::new();
        // Segments 1..=6 arrive before segment 0: 0 is lost by DupThresh 3.
        b.begin_ack();
        b.sack(1, 7, collect_into(&mut v));
        b.end_ack();
        assert_eq!(b.mark_lost_by_sack(), 1);
        // Then 0 itself arrives (it was never retransmitted): it was
        // reordered by 7 segments, not lost.
        b.begin_ack();
        let _ = b.ack_to(7, |_: Removed| {});
        b.end_ack();
        assert_eq!(b.reordering, 7);
        // Now a hole needs 7 SACKed segments above it.
        b.begin_ack();
        b.sack(8, 14, collect_into(&mut v));
        b.end_ack();
        assert_eq!(b.mark_lost_by_sack(), 0, "6 SACKed above segment 7");
        b.begin_ack();
        b.sack(14, 15, collect_into(&mut v));
        b.end_ack();
        assert_eq!(b.mark_lost_by_sack(), 1);
        assert_eq!(b.next_to_retransmit(), Some(7));
        // Blocks of one ACK do not count against each other.
        let mut c = board(10);
        c.begin_ack();
        c.sack(5, 6, collect_into(&mut v));
        c.sack(1, 2, collect_into(&mut v));
        c.end_ack();
        assert_eq!(c.reordering, DUPTHRESH);
        // A timeout with many SACKed and no recovery forgets what was learned.
        b.on_timeout_without_recovery();
        assert_eq!(b.reordering, DUPTHRESH);
    }

    #[test]
    fn timeout_marks_everything_not_sacked() {
        let mut b = board(6);
        let mut v = Vec::new();
        b.sack(2, 3, collect_into(&mut v));
        b.mark_all_lost();
        assert_eq!((b.lost_out, b.sacked_out, b.in_flight()), (5, 1, 0));
        assert_eq!(b.next_to_retransmit(), Some(0));
        b.on_retransmit(0, 1, TxSnapshot::default());
        assert_eq!(b.next_to_retransmit(), Some(1));
    }
}
