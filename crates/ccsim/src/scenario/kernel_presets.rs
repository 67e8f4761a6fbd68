//! Kernel presets: `tcp = { kernel = "2.6.24" }` sets the TCP defaults of a
//! Linux release the studies ran ("2.6.24", "2.6.26", "2.6.32", "3.5") or of
//! today's Linux ("6.x", the default, which sets nothing). Explicit `tcp`
//! fields override the preset; a network profile's TCP defaults (ccbench's
//! Python front writes them into each flow's `tcp` table) are explicit fields
//! here, so the order is preset, then profile, then the flow's own fields
//! (`kernel.rs` beside this file merges them as a scenario is read; this file
//! holds the presets' values only). They are input, like the schema: tcp
//! never reads them, only the merged values in its configs. Each value below
//! cites the kernel source of its release; what differs between those
//! releases but ccbench does not model is listed in [`NOT_MODELLED`], so a
//! preset never claims a behaviour the simulator lacks.
//!
//! How the values were checked: read in the release trees themselves.
//! 2.6.24, 2.6.26 and 2.6.32 at the mainline release commits 49914084
//! ("Linux 2.6.24"), bce7f793 ("Linux 2.6.26") and 22763c5c ("Linux
//! 2.6.32"), found in a public kernel repository that carries mainline's
//! history (github.com/yifengyou/linux-2.6.26); 3.5 in a 3.5.0 release
//! snapshot (github.com/12thmantec/linux-3.5, whose net/ and include/net
//! are unchanged through its history). Files: include/net/tcp.h
//! (TCP_TIMEOUT_INIT, TCP_RTO_MIN, TCP_INIT_CWND), net/ipv4/tcp.c tcp_init
//! (tcp_rmem, tcp_wmem), net/ipv4/tcp_input.c (tcp_init_cwnd,
//! tcp_fixup_rcvbuf, tcp_rcv_space_adjust, the sysctl defaults: tcp_frto 2,
//! tcp_dsack 1, tcp_fack 1, tcp_adv_win_scale 2 then 1 in 3.5, and
//! tcp_early_retrans 2 in 3.5), net/ipv4/tcp_cubic.c (v2.1, v2.2, v2.3).

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

/// CUBIC before 2.6.29 had no HyStart (v2.1 in 2.6.24, v2.2 in 2.6.26;
/// HyStart came with v2.3).
const CUBIC_NO_HYSTART: (&str, &str, f64, &str) =
    ("cubic", "hystart", 0.0, "tcp_cubic.c v2.1/v2.2 (before 2.6.29) has no HyStart");
/// The 5%-per-RTT floor before the first loss (`if (ca->last_max_cwnd == 0
/// && ca->cnt > 20)`) is in 3.5's tcp_cubic.c, not in 2.6.26's or 2.6.32's.
const CUBIC_NO_PRE_LOSS_CAP: (&str, &str, f64, &str) =
    ("cubic", "pre_loss_cnt", 0.0, "tcp_cubic.c bictcp_update: no cnt cap before the first loss until after 2.6.32");
/// Westwood+ before 3.10 answers CA_EVENT_FRTO (tcp_enter_frto) and not
/// CA_EVENT_LOSS (tcp_enter_loss): "tcp: implement RFC5682 F-RTO" moved it.
const WESTWOOD_FRTO_ONLY: (&str, &str, f64, &str) = (
    "westwood+",
    "loss_event",
    0.0,
    "tcp_westwood.c tcp_westwood_event: CA_EVENT_FRTO, not CA_EVENT_LOSS (2.6.22 to 3.9)",
);
/// 2.6.24's algorithm parameters: Westwood+ as above, and CUBIC v2.1: beta
/// 819/1024, max_increment 16, and cnt = 50 while no loss has been seen
/// (`if (ca->loss_cwnd == 0)`).
const CUBIC_2_1: &[(&str, &str, f64, &str)] = &[
    WESTWOOD_FRTO_ONLY,
    CUBIC_NO_HYSTART,
    ("cubic", "beta", 0.8, "tcp_cubic.c v2.1: beta = 819 (/1024)"),
    ("cubic", "max_increment", 16.0, "tcp_cubic.c v2.1: max_increment = 16, min_cnt above the origin"),
    ("cubic", "pre_loss_cnt", 50.0, "tcp_cubic.c v2.1: cnt = 50 while loss_cwnd == 0 (ccbench: at most 50)"),
];

/// The F-RTO of 2.6.22 to 3.9: tcp_use_frto / tcp_enter_frto / tcp_process_frto
/// with sysctl_tcp_frto = 2 (SACK-enhanced, RFC 4138 Appendix B; default since
/// 2.6.24) and sysctl_tcp_frto_response = 0 (rate halving). 3.10 replaced it
/// with RFC 5682 inside tcp_process_loss (ccbench's default).
const FRTO_RFC4138: PresetValue =
    v("frto", Text("rfc4138"), "tcp_input.c sysctl_tcp_frto = 2, tcp_process_frto (2.6.22 to 3.9)");

/// Window growth counted ACKs, not ACKed segments, until 3.13 (slow start,
/// "tcp: properly handle stretch acks in slow start") and 4.0 (additive
/// increase, "tcp: stretch ACK fixes"): tcp_abc was 0 by default.
const COUNT_ACKS: PresetValue = v(
    "cwnd_counts",
    Text("acks"),
    "tcp_cong.c tcp_slow_start / tcp_cong_avoid_ai: one per ACK (sysctl_tcp_abc = 0), slow start while cwnd <= ssthresh",
);

/// The first window offered (tcp_output.c tcp_select_initial_window, "RFC
/// 2414"): 4 segments for an MSS of at most 1460 bytes before 2.6.39.
const INIT_RCV_WND_4: PresetValue =
    v("init_rcv_wnd", Int(4), "tcp_output.c tcp_select_initial_window: init_cwnd 4 for MSS <= 1460");

/// FACK was on by default (sysctl_tcp_fack 1) until 4.15 removed it.
const FACK_ON: PresetValue =
    v("fack", Bool(true), "tcp_input.c sysctl_tcp_fack = 1, tcp_update_scoreboard (until 4.15)");

/// Linux 2.6's undo of a spurious recovery (undo26.rs): tcp_undo_cwr ends in
/// tcp_moderate_cwnd, tcp_try_undo_partial restores the window only and stays
/// in Recovery, tcp_try_undo_dsack runs in Disorder (3.5 not checked).
const UNDO_2_6: PresetValue = v(
    "undo",
    Text("2.6"),
    "tcp_input.c tcp_undo_cwr + tcp_moderate_cwnd, tcp_try_undo_partial, tcp_try_undo_dsack in Disorder (2.6.32)",
);

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
    FRTO_RFC4138,
    COUNT_ACKS,
    INIT_RCV_WND_4,
    FACK_ON,
    UNDO_2_6,
];

/// The presets, oldest first; "6.x" is ccbench's default and sets nothing
/// (its RACK-TLP, 4.18+, is the `rack` and `tlp` defaults).
pub const PRESETS: &[KernelPreset] = &[
    KernelPreset { name: "2.6.24", tcp: LINUX_2_6, cc_params: CUBIC_2_1 },
    KernelPreset {
        name: "2.6.26",
        tcp: LINUX_2_6,
        cc_params: &[WESTWOOD_FRTO_ONLY, CUBIC_NO_HYSTART, CUBIC_NO_PRE_LOSS_CAP],
    },
    KernelPreset { name: "2.6.32", tcp: LINUX_2_6, cc_params: &[WESTWOOD_FRTO_ONLY, CUBIC_NO_PRE_LOSS_CAP] },
    KernelPreset {
        name: "3.5",
        tcp: &[
            v("init_cwnd", Int(10), "include/net/tcp.h TCP_INIT_CWND 10 (since 2.6.39)"),
            v("initial_rto", Text("1s"), "include/net/tcp.h TCP_TIMEOUT_INIT HZ (since 3.1, RFC 6298)"),
            RTO_MIN,
            v("prr", Bool(true), "tcp_input.c tcp_update_cwnd_in_recovery (PRR since 3.2)"),
            NO_RACK,
            NO_TLP,
            v(
                "early_retrans",
                Bool(true),
                "tcp_input.c sysctl_tcp_early_retrans = 2 (3.5: RFC 5827 with the RTT/4 delay, tcp_pause_early_retransmit)",
            ),
            v("rmem_default", Int(87_380), "tcp.c tcp_init sysctl_tcp_rmem[1] = 87380"),
            v("rmem_max", Int(6_291_456), "tcp.c tcp_init sysctl_tcp_rmem[2] = max(87380, min(6 MB, limit))"),
            WMEM_MAX_4MB,
            v("adv_win_scale", Int(1), "tcp_input.c sysctl_tcp_adv_win_scale = 1 (since 3.4)"),
            v(
                "skb_overhead",
                Int(848),
                "tcp_input.c tcp_rcv_space_adjust rcvmem = SKB_TRUESIZE(advmss + MAX_TCP_HEADER) (ours: x86-64 sizes)",
            ),
            FRTO_RFC4138,
            COUNT_ACKS,
            FACK_ON,
            v(
                "init_rcv_wnd",
                Int(10),
                "tcp_output.c tcp_select_initial_window: TCP_DEFAULT_INIT_RCVWND 10 (2.6.39 to 4.18)",
            ),
        ],
        cc_params: &[WESTWOOD_FRTO_ONLY],
    },
    KernelPreset { name: "6.x", tcp: &[], cc_params: &[] },
];

/// What differs between those releases but ccbench does not model; every
/// preset runs ccbench's single (modern) behaviour there.
pub const NOT_MODELLED: &[(&str, &str)] = &[
    (
        "F-RTO response and undo moderation",
        "the presets before 3.10 run RFC 4138 F-RTO with its default rate-halving response (sysctl_tcp_frto_response \
         0); the other responses are not modelled, nor 3.5's undo moderation (the 2.6 presets have theirs: undo = \"2.6\")",
    ),
    ("TLP and DSACK", "6.x ends a probe's episode when a DSACK shows both copies arrived; ccbench does not"),
    ("RACK with DupThresh", "4.4 to 4.17 ran RACK beside DupThresh marking; ccbench's RACK is 4.18+'s, alone"),
    (
        "D-SACK undo timing",
        "3.5 undoes on D-SACK as today's Linux does (also inside Recovery); the 2.6 presets wait for the end of \
         Recovery (undo = \"2.6\") but do not close the undo window one flight after it, as 2.6 did",
    ),
    (
        "FACK details",
        "the presets mark losses by FACK (fack = true) as 2.6 and 3.5 did, but not their other uses of \
         fackets_out (tcp_head_timedout's timed-out head, the marking's stop at the recovery point high_seq)",
    ),
    (
        "partial undo without SACK",
        "3.5 follows 5.14+ (tcp_try_undo_partial): the window is restored and the duplicate ACKs left may start a \
         new recovery at once, where 3.5 stayed in Recovery; the 2.6 presets stay in Recovery (undo = \"2.6\"); \
         every preset grows the degree to the segments the ACK covered, where 2.6 and 3.5 raised it to the \
         duplicate ACKs + 1 + the segments ACKed (tcp_fackets_out)",
    ),
    (
        "CUBIC/BIC version",
        "cubic's beta, max_increment, HyStart, growth before the first loss and the per-ACK counting divided by \
         the delayed-ACK ratio (before 4.1) follow each release; not modelled: v2.1 setting cnt to 50 before the \
         first loss where the curve asked for faster growth, and 2.6.32's millisecond HyStart clock; bic's window \
         rules are unchanged from 2.6.24 to today",
    ),
    (
        "other modules counting ACKs",
        "with cwnd_counts = \"acks\" every algorithm's cong_avoid is given one segment per ACK, as the old \
         interface gave no count, and otherwise runs today's module (the release differences listed for cubic, bic \
         and westwood+ aside); bic and cubic estimate segments per ACK from SACKed segments too, where 2.6 counted \
         the cumulatively ACKed ones",
    ),
    (
        "sender buffer accounting",
        "the automatic buffer counts each segment's truesize (payload + snd_skb_overhead) and grows to twice the \
         window's, up to wmem_max; Linux 3.14+ (tcp_sndbuf_expand) reserves a power-of-two rounding of it per \
         segment (4352 bytes for a 1448-byte MSS), so it reaches wmem_max at a smaller window; a fixed snd_buf \
         is whole segments of payload, one per skb (Linux doubles SO_SNDBUF and counts truesize: a locked 16 KB \
         holds about 7 segments), whose writer wakes at Linux's two-thirds line",
    ),
    (
        "PRR bounds of 3.5",
        "every preset with PRR runs 6.x's tcp_cwnd_reduction (the slow-start bound's extra segment only on an ACK \
         that advanced snd_una and marked nothing lost); 3.5's tcp_update_cwnd_in_recovery added it on every ACK \
         and forced a retransmission only on the ACK that entered recovery (with it the S3 LTE rows move by at \
         most 0.1 Mbit/s)",
    ),
    (
        "duplicate ACKs in Loss without SACK",
        "every preset counts them as 3.10+ does (tcp_process_loss: once new data went out past the recovery point, \
         up to the segments not marked lost); 2.6 and 3.5 counted none in Loss (tcp_fastretrans_alert)",
    ),
    ("window_clamp", "before 4.x autotuning also clamped the window to twice the last RTT's data; not modelled"),
    (
        "receive window growth with a fixed buffer",
        "init_rcv_wnd applies to the automatic receive buffer; a fixed rcv_buf is offered whole from the start, \
         where Linux also started it at the first window and grew it (tcp_grow_window)",
    ),
    (
        "delayed-ACK timer",
        "the delayed-ACK timer is delack_timeout (40 ms) throughout; Linux adapts it (icsk_ack.ato: to the gaps \
         between segments, doubled each time it fires, at most the handshake RTT or 500 ms): on a 64 kbit/s \
         link, a segment every 187 ms, 6.18's ato (ss -ti) went from 40 ms to 196 ms and back every 10 to 20 s, \
         and while it was high the kernel ACKed every second segment, where ccbench ACKs each one",
    ),
    (
        "ACKs of pushed segments",
        "since late 2022 (tcp_measure_rcv_mss, also in 5.15 stable) the receiver ACKs a full-sized segment with PSH \
         on its own once the application has read everything (ICSK_ACK_PUSHED, tcp_cleanup_rbuf); ccbench's sender \
         sets no PSH and its receiver has no such rule. Measured on 6.18.44 (10 Mbit/s, 20 ms one way, one cubic \
         flow, after the first second): 43% of the data segments carried PSH, one every 2 or 3, and the kernel sent \
         4,203 ACKs, 636 of one segment, all ending at a PSH segment, against the simulator's 3,894 and 39; why the \
         sender marks that many segments is not established (its application wrote 64 KiB at a time, 18 writes a \
         second), so neither side is modelled; the presets' releases (2.6.24 to 3.5) set the flag only for \
         segments shorter than the MSS",
    ),
    (
        "the receiver's ECN rules",
        "every preset's receiver follows 6.x: data with CWR ACKed at once (4.18+), two quick ACKs on the first CE \
         mark of an echo and on a segment without ECT after ECT ones; 2.6.26 quick-ACKed only the latter, as \
         many times as half the window holds",
    ),
];

/// The preset called `name`.
pub fn preset(name: &str) -> Option<&'static KernelPreset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The names of every preset, for error messages.
pub fn preset_names() -> String {
    PRESETS.iter().map(|p| format!("\"{}\"", p.name)).collect::<Vec<_>>().join(", ")
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
    fn old_releases_count_acks_and_offer_their_first_window() {
        let field = |name: &str, f: &str| preset(name).unwrap().tcp.iter().find(|p| p.field == f).map(|p| p.value);
        for old in ["2.6.24", "2.6.26", "2.6.32", "3.5"] {
            assert_eq!(field(old, "cwnd_counts"), Some(Text("acks")), "{old}");
            assert_eq!(field(old, "fack"), Some(Bool(true)), "{old}");
        }
        assert_eq!(field("2.6.32", "init_rcv_wnd"), Some(Int(4)));
        assert_eq!(field("3.5", "init_rcv_wnd"), Some(Int(10)));
    }

    #[test]
    fn releases_before_3_10_run_the_old_frto() {
        let frto = |name: &str| preset(name).unwrap().tcp.iter().find(|p| p.field == "frto").map(|p| p.value);
        for old in ["2.6.24", "2.6.26", "2.6.32", "3.5"] {
            assert_eq!(frto(old), Some(Text("rfc4138")), "{old}");
        }
        assert_eq!(frto("6.x"), None, "the default, RFC 5682");
    }

    #[test]
    fn westwood_plus_before_3_10_answers_only_the_frto_event() {
        let loss_event = |name: &str| {
            preset(name).unwrap().cc_params.iter().find(|p| p.0 == "westwood+" && p.1 == "loss_event").map(|p| p.2)
        };
        for old in ["2.6.24", "2.6.26", "2.6.32", "3.5"] {
            assert_eq!(loss_event(old), Some(0.0), "{old}");
        }
        assert_eq!(loss_event("6.x"), None);
        let info = crate::cc::lookup("westwood+").unwrap();
        assert!(info.params.iter().any(|p| p.name() == "loss_event"));
    }
}
