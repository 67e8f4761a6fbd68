//! CUBIC (RFC 9438; Ha, Rhee, Xu, "CUBIC: a new TCP-friendly high-speed TCP
//! variant", 2008), following Linux net/ipv4/tcp_cubic.c and its defaults.
//!
//! After a loss at window Wmax the window follows
//!     W(t) = C (t - K)^3 + Wmax,   K = cbrt(Wmax (1 - beta) / C),
//! with C = 0.4, beta = 0.7, t the time since the reduction (plus one minimum
//! RTT, as Linux aims one RTT ahead). The growth is applied per ACK as
//! "one segment every `cnt` ACKed segments", cnt = cwnd / (W(t) - cwnd).
//! - Fast convergence: if a loss comes below the previous Wmax, remember
//!   Wmax * (1 + beta) / 2 instead, leaving bandwidth to newer flows.
//! - TCP-friendly region: never grow slower than a Reno flow would (the
//!   estimate W_est grows by 3(1-beta)/(1+beta) segments per RTT).
//! - HyStart (`hystart.rs`) ends slow start early.
//! - Before the first loss the window grows at least 5% per RTT
//!   (`pre_loss_cnt`, Linux 3.5 and later; absent in 2.6.26 to 2.6.32).
//!
//! Older module versions differ in a few constants the kernel presets set
//! (`scenario/kernel_presets.rs`): CUBIC v2.1 (Linux 2.6.24, read at the v2.6.24 tag)
//! used beta 819/1024 and capped the growth above the origin at
//! `max_increment` segments per 100 ms of minimum RTT. Before 4.1, when
//! the window counted ACKs (`Counting::Acks`), cnt was divided by the
//! segments per ACK measured in Open (`DelayedAckRatio`) instead of being
//! held at 2 or more.
//!
//! Time runs in Linux's units: jiffies of 1 ms for the epoch bookkeeping and
//! 1/1024 s for t, so the integer arithmetic mirrors the kernel's; the cube
//! root is computed in floating point (Linux uses a table and Newton steps).

use super::common::{cong_avoid_ai, slow_start, DelayedAckRatio};
use super::hystart::HyStart;
use super::RecoveryPolicy;
use super::{
    CaEvent, CaState, CongestionControl, Conn, Counting, Info, LinuxModule, Param, Params, Role, StateOut, Window,
};
use crate::time::{Nanos, NS_PER_MS, NS_PER_SEC};

/// The parameters (`cc_params`), read with `Params::{float, int, flag}`.
pub mod param {
    use crate::cc::{BoolParam, FloatParam, IntParam};
    pub const BETA: FloatParam =
        FloatParam { name: "beta", default: 0.7, min: 0.1, max: 0.99, doc: "multiplicative decrease factor" };
    pub const C: FloatParam =
        FloatParam { name: "c", default: 0.4, min: 0.01, max: 10.0, doc: "cubic scaling constant C (segments/s^3)" };
    pub const FAST_CONVERGENCE: BoolParam =
        BoolParam { name: "fast_convergence", default: true, doc: "1: release bandwidth on losses below Wmax" };
    pub const TCP_FRIENDLINESS: BoolParam =
        BoolParam { name: "tcp_friendliness", default: true, doc: "1: never slower than Reno" };
    pub const HYSTART: BoolParam =
        BoolParam { name: "hystart", default: true, doc: "1: HyStart leaves slow start early" };
    pub const PRE_LOSS_CNT: IntParam = IntParam {
        name: "pre_loss_cnt",
        default: 20,
        min: 0,
        max: 1000,
        doc: "before the first loss, at most this many ACKed segments per +1 of cwnd (20: +5% per RTT; 0: no cap)",
    };
    pub const MAX_INCREMENT: IntParam = IntParam {
        name: "max_increment",
        default: 0,
        min: 0,
        max: 10_000,
        doc: "CUBIC v2.1: above the origin, at most this many segments per 100 ms of minimum RTT (0: no cap)",
    };
}

/// The traced state (`cc_state` rows, `var` = the name), written by `state()`.
pub mod state {
    use crate::cc::StateVar;
    pub const WMAX: StateVar = StateVar::integer("wmax", "segments");
    pub const K_S: StateVar = StateVar::float("k_s", "s");
    pub const ORIGIN: StateVar = StateVar::integer("origin", "segments");
    pub const EPOCH_S: StateVar = StateVar::float("epoch_s", "s");
    pub const W_EST: StateVar = StateVar::integer("w_est", "segments");
    pub const HYSTART_FOUND: StateVar = StateVar::integer("hystart_found", "");
}

pub const INFO: Info = Info {
    name: "cubic",
    reference: "RFC 9438; Ha, Rhee, Xu 2008; Linux tcp_cubic.c (with HyStart)",
    summary: "cubic window growth around the last maximum; beta 0.7, C 0.4, fast convergence, TCP-friendly region",
    recovery: RecoveryPolicy::NewReno,
    params: &[
        Param::Float(&param::BETA),
        Param::Float(&param::C),
        Param::Bool(&param::FAST_CONVERGENCE),
        Param::Bool(&param::TCP_FRIENDLINESS),
        Param::Bool(&param::HYSTART),
        Param::Int(&param::PRE_LOSS_CNT),
        Param::Int(&param::MAX_INCREMENT),
    ],
    state: &[state::WMAX, state::K_S, state::ORIGIN, state::EPOCH_S, state::W_EST, state::HYSTART_FOUND],
    role: Role::General,
    linux: LinuxModule::Mainline("cubic"),
    ns3: Some("ns3::TcpCubic"),
};

/// Linux BICTCP_HZ: t is kept in 1/1024 s.
const HZ_SHIFT: u32 = 10;
const BETA_SCALE: u64 = 1024;

/// The parameters in Linux's fixed-point form (kept across resets).
#[derive(Clone, Copy)]
struct Config {
    beta: u64,           // beta * 1024 (717)
    cube_rtt_scale: u64, // C * 1024 (bic_scale 41 * 10 = 410)
    cube_factor: u64,    // 2^(10 + 3*HZ_SHIFT) / cube_rtt_scale
    beta_scale: u64,     // 8 * (1024 + beta) / 3 / (1024 - beta): Reno-friendly increase
    fast_convergence: bool,
    tcp_friendliness: bool,
    use_hystart: bool,
    pre_loss_cnt: u32,  // 0: no cap before the first loss
    max_increment: u64, // 0: no cap above the origin
}

pub struct Cubic {
    cfg: Config,
    cnt: u32,
    last_max_cwnd: u32,
    last_cwnd: u32,
    last_time: u64, // jiffies
    origin_point: u32,
    k: u64, // 1/1024 s
    delay_min: Nanos,
    epoch_start: u64, // jiffies; 0: no epoch
    ack_cnt: u32,
    tcp_cwnd: u32,
    hystart: HyStart,
    last_send_jiffies: u64,
    /// Segments per ACK, dividing cnt when the window counts ACKs (before 4.1).
    delayed_ack: DelayedAckRatio,
}

fn jiffies(now: Nanos) -> u64 {
    // +1 so that 0 can keep meaning "no epoch", as in Linux where jiffies are never 0 in practice.
    now / NS_PER_MS + 1
}

impl Cubic {
    pub fn new(p: &Params) -> Cubic {
        let beta = (p.float(&param::BETA) * BETA_SCALE as f64).round() as u64;
        let cube_rtt_scale = ((p.float(&param::C) * 1024.0).round() as u64).max(1);
        let cfg = Config {
            beta,
            cube_rtt_scale,
            cube_factor: (1u64 << (10 + 3 * HZ_SHIFT)) / cube_rtt_scale,
            beta_scale: 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta),
            fast_convergence: p.flag(&param::FAST_CONVERGENCE),
            tcp_friendliness: p.flag(&param::TCP_FRIENDLINESS),
            use_hystart: p.flag(&param::HYSTART),
            pre_loss_cnt: p.int(&param::PRE_LOSS_CNT) as u32,
            max_increment: p.int(&param::MAX_INCREMENT) as u64,
        };
        Cubic::fresh(cfg, 0)
    }

    /// A Cubic with no epoch and no history but the last send time.
    fn fresh(cfg: Config, last_send_jiffies: u64) -> Cubic {
        Cubic {
            cfg,
            cnt: 0,
            last_max_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            origin_point: 0,
            k: 0,
            delay_min: 0,
            epoch_start: 0,
            ack_cnt: 0,
            tcp_cwnd: 0,
            hystart: HyStart::default(),
            last_send_jiffies,
            delayed_ack: DelayedAckRatio::default(),
        }
    }

    /// Linux bictcp_reset: forget the epoch (after a timeout or at start).
    fn reset(&mut self) {
        *self = Cubic::fresh(self.cfg, self.last_send_jiffies);
    }

    /// Linux bictcp_update: sets `cnt`, the ACKed segments (or ACKs, when
    /// the window counts them) per +1 of cwnd. Inline, as the per-ACK hook
    /// that calls it is (CongestionControl).
    #[inline]
    fn update(&mut self, cwnd: u32, acked: u32, now: Nanos, counting: Counting) {
        let now_j = jiffies(now);
        self.ack_cnt += acked;
        if self.last_cwnd == cwnd && now_j - self.last_time <= 1000 / 32 {
            return;
        }
        // Once per jiffy at most, recompute the cubic target; the friendly region always.
        if !(self.epoch_start != 0 && now_j == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now_j;
            if self.epoch_start == 0 {
                self.epoch_start = now_j;
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.k = 0;
                    self.origin_point = cwnd;
                } else {
                    let x = self.cfg.cube_factor as f64 * (self.last_max_cwnd - cwnd) as f64;
                    self.k = x.cbrt() as u64;
                    self.origin_point = self.last_max_cwnd;
                }
            }
            // t: time since the epoch plus one minimum RTT, in 1/1024 s.
            let elapsed_ns = (now_j - self.epoch_start) * NS_PER_MS + self.delay_min;
            let t = ((elapsed_ns as u128) << HZ_SHIFT) / NS_PER_SEC as u128;
            let t = t as u64;
            let offs = self.k.abs_diff(t);
            let delta = ((self.cfg.cube_rtt_scale as u128 * (offs as u128).pow(3)) >> (10 + 3 * HZ_SHIFT)) as u64;
            let target = if t < self.k {
                (self.origin_point as u64).saturating_sub(delta)
            } else {
                self.origin_point as u64 + delta
            };
            self.cnt = if target > cwnd as u64 {
                (cwnd as u64 / (target - cwnd as u64)).max(1) as u32
            } else {
                100 * cwnd // very small increment
            };
            // CUBIC v2.1: above the origin, grow at most max_increment
            // segments per 100 ms of minimum RTT (concave growth there).
            if self.cfg.max_increment > 0 && self.delay_min > 0 && t >= self.k {
                let min_cnt = (cwnd as u64 * 100 * NS_PER_MS / (self.cfg.max_increment * self.delay_min)) as u32;
                self.cnt = self.cnt.max(min_cnt);
            }
            // Before the first loss: at least 1/pre_loss_cnt per ACK (+5% per RTT at 20).
            if self.last_max_cwnd == 0 && self.cfg.pre_loss_cnt > 0 && self.cnt > self.cfg.pre_loss_cnt {
                self.cnt = self.cfg.pre_loss_cnt;
            }
        }
        if self.cfg.tcp_friendliness {
            let delta = ((cwnd as u64 * self.cfg.beta_scale) >> 3).max(1) as u32;
            while self.ack_cnt > delta {
                self.ack_cnt -= delta;
                self.tcp_cwnd += 1;
            }
            if self.tcp_cwnd > cwnd {
                let max_cnt = cwnd / (self.tcp_cwnd - cwnd);
                self.cnt = self.cnt.min(max_cnt);
            }
        }
        self.cnt = match counting {
            // At most +50% per round (Linux 4.1+).
            Counting::Segments => self.cnt.max(2),
            Counting::Acks => self.delayed_ack.acks_per_increment(self.cnt),
        };
    }
}

impl CongestionControl for Cubic {
    fn init(&mut self, _w: &mut Window, c: &Conn) {
        self.reset();
        if self.cfg.use_hystart {
            self.hystart.reset_round(c.now, c.snd_nxt);
        }
    }

    fn ssthresh(&mut self, w: &Window, _c: &Conn) -> u32 {
        self.epoch_start = 0;
        self.last_max_cwnd = if w.cwnd < self.last_max_cwnd && self.cfg.fast_convergence {
            ((w.cwnd as u64 * (BETA_SCALE + self.cfg.beta)) / (2 * BETA_SCALE)) as u32
        } else {
            w.cwnd
        };
        ((w.cwnd as u64 * self.cfg.beta / BETA_SCALE) as u32).max(2)
    }

    #[inline]
    fn cong_avoid(&mut self, w: &mut Window, c: &Conn, acked: u32) {
        if !c.is_cwnd_limited {
            return;
        }
        let mut acked = acked;
        if w.in_slow_start() {
            if self.cfg.use_hystart {
                self.hystart.on_ack_in_slow_start(c.now, c.snd_una, c.snd_nxt);
            }
            acked = slow_start(w, acked);
            if acked == 0 {
                return;
            }
        }
        self.update(w.cwnd, acked, c.now, w.counting);
        let cnt = self.cnt;
        cong_avoid_ai(w, cnt, acked);
    }

    fn set_state(&mut self, _w: &mut Window, c: &Conn, new: CaState) {
        if new == CaState::Loss {
            self.reset();
            if self.cfg.use_hystart {
                self.hystart.reset_round(c.now, c.snd_nxt);
            }
        }
    }

    fn cwnd_event(&mut self, _w: &mut Window, c: &Conn, event: CaEvent) {
        if event == CaEvent::TxStart {
            // Restarting after idle: shift the epoch so the idle time does not count as growth time.
            let now_j = jiffies(c.now);
            if self.epoch_start != 0 && now_j > self.last_send_jiffies {
                self.epoch_start = (self.epoch_start + (now_j - self.last_send_jiffies)).min(now_j);
            }
        }
        self.last_send_jiffies = jiffies(c.now);
    }

    #[inline]
    fn pkts_acked(&mut self, w: &mut Window, c: &Conn, s: &super::AckSample) {
        if w.counting == Counting::Acks {
            self.delayed_ack.on_acked(c.ca_state, s.acked);
        }
        let Some(rtt) = s.rtt_ns else { return };
        // Discard delay samples right after a reduction (one second).
        if self.epoch_start != 0 && jiffies(c.now) - self.epoch_start < 1000 {
            return;
        }
        let rtt = rtt.max(1_000);
        if self.delay_min == 0 || self.delay_min > rtt {
            self.delay_min = rtt;
        }
        if self.cfg.use_hystart {
            self.hystart.on_rtt_sample(w, c.now, rtt, self.delay_min, c.snd_una, c.snd_nxt);
        }
    }

    fn state(&self, out: &mut StateOut) {
        out.number(&state::WMAX, self.last_max_cwnd as f64);
        out.number(&state::K_S, self.k as f64 / 1024.0);
        out.number(&state::ORIGIN, self.origin_point as f64);
        out.number(
            &state::EPOCH_S,
            if self.epoch_start == 0 { f64::NAN } else { (self.epoch_start - 1) as f64 / 1000.0 },
        );
        out.number(&state::W_EST, self.tcp_cwnd as f64);
        out.number(&state::HYSTART_FOUND, self.hystart.found as u8 as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::super::harness::Harness;

    #[test]
    fn window_after_loss_follows_the_cubic_curve() {
        // 100 ms RTT; grow to ~200 segments, lose, then compare cwnd with
        // W(t) = C (t - K)^3 + Wmax, t measured from the reduction.
        let mut h = Harness::new("cubic", 100);
        h.set_cwnd(200, 100);
        h.rounds(3);
        let wmax = h.w.cwnd as f64;
        h.loss();
        let after = h.w.cwnd as f64;
        assert!((after - 0.7 * wmax).abs() <= 1.0, "beta: {after} vs {wmax}");
        let k = (wmax * 0.3 / 0.4_f64).cbrt();
        let t0 = h.now;
        for _ in 0..80 {
            h.rounds(1);
            let t = (h.now - t0) as f64 / 1e9;
            // Linux aims one RTT ahead: the window at t reached the target of t + rtt - 1 round of lag.
            let expect = 0.4 * (t - k).powi(3) + wmax;
            let got = h.w.cwnd as f64;
            assert!((got - expect).abs() / expect < 0.04, "t={t:.2} got {got} expected {expect:.1}");
        }
    }

    fn params(pairs: &[(&str, f64)]) -> std::collections::BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    /// Growth per round, far above the origin after a loss.
    fn growth_far_above_origin(p: &std::collections::BTreeMap<String, f64>) -> u32 {
        let mut h = Harness::with_params("cubic", 100, p);
        h.set_cwnd(1000, 1000);
        h.rounds(20); // minimum RTT known
        h.loss();
        h.rounds(300); // 30 s: K is about 9 s, so the curve climbs ~50 segments per 100 ms
        let before = h.w.cwnd;
        h.rounds(1);
        h.w.cwnd - before
    }

    #[test]
    fn max_increment_caps_growth_above_the_origin_as_cubic_2_1() {
        let free = growth_far_above_origin(&params(&[]));
        let capped = growth_far_above_origin(&params(&[("max_increment", 16.0)]));
        // At 100 ms RTT, 16 segments per 100 ms is 16 per round.
        assert!(free > 30, "today's cubic grows fast there: {free}");
        assert!((15..=17).contains(&capped), "v2.1 caps it at 16 per round: {capped}");
    }

    /// Growth over five rounds of a flow that entered congestion avoidance without a loss.
    fn growth_before_first_loss(p: &std::collections::BTreeMap<String, f64>) -> u32 {
        let mut h = Harness::with_params("cubic", 100, p);
        h.set_cwnd(200, 100);
        h.rounds(5);
        h.w.cwnd - 200
    }

    #[test]
    fn pre_loss_cnt_sets_the_growth_before_the_first_loss() {
        let modern = growth_before_first_loss(&params(&[]));
        let uncapped = growth_before_first_loss(&params(&[("pre_loss_cnt", 0.0)]));
        // cnt 20: +5% per round, compounded; without it, the cubic curve from
        // the origin (K = 0) and the Reno-friendly floor give a few segments.
        assert!(modern >= 50, "at least 5% per round: {modern}");
        assert!(uncapped < 10, "2.6.26-2.6.32: no cap before the first loss: {uncapped}");
    }

    #[test]
    fn fast_convergence_releases_bandwidth() {
        let mut h = Harness::new("cubic", 50);
        h.set_cwnd(100, 50);
        h.loss();
        assert_eq!(h.state("wmax"), 100.0);
        let before = h.w.cwnd as f64; // 70, below the last Wmax
        h.loss();
        let expect = before * (1.0 + 0.7) / 2.0;
        assert!((h.state("wmax") - expect).abs() <= 1.0, "{} vs {expect}", h.state("wmax"));
    }
}
