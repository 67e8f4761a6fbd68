//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR:
//! congestion-based congestion control", ACM Queue 2016;
//! draft-cardwell-iccrg-bbr-congestion-control-00), following Linux
//! net/ipv4/tcp_bbr.c and its constants.
//!
//! BBR models the path by two numbers and paces to them:
//!     BtlBw  = windowed max of the delivery rate over 10 round trips,
//!     RTprop = windowed min of the RTT over 10 seconds,
//!     pacing_rate = pacing_gain * BtlBw * (1 - 1%),
//!     cwnd        = cwnd_gain * BtlBw * RTprop + 3 * tso_segs (+ ACK aggregation).
//!
//! State machine (the gains as Linux):
//! ```text
//!   STARTUP (2.885, 2.885) --BtlBw grew < 25% in 3 rounds--> DRAIN (1/2.885, 2.885)
//!   DRAIN --in flight <= BDP--> PROBE_BW: pacing gain cycles 1.25, 0.75, 1 x6,
//!                               one phase per RTprop, cwnd gain 2
//!   any --RTprop not refreshed for 10 s--> PROBE_RTT: cwnd 4 for 200 ms and a
//!                               round, then back to PROBE_BW (or STARTUP)
//! ```
//! In loss recovery the first round conserves packets (cwnd = in flight +
//! newly delivered), then cwnd may grow at most to twice what was ACKed;
//! after recovery the cwnd from before it is restored. Token-bucket policers
//! are detected as Linux's long-term ("lt") mode does: two 4+-round intervals
//! with >= 20% loss and consistent delivery rates pin the bandwidth to their
//! average for 48 rounds.
//!
//! Differences from Linux, and why:
//! - No TSO in the simulator: the "3 * tso_segs_goal" quantization budget is
//!   computed as Linux computes it from the pacing rate (the segments sent in
//!   about 1 ms, at least 2 above 1.2 Mbit/s), so the cwnd target equals
//!   Linux's; segments still leave one by one at the pacing rate.
//! - The sender paces by "not before" times rather than earliest departure
//!   times stamped on queued packets, so nothing is "in the pacing layer":
//!   Linux's packets_in_net_at_edt reduces to the in-flight count (plus the
//!   next TSO burst when probing).
//! - In PROBE_RTT Linux marks the connection application-limited so the low
//!   delivery rates of the dip do not enter the BtlBw filter; the sender's
//!   rate sampler is not ours to mark, so BBR itself treats samples of
//!   segments sent during the dip (prior_delivered in that range) as
//!   application-limited, which is what the marking achieves.
//! - Linux's tp->lost is counted here from the per-ACK losses of the rate
//!   samples (segments marked lost by SACK); is_ack_delayed is unknown and
//!   taken as false.
//! - The gain-cycle start is drawn from the flow's own random stream (see
//!   `Params::rng`), so runs are reproducible per seed.

use super::minmax::WindowedMax;
use super::RecoveryPolicy;
use super::{
    CaEvent, CaState, CongestionControl, Conn, Info, LinuxModule, Param, Params, RateSample, Role, StateOut, Window,
    INFINITE_SSTHRESH,
};
use crate::rng::Rng;
use crate::time::{Nanos, NS_PER_MS, NS_PER_SEC};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::{BoolParam, FloatParam};
    pub const HIGH_GAIN: FloatParam = FloatParam {
        name: "high_gain",
        default: 2.885,
        min: 1.0,
        max: 4.0,
        doc: "STARTUP pacing and cwnd gain (2/ln 2); DRAIN paces at its inverse",
    };
    pub const CWND_GAIN: FloatParam =
        FloatParam { name: "cwnd_gain", default: 2.0, min: 1.0, max: 4.0, doc: "PROBE_BW cwnd gain (BDP multiples)" };
    pub const PROBE_RTT_INTERVAL_S: FloatParam = FloatParam {
        name: "probe_rtt_interval_s",
        default: 10.0,
        min: 0.5,
        max: 60.0,
        doc: "min RTT filter window: PROBE_RTT when it expires",
    };
    pub const PROBE_RTT_MS: FloatParam = FloatParam {
        name: "probe_rtt_ms",
        default: 200.0,
        min: 0.0,
        max: 2000.0,
        doc: "time at 4 segments in PROBE_RTT (0: never enter PROBE_RTT)",
    };
    pub const PACING_MARGIN: FloatParam = FloatParam {
        name: "pacing_margin",
        default: 0.01,
        min: 0.0,
        max: 0.2,
        doc: "pace this fraction below the estimated bandwidth",
    };
    pub const LT_MODE: BoolParam =
        BoolParam { name: "lt_mode", default: true, doc: "1: detect token-bucket policers (long-term bandwidth)" };
    pub const ACK_AGGREGATION: BoolParam =
        BoolParam { name: "ack_aggregation", default: true, doc: "1: add the estimated ACK aggregation to cwnd" };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const MODE: StateVar = StateVar::mode("mode", &["startup", "drain", "probe_bw", "probe_rtt"]);
    pub const BTL_BW_BPS: StateVar = StateVar::float("btl_bw_bps", "bit/s");
    pub const MIN_RTT_MS: StateVar = StateVar::float("min_rtt_ms", "ms");
    pub const PACING_GAIN: StateVar = StateVar::float("pacing_gain", "");
    pub const CWND_GAIN: StateVar = StateVar::float("cwnd_gain", "");
    pub const ROUND_COUNT: StateVar = StateVar::integer("round_count", "");
    pub const FULL_BW_REACHED: StateVar = StateVar::integer("full_bw_reached", "");
}

pub const INFO: Info = Info {
    name: "bbr",
    reference: "Cardwell et al., ACM Queue 2016; draft-cardwell-iccrg-bbr-congestion-control-00; Linux tcp_bbr.c (v1)",
    summary: "model-based: paces at the max delivery rate of 10 rounds, cwnd 2 BDP; STARTUP, DRAIN, PROBE_BW gain cycle, PROBE_RTT every 10 s",
    recovery: RecoveryPolicy::NewReno,
    params: &[
        Param::Float(&param::HIGH_GAIN),
        Param::Float(&param::CWND_GAIN),
        Param::Float(&param::PROBE_RTT_INTERVAL_S),
        Param::Float(&param::PROBE_RTT_MS),
        Param::Float(&param::PACING_MARGIN),
        Param::Bool(&param::LT_MODE),
        Param::Bool(&param::ACK_AGGREGATION),
    ],
    state: &[state::MODE, state::BTL_BW_BPS, state::MIN_RTT_MS, state::PACING_GAIN, state::CWND_GAIN, state::ROUND_COUNT, state::FULL_BW_REACHED],
    role: Role::General,
    linux: LinuxModule::Mainline("bbr"),
    ns3: Some("ns3::TcpBbr"),
};

/// Bandwidth unit: segments per microsecond, scaled by 2^24 (Linux BW_SCALE).
const BW_SCALE: u32 = 24;
const BW_UNIT: u64 = 1 << BW_SCALE;
/// Gains are fixed point with 8 bits of fraction (Linux BBR_SCALE).
const BBR_SCALE: u32 = 8;
const BBR_UNIT: u64 = 1 << BBR_SCALE;
const CYCLE_LEN: usize = 8;
/// The PROBE_BW pacing gains: probe, drain, then cruise.
const PACING_GAIN: [u64; CYCLE_LEN] =
    [BBR_UNIT * 5 / 4, BBR_UNIT * 3 / 4, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT];
/// Randomize the first phase over the 7 phases other than the drain phase.
const CYCLE_RAND: u64 = 7;
/// BtlBw filter window, in rounds.
const BW_RTTS: u64 = CYCLE_LEN as u64 + 2;
/// Fewest segments in flight (two delayed-ACK pairs), and PROBE_RTT's cwnd.
const CWND_MIN_TARGET: u32 = 4;
/// Linux TCP_INIT_CWND: the cwnd cap before any RTT sample.
const INIT_CWND: u32 = 10;
/// Full pipe: BtlBw grew less than 25% for 3 rounds.
const FULL_BW_THRESH: u64 = BBR_UNIT * 5 / 4;
const FULL_BW_CNT: u32 = 3;
/// Below this pacing rate (bit/s) one segment per "TSO burst".
const MIN_TSO_RATE_BPS: u64 = 1_200_000;
/// Linux GSO_MAX_SIZE - 1 - MAX_TCP_HEADER: the largest burst in bytes.
const MAX_TSO_BYTES: u64 = 65_536 - 1 - 320;
// Long-term (policer) sampling.
const LT_INTVL_MIN_RTTS: u32 = 4;
/// Lossy interval: lost / delivered >= 50/256 (about 20%).
const LT_LOSS_THRESH: u64 = 50;
/// Consistent bandwidths: differ by at most 1/8, or by 4 kbit/s.
const LT_BW_RATIO: u64 = BBR_UNIT / 8;
const LT_BW_DIFF_BYTES_PER_SEC: u64 = 4000 / 8;
const LT_BW_MAX_RTTS: u32 = 48;
// ACK aggregation.
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
const ACK_EPOCH_ACKED_RESET: u32 = 1 << 20;
const EXTRA_ACKED_MAX_US: u64 = 100_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Startup = 0,
    Drain = 1,
    ProbeBw = 2,
    ProbeRtt = 3,
}

pub struct Bbr {
    // Parameters.
    high_gain: u64,
    drain_gain: u64,
    cwnd_gain_probe_bw: u64,
    min_rtt_win_ns: Nanos,
    probe_rtt_ns: Nanos,
    margin_percent: u64,
    lt_enabled: bool,
    extra_acked_gain: u64,
    rng: Rng,

    mode: Mode,
    bw: WindowedMax,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    round_start: bool,
    min_rtt_us: u64,
    min_rtt_stamp: Nanos,
    probe_rtt_done_stamp: Option<Nanos>,
    probe_rtt_round_done: bool,
    /// Samples of segments sent while in PROBE_RTT count as app-limited:
    /// the range of `prior_delivered` values they carry.
    probe_rtt_app_limited: Option<(u64, u64)>,
    idle_restart: bool,
    prior_cwnd: u32,
    prev_ca_state: CaState,
    packet_conservation: bool,
    pacing_gain: u64,
    cwnd_gain: u64,
    pacing_rate: u64, // bytes per second
    has_seen_rtt: bool,
    full_bw: u64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    cycle_idx: usize,
    cycle_stamp: Nanos,
    /// Time of the latest delivery (Linux tp->delivered_mstamp).
    delivered_stamp: Nanos,
    mss: u32,
    // Long-term sampling.
    lost: u64,
    lt_is_sampling: bool,
    lt_use_bw: bool,
    lt_bw: u64,
    lt_rtt_cnt: u32,
    lt_last_stamp_ms: u64,
    lt_last_delivered: u64,
    lt_last_lost: u64,
    // ACK aggregation.
    ack_epoch_stamp: Nanos,
    ack_epoch_acked: u32,
    extra_acked: [u32; 2],
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
}

fn gain(x: f64) -> u64 {
    (x * BBR_UNIT as f64).round() as u64
}

impl Bbr {
    pub fn new(p: &Params) -> Bbr {
        let high = p.float(&param::HIGH_GAIN);
        Bbr {
            // Linux: BBR_UNIT * 2885 / 1000 + 1 and BBR_UNIT * 1000 / 2885.
            high_gain: gain(high) + 1,
            drain_gain: (BBR_UNIT as f64 / high) as u64,
            cwnd_gain_probe_bw: gain(p.float(&param::CWND_GAIN)),
            min_rtt_win_ns: (p.float(&param::PROBE_RTT_INTERVAL_S) * NS_PER_SEC as f64) as Nanos,
            probe_rtt_ns: (p.float(&param::PROBE_RTT_MS) * NS_PER_MS as f64) as Nanos,
            margin_percent: (p.float(&param::PACING_MARGIN) * 100.0).round() as u64,
            lt_enabled: p.flag(&param::LT_MODE),
            extra_acked_gain: if p.flag(&param::ACK_AGGREGATION) { BBR_UNIT } else { 0 },
            rng: p.rng(),
            mode: Mode::Startup,
            bw: WindowedMax::default(),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            round_start: false,
            min_rtt_us: u64::MAX,
            min_rtt_stamp: 0,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            probe_rtt_app_limited: None,
            idle_restart: false,
            prior_cwnd: 0,
            prev_ca_state: CaState::Open,
            packet_conservation: false,
            pacing_gain: 0,
            cwnd_gain: 0,
            pacing_rate: 0,
            has_seen_rtt: false,
            full_bw: 0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: 0,
            delivered_stamp: 0,
            mss: p.mss(),
            lost: 0,
            lt_is_sampling: false,
            lt_use_bw: false,
            lt_bw: 0,
            lt_rtt_cnt: 0,
            lt_last_stamp_ms: 0,
            lt_last_delivered: 0,
            lt_last_lost: 0,
            ack_epoch_stamp: 0,
            ack_epoch_acked: 0,
            extra_acked: [0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
        }
    }

    fn max_bw(&self) -> u64 {
        self.bw.get()
    }

    /// The bandwidth the model uses: the policed rate in lt mode, else BtlBw.
    fn bw(&self) -> u64 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    /// Rate in bytes per second of `bw` times `gain`, less the pacing margin.
    fn rate_bytes_per_sec(&self, bw: u64, gain: u64) -> u64 {
        let rate = (bw as u128 * self.mss as u128 * gain as u128) >> BBR_SCALE;
        let rate = rate * (1_000_000 / 100 * (100 - self.margin_percent)) as u128;
        (rate >> BW_SCALE) as u64
    }

    fn init_pacing_rate_from_rtt(&mut self, w: &Window, c: &Conn) {
        let rtt_us = if c.srtt_ns > 0 {
            self.has_seen_rtt = true;
            (c.srtt_ns / 1000).max(1)
        } else {
            1000 // nominal 1 ms before any sample
        };
        let bw = w.cwnd as u64 * BW_UNIT / rtt_us;
        self.pacing_rate = self.rate_bytes_per_sec(bw, self.high_gain);
    }

    fn set_pacing_rate(&mut self, w: &Window, c: &Conn, bw: u64, gain: u64) {
        let rate = self.rate_bytes_per_sec(bw, gain);
        if !self.has_seen_rtt && c.srtt_ns > 0 {
            self.init_pacing_rate_from_rtt(w, c);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// Linux bbr_tso_segs_goal: the segments the pacing rate sends in ~1 ms.
    fn tso_segs_goal(&self) -> u32 {
        let min_segs = if self.pacing_rate < MIN_TSO_RATE_BPS / 8 { 1 } else { 2 };
        let bytes = (self.pacing_rate >> 10).min(MAX_TSO_BYTES);
        ((bytes / self.mss as u64) as u32).max(min_segs).min(0x7f)
    }

    fn save_cwnd(&mut self, w: &Window) {
        if self.prev_ca_state < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = w.cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(w.cwnd);
        }
    }

    /// ceil(gain * bw * min_rtt), in segments.
    fn bdp(&self, bw: u64, gain: u64) -> u32 {
        if self.min_rtt_us == u64::MAX {
            return INIT_CWND;
        }
        let w = bw as u128 * self.min_rtt_us as u128;
        (((w * gain as u128) >> BBR_SCALE).div_ceil(BW_UNIT as u128)) as u32
    }

    fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut cwnd = cwnd + 3 * self.tso_segs_goal();
        cwnd = (cwnd + 1) & !1; // even, for delayed ACKs
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2; // let the probe phase exceed the BDP even when it is small
        }
        cwnd
    }

    fn inflight(&self, bw: u64, gain: u64) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    fn packets_in_net_at_edt(&self, inflight_now: u32) -> u32 {
        if self.pacing_gain > BBR_UNIT {
            inflight_now + self.tso_segs_goal()
        } else {
            inflight_now
        }
    }

    fn ack_aggregation_cwnd(&self) -> u32 {
        if self.extra_acked_gain == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr = (self.bw() as u128 * EXTRA_ACKED_MAX_US as u128 / BW_UNIT as u128) as u64;
        let aggr = (self.extra_acked_gain * self.extra_acked[0].max(self.extra_acked[1]) as u64) >> BBR_SCALE;
        aggr.min(max_aggr) as u32
    }

    /// Packet conservation in the first round of recovery; restore after it.
    /// Returns the cwnd to use and whether conservation decided it.
    fn cwnd_to_recover_or_restore(&mut self, w: &Window, c: &Conn, rs: &RateSample, acked: u32) -> (u32, bool) {
        let state = c.ca_state.unwrap_or(CaState::Open);
        let prev = self.prev_ca_state;
        let mut cwnd = w.cwnd;
        if rs.losses > 0 {
            cwnd = (cwnd as i64 - rs.losses as i64).max(1) as u32;
        }
        if state == CaState::Recovery && prev != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = c.delivered; // the round starts now
            cwnd = c.in_flight + acked;
        } else if prev >= CaState::Recovery && state < CaState::Recovery {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(c.in_flight + acked), true);
        }
        (cwnd, false)
    }

    fn set_cwnd(&mut self, w: &mut Window, c: &Conn, rs: &RateSample, acked: u32, bw: u64, gain: u64) {
        let mut cwnd = w.cwnd;
        if acked > 0 {
            let (recovered, conserving) = self.cwnd_to_recover_or_restore(w, c, rs, acked);
            cwnd = recovered;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                target += self.ack_aggregation_cwnd();
                target = self.quantization_budget(target);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || c.delivered < INIT_CWND as u64 {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        w.cwnd = cwnd.min(w.cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            w.cwnd = w.cwnd.min(CWND_MIN_TARGET);
        }
    }

    fn is_next_cycle_phase(&self, rs: &RateSample) -> bool {
        let is_full_length = self.delivered_stamp.saturating_sub(self.cycle_stamp) / 1000 > self.min_rtt_us;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(rs.prior_in_flight);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            // Probe until in flight reaches gain * BDP, unless that loses packets.
            return is_full_length && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        // Drain until in flight is down to one BDP.
        is_full_length || inflight <= self.inflight(bw, BBR_UNIT)
    }

    fn advance_cycle_phase(&mut self) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_stamp = self.delivered_stamp;
    }

    fn reset_probe_bw_mode(&mut self) {
        self.mode = Mode::ProbeBw;
        let r = self.rng.next_u64() % CYCLE_RAND;
        self.cycle_idx = CYCLE_LEN - 1 - r as usize;
        self.advance_cycle_phase(); // so the first phase is never the 0.75 drain
    }

    fn reset_mode(&mut self) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode();
        } else {
            self.mode = Mode::Startup;
        }
    }

    fn reset_lt_bw_sampling_interval(&mut self, c: &Conn) {
        self.lt_last_stamp_ms = self.delivered_stamp / NS_PER_MS;
        self.lt_last_delivered = c.delivered;
        self.lt_last_lost = self.lost;
        self.lt_rtt_cnt = 0;
    }

    fn reset_lt_bw_sampling(&mut self, c: &Conn) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval(c);
    }

    fn lt_bw_interval_done(&mut self, c: &Conn, bw: u64) {
        if self.lt_bw > 0 {
            let diff = bw.abs_diff(self.lt_bw);
            if diff * BBR_UNIT <= LT_BW_RATIO * self.lt_bw
                || self.rate_bytes_per_sec(diff, BBR_UNIT) <= LT_BW_DIFF_BYTES_PER_SEC
            {
                // Two consistent lossy intervals: we are policed.
                self.lt_bw = (bw + self.lt_bw) >> 1;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval(c);
    }

    /// Linux bbr_lt_bw_sampling: token-bucket policer detection.
    fn lt_bw_sampling(&mut self, c: &Conn, losses: u32, is_app_limited: bool) {
        if !self.lt_enabled {
            return;
        }
        if self.lt_use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling(c);
                    self.reset_probe_bw_mode();
                }
            }
            return;
        }
        // Start at the first loss, when the policer's tokens are gone.
        if !self.lt_is_sampling {
            if losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval(c);
            self.lt_is_sampling = true;
        }
        if is_app_limited {
            self.reset_lt_bw_sampling(c);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling(c);
            return;
        }
        if losses == 0 {
            return;
        }
        let lost = self.lost - self.lt_last_lost;
        let delivered = c.delivered - self.lt_last_delivered;
        if delivered == 0 || (lost << BBR_SCALE) < LT_LOSS_THRESH * delivered {
            return;
        }
        let t_ms = (self.delivered_stamp / NS_PER_MS).saturating_sub(self.lt_last_stamp_ms);
        if t_ms < 1 {
            return;
        }
        let bw = delivered * BW_UNIT / (t_ms * 1000);
        self.lt_bw_interval_done(c, bw);
    }

    fn update_bw(&mut self, c: &Conn, rs: &RateSample) {
        self.round_start = false;
        if rs.delivered < 0 || rs.interval_ns == 0 {
            return;
        }
        if rs.prior_delivered >= self.next_rtt_delivered {
            self.next_rtt_delivered = c.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        let app_limited = rs.is_app_limited
            || self
                .probe_rtt_app_limited
                .is_some_and(|(from, to)| rs.prior_delivered >= from && rs.prior_delivered <= to);
        self.lt_bw_sampling(c, rs.losses, app_limited);
        let interval_us = (rs.interval_ns / 1000).max(1);
        let bw = rs.delivered as u64 * BW_UNIT / interval_us;
        // App-limited samples only count if they show at least the current estimate.
        if !app_limited || bw >= self.max_bw() {
            self.bw.update(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    fn update_ack_aggregation(&mut self, w: &Window, rs: &RateSample) {
        if self.extra_acked_gain == 0 || rs.acked_sacked == 0 || rs.delivered < 0 || rs.interval_ns == 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx = 1 - self.extra_acked_win_idx;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = self.delivered_stamp.saturating_sub(self.ack_epoch_stamp) / 1000;
        let mut expected = (self.bw() as u128 * epoch_us as u128 / BW_UNIT as u128) as u64;
        if self.ack_epoch_acked as u64 <= expected || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_ACKED_RESET {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = self.delivered_stamp;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xfffff);
        let extra = (self.ack_epoch_acked as u64).saturating_sub(expected).min(w.cwnd as u64) as u32;
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra);
    }

    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let thresh = (self.full_bw * FULL_BW_THRESH) >> BBR_SCALE;
        if self.max_bw() >= thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    fn check_drain(&mut self, w: &mut Window, c: &Conn) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            w.ssthresh = self.inflight(self.max_bw(), BBR_UNIT);
        }
        if self.mode == Mode::Drain && self.packets_in_net_at_edt(c.in_flight) <= self.inflight(self.max_bw(), BBR_UNIT)
        {
            self.reset_probe_bw_mode();
        }
    }

    fn check_probe_rtt_done(&mut self, w: &mut Window, c: &Conn) {
        if self.probe_rtt_done_stamp.is_none_or(|t| c.now <= t) {
            return;
        }
        self.min_rtt_stamp = c.now; // wait a while until the next PROBE_RTT
        w.cwnd = w.cwnd.max(self.prior_cwnd);
        self.reset_mode();
    }

    fn update_min_rtt(&mut self, w: &mut Window, c: &Conn, rs: &RateSample) {
        let filter_expired = c.now > self.min_rtt_stamp + self.min_rtt_win_ns;
        if let Some(rtt) = rs.rtt_ns {
            let rtt_us = rtt / 1000;
            if rtt_us <= self.min_rtt_us || filter_expired {
                self.min_rtt_us = rtt_us;
                self.min_rtt_stamp = c.now;
            }
        }
        if self.probe_rtt_ns > 0 && filter_expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(w);
            self.probe_rtt_done_stamp = None;
            self.probe_rtt_app_limited = Some((c.delivered, c.delivered));
        }
        if self.mode == Mode::ProbeRtt {
            // Segments sent from now until PROBE_RTT ends are "app-limited"
            // (Linux: tp->app_limited = delivered + in flight).
            if let Some((_, to)) = &mut self.probe_rtt_app_limited {
                *to = (*to).max(c.delivered + c.in_flight as u64);
            }
            if self.probe_rtt_done_stamp.is_none() && c.in_flight <= CWND_MIN_TARGET {
                // In flight is down: hold it for 200 ms and one round.
                self.probe_rtt_done_stamp = Some(c.now + self.probe_rtt_ns);
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = c.delivered;
            } else if self.probe_rtt_done_stamp.is_some() {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(w, c);
                }
            }
        }
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    fn update_gains(&mut self) {
        let (p, c) = match self.mode {
            Mode::Startup => (self.high_gain, self.high_gain),
            Mode::Drain => (self.drain_gain, self.high_gain),
            Mode::ProbeBw => {
                (if self.lt_use_bw { BBR_UNIT } else { PACING_GAIN[self.cycle_idx] }, self.cwnd_gain_probe_bw)
            }
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
        self.pacing_gain = p;
        self.cwnd_gain = c;
    }

    fn update_model(&mut self, w: &mut Window, c: &Conn, rs: &RateSample) {
        if rs.acked_sacked > 0 {
            self.delivered_stamp = c.now;
        }
        self.lost += rs.losses as u64;
        self.update_bw(c, rs);
        self.update_ack_aggregation(w, rs);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(rs) {
            self.advance_cycle_phase();
        }
        self.check_full_bw_reached(rs);
        self.check_drain(w, c);
        self.update_min_rtt(w, c, rs);
        self.update_gains();
    }
}

impl CongestionControl for Bbr {
    const OWNS_WINDOW: bool = true;
    const PACES: bool = true;

    fn init(&mut self, w: &mut Window, c: &Conn) {
        self.mss = c.mss;
        w.ssthresh = INFINITE_SSTHRESH;
        self.min_rtt_us = if c.min_rtt_ns > 0 { c.min_rtt_ns / 1000 } else { u64::MAX };
        self.min_rtt_stamp = c.now;
        self.bw.reset(0, 0);
        self.init_pacing_rate_from_rtt(w, c);
        self.reset_lt_bw_sampling(c);
        self.mode = Mode::Startup;
        self.ack_epoch_stamp = c.now;
        self.delivered_stamp = c.now;
        self.update_gains();
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        // Entering recovery: remember the cwnd to restore; ssthresh is unused.
        self.save_cwnd(w);
        w.ssthresh
    }

    fn set_state(&mut self, _w: &mut Window, c: &Conn, new: CaState) {
        if new == CaState::Loss {
            self.prev_ca_state = CaState::Loss;
            self.full_bw = 0;
            self.round_start = true; // treat an RTO like the end of a round
            self.lt_bw_sampling(c, 1, false);
        }
    }

    fn cwnd_event(&mut self, w: &mut Window, c: &Conn, event: CaEvent) {
        if event == CaEvent::TxStart {
            // Restarting from idle (Linux checks that the connection was app-limited,
            // which it is whenever nothing was in flight).
            self.idle_restart = true;
            self.ack_epoch_stamp = c.now;
            self.ack_epoch_acked = 0;
            if self.mode == Mode::ProbeBw {
                self.set_pacing_rate(w, c, self.bw(), BBR_UNIT);
            } else if self.mode == Mode::ProbeRtt {
                self.check_probe_rtt_done(w, c);
            }
        }
    }

    fn undo_cwnd(&mut self, w: &Window, _prior_cwnd: u32) -> u32 {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        w.cwnd
    }

    #[inline]
    fn cong_control(&mut self, w: &mut Window, c: &Conn, rs: &RateSample) {
        self.update_model(w, c, rs);
        let bw = self.bw();
        self.set_pacing_rate(w, c, bw, self.pacing_gain);
        self.set_cwnd(w, c, rs, rs.acked_sacked, bw, self.cwnd_gain);
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing_rate as f64)
    }

    fn state(&self, out: &mut StateOut) {
        out.mode(&state::MODE, self.mode as usize);
        out.number(&state::BTL_BW_BPS, self.bw() as f64 * self.mss as f64 * 8.0 * 1e6 / BW_UNIT as f64);
        out.number(
            &state::MIN_RTT_MS,
            if self.min_rtt_us == u64::MAX { f64::NAN } else { self.min_rtt_us as f64 / 1000.0 },
        );
        out.number(&state::PACING_GAIN, self.pacing_gain as f64 / BBR_UNIT as f64);
        out.number(&state::CWND_GAIN, self.cwnd_gain as f64 / BBR_UNIT as f64);
        out.number(&state::ROUND_COUNT, self.rtt_cnt as f64);
        out.number(&state::FULL_BW_REACHED, self.full_bw_reached as u32 as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::harness::Harness;
    use crate::cc::{build_for_flow, Algorithm};
    use std::collections::BTreeMap;

    fn mode(h: &Harness) -> &'static str {
        h.mode("mode")
    }

    #[test]
    fn startup_finds_the_bandwidth_then_drains_into_probe_bw() {
        // 1000 segments/s over a 100 ms path: BDP 100 segments.
        let mut h = Harness::new("bbr", 100);
        let mut rounds_in_startup = 0;
        while mode(&h) == "startup" {
            h.rate_rounds(1, 1000.0);
            rounds_in_startup += 1;
            assert!(rounds_in_startup < 20, "never left STARTUP");
        }
        assert_eq!(h.state("full_bw_reached"), 1.0);
        let bw_pps = h.state("btl_bw_bps") / (8.0 * 1448.0);
        assert!((bw_pps - 1000.0).abs() < 10.0, "BtlBw {bw_pps} segments/s");
        assert!((h.state("min_rtt_ms") - 100.0).abs() < 0.01);
        // Run on: DRAIN then PROBE_BW with cwnd = 2 BDP + the quantization budget.
        h.rate_rounds(3, 1000.0);
        assert_eq!(mode(&h), "probe_bw");
        assert_eq!(h.state("cwnd_gain"), 2.0);
        assert!((200..=216).contains(&h.w.cwnd), "cwnd {}", h.w.cwnd);
        // The pacing rate is the gain times BtlBw, 1% below.
        let rate = h.alg.pacing_rate().unwrap();
        let expected = h.state("pacing_gain") * 1000.0 * 1448.0 * 0.99;
        assert!((rate - expected).abs() / expected < 0.01, "pacing {rate} vs {expected}");
    }

    #[test]
    fn gain_cycle_starts_anywhere_but_in_the_drain_phase() {
        let mut firsts = std::collections::BTreeSet::new();
        for flow in 0..64 {
            let mut b = match build_for_flow("bbr", &BTreeMap::new(), 1448, 7, flow) {
                Some(Algorithm::Bbr(b)) => b,
                _ => unreachable!(),
            };
            b.reset_probe_bw_mode();
            firsts.insert(b.cycle_idx);
        }
        assert!(!firsts.contains(&1), "started in the 0.75 phase: {firsts:?}");
        assert_eq!(firsts.len(), 7, "{firsts:?}");
    }

    #[test]
    fn probe_rtt_after_ten_seconds_without_a_lower_rtt() {
        let mut h = Harness::new("bbr", 50);
        h.rate_rounds(20, 2000.0);
        assert_eq!(mode(&h), "probe_bw");
        // A standing queue: RTT samples never go below the first min RTT.
        h.queue_delay = 5 * NS_PER_MS;
        let start = h.now;
        while mode(&h) != "probe_rtt" {
            h.rate_rounds(1, 2000.0);
            assert!(h.now - start < 11 * NS_PER_SEC);
        }
        let entered = h.now;
        assert!(entered - start > 9 * NS_PER_SEC, "PROBE_RTT after {} ms", (entered - start) / NS_PER_MS);
        assert!(h.w.cwnd <= 4);
        // It holds 4 segments for at least 200 ms, then restores the window.
        while mode(&h) == "probe_rtt" {
            assert!(h.w.cwnd <= 4);
            h.rate_rounds(1, 2000.0);
        }
        assert!(h.now - entered >= 200 * NS_PER_MS);
        assert_eq!(mode(&h), "probe_bw");
        assert!(h.w.cwnd > 100, "cwnd {}", h.w.cwnd);
        // The low delivery rates of the dip did not pull BtlBw down.
        let bw_pps = h.state("btl_bw_bps") / (8.0 * 1448.0);
        assert!(bw_pps > 1900.0, "BtlBw fell to {bw_pps}");
    }

    #[test]
    fn first_round_of_recovery_conserves_packets() {
        let mut h = Harness::new("bbr", 50);
        h.rate_rounds(20, 2000.0);
        let before = h.w.cwnd;
        // The sender asks for ssthresh on entering recovery: BBR saves cwnd.
        let c = h.conn();
        h.alg.ssthresh(&h.w, &c);
        h.state = CaState::Recovery;
        h.rate_ack(NS_PER_MS, 1, 100, 50 * NS_PER_MS, false);
        // cwnd = in flight + delivered: the harness reports in_flight = cwnd.
        assert!(h.w.cwnd <= before + 1, "{} after {before}", h.w.cwnd);
        h.state = CaState::Open;
        h.rate_ack(NS_PER_MS, 1, 100, 50 * NS_PER_MS, false);
        assert!(h.w.cwnd >= before, "restored {} < {before}", h.w.cwnd);
    }
}
