//! BBRv3 (Cardwell et al., IETF draft-cardwell-ccwg-bbr-00, the version
//! matching Linux's v3 code; google/bbr v3 branch net/ipv4/tcp_bbr.c), with
//! that code's constants. bbr (v1, cc/bbr.rs) is a separate algorithm.
//!
//! The model adds to v1's max bandwidth and min RTT two pairs of bounds:
//!   inflight_hi (long term): cut on a probe that saw loss above 2% of the
//!     flight (loss_thresh) or CE on more than 50% (ecn_thresh), to
//!     max(flight at the time, 0.7 target) (beta 0.7), raised again in UP;
//!   bw_lo / inflight_lo (short term): each round with loss or ECN outside
//!     probing, cut to max(latest, 0.7 x bound) (loss) or by
//!     1 - ecn_alpha / 3 (ECN, ecn_alpha an EWMA of the CE ratio, gain 1/16);
//!     reset when a probe starts (REFILL).
//! States and gains (pacing, cwnd):
//! ```text
//!   STARTUP (2.77, 2) --bw grew < 25% in 3 rounds, or 6+ losses and >2% in a
//!                       round, or 2 rounds of CE > 50%--> DRAIN (0.35, 2)
//!   DRAIN --in flight <= BDP--> PROBE_BW:
//!     DOWN (0.91, 2) --in flight <= min(BDP, 85% inflight_hi)--> CRUISE (1, 2)
//!     CRUISE --2 to 3 s, or min(BDP, 63) rounds (Reno coexistence)--> REFILL (1, 2)
//!     REFILL --one round--> UP (1.25, 2.25): inflight_hi grows 1, 2, 4, ... per round
//!     UP --a min RTT and in flight >= 1.25 BDP, or loss/ECN too high--> DOWN
//!   any --no min-RTT sample of the last 5 s--> PROBE_RTT: cwnd 0.5 BDP for
//!                       200 ms and a round (10 s min_rtt window)
//! ```
//! pacing = gain x min(max_bw, bw_lo) x 99%; cwnd = cwnd gain x BDP, at
//! most inflight_lo and inflight_hi (85% of it in CRUISE), at least 4.
//! max_bw is the max over the last two PROBE_BW cycles.
//!
//! Simplified against the Linux code: no ACK-aggregation allowance, no TSO
//! budget, no fast path, no PLB, no loss-recovery packet conservation (a
//! loss sets only the bounds; an RTO restarts from cwnd 1 as the sender
//! does); ECN is used at any RTT (Linux: only below 5 ms, bbr_ecn_max_rtt_us);
//! the loss rate of a probe is that of the round (losses marked since the
//! round began over the flight at its start), not per rate sample.

use super::RecoveryPolicy;
use super::{
    CaEvent, CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, RateSample, Role, StateOut, Window,
};
use crate::rng::Rng;
use crate::time::{Nanos, NS_PER_MS, NS_PER_SEC};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::{BoolParam, FloatParam};
    pub const LOSS_THRESH: FloatParam = FloatParam {
        name: "loss_thresh",
        default: 0.02,
        min: 0.0,
        max: 1.0,
        doc: "a probe whose round lost more than this share of the flight went too high (bbr_loss_thresh)",
    };
    pub const BETA: FloatParam = FloatParam {
        name: "beta",
        default: 0.7,
        min: 0.0,
        max: 1.0,
        doc: "bounds are cut to this share on loss (1 - bbr_beta)",
    };
    pub const ECN_THRESH: FloatParam = FloatParam {
        name: "ecn_thresh",
        default: 0.5,
        min: 0.0,
        max: 1.0,
        doc: "a CE ratio above this in a round is too high (bbr_ecn_thresh)",
    };
    pub const ECN_FACTOR: FloatParam = FloatParam {
        name: "ecn_factor",
        default: 1.0 / 3.0,
        min: 0.0,
        max: 1.0,
        doc: "inflight_lo *= 1 - ecn_factor * ecn_alpha on a round with CE (bbr_ecn_factor)",
    };
    pub const PROBE_RTT_INTERVAL_S: FloatParam = FloatParam {
        name: "probe_rtt_interval_s",
        default: 5.0,
        min: 0.5,
        max: 10.0,
        doc: "PROBE_RTT when no min-RTT sample this old was refreshed (bbr_probe_rtt_win_ms)",
    };
    pub const ECN: BoolParam =
        BoolParam { name: "ecn", default: true, doc: "1: respond to CE marks (needs tcp.ecn on the flow)" };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const MODE: StateVar = StateVar::mode("mode", &["startup", "drain", "probe_bw", "probe_rtt"]);
    pub const PHASE: StateVar = StateVar::mode("phase", &["up", "down", "cruise", "refill"]);
    pub const BW_BPS: StateVar = StateVar::float("bw_bps", "bit/s");
    pub const MIN_RTT_MS: StateVar = StateVar::float("min_rtt_ms", "ms");
    pub const INFLIGHT_HI: StateVar = StateVar::float("inflight_hi", "segments");
    pub const INFLIGHT_LO: StateVar = StateVar::float("inflight_lo", "segments");
    pub const ECN_ALPHA: StateVar = StateVar::float("ecn_alpha", "");
}

pub const INFO: Info = Info {
    name: "bbr3",
    reference: "Cardwell et al., draft-cardwell-ccwg-bbr-00; google/bbr v3 tcp_bbr.c",
    summary: "BBRv3: PROBE_BW UP/DOWN/CRUISE/REFILL, inflight_hi cut on >2% loss or >50% CE, \
              inflight_lo/bw_lo per round, PROBE_RTT every 5 s at half the BDP",
    recovery: RecoveryPolicy::NewReno,
    params: &[
        Param::Float(&param::LOSS_THRESH),
        Param::Float(&param::BETA),
        Param::Float(&param::ECN_THRESH),
        Param::Float(&param::ECN_FACTOR),
        Param::Float(&param::PROBE_RTT_INTERVAL_S),
        Param::Bool(&param::ECN),
    ],
    state: &[
        state::MODE,
        state::PHASE,
        state::BW_BPS,
        state::MIN_RTT_MS,
        state::INFLIGHT_HI,
        state::INFLIGHT_LO,
        state::ECN_ALPHA,
    ],
    // Google's production congestion control for the Internet (draft-cardwell-ccwg-bbr).
    role: Role::General,
    linux: LinuxModule::OutOfTree {
        name: "bbr3",
        note: "BBRv3 (the google/bbr v3 branch; mainline Linux's bbr is BBRv1)",
    },
    ns3: None,
};

const STARTUP_PACING_GAIN: f64 = 2.77;
const DRAIN_PACING_GAIN: f64 = 1.0 / 2.885;
const CWND_GAIN: f64 = 2.0;
/// PROBE_BW pacing gains by phase: UP, DOWN, CRUISE, REFILL.
const PHASE_GAIN: [f64; 4] = [1.25, 0.91, 1.0, 1.0];
/// UP's cwnd gain: 2 + bbr_bw_probe_cwnd_gain / 4.
const UP_CWND_GAIN: f64 = 2.25;
const PACING_MARGIN: f64 = 0.01;
const CWND_MIN: f64 = 4.0;
const FULL_BW_THRESH: f64 = 1.25;
const FULL_BW_CNT: u32 = 3;
const FULL_LOSS_CNT: u32 = 6;
const FULL_ECN_CNT: u32 = 2;
const HEADROOM: f64 = 0.15;
const ECN_ALPHA_GAIN: f64 = 1.0 / 16.0;
const MIN_RTT_WIN_NS: Nanos = 10 * NS_PER_SEC;
const PROBE_RTT_MODE_NS: Nanos = 200 * NS_PER_MS;
const PROBE_RTT_CWND_GAIN: f64 = 0.5;
const BW_PROBE_MAX_ROUNDS: u64 = 63;
const BW_PROBE_BASE_NS: Nanos = 2 * NS_PER_SEC;
const BW_PROBE_RAND_NS: Nanos = NS_PER_SEC;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup = 0,
    Drain = 1,
    ProbeBw = 2,
    ProbeRtt = 3,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Up = 0,
    Down = 1,
    Cruise = 2,
    Refill = 3,
}

pub struct Bbr3 {
    loss_thresh: f64,
    beta: f64,
    ecn_thresh: f64,
    ecn_factor: f64,
    probe_rtt_win_ns: Nanos,
    use_ecn: bool,
    mss: u32,
    rng: Rng,
    pub mode: Mode,
    pub phase: Phase,
    /// Max bandwidth of the current and the previous cycle, in segments per second.
    bw_hi: [f64; 2],
    bw_lo: f64,
    bw_latest: f64,
    pub inflight_hi: f64,
    pub inflight_lo: f64,
    inflight_latest: f64,
    min_rtt_ns: Nanos,
    min_rtt_stamp: Nanos,
    probe_rtt_min_ns: Nanos,
    probe_rtt_min_stamp: Nanos,
    probe_rtt_done: Option<Nanos>,
    probe_rtt_round_done: bool,
    prior_cwnd: u32,
    // Rounds.
    next_round_delivered: u64,
    round_start: bool,
    round_count: u64,
    rounds_since_probe: u64,
    // Startup.
    full_bw: f64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    full_bw_now: bool,
    startup_ecn_rounds: u32,
    // Congestion signals of the round.
    round_lost_base: u64,
    round_ce_base: u64,
    round_delivered_base: u64,
    round_flight: f64,
    lost: u64,
    loss_in_round: bool,
    loss_events_in_round: u32,
    pub ecn_alpha: f64,
    // PROBE_BW cycle.
    cycle_stamp: Nanos,
    probe_wait_ns: Nanos,
    probe_up_rounds: u32,
    probe_up_cnt: f64,
    probe_up_acks: f64,
    /// The ACKs now reflect a probe (UP and its round after).
    probe_samples: bool,
    stopping_round: bool,
    pacing_rate: f64,
}

impl Bbr3 {
    pub fn new(p: &Params) -> Bbr3 {
        Bbr3 {
            loss_thresh: p.float(&param::LOSS_THRESH),
            beta: p.float(&param::BETA),
            ecn_thresh: p.float(&param::ECN_THRESH),
            ecn_factor: p.float(&param::ECN_FACTOR),
            probe_rtt_win_ns: (p.float(&param::PROBE_RTT_INTERVAL_S) * NS_PER_SEC as f64) as Nanos,
            use_ecn: p.flag(&param::ECN),
            mss: p.mss(),
            rng: p.rng(),
            mode: Mode::Startup,
            phase: Phase::Down,
            bw_hi: [0.0; 2],
            bw_lo: f64::INFINITY,
            bw_latest: 0.0,
            inflight_hi: f64::INFINITY,
            inflight_lo: f64::INFINITY,
            inflight_latest: 0.0,
            min_rtt_ns: Nanos::MAX,
            min_rtt_stamp: 0,
            probe_rtt_min_ns: Nanos::MAX,
            probe_rtt_min_stamp: 0,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            next_round_delivered: 0,
            round_start: false,
            round_count: 0,
            rounds_since_probe: 0,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            full_bw_now: false,
            startup_ecn_rounds: 0,
            round_lost_base: 0,
            round_ce_base: 0,
            round_delivered_base: 0,
            round_flight: 0.0,
            lost: 0,
            loss_in_round: false,
            loss_events_in_round: 0,
            ecn_alpha: 1.0,
            cycle_stamp: 0,
            probe_wait_ns: 0,
            probe_up_rounds: 0,
            probe_up_cnt: f64::INFINITY,
            probe_up_acks: 0.0,
            probe_samples: false,
            stopping_round: false,
            // Before the first RTT sample: 10 segments per ms (Linux: init cwnd / 1 ms x high gain).
            pacing_rate: 10.0 * p.mss() as f64 * 1e3 * STARTUP_PACING_GAIN,
        }
    }

    fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// The bandwidth used: max_bw, bounded by bw_lo.
    fn bw(&self) -> f64 {
        self.max_bw().min(self.bw_lo)
    }

    /// gain x the BDP, in segments (the initial window before an RTT sample).
    fn bdp(&self, gain: f64) -> f64 {
        if self.min_rtt_ns == Nanos::MAX {
            return 10.0;
        }
        gain * self.bw() * self.min_rtt_ns as f64 / NS_PER_SEC as f64
    }

    fn pacing_gain(&self) -> f64 {
        match self.mode {
            Mode::Startup => STARTUP_PACING_GAIN,
            Mode::Drain => DRAIN_PACING_GAIN,
            Mode::ProbeBw => PHASE_GAIN[self.phase as usize],
            Mode::ProbeRtt => 1.0,
        }
    }

    fn cwnd_gain(&self) -> f64 {
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            UP_CWND_GAIN
        } else {
            CWND_GAIN
        }
    }

    /// Linux bbr_update_round: a round ends when a segment sent after its start is ACKed.
    fn update_round(&mut self, c: &Conn, rs: &RateSample) {
        self.round_start = false;
        if rs.delivered >= 0 && rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = c.delivered;
            self.round_start = true;
            self.round_count += 1;
            self.rounds_since_probe += 1;
        }
    }

    /// The round's loss and CE ratios, and the lower bounds cut at its end.
    fn update_congestion_signals(&mut self, c: &Conn, rs: &RateSample) {
        self.lost += rs.losses as u64;
        if rs.losses > 0 {
            self.loss_in_round = true;
            self.loss_events_in_round += 1;
        }
        if let Some(bw) = rs.rate_segments_per_sec() {
            self.bw_latest = self.bw_latest.max(bw);
            if !rs.is_app_limited || bw >= self.max_bw() {
                self.bw_hi[1] = self.bw_hi[1].max(bw);
            }
        }
        self.inflight_latest = self.inflight_latest.max(rs.delivered.max(0) as f64);
        // A probe's round: too much loss or CE cuts inflight_hi.
        if self.probe_samples && self.inflight_too_high(c) {
            self.handle_inflight_too_high(c, rs);
        }
        if !self.round_start {
            return;
        }
        let delivered = (c.delivered - self.round_delivered_base).max(1) as f64;
        let ce_ratio = (c.delivered_ce - self.round_ce_base) as f64 / delivered;
        if self.use_ecn && c.delivered_ce > 0 {
            self.ecn_alpha = (1.0 - ECN_ALPHA_GAIN) * self.ecn_alpha + ECN_ALPHA_GAIN * ce_ratio;
        }
        let ecn_in_round = self.use_ecn && ce_ratio > 0.0;
        if self.mode == Mode::Startup && !self.full_bw_reached {
            self.check_startup_exit(ce_ratio);
        }
        // Linux bbr_adapt_lower_bounds: not while probing.
        let probing = self.mode == Mode::Startup
            || (self.mode == Mode::ProbeBw && matches!(self.phase, Phase::Up | Phase::Refill));
        if !probing {
            if ecn_in_round {
                if self.inflight_lo.is_infinite() {
                    self.inflight_lo = c.in_flight.max(1) as f64;
                }
                self.inflight_lo *= 1.0 - self.ecn_factor * self.ecn_alpha;
            }
            if self.loss_in_round {
                if self.bw_lo.is_infinite() {
                    self.bw_lo = self.max_bw();
                }
                if self.inflight_lo.is_infinite() {
                    self.inflight_lo = c.in_flight.max(1) as f64;
                }
                self.bw_lo = self.bw_latest.max(self.beta * self.bw_lo);
                self.inflight_lo = self.inflight_latest.max(self.beta * self.inflight_lo);
            }
        }
        self.round_lost_base = self.lost;
        self.round_ce_base = c.delivered_ce;
        self.round_delivered_base = c.delivered;
        self.round_flight = c.in_flight as f64;
        self.loss_in_round = false;
        self.loss_events_in_round = 0;
        self.bw_latest = 0.0;
        self.inflight_latest = 0.0;
    }

    /// Linux bbr_is_inflight_too_high: this round lost more than loss_thresh
    /// of its flight, or more than ecn_thresh of it was CE-marked.
    fn inflight_too_high(&self, c: &Conn) -> bool {
        let flight = self.round_flight.max(1.0);
        let lost = (self.lost - self.round_lost_base) as f64;
        if lost > 0.0 && lost > self.loss_thresh * flight {
            return true;
        }
        let delivered = (c.delivered - self.round_delivered_base) as f64;
        let ce = (c.delivered_ce - self.round_ce_base) as f64;
        self.use_ecn && delivered > 0.0 && ce > self.ecn_thresh * delivered
    }

    /// Linux bbr_handle_inflight_too_high: the long-term bound, and an end to the probe.
    fn handle_inflight_too_high(&mut self, c: &Conn, rs: &RateSample) {
        self.probe_samples = false;
        if !rs.is_app_limited {
            let target = self.bdp(1.0);
            self.inflight_hi = self.round_flight.max(self.beta * target).max(CWND_MIN);
        }
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.start_down(c);
        }
    }

    /// STARTUP ends on a bandwidth plateau, on high loss or on high CE.
    fn check_startup_exit(&mut self, ce_ratio: f64) {
        let bw = self.max_bw();
        if bw >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = bw;
            self.full_bw_cnt = 0;
        } else {
            self.full_bw_cnt += 1;
        }
        let plateau = self.full_bw_cnt >= FULL_BW_CNT;
        let lossy = self.loss_events_in_round >= FULL_LOSS_CNT
            && (self.lost - self.round_lost_base) as f64 > self.loss_thresh * self.round_flight.max(1.0);
        self.startup_ecn_rounds =
            if self.use_ecn && ce_ratio > self.ecn_thresh { self.startup_ecn_rounds + 1 } else { 0 };
        if plateau || lossy || self.startup_ecn_rounds >= FULL_ECN_CNT {
            self.full_bw_reached = true;
            if lossy || self.startup_ecn_rounds >= FULL_ECN_CNT {
                self.inflight_hi = self.round_flight.max(self.bdp(1.0));
            }
        }
    }

    fn start_down(&mut self, c: &Conn) {
        self.mode = Mode::ProbeBw;
        self.phase = Phase::Down;
        self.probe_up_cnt = f64::INFINITY;
        // Linux bbr_pick_probe_wait: 2 to 3 s, and 0 to 1 extra round.
        self.rounds_since_probe = self.rng.next_u64() % 2;
        self.probe_wait_ns = BW_PROBE_BASE_NS + (self.rng.uniform() * BW_PROBE_RAND_NS as f64) as Nanos;
        self.cycle_stamp = c.now;
        self.stopping_round = true;
    }

    fn start_refill(&mut self, c: &Conn) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = f64::INFINITY;
        self.probe_up_rounds = 0;
        self.probe_up_acks = 0.0;
        self.phase = Phase::Refill;
        self.cycle_stamp = c.now;
        self.next_round_delivered = c.delivered;
    }

    fn start_up(&mut self, c: &Conn, w: &Window) {
        self.phase = Phase::Up;
        self.probe_samples = true;
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
        self.cycle_stamp = c.now;
        self.raise_inflight_hi_slope(w);
    }

    /// Linux bbr_raise_inflight_hi_slope: 1, 2, 4, ... segments per round.
    fn raise_inflight_hi_slope(&mut self, w: &Window) {
        let growth = (1u64 << self.probe_up_rounds.min(30)) as f64;
        self.probe_up_rounds = (self.probe_up_rounds + 1).min(30);
        self.probe_up_cnt = (w.cwnd as f64 / growth).max(1.0);
    }

    /// Linux bbr_probe_inflight_hi_upward: inflight_hi grows while the window is the limit.
    fn probe_inflight_hi_upward(&mut self, c: &Conn, w: &Window, rs: &RateSample) {
        if !c.is_cwnd_limited || (w.cwnd as f64) < self.inflight_hi {
            return;
        }
        self.probe_up_acks += rs.acked_sacked as f64;
        if self.probe_up_acks >= self.probe_up_cnt {
            let delta = (self.probe_up_acks / self.probe_up_cnt).floor();
            self.probe_up_acks -= delta * self.probe_up_cnt;
            self.inflight_hi += delta;
        }
        if self.round_start {
            self.raise_inflight_hi_slope(w);
        }
    }

    fn is_time_to_probe(&self, c: &Conn) -> bool {
        let reno_rounds = self.bdp(1.0).min(BW_PROBE_MAX_ROUNDS as f64) as u64;
        c.now.saturating_sub(self.cycle_stamp) >= self.probe_wait_ns || self.rounds_since_probe >= reno_rounds
    }

    /// Linux bbr_update_cycle_phase: the PROBE_BW state machine.
    fn update_cycle_phase(&mut self, c: &Conn, w: &Window, rs: &RateSample) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        if self.stopping_round && self.round_start {
            // The probe's feedback is over: forget the older cycle's bandwidth.
            self.stopping_round = false;
            self.probe_samples = false;
            if !rs.is_app_limited {
                self.bw_hi = [self.bw_hi[1], 0.0];
            }
        }
        let inflight = c.in_flight as f64;
        match self.phase {
            Phase::Down => {
                if self.is_time_to_probe(c) {
                    self.start_refill(c);
                } else if inflight <= self.bdp(1.0).min((1.0 - HEADROOM) * self.inflight_hi) {
                    self.phase = Phase::Cruise;
                }
            }
            Phase::Cruise => {
                if self.is_time_to_probe(c) {
                    self.start_refill(c);
                }
            }
            Phase::Refill => {
                if self.round_start {
                    self.start_up(c, w);
                }
            }
            Phase::Up => {
                self.probe_inflight_hi_upward(c, w, rs);
                if self.round_start {
                    let bw = self.max_bw();
                    if bw >= self.full_bw * FULL_BW_THRESH {
                        self.full_bw = bw;
                        self.full_bw_cnt = 0;
                    } else {
                        self.full_bw_cnt += 1;
                        self.full_bw_now = self.full_bw_cnt >= FULL_BW_CNT;
                    }
                }
                let elapsed = c.now.saturating_sub(self.cycle_stamp) > self.min_rtt_ns;
                if self.full_bw_now || (elapsed && inflight >= self.bdp(PHASE_GAIN[Phase::Up as usize])) {
                    self.start_down(c);
                }
            }
        }
    }

    /// The min RTT (10 s) and PROBE_RTT's 5 s filter, and PROBE_RTT itself.
    fn update_min_rtt(&mut self, w: &mut Window, c: &Conn, rs: &RateSample) {
        // Linux bbr_update_min_rtt (v3): a strictly lower sample, or any once
        // the 5 s filter expired, refreshes probe_rtt_min; min_rtt follows it.
        let probe_expired = c.now > self.probe_rtt_min_stamp + self.probe_rtt_win_ns;
        if let Some(rtt) = rs.rtt_ns {
            if rtt < self.probe_rtt_min_ns || probe_expired {
                self.probe_rtt_min_ns = rtt;
                self.probe_rtt_min_stamp = c.now;
            }
        }
        if self.probe_rtt_min_ns < self.min_rtt_ns || c.now > self.min_rtt_stamp + MIN_RTT_WIN_NS {
            self.min_rtt_ns = self.probe_rtt_min_ns;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
        if probe_expired && self.mode != Mode::ProbeRtt && self.min_rtt_ns != Nanos::MAX {
            self.mode = Mode::ProbeRtt;
            self.prior_cwnd = self.prior_cwnd.max(w.cwnd);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            let target = self.bdp(PROBE_RTT_CWND_GAIN).max(CWND_MIN);
            if self.probe_rtt_done.is_none() && c.in_flight as f64 <= target {
                self.probe_rtt_done = Some(c.now + PROBE_RTT_MODE_NS);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = c.delivered;
            } else if let Some(done) = self.probe_rtt_done {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && c.now >= done {
                    self.probe_rtt_min_stamp = c.now;
                    w.cwnd = w.cwnd.max(self.prior_cwnd);
                    self.prior_cwnd = 0;
                    if self.full_bw_reached {
                        self.start_down(c);
                        self.phase = Phase::Cruise;
                    } else {
                        self.mode = Mode::Startup;
                    }
                }
            }
        }
    }

    fn set_cwnd(&mut self, w: &mut Window, rs: &RateSample) {
        let mut target = self.bdp(self.cwnd_gain());
        if self.mode == Mode::ProbeRtt {
            target = self.bdp(PROBE_RTT_CWND_GAIN);
        }
        // The bounds: inflight_hi (with headroom when not probing) and inflight_lo.
        let probing = self.mode == Mode::Startup
            || (self.mode == Mode::ProbeBw && matches!(self.phase, Phase::Up | Phase::Refill));
        let hi = if probing { self.inflight_hi } else { (1.0 - HEADROOM) * self.inflight_hi };
        target = target.min(hi).min(self.inflight_lo).max(CWND_MIN);
        let cwnd = w.cwnd as f64 + rs.acked_sacked as f64;
        let cwnd = if self.full_bw_reached { cwnd.min(target) } else { cwnd.min(target.max(cwnd)) };
        // Fall to the bound at once, as Linux bbr_set_cwnd's min with the bounds.
        let cwnd = cwnd.min(hi).min(self.inflight_lo).max(CWND_MIN);
        w.cwnd = (cwnd.round() as u32).min(w.cwnd_clamp);
    }
}

impl CongestionControl for Bbr3 {
    const OWNS_WINDOW: bool = true;
    const PACES: bool = true;

    fn init(&mut self, _w: &mut Window, c: &Conn) {
        self.next_round_delivered = c.delivered;
        self.probe_rtt_min_stamp = c.now;
        self.min_rtt_stamp = c.now;
        self.cycle_stamp = c.now;
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        w.ssthresh
    }

    fn set_state(&mut self, w: &mut Window, _c: &Conn, new: CaState) {
        if new == CaState::Loss {
            self.prior_cwnd = self.prior_cwnd.max(w.cwnd);
        }
    }

    fn cwnd_event(&mut self, _w: &mut Window, _c: &Conn, _event: CaEvent) {}

    #[inline]
    fn cong_control(&mut self, w: &mut Window, c: &Conn, rs: &RateSample) {
        self.update_round(c, rs);
        self.update_congestion_signals(c, rs);
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
        }
        if self.mode == Mode::Drain && (c.in_flight as f64) <= self.bdp(1.0) {
            self.start_down(c);
        }
        self.update_cycle_phase(c, w, rs);
        self.update_min_rtt(w, c, rs);
        if self.max_bw() > 0.0 {
            self.pacing_rate = self.pacing_gain() * self.bw() * (1.0 - PACING_MARGIN) * self.mss as f64;
        }
        self.set_cwnd(w, rs);
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing_rate)
    }

    fn state(&self, out: &mut StateOut) {
        out.mode(&state::MODE, self.mode as usize);
        out.mode(&state::PHASE, self.phase as usize);
        out.number(&state::BW_BPS, self.bw() * self.mss as f64 * 8.0);
        out.number(
            &state::MIN_RTT_MS,
            if self.min_rtt_ns == Nanos::MAX { f64::NAN } else { self.min_rtt_ns as f64 / 1e6 },
        );
        out.number(&state::INFLIGHT_HI, self.inflight_hi);
        out.number(&state::INFLIGHT_LO, self.inflight_lo);
        out.number(&state::ECN_ALPHA, self.ecn_alpha);
    }
}
