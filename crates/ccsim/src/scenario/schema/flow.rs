//! A flow's fields (`[[flows]]`): its algorithm and parameters, and its TCP
//! settings with Linux's defaults, buffers included.

use super::{yes, Direction};
use crate::units::{Bytes, Duration};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// Congestion control algorithm (see `ccbench algorithms`).
    pub cc: String,
    /// Algorithm parameters by name; omitted ones take the reference defaults.
    #[serde(default)]
    pub cc_params: BTreeMap<String, f64>,
    /// How many identical flows this entry stands for.
    #[serde(default = "one")]
    pub count: u32,
    /// Dumbbell: "down" (the default) or "up". Not with `links`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// With `links`: the links the data crosses, in order, and those the ACKs cross.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub route: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ack_route: Vec<String>,
    /// When the application starts sending.
    #[serde(default)]
    pub start: Duration,
    /// When the application stops (bulk flows); omitted: the end of the run.
    #[serde(default)]
    pub stop: Option<Duration>,
    /// Transfer this many bytes and finish (a file transfer); omitted: bulk.
    #[serde(default)]
    pub size: Option<Bytes>,
    /// One-way delay of the flow's own access link, added in both directions.
    #[serde(default)]
    pub access_delay: Duration,
    /// TCP settings, over the kernel preset `tcp.kernel` names (if any).
    #[serde(default, deserialize_with = "crate::scenario::kernel::deserialize_tcp_with_preset")]
    pub tcp: TcpSpec,
}

fn one() -> u32 {
    1
}

/// A receive or send buffer: a fixed size, or Linux-like autotuning.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum BufferSpec {
    Auto(AutoWord),
    Fixed(Bytes),
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AutoWord {
    Auto,
}

// Which F-RTO a sender runs after a retransmission timeout (tcp/frto.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FrtoSpec {
    Off,
    Rfc4138,
    #[default]
    Rfc5682,
}

// How a sender undoes a loss recovery it finds spurious (tcp/undo26.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub enum UndoSpec {
    #[default]
    #[serde(rename = "modern")]
    Modern,
    #[serde(rename = "2.6")]
    Linux26,
}

// What the window's growth counts (cc::Counting).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CwndCountsSpec {
    #[default]
    Segments,
    Acks,
}

/// TCP settings; the defaults are Linux's.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// The Linux release whose defaults the other fields start from
    /// ("2.6.24", "2.6.26", "2.6.32", "3.5", "6.x"; omitted: "6.x", today's
    /// Linux). See `ccbench kernels` for what each sets and its source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    /// Payload bytes per segment (1448 = a 1500-byte packet with timestamps).
    #[serde(default = "d_mss")]
    pub mss: u32,
    /// Initial congestion window in segments (RFC 6928, Linux: 10).
    #[serde(default = "d_init_cwnd")]
    pub init_cwnd: u32,
    #[serde(default = "yes")]
    pub sack: bool,
    /// TCP timestamps (RFC 7323): 12 more header bytes, RTT echo.
    #[serde(default = "yes")]
    pub timestamps: bool,
    #[serde(default = "yes")]
    pub delayed_ack: bool,
    /// Segments per delayed ACK.
    #[serde(default = "d_delack_segments")]
    pub delack_segments: u32,
    #[serde(default = "d_delack_timeout")]
    pub delack_timeout: Duration,
    /// Minimum retransmission timeout (Linux 200 ms; RFC 6298 says 1 s).
    #[serde(default = "d_min_rto")]
    pub min_rto: Duration,
    /// How the minimum RTO applies: "linux" (SRTT + max(4 RTTVAR, min_rto)) or
    /// "rfc6298" (max(SRTT + 4 RTTVAR, min_rto)).
    #[serde(default)]
    pub rto_style: RtoStyleSpec,
    #[serde(default = "d_initial_rto")]
    pub initial_rto: Duration,
    #[serde(default = "d_max_rto")]
    pub max_rto: Duration,
    /// Proportional rate reduction (RFC 6937) during recovery, as Linux does;
    /// false: rate halving (Linux tcp_cwnd_down before 3.2).
    #[serde(default = "yes")]
    pub prr: bool,
    /// F-RTO after a retransmission timeout (detects a spurious one, such as
    /// a delay spike): "rfc5682" (Linux 3.10+, the default), "rfc4138"
    /// (Linux 2.6.22 to 3.9, SACK-enhanced with SACK), or "off".
    #[serde(default)]
    pub frto: FrtoSpec,
    /// How a spurious loss recovery is undone: "modern" (today's Linux, the
    /// default: D-SACK undo at once, the window of before the episode comes
    /// back) or "2.6" (Linux 2.6: a partial undo restores only the window and
    /// stays in Recovery, D-SACK undoes in Disorder or at the end of Recovery,
    /// and every undo caps the window at the packets in flight plus the
    /// reordering degree, tcp_moderate_cwnd).
    #[serde(default)]
    pub undo: UndoSpec,
    /// RACK loss detection by time for SACK flows (RFC 8985; Linux 4.18+
    /// uses it alone); false: RFC 6675 DupThresh marking (Linux before 4.4).
    #[serde(default = "yes")]
    pub rack: bool,
    /// Tail loss probes for SACK flows (RFC 8985; Linux 3.10+): a probe
    /// about two SRTTs after the ACKs stop instead of waiting for the RTO.
    #[serde(default = "yes")]
    pub tlp: bool,
    /// RFC 5827 early retransmit with Linux's RTT/4 delay (tcp_early_retrans
    /// = 2, Linux 3.5 to 4.10): with fewer than four segments out, the first
    /// is retransmitted once all the others are SACKed or duplicate-ACKed.
    /// Off by default: Linux 4.11+ finds those losses with RACK.
    #[serde(default)]
    pub early_retrans: bool,
    /// What the window's growth counts: "segments" each ACK delivers (Linux
    /// 4.0+, the default; once the path has reordered more than 3 segments,
    /// an ACK that only SACKs new data grows the window too, as today's
    /// tcp_may_raise_cwnd), or "acks" (Linux 2.6 to 3.12 with tcp_abc 0: +1
    /// per ACK of new data in slow start, +1 per cwnd + 1 ACKs after; with
    /// delayed ACKs slow start grows 1.5x per round trip and Reno one segment
    /// per two).
    #[serde(default)]
    pub cwnd_counts: CwndCountsSpec,
    /// Forward acknowledgment (FACK) loss marking for SACK flows without
    /// RACK (Linux before 4.15, sysctl_tcp_fack 1): a hole is lost once the
    /// highest SACKed segment is the reordering degree (3) or more above it;
    /// off after reordering is seen. Off by default (RFC 6675 counting).
    #[serde(default)]
    pub fack: bool,
    /// With an automatic receive buffer, the window first offered, in
    /// segments (Linux tcp_select_initial_window: 4 before 2.6.39, then 10,
    /// until 4.19); omitted: about 64 KB, as Linux since 4.19.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_rcv_wnd: Option<u32>,
    /// Receive buffer: bytes, or "auto" (Linux autotuning from rmem_default up to rmem_max).
    #[serde(default = "d_auto")]
    pub rcv_buf: BufferSpec,
    #[serde(default = "d_rmem_default")]
    pub rmem_default: Bytes,
    #[serde(default = "d_rmem_max")]
    pub rmem_max: Bytes,
    /// How much of the receive buffer is offered as window (Linux
    /// tcp_adv_win_scale: buffer - buffer/2^scale); omitted: all of it, with
    /// payload alone counted against the buffer (ccbench's modern default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adv_win_scale: Option<i32>,
    /// Bytes each received segment takes in the receive buffer beyond its
    /// payload (skb truesize overhead); 0: payload only.
    #[serde(default = "d_zero_bytes")]
    pub skb_overhead: Bytes,
    /// Send buffer: payload bytes (one segment per skb, the writer refilling
    /// it only at Linux's writable line, two thirds), or "auto" (grows with
    /// cwnd up to wmem_max).
    #[serde(default = "d_auto")]
    pub snd_buf: BufferSpec,
    #[serde(default = "d_wmem_max")]
    pub wmem_max: Bytes,
    /// Bytes each segment takes in the automatic send buffer beyond its
    /// payload (Linux counts skb truesize against tcp_wmem; 800 measured on
    /// Linux 6.18 with one segment per skb); 0: payload only.
    #[serde(default = "d_snd_skb_overhead")]
    pub snd_skb_overhead: Bytes,
    /// Pace transmissions (Linux: rate = 2x cwnd/srtt in slow start, 1.2x after).
    /// Algorithms that need pacing (bbr) turn it on themselves.
    #[serde(default)]
    pub pacing: bool,
    /// Negotiate ECN (RFC 3168): data is ECN-capable and the receiver echoes CE marks.
    /// Algorithms that need ECN (dctcp) turn it on themselves.
    #[serde(default)]
    pub ecn: bool,
}

fn d_mss() -> u32 {
    1448
}
fn d_init_cwnd() -> u32 {
    10
}
fn d_delack_segments() -> u32 {
    2
}
fn d_delack_timeout() -> Duration {
    Duration(40_000_000)
}
fn d_min_rto() -> Duration {
    Duration(200_000_000)
}
fn d_initial_rto() -> Duration {
    Duration(1_000_000_000)
}
fn d_max_rto() -> Duration {
    Duration(120_000_000_000)
}
fn d_auto() -> BufferSpec {
    BufferSpec::Auto(AutoWord::Auto)
}
fn d_rmem_default() -> Bytes {
    Bytes(131_072)
}
fn d_zero_bytes() -> Bytes {
    Bytes(0)
}
fn d_rmem_max() -> Bytes {
    Bytes(6_291_456)
}
fn d_wmem_max() -> Bytes {
    Bytes(4_194_304)
}
fn d_snd_skb_overhead() -> Bytes {
    Bytes(800)
}

impl Default for TcpSpec {
    fn default() -> Self {
        serde_json::from_str("{}").expect("every TCP field has a default")
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RtoStyleSpec {
    #[default]
    Linux,
    Rfc6298,
}
