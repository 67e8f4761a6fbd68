//! Checks of flows (algorithm, parameters, TCP settings), UDP sources, the
//! background and the packet capture; each error names the field path, the
//! bad value and what is allowed.

use super::error::{err, suggestion, unknown_algorithm_message, ScenarioError};
use super::schema::*;
use crate::cc;
use crate::units::{Bytes, Duration};

/// The most flows one `[[flows]]` entry may start (each flow owns its sender
/// state; a million of them would exhaust memory before the run starts).
pub const MAX_FLOWS_PER_ENTRY: u32 = 100_000;

pub(super) fn check_flow(path: &str, f: &FlowSpec, run: Duration) -> Result<(), ScenarioError> {
    let info = cc::lookup(&f.cc)
        .ok_or_else(|| ScenarioError { path: format!("{path}.cc"), message: unknown_algorithm_message(&f.cc) })?;
    cc::check_params(info, &f.cc_params, suggestion)
        .map_err(|e| ScenarioError { path: format!("{path}.cc_params.{}", e.name), message: e.message })?;
    if f.count == 0 {
        return err(format!("{path}.count"), "must be at least 1");
    }
    if f.start >= run {
        return err(
            format!("{path}.start"),
            format!("{} s is not before the end of the run ({} s)", secs(f.start), secs(run)),
        );
    }
    if let Some(stop) = f.stop {
        if stop <= f.start {
            return err(format!("{path}.stop"), format!("{} s must be after start ({} s)", secs(stop), secs(f.start)));
        }
    }
    if let Some(size) = f.size {
        if size.0 == 0 {
            return err(format!("{path}.size"), "a transfer needs at least one byte");
        }
    }
    if f.count > MAX_FLOWS_PER_ENTRY {
        return err(format!("{path}.count"), format!("{} is more than {MAX_FLOWS_PER_ENTRY} flows", f.count));
    }
    let t = &f.tcp;
    let p = |field: &str| format!("{path}.tcp.{field}");
    if !(88..=65_483).contains(&t.mss) {
        return err(p("mss"), format!("{} is outside 88..65483 bytes", t.mss));
    }
    if !(1..=10_000).contains(&t.init_cwnd) {
        return err(p("init_cwnd"), format!("{} is outside 1..10000 segments", t.init_cwnd));
    }
    if let Some(n) = t.init_rcv_wnd.filter(|n| !(1..=10_000).contains(n)) {
        return err(p("init_rcv_wnd"), format!("{n} is outside 1..10000 segments"));
    }
    if !(1..=64).contains(&t.delack_segments) {
        return err(p("delack_segments"), format!("{} is outside 1..64", t.delack_segments));
    }
    if t.min_rto.ns() == 0 || t.min_rto > t.max_rto {
        return err(
            p("min_rto"),
            format!("{} s must be positive and at most max_rto ({} s)", secs(t.min_rto), secs(t.max_rto)),
        );
    }
    if t.initial_rto.ns() == 0 {
        return err(p("initial_rto"), "must be positive");
    }
    for (field, b) in [("rcv_buf", t.rcv_buf), ("snd_buf", t.snd_buf)] {
        if let BufferSpec::Fixed(bytes) = b {
            if bytes.0 < t.mss as u64 {
                return err(p(field), format!("{} bytes is smaller than one segment ({} bytes)", bytes.0, t.mss));
            }
        }
    }
    if let Some(scale) = t.adv_win_scale {
        if !(-31..=31).contains(&scale) {
            return err(p("adv_win_scale"), format!("{scale} is outside -31..31 (Linux tcp_adv_win_scale)"));
        }
    }
    for (field, overhead) in [("skb_overhead", t.skb_overhead), ("snd_skb_overhead", t.snd_skb_overhead)] {
        if overhead.0 > 65_536 {
            return err(p(field), format!("{} bytes is more than 64 KB per segment", overhead.0));
        }
    }
    if t.rmem_max.0 < t.mss as u64 || t.rmem_default.0 < t.mss as u64 || t.wmem_max.0 < t.mss as u64 {
        return err(p("rmem_max"), "buffer limits must hold at least one segment");
    }
    Ok(())
}

pub(super) fn check_udp(path: &str, u: &UdpSpec, run: Duration) -> Result<(), ScenarioError> {
    check_period(path, u.start, u.stop, run)?;
    check_packet_size(&format!("{path}.packet_size"), u.packet_size)
}

fn check_period(path: &str, start: Duration, stop: Option<Duration>, run: Duration) -> Result<(), ScenarioError> {
    if start >= run {
        return err(
            format!("{path}.start"),
            format!("{} s is not before the end of the run ({} s)", secs(start), secs(run)),
        );
    }
    if let Some(stop) = stop {
        if stop <= start {
            return err(format!("{path}.stop"), format!("{} s must be after start ({} s)", secs(stop), secs(start)));
        }
    }
    Ok(())
}

fn check_packet_size(path: &str, size: Bytes) -> Result<(), ScenarioError> {
    if !(29..=65_535).contains(&size.0) {
        return err(path, format!("{} bytes is outside 29..65535 (IPv4 and UDP headers take 28)", size.0));
    }
    Ok(())
}

pub(super) fn check_background(path: &str, b: &BackgroundSpec, run: Duration) -> Result<(), ScenarioError> {
    let p = |field: &str| format!("{path}.{field}");
    if !(b.load > 0.0 && b.load <= 10.0) {
        return err(
            p("load"),
            format!("{} is not a load; allowed: more than 0, at most 10 (a fraction of the bottleneck rate)", b.load),
        );
    }
    check_period(path, b.start, b.stop, run)?;
    for (i, (_, m)) in b.profile.iter().enumerate() {
        if !(m.is_finite() && *m >= 0.0) {
            return err(format!("{path}.profile[{i}]"), format!("multiplier {m} must be a finite number, 0 or more"));
        }
    }
    if !b.profile.is_empty() && b.profile.iter().all(|(_, m)| *m == 0.0) {
        return err(p("profile"), "every multiplier is 0: the background would send nothing");
    }
    for w in b.profile.windows(2) {
        if w[1].0 < w[0].0 {
            return err(p("profile"), format!("times must not decrease ({} s after {} s)", secs(w[1].0), secs(w[0].0)));
        }
    }
    check_packet_size(&p("packet_size"), b.packet_size)?;
    let size = &b.size;
    if size.mean.0 == 0 {
        return err(p("size.mean"), "a transfer needs at least one byte");
    }
    if !(size.shape > 1.0 && size.shape <= 100.0) {
        return err(
            p("size.shape"),
            format!("{} is not a Pareto shape with a finite mean; allowed: more than 1, at most 100", size.shape),
        );
    }
    if !(size.sigma > 0.0 && size.sigma <= 10.0) {
        return err(p("size.sigma"), format!("{} is out of range; allowed: more than 0, at most 10", size.sigma));
    }
    match b.kind {
        BackgroundKind::PoissonWeb => {
            if b.transport == TransportSpec::Tcp {
                // The TCP transfers are checked as flows would be.
                let flow = super::lower::background_flow(b);
                check_flow(path, &flow, run)?;
                if b.rate.is_some() {
                    return err(p("rate"), "only for UDP transfers (transport = \"udp\")");
                }
            }
        }
        BackgroundKind::OnOff => {
            if b.transport == TransportSpec::Tcp && b.cc != d_background_cc() {
                return err(p("cc"), "on-off sources send UDP; cc applies to poisson-web over TCP");
            }
            if b.rate.is_some() {
                return err(
                    p("rate"),
                    "on-off sources derive their rate from load (sources x rate x on/(on+off) = load x capacity)",
                );
            }
            if !(1..=10_000).contains(&b.sources) {
                return err(p("sources"), format!("{} is outside 1..10000", b.sources));
            }
            if b.on.ns() == 0 {
                return err(p("on"), "the mean on period must be longer than zero");
            }
            if b.off.ns() == 0 {
                return err(p("off"), "the mean off period must be longer than zero");
            }
        }
    }
    Ok(())
}

pub(super) fn check_pcap(path: &str, p: &PcapSpec) -> Result<(), ScenarioError> {
    if p.path.trim().is_empty() {
        return err(format!("{path}.path"), "needs a file name");
    }
    let file = std::path::Path::new(&p.path);
    let escapes =
        file.components().any(|c| !matches!(c, std::path::Component::Normal(_) | std::path::Component::CurDir));
    if escapes || p.path.contains('\0') {
        return err(
            format!("{path}.path"),
            format!(
                "\"{}\" is not allowed: the capture goes into the run's output directory, so give a relative name \
                 without '..' (such as \"capture.pcap\")",
                crate::units::shown(&p.path)
            ),
        );
    }
    if !(80..=262_144).contains(&p.snaplen) {
        return err(
            format!("{path}.snaplen"),
            format!("{} is outside 80..262144 bytes (80 keeps every IPv4 and TCP header)", p.snaplen),
        );
    }
    Ok(())
}

fn secs(d: Duration) -> f64 {
    d.ns() as f64 / 1e9
}
