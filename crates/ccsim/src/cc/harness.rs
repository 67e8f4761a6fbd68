//! A tiny driver for algorithm unit tests: a sender that is never limited by
//! anything but its window, on a path with a fixed RTT, so a signature test
//! is a few lines ("grow for 3 rounds, lose, check the window").
//!
//! Each round delivers one window of segments, one ACK per segment, spread
//! evenly over the RTT, with the RTT sample `rtt + queue_delay`. Segments in
//! flight fall by one per ACK and the sender then fills the window, so after
//! a reduction the flight drains one segment per ACK as in a real sender.
//! ACKs carry timestamps whose difference is the one-way delay
//! `rtt / 2 + queue_delay`.
//!
//! Rate-based algorithms (bbr) are driven by `rate_ack` / `rate_rounds`,
//! which hand them delivery-rate samples as tcp/rate.rs would build them.

use super::{build, AckSample, Algorithm, CaState, Conn, RateSample, Window};
use crate::time::{Nanos, NS_PER_MS};
use std::collections::BTreeMap;

/// The segment payload of the harness's sender, in bytes.
pub const MSS: u32 = 1448;

pub struct Harness {
    pub alg: Algorithm,
    pub w: Window,
    pub now: Nanos,
    pub rtt: Nanos,
    /// Extra delay added to every RTT sample (a standing queue).
    pub queue_delay: Nanos,
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// Segments in flight (the sender fills the window after every ACK).
    pub in_flight: u32,
    pub delivered: u64,
    pub state: CaState,
    /// After a timeout: the harness returns to Open once this segment is ACKed.
    recover_at: Option<u64>,
    /// Timeouts since the last ACK (Linux icsk_retransmits).
    timeouts_in_a_row: u32,
}

impl Harness {
    pub fn new(name: &str, rtt_ms: u64) -> Harness {
        Harness::with_params(name, rtt_ms, &BTreeMap::new())
    }

    pub fn with_params(name: &str, rtt_ms: u64, params: &BTreeMap<String, f64>) -> Harness {
        let alg = build(name, params, MSS).expect("known algorithm");
        let mut h = Harness {
            alg,
            w: Window::new(10),
            now: NS_PER_MS,
            rtt: rtt_ms * NS_PER_MS,
            queue_delay: 0,
            snd_una: 0,
            snd_nxt: 10,
            in_flight: 10,
            delivered: 0,
            state: CaState::Open,
            recover_at: None,
            timeouts_in_a_row: 0,
        };
        let c = h.conn();
        h.alg.init(&mut h.w, &c);
        h
    }

    pub fn conn(&self) -> Conn {
        Conn {
            now: self.now,
            mss: MSS,
            srtt_ns: self.rtt + self.queue_delay,
            min_rtt_ns: self.rtt,
            in_flight: self.in_flight,
            packets_out: self.in_flight,
            delivered: self.delivered,
            delivered_ce: 0,
            snd_nxt: self.snd_nxt,
            snd_una: self.snd_una,
            is_cwnd_limited: true,
            ca_state: Some(self.state),
        }
    }

    /// Sets the window (e.g. to skip slow start).
    pub fn set_cwnd(&mut self, cwnd: u32, ssthresh: u32) {
        self.w.cwnd = cwnd;
        self.w.ssthresh = ssthresh;
        self.in_flight = cwnd;
        self.snd_nxt = self.snd_una + cwnd as u64;
    }

    /// One ACK of one segment, `gap` after the previous one.
    pub fn ack(&mut self, gap: Nanos) {
        self.now += gap;
        self.snd_una += 1;
        self.delivered += 1;
        self.timeouts_in_a_row = 0;
        let prior_in_flight = self.in_flight;
        self.in_flight = self.in_flight.saturating_sub(1);
        let sample = self.sample(1, prior_in_flight);
        let c = self.conn();
        self.alg.in_ack_event(&mut self.w, |_| c);
        self.alg.pkts_acked(&mut self.w, |_| c, &sample);
        if self.recover_at.is_some_and(|r| self.snd_una >= r) {
            self.recover_at = None;
            self.set_state(CaState::Open);
        }
        let c = self.conn();
        self.alg.cong_avoid(&mut self.w, |_| c, 1);
        // The sender fills the window.
        self.in_flight = self.in_flight.max(self.w.cwnd);
        self.snd_nxt = self.snd_una + self.in_flight as u64;
    }

    /// The AckSample of an ACK arriving now for `acked` segments.
    fn sample(&self, acked: u32, prior_in_flight: u32) -> AckSample {
        let rtt = self.rtt + self.queue_delay;
        let sent = self.now.saturating_sub(rtt).max(1);
        AckSample {
            acked,
            rtt_ns: Some(rtt),
            prior_in_flight,
            ece: false,
            rcv_tsval: sent + self.rtt / 2 + self.queue_delay,
            rcv_tsecr: sent,
        }
    }

    /// An ACK `gap` after the previous one that delivers `acked` segments and
    /// brings the rate sample "`delivered` segments in `interval`" (Linux
    /// tcp_rate_gen), then lets the algorithm set the window (`cong_control`).
    /// The flight is whatever `in_flight` says (rate_rounds sets it).
    pub fn rate_ack(&mut self, gap: Nanos, acked: u32, delivered: u64, interval: Nanos, app_limited: bool) {
        self.now += gap;
        let prior_delivered = self.delivered.saturating_sub(delivered.saturating_sub(acked as u64));
        let prior_in_flight = self.in_flight;
        self.snd_una += acked as u64;
        self.delivered += acked as u64;
        self.timeouts_in_a_row = 0;
        self.snd_nxt = self.snd_una + self.in_flight as u64;
        let sample = self.sample(acked, prior_in_flight);
        let c = self.conn();
        self.alg.in_ack_event(&mut self.w, |_| c);
        self.alg.pkts_acked(&mut self.w, |_| c, &sample);
        let rs = RateSample {
            delivered: delivered as i64,
            interval_ns: interval,
            is_app_limited: app_limited,
            acked_sacked: acked,
            losses: 0,
            prior_in_flight,
            rtt_ns: Some(self.rtt + self.queue_delay),
            prior_delivered,
        };
        let c = self.conn();
        self.alg.cong_control(&mut self.w, |_| c, &rs);
    }

    /// `n` round trips of a path that delivers `rate_pps` segments per second
    /// to a rate-based algorithm: each round the segments that the window, the
    /// path rate and the algorithm's pacing rate all allow in one RTT are in
    /// flight and ACKed one at a time, each ACK with the rate sample of the
    /// last RTT.
    pub fn rate_rounds(&mut self, n: usize, rate_pps: f64) {
        for _ in 0..n {
            let round = self.rtt + self.queue_delay;
            let per_round = |pps: f64| (pps * round as f64 / 1e9).floor().max(1.0) as u64;
            let mut acks = (self.w.cwnd.max(1) as u64).min(per_round(rate_pps));
            if let Some(bytes_per_sec) = self.alg.pacing_rate() {
                acks = acks.min(per_round(bytes_per_sec / MSS as f64));
            }
            self.in_flight = acks as u32;
            for i in 0..acks {
                let gap = round * (i + 1) / acks - round * i / acks;
                // The sample spans one RTT of deliveries at the delivered rate.
                self.rate_ack(gap, 1, acks, round, false);
            }
        }
    }

    fn set_state(&mut self, new: CaState) {
        let c = self.conn();
        self.alg.set_state(&mut self.w, &c, new);
        self.state = new;
    }

    /// `n` round trips without loss (a round ACKs what is in flight).
    pub fn rounds(&mut self, n: usize) {
        for _ in 0..n {
            let cwnd = self.in_flight.max(1) as u64;
            let round = self.rtt + self.queue_delay;
            for i in 0..cwnd {
                let gap = round * (i + 1) / cwnd - round * i / cwnd;
                self.ack(gap);
            }
        }
    }

    /// A loss detected by duplicate ACKs, in the sender's order (Linux
    /// tcp_enter_recovery): ssthresh from the algorithm, then the state
    /// change; the window falls to ssthresh (recovery without PRR), the
    /// CompleteCwr event, and the sender is back in Open.
    pub fn loss(&mut self) {
        let c = self.conn();
        self.w.ssthresh = self.alg.ssthresh(&self.w, &c);
        self.set_state(CaState::Recovery);
        self.w.cwnd = self.w.ssthresh;
        let c = self.conn();
        self.alg.cwnd_event(&mut self.w, &c, super::CaEvent::CompleteCwr);
        self.set_state(CaState::Open);
    }

    /// A retransmission timeout, in the sender's order (Linux tcp_enter_loss):
    /// on the first timeout of an episode ssthresh, then the Loss event
    /// (`super::reduce_on_timeout`); cwnd = 1, state Loss. A second timeout
    /// with no ACK in between keeps the first one's ssthresh. The harness goes
    /// back to Open once everything sent before the timeout is ACKed.
    pub fn timeout(&mut self) {
        let high_seq = self.recover_at.unwrap_or(0);
        if super::timeout_starts_episode(self.state, self.snd_una, high_seq, self.timeouts_in_a_row) {
            let c = self.conn();
            super::reduce_on_timeout(&mut self.alg, &mut self.w, &c);
        }
        self.timeouts_in_a_row += 1;
        self.w.cwnd = 1;
        self.w.cwnd_cnt = 0;
        self.in_flight = 0; // everything outstanding is marked lost
        self.set_state(CaState::Loss);
        self.recover_at = Some(self.snd_nxt);
    }

    /// The algorithm's traced state variable `name`.
    fn state_value(&self, name: &str) -> super::StateValue {
        let info = self.alg.info();
        let i = info.state.iter().position(|v| v.name == name).expect("traced state name");
        let mut values = Vec::new();
        self.alg.state(&mut super::StateOut::new(info.state, &mut values));
        values[i]
    }

    /// The algorithm's traced number `name`.
    pub fn state(&self, name: &str) -> f64 {
        match self.state_value(name) {
            super::StateValue::Number(v) => v,
            super::StateValue::Mode(m) => panic!("{name} is a mode ({m})"),
        }
    }

    /// The algorithm's traced mode `name`.
    pub fn mode(&self, name: &str) -> &'static str {
        match self.state_value(name) {
            super::StateValue::Mode(m) => m,
            super::StateValue::Number(v) => panic!("{name} is a number ({v})"),
        }
    }
}
