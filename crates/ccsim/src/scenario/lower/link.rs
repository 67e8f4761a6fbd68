//! From a checked link description to a link: the resolution of sizes and
//! durations into a `LinkConfig` (the checks are crate::scenario::check_link).
//! Here, on the scenario's side, so that net knows only its plain configs; the
//! simulator and the emulator both call it, so they build the very same link
//! from the same scenario.

use crate::net::channel::arq::ArqConfig;
use crate::net::channel::dch::{DchConfig, FachConfig};
use crate::net::channel::jitter::{JitterConfig, JitterDist};
use crate::net::channel::loss::LossModel;
use crate::net::channel::outage::{DurationDist, OutageConfig, OutageProcessConfig};
use crate::net::channel::rate::{RateConfig, RateState};
use crate::net::channel::trace::TraceConfig;
use crate::net::link::LinkConfig;
use crate::net::packet::MTU_BYTES;
use crate::net::queue::{Capacity, CodelParams, DualPi2Params, PieParams, QueueConfig, RedParams};
use crate::scenario::{
    JitterDistribution, LinkSpec, LossSpec, OutageDistribution, QueueKind, QueueSpec, RateProcessStart,
};
use crate::time::{secs, Nanos};
use crate::units::QueueSize;

/// RED parameters of a queue description, defaults filled in.
pub fn red_params(q: &QueueSpec) -> RedParams {
    let d = RedParams::default();
    let min_th = q.min_th.unwrap_or(d.min_th_pkts);
    RedParams {
        min_th_pkts: min_th,
        max_th_pkts: q.max_th.unwrap_or(3.0 * min_th),
        max_p: q.max_p.unwrap_or(d.max_p),
        w_q: q.w_q.unwrap_or(d.w_q),
        gentle: q.gentle.unwrap_or(false),
        ecn: q.ecn.unwrap_or(false),
    }
}

/// CoDel parameters of a queue description, defaults filled in.
pub fn codel_params(q: &QueueSpec) -> CodelParams {
    let d = CodelParams::default();
    CodelParams {
        target_ns: q.target.map_or(d.target_ns, |t| t.ns()),
        interval_ns: q.interval.map_or(d.interval_ns, |t| t.ns()),
        ecn: q.ecn.unwrap_or(false),
    }
}

/// PIE parameters of a queue description, defaults filled in (Linux's).
pub fn pie_params(q: &QueueSpec) -> PieParams {
    let d = PieParams::default();
    PieParams {
        target_ns: q.target.map_or(d.target_ns, |t| t.ns()),
        tupdate_ns: q.tupdate.map_or(d.tupdate_ns, |t| t.ns()),
        alpha: q.alpha.unwrap_or(d.alpha),
        beta: q.beta.unwrap_or(d.beta),
        ecn: q.ecn.unwrap_or(false),
    }
}

/// DualPI2 parameters of a queue description, defaults filled in (Linux's).
pub fn dualpi2_params(q: &QueueSpec) -> DualPi2Params {
    let d = DualPi2Params::default();
    DualPi2Params {
        target_ns: q.target.map_or(d.target_ns, |t| t.ns()),
        tupdate_ns: q.tupdate.map_or(d.tupdate_ns, |t| t.ns()),
        alpha: q.alpha.unwrap_or(d.alpha),
        beta: q.beta.unwrap_or(d.beta),
        step_ns: q.step_thresh.map_or(d.step_ns, |t| t.ns()),
        coupling: q.coupling_factor.unwrap_or(d.coupling),
        c_protection_pct: q.c_protection.unwrap_or(d.c_protection_pct),
    }
}

/// The rate source of a checked link.
pub fn rate_config(spec: &LinkSpec) -> RateConfig {
    if let Some(t) = &spec.trace {
        RateConfig::Trace(TraceConfig {
            opportunities_ms: t.opportunities_ms.clone(),
            bytes_per_opportunity: t.bytes_per_opportunity,
        })
    } else if let Some(d) = &spec.dch {
        RateConfig::Dch(DchConfig {
            bearers_bps: d.bearers.iter().map(|r| r.bps()).collect(),
            initial_bearer: d.initial_bearer,
            up_threshold_bytes: d.up_threshold.0,
            up_time_to_trigger_ns: d.up_time_to_trigger.ns(),
            down_threshold_bytes: d.down_threshold.0,
            down_time_to_trigger_ns: d.down_time_to_trigger.ns(),
            pending_after_trigger_ns: d.pending_after_trigger.ns(),
            reconfig_delay_ns: d.reconfig_delay.ns(),
            fach: d.fach.as_ref().map(|f| FachConfig {
                rate_bps: f.rate.bps(),
                promote_threshold_bytes: f.promote_threshold.0,
                promote_delay_ns: f.promote_delay.ns(),
                inactivity_ns: f.inactivity.ns(),
            }),
        })
    } else if let Some(rp) = &spec.rate_process {
        RateConfig::Markov {
            states: rp
                .states
                .iter()
                .map(|s| RateState { rate_bps: s.rate.bps(), mean_holding_ns: s.mean_holding.ns() })
                .collect(),
            stationary_start: rp.start == RateProcessStart::Stationary,
        }
    } else {
        RateConfig::Constant { bps: spec.rate.expect("a checked link has a rate source").bps() }
    }
}

/// A queue of `multiple` bandwidth-delay products on a link of this rate with
/// base RTT `rtt_ns`, in full-size packets (before rounding; validation
/// refuses a queue that rounds to no packet).
pub fn bdp_queue_packets(rate: &RateConfig, multiple: f64, rtt_ns: Nanos) -> f64 {
    let bdp_bytes = rate.mean_rate_bps() * secs(rtt_ns) / 8.0;
    multiple * bdp_bytes / MTU_BYTES as f64
}

/// The capacity of a link's queue; `rtt_ns` sizes one given in BDP
/// multiples (at the link's mean rate).
pub fn queue_capacity(spec: &LinkSpec, rate: &RateConfig, rtt_ns: Nanos) -> Capacity {
    match spec.queue.size() {
        QueueSize::Packets(p) => Capacity::Packets(p),
        QueueSize::Bytes(b) => Capacity::Bytes(b),
        QueueSize::Bdp(m) => Capacity::Packets((bdp_queue_packets(rate, m, rtt_ns).round() as u64).max(1)),
    }
}

/// Resolves a checked link; `rtt_ns` sizes queues given in BDP multiples
/// (at the link's mean rate).
pub fn link_config(spec: &LinkSpec, rtt_ns: Nanos) -> LinkConfig {
    let rate = rate_config(spec);
    let capacity = queue_capacity(spec, &rate, rtt_ns);
    let q = &spec.queue;
    let queue = match q.kind {
        QueueKind::Droptail => QueueConfig::DropTail { capacity, ecn_threshold_pkts: q.ecn_threshold },
        QueueKind::Red => QueueConfig::Red { capacity, params: red_params(q) },
        QueueKind::Codel => QueueConfig::Codel { capacity, params: codel_params(q) },
        QueueKind::Pie => QueueConfig::Pie { capacity, params: pie_params(q) },
        QueueKind::Dualpi2 => QueueConfig::DualPi2 { capacity, params: dualpi2_params(q) },
    };
    let loss = match spec.loss {
        LossSpec::None => LossModel::None,
        LossSpec::Bernoulli { p } => LossModel::Bernoulli { p },
        LossSpec::GilbertElliott { p, r, loss_good, loss_bad, mean_loss, mean_burst } => match (p, r) {
            (Some(p), Some(r)) => LossModel::GilbertElliott {
                p,
                r,
                loss_good: loss_good.unwrap_or(0.0),
                loss_bad: loss_bad.unwrap_or(1.0),
            },
            _ => LossModel::gilbert_from_mean(mean_loss.unwrap_or(0.0), mean_burst.unwrap_or(1.0)),
        },
    };
    let jitter = spec.jitter.as_ref().map(|j| JitterConfig {
        dist: match j.distribution {
            JitterDistribution::Uniform => {
                JitterDist::Uniform { min_ns: j.min.unwrap_or_default().ns(), max_ns: j.max.unwrap_or_default().ns() }
            }
            JitterDistribution::Normal => JitterDist::Normal {
                mean_ns: j.mean.unwrap_or_default().ns() as f64,
                std_ns: j.std.unwrap_or_default().ns() as f64,
            },
            JitterDistribution::Exponential => {
                JitterDist::Exponential { mean_ns: j.mean.unwrap_or_default().ns() as f64 }
            }
        },
        reorder: j.reorder,
    });
    let mut scheduled: Vec<(Nanos, Nanos)> =
        spec.outages.iter().map(|o| (o.start.ns(), o.start.ns() + o.duration.ns())).collect();
    scheduled.sort();
    let process = spec.outage_process.as_ref().map(|o| OutageProcessConfig {
        mean_interval_ns: o.mean_interval.ns(),
        duration: match o.distribution {
            OutageDistribution::Fixed => DurationDist::Fixed { ns: o.duration.unwrap_or_default().ns() },
            OutageDistribution::Exponential => {
                DurationDist::Exponential { mean_ns: o.duration.unwrap_or_default().ns() }
            }
            OutageDistribution::Uniform => {
                DurationDist::Uniform { min_ns: o.min.unwrap_or_default().ns(), max_ns: o.max.unwrap_or_default().ns() }
            }
        },
    });
    LinkConfig {
        rate,
        delay_ns: spec.delay.ns(),
        queue,
        loss,
        arq: spec.arq.as_ref().map(|a| ArqConfig {
            max_retries: a.max_retries,
            retry_delay_ns: a.retry_delay.ns(),
            in_order: a.in_order,
            tti_ns: a.tti.map_or(0, |d| d.ns()),
        }),
        jitter,
        outages: OutageConfig {
            scheduled,
            process,
            discard: spec.outage_process.as_ref().is_some_and(|o| o.discard),
            min_backlog_bytes: spec.outage_process.as_ref().and_then(|o| o.min_backlog).map_or(0, |b| b.0),
        },
        discard_timer_ns: spec.discard_timer.map(|d| d.ns()),
        host_queue: spec.host_queue,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;
    use std::sync::Arc;

    #[test]
    fn a_trace_link_shares_the_scenarios_opportunities_instead_of_copying_them() {
        let s = Scenario::from_json(
            r#"{"duration": 1, "downlink": {"trace": {"opportunities_ms": [1, 2]}, "delay": "10ms"},
                "flows": [{"cc": "reno"}]}"#,
        )
        .unwrap();
        let spec = s.downlink.as_ref().unwrap();
        let RateConfig::Trace(t) = rate_config(spec) else { panic!("a trace link") };
        assert!(Arc::ptr_eq(&t.opportunities_ms, &spec.trace.as_ref().unwrap().opportunities_ms));
    }
}
