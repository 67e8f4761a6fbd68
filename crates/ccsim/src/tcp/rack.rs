//! RACK loss detection by time (RFC 8985 section 6; Linux
//! net/ipv4/tcp_recovery.c, tcp_rack_*): a segment is lost once a segment
//! sent after it has been delivered (SACKed or cumulatively ACKed) and more
//! than RACK.rtt + reo_wnd has passed since it was sent. For SACK flows it
//! replaces RFC 6675's DupThresh marking, as Linux does since 4.18
//! (tcp_recovery = 1); flows without SACK keep counting duplicate ACKs.
//!
//! - RACK.xmit_ts / RACK.end_seq: the most recently sent segment delivered
//!   so far; RACK.rtt: the RTT of the most recently sent segment each ACK
//!   delivered (a retransmission ACKed in less than min_rtt is ambiguous,
//!   probably its original's ACK, and ignored, Linux tcp_rack_advance).
//! - reo_wnd: min_rtt / 4 times a multiplier that DSACKs raise (6.2 step 4),
//!   at most SRTT; zero while no reordering has been seen and the flow is in
//!   recovery or has DupThresh segments SACKed (Linux tcp_rack_reo_wnd), so
//!   RACK is as quick as the duplicate-ACK rule there.
//! - The scan visits the transmissions in send order (Linux
//!   tsorted_sent_queue) and stops at the first one not sent before
//!   RACK.xmit_ts, so an ACK costs O(1) amortized when nothing is reordered.
//!   First transmissions go out in sequence order, so the scoreboard already
//!   holds them in send order: only retransmissions are kept in a list of
//!   their own, each with SND.NXT when it was sent (the first transmissions
//!   sent before it), and the scan walks both as the one list they make. That
//!   matters where a scan stops: Linux stops at the first transmission in
//!   send order that was not sent before RACK.xmit_ts, so of a new segment
//!   and a retransmission sent in the same instant, the one sent first
//!   decides.
//! - A segment not yet overdue arms the reordering timer for the time it
//!   has left (plus Linux's 2 ms TCP_TIMEOUT_MIN); when it fires the scan
//!   runs again (tcp_rack_reo_timeout).

use super::scoreboard::{Scoreboard, Segment, EVER_RETRANS, LOST, RETRANS, SACKED};
use crate::time::{Nanos, NS_PER_MS};
use std::collections::VecDeque;

/// Linux TCP_TIMEOUT_MIN (2 jiffies), added to the reordering timer.
const TIMER_SLACK_NS: Nanos = 2 * NS_PER_MS;
/// RFC 8985 6.2 step 4 (Linux TCP_RACK_RECOVERY_THRESH): recoveries a
/// widened reordering window lasts after the last DSACK that widened it.
const REO_WND_PERSIST: u32 = 16;
/// Linux caps reo_wnd_steps at 255.
const MAX_REO_WND_MULT: u32 = 255;

/// `(t1, seq1)` was sent after `(t2, seq2)`: later, or at the same time and
/// higher in sequence (RFC 8985 RACK_sent_after).
fn sent_after(t1: Nanos, seq1: u64, t2: Nanos, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

pub struct Rack {
    /// Retransmissions in send order; entries whose segment was since
    /// delivered, marked lost or sent again are stale and dropped when they
    /// reach the front.
    retransmitted: VecDeque<Retransmission>,
    /// Segments below this one need no scan of their first transmission
    /// again (delivered, lost, or sent again); the scan of first
    /// transmissions starts here or at SND.UNA.
    first_scan_from: u64,
    /// RACK.xmit_ts and RACK.end_seq (as the segment's index): the most
    /// recently sent segment delivered (None before any).
    newest_delivered: Option<(Nanos, u64)>,
    /// RACK.rtt.
    rtt_ns: Nanos,
    /// The most recently sent segment the current ACK delivered.
    newest_this_ack: Option<(Nanos, u64)>,
    /// Something was delivered since the last scan (Linux rack.advanced).
    advanced: bool,
    /// RACK.reo_wnd_mult, RACK.reo_wnd_persist and RACK.dsack_round.
    reo_wnd_mult: u32,
    reo_wnd_persist: u32,
    dsack_round: Option<u64>,
    /// The reordering timer.
    pub timer_at: Option<Nanos>,
}

/// A retransmission of segment `seq` at `sent_at`, sent after the first
/// transmissions of the segments below `snd_nxt` and before the others.
#[derive(Clone, Copy)]
struct Retransmission {
    seq: u64,
    sent_at: Nanos,
    snd_nxt: u64,
}

impl Default for Rack {
    fn default() -> Rack {
        Rack {
            retransmitted: VecDeque::new(),
            first_scan_from: 0,
            newest_delivered: None,
            rtt_ns: 0,
            newest_this_ack: None,
            advanced: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: 0,
            dsack_round: None,
            timer_at: None,
        }
    }
}

impl Rack {
    /// Segment `seq` was sent again at `now`, when the next new segment was
    /// `snd_nxt` (first transmissions are the scoreboard's).
    #[inline]
    pub fn on_retransmit(&mut self, seq: u64, now: Nanos, snd_nxt: u64) {
        self.retransmitted.push_back(Retransmission { seq, sent_at: now, snd_nxt });
    }

    /// Rebuilds the scan's state from the scoreboard, after an undo took the
    /// LOST marks away from segments the scan had let go; the next scan
    /// judges them again (Linux tcp_undo_cwnd_reduction sets rack.advanced).
    pub fn resync(&mut self, sb: &Scoreboard) {
        self.advanced = true;
        let mut outstanding: Vec<Retransmission> = (sb.una()..sb.nxt())
            .filter(|&seq| sb.get(seq).has(EVER_RETRANS) && !sb.get(seq).has(SACKED))
            .map(|seq| Retransmission { seq, sent_at: sb.get(seq).sent_at, snd_nxt: sb.get(seq).nxt_at_retransmit })
            .collect();
        outstanding.sort_by_key(|r| (r.sent_at, r.seq));
        self.retransmitted.clear();
        self.retransmitted.extend(outstanding);
        self.first_scan_from = sb.una();
    }

    /// Segment `seq` was newly SACKed or cumulatively ACKed by the ACK being
    /// processed (RFC 8985 RACK_update, Linux tcp_rack_advance). Of a run of
    /// clean segments (scoreboard::Removed) only the last, sent after the
    /// others, needs to be reported.
    #[inline]
    pub fn on_delivered(&mut self, seq: u64, s: &Segment, now: Nanos, min_rtt: Option<Nanos>) {
        if s.has(EVER_RETRANS) && min_rtt.is_some_and(|m| now - s.sent_at < m) {
            return;
        }
        self.advanced = true;
        if self.newest_this_ack.is_none_or(|(t, q)| sent_after(s.sent_at, seq, t, q)) {
            self.newest_this_ack = Some((s.sent_at, seq));
        }
    }

    /// After an ACK's deliveries: RACK.rtt from the most recently sent one,
    /// RACK.xmit_ts / end_seq advance if it was sent after them. Also ends a
    /// DSACK round once SND.UNA passes it (6.2 step 4).
    pub fn end_ack(&mut self, now: Nanos, snd_una: u64) {
        if let Some((sent_at, seq)) = self.newest_this_ack.take() {
            self.rtt_ns = now - sent_at;
            if self.newest_delivered.is_none_or(|(t, q)| sent_after(sent_at, seq, t, q)) {
                self.newest_delivered = Some((sent_at, seq));
            }
        }
        if self.dsack_round.is_some_and(|round| snd_una >= round) {
            self.dsack_round = None;
        }
    }

    /// A DSACK arrived (RFC 8985 6.2 step 4): widen the reordering window by
    /// one more min_rtt / 4, at most once per round trip, and keep it wide
    /// for the next 16 recoveries.
    pub fn on_dsack(&mut self, snd_una: u64, snd_nxt: u64) {
        if self.dsack_round.is_some_and(|round| snd_una >= round) {
            self.dsack_round = None;
        }
        if self.dsack_round.is_none() {
            self.dsack_round = Some(snd_nxt);
            self.reo_wnd_mult = (self.reo_wnd_mult + 1).min(MAX_REO_WND_MULT);
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// A fast recovery or a timeout recovery ended at its recovery point,
    /// not undone (6.2 step 4; Linux tcp_try_undo_recovery): after 16
    /// without a DSACK the window is back to one min_rtt / 4.
    pub fn on_recovery_exit(&mut self) {
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// Recoveries left before the window is narrow again.
    #[cfg(test)]
    pub fn recoveries_until_narrow(&self) -> u32 {
        self.reo_wnd_persist
    }

    /// RACK.reo_wnd (RFC 8985 6.2 step 4, Linux tcp_rack_reo_wnd).
    /// `dupthresh_sacked`: at least DupThresh segments are SACKed.
    pub fn reo_wnd(
        &self,
        min_rtt: Option<Nanos>,
        srtt: Option<Nanos>,
        in_recovery: bool,
        dupthresh_sacked: bool,
        reordering_seen: bool,
    ) -> Nanos {
        if !reordering_seen && (in_recovery || dupthresh_sacked) {
            return 0;
        }
        let wnd = min_rtt.unwrap_or(0) / 4 * self.reo_wnd_mult as Nanos;
        srtt.map_or(wnd, |s| wnd.min(s))
    }

    /// After an ACK (Linux tcp_rack_mark_lost): if it delivered anything,
    /// marks lost every segment sent before the most recently delivered one
    /// and overdue by RACK.rtt + `reo_wnd`; arms the reordering timer for
    /// those not yet overdue, or clears it. Returns how many were marked.
    pub fn mark_lost(&mut self, sb: &mut Scoreboard, now: Nanos, reo_wnd: Nanos) -> u32 {
        if !self.advanced {
            return 0;
        }
        self.advanced = false;
        let (newly, wait) = self.detect_loss(sb, now, reo_wnd);
        self.timer_at = (wait > 0).then_some(now + wait + TIMER_SLACK_NS);
        newly
    }

    /// The reordering timer fired (Linux tcp_rack_reo_timeout): the same
    /// scan; segments still not overdue wait for the next ACK or the RTO.
    pub fn on_timer(&mut self, sb: &mut Scoreboard, now: Nanos, reo_wnd: Nanos) -> u32 {
        self.timer_at = None;
        self.detect_loss(sb, now, reo_wnd).0
    }

    /// RFC 8985 RACK_detect_loss: returns the segments marked lost and the
    /// longest time one of the others has left (0: none waits).
    ///
    /// One walk in send order over the two lists: the first transmissions
    /// (the scoreboard, from `first_scan_from`) and the retransmissions, a
    /// retransmission coming after the first transmissions below its
    /// `snd_nxt`. It stops at the first current transmission not sent before
    /// the newest delivered one.
    fn detect_loss(&mut self, sb: &mut Scoreboard, now: Nanos, reo_wnd: Nanos) -> (u32, Nanos) {
        let Some((newest_sent_at, newest_seq)) = self.newest_delivered else { return (0, 0) };
        let mut verdicts = Verdicts { deadline_ns: self.rtt_ns + reo_wnd, now, newly: 0, wait: 0 };
        let mut seq = self.first_scan_from.max(sb.una());
        // No first transmission below `seq` needs judging again.
        let mut first_done_below = true;
        let mut i = 0;
        loop {
            let retransmission_next = self.retransmitted.get(i).is_some_and(|r| r.snd_nxt <= seq || seq >= sb.nxt());
            if retransmission_next {
                let r = self.retransmitted[i];
                let current = is_current_retransmission(sb, &r);
                if current && !sent_after(newest_sent_at, newest_seq, r.sent_at, r.seq) {
                    break;
                }
                let done = !current || verdicts.judge(sb, r.seq, r.sent_at);
                if done && i == 0 {
                    self.retransmitted.pop_front();
                } else {
                    i += 1;
                }
            } else if seq < sb.nxt() {
                let s = sb.get(seq);
                // Delivered, sent again (a retransmission now), or lost and not
                // yet sent again (Linux skips these): nothing to decide.
                if s.flags & (SACKED | LOST | EVER_RETRANS) == 0 {
                    if !sent_after(newest_sent_at, newest_seq, s.sent_at, seq) {
                        break;
                    }
                    first_done_below &= verdicts.judge(sb, seq, s.sent_at);
                }
                seq += 1;
                if first_done_below {
                    self.first_scan_from = seq;
                }
            } else {
                break;
            }
        }
        (verdicts.newly, verdicts.wait)
    }
}

/// What a scan decides of the transmissions sent before the newest delivered one.
struct Verdicts {
    deadline_ns: Nanos,
    now: Nanos,
    /// Segments marked lost.
    newly: u32,
    /// The longest time a transmission not yet overdue has left.
    wait: Nanos,
}

impl Verdicts {
    /// Segment `seq`'s transmission at `sent_at` is lost once RACK.rtt +
    /// reo_wnd has passed, else it waits. Returns whether it was marked.
    fn judge(&mut self, sb: &mut Scoreboard, seq: u64, sent_at: Nanos) -> bool {
        let waited = self.now - sent_at;
        if waited >= self.deadline_ns {
            self.newly += sb.mark_transmission_lost(seq) as u32;
            true
        } else {
            self.wait = self.wait.max(self.deadline_ns - waited);
            false
        }
    }
}

/// Retransmission `r` is its segment's latest transmission, still to be
/// judged: not delivered, and not lost and waiting to be sent again (Linux
/// skips these).
fn is_current_retransmission(sb: &Scoreboard, r: &Retransmission) -> bool {
    r.seq >= sb.una() && r.seq < sb.nxt() && {
        let s = sb.get(r.seq);
        s.sent_at == r.sent_at && !s.has(SACKED) && (!s.has(LOST) || s.has(RETRANS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CaState;
    use crate::tcp::rate::TxSnapshot;
    use crate::tcp::scoreboard::Removed;

    const MS: Nanos = NS_PER_MS;

    /// `n` segments sent 1 ms apart from t = 0, and a Rack (which reads
    /// first transmissions from the scoreboard).
    fn sent(n: u64) -> (Scoreboard, Rack) {
        let mut sb = Scoreboard::new();
        for seq in 0..n {
            sb.push_new(Segment { sent_at: seq * MS, ..Segment::default() });
        }
        (sb, Rack::default())
    }

    fn sack(sb: &mut Scoreboard, rack: &mut Rack, now: Nanos, start: u64, end: u64) {
        sb.sack(start, end, |seq, s| rack.on_delivered(seq, s, now, Some(50 * MS)));
        rack.end_ack(now, sb.una());
    }

    #[test]
    fn one_segment_delivered_after_a_hole_marks_it_lost_once_the_window_passes() {
        let (mut sb, mut rack) = sent(5);
        // Segment 1 (sent at 1 ms) arrives 100 ms later; segment 0 does not.
        sack(&mut sb, &mut rack, 101 * MS, 1, 2);
        let reo_wnd = 25 * MS;
        assert_eq!(rack.mark_lost(&mut sb, 101 * MS, reo_wnd), 0, "segment 0 may only be reordered");
        // Segment 0 is due at 0 + rtt (100 ms) + reo_wnd (25 ms): 24 ms from now, plus the slack.
        assert_eq!(rack.timer_at, Some(101 * MS + 24 * MS + TIMER_SLACK_NS));
        assert_eq!(rack.on_timer(&mut sb, 127 * MS, reo_wnd), 1);
        assert_eq!((sb.lost_out, sb.next_to_retransmit()), (1, Some(0)));
        // Segments 2.. were sent after segment 1: nothing says they are lost.
        assert_eq!(sb.in_flight(), 3);
    }

    #[test]
    fn a_reordered_segment_delivered_within_the_window_is_not_marked() {
        let (mut sb, mut rack) = sent(5);
        sack(&mut sb, &mut rack, 101 * MS, 1, 3);
        assert_eq!(rack.mark_lost(&mut sb, 101 * MS, 25 * MS), 0);
        assert!(rack.timer_at.is_some());
        // Segment 0 arrives 10 ms late: the cumulative ACK covers it.
        let _ = sb.ack_to(3, |r: Removed| rack.on_delivered(r.last_seq, r.last, 111 * MS, Some(50 * MS)));
        rack.end_ack(111 * MS, sb.una());
        assert_eq!(rack.mark_lost(&mut sb, 111 * MS, 25 * MS), 0);
        assert_eq!(rack.timer_at, None);
        assert_eq!(sb.lost_out, 0);
    }

    #[test]
    fn after_an_undo_the_next_scan_judges_again_without_a_new_delivery() {
        // Linux tcp_undo_cwnd_reduction sets rack.advanced: the segments the
        // undo unmarked are judged on the undoing ACK, even one (a D-SACK)
        // that delivered nothing new.
        let (mut sb, mut rack) = sent(5);
        sack(&mut sb, &mut rack, 101 * MS, 1, 5);
        assert_eq!(rack.mark_lost(&mut sb, 101 * MS, 0), 1);
        sb.unmark_lost();
        rack.resync(&sb);
        assert_eq!(sb.lost_out, 0);
        assert_eq!(rack.mark_lost(&mut sb, 102 * MS, 0), 1);
    }

    #[test]
    fn a_lost_retransmission_is_found_by_the_time_it_was_sent() {
        let (mut sb, mut rack) = sent(5);
        sack(&mut sb, &mut rack, 101 * MS, 1, 5);
        assert_eq!(rack.mark_lost(&mut sb, 101 * MS, 0), 1);
        sb.on_retransmit(0, 101 * MS, TxSnapshot::default());
        rack.on_retransmit(0, 101 * MS, 5);
        // New data sent after the retransmission is delivered; the retransmission is not.
        sb.push_new(Segment { sent_at: 102 * MS, ..Segment::default() });
        sack(&mut sb, &mut rack, 202 * MS, 5, 6);
        assert_eq!(rack.mark_lost(&mut sb, 202 * MS, 0), 1);
        assert_eq!((sb.retrans_out, sb.next_to_retransmit()), (0, Some(0)));
    }

    /// Segment 0 lost and sent again at 110 ms in the same instant as new
    /// segments 3 and 4, after them or before them; then 3 is SACKed.
    /// Returns how many the scan at 300 ms marks lost.
    fn marked_after_same_instant_retransmission(retransmission_first: bool) -> u32 {
        let (mut sb, mut rack) = sent(3);
        sack(&mut sb, &mut rack, 101 * MS, 1, 3);
        assert_eq!(rack.mark_lost(&mut sb, 101 * MS, 0), 1);
        let t = 110 * MS;
        if retransmission_first {
            sb.on_retransmit(0, t, TxSnapshot::default());
            rack.on_retransmit(0, t, sb.nxt());
        }
        for _ in 3..5 {
            sb.push_new(Segment { sent_at: t, ..Segment::default() });
        }
        if !retransmission_first {
            sb.on_retransmit(0, t, TxSnapshot::default());
            rack.on_retransmit(0, t, sb.nxt());
        }
        sack(&mut sb, &mut rack, 300 * MS, 3, 4);
        rack.mark_lost(&mut sb, 300 * MS, 0)
    }

    #[test]
    fn of_a_retransmission_and_new_data_sent_in_one_instant_the_one_sent_first_decides() {
        // Sent before segment 3 (the same instant, a lower sequence): due.
        assert_eq!(marked_after_same_instant_retransmission(true), 1);
        // Sent after segment 4, which is not before segment 3 and stops the
        // scan first, as in Linux's send-ordered list.
        assert_eq!(marked_after_same_instant_retransmission(false), 0);
    }

    #[test]
    fn the_window_is_zero_in_recovery_until_reordering_is_seen_and_at_most_srtt() {
        let rack = Rack::default();
        let (min_rtt, srtt) = (Some(100 * MS), Some(120 * MS));
        assert_eq!(rack.reo_wnd(min_rtt, srtt, false, false, false), 25 * MS);
        assert_eq!(rack.reo_wnd(min_rtt, srtt, true, false, false), 0);
        assert_eq!(rack.reo_wnd(min_rtt, srtt, false, true, false), 0);
        assert_eq!(rack.reo_wnd(min_rtt, srtt, true, true, true), 25 * MS);
        assert_eq!(rack.reo_wnd(min_rtt, Some(10 * MS), false, false, false), 10 * MS);
    }

    #[test]
    fn dsacks_widen_the_window_once_per_round_trip_for_sixteen_recoveries() {
        let mut rack = Rack::default();
        let (min_rtt, srtt) = (Some(100 * MS), Some(1000 * MS));
        let wnd = |r: &Rack| r.reo_wnd(min_rtt, srtt, false, false, true);
        rack.on_dsack(0, 10);
        assert_eq!(wnd(&rack), 50 * MS);
        // A second DSACK before SND.UNA passes 10 belongs to the same round.
        rack.on_dsack(5, 12);
        assert_eq!(wnd(&rack), 50 * MS);
        rack.end_ack(0, 10);
        rack.on_dsack(10, 20);
        assert_eq!(wnd(&rack), 75 * MS);
        for _ in 0..15 {
            rack.on_recovery_exit();
        }
        assert_eq!(wnd(&rack), 75 * MS);
        rack.on_recovery_exit();
        assert_eq!(wnd(&rack), 25 * MS);
    }

    #[test]
    fn an_ambiguous_ack_of_a_retransmission_does_not_move_rack() {
        let (mut sb, mut rack) = sent(3);
        sack(&mut sb, &mut rack, 100 * MS, 2, 3);
        assert_eq!(rack.mark_lost(&mut sb, 100 * MS, 0), 2);
        sb.on_retransmit(0, 100 * MS, TxSnapshot::default());
        rack.on_retransmit(0, 100 * MS, 3);
        // 10 ms later (less than min_rtt) segment 0 is ACKed: the original's ACK, most likely.
        let _ = sb.ack_to(1, |r: Removed| rack.on_delivered(r.last_seq, r.last, 110 * MS, Some(50 * MS)));
        rack.end_ack(110 * MS, sb.una());
        assert_eq!(rack.newest_delivered, Some((2 * MS, 2)));
        assert_eq!(rack.rtt_ns, 98 * MS);
    }

    #[test]
    fn the_sender_retransmits_a_hole_followed_by_one_delivered_segment_after_the_window() {
        let mut d = crate::tcp::driver::Driver::modern("reno", 20);
        assert_eq!(d.start().len(), 20);
        // Segment 1 arrives, segment 0 does not: one duplicate ACK, far from
        // three; it lets one new segment go.
        assert_eq!(d.ack(100, 0, &[(1, 2)]), [20]);
        assert_eq!(d.s.ca_state(), CaState::Disorder);
        // RACK.rtt 100 ms, reo_wnd = min_rtt / 4 = 25 ms: the timer fires
        // when segment 0 has waited 125 ms (plus the 2 ms slack).
        assert_eq!(d.timeout(), [0]);
        assert_eq!(d.now, 1 + 125 * MS + TIMER_SLACK_NS);
        assert_eq!(d.s.ca_state(), CaState::Recovery);
        assert_eq!(d.s.stats.fast_recoveries, 1);
    }

    #[test]
    fn the_sender_does_not_retransmit_a_segment_reordered_within_the_window() {
        let mut d = crate::tcp::driver::Driver::modern("reno", 20);
        d.start();
        d.ack(100, 0, &[(1, 3)]);
        // Segment 0 arrives 20 ms late, within reo_wnd (25 ms).
        d.ack(20, 3, &[]);
        assert_eq!(d.s.ca_state(), CaState::Open);
        assert_eq!(d.s.loss.rack.timer_at, None);
        assert_eq!(d.s.stats.retransmitted_segments, 0);
    }

    #[test]
    fn without_rack_one_delivered_segment_leaves_the_hole_to_the_timeout() {
        let mut d = crate::tcp::driver::Driver::new("reno", 20);
        d.start();
        d.ack(100, 0, &[(1, 2)]);
        d.timeout();
        assert_eq!(d.s.stats.timeouts, 1);
    }
}
