//! How the window comes down to ssthresh during Recovery and CWR: RFC 6937
//! proportional rate reduction (Linux 3.2+ tcp_cwnd_reduction), or the rate
//! halving of the kernels before it (tcp_cwnd_down). A unit of its own, told
//! the window, the segments in flight and what each ACK delivered, so its
//! arithmetic is tested with hand-worked values and not through a whole flow.
//!
//! PRR keeps the data sent during the reduction in proportion to the data
//! delivered, `ssthresh / RecoverFS`, while the pipe is above ssthresh, so
//! the window reaches ssthresh as recovery ends without a burst or a stall.
//! Once losses take the pipe below ssthresh it grows back no faster than
//! slow start (the slow-start reduction bound, PRR-SSRB), or exactly as
//! fast as data is delivered when the ACK revealed a new loss (the
//! conservative bound, PRR-CRB, as Linux does on such ACKs).

use crate::cc::Window;

/// The state of one reduction (Linux tcp_sock's prior_cwnd, prr_delivered,
/// prr_out, and snd_cwnd_cnt as tcp_cwnd_down used it).
#[derive(Clone, Debug, Default)]
pub(super) struct Prr {
    /// The window when the reduction began (RFC 6937 RecoverFS, Linux
    /// prior_cwnd; 0: no reduction yet).
    recover_fs: u32,
    /// Segments delivered since the reduction began.
    delivered: u32,
    /// Segments sent since the reduction began.
    out: u32,
    /// Rate halving: the odd ACK not yet counted.
    halving_cnt: u32,
}

impl Prr {
    /// A reduction begins from a window of `prior_cwnd` (Linux
    /// tcp_init_cwnd_reduction).
    pub(super) fn start(&mut self, prior_cwnd: u32) {
        *self = Prr { recover_fs: prior_cwnd, delivered: 0, out: 0, halving_cnt: 0 };
    }

    /// A segment, new or retransmitted, went out during the reduction.
    pub(super) fn on_sent(&mut self) {
        self.out += 1;
    }

    /// RFC 6937 on an ACK that delivered `newly_delivered` segments, with
    /// `in_flight` segments in flight after it: sets `w.cwnd` so that the
    /// send loop sends what PRR allows. `una_advanced_without_loss`: the ACK
    /// advanced snd_una and marked nothing lost, which earns the slow-start
    /// bound its one extra segment (Linux FLAG_SND_UNA_ADVANCED without
    /// newly lost data).
    pub(super) fn reduce(
        &mut self,
        w: &mut Window,
        in_flight: u32,
        newly_delivered: u32,
        una_advanced_without_loss: bool,
    ) {
        if newly_delivered == 0 || self.recover_fs == 0 {
            return;
        }
        self.delivered += newly_delivered;
        let in_flight = in_flight as i64;
        let delta = w.ssthresh as i64 - in_flight;
        let mut sndcnt = if delta < 0 {
            // Proportional: ceil(ssthresh * prr_delivered / RecoverFS) - prr_out.
            let dividend = w.ssthresh as u64 * self.delivered as u64 + self.recover_fs as u64 - 1;
            (dividend / self.recover_fs as u64) as i64 - self.out as i64
        } else {
            // Slow-start reduction bound (PRR-SSRB), conservative without the +1.
            let mut s = (self.delivered as i64 - self.out as i64).max(newly_delivered as i64);
            if una_advanced_without_loss {
                s += 1;
            }
            s.min(delta)
        };
        // Force a fast retransmit on entering recovery.
        sndcnt = sndcnt.max(if self.out == 0 { 1 } else { 0 });
        w.cwnd = (in_flight + sndcnt).max(1) as u32;
    }

    /// Rate halving, the reduction of Linux before PRR (3.2): tcp_cwnd_down.
    /// On every ACK that delivers data the window falls by one segment per two
    /// ACKs while above the algorithm's floor (`min_cwnd`, tcp_cwnd_min: its
    /// min_cwnd, else ssthresh; asked only when the window falls), and never
    /// exceeds the segments in flight plus one, so the sender sends one
    /// segment per two delivered and never bursts when recovery ends.
    pub(super) fn rate_halve(
        &mut self,
        w: &mut Window,
        in_flight: u32,
        newly_delivered: u32,
        min_cwnd: impl FnOnce(&Window) -> u32,
    ) {
        if newly_delivered == 0 {
            return;
        }
        let decr = self.halving_cnt + 1;
        self.halving_cnt = decr & 1;
        let decr = decr >> 1;
        if decr > 0 && w.cwnd > min_cwnd(w) {
            w.cwnd -= decr;
        }
        w.cwnd = w.cwnd.min(in_flight + 1);
    }

    #[cfg(test)]
    pub(super) fn counts(&self) -> (u32, u32) {
        (self.delivered, self.out)
    }

    /// Tests: pretend `ahead` more segments went out than were delivered.
    #[cfg(test)]
    pub(super) fn send_ahead(&mut self, ahead: u32) {
        self.out = self.delivered + ahead;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window of `cwnd` with ssthresh `ssthresh`.
    fn window(cwnd: u32, ssthresh: u32) -> Window {
        Window { ssthresh, ..Window::new(cwnd) }
    }

    /// One ACK delivering `delivered` segments, then the sender sends all
    /// the window allows. Returns what it sent; `in_flight` follows.
    fn ack(prr: &mut Prr, w: &mut Window, in_flight: &mut u32, delivered: u32, una_advanced: bool) -> u32 {
        *in_flight -= delivered;
        prr.reduce(w, *in_flight, delivered, una_advanced);
        let sent = w.cwnd.saturating_sub(*in_flight);
        for _ in 0..sent {
            prr.on_sent();
        }
        *in_flight += sent;
        sent
    }

    #[test]
    fn one_loss_sends_one_segment_per_two_delivered() {
        // RFC 6937's first example: RecoverFS 20, ssthresh 10, one segment
        // lost, so 19 in flight, and each ACK delivers one. PRR sends
        // ceil(10 * prr_delivered / 20) - prr_out: 1, 0, 1, 0, ... (the
        // first one the fast retransmit), and the pipe falls by one per two ACKs.
        let (mut prr, mut w, mut in_flight) = (Prr::default(), window(20, 10), 19);
        prr.start(20);
        let sent: Vec<u32> = (0..6).map(|_| ack(&mut prr, &mut w, &mut in_flight, 1, false)).collect();
        assert_eq!(sent, [1, 0, 1, 0, 1, 0]);
        assert_eq!((in_flight, w.cwnd, prr.counts()), (16, 16, (6, 3)));
        // After 19 deliveries: ceil(10 * 19 / 20) = 10 sent in all, and the
        // pipe is at ssthresh as the recovery ends.
        for _ in 6..19 {
            ack(&mut prr, &mut w, &mut in_flight, 1, false);
        }
        assert_eq!((in_flight, w.cwnd, prr.counts()), (10, 10, (19, 10)));
    }

    #[test]
    fn below_ssthresh_the_slow_start_bound_sends_one_more_than_delivered() {
        // RFC 6937's second example: heavy losses leave 4 in flight with
        // ssthresh 10 (RecoverFS 20). PRR-SSRB: max(prr_delivered -
        // prr_out, delivered) + 1 = 2 per ACK of one segment, up to ssthresh.
        let (mut prr, mut w, mut in_flight) = (Prr::default(), window(20, 10), 5);
        prr.start(20);
        // 5 -> 4 delivered; 1 + 1 = 2 go: 6 in flight.
        assert_eq!(ack(&mut prr, &mut w, &mut in_flight, 1, true), 2);
        assert_eq!((in_flight, w.cwnd), (6, 6));
        // prr_delivered 2, prr_out 2: max(0, 1) + 1 = 2 again: 7.
        assert_eq!(ack(&mut prr, &mut w, &mut in_flight, 1, true), 2);
        assert_eq!(ack(&mut prr, &mut w, &mut in_flight, 1, true), 2);
        assert_eq!(in_flight, 8);
        // 7 and 8 in flight after the ACK: delta 3 and 2 bound 2 no more;
        // at 9, delta 1 caps it, so the pipe stops at ssthresh.
        assert_eq!(ack(&mut prr, &mut w, &mut in_flight, 1, true), 2);
        assert_eq!(ack(&mut prr, &mut w, &mut in_flight, 1, true), 2);
        assert_eq!(ack(&mut prr, &mut w, &mut in_flight, 1, true), 1);
        assert_eq!((in_flight, w.cwnd), (10, 10));
    }

    #[test]
    fn an_ack_that_finds_a_new_loss_gets_the_conservative_bound() {
        // PRR-CRB (Linux: an ACK that marked data lost, or left snd_una
        // where it was): no extra segment, only what was delivered, or what
        // was delivered and not yet matched by a send.
        let (mut prr, mut w, mut in_flight) = (Prr::default(), window(20, 10), 5);
        prr.start(20);
        assert_eq!(ack(&mut prr, &mut w, &mut in_flight, 1, false), 1);
        assert_eq!(ack(&mut prr, &mut w, &mut in_flight, 2, false), 2);
        assert_eq!((in_flight, prr.counts()), (5, (3, 3)));
        // Sending ahead of the deliveries: the bound is the ACK's own (1).
        prr.send_ahead(10);
        assert_eq!(ack(&mut prr, &mut w, &mut in_flight, 1, false), 1);
    }

    #[test]
    fn the_first_ack_sends_the_fast_retransmit_whatever_the_bounds() {
        // The pipe exactly at ssthresh: delta 0 allows nothing, but nothing
        // has gone out yet, so one segment (the retransmission) goes.
        let (mut prr, mut w) = (Prr::default(), window(20, 10));
        prr.start(20);
        prr.reduce(&mut w, 10, 1, true);
        assert_eq!(w.cwnd, 11);
        prr.on_sent();
        prr.reduce(&mut w, 10, 1, false);
        assert_eq!(w.cwnd, 10);
    }

    #[test]
    fn nothing_changes_without_a_delivery_or_a_reduction() {
        let mut w = window(20, 10);
        let mut prr = Prr::default();
        prr.reduce(&mut w, 15, 1, true);
        assert_eq!((w.cwnd, prr.counts()), (20, (0, 0)), "no reduction began");
        prr.start(20);
        prr.reduce(&mut w, 15, 0, true);
        assert_eq!((w.cwnd, prr.counts()), (20, (0, 0)), "nothing delivered");
    }

    #[test]
    fn rate_halving_lowers_the_window_by_one_per_two_acks_down_to_the_floor() {
        // tcp_cwnd_down: 20 with a floor of 10; each ACK delivers one, the
        // flight stays at 19 (one sent per ACK at most).
        let (mut prr, mut w) = (Prr::default(), window(20, 10));
        prr.start(20);
        let mut cwnds = Vec::new();
        for _ in 0..6 {
            prr.rate_halve(&mut w, 19, 1, |w| w.ssthresh);
            cwnds.push(w.cwnd);
        }
        assert_eq!(cwnds, [20, 19, 19, 18, 18, 17]);
        // At the floor it holds, unless the flight drained below it.
        let mut w = window(10, 10);
        for _ in 0..4 {
            prr.rate_halve(&mut w, 19, 1, |w| w.ssthresh);
        }
        assert_eq!(w.cwnd, 10);
        prr.rate_halve(&mut w, 6, 1, |w| w.ssthresh);
        assert_eq!(w.cwnd, 7, "never above the flight + 1");
    }

    #[test]
    fn rate_halving_asks_the_floor_only_when_the_window_falls() {
        let (mut prr, mut w) = (Prr::default(), window(20, 10));
        prr.start(20);
        let mut asked = 0;
        prr.rate_halve(&mut w, 19, 0, |_| unreachable!("nothing delivered"));
        prr.rate_halve(&mut w, 19, 1, |_| {
            asked += 1;
            10
        });
        assert_eq!(asked, 0, "the odd ACK only counts");
        prr.rate_halve(&mut w, 19, 1, |_| {
            asked += 1;
            10
        });
        assert_eq!((asked, w.cwnd), (1, 19));
    }
}
