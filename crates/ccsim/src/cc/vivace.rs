//! PCC Vivace (Dong, Meng, Zarchy, Godfrey, Schapira, "PCC Vivace:
//! Online-Learning Congestion Control", NSDI 2018), following the authors'
//! PCC-Uspace (src/pcc/pcc_vivace_sender.cpp, pcc_utility_manager.cpp: the
//! code Pantheon runs) and, for running inside TCP, PCC-Kernel's tcp_pcc.c.
//!
//! Rate-based: the sender paces at a rate r and watches the results of
//! monitor intervals (MIs) of about one RTT (at least 20 packets). Each MI's
//! utility, with x its sending rate in Mbit/s, L its loss rate and dRTT/dT
//! the slope of its RTT samples over their send times:
//!     u = x^t - b x dRTT/dT - c x L,     t = 0.9, b = 900, c = 11.35.
//! Gradient ascent on u (the paper's section 3):
//! - STARTING: the rate doubles after each MI whose utility beat the last;
//!   when one does worse, back to the last good rate and PROBING.
//! - PROBING: two pairs of MIs at r(1 + eps) and r(1 - eps), eps = 5%, each
//!   pair in random order. If both pairs say the higher rate is better (or
//!   both the lower), the gradient gamma = du/dr decides: MOVING.
//! - MOVING: r += theta0 m(tau) gamma, with the confidence amplifier
//!   m(tau) = floor((tau + 1)/2)^1.2 growing with the tau consecutive steps
//!   in one direction, and the dynamic change boundary: a step is at most
//!   omega r, omega = omega0 + k delta_omega (0.05 + k 0.05), k growing each
//!   time a step is cut to the boundary and shrinking when not. An MI whose
//!   utility no longer improves in the direction of travel reverts the last
//!   step and returns to PROBING.
//!
//! One MI at a time is "useful" (its rate is the decision under test) in
//! STARTING and MOVING, four in PROBING; the others send at r and are not
//! evaluated, as PCC-Uspace.
//!
//! With t < 1 and c = 11.35, u grows with x under a random loss rate p
//! while t x^(t-1) > c p: at 20 Mbit/s up to p = 5.9%, at 100 Mbit/s 5.0%
//! (the paper's "tolerates 5% random loss"); above it the rate falls.
//!
//! Inside TCP (as tcp_pcc.c): Vivace owns the window, cwnd = max(4,
//! 2 r srtt / MSS), so the window never limits the paced rate; the sender's
//! loss recovery retransmits; a retransmission timeout discards the MIs in
//! flight, whose counts it mixes up.
//!
//! Differences, and why:
//! - The results of an ACK are credited to the MI during which its newest
//!   segment was sent (send time = now - its RTT); the sender's hooks do
//!   not say which segments an ACK covers. Losses marked on that ACK go to
//!   the same MI. An MI is complete once data sent after it is ACKed.
//! - PCC-Uspace ignores an RTT gradient that is within the regression's
//!   error (DetermineToleranceGeneral) and clamps negative gradients to
//!   zero; both are kept. Its slower "trending gradient" tolerance (over 6
//!   MIs) is not modelled.
//! - Rates are in Mbit/s of 10^6 bit (the paper's unit; PCC-Uspace uses 2^20).

use super::RecoveryPolicy;
use super::{
    CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, RateSample, Role, StateOut, Window,
    INFINITE_SSTHRESH,
};
use crate::rng::Rng;
use crate::time::{Nanos, NS_PER_MS, NS_PER_SEC};
use std::collections::VecDeque;

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::FloatParam;
    pub const EXPONENT: FloatParam = FloatParam {
        name: "exponent",
        default: 0.9,
        min: 0.1,
        max: 0.99,
        doc: "t: the throughput term x^t (concave below 1; paper 0.9)",
    };
    pub const LATENCY_COEFF: FloatParam = FloatParam {
        name: "latency_coeff",
        default: 900.0,
        min: 0.0,
        max: 100_000.0,
        doc: "b: penalty per unit of RTT gradient dRTT/dT (paper 900)",
    };
    pub const LOSS_COEFF: FloatParam = FloatParam {
        name: "loss_coeff",
        default: 11.35,
        min: 0.0,
        max: 10_000.0,
        doc: "c: penalty per unit of loss rate (paper 11.35: random loss up to about 5% tolerated)",
    };
    pub const PROBE_STEP: FloatParam = FloatParam {
        name: "probe_step",
        default: 0.05,
        min: 0.005,
        max: 0.25,
        doc: "eps: PROBING tests r(1 + eps) and r(1 - eps) (PCC-Uspace 0.05)",
    };
    pub const THETA0: FloatParam = FloatParam {
        name: "theta0",
        default: 1.0,
        min: 0.01,
        max: 100.0,
        doc: "rate step in Mbit/s per unit of utility gradient (per Mbit/s) (PCC-Uspace 1)",
    };
    pub const OMEGA0: FloatParam = FloatParam {
        name: "omega0",
        default: 0.05,
        min: 0.005,
        max: 1.0,
        doc: "dynamic change boundary: a step is at most (omega0 + k * omega_step) r (PCC-Uspace 0.05)",
    };
    pub const OMEGA_STEP: FloatParam = FloatParam {
        name: "omega_step",
        default: 0.05,
        min: 0.0,
        max: 1.0,
        doc: "growth of the boundary each time a step is cut to it (PCC-Uspace 0.05)",
    };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const PHASE: StateVar = StateVar::mode("phase", &["starting", "probing", "moving"]);
    pub const RATE_BPS: StateVar = StateVar::float("rate_bps", "bit/s");
    pub const UTILITY: StateVar = StateVar::float("utility", "");
    pub const GRADIENT: StateVar = StateVar::float("gradient", "per Mbit/s");
    pub const STEP_BPS: StateVar = StateVar::float("step_bps", "bit/s");
}

pub const INFO: Info = Info {
    name: "vivace",
    reference: "Dong et al., NSDI 2018 (PCC Vivace); PCC-Uspace pcc_vivace_sender.cpp (Pantheon); PCC-Kernel tcp_pcc.c",
    summary: "rate-based online learning: utility x^0.9 - 900 x dRTT/dT - 11.35 x L per monitor interval, gradient ascent with confidence amplifier and change boundary; paced",
    recovery: RecoveryPolicy::NewReno,
    params: &[
        Param::Float(&param::EXPONENT),
        Param::Float(&param::LATENCY_COEFF),
        Param::Float(&param::LOSS_COEFF),
        Param::Float(&param::PROBE_STEP),
        Param::Float(&param::THETA0),
        Param::Float(&param::OMEGA0),
        Param::Float(&param::OMEGA_STEP),
    ],
    state: &[state::PHASE, state::RATE_BPS, state::UTILITY, state::GRADIENT, state::STEP_BPS],
    // A general-purpose scheme, evaluated by its authors on Internet paths.
    role: Role::General,
    linux: LinuxModule::SimulatorOnly { why: "PCC Vivace (NSDI 2018; user-space PCC-Uspace, no Linux module)" },
    ns3: None,
};

/// Bits in the paper's Mbit.
const MBIT: f64 = 1e6;
/// An MI lasts an RTT (PCC-Uspace kMonitorIntervalDuration) and at least
/// the time of 20 packets (kMinimumPacketsPerInterval).
const MI_RTTS: f64 = 1.0;
const MI_MIN_PACKETS: f64 = 20.0;
/// The lowest rate and the smallest step (PCC-Uspace kMinSendingRate, kMinRateChange: 500 kbit/s).
const MIN_RATE_BPS: f64 = 0.5 * MBIT;
const MIN_STEP_BPS: f64 = 0.5 * MBIT;
/// Confidence amplifier exponent (PCC-Uspace kRateChangeAmplifyExponent).
const AMPLIFIER_EXPONENT: f64 = 1.2;
/// PROBING runs this many pairs of MIs (two: PCC-Uspace, tcp_pcc.c).
const PROBE_PAIRS: usize = 2;
/// RTT assumed before the first sample, for the starting rate (assumed:
/// QUIC's kInitialRtt, 100 ms; it sets only the first MI's rate).
const INITIAL_RTT_NS: Nanos = 100 * NS_PER_MS;
/// An MI whose data is never ACKed (all lost, or the flow idle) is closed
/// after this many smoothed RTTs past its end.
const MI_GIVE_UP_RTTS: u64 = 4;
/// Smallest window (tcp_pcc.c pcc_set_cwnd).
const MIN_CWND: u32 = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Starting = 0,
    Probing = 1,
    Moving = 2,
}

/// One monitor interval: the segments sent in [start, end) at `rate`.
#[derive(Clone, Copy, Debug, Default)]
struct Mi {
    start: Nanos,
    /// Nanos::MAX while it is the current one.
    end: Nanos,
    rate_bps: f64,
    useful: bool,
    /// (probing round, index 0..4) of a probe.
    probe: Option<(u32, usize)>,
    acked: u64,
    lost: u64,
    /// Least-squares sums of (send time in s from `start`, RTT in s).
    n: f64,
    sx: f64,
    sy: f64,
    sxx: f64,
    sxy: f64,
    syy: f64,
}

impl Mi {
    fn add_rtt(&mut self, sent: Nanos, rtt: Nanos) {
        let x = sent.saturating_sub(self.start) as f64 / 1e9;
        let y = rtt as f64 / 1e9;
        self.n += 1.0;
        self.sx += x;
        self.sy += y;
        self.sxx += x * x;
        self.sxy += x * y;
        self.syy += y * y;
    }

    /// dRTT/dT by linear regression, 0 when within the fit's error or negative.
    fn rtt_gradient(&self) -> f64 {
        let n = self.n;
        let var_x = n * self.sxx - self.sx * self.sx;
        if n < 2.0 || var_x <= 0.0 {
            return 0.0;
        }
        let slope = (n * self.sxy - self.sx * self.sy) / var_x;
        let intercept = (self.sy - slope * self.sx) / n;
        let sse = (self.syy - intercept * self.sy - slope * self.sxy).max(0.0);
        let error = (sse / n).sqrt() / (self.sy / n);
        if slope.abs() <= error {
            0.0
        } else {
            slope.max(0.0)
        }
    }
}

/// A result: an MI's rate under test and its utility.
#[derive(Clone, Copy, Debug)]
struct Sample {
    rate_bps: f64,
    utility: f64,
}

/// The utility of sending at `x_mbps` with loss rate `loss` and RTT gradient `gradient`.
pub fn utility(x_mbps: f64, gradient: f64, loss: f64, t: f64, b: f64, c: f64) -> f64 {
    x_mbps.powf(t) - b * x_mbps * gradient - c * x_mbps * loss
}

pub struct Vivace {
    t: f64,
    b: f64,
    c: f64,
    eps: f64,
    theta0: f64,
    omega0: f64,
    omega_step: f64,
    rng: Rng,
    mss: u32,

    phase: Phase,
    /// The central rate r, bit/s.
    rate_bps: f64,
    /// The MIs awaiting results, oldest first; the last is the current one.
    mis: VecDeque<Mi>,
    latest: Option<Sample>,
    /// +1 (increase) or -1 (decrease): MOVING's direction.
    direction: f64,
    /// tau: consecutive steps in one direction.
    rounds: u32,
    /// k of the change boundary.
    boundary_steps: u32,
    probing_round: u32,
    probes_started: usize,
    /// Which of each pair goes first: true = the higher rate.
    probe_high_first: [bool; PROBE_PAIRS],
    probe_results: [Option<Sample>; 2 * PROBE_PAIRS],
    last_utility: f64,
    last_gradient: f64,
    last_step_bps: f64,
    init_cwnd: u32,
    rtt_seen: bool,
}

impl Vivace {
    pub fn new(p: &Params) -> Vivace {
        Vivace {
            t: p.float(&param::EXPONENT),
            b: p.float(&param::LATENCY_COEFF),
            c: p.float(&param::LOSS_COEFF),
            eps: p.float(&param::PROBE_STEP),
            theta0: p.float(&param::THETA0),
            omega0: p.float(&param::OMEGA0),
            omega_step: p.float(&param::OMEGA_STEP),
            rng: p.rng(),
            mss: p.mss(),
            phase: Phase::Starting,
            rate_bps: MIN_RATE_BPS,
            mis: VecDeque::with_capacity(16),
            latest: None,
            direction: 1.0,
            rounds: 0,
            boundary_steps: 0,
            probing_round: 0,
            probes_started: 0,
            probe_high_first: [true; PROBE_PAIRS],
            probe_results: [None; 2 * PROBE_PAIRS],
            last_utility: f64::NAN,
            last_gradient: f64::NAN,
            last_step_bps: 0.0,
            init_cwnd: 10,
            rtt_seen: false,
        }
    }

    fn current_rate(&self) -> f64 {
        self.mis.back().map_or(self.rate_bps, |m| m.rate_bps)
    }

    /// Starts the next MI at `now`, choosing whether it is useful and its rate.
    fn start_mi(&mut self, now: Nanos, rtt_known: bool) {
        let useful_pending = self.mis.iter().filter(|m| m.useful).count();
        let mut mi = Mi { start: now, end: Nanos::MAX, rate_bps: self.rate_bps, ..Mi::default() };
        if rtt_known {
            match self.phase {
                Phase::Starting | Phase::Moving => mi.useful = useful_pending == 0,
                Phase::Probing if self.probes_started < 2 * PROBE_PAIRS => {
                    let k = self.probes_started;
                    let high = self.probe_high_first[k / 2] == k.is_multiple_of(2);
                    mi.useful = true;
                    mi.probe = Some((self.probing_round, k));
                    mi.rate_bps = self.rate_bps * if high { 1.0 + self.eps } else { 1.0 - self.eps };
                    self.probes_started += 1;
                }
                Phase::Probing => {}
            }
        }
        self.mis.push_back(mi);
    }

    fn mi_length(&self, srtt: Nanos, rate_bps: f64) -> Nanos {
        let packets = MI_MIN_PACKETS * self.mss as f64 * 8.0 / rate_bps.max(1.0) * NS_PER_SEC as f64;
        ((MI_RTTS * srtt as f64).max(packets)) as Nanos
    }

    fn enter_probing(&mut self) {
        self.phase = Phase::Probing;
        self.probing_round += 1;
        self.probes_started = 0;
        self.probe_results = [None; 2 * PROBE_PAIRS];
        for first in &mut self.probe_high_first {
            *first = self.rng.chance(0.5);
        }
    }

    /// The step for a gradient `gamma` (utility per Mbit/s), in bit/s: theta0
    /// gamma, amplified in MOVING, cut to the change boundary, at least 0.5
    /// Mbit/s (PCC-Uspace ComputeRateChange).
    fn step_bps(&mut self, gamma: f64, amplify: bool) -> f64 {
        let mut step = gamma.abs() * self.theta0 * MBIT;
        if amplify {
            step *= (self.rounds.div_ceil(2) as f64).powf(AMPLIFIER_EXPONENT);
        } else {
            self.boundary_steps = 0;
        }
        let bound = self.rate_bps * (self.omega0 + self.omega_step * self.boundary_steps as f64);
        if step > bound {
            step = bound;
            self.boundary_steps += 1;
        } else {
            self.boundary_steps = self.boundary_steps.saturating_sub(1);
        }
        step.max(MIN_STEP_BPS)
    }

    fn move_rate(&mut self, step: f64) {
        self.last_step_bps = step;
        self.rate_bps = (self.rate_bps + step).max(MIN_RATE_BPS);
    }

    /// The controller's reaction to a useful MI's result.
    fn on_result(&mut self, mi: &Mi, s: Sample) {
        match self.phase {
            Phase::Starting => match self.latest {
                Some(l) if s.utility <= l.utility => {
                    self.last_step_bps = l.rate_bps - self.rate_bps;
                    self.rate_bps = l.rate_bps;
                    self.enter_probing();
                }
                _ => {
                    self.latest = Some(s);
                    self.last_step_bps = self.rate_bps;
                    self.rate_bps *= 2.0;
                }
            },
            Phase::Probing => {
                let Some((round, k)) = mi.probe else { return };
                if round != self.probing_round {
                    return;
                }
                self.probe_results[k] = Some(s);
                if self.probe_results.iter().all(Option::is_some) {
                    self.decide_after_probing();
                }
            }
            Phase::Moving => {
                let Some(l) = self.latest else { return };
                let dr = s.rate_bps - l.rate_bps;
                let du = s.utility - l.utility;
                if dr == 0.0 {
                    return; // not a test of the last step: wait for one
                }
                let gamma = du / (dr / MBIT);
                self.last_gradient = gamma;
                if gamma * self.direction > 0.0 {
                    // Utility still improves in the direction of travel.
                    self.rounds += 1;
                    let step = self.step_bps(gamma, true);
                    self.move_rate(self.direction * step);
                    self.latest = Some(s);
                } else {
                    let step = self.step_bps(gamma, true);
                    self.move_rate(-self.direction * step);
                    self.enter_probing();
                }
            }
        }
    }

    fn decide_after_probing(&mut self) {
        let results = self.probe_results.map(|r| r.expect("all probes in"));
        let mut votes_up = 0;
        let mut pair_gain = [0.0; PROBE_PAIRS];
        let mut pair_better = [results[0]; PROBE_PAIRS];
        for (i, pair) in results.chunks(2).enumerate() {
            let (hi, lo) = if pair[0].rate_bps > pair[1].rate_bps { (pair[0], pair[1]) } else { (pair[1], pair[0]) };
            if hi.utility > lo.utility {
                votes_up += 1;
            }
            pair_gain[i] = (hi.utility - lo.utility).abs();
            pair_better[i] = if hi.utility > lo.utility { hi } else { lo };
        }
        if votes_up != 0 && votes_up != PROBE_PAIRS {
            self.enter_probing(); // the pairs disagree: probe again
            return;
        }
        self.direction = if votes_up == PROBE_PAIRS { 1.0 } else { -1.0 };
        let dr_mbps = (results[0].rate_bps - results[1].rate_bps).abs() / MBIT;
        let gamma = pair_gain.iter().sum::<f64>() / PROBE_PAIRS as f64 / dr_mbps * self.direction;
        self.last_gradient = gamma;
        self.latest = Some(pair_better[PROBE_PAIRS - 1]);
        // Move to the better probe rate, then take the step.
        self.rate_bps *= 1.0 + self.direction * self.eps;
        self.rounds = 1;
        let step = self.step_bps(gamma, false);
        self.move_rate(self.direction * step);
        self.phase = Phase::Moving;
    }

    /// Closes MI `mi`: its utility, and the controller's reaction if useful.
    fn finish(&mut self, mi: Mi) {
        let packets = mi.acked + mi.lost;
        if !mi.useful {
            return;
        }
        if packets == 0 || mi.end <= mi.start {
            // No result: a probe is lost, so probe again.
            if self.phase == Phase::Probing && mi.probe.is_some_and(|(r, _)| r == self.probing_round) {
                self.enter_probing();
            }
            return;
        }
        let secs = (mi.end - mi.start) as f64 / 1e9;
        let x_mbps = packets as f64 * self.mss as f64 * 8.0 / secs / MBIT;
        let loss = mi.lost as f64 / packets as f64;
        let u = utility(x_mbps, mi.rtt_gradient(), loss, self.t, self.b, self.c);
        self.last_utility = u;
        self.on_result(&mi, Sample { rate_bps: mi.rate_bps, utility: u });
    }

    fn set_window(&self, w: &mut Window, srtt: Nanos) {
        let bytes = 2.0 * self.current_rate() / 8.0 * srtt as f64 / 1e9;
        w.cwnd = ((bytes / self.mss as f64).ceil() as u32).max(MIN_CWND).min(w.cwnd_clamp);
    }
}

impl CongestionControl for Vivace {
    const OWNS_WINDOW: bool = true;
    const PACES: bool = true;

    fn init(&mut self, w: &mut Window, c: &Conn) {
        self.mss = c.mss;
        self.init_cwnd = w.cwnd;
        self.rtt_seen = c.srtt_ns > 0;
        w.ssthresh = INFINITE_SSTHRESH;
        let rtt = if c.srtt_ns > 0 { c.srtt_ns } else { INITIAL_RTT_NS };
        self.rate_bps = (w.cwnd as f64 * self.mss as f64 * 8.0 * 1e9 / rtt as f64).max(MIN_RATE_BPS);
        self.mis.clear();
        self.start_mi(c.now, c.srtt_ns > 0);
        self.set_window(w, rtt);
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        w.ssthresh // the window is Vivace's; losses count in the MIs
    }

    fn set_state(&mut self, _w: &mut Window, _c: &Conn, new: CaState) {
        if new == CaState::Loss {
            // A timeout: the counts of the MIs in flight cannot be trusted.
            for mi in &mut self.mis {
                mi.useful = false;
            }
            if self.phase == Phase::Probing {
                self.enter_probing();
            }
        }
    }

    fn undo_cwnd(&mut self, w: &Window, _prior_cwnd: u32) -> u32 {
        w.cwnd
    }

    #[inline]
    fn cong_control(&mut self, w: &mut Window, c: &Conn, rs: &RateSample) {
        let now = c.now;
        let srtt = if c.srtt_ns > 0 { c.srtt_ns } else { rs.rtt_ns.unwrap_or(INITIAL_RTT_NS) };
        if !self.rtt_seen && c.srtt_ns > 0 {
            // PCC starts at the initial window per the handshake's RTT: the
            // first measured RTT replaces the assumed one.
            self.rtt_seen = true;
            if self.phase == Phase::Starting && self.latest.is_none() {
                self.rate_bps =
                    (self.init_cwnd as f64 * self.mss as f64 * 8.0 * 1e9 / c.srtt_ns as f64).max(MIN_RATE_BPS);
            }
        }
        // Credit the ACK to the MI in which its newest segment was sent.
        let sent = rs.rtt_ns.map(|rtt| now.saturating_sub(rtt));
        let target = match sent {
            Some(t) => self.mis.iter().rposition(|m| m.start <= t),
            None => (!self.mis.is_empty()).then_some(0),
        };
        if let Some(i) = target {
            let mi = &mut self.mis[i];
            mi.acked += rs.acked_sacked as u64;
            mi.lost += rs.losses as u64;
            if let (Some(t), Some(rtt)) = (sent, rs.rtt_ns) {
                mi.add_rtt(t, rtt);
            }
        }
        // The current MI ends after its length: start the next.
        let current = *self.mis.back().expect("an MI is always open");
        if now >= current.start + self.mi_length(srtt, current.rate_bps) {
            self.mis.back_mut().expect("open MI").end = now;
            self.start_mi(now, c.srtt_ns > 0);
        }
        // Complete the closed MIs whose data is all answered.
        while self.mis.len() > 1 {
            let front = self.mis[0];
            let answered = sent.is_some_and(|t| t >= front.end);
            if !answered && now < front.end + MI_GIVE_UP_RTTS * srtt {
                break;
            }
            self.mis.pop_front();
            self.finish(front);
        }
        self.set_window(w, srtt);
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.current_rate() / 8.0)
    }

    fn state(&self, out: &mut StateOut) {
        out.mode(&state::PHASE, self.phase as usize);
        out.number(&state::RATE_BPS, self.rate_bps);
        out.number(&state::UTILITY, self.last_utility);
        out.number(&state::GRADIENT, self.last_gradient);
        out.number(&state::STEP_BPS, self.last_step_bps);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::Harness;
    use crate::cc::{build, Algorithm};
    use std::collections::BTreeMap;

    fn vivace() -> Vivace {
        match build("vivace", &BTreeMap::new(), 1448) {
            Some(Algorithm::Vivace(v)) => v,
            _ => unreachable!(),
        }
    }

    #[test]
    fn utility_is_the_papers_function() {
        // 10 Mbit/s, no gradient, no loss: 10^0.9.
        assert!((utility(10.0, 0.0, 0.0, 0.9, 900.0, 11.35) - 10f64.powf(0.9)).abs() < 1e-12);
        // Each term: -900 x dRTT/dT and -11.35 x L.
        let u = utility(10.0, 0.01, 0.02, 0.9, 900.0, 11.35);
        assert!((u - (10f64.powf(0.9) - 90.0 - 2.27)).abs() < 1e-9, "{u}");
        // The loss threshold: du/dx = t x^(t-1) - c p changes sign at p*.
        let threshold = |x: f64| 0.9 * x.powf(-0.1) / 11.35;
        assert!((threshold(100.0) - 0.050).abs() < 0.001, "{}", threshold(100.0));
        let slope =
            |x: f64, p: f64| utility(x * 1.01, 0.0, p, 0.9, 900.0, 11.35) - utility(x, 0.0, p, 0.9, 900.0, 11.35);
        assert!(slope(20.0, 0.05) > 0.0 && slope(20.0, 0.065) < 0.0);
    }

    #[test]
    fn the_rtt_gradient_is_a_regression_slope_and_noise_is_ignored() {
        let mut mi = Mi::default();
        // RTT grows 1 ms per 100 ms sent: dRTT/dT = 0.01.
        for k in 0..50u64 {
            mi.add_rtt(k * 2 * NS_PER_MS, 50 * NS_PER_MS + k * 20_000);
        }
        assert!((mi.rtt_gradient() - 0.01).abs() < 1e-9, "{}", mi.rtt_gradient());
        // Alternating noise of +-2 ms without a trend: no gradient.
        let mut noisy = Mi::default();
        for k in 0..50u64 {
            noisy.add_rtt(k * 2 * NS_PER_MS, 50 * NS_PER_MS + (k % 2) * 4 * NS_PER_MS);
        }
        assert_eq!(noisy.rtt_gradient(), 0.0);
        // A falling RTT counts as no gradient.
        let mut falling = Mi::default();
        for k in 0..50u64 {
            falling.add_rtt(k * 2 * NS_PER_MS, 60 * NS_PER_MS - k * 20_000);
        }
        assert_eq!(falling.rtt_gradient(), 0.0);
    }

    #[test]
    fn starting_doubles_while_utility_grows_then_reverts_and_probes() {
        let mut v = vivace();
        v.rate_bps = 1e6;
        let mi = Mi::default();
        v.on_result(&mi, Sample { rate_bps: 1e6, utility: 1.0 });
        assert_eq!(v.rate_bps, 2e6);
        v.on_result(&mi, Sample { rate_bps: 2e6, utility: 1.8 });
        assert_eq!(v.rate_bps, 4e6);
        v.on_result(&mi, Sample { rate_bps: 4e6, utility: 1.5 });
        assert_eq!(v.rate_bps, 2e6, "back to the last good rate");
        assert_eq!(v.phase, Phase::Probing);
    }

    /// Runs one probing round with utilities from `u(rate)`.
    fn probe(v: &mut Vivace, u: impl Fn(f64) -> f64) {
        for k in 0..4 {
            v.start_mi(0, true);
            let mi = v.mis.pop_back().unwrap();
            assert_eq!(mi.probe.unwrap().1, k);
            v.on_result(&mi, Sample { rate_bps: mi.rate_bps, utility: u(mi.rate_bps) });
        }
    }

    #[test]
    fn probing_moves_the_way_both_pairs_agree_with_amplified_bounded_steps() {
        let mut v = vivace();
        v.rate_bps = 20e6;
        v.enter_probing();
        // Utility rising 0.1 per Mbit/s: both pairs vote up.
        probe(&mut v, |r| 0.1 * r / MBIT);
        assert_eq!(v.phase, Phase::Moving);
        assert!((v.last_gradient - 0.1).abs() < 1e-9, "{}", v.last_gradient);
        // r(1 + eps) plus theta0 * gamma = 0.1 Mbit/s, raised to the 0.5 Mbit/s floor.
        assert!((v.rate_bps - (21e6 + 0.5e6)).abs() < 1.0, "{}", v.rate_bps);
        // A steep gradient in MOVING: steps grow with tau but stay within omega r.
        let mut rate = v.rate_bps;
        let mut latest = v.latest.unwrap();
        let mut steps = Vec::new();
        for _ in 0..6 {
            let s = Sample { rate_bps: rate, utility: latest.utility + 100.0 * (rate - latest.rate_bps) / MBIT };
            v.on_result(&Mi::default(), s);
            steps.push((v.rate_bps - rate) / rate);
            latest = s;
            rate = v.rate_bps;
        }
        assert_eq!(v.phase, Phase::Moving);
        // Cut to the boundary each time: 5%, 10%, 15%, ... of the rate.
        for (i, s) in steps.iter().enumerate() {
            assert!((s - 0.05 * (i + 1) as f64).abs() < 1e-9, "steps {steps:?}");
        }
        // Utility falls in the direction of travel: the step is undone, PROBING.
        let before = v.rate_bps;
        v.on_result(&Mi::default(), Sample { rate_bps: before, utility: latest.utility - 1.0 });
        assert_eq!(v.phase, Phase::Probing);
        assert!(v.rate_bps < before);
    }

    #[test]
    fn probing_pairs_that_disagree_probe_again() {
        let mut v = vivace();
        v.rate_bps = 20e6;
        v.enter_probing();
        let round = v.probing_round;
        // Pair 0 prefers the higher rate, pair 1 the lower one.
        for k in 0..4 {
            v.start_mi(0, true);
            let mi = v.mis.pop_back().unwrap();
            let high = mi.rate_bps > 20e6;
            let u = if (k < 2) == high { 1.0 } else { 0.0 };
            v.on_result(&mi, Sample { rate_bps: mi.rate_bps, utility: u });
        }
        assert_eq!(v.phase, Phase::Probing);
        assert_eq!(v.probing_round, round + 1);
        assert_eq!(v.rate_bps, 20e6);
    }

    #[test]
    fn in_a_harness_the_rate_doubles_per_monitor_interval_while_starting() {
        let mut h = Harness::new("vivace", 50);
        assert_eq!(h.mode("phase"), "starting");
        let first = h.state("rate_bps");
        h.rate_rounds(8, 1e6);
        // Results come an RTT after each MI, one useful MI at a time: the
        // rate has doubled at least twice in 8 RTTs, and the window covers
        // twice the rate's BDP.
        let rate = h.state("rate_bps");
        assert!(rate >= 4.0 * first, "{first} -> {rate}");
        assert_eq!(h.mode("phase"), "starting");
        let bdp = h.alg.pacing_rate().unwrap() * 0.05 / MSS as f64;
        assert!(h.w.cwnd as f64 >= 2.0 * bdp - 1.0, "cwnd {} for a BDP of {bdp}", h.w.cwnd);
    }

    use crate::cc::harness::MSS;
}
