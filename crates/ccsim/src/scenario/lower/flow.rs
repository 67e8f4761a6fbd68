//! From a flow entry to the plain configs its sender and receiver are built
//! from (`SenderConfig`, `ReceiverConfig`) and its algorithm's parameters with
//! the kernel preset's applied: here, on the scenario's side, so that tcp
//! never reads the scenario's types.

use crate::cc;
use crate::scenario::kernel_presets::preset;
use crate::scenario::{BufferSpec, CwndCountsSpec, FlowSpec, FrtoSpec, RtoStyleSpec, UndoSpec};
use crate::tcp::frto::FrtoVariant;
use crate::tcp::receiver::{BufferAccounting, EcnEcho, ReceiverConfig};
use crate::tcp::rtt::{RtoStyle, RttEstimator};
use crate::tcp::sender::SenderConfig;
use crate::tcp::undo26::UndoStyle;
use crate::time::Nanos;
use std::collections::BTreeMap;

/// The sender's config of a flow entry whose algorithm does (`needs_ecn`:
/// dctcp) or does not need ECN.
pub fn sender_config(spec: &FlowSpec, needs_ecn: bool) -> SenderConfig {
    let t = &spec.tcp;
    SenderConfig {
        mss: t.mss,
        init_cwnd: t.init_cwnd,
        sack: t.sack,
        timestamps: t.timestamps,
        prr: t.prr,
        rack: t.rack,
        tlp: t.tlp,
        early_retrans: t.early_retrans,
        fack: t.fack,
        counting: match t.cwnd_counts {
            CwndCountsSpec::Segments => cc::Counting::Segments,
            CwndCountsSpec::Acks => cc::Counting::Acks,
        },
        pacing: t.pacing,
        ecn: t.ecn || needs_ecn,
        frto: match t.frto {
            FrtoSpec::Off => FrtoVariant::Off,
            FrtoSpec::Rfc4138 => FrtoVariant::Rfc4138,
            FrtoSpec::Rfc5682 => FrtoVariant::Rfc5682,
        },
        undo: match t.undo {
            UndoSpec::Modern => UndoStyle::Modern,
            UndoSpec::Linux26 => UndoStyle::Linux26,
        },
        rto_style: match t.rto_style {
            RtoStyleSpec::Linux => RtoStyle::Linux,
            RtoStyleSpec::Rfc6298 => RtoStyle::Rfc6298,
        },
        initial_rto: t.initial_rto.ns(),
        min_rto: t.min_rto.ns(),
        max_rto: t.max_rto.ns(),
        snd_buf: match t.snd_buf {
            BufferSpec::Fixed(b) => Some(b.0),
            BufferSpec::Auto(_) => None,
        },
        wmem_max: t.wmem_max.0,
        snd_skb_overhead: t.snd_skb_overhead.0,
        start: spec.start.ns(),
        stop: spec.stop.map(|d| d.ns()),
        size: spec.size.map(|b| b.0),
    }
}

/// The receiver's config of a flow entry whose route's propagation round
/// trip is `route_delay` (`Route::delay`), beside its sender's.
pub fn receiver_config(spec: &FlowSpec, route_delay: Nanos, sender: &SenderConfig, needs_ecn: bool) -> ReceiverConfig {
    let t = &spec.tcp;
    // The receiver's RTO comes from its one RTT sample, the handshake's: the
    // route's round trip (SYN and SYN-ACK, whose serialization is left out).
    let mut handshake = RttEstimator::new(sender.rto_style, sender.initial_rto, sender.min_rto, sender.max_rto);
    handshake.on_sample(route_delay + 2 * spec.access_delay.ns());
    let (rcv_buf, autotune) = match t.rcv_buf {
        BufferSpec::Fixed(b) => (b.0, false),
        BufferSpec::Auto(_) => (t.rmem_default.0, true),
    };
    ReceiverConfig {
        mss: t.mss,
        sack: t.sack,
        timestamps: t.timestamps,
        delayed_ack: t.delayed_ack,
        delack_segments: t.delack_segments,
        delack_timeout: t.delack_timeout.ns(),
        rcv_buf,
        rcv_buf_max: t.rmem_max.0.max(rcv_buf),
        autotune,
        init_rcv_wnd: t.init_rcv_wnd,
        rto: handshake.rto(),
        // Algorithms that need ECN (dctcp) get the accurate echo of RFC 8257 3.2.
        ecn_echo: match (needs_ecn, sender.ecn) {
            (true, _) => EcnEcho::Dctcp,
            (false, true) => EcnEcho::Classic,
            (false, false) => EcnEcho::Off,
        },
        accounting: BufferAccounting { adv_win_scale: t.adv_win_scale, skb_overhead_bytes: t.skb_overhead.0 },
    }
}

/// The flow's cc parameters: the scenario's, plus those its kernel preset
/// changes for its algorithm (HyStart off in CUBIC before 2.6.29) where the
/// scenario does not set them.
pub fn cc_params(spec: &FlowSpec) -> BTreeMap<String, f64> {
    let mut params = spec.cc_params.clone();
    if let Some(preset) = spec.tcp.kernel.as_deref().and_then(preset) {
        for &(cc, name, value, _source) in preset.cc_params {
            if cc == spec.cc {
                params.entry(name.to_string()).or_insert(value);
            }
        }
    }
    params
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Scenario;

    #[test]
    fn an_old_kernel_turns_cubic_hystart_off_unless_the_scenario_sets_it() {
        let scenario = |params: &str| {
            Scenario::from_json(&format!(
                r#"{{"duration": 1, "downlink": {{"rate": "10Mbit", "delay": "10ms"}},
                   "flows": [{{"cc": "cubic", "tcp": {{"kernel": "2.6.24"}} {params}}},
                             {{"cc": "cubic", "tcp": {{"kernel": "2.6.32"}}}}]}}"#
            ))
            .unwrap()
        };
        let s = scenario("");
        assert_eq!(cc_params(&s.flows[0]).get("hystart"), Some(&0.0));
        assert_eq!(cc_params(&s.flows[1]).get("hystart"), None);
        let s = scenario(r#", "cc_params": {"hystart": 1}"#);
        assert_eq!(cc_params(&s.flows[0]).get("hystart"), Some(&1.0));
    }
}
