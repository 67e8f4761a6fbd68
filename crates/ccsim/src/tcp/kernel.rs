//! Kernel presets: `tcp = { kernel = "2.6.24" }` sets the TCP defaults of a
//! Linux release the studies ran ("2.6.24", "2.6.26", "2.6.32", "3.5") or of
//! today's Linux ("6.x", the default, which sets nothing). Explicit `tcp`
//! fields override the preset; a network profile's TCP defaults (ccbench's
//! Python front writes them into each flow's `tcp` table) are explicit fields
//! here, so the order is preset, then profile, then the flow's own fields.
//! Each value below cites the kernel source of
//! its release; what differs between those releases but ccbench does not
//! model is listed in [`NOT_MODELLED`], so a preset never claims a behaviour
//! the simulator lacks.
//!
//! How the values were checked: against copies of the 2.6-era and 3.x-era
//! sources (net/ipv4/tcp.c tcp_init, tcp_input.c tcp_init_cwnd,
//! tcp_fixup_rcvbuf / tcp_rcv_space_adjust, sysctl_tcp_adv_win_scale,
//! tcp_should_expand_sndbuf) and the commits that changed them: the initial
//! window of 10 (2.6.39), TCP_TIMEOUT_INIT 1 s (3.1, RFC 6298), PRR (3.2),
//! tcp_adv_win_scale 1 with tcp_rmem[2] 6 MB (3.4), CUBIC 2.3 with HyStart
//! (2.6.29). The tagged release trees themselves (torvalds/linux at v2.6.24
//! and so on) were not reachable, so no value is pinned to a file at a tag.

use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use serde_json::{Map, Value};

/// One field a preset sets: the `tcp` (or cc parameter) name, its value as a
/// scenario would write it, and the kernel source it comes from.
#[derive(Clone, Copy, Debug)]
pub struct PresetValue {
    pub field: &'static str,
    pub value: PresetLiteral,
    pub source: &'static str,
}

/// A preset value, as written in a scenario file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PresetLiteral {
    Int(i64),
    Bool(bool),
    /// A duration or size with its unit ("3s", "200ms").
    Text(&'static str),
}

impl PresetLiteral {
    fn to_json(self) -> Value {
        match self {
            PresetLiteral::Int(v) => Value::from(v),
            PresetLiteral::Bool(v) => Value::from(v),
            PresetLiteral::Text(v) => Value::from(v),
        }
    }

    /// The value as text, for listings.
    pub fn display(self) -> String {
        match self {
            PresetLiteral::Int(v) => v.to_string(),
            PresetLiteral::Bool(v) => v.to_string(),
            PresetLiteral::Text(v) => v.to_string(),
        }
    }
}

/// A kernel preset: its name, what it sets in `tcp`, and the cc parameters it
/// changes from ccbench's defaults (per algorithm, when the scenario does not
/// set them).
#[derive(Clone, Copy, Debug)]
pub struct KernelPreset {
    pub name: &'static str,
    pub tcp: &'static [PresetValue],
    /// (algorithm, parameter, value, source).
    pub cc_params: &'static [(&'static str, &'static str, f64, &'static str)],
}

use PresetLiteral::{Bool, Int, Text};

const fn v(field: &'static str, value: PresetLiteral, source: &'static str) -> PresetValue {
    PresetValue { field, value, source }
}

/// RFC 3390 initial window of 2.6.x: tcp_init_cwnd() in net/ipv4/tcp_input.c
/// gives 3 segments for an MSS of 1096..1460 bytes (TCP_INIT_CWND 10 came in 2.6.39).
const IW3: PresetValue = v("init_cwnd", Int(3), "tcp_input.c tcp_init_cwnd (RFC 3390: 3 for MSS 1096-1460)");
/// TCP_TIMEOUT_INIT was 3*HZ until 3.1 (RFC 6298 made it 1 s).
const RTO_INIT_3S: PresetValue = v("initial_rto", Text("3s"), "include/net/tcp.h TCP_TIMEOUT_INIT 3*HZ");
/// TCP_RTO_MIN HZ/5 in every release here.
const RTO_MIN: PresetValue = v("min_rto", Text("200ms"), "include/net/tcp.h TCP_RTO_MIN HZ/5");
/// PRR came in 3.2 (tcp_input.c tcp_cwnd_down before).
const NO_PRR: PresetValue = v("prr", Bool(false), "no PRR before 3.2: tcp_input.c tcp_cwnd_down (rate halving)");
/// RACK came in 4.4 (net/ipv4/tcp_recovery.c); before it SACK losses were
/// marked by DupThresh (tcp_input.c tcp_update_scoreboard).
const NO_RACK: PresetValue =
    v("rack", Bool(false), "no RACK before 4.4 (tcp_recovery.c): tcp_input.c tcp_update_scoreboard (DupThresh)");
/// Tail loss probes came in 3.10 (tcp_output.c tcp_schedule_loss_probe).
const NO_TLP: PresetValue =
    v("tlp", Bool(false), "no tail loss probe before 3.10 (tcp_output.c tcp_schedule_loss_probe)");
/// tcp_init() in net/ipv4/tcp.c: tcp_rmem = {4096, 87380, max(87380, min(4 MB, limit))}.
const RMEM_DEFAULT_2_6: PresetValue = v("rmem_default", Int(87_380), "tcp.c tcp_init sysctl_tcp_rmem[1] = 87380");
const RMEM_MAX_4MB: PresetValue =
    v("rmem_max", Int(4_194_304), "tcp.c tcp_init sysctl_tcp_rmem[2] = max(87380, min(4 MB, limit))");
/// tcp_wmem[2] = max(64 KB, min(4 MB, limit)) in every release here.
const WMEM_MAX_4MB: PresetValue =
    v("wmem_max", Int(4_194_304), "tcp.c tcp_init sysctl_tcp_wmem[2] = max(64 KB, min(4 MB, limit))");

/// tcp_adv_win_scale 2 (a quarter of the buffer is overhead) until 3.4's
/// "tcp: change tcp_adv_win_scale and tcp_rmem[2]" made it 1.
const ADV_WIN_SCALE_2: PresetValue =
    v("adv_win_scale", Int(2), "sysctl_tcp_adv_win_scale = 2 (tcp_input.c), tcp_win_from_space");
/// The per-segment buffer cost tcp_rcv_space_adjust assumes (rcvmem =
/// advmss + MAX_TCP_HEADER + 16 + sizeof(struct sk_buff)): 272 + 16 + 232 on
/// x86-64 with a distribution's MAX_HEADER (ours: the config-dependent sizes).
const SKB_OVERHEAD_2_6: PresetValue =
    v("skb_overhead", Int(520), "tcp_input.c tcp_rcv_space_adjust rcvmem (ours: x86-64 sizes)");

/// CUBIC before 2.6.29 had no HyStart (tcp_cubic.c v2.2; HyStart came with v2.3).
const CUBIC_NO_HYSTART: (&str, &str, f64, &str) =
    ("cubic", "hystart", 0.0, "tcp_cubic.c before 2.6.29 (CUBIC 2.2) has no HyStart");

/// What the 2.6 releases of the studies (2.6.24, 2.6.26, 2.6.32) share.
const LINUX_2_6: &[PresetValue] = &[
    IW3,
    RTO_INIT_3S,
    RTO_MIN,
    NO_PRR,
    NO_RACK,
    NO_TLP,
    RMEM_DEFAULT_2_6,
    RMEM_MAX_4MB,
    WMEM_MAX_4MB,
    ADV_WIN_SCALE_2,
    SKB_OVERHEAD_2_6,
];

/// The presets, oldest first; "6.x" is ccbench's default and sets nothing
/// (its RACK-TLP, 4.18+, is the `rack` and `tlp` defaults).
pub const PRESETS: &[KernelPreset] = &[
    KernelPreset { name: "2.6.24", tcp: LINUX_2_6, cc_params: &[CUBIC_NO_HYSTART] },
    KernelPreset { name: "2.6.26", tcp: LINUX_2_6, cc_params: &[CUBIC_NO_HYSTART] },
    KernelPreset { name: "2.6.32", tcp: LINUX_2_6, cc_params: &[] },
    KernelPreset {
        name: "3.5",
        tcp: &[
            v("init_cwnd", Int(10), "include/net/tcp.h TCP_INIT_CWND 10 (since 2.6.39)"),
            v("initial_rto", Text("1s"), "include/net/tcp.h TCP_TIMEOUT_INIT HZ (since 3.1, RFC 6298)"),
            RTO_MIN,
            v("prr", Bool(true), "tcp_input.c tcp_update_cwnd_in_recovery (PRR since 3.2)"),
            NO_RACK,
            NO_TLP,
            v("rmem_default", Int(87_380), "tcp.c tcp_init sysctl_tcp_rmem[1] = 87380"),
            v("rmem_max", Int(6_291_456), "tcp.c tcp_init sysctl_tcp_rmem[2] = max(87380, min(6 MB, limit))"),
            WMEM_MAX_4MB,
            v("adv_win_scale", Int(1), "tcp_input.c sysctl_tcp_adv_win_scale = 1 (since 3.4)"),
            v(
                "skb_overhead",
                Int(848),
                "tcp_input.c tcp_rcv_space_adjust rcvmem = SKB_TRUESIZE(advmss + MAX_TCP_HEADER) (ours: x86-64 sizes)",
            ),
        ],
        cc_params: &[],
    },
    KernelPreset { name: "6.x", tcp: &[], cc_params: &[] },
];

/// What differs between those releases but ccbench does not model; every
/// preset runs ccbench's single (modern) behaviour there.
pub const NOT_MODELLED: &[(&str, &str)] = &[
    ("F-RTO", "on since 2.6.24 (sysctl_tcp_frto); ccbench has no F-RTO in any preset"),
    (
        "early retransmit",
        "RFC 5827 (tcp_early_retrans, 3.5 to 4.10): 3.5's lowered DupThresh for small flights is not modelled",
    ),
    (
        "RACK-TLP with DSACK",
        "6.x's RACK widens reo_wnd on DSACK and a DSACK of a probe ends its episode; ccbench's receiver sends no \
         DSACK, so reo_wnd stays min_rtt/4",
    ),
    ("RACK with DupThresh", "4.4 to 4.17 ran RACK beside DupThresh marking; ccbench's RACK is 4.18+'s, alone"),
    (
        "reordering without SACK",
        "tcp_check_reno_reordering (every release here) is not modelled: without SACK only a timestamp undo learns it",
    ),
    ("DSACK undo", "tcp_try_undo_dsack (every release here) is not modelled; undo uses timestamps (Eifel) only"),
    ("FACK", "on by default before 4.15 (sysctl_tcp_fack); ccbench counts SACKed segments only"),
    ("CUBIC/BIC version", "ccbench's cubic is today's tcp_cubic.c (HyStart aside); bic is unchanged since 2.6.13"),
    (
        "sender buffer accounting",
        "a fixed snd_buf counts payload only (Linux counts skb truesize: a locked 16 KB SO_SNDBUF holds about 7 \
         segments); the automatic buffer is the same in segments (tcp_new_space: twice the window, up to wmem_max)",
    ),
    ("window_clamp", "before 4.x autotuning also clamped the window to twice the last RTT's data; not modelled"),
    ("initial receive window", "4 segments before 2.6.39, 10 after; ccbench offers about 64 KB (4.19+)"),
];

/// The preset called `name`.
pub fn preset(name: &str) -> Option<&'static KernelPreset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The names of every preset, for error messages.
pub fn preset_names() -> String {
    PRESETS.iter().map(|p| format!("\"{}\"", p.name)).collect::<Vec<_>>().join(", ")
}

/// The `tcp` table of a scenario with its kernel preset applied: the preset's
/// values first, the fields the scenario wrote over them.
pub fn with_preset(mut explicit: Map<String, Value>) -> Result<Map<String, Value>, String> {
    let name = match explicit.get("kernel") {
        None => return Ok(explicit),
        Some(Value::String(name)) => name.clone(),
        Some(other) => return Err(format!("kernel: expected a release name such as \"2.6.24\", got {other}")),
    };
    let preset =
        preset(&name).ok_or_else(|| format!("kernel: unknown release \"{name}\" (known: {})", preset_names()))?;
    let mut merged: Map<String, Value> = preset.tcp.iter().map(|p| (p.field.to_string(), p.value.to_json())).collect();
    merged.append(&mut explicit);
    Ok(merged)
}

/// Deserializes a `tcp` table through [`with_preset`].
pub fn deserialize_tcp_with_preset<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    let explicit = Map::<String, Value>::deserialize(d)?;
    let merged = with_preset(explicit).map_err(D::Error::custom)?;
    serde_path_to_error::deserialize(Value::Object(merged)).map_err(|e| {
        let field = e.path().to_string();
        D::Error::custom(format!("{field}: {}", e.into_inner()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modern_sets_nothing_and_old_kernels_set_their_window() {
        assert!(preset("6.x").unwrap().tcp.is_empty());
        let field = |name: &str, f: &str| preset(name).unwrap().tcp.iter().find(|p| p.field == f).map(|p| p.value);
        for old in ["2.6.24", "2.6.26", "2.6.32", "3.5"] {
            assert_eq!((field(old, "rack"), field(old, "tlp")), (Some(Bool(false)), Some(Bool(false))), "{old}");
        }
        let iw = |name: &str| preset(name).unwrap().tcp.iter().find(|p| p.field == "init_cwnd").unwrap().value;
        assert_eq!(iw("2.6.24"), Int(3));
        assert_eq!(iw("3.5"), Int(10));
    }

    #[test]
    fn explicit_fields_win_over_the_preset() {
        let explicit: Map<String, Value> = serde_json::from_str(r#"{"kernel": "2.6.32", "init_cwnd": 4}"#).unwrap();
        let merged = with_preset(explicit).unwrap();
        assert_eq!(merged["init_cwnd"], Value::from(4));
        assert_eq!(merged["prr"], Value::from(false));
        assert_eq!(merged["rmem_max"], Value::from(4_194_304));
    }

    #[test]
    fn an_unknown_release_is_refused_with_the_known_ones() {
        let explicit: Map<String, Value> = serde_json::from_str(r#"{"kernel": "2.4"}"#).unwrap();
        let e = with_preset(explicit).unwrap_err();
        assert!(e.contains("\"2.6.24\""), "{e}");
    }
}
