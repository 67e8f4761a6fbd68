//! Copa (Arun, Balakrishnan, "Copa: Practical Delay-Based Congestion
//! Control for the Internet", NSDI 2018, the arXiv version with the errata;
//! the authors' code: genericCC markoviancc.cc and rtt-window.cc, the
//! implementation in Pantheon; mvfst's Copa.cpp for the velocity rules).
//!
//! On every ACK (the paper's Algorithm 1):
//!     RTTmin      = min RTT over the last 10 s,
//!     RTTstanding = min RTT over the last srtt/2,
//!     dq = RTTstanding - RTTmin                     (queueing delay),
//!     target rate lambda_t = 1 / (delta * dq)       (packets per second),
//!     current rate lambda  = cwnd / RTTstanding,
//!     lambda <= lambda_t: cwnd += v / (delta * cwnd), else cwnd -= v / (delta * cwnd)
//! per ACKed packet, so the window moves by v / delta packets per RTT. At the
//! equilibrium lambda = C, so dq = 1 / (delta C): a queue of 1/delta packets
//! (2 with delta 0.5). Packets are paced at 2 cwnd / RTTstanding.
//!
//! Velocity v: 1 at first. Once per RTT the window is compared with the one
//! an RTT ago (direction up or down); once the direction has stayed the same
//! for 3 RTTs, v doubles each further RTT; a change of direction resets it
//! to 1 (also at once, on the ACK whose decision opposes a v > 1, as mvfst).
//!
//! Slow start: the window doubles each RTT (+1 per ACKed packet) until
//! lambda first exceeds lambda_t.
//!
//! Modes (section 2.3): a lone group of Copa flows empties the queue at
//! least once every 5 RTTs. If no RTT of the last 5 srtt was "nearly empty"
//! (below RTTmin + 10% of (max RTT of the last 4 srtt - RTTmin), the
//! authors' is_copa()), a buffer-filling flow is present: competitive mode,
//! where 1/delta grows by 1 per RTT without loss and halves on a loss (at
//! most once per RTT), AIMD like Reno, never below 1/delta_default. Back in
//! default mode delta returns to the default.
//!
//! Loss recovery is the sender's; the window is Copa's (`OWNS_WINDOW`): in
//! default mode a loss changes nothing (Copa is delay-based and tolerates
//! random loss), in competitive mode it halves 1/delta. After a timeout the
//! sender's window of 1 is Copa's starting point.
//!
//! Delta is a parameter: the paper's default is 0.5; Pantheon's Copa
//! (genericCC started with "constant_delta:0.1", later mvfst's default too)
//! uses 0.1, a queue of about 10 packets.

use super::extreme_window::ExtremeWindow;
use super::RecoveryPolicy;
use super::{
    CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, RateSample, Role, StateOut, Window,
    INFINITE_SSTHRESH,
};
use crate::time::{Nanos, NS_PER_SEC};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::{BoolParam, FloatParam};
    pub const DELTA: FloatParam = FloatParam {
        name: "delta",
        default: 0.5,
        min: 0.01,
        max: 2.0,
        doc: "default-mode delta: the queue kept is about 1/delta packets (paper 0.5; Pantheon's Copa 0.1)",
    };
    pub const COMPETITIVE: BoolParam = BoolParam {
        name: "competitive",
        default: true,
        doc: "1: switch to competitive mode (AIMD on 1/delta) when the queue has not nearly emptied for 5 RTTs",
    };
    pub const MIN_RTT_WINDOW_S: FloatParam = FloatParam {
        name: "min_rtt_window_s",
        default: 10.0,
        min: 0.1,
        max: 600.0,
        doc: "RTTmin is the minimum over this window",
    };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const MODE: StateVar = StateVar::mode("mode", &["slow_start", "default", "competitive"]);
    pub const DELTA: StateVar = StateVar::float("delta", "");
    pub const VELOCITY: StateVar = StateVar::float("velocity", "");
    pub const STANDING_RTT_MS: StateVar = StateVar::float("standing_rtt_ms", "ms");
    pub const MIN_RTT_MS: StateVar = StateVar::float("min_rtt_ms", "ms");
    pub const TARGET_BPS: StateVar = StateVar::float("target_bps", "bit/s");
}

pub const INFO: Info = Info {
    name: "copa",
    reference: "Arun, Balakrishnan, NSDI 2018 (Copa); authors' genericCC (Pantheon); mvfst Copa.cpp",
    summary: "delay-based: window toward the target rate 1/(delta*dq), dq = standing RTT - min RTT, velocity; competitive mode (AIMD on 1/delta) against buffer fillers; paced at 2 cwnd/RTT",
    recovery: RecoveryPolicy::NewReno,
    params: &[Param::Float(&param::DELTA), Param::Bool(&param::COMPETITIVE), Param::Float(&param::MIN_RTT_WINDOW_S)],
    state: &[
        state::MODE,
        state::DELTA,
        state::VELOCITY,
        state::STANDING_RTT_MS,
        state::MIN_RTT_MS,
        state::TARGET_BPS,
    ],
    // A general-purpose scheme, evaluated by its authors on Internet paths.
    role: Role::General,
    linux: LinuxModule::SimulatorOnly { why: "Copa (NSDI 2018; user-space and QUIC implementations, no Linux module)" },
    ns3: None,
};

/// The direction holds this many RTTs before v starts doubling (paper 2.2).
const VELOCITY_AFTER_RTTS: u32 = 3;
/// Nearly empty: below RTTmin plus this share of the recent RTT swing (2.3).
const NEARLY_EMPTY_SHARE: f64 = 0.1;
/// The queue must have nearly emptied within this many RTTs (2.3).
const EMPTY_WITHIN_RTTS: u64 = 5;
/// The swing is measured over this many RTTs (2.3; the authors' 4 * srtt).
const SWING_RTTS: u64 = 4;
/// Pacing rate: this many windows per standing RTT (2.1).
const PACING_GAIN: f64 = 2.0;
/// The smallest window (mvfst's minCwndInMss is 2; Copa needs 2 to keep ACKs coming).
const MIN_CWND: f64 = 2.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Up,
    Down,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    SlowStart = 0,
    Default = 1,
    Competitive = 2,
}

pub struct Copa {
    delta_default: f64,
    competitive_enabled: bool,
    min_rtt_win: Nanos,
    mss: u32,

    mode: Mode,
    delta: f64,
    /// The window in packets, fractional; `w.cwnd` is its rounding.
    cwnd: f64,
    /// The `w.cwnd` last written, to notice the sender's changes (a timeout).
    cwnd_written: u32,
    velocity: f64,
    direction: Option<Direction>,
    same_direction_rtts: u32,
    direction_stamp: Option<(Nanos, f64)>,

    min_rtt: ExtremeWindow,
    standing: ExtremeWindow,
    recent_min: ExtremeWindow,
    recent_max: ExtremeWindow,
    /// When 1/delta last grew, and when a loss last halved it.
    delta_grown_at: Nanos,
    delta_cut_at: Option<Nanos>,
    /// Time of the first RTT sample: modes are decided after 5 RTTs of them.
    first_sample_at: Option<Nanos>,
    pacing_rate: f64,
}

impl Copa {
    pub fn new(p: &Params) -> Copa {
        let delta = p.float(&param::DELTA);
        Copa {
            delta_default: delta,
            competitive_enabled: p.flag(&param::COMPETITIVE),
            min_rtt_win: (p.float(&param::MIN_RTT_WINDOW_S) * NS_PER_SEC as f64) as Nanos,
            mss: p.mss(),
            mode: Mode::SlowStart,
            delta,
            cwnd: 10.0,
            cwnd_written: 10,
            velocity: 1.0,
            direction: None,
            same_direction_rtts: 0,
            direction_stamp: None,
            min_rtt: ExtremeWindow::min(),
            standing: ExtremeWindow::min(),
            recent_min: ExtremeWindow::min(),
            recent_max: ExtremeWindow::max(),
            delta_grown_at: 0,
            delta_cut_at: None,
            first_sample_at: None,
            pacing_rate: 0.0,
        }
    }

    /// Queueing delay dq in ns (None before the first sample).
    fn queue_delay(&self) -> Option<Nanos> {
        Some(self.standing.get()?.saturating_sub(self.min_rtt.get()?))
    }

    /// Target rate 1/(delta dq) in packets per second (infinite at dq = 0).
    fn target_pps(&self) -> f64 {
        match self.queue_delay() {
            Some(dq) if dq > 0 => NS_PER_SEC as f64 / (self.delta * dq as f64),
            _ => f64::INFINITY,
        }
    }

    fn on_rtt(&mut self, now: Nanos, rtt: Nanos, srtt: Nanos) {
        self.first_sample_at.get_or_insert(now);
        self.min_rtt.update(now, rtt, self.min_rtt_win);
        self.standing.update(now, rtt, srtt / 2);
        self.recent_min.update(now, rtt, EMPTY_WITHIN_RTTS * srtt);
        self.recent_max.update(now, rtt, SWING_RTTS * srtt);
    }

    /// A loss (segments newly marked lost, or a timeout): in competitive
    /// mode 1/delta halves, at most once per RTT.
    fn on_loss(&mut self, now: Nanos, srtt: Nanos) {
        if self.mode != Mode::Competitive || self.delta_cut_at.is_some_and(|t| now < t + srtt) {
            return;
        }
        self.delta = (self.delta * 2.0).min(self.delta_default);
        self.delta_cut_at = Some(now);
    }

    /// Section 2.3: default mode while the queue nearly empties once in 5
    /// RTTs; competitive otherwise, with 1/delta + 1 per RTT.
    fn update_mode(&mut self, now: Nanos, srtt: Nanos) {
        if self.mode == Mode::SlowStart || !self.competitive_enabled {
            return;
        }
        // Decide only once the windows span 5 RTTs of samples.
        if self.first_sample_at.is_none_or(|t| now < t + EMPTY_WITHIN_RTTS * srtt) {
            return;
        }
        let (Some(min), Some(recent_min), Some(recent_max)) =
            (self.min_rtt.get(), self.recent_min.get(), self.recent_max.get())
        else {
            return;
        };
        let nearly_empty = min as f64 + NEARLY_EMPTY_SHARE * recent_max.saturating_sub(min) as f64;
        if (recent_min as f64) <= nearly_empty {
            self.mode = Mode::Default;
            self.delta = self.delta_default;
            return;
        }
        if self.mode == Mode::Default {
            self.mode = Mode::Competitive;
            self.delta_grown_at = now;
        } else if now >= self.delta_grown_at + srtt {
            self.delta = 1.0 / (1.0 / self.delta + 1.0);
            self.delta_grown_at = now;
        }
    }

    /// Once per RTT: the direction of the window over the last RTT; v
    /// doubles once it has held for 3 RTTs, and is 1 again when it turns.
    fn update_direction(&mut self, now: Nanos, srtt: Nanos) {
        let Some((stamp, cwnd_then)) = self.direction_stamp else {
            self.direction_stamp = Some((now, self.cwnd));
            return;
        };
        if now < stamp + srtt {
            return;
        }
        let dir = if self.cwnd > cwnd_then { Direction::Up } else { Direction::Down };
        if self.direction == Some(dir) {
            self.same_direction_rtts += 1;
            if self.same_direction_rtts >= VELOCITY_AFTER_RTTS {
                self.velocity *= 2.0;
            }
        } else {
            self.velocity = 1.0;
            self.same_direction_rtts = 0;
        }
        self.direction = Some(dir);
        self.direction_stamp = Some((now, self.cwnd));
    }

    /// The ACK's decision opposes a velocity built in the other direction:
    /// start over from v = 1 (mvfst changeDirection).
    fn turn(&mut self, now: Nanos, dir: Direction) {
        if self.direction == Some(dir) || self.velocity <= 1.0 {
            return;
        }
        self.direction = Some(dir);
        self.velocity = 1.0;
        self.same_direction_rtts = 0;
        self.direction_stamp = Some((now, self.cwnd));
    }

    fn write_window(&mut self, w: &mut Window, standing: Nanos) {
        self.cwnd = self.cwnd.max(MIN_CWND);
        w.cwnd = (self.cwnd.round() as u32).min(w.cwnd_clamp);
        self.cwnd_written = w.cwnd;
        self.pacing_rate = PACING_GAIN * self.cwnd * self.mss as f64 * NS_PER_SEC as f64 / standing.max(1) as f64;
    }
}

impl CongestionControl for Copa {
    const OWNS_WINDOW: bool = true;
    const PACES: bool = true;

    fn init(&mut self, w: &mut Window, c: &Conn) {
        self.mss = c.mss;
        self.cwnd = w.cwnd as f64;
        self.cwnd_written = w.cwnd;
        w.ssthresh = INFINITE_SSTHRESH;
        // Before any RTT sample: the window per a nominal 1 ms, as bbr.
        let rtt = if c.srtt_ns > 0 { c.srtt_ns } else { 1_000_000 };
        self.pacing_rate = PACING_GAIN * self.cwnd * self.mss as f64 * NS_PER_SEC as f64 / rtt as f64;
    }

    fn ssthresh(&mut self, w: &Window, c: &Conn) -> u32 {
        // Entering recovery: a loss (the window is Copa's; ssthresh unused).
        self.on_loss(c.now, c.srtt_ns);
        w.ssthresh
    }

    fn set_state(&mut self, _w: &mut Window, c: &Conn, new: CaState) {
        if new == CaState::Loss {
            self.on_loss(c.now, c.srtt_ns);
        }
    }

    fn undo_cwnd(&mut self, w: &Window, _prior_cwnd: u32) -> u32 {
        w.cwnd
    }

    #[inline]
    fn cong_control(&mut self, w: &mut Window, c: &Conn, rs: &RateSample) {
        if w.cwnd != self.cwnd_written {
            self.cwnd = w.cwnd as f64; // the sender's timeout set it
        }
        let srtt = if c.srtt_ns > 0 { c.srtt_ns } else { rs.rtt_ns.unwrap_or(0) };
        if let Some(rtt) = rs.rtt_ns {
            self.on_rtt(c.now, rtt, srtt);
        }
        if rs.losses > 0 {
            self.on_loss(c.now, srtt);
        }
        self.update_mode(c.now, srtt);
        let Some(standing) = self.standing.get() else { return };
        if rs.acked_sacked == 0 {
            return;
        }
        let acked = rs.acked_sacked as f64;
        let rate_pps = self.cwnd * NS_PER_SEC as f64 / standing.max(1) as f64;
        let increase = rate_pps <= self.target_pps();
        if !(increase && self.mode == Mode::SlowStart) {
            self.update_direction(c.now, srtt);
        }
        if increase && self.mode == Mode::SlowStart {
            self.cwnd += acked;
        } else if increase {
            self.turn(c.now, Direction::Up);
            self.cwnd += acked * self.velocity / (self.delta * self.cwnd);
        } else {
            if self.mode == Mode::SlowStart {
                self.mode = Mode::Default;
            }
            self.turn(c.now, Direction::Down);
            self.cwnd -= acked * self.velocity / (self.delta * self.cwnd);
        }
        self.write_window(w, standing);
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing_rate)
    }

    fn state(&self, out: &mut StateOut) {
        let ms = |v: Option<Nanos>| v.map_or(f64::NAN, |v| v as f64 / 1e6);
        out.mode(&state::MODE, self.mode as usize);
        out.number(&state::DELTA, self.delta);
        out.number(&state::VELOCITY, self.velocity);
        out.number(&state::STANDING_RTT_MS, ms(self.standing.get()));
        out.number(&state::MIN_RTT_MS, ms(self.min_rtt.get()));
        let target = self.target_pps();
        out.number(&state::TARGET_BPS, if target.is_finite() { target * self.mss as f64 * 8.0 } else { f64::NAN });
    }
}

#[cfg(test)]
mod tests {
    use crate::cc::harness::Harness;
    use crate::time::NS_PER_MS;
    use std::collections::BTreeMap;

    /// A Copa flow on a 50 ms path, out of slow start (a 10 ms queue ended
    /// it), the queue gone again.
    fn settled(params: &[(&str, f64)]) -> Harness {
        let params: BTreeMap<String, f64> = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let mut h = Harness::with_params("copa", 50, &params);
        h.rate_rounds(2, 2000.0);
        h.queue_delay = 10 * NS_PER_MS;
        while h.mode("mode") == "slow_start" {
            h.rate_rounds(1, 2000.0);
        }
        h.queue_delay = 0;
        h.rate_rounds(1, 2000.0);
        h
    }

    #[test]
    fn slow_start_doubles_until_the_rate_passes_the_target() {
        let mut h = Harness::new("copa", 50);
        assert_eq!(h.mode("mode"), "slow_start");
        let start = h.w.cwnd;
        h.rate_rounds(2, 1e6);
        // No queue: the target is infinite; the window doubles per round.
        assert!(h.w.cwnd >= 4 * start - 2, "cwnd {} after 2 rounds from {start}", h.w.cwnd);
        // A queue of 10 ms: target 1/(0.5 * 10 ms) = 200 packets/s, far
        // below cwnd / RTT: slow start ends and the window shrinks.
        h.queue_delay = 10 * NS_PER_MS;
        h.rate_rounds(2, 1e6);
        assert_eq!(h.mode("mode"), "default");
        let target = h.state("target_bps") / (8.0 * MSS_F);
        assert!((target - 200.0).abs() < 1.0, "target {target} packets/s");
    }

    const MSS_F: f64 = crate::cc::harness::MSS as f64;

    #[test]
    fn the_window_moves_by_about_v_over_delta_packets_per_rtt() {
        for delta in [0.5, 0.1] {
            let mut h = settled(&[("delta", delta), ("competitive", 0.0)]);
            // A standing queue of 20 ms: target 1/(delta * 20 ms), below the rate.
            h.queue_delay = 20 * NS_PER_MS;
            h.rate_rounds(1, 1e6);
            let before = h.w.cwnd as f64;
            let v = h.state("velocity");
            h.rate_rounds(1, 1e6);
            let drop = before - h.w.cwnd as f64;
            assert!((drop - v / delta).abs() <= 1.5, "delta {delta}: fell {drop} with v {v}");
        }
    }

    #[test]
    fn velocity_doubles_after_three_rtts_in_one_direction_and_resets_when_it_turns() {
        let mut h = settled(&[("competitive", 0.0)]);
        h.queue_delay = 0; // dq = 0: the target is infinite, the window only grows
        let mut velocities = Vec::new();
        for _ in 0..7 {
            h.rate_rounds(1, 1e6);
            velocities.push(h.state("velocity"));
        }
        assert_eq!(velocities[0], 1.0, "{velocities:?}");
        assert!(velocities.windows(2).any(|p| p[1] == 2.0 * p[0] && p[0] >= 1.0), "{velocities:?}");
        assert!(*velocities.last().unwrap() >= 4.0, "{velocities:?}");
        // A queue: the first ACK whose decision is "down" resets v, and
        // the new direction has not yet held for 3 RTTs.
        h.queue_delay = 20 * NS_PER_MS;
        h.rate_rounds(1, 1e6);
        assert_eq!(h.state("velocity"), 1.0);
    }

    #[test]
    fn a_queue_that_never_empties_switches_to_competitive_mode_and_grows_1_over_delta() {
        let mut h = settled(&[]);
        assert_eq!(h.mode("mode"), "default");
        // A buffer filler keeps 30 ms of queue: RTT never returns near RTTmin.
        h.queue_delay = 30 * NS_PER_MS;
        for _ in 0..8 {
            h.rate_rounds(1, 2000.0);
        }
        assert_eq!(h.mode("mode"), "competitive");
        let inv = 1.0 / h.state("delta");
        assert!(inv > 3.0, "1/delta {inv}");
        let before = inv;
        h.rate_rounds(4, 2000.0);
        let grown = 1.0 / h.state("delta") - before;
        assert!((3.0..=5.0).contains(&grown), "1/delta grew {grown} in 4 RTTs");
        // A loss halves 1/delta (never below the default's 2).
        let c = h.conn();
        h.alg.ssthresh(&h.w, &c);
        let halved = 1.0 / h.state("delta");
        assert!((halved - (before + grown) / 2.0).abs() < 1e-9 || halved == 2.0, "{halved}");
        // The queue empties: default mode, default delta.
        h.queue_delay = 0;
        h.rate_rounds(2, 2000.0);
        assert_eq!(h.mode("mode"), "default");
        assert_eq!(h.state("delta"), 0.5);
    }

    #[test]
    fn a_loss_in_default_mode_leaves_the_window_alone() {
        let mut h = settled(&[]);
        let before = h.w.cwnd;
        let c = h.conn();
        h.alg.ssthresh(&h.w, &c);
        assert_eq!(h.state("delta"), 0.5);
        assert_eq!(h.w.cwnd, before);
    }

    #[test]
    fn paces_at_twice_the_window_per_standing_rtt() {
        let h = settled(&[]);
        let rate = h.alg.pacing_rate().unwrap();
        let standing_s = h.state("standing_rtt_ms") / 1e3;
        let expected = 2.0 * h.w.cwnd as f64 * MSS_F / standing_s;
        // w.cwnd is the rounding of Copa's fractional window.
        assert!((rate - expected).abs() <= 1.01 * MSS_F / standing_s, "{rate} vs {expected}");
    }
}
