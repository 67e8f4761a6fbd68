//! A tiny driver for algorithm unit tests: a sender that is never limited by
//! anything but its window, on a path with a fixed RTT, so a signature test
//! is a few lines ("grow for 3 rounds, lose, check the window").
//!
//! Each round delivers one window of segments, one ACK per segment, spread
//! evenly over the RTT, with the RTT sample `rtt + queue_delay`.

use super::{build, AckSample, Algorithm, CaState, Conn, CongestionControl, Window, MAX_STATE_VALUES};
use crate::time::{Nanos, NS_PER_MS};
use std::collections::BTreeMap;

pub struct Harness {
    pub alg: Algorithm,
    pub w: Window,
    pub now: Nanos,
    pub rtt: Nanos,
    /// Extra delay added to every RTT sample (a standing queue).
    pub queue_delay: Nanos,
    pub snd_una: u64,
    pub snd_nxt: u64,
    pub delivered: u64,
    pub state: CaState,
}

impl Harness {
    pub fn new(name: &str, rtt_ms: u64) -> Harness {
        Harness::with_params(name, rtt_ms, &BTreeMap::new())
    }

    pub fn with_params(name: &str, rtt_ms: u64, params: &BTreeMap<String, f64>) -> Harness {
        let alg = build(name, params).expect("known algorithm");
        let mut h = Harness {
            alg,
            w: Window::new(10),
            now: NS_PER_MS,
            rtt: rtt_ms * NS_PER_MS,
            queue_delay: 0,
            snd_una: 0,
            snd_nxt: 10,
            delivered: 0,
            state: CaState::Open,
        };
        let c = h.conn();
        h.alg.init(&mut h.w, &c);
        h
    }

    pub fn conn(&self) -> Conn {
        Conn {
            now: self.now,
            mss: 1448,
            srtt_ns: self.rtt + self.queue_delay,
            min_rtt_ns: self.rtt,
            in_flight: self.w.cwnd,
            packets_out: self.w.cwnd,
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
    }

    /// One ACK of one segment, `gap` after the previous one.
    pub fn ack(&mut self, gap: Nanos) {
        self.now += gap;
        self.snd_una += 1;
        self.delivered += 1;
        self.snd_nxt = self.snd_una + self.w.cwnd as u64;
        let sample = AckSample { acked: 1, rtt_ns: Some(self.rtt + self.queue_delay), prior_in_flight: self.w.cwnd, ece: false };
        let c = self.conn();
        self.alg.pkts_acked(&mut self.w, &c, &sample);
        let c = self.conn();
        self.alg.cong_avoid(&mut self.w, &c, 1);
    }

    /// `n` round trips without loss.
    pub fn rounds(&mut self, n: usize) {
        for _ in 0..n {
            let cwnd = self.w.cwnd.max(1) as u64;
            let round = self.rtt + self.queue_delay;
            for i in 0..cwnd {
                let gap = round * (i + 1) / cwnd - round * i / cwnd;
                self.ack(gap);
            }
        }
    }

    /// A loss detected by duplicate ACKs: ssthresh from the algorithm, the
    /// window set to it (recovery without PRR), and back to Open.
    pub fn loss(&mut self) {
        let c = self.conn();
        self.alg.set_state(&mut self.w, &c, CaState::Recovery);
        self.w.ssthresh = self.alg.ssthresh(&self.w, &c);
        self.w.cwnd = self.w.ssthresh;
        self.alg.set_state(&mut self.w, &c, CaState::Open);
    }

    /// The algorithm's traced state value `name`.
    pub fn state(&self, name: &str) -> f64 {
        let info = self.alg.info();
        let i = info.state.iter().position(|s| *s == name).expect("traced state name");
        let mut out = [f64::NAN; MAX_STATE_VALUES];
        self.alg.state(&mut out);
        out[i]
    }
}
