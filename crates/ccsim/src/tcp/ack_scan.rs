//! The scoreboard step of an ACK (Linux tcp_sacktag_write_queue, then
//! tcp_clean_rtx_queue): the SACK blocks tag the newly SACKed segments, the
//! cumulative ACK removes those below it, and each segment delivered feeds
//! the rate sample and RACK. What the step learned, the ACK's flags and its
//! RTT samples, is an `AckSummary`: the steps after it (RTT estimate,
//! congestion control, recovery, F-RTO) read that and never the segments.
//! A D-SACK is the sender's to count (dsack.rs), before this step.

use super::rack::Rack;
use super::rate::RateSampler;
use super::scoreboard::{OnRemoved, Removed, Scoreboard, EVER_RETRANS, SACKED};
use crate::net::packet::SackBlock;
use crate::time::Nanos;

/// What one ACK did, as Linux's tcp_ack flags (FLAG_*) tell F-RTO and the undo.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AckFlags {
    /// snd_una advanced (FLAG_SND_UNA_ADVANCED / FLAG_DATA_ACKED).
    pub data_acked: bool,
    /// Segments acknowledged cumulatively.
    pub cum_acked: u32,
    /// Segments newly SACKed (FLAG_DATA_SACKED).
    pub data_sacked: bool,
    /// No progress at all: a duplicate ACK.
    pub dupack: bool,
    /// A segment never retransmitted and sent before the recovery point was
    /// (S)ACKed (FLAG_ORIG_SACK_ACKED, 3.10+).
    pub orig_acked_below_high_seq: bool,
    /// A newly SACKed segment never retransmitted lies below the F-RTO
    /// highmark (FLAG_ONLY_ORIG_SACKED, RFC 4138 variant).
    pub orig_sacked_below_highmark: bool,
    /// A retransmitted segment was cumulatively ACKed (FLAG_RETRANS_DATA_ACKED).
    pub retrans_acked: bool,
    /// ... and it was not the first segment this ACK covered (FLAG_NONHEAD_RETRANS_ACKED).
    pub nonhead_retrans_acked: bool,
    /// The first SACK block reports a duplicate segment (FLAG_DSACKING_ACK).
    pub dsack: bool,
}

/// What the scoreboard step learned of one ACK.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct AckSummary {
    pub flags: AckFlags,
    /// The ACK SACKed segments that were not SACKed before.
    pub newly_sacked: bool,
    /// RTT of the newest never-retransmitted segment newly SACKed.
    pub sack_rtt: Option<Nanos>,
    /// RTT of the oldest and of the newest never-retransmitted segment
    /// cumulatively ACKed; none when the ACK also covered retransmitted data
    /// (see `AckScan::run`).
    pub oldest_rtt: Option<Nanos>,
    pub newest_rtt: Option<Nanos>,
}

/// The sender's parts the scoreboard step updates, and what it reads of the
/// rest of the sender.
pub(super) struct AckScan<'a> {
    pub sb: &'a mut Scoreboard,
    pub rate: &'a mut RateSampler,
    pub rack: &'a mut Rack,
    pub now: Nanos,
    pub min_rtt: Option<Nanos>,
    /// The episode's recovery point and F-RTO's highmark, which the flags
    /// compare the delivered segments with.
    pub high_seq: u64,
    pub frto_highmark: u64,
    /// RACK is on: it learns of every delivery.
    pub rack_on: bool,
    pub sack_on: bool,
    /// The ACK's timestamp echo (0 without timestamps).
    pub ack_tsecr: Nanos,
}

impl AckScan<'_> {
    /// The ACK of `ack_seq` with its SACK blocks `sack` (none without SACK);
    /// `prior_una` is snd_una before it. The scoreboard's `begin_ack` comes
    /// before (and a D-SACK's count, which reads the tags of before).
    #[inline(always)]
    pub(super) fn run(mut self, ack_seq: u64, sack: &[SackBlock], prior_una: u64) -> AckSummary {
        let mut summary = AckSummary::default();
        let prior_sacked_out = self.sb.sacked_out;
        // Most ACKs carry no blocks: their tagging stays out of line.
        if !sack.is_empty() {
            summary.sack_rtt = self.tag_sack_blocks(sack, &mut summary.flags);
        }
        summary.newly_sacked = self.sb.sacked_out > prior_sacked_out;
        let scan = self.sb.ack_to(
            ack_seq,
            CleanRtx {
                rate: &mut *self.rate,
                rack: &mut *self.rack,
                now: self.now,
                min_rtt: self.min_rtt,
                high_seq: self.high_seq,
                rack_on: self.rack_on,
                sack_on: self.sack_on,
                ack_tsecr: self.ack_tsecr,
                first_acked: true,
                nonhead_retrans_acked: false,
                orig_acked_below_high_seq: false,
                retransmitted_data_acked: false,
                oldest_rtt: None,
                newest_rtt: None,
            },
        );
        let flags = &mut summary.flags;
        flags.nonhead_retrans_acked |= scan.nonhead_retrans_acked;
        flags.orig_acked_below_high_seq |= scan.orig_acked_below_high_seq;
        if self.sack_on {
            self.sb.end_ack();
        }
        // Linux tcp_clean_rtx_queue (FLAG_RETRANS_DATA_ACKED): a cumulative
        // ACK that also covers retransmitted data gives no RTT sample of its
        // own, since the segments above the hole may have waited for the
        // retransmission (their SACKs can have been crowded out of the three
        // blocks an ACK carries); the timestamp echo measures it instead.
        if !scan.retransmitted_data_acked {
            (summary.oldest_rtt, summary.newest_rtt) = (scan.oldest_rtt, scan.newest_rtt);
        }
        let acked_new = self.sb.una() > prior_una;
        flags.data_acked = acked_new;
        flags.cum_acked = (self.sb.una() - prior_una) as u32;
        flags.retrans_acked = scan.retransmitted_data_acked;
        flags.dupack = !acked_new && !flags.data_sacked;
        summary
    }

    /// The ACK's SACK blocks (Linux tcp_sacktag_write_queue): each newly
    /// SACKed segment is delivered (rate sample, RACK, `flags`); returns the
    /// RTT of the newest never-retransmitted one.
    #[inline(never)]
    fn tag_sack_blocks(&mut self, sack: &[SackBlock], flags: &mut AckFlags) -> Option<Nanos> {
        let (now, min_rtt, rack_on) = (self.now, self.min_rtt, self.rack_on);
        let (high_seq, frto_highmark) = (self.high_seq, self.frto_highmark);
        let mut sack_rtt = None;
        let rate = &mut *self.rate;
        let rack = &mut *self.rack;
        for b in sack {
            self.sb.sack(b.start, b.end, |seq, s| {
                rate.on_delivered(now, 1, s.sent_at, &s.tx);
                flags.data_sacked = true;
                if rack_on {
                    rack.on_delivered(seq, s, now, min_rtt);
                }
                if !s.has(EVER_RETRANS) {
                    sack_rtt = Some(now - s.sent_at);
                    flags.orig_acked_below_high_seq |= seq < high_seq;
                    flags.orig_sacked_below_highmark |= seq < frto_highmark;
                }
            });
        }
        sack_rtt
    }
}

/// The scan of the segments a cumulative ACK removes (Linux
/// tcp_clean_rtx_queue): what `AckScan::run` hands `Scoreboard::ack_to`,
/// by value, with what it needs to know and what it learns.
struct CleanRtx<'a> {
    rate: &'a mut RateSampler,
    rack: &'a mut Rack,
    now: Nanos,
    min_rtt: Option<Nanos>,
    high_seq: u64,
    rack_on: bool,
    /// Without SACK the duplicate ACKs counted most of these deliveries
    /// already (Linux tcp_clean_rtx_queue counts only with SACK; the rest is
    /// remove_reno_sacks' in `Sender::on_ack`); their rate sample is taken all the same.
    sack_on: bool,
    ack_tsecr: Nanos,
    first_acked: bool,
    nonhead_retrans_acked: bool,
    orig_acked_below_high_seq: bool,
    retransmitted_data_acked: bool,
    /// The RTT of the oldest and of the newest never-retransmitted segment removed.
    oldest_rtt: Option<Nanos>,
    newest_rtt: Option<Nanos>,
}

impl OnRemoved for CleanRtx<'_> {
    /// A run of clean segments (scoreboard::Removed) went out in order: the
    /// rate sample and RACK take its last, the oldest RTT its first.
    #[inline(always)]
    fn removed(&mut self, r: Removed) {
        let s = r.last;
        if s.has(EVER_RETRANS) {
            self.nonhead_retrans_acked |= !self.first_acked;
        }
        self.first_acked = false;
        if s.has(SACKED) {
            return;
        }
        self.rate.on_delivered(self.now, if self.sack_on { r.count } else { 0 }, s.sent_at, &s.tx);
        // Linux tcp_skb_spurious_retrans: an ACK echoing a timestamp older
        // than the retransmission was for the original, so RACK does not
        // take the retransmission's send time.
        let original_arrived = s.has(EVER_RETRANS) && self.ack_tsecr > 0 && self.ack_tsecr < s.sent_at;
        if self.rack_on && !original_arrived {
            self.rack.on_delivered(r.last_seq, s, self.now, self.min_rtt);
        }
        if s.has(EVER_RETRANS) {
            self.retransmitted_data_acked = true;
        } else {
            self.orig_acked_below_high_seq |= r.first_seq < self.high_seq;
            self.oldest_rtt.get_or_insert(self.now - r.first.sent_at);
            self.newest_rtt = Some(self.now - s.sent_at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::scoreboard::Segment;
    use crate::time::NS_PER_MS;

    /// The parts of a sender the step updates.
    struct Flow {
        sb: Scoreboard,
        rate: RateSampler,
        rack: Rack,
    }

    /// `n` segments out, segment k sent at k ms.
    fn flow(n: u64) -> Flow {
        let mut f = Flow { sb: Scoreboard::new(), rate: RateSampler::new(false), rack: Rack::default() };
        for k in 0..n {
            let tx = f.rate.on_send(k * NS_PER_MS, f.sb.packets_out());
            f.sb.push_new(Segment { sent_at: k * NS_PER_MS, tx, flags: 0, nxt_at_retransmit: 0 });
        }
        f
    }

    /// The step for an ACK of `ack` with SACK blocks `sack` at `now_ms`,
    /// the recovery point at segment 4.
    fn scan(f: &mut Flow, now_ms: u64, ack: u64, sack: &[(u64, u64)]) -> AckSummary {
        let blocks: Vec<SackBlock> = sack.iter().map(|&(start, end)| SackBlock { start, end }).collect();
        let prior_una = f.sb.una();
        f.sb.begin_ack();
        AckScan {
            sb: &mut f.sb,
            rate: &mut f.rate,
            rack: &mut f.rack,
            now: now_ms * NS_PER_MS,
            min_rtt: None,
            high_seq: 4,
            frto_highmark: 0,
            rack_on: true,
            sack_on: true,
            ack_tsecr: 0,
        }
        .run(ack, &blocks, prior_una)
    }

    #[test]
    fn a_sack_is_timed_by_its_newest_original_segment() {
        let mut f = flow(10);
        let s = scan(&mut f, 100, 0, &[(3, 5)]);
        assert!(s.flags.data_sacked && s.newly_sacked && !s.flags.dupack);
        assert!(s.flags.orig_acked_below_high_seq, "segment 3 is below the recovery point");
        assert_eq!((s.flags.data_acked, s.flags.cum_acked), (false, 0));
        assert_eq!(s.sack_rtt, Some(96 * NS_PER_MS), "segment 4, sent at 4 ms");
        assert_eq!((s.oldest_rtt, s.newest_rtt), (None, None));
        // The same block again SACKs nothing new: a duplicate ACK.
        let s = scan(&mut f, 101, 0, &[(3, 5)]);
        assert!(!s.newly_sacked && s.flags.dupack && s.sack_rtt.is_none());
        // Above the recovery point: no original below it.
        let s = scan(&mut f, 102, 0, &[(3, 7)]);
        assert!(s.newly_sacked && !s.flags.orig_acked_below_high_seq);
    }

    #[test]
    fn a_cumulative_ack_is_timed_by_its_oldest_and_newest_segments() {
        let mut f = flow(10);
        let s = scan(&mut f, 100, 3, &[]);
        assert_eq!((s.flags.data_acked, s.flags.cum_acked, s.flags.dupack), (true, 3, false));
        assert_eq!((s.oldest_rtt, s.newest_rtt), (Some(100 * NS_PER_MS), Some(98 * NS_PER_MS)));
        assert!(s.flags.orig_acked_below_high_seq && !s.flags.retrans_acked);
        assert_eq!(f.sb.una(), 3);
    }

    #[test]
    fn a_cumulative_ack_over_a_retransmission_gives_no_rtt_sample() {
        let mut f = flow(10);
        let tx = f.rate.on_send(50 * NS_PER_MS, f.sb.packets_out());
        f.sb.on_retransmit(1, 50 * NS_PER_MS, tx);
        let s = scan(&mut f, 100, 3, &[]);
        assert!(s.flags.retrans_acked && s.flags.nonhead_retrans_acked, "segment 1 is not the head");
        assert_eq!((s.oldest_rtt, s.newest_rtt), (None, None));
        // The head retransmitted: FLAG_NONHEAD_RETRANS_ACKED stays clear.
        let mut f = flow(10);
        let tx = f.rate.on_send(50 * NS_PER_MS, f.sb.packets_out());
        f.sb.on_retransmit(0, 50 * NS_PER_MS, tx);
        let s = scan(&mut f, 100, 1, &[]);
        assert!(s.flags.retrans_acked && !s.flags.nonhead_retrans_acked);
    }
}
