//! Checks of one link's fields (rate source, queue, loss, ARQ, jitter,
//! outages), for the shorthand's `downlink`/`uplink` and every `[[links]]`
//! entry alike: every malformed entry gets an error naming its field path,
//! the bad value and what is allowed.

use super::error::err;
use super::lower::{codel_params, dualpi2_params, pie_params, red_params};
use super::{
    DchSpec, JitterDistribution, JitterSpec, LinkSpec, LossSpec, OutageDistribution, OutageProcessSpec, QueueKind,
    QueueSpec, ScenarioError,
};
use crate::net::channel::trace::check_opportunities;
use crate::units::{Duration, QueueSize};

fn ms(d: Duration) -> String {
    format!("{}ms", d.ns() as f64 / 1e6)
}

fn check_probability(path: String, v: f64) -> Result<(), ScenarioError> {
    if !(0.0..=1.0).contains(&v) || v.is_nan() {
        return err(path, format!("{v} is not a probability; allowed: 0 to 1"));
    }
    Ok(())
}

/// A DCH's bearers rise, none is zero, the initial one exists, and event
/// 4b's threshold is not above 4a's (else both could hold at once).
fn check_dch(path: &str, d: &DchSpec) -> Result<(), ScenarioError> {
    if d.bearers.is_empty() {
        return err(
            format!("{path}.bearers"),
            "needs at least one bearer, e.g. [\"64kbit\", \"128kbit\", \"384kbit\"]",
        );
    }
    for (i, b) in d.bearers.iter().enumerate() {
        if b.bps() == 0 {
            return err(format!("{path}.bearers[{i}]"), "must be faster than zero");
        }
        if i > 0 && b.bps() <= d.bearers[i - 1].bps() {
            return err(
                format!("{path}.bearers[{i}]"),
                "bearers must be listed slowest first, each faster than the one before",
            );
        }
    }
    if d.initial_bearer >= d.bearers.len() {
        return err(
            format!("{path}.initial_bearer"),
            format!("{} names no bearer; allowed: 0 to {}", d.initial_bearer, d.bearers.len() - 1),
        );
    }
    if d.down_threshold.0 > d.up_threshold.0 {
        return err(
            format!("{path}.down_threshold"),
            format!(
                "{} bytes is above up_threshold ({} bytes); allowed: at most up_threshold",
                d.down_threshold.0, d.up_threshold.0
            ),
        );
    }
    if let Some(f) = &d.fach {
        if f.rate.bps() == 0 {
            return err(format!("{path}.fach.rate"), "must be faster than zero");
        }
    }
    Ok(())
}

/// Checks one link (`path` is "downlink", "uplink" or "links[i]").
pub fn check_link(path: &str, l: &LinkSpec) -> Result<(), ScenarioError> {
    let sources = [
        ("rate", l.rate.is_some()),
        ("trace", l.trace.is_some()),
        ("rate_process", l.rate_process.is_some()),
        ("dch", l.dch.is_some()),
    ];
    let given: Vec<&str> = sources.iter().filter(|(_, g)| *g).map(|(n, _)| *n).collect();
    if given.len() != 1 {
        return err(
            path.to_string(),
            format!(
                "give exactly one of rate (\"10Mbit\"), trace ({{ opportunities_ms = [...] }}), rate_process ({{ states = [...] }}) or dch ({{ bearers = [...], ... }}); got {}",
                if given.is_empty() { "none".to_string() } else { given.join(" and ") }
            ),
        );
    }
    if let Some(t) = &l.trace {
        if let Err(e) = check_opportunities(&t.opportunities_ms) {
            let p = format!("{path}.trace.opportunities_ms");
            return err(e.entry.map_or(p.clone(), |i| format!("{p}[{i}]")), e.message);
        }
        if t.bytes_per_opportunity == 0 {
            return err(format!("{path}.trace.bytes_per_opportunity"), "must be at least 1 byte (Mahimahi: 1504)");
        }
    }
    if let Some(rp) = &l.rate_process {
        if rp.states.is_empty() {
            return err(
                format!("{path}.rate_process.states"),
                "needs at least one state, e.g. [{ rate = \"10Mbit\", mean_holding = \"2s\" }]",
            );
        }
        for (i, s) in rp.states.iter().enumerate() {
            if s.mean_holding.ns() == 0 {
                return err(format!("{path}.rate_process.states[{i}].mean_holding"), "must be longer than zero");
            }
        }
    }
    if let Some(d) = &l.dch {
        check_dch(&format!("{path}.dch"), d)?;
    }
    check_queue(&format!("{path}.queue"), &l.queue)?;
    if let Some(d) = l.discard_timer {
        if d.ns() == 0 {
            return err(format!("{path}.discard_timer"), "must be longer than zero");
        }
        if l.queue.kind != QueueKind::Droptail {
            return err(
                format!("{path}.discard_timer"),
                format!("applies to a drop-tail queue; this link's queue is {:?}", l.queue.kind).to_lowercase(),
            );
        }
    }
    if let Some(n) = l.host_queue {
        if n == 0 {
            return err(format!("{path}.host_queue"), "0 packets cannot hold a segment; allowed: 1 or more");
        }
        if l.queue.kind != QueueKind::Droptail {
            return err(
                format!("{path}.host_queue"),
                format!("feeds a drop-tail queue; this link's queue is {:?}", l.queue.kind).to_lowercase(),
            );
        }
        if l.dch.is_some() {
            return err(format!("{path}.host_queue"), "not with a dch link (its bearer follows the queue alone)");
        }
    }
    check_loss(&format!("{path}.loss"), &l.loss)?;
    if let Some(a) = &l.arq {
        if a.max_retries > 64 {
            return err(format!("{path}.arq.max_retries"), format!("{} is too many; allowed: 0 to 64", a.max_retries));
        }
    }
    if let Some(j) = &l.jitter {
        check_jitter(&format!("{path}.jitter"), j)?;
    }
    for (i, o) in l.outages.iter().enumerate() {
        if o.duration.ns() == 0 {
            return err(format!("{path}.outages[{i}].duration"), "must be longer than zero");
        }
    }
    if let Some(op) = &l.outage_process {
        check_outage_process(&format!("{path}.outage_process"), op)?;
    }
    Ok(())
}

/// Fields given that the chosen variant does not take.
fn check_unused(path: &str, what: &str, fields: &[(&str, bool)], takes: &str) -> Result<(), ScenarioError> {
    if let Some((name, _)) = fields.iter().find(|(_, given)| *given) {
        return err(format!("{path}.{name}"), format!("does not apply to {what}; it takes {takes}"));
    }
    Ok(())
}

fn check_queue(path: &str, q: &QueueSpec) -> Result<(), ScenarioError> {
    match q.size() {
        QueueSize::Packets(0) | QueueSize::Bytes(0) => {
            return err(format!("{path}.size"), "must hold at least one packet")
        }
        QueueSize::Bytes(b) if b < FULL_PACKET_BYTES => {
            return err(
                format!("{path}.size"),
                format!("{b} bytes holds no full-size packet ({FULL_PACKET_BYTES} bytes): nothing could pass"),
            )
        }
        QueueSize::Bdp(m) if m <= 0.0 => return err(format!("{path}.size"), format!("{m}bdp must be positive")),
        _ => {}
    }
    let red = [
        ("min_th", q.min_th.is_some()),
        ("max_th", q.max_th.is_some()),
        ("max_p", q.max_p.is_some()),
        ("w_q", q.w_q.is_some()),
        ("gentle", q.gentle.is_some()),
    ];
    let codel = [("target", q.target.is_some()), ("interval", q.interval.is_some())];
    let pie = [("tupdate", q.tupdate.is_some()), ("alpha", q.alpha.is_some()), ("beta", q.beta.is_some())];
    let dual = [
        ("step_thresh", q.step_thresh.is_some()),
        ("coupling_factor", q.coupling_factor.is_some()),
        ("c_protection", q.c_protection.is_some()),
    ];
    let what = format!("kind = \"{}\"", q.kind.name());
    match q.kind {
        QueueKind::Droptail => {
            let takes = "size and ecn_threshold";
            check_unused(path, &what, &red, takes)?;
            check_unused(path, &what, &codel, takes)?;
            check_unused(path, &what, &pie, takes)?;
            check_unused(path, &what, &dual, takes)?;
            check_unused(path, &what, &[("ecn", q.ecn.is_some())], "size and ecn_threshold (step marking)")?;
        }
        QueueKind::Red => {
            let takes = "size, min_th, max_th, max_p, w_q, gentle and ecn";
            check_unused(path, &what, &codel, takes)?;
            check_unused(path, &what, &pie, takes)?;
            check_unused(path, &what, &dual, takes)?;
            check_unused(path, &what, &[("ecn_threshold", q.ecn_threshold.is_some())], takes)?;
            let p = red_params(q);
            if !(p.min_th_pkts >= 0.0 && p.min_th_pkts.is_finite()) {
                return err(format!("{path}.min_th"), format!("{} packets must be zero or more", p.min_th_pkts));
            }
            if !(p.max_th_pkts > p.min_th_pkts && p.max_th_pkts.is_finite()) {
                return err(
                    format!("{path}.max_th"),
                    format!("{} packets must be above min_th ({})", p.max_th_pkts, p.min_th_pkts),
                );
            }
            check_probability(format!("{path}.max_p"), p.max_p)?;
            if !(p.w_q > 0.0 && p.w_q <= 1.0) {
                return err(
                    format!("{path}.w_q"),
                    format!("{} is not a weight; allowed: above 0, at most 1 (Floyd: 0.002)", p.w_q),
                );
            }
        }
        QueueKind::Codel => {
            let takes = "size, target, interval and ecn";
            check_unused(path, &what, &red, takes)?;
            check_unused(path, &what, &pie, takes)?;
            check_unused(path, &what, &dual, takes)?;
            check_unused(path, &what, &[("ecn_threshold", q.ecn_threshold.is_some())], takes)?;
            let p = codel_params(q);
            if p.target_ns == 0 {
                return err(format!("{path}.target"), "must be longer than zero (RFC 8289: 5ms)");
            }
            if p.interval_ns < p.target_ns {
                return err(
                    format!("{path}.interval"),
                    format!(
                        "{}ms is shorter than target ({}ms); RFC 8289: 100ms",
                        p.interval_ns as f64 / 1e6,
                        p.target_ns as f64 / 1e6
                    ),
                );
            }
        }
        QueueKind::Pie => {
            let takes = "size, target, tupdate, alpha, beta and ecn";
            check_unused(path, &what, &red, takes)?;
            check_unused(path, &what, &dual, takes)?;
            check_unused(path, &what, &[("interval", q.interval.is_some())], takes)?;
            check_unused(path, &what, &[("ecn_threshold", q.ecn_threshold.is_some())], takes)?;
            let p = pie_params(q);
            check_pi(path, p.target_ns, p.tupdate_ns, "RFC 8033, Linux: 15ms")?;
            // Linux takes alpha and beta in 1/16 units from 0 to 32 (0 to 2 per second).
            for (name, v, default) in [("alpha", p.alpha, "0.125"), ("beta", p.beta, "1.25")] {
                if !(0.0..=2.0).contains(&v) {
                    return err(
                        format!("{path}.{name}"),
                        format!("{v} is out of range; allowed: 0 to 2 per second (RFC 8033: {default})"),
                    );
                }
            }
        }
        QueueKind::Dualpi2 => {
            let takes = "size, target, tupdate, alpha, beta, step_thresh, coupling_factor and c_protection";
            check_unused(path, &what, &red, takes)?;
            check_unused(path, &what, &[("interval", q.interval.is_some())], takes)?;
            check_unused(path, &what, &[("ecn_threshold", q.ecn_threshold.is_some())], takes)?;
            check_unused(
                path,
                &what,
                &[("ecn", q.ecn.is_some())],
                "size, target, ... (it always marks ECN-capable packets)",
            )?;
            let p = dualpi2_params(q);
            check_pi(path, p.target_ns, p.tupdate_ns, "RFC 9332: 15ms and 16ms")?;
            // Linux's netlink range: 1/256 to 2^23/256 per second.
            for (name, v, default) in [("alpha", p.alpha, "0.16"), ("beta", p.beta, "3.2")] {
                if !(v > 0.0 && v <= 32768.0) {
                    return err(
                        format!("{path}.{name}"),
                        format!(
                            "{v} is out of range; allowed: above 0, at most 32768 per second (RFC 9332: {default})"
                        ),
                    );
                }
            }
            if !(p.coupling >= 1.0 && p.coupling <= 255.0) {
                return err(
                    format!("{path}.coupling_factor"),
                    format!("{} is out of range; allowed: 1 to 255 (RFC 9332: 2)", p.coupling),
                );
            }
            if p.c_protection_pct > 100 {
                return err(
                    format!("{path}.c_protection"),
                    format!("{} percent is out of range; allowed: 0 to 100 (Linux: 10)", p.c_protection_pct),
                );
            }
        }
    }
    Ok(())
}

/// A PI controller's target and update period (PIE, DualPI2).
fn check_pi(path: &str, target_ns: u64, tupdate_ns: u64, defaults: &str) -> Result<(), ScenarioError> {
    if target_ns == 0 {
        return err(format!("{path}.target"), format!("must be longer than zero ({defaults})"));
    }
    if tupdate_ns < 100_000 {
        return err(
            format!("{path}.tupdate"),
            format!("{}ms is too short; allowed: 0.1ms or more ({defaults})", tupdate_ns as f64 / 1e6),
        );
    }
    Ok(())
}

fn check_loss(path: &str, l: &LossSpec) -> Result<(), ScenarioError> {
    match *l {
        LossSpec::None => Ok(()),
        LossSpec::Bernoulli { p } => check_probability(format!("{path}.p"), p),
        LossSpec::GilbertElliott { p, r, loss_good, loss_bad, mean_loss, mean_burst } => {
            let forms = "either p and r (with optional loss_good, loss_bad) or mean_loss and mean_burst";
            match (p, r, mean_loss, mean_burst) {
                (Some(p), Some(r), None, None) => {
                    check_probability(format!("{path}.p"), p)?;
                    check_probability(format!("{path}.r"), r)?;
                    if p + r == 0.0 {
                        return err(format!("{path}.r"), "p and r are both 0: the chain never moves; give r > 0");
                    }
                    if let Some(x) = loss_good {
                        check_probability(format!("{path}.loss_good"), x)?;
                    }
                    if let Some(x) = loss_bad {
                        check_probability(format!("{path}.loss_bad"), x)?;
                    }
                    Ok(())
                }
                (None, None, Some(m), Some(b)) => {
                    if loss_good.is_some() || loss_bad.is_some() {
                        let name = if loss_good.is_some() { "loss_good" } else { "loss_bad" };
                        return err(format!("{path}.{name}"), "does not go with mean_loss and mean_burst (the simple Gilbert model loses every frame in Bad, none in Good)");
                    }
                    if !(0.0..1.0).contains(&m) {
                        return err(
                            format!("{path}.mean_loss"),
                            format!("{m} is not a loss rate; allowed: 0 to below 1"),
                        );
                    }
                    if !(b >= 1.0 && b.is_finite()) {
                        return err(
                            format!("{path}.mean_burst"),
                            format!("{b} frames; a burst is at least 1 frame long"),
                        );
                    }
                    Ok(())
                }
                _ => {
                    let missing =
                        [("p", p.is_none() && mean_loss.is_none()), ("r", r.is_none() && mean_burst.is_none())];
                    let field = if p.is_some() && mean_loss.is_some() || r.is_some() && mean_burst.is_some() {
                        "mean_loss"
                    } else {
                        missing.iter().find(|(_, m)| *m).map_or("p", |(n, _)| *n)
                    };
                    err(format!("{path}.{field}"), format!("gilbert-elliott takes {forms}"))
                }
            }
        }
    }
}

fn check_jitter(path: &str, j: &JitterSpec) -> Result<(), ScenarioError> {
    let need = |name: &str, v: Option<Duration>, d: &str| -> Result<Duration, ScenarioError> {
        v.ok_or_else(|| ScenarioError {
            path: format!("{path}.{name}"),
            message: format!("is needed by distribution = \"{d}\""),
        })
    };
    match j.distribution {
        JitterDistribution::Uniform => {
            check_unused(
                path,
                "distribution = \"uniform\"",
                &[("mean", j.mean.is_some()), ("std", j.std.is_some())],
                "min (default 0) and max",
            )?;
            let max = need("max", j.max, "uniform")?;
            let min = j.min.unwrap_or_default();
            if max < min {
                return err(format!("{path}.max"), format!("{} is below min ({})", ms(max), ms(min)));
            }
        }
        JitterDistribution::Normal => {
            check_unused(
                path,
                "distribution = \"normal\"",
                &[("min", j.min.is_some()), ("max", j.max.is_some())],
                "mean and std",
            )?;
            need("mean", j.mean, "normal")?;
            need("std", j.std, "normal")?;
        }
        JitterDistribution::Exponential => {
            let given = [("min", j.min.is_some()), ("max", j.max.is_some()), ("std", j.std.is_some())];
            check_unused(path, "distribution = \"exponential\"", &given, "mean")?;
            need("mean", j.mean, "exponential")?;
        }
    }
    Ok(())
}

/// A full-size packet on the wire (a 1448-byte segment and its headers): a
/// byte-sized queue must hold one.
pub const FULL_PACKET_BYTES: u64 = 1500;

fn check_outage_process(path: &str, o: &OutageProcessSpec) -> Result<(), ScenarioError> {
    if o.mean_interval.ns() == 0 {
        return err(format!("{path}.mean_interval"), "must be longer than zero");
    }
    let bounds = [("min", o.min.is_some()), ("max", o.max.is_some())];
    match o.distribution {
        OutageDistribution::Fixed | OutageDistribution::Exponential => {
            let name = if o.distribution == OutageDistribution::Fixed { "fixed" } else { "exponential" };
            check_unused(path, &format!("distribution = \"{name}\""), &bounds, "duration")?;
            match o.duration {
                None => return err(format!("{path}.duration"), format!("is needed by distribution = \"{name}\"")),
                Some(d) if d.ns() == 0 => return err(format!("{path}.duration"), "must be longer than zero"),
                _ => {}
            }
        }
        OutageDistribution::Uniform => {
            check_unused(path, "distribution = \"uniform\"", &[("duration", o.duration.is_some())], "min and max")?;
            let (Some(min), Some(max)) = (o.min, o.max) else {
                let name = if o.min.is_none() { "min" } else { "max" };
                return err(format!("{path}.{name}"), "is needed by distribution = \"uniform\"");
            };
            if max < min || max.ns() == 0 {
                return err(
                    format!("{path}.max"),
                    format!("{} must be positive and at least min ({})", ms(max), ms(min)),
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::Scenario;

    fn error(link: &str) -> (String, String) {
        let json = format!(r#"{{"duration": 10, "downlink": {link}, "flows": [{{"cc": "reno"}}]}}"#);
        let e = Scenario::from_json(&json).expect_err(link);
        (e.path, e.message)
    }

    fn ok(link: &str) {
        let json = format!(r#"{{"duration": 10, "downlink": {link}, "flows": [{{"cc": "reno"}}]}}"#);
        Scenario::from_json(&json).unwrap_or_else(|e| panic!("{link}: {e}"));
    }

    /// (link JSON, expected path, words the message must contain)
    const BAD: &[(&str, &str, &[&str])] = &[
        (r#"{"delay": "10ms"}"#, "downlink", &["exactly one of rate", "got none"]),
        (r#"{"rate": "1Mbit", "trace": {"opportunities_ms": [1]}}"#, "downlink", &["rate and trace"]),
        (
            r#"{"trace": "traces/att.down"}"#,
            "downlink.trace",
            &["traces/att.down", "load_mahimahi", "opportunities_ms"],
        ),
        (r#"{"trace": {"opportunities_ms": []}}"#, "downlink.trace.opportunities_ms", &["empty"]),
        (r#"{"trace": {"opportunities_ms": [1, 5, 3]}}"#, "downlink.trace.opportunities_ms[2]", &["3 comes after 5"]),
        (r#"{"trace": {"opportunities_ms": [0, 0]}}"#, "downlink.trace.opportunities_ms", &["last timestamp is 0"]),
        (
            r#"{"trace": {"opportunities_ms": [1], "file": "x"}}"#,
            "downlink.trace.file",
            &["unknown field", "opportunities_ms"],
        ),
        (r#"{"trace": {"opportunities_ms": [1, -2]}}"#, "downlink.trace.opportunities_ms[1]", &["-2"]),
        (r#"{"rate_process": {"states": []}}"#, "downlink.rate_process.states", &["at least one state"]),
        (r#"{"rate": "1Mbit", "discard_timer": 0}"#, "downlink.discard_timer", &["longer than zero"]),
        (r#"{"rate": "1Mbit", "host_queue": 0}"#, "downlink.host_queue", &["1 or more"]),
        (
            r#"{"rate": "1Mbit", "host_queue": 3, "queue": {"kind": "red"}}"#,
            "downlink.host_queue",
            &["drop-tail", "red"],
        ),
        (
            r#"{"rate": "1Mbit", "discard_timer": "1s", "queue": {"kind": "codel"}}"#,
            "downlink.discard_timer",
            &["drop-tail", "codel"],
        ),
        (
            r#"{"dch": {"bearers": [], "up_threshold": "4KB", "up_time_to_trigger": "240ms", "down_threshold": "1KB", "down_time_to_trigger": "1s", "pending_after_trigger": "1s", "reconfig_delay": "500ms"}}"#,
            "downlink.dch.bearers",
            &["at least one bearer"],
        ),
        (
            r#"{"dch": {"bearers": ["128kbit", "64kbit"], "up_threshold": "4KB", "up_time_to_trigger": "240ms", "down_threshold": "1KB", "down_time_to_trigger": "1s", "pending_after_trigger": "1s", "reconfig_delay": "500ms"}}"#,
            "downlink.dch.bearers[1]",
            &["slowest first"],
        ),
        (
            r#"{"dch": {"bearers": ["64kbit"], "initial_bearer": 1, "up_threshold": "4KB", "up_time_to_trigger": "240ms", "down_threshold": "1KB", "down_time_to_trigger": "1s", "pending_after_trigger": "1s", "reconfig_delay": "500ms"}}"#,
            "downlink.dch.initial_bearer",
            &["1 names no bearer", "0 to 0"],
        ),
        (
            r#"{"dch": {"bearers": ["64kbit"], "up_threshold": "4KB", "up_time_to_trigger": "240ms", "down_threshold": "8KB", "down_time_to_trigger": "1s", "pending_after_trigger": "1s", "reconfig_delay": "500ms"}}"#,
            "downlink.dch.down_threshold",
            &["8000 bytes", "at most up_threshold"],
        ),
        (
            r#"{"rate": "1Mbit", "dch": {"bearers": ["64kbit"], "up_threshold": "4KB", "up_time_to_trigger": "240ms", "down_threshold": "1KB", "down_time_to_trigger": "1s", "pending_after_trigger": "1s", "reconfig_delay": "500ms"}}"#,
            "downlink",
            &["rate and dch"],
        ),
        (
            r#"{"rate_process": {"states": [{"rate": "1Mbit", "mean_holding": 0}]}}"#,
            "downlink.rate_process.states[0].mean_holding",
            &["longer than zero"],
        ),
        (
            r#"{"rate": "1Mbit", "queue": {"kind": "fq"}}"#,
            "downlink.queue.kind",
            &["'fq'", "droptail", "red", "codel", "pie", "dualpi2"],
        ),
        (
            r#"{"rate": "1Mbit", "queue": {"kind": "codel", "min_th": 5}}"#,
            "downlink.queue.min_th",
            &["does not apply to kind = \"codel\"", "target"],
        ),
        (r#"{"rate": "1Mbit", "queue": {"target": "5ms"}}"#, "downlink.queue.target", &["kind = \"droptail\""]),
        (
            r#"{"rate": "1Mbit", "queue": {"kind": "red", "min_th": 10, "max_th": 5}}"#,
            "downlink.queue.max_th",
            &["5", "above min_th (10)"],
        ),
        (
            r#"{"rate": "1Mbit", "queue": {"kind": "red", "max_p": 2}}"#,
            "downlink.queue.max_p",
            &["2 is not a probability"],
        ),
        (r#"{"rate": "1Mbit", "queue": {"kind": "red", "w_q": 0}}"#, "downlink.queue.w_q", &["0 is not a weight"]),
        (
            r#"{"rate": "1Mbit", "queue": {"kind": "codel", "target": "50ms", "interval": "10ms"}}"#,
            "downlink.queue.interval",
            &["shorter than target"],
        ),
        (
            r#"{"rate": "1Mbit", "queue": {"kind": "codel", "ecn_threshold": 5}}"#,
            "downlink.queue.ecn_threshold",
            &["does not apply"],
        ),
        (
            r#"{"rate": "1Mbit", "queue": {"kind": "pie", "interval": "100ms"}}"#,
            "downlink.queue.interval",
            &["does not apply to kind = \"pie\"", "tupdate"],
        ),
        (r#"{"rate": "1Mbit", "queue": {"kind": "pie", "alpha": 3}}"#, "downlink.queue.alpha", &["3", "0 to 2"]),
        (r#"{"rate": "1Mbit", "queue": {"kind": "pie", "tupdate": "0ms"}}"#, "downlink.queue.tupdate", &["0.1ms"]),
        (r#"{"rate": "1Mbit", "queue": {"kind": "red", "beta": 1}}"#, "downlink.queue.beta", &["kind = \"red\""]),
        (
            r#"{"rate": "1Mbit", "queue": {"kind": "dualpi2", "coupling_factor": 0.5}}"#,
            "downlink.queue.coupling_factor",
            &["0.5", "1 to 255"],
        ),
        (
            r#"{"rate": "1Mbit", "queue": {"kind": "dualpi2", "c_protection": 120}}"#,
            "downlink.queue.c_protection",
            &["120", "0 to 100"],
        ),
        (r#"{"rate": "1Mbit", "queue": {"kind": "dualpi2", "ecn": true}}"#, "downlink.queue.ecn", &["always marks"]),
        (
            r#"{"rate": "1Mbit", "queue": {"kind": "pie", "step_thresh": "1ms"}}"#,
            "downlink.queue.step_thresh",
            &["kind = \"pie\""],
        ),
        (
            r#"{"rate": "1Mbit", "queue": {"kind": "codel", "target": "5 parsecs"}}"#,
            "downlink.queue.target",
            &["5 parsecs", "duration"],
        ),
        (
            r#"{"rate": "1Mbit", "loss": {"model": "bernoulli", "p": 1.5}}"#,
            "downlink.loss.p",
            &["1.5 is not a probability"],
        ),
        (
            r#"{"rate": "1Mbit", "loss": {"model": "gilbert-elliott", "p": 0.1}}"#,
            "downlink.loss.r",
            &["p and r", "mean_loss and mean_burst"],
        ),
        (
            r#"{"rate": "1Mbit", "loss": {"model": "gilbert-elliott", "p": 0.1, "r": 0.5, "mean_loss": 0.1}}"#,
            "downlink.loss.mean_loss",
            &["either"],
        ),
        (
            r#"{"rate": "1Mbit", "loss": {"model": "gilbert-elliott", "p": 0.1, "r": 0.5, "loss_bad": -1}}"#,
            "downlink.loss.loss_bad",
            &["-1 is not a probability"],
        ),
        (
            r#"{"rate": "1Mbit", "loss": {"model": "gilbert", "mean_loss": 0.01, "mean_burst": 0.5}}"#,
            "downlink.loss.mean_burst",
            &["0.5", "at least 1"],
        ),
        (
            r#"{"rate": "1Mbit", "loss": {"model": "gilbert", "mean_loss": 1, "mean_burst": 2}}"#,
            "downlink.loss.mean_loss",
            &["1 is not a loss rate"],
        ),
        (r#"{"rate": "1Mbit", "loss": {"model": "markov"}}"#, "downlink.loss.model", &["'markov'", "gilbert-elliott"]),
        (
            r#"{"rate": "1Mbit", "loss": {"model": "bernoulli", "p": 0.1, "h": 1}}"#,
            "downlink.loss",
            &["unknown field 'h'", "expected 'p'"],
        ),
        (r#"{"rate": "1Mbit", "arq": {"max_retries": 100}}"#, "downlink.arq.max_retries", &["100", "0 to 64"]),
        (r#"{"rate": "1Mbit", "arq": {"max_retries": -1}}"#, "downlink.arq.max_retries", &["-1"]),
        (r#"{"rate": "1Mbit", "arq": {"retries": 3}}"#, "downlink.arq.retries", &["unknown field", "max_retries"]),
        (
            r#"{"rate": "1Mbit", "jitter": {"distribution": "pareto", "mean": "1ms"}}"#,
            "downlink.jitter.distribution",
            &["'pareto'", "uniform", "normal", "exponential"],
        ),
        (
            r#"{"rate": "1Mbit", "jitter": {"distribution": "uniform", "min": "1ms"}}"#,
            "downlink.jitter.max",
            &["needed by distribution = \"uniform\""],
        ),
        (
            r#"{"rate": "1Mbit", "jitter": {"distribution": "uniform", "min": "3ms", "max": "2ms"}}"#,
            "downlink.jitter.max",
            &["2ms is below min (3ms)"],
        ),
        (
            r#"{"rate": "1Mbit", "jitter": {"distribution": "uniform", "max": "2ms", "std": "1ms"}}"#,
            "downlink.jitter.std",
            &["does not apply", "min (default 0) and max"],
        ),
        (
            r#"{"rate": "1Mbit", "jitter": {"distribution": "normal", "mean": "2ms"}}"#,
            "downlink.jitter.std",
            &["needed"],
        ),
        (
            r#"{"rate": "1Mbit", "jitter": {"distribution": "exponential", "mean": "-2ms"}}"#,
            "downlink.jitter.mean",
            &["negative"],
        ),
        (
            r#"{"rate": "1Mbit", "jitter": {"distribution": "exponential", "mean": "2ms", "reorder": "yes"}}"#,
            "downlink.jitter.reorder",
            &["\"yes\"", "boolean"],
        ),
        (
            r#"{"rate": "1Mbit", "outages": [{"start": 1, "duration": 0}]}"#,
            "downlink.outages[0].duration",
            &["longer than zero"],
        ),
        (
            r#"{"rate": "1Mbit", "outage_process": {"mean_interval": 0, "duration": "1s"}}"#,
            "downlink.outage_process.mean_interval",
            &["longer than zero"],
        ),
        (
            r#"{"rate": "1Mbit", "outage_process": {"mean_interval": "10s"}}"#,
            "downlink.outage_process.duration",
            &["needed by distribution = \"fixed\""],
        ),
        (
            r#"{"rate": "1Mbit", "outage_process": {"mean_interval": "10s", "distribution": "uniform", "min": "1s"}}"#,
            "downlink.outage_process.max",
            &["needed"],
        ),
        (
            r#"{"rate": "1Mbit", "outage_process": {"mean_interval": "10s", "distribution": "uniform", "min": "1s", "max": "2s", "duration": "1s"}}"#,
            "downlink.outage_process.duration",
            &["does not apply", "min and max"],
        ),
        (
            r#"{"rate": "1Mbit", "outage_process": {"mean_interval": "10s", "distribution": "weibull", "duration": "1s"}}"#,
            "downlink.outage_process.distribution",
            &["'weibull'", "fixed"],
        ),
        (
            r#"{"rate_process": {"states": [{"rate": "1Mbit", "mean_holding": "1s"}], "start": "random"}}"#,
            "downlink.rate_process.start",
            &["'random'", "first", "stationary"],
        ),
    ];

    #[test]
    fn every_malformed_link_entry_names_path_value_and_choices() {
        for (link, path, words) in BAD {
            let (p, m) = error(link);
            assert_eq!(&p, path, "{link}: {m}");
            for w in *words {
                assert!(m.contains(w), "{link}: message \"{m}\" lacks \"{w}\"");
            }
        }
    }

    #[test]
    fn well_formed_links_pass() {
        ok(r#"{"trace": {"opportunities_ms": [1]}}"#);
        ok(
            r#"{"rate_process": {"states": [{"rate": "1Mbit", "mean_holding": "1s"}, {"rate": "5Mbit", "mean_holding": "2s"}]}}"#,
        );
        ok(r#"{"rate": "1Mbit", "queue": {"kind": "codel", "target": "5ms", "interval": "100ms", "ecn": true}}"#);
        ok(
            r#"{"rate": "1Mbit", "queue": {"kind": "pie", "target": "15ms", "tupdate": "15ms", "alpha": 0.125, "beta": 1.25, "ecn": true}}"#,
        );
        ok(
            r#"{"rate": "1Mbit", "queue": {"kind": "dualpi2", "target": "15ms", "tupdate": "16ms", "alpha": 0.16, "beta": 3.2, "step_thresh": "1ms", "coupling_factor": 2, "c_protection": 10}}"#,
        );
        ok(
            r#"{"rate": "1Mbit", "queue": {"kind": "red", "min_th": 5, "max_th": 15, "max_p": 0.1, "w_q": 0.002, "gentle": true, "ecn": true}}"#,
        );
        ok(
            r#"{"rate": "1Mbit", "loss": {"model": "gilbert-elliott", "p": 0.01, "r": 0.3, "loss_good": 0, "loss_bad": 0.8}}"#,
        );
        ok(r#"{"rate": "1Mbit", "loss": {"model": "gilbert", "mean_loss": 0.01, "mean_burst": 3}}"#);
        ok(
            r#"{"rate": "1Mbit", "arq": {}, "jitter": {"distribution": "normal", "mean": "2ms", "std": "1ms", "reorder": true}}"#,
        );
        ok(
            r#"{"rate": "1Mbit", "outage_process": {"mean_interval": "10s", "distribution": "exponential", "duration": "1s"}}"#,
        );
    }
}
