//! LEDBAT, Low Extra Delay Background Transport (RFC 6817, Shalunov, Hazel,
//! Iyengar, Kuehlewind 2012).
//!
//! LEDBAT keeps the queuing delay it causes near TARGET and yields to
//! standard TCP, whose queues push that delay above TARGET. Per ACK:
//!     queuing_delay = FILTER(current_delays) - MIN(base_delays)
//!     off_target    = (TARGET - queuing_delay) / TARGET
//!     cwnd         += GAIN * off_target * bytes_newly_acked * MSS / cwnd
//!     cwnd          = min(cwnd, flightsize + ALLOWED_INCREASE * MSS)
//!     cwnd          = max(cwnd, MIN_CWND * MSS)
//! and on loss cwnd = max(cwnd / 2, MIN_CWND), at most once per RTT (the
//! sender's recovery already does that once per window).
//! - The one-way delay of each ACK is TSval - TSecr (RFC 6817 section 3.3
//!   allows TCP timestamps). In the simulator both ends share one clock, so
//!   the delays are exact; on real hosts the clock offset cancels out in
//!   queuing_delay because both terms carry it.
//! - base_delays: BASE_HISTORY = 10 one-minute minima; current_delays: the
//!   last CURRENT_FILTER = 4 samples, filtered by their minimum (RFC 6817
//!   section 3.4.2 leaves the filter open and suggests the minimum).
//! - The RFC defines no slow start; like ns-3's TcpLedbat (and as the RFC
//!   permits, section 3.4: "MAY use slow start ... no faster than standard
//!   TCP") we slow-start until the first loss or until the queuing delay
//!   reaches TARGET / 2, whichever comes first (`slow_start` = 0 turns it off).
//! - The window is kept in fractional segments inside the algorithm and the
//!   sender sees its integer part.

use super::RecoveryPolicy;
use super::{AckSample, CongestionControl, Conn, Info, LinuxModule, Param, Params, Role, StateOut, Window};
use crate::time::{Nanos, NS_PER_MS, NS_PER_SEC};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::{BoolParam, FloatParam, IntParam};
    pub const TARGET_MS: FloatParam = FloatParam {
        name: "target_ms",
        default: 100.0,
        min: 1.0,
        max: 10_000.0,
        doc: "TARGET queuing delay (RFC 6817: at most 100 ms)",
    };
    pub const GAIN: FloatParam = FloatParam {
        name: "gain",
        default: 1.0,
        min: 0.01,
        max: 10.0,
        doc: "GAIN: window change per RTT at full off-target, in segments",
    };
    pub const BASE_HISTORY: IntParam = IntParam {
        name: "base_history",
        default: 10,
        min: 1,
        max: 60,
        doc: "BASE_HISTORY: one-minute minima kept for the base delay",
    };
    pub const CURRENT_FILTER: IntParam = IntParam {
        name: "current_filter",
        default: 4,
        min: 1,
        max: 32,
        doc: "CURRENT_FILTER: recent delays whose minimum is the current delay",
    };
    pub const ALLOWED_INCREASE: FloatParam = FloatParam {
        name: "allowed_increase",
        default: 1.0,
        min: 1.0,
        max: 16.0,
        doc: "ALLOWED_INCREASE: cwnd at most flightsize + this (segments)",
    };
    pub const MIN_CWND: FloatParam =
        FloatParam { name: "min_cwnd", default: 2.0, min: 1.0, max: 16.0, doc: "MIN_CWND (segments)" };
    pub const SLOW_START: BoolParam =
        BoolParam { name: "slow_start", default: true, doc: "1: slow start until a loss or queuing delay >= TARGET/2" };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const QUEUING_DELAY_MS: StateVar = StateVar::float("queuing_delay_ms", "ms");
    pub const BASE_DELAY_MS: StateVar = StateVar::float("base_delay_ms", "ms");
    pub const OFF_TARGET: StateVar = StateVar::float("off_target", "");
    pub const CURRENT_DELAY_MS: StateVar = StateVar::float("current_delay_ms", "ms");
}

pub const INFO: Info = Info {
    name: "ledbat",
    reference: "RFC 6817 (Shalunov et al. 2012)",
    summary: "scavenger: holds its queuing delay near TARGET (100 ms) from one-way delays, yields to standard TCP",
    recovery: RecoveryPolicy::NewReno,
    params: &[
        Param::Float(&param::TARGET_MS),
        Param::Float(&param::GAIN),
        Param::Int(&param::BASE_HISTORY),
        Param::Int(&param::CURRENT_FILTER),
        Param::Float(&param::ALLOWED_INCREASE),
        Param::Float(&param::MIN_CWND),
        Param::Bool(&param::SLOW_START),
    ],
    state: &[state::QUEUING_DELAY_MS, state::BASE_DELAY_MS, state::OFF_TARGET, state::CURRENT_DELAY_MS],
    role: Role::Scavenger,
    linux: LinuxModule::SimulatorOnly { why: "LEDBAT (no Linux module)" },
    ns3: Some("ns3::TcpLedbat"),
};

const MAX_HISTORY: usize = 60;
const MAX_FILTER: usize = 32;
const MINUTE_NS: Nanos = 60 * NS_PER_SEC;

pub struct Ledbat {
    target: Nanos,
    gain: f64,
    base_history: usize,
    current_filter: usize,
    allowed_increase: f64,
    min_cwnd: f64,
    slow_start: bool,
    /// One-minute minima, oldest first (a ring of `base_history`).
    base: [Nanos; MAX_HISTORY],
    base_len: usize,
    base_head: usize,
    last_rollover_minute: u64,
    /// Recent delays (a ring of `current_filter`).
    current: [Nanos; MAX_FILTER],
    current_len: usize,
    current_next: usize,
    cwnd: f64,
    queuing_delay: Option<Nanos>,
}

impl Ledbat {
    pub fn new(p: &Params) -> Ledbat {
        Ledbat {
            target: (p.float(&param::TARGET_MS) * NS_PER_MS as f64) as Nanos,
            gain: p.float(&param::GAIN),
            base_history: (p.int(&param::BASE_HISTORY) as usize).clamp(1, MAX_HISTORY),
            current_filter: (p.int(&param::CURRENT_FILTER) as usize).clamp(1, MAX_FILTER),
            allowed_increase: p.float(&param::ALLOWED_INCREASE),
            min_cwnd: p.float(&param::MIN_CWND),
            slow_start: p.flag(&param::SLOW_START),
            base: [Nanos::MAX; MAX_HISTORY],
            base_len: 0,
            base_head: 0,
            last_rollover_minute: 0,
            current: [0; MAX_FILTER],
            current_len: 0,
            current_next: 0,
            cwnd: 0.0,
            queuing_delay: None,
        }
    }

    fn base_delay(&self) -> Option<Nanos> {
        (self.base_len > 0)
            .then(|| (0..self.base_len).map(|i| self.base[(self.base_head + i) % self.base_history]).min().unwrap())
    }

    fn current_delay(&self) -> Option<Nanos> {
        (self.current_len > 0).then(|| self.current[..self.current_len].iter().copied().min().unwrap())
    }

    /// RFC 6817 update_base_delay: a new minute opens a new bucket.
    fn update_base_delay(&mut self, now: Nanos, delay: Nanos) {
        let minute = now / MINUTE_NS;
        if self.base_len == 0 || minute != self.last_rollover_minute {
            self.last_rollover_minute = minute;
            if self.base_len == self.base_history {
                self.base_head = (self.base_head + 1) % self.base_history;
                self.base_len -= 1;
            }
            let tail = (self.base_head + self.base_len) % self.base_history;
            self.base[tail] = delay;
            self.base_len += 1;
        } else {
            let tail = (self.base_head + self.base_len - 1) % self.base_history;
            self.base[tail] = self.base[tail].min(delay);
        }
    }

    fn update_current_delay(&mut self, delay: Nanos) {
        self.current[self.current_next] = delay;
        self.current_next = (self.current_next + 1) % self.current_filter;
        self.current_len = (self.current_len + 1).min(self.current_filter);
    }

    fn off_target(&self) -> Option<f64> {
        let q = self.queuing_delay?;
        Some((self.target as f64 - q as f64) / self.target as f64)
    }

    fn sync(&mut self, w: &Window) {
        // The sender may have changed the window (recovery, timeout).
        if (self.cwnd as u32) != w.cwnd {
            self.cwnd = w.cwnd as f64;
        }
    }
}

impl CongestionControl for Ledbat {
    fn init(&mut self, w: &mut Window, _c: &Conn) {
        self.cwnd = w.cwnd as f64;
        if !self.slow_start {
            w.ssthresh = w.cwnd;
        }
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        // RFC 6817: cwnd = max(cwnd / 2, MIN_CWND).
        (w.cwnd / 2).max(self.min_cwnd as u32)
    }

    #[inline]
    fn pkts_acked(&mut self, _w: &mut Window, c: &Conn, s: &AckSample) {
        let Some(delay) = s.one_way_delay_ns() else { return };
        self.update_base_delay(c.now, delay);
        self.update_current_delay(delay);
        if let (Some(cur), Some(base)) = (self.current_delay(), self.base_delay()) {
            self.queuing_delay = Some(cur.saturating_sub(base));
        }
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        self.sync(w);
        let Some(off_target) = self.off_target() else { return };
        if w.in_slow_start() {
            if off_target > 0.5 {
                // Standard slow start while the queue is below TARGET / 2.
                self.cwnd = (self.cwnd + acked as f64).min(w.ssthresh as f64);
                w.cwnd = self.cwnd as u32;
                return;
            }
            w.ssthresh = w.cwnd;
        }
        self.cwnd += self.gain * off_target * acked as f64 / self.cwnd;
        // Never more than ALLOWED_INCREASE above the data in flight before this ACK.
        let flightsize = (c.in_flight + acked) as f64;
        self.cwnd = self.cwnd.min(flightsize + self.allowed_increase).max(self.min_cwnd);
        w.cwnd = (self.cwnd as u32).min(w.cwnd_clamp);
    }

    fn state(&self, out: &mut StateOut) {
        let ms = |t: Option<Nanos>| t.map_or(f64::NAN, |t| t as f64 / 1e6);
        out.number(&state::QUEUING_DELAY_MS, ms(self.queuing_delay));
        out.number(&state::BASE_DELAY_MS, ms(self.base_delay()));
        out.number(&state::OFF_TARGET, self.off_target().unwrap_or(f64::NAN));
        out.number(&state::CURRENT_DELAY_MS, ms(self.current_delay()));
    }
}

#[cfg(test)]
mod tests {
    use crate::cc::harness::Harness;
    use crate::time::NS_PER_MS;
    use std::collections::BTreeMap;

    fn params(target_ms: f64) -> BTreeMap<String, f64> {
        [("target_ms".to_string(), target_ms)].into()
    }

    #[test]
    fn grows_below_target_and_shrinks_above_it_in_proportion() {
        let mut h = Harness::with_params("ledbat", 100, &params(50.0));
        h.set_cwnd(100, 100); // congestion avoidance
        h.rounds(1);
        assert_eq!(h.state("queuing_delay_ms"), 0.0);
        assert_eq!(h.state("base_delay_ms"), 50.0);
        // No queue: off_target = 1, +GAIN segment per RTT.
        let before = h.w.cwnd;
        h.rounds(3);
        assert_eq!(h.w.cwnd, before + 3);
        // 25 ms of queue: off_target = 0.5, +0.5 per RTT.
        h.queue_delay = 25 * NS_PER_MS;
        h.rounds(1);
        assert!((h.state("off_target") - 0.5).abs() < 1e-9);
        let before = h.w.cwnd;
        h.rounds(4);
        assert_eq!(h.w.cwnd, before + 2);
        // 100 ms of queue at a 50 ms target: off_target = -1, -1 per RTT.
        h.queue_delay = 100 * NS_PER_MS;
        h.rounds(1);
        let before = h.w.cwnd;
        h.rounds(4);
        assert_eq!(h.w.cwnd + 4, before);
    }

    #[test]
    fn base_delay_is_the_minimum_of_the_last_ten_minutes() {
        // TARGET 20 ms, so the window stays put while the delay is 20 ms up.
        let mut h = Harness::with_params("ledbat", 100, &params(20.0));
        h.set_cwnd(10, 10);
        h.rounds(10);
        assert_eq!(h.state("base_delay_ms"), 50.0);
        // The path gets 20 ms longer for good: the old minimum is kept for
        // 10 minutes (the extra delay looks like queue), then forgotten.
        h.queue_delay = 20 * NS_PER_MS;
        h.rounds(4000); // to 481 s, in 120 ms rounds
        assert_eq!(h.state("base_delay_ms"), 50.0);
        h.rounds(1500); // to 661 s
        assert_eq!(h.state("base_delay_ms"), 70.0);
        assert_eq!(h.state("queuing_delay_ms"), 0.0);
    }

    #[test]
    fn loss_halves_but_not_below_min_cwnd() {
        let mut h = Harness::new("ledbat", 100);
        h.set_cwnd(40, 40);
        h.loss();
        assert_eq!(h.w.cwnd, 20);
        h.set_cwnd(3, 3);
        h.loss();
        assert_eq!(h.w.cwnd, 2);
    }
}
