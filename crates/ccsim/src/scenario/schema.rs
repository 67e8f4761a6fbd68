//! The scenario's field types: links, flows and TCP settings, traffic
//! sources, what to record; with their defaults (Linux's for TCP).

use crate::time::Nanos;
use crate::units::{Bytes, Duration, QueueSize, Rate};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

// An input notion: lower turns it into routes of link indices, so net never sees it.
/// Which way a flow or source of the dumbbell goes. The scenario schema
/// uses this enum itself (as "down" and "up"): a second one there would only
/// be mapped onto this one.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Data on the downlink, ACKs on the uplink.
    #[default]
    Down,
    /// Data on the uplink, ACKs on the downlink.
    Up,
}

/// One direction of the bottleneck. The rate comes from exactly one of
/// `rate`, `trace` or `rate_process`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// The link's name (`[[links]]` only; routes name links by it).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Constant transmission rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// Delivery opportunities in the Mahimahi format, as data (the front end loads files).
    #[serde(default, deserialize_with = "trace_field", skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::json_schema::trace_file_or_data")]
    pub trace: Option<TraceSpec>,
    /// A random Markov-modulated rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_process: Option<RateProcessSpec>,
    /// A UMTS dedicated channel whose bearer the network sets from the link's buffer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dch: Option<DchSpec>,
    /// RLC timer-based SDU discard: a packet that has waited longer than this in
    /// the queue is discarded instead of sent (drop-tail queues only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard_timer: Option<Duration>,
    /// The sending host's interface queue in front of this link, in packets
    /// (a PPP interface: txqueuelen 3 and the frame ppp_generic holds): the
    /// link's drop-tail queue (the modem's buffer) holds the host's TCP
    /// senders back instead of dropping what they send, and a sender that
    /// finds this queue full keeps the segment and reduces its window (Linux
    /// tcp_enter_cwr). For the flows whose data starts at this link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_queue: Option<u32>,
    /// One-way propagation delay.
    #[serde(default)]
    pub delay: Duration,
    #[serde(default)]
    #[schemars(default = "schema_queue")]
    pub queue: QueueSpec,
    #[serde(default)]
    pub loss: LossSpec,
    /// Link-layer retransmission of frames lost on the air.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arq: Option<ArqSpec>,
    /// Random extra delay per packet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<JitterSpec>,
    /// Periods during which the link passes nothing (packets wait in the queue).
    #[serde(default)]
    pub outages: Vec<OutageSpec>,
    /// Random outages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outage_process: Option<OutageProcessSpec>,
}

/// A trace of delivery opportunities (Mahimahi `mm-link` format, as numbers).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// Non-decreasing millisecond timestamps; each is one opportunity; the trace
    /// repeats with a period of its last timestamp.
    // Shared, not copied, by the link built from it (a measured trace is
    // megabytes); a front end may hand it over already read (shared_traces.rs).
    #[serde(
        deserialize_with = "super::shared_traces::deserialize_opportunities",
        serialize_with = "super::shared_traces::serialize_opportunities"
    )]
    pub opportunities_ms: Arc<[u64]>,
    /// Bytes one opportunity can carry (Mahimahi: 1504).
    #[serde(default = "d_bytes_per_opportunity")]
    pub bytes_per_opportunity: u32,
    /// Where the trace came from (a file name), for reports.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
}

fn d_bytes_per_opportunity() -> u32 {
    crate::net::channel::trace::MAHIMAHI_BYTES_PER_OPPORTUNITY
}

/// `trace` must be data by the time it reaches the core; a path gets a clear error.
fn trace_field<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<TraceSpec>, D::Error> {
    use serde::de::{self, MapAccess, Visitor};
    struct TraceVisitor;
    impl<'de> Visitor<'de> for TraceVisitor {
        type Value = TraceSpec;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a trace as { opportunities_ms = [...] }")
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<TraceSpec, E> {
            Err(E::custom(format!(
                "got the path \"{v}\": trace files are read by the ccbench front end \
                 (ccbench.traces.load_mahimahi); the simulator core takes the trace as data, {{ opportunities_ms = [...] }}"
            )))
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<TraceSpec, A::Error> {
            TraceSpec::deserialize(de::value::MapAccessDeserializer::new(map))
        }
    }
    d.deserialize_any(TraceVisitor).map(Some)
}

/// A continuous-time Markov chain of rates: exponential holding times, the
/// next state drawn uniformly from the others. `start`: `first` (the default)
/// starts in the first state; `stationary` draws the first state with its
/// long-run share of time, so runs (seeds) start where the process is.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RateProcessSpec {
    pub states: Vec<RateStateSpec>,
    #[serde(default, skip_serializing_if = "RateProcessStart::is_first")]
    pub start: RateProcessStart,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, Default, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum RateProcessStart {
    #[default]
    First,
    Stationary,
}

impl RateProcessStart {
    fn is_first(&self) -> bool {
        *self == RateProcessStart::First
    }
}

/// A UMTS Release 99 DCH (net/channel/dch.rs): bearer up/down-switching on
/// traffic-volume events 4a/4b (3GPP TS 25.331 14.4.2) and, with `fach`, the
/// RRC states CELL_DCH and CELL_FACH.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DchSpec {
    /// Bearer rates, lowest first ("64kbit", "128kbit", "384kbit").
    pub bearers: Vec<Rate>,
    /// Index of the bearer given on entering CELL_DCH.
    #[serde(default)]
    pub initial_bearer: usize,
    /// Event 4a: the buffer above this for `up_time_to_trigger` moves one bearer up.
    pub up_threshold: Bytes,
    pub up_time_to_trigger: Duration,
    /// Event 4b: the buffer below this for `down_time_to_trigger` moves one bearer down.
    pub down_threshold: Bytes,
    pub down_time_to_trigger: Duration,
    /// No second report of an event within this time of the first.
    pub pending_after_trigger: Duration,
    /// From a report to the new bearer (radio bearer reconfiguration).
    pub reconfig_delay: Duration,
    /// CELL_FACH below CELL_DCH (the terminal starts in it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fach: Option<FachSpec>,
}

/// CELL_FACH: a common channel of low rate, and the timers to and from CELL_DCH.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FachSpec {
    pub rate: Rate,
    /// Promotion to CELL_DCH when the buffer holds more than this.
    pub promote_threshold: Bytes,
    /// The promotion's delay (the data waits).
    pub promote_delay: Duration,
    /// Back to CELL_FACH after the buffer has been empty this long (T1).
    pub inactivity: Duration,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RateStateSpec {
    pub rate: Rate,
    pub mean_holding: Duration,
}

/// The queue discipline and its parameters. Fields that do not belong to the
/// chosen kind are errors.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QueueSpec {
    #[serde(default)]
    pub kind: QueueKind,
    /// Capacity: packets, bytes or a multiple of the bandwidth-delay product.
    // Left out, the scenario's normalization writes the default in (so an
    // error can tell the default from a size the user gave); read it with `size()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "QueueSize", default = "schema_queue_size")]
    pub size: Option<QueueSize>,
    /// Drop-tail: ECN step marking of ECN-capable packets arriving at this many queued packets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<u64>,
    /// RED, CoDel, PIE: mark ECN-capable packets instead of dropping them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// RED thresholds on the average queue, in packets (defaults 5 and 3 min_th).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_th: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_th: Option<f64>,
    /// RED: drop probability at max_th (default 0.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_p: Option<f64>,
    /// RED: weight of the queue average (default 0.002).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w_q: Option<f64>,
    /// RED: gentle mode between max_th and 2 max_th (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gentle: Option<bool>,
    /// CoDel: target sojourn time (default 5ms); PIE, DualPI2: target queueing delay (default 15ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Duration>,
    /// CoDel: interval (default 100ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Duration>,
    /// PIE: period of the drop-probability update (default 15ms; DualPI2 16ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tupdate: Option<Duration>,
    /// PIE: weight of the delay error, per second (default 0.125; DualPI2 0.16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// PIE: weight of the delay's change, per second (default 1.25; DualPI2 3.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    /// DualPI2: step marking threshold of the L queue on a packet's sojourn time (default 1ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_thresh: Option<Duration>,
    /// DualPI2: coupling factor k between the queues, p_L = k p' (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coupling_factor: Option<f64>,
    /// DualPI2: the Classic queue's scheduling weight in percent (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c_protection: Option<u8>,
}

impl Default for QueueSpec {
    fn default() -> Self {
        serde_json::from_str("{}").expect("every queue field has a default")
    }
}

impl QueueSpec {
    /// The capacity: the one given, or the default (one BDP; PIE and DualPI2:
    /// Linux's 1000 and 10000 packets).
    pub fn size(&self) -> QueueSize {
        self.size.unwrap_or(match self.kind {
            QueueKind::Pie => QueueSize::Packets(crate::net::queue::pie::DEFAULT_LIMIT_PKTS),
            QueueKind::Dualpi2 => QueueSize::Packets(crate::net::queue::dualpi2::DEFAULT_LIMIT_PKTS),
            _ => default_queue_size(),
        })
    }
}

fn default_queue_size() -> QueueSize {
    QueueSize::Bdp(1.0)
}

/// The defaults the schema shows for a queue's size and a link's queue: the
/// size written in, as normalization writes it.
fn schema_queue_size() -> Option<QueueSize> {
    Some(default_queue_size())
}

fn schema_queue() -> QueueSpec {
    QueueSpec { size: schema_queue_size(), ..QueueSpec::default() }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, Default, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum QueueKind {
    #[default]
    Droptail,
    Red,
    Codel,
    Pie,
    Dualpi2,
}

impl QueueKind {
    pub fn name(self) -> &'static str {
        match self {
            QueueKind::Droptail => "droptail",
            QueueKind::Red => "red",
            QueueKind::Codel => "codel",
            QueueKind::Pie => "pie",
            QueueKind::Dualpi2 => "dualpi2",
        }
    }
}

/// Random loss of frames on the link (after the queue, so counted apart from drops).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, Default, PartialEq)]
#[serde(tag = "model", deny_unknown_fields)]
pub enum LossSpec {
    #[default]
    #[serde(rename = "none")]
    None,
    /// Each frame is lost independently with probability `p`.
    #[serde(rename = "bernoulli")]
    Bernoulli { p: f64 },
    /// Two-state bursty loss: give `p` (Good->Bad) and `r` (Bad->Good) per
    /// frame with `loss_good` (default 0) and `loss_bad` (default 1), or
    /// `mean_loss` and `mean_burst` (frames) for the simple Gilbert model.
    #[serde(rename = "gilbert-elliott", alias = "gilbert")]
    GilbertElliott {
        p: Option<f64>,
        r: Option<f64>,
        loss_good: Option<f64>,
        loss_bad: Option<f64>,
        mean_loss: Option<f64>,
        mean_burst: Option<f64>,
    },
}

/// Link-layer retransmission; the defaults are LTE HARQ's (3 retransmissions, 8 ms apart, in order).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ArqSpec {
    #[serde(default = "d_max_retries")]
    pub max_retries: u32,
    #[serde(default = "d_retry_delay")]
    pub retry_delay: Duration,
    /// Deliver frames in order (head-of-line blocking behind a retried frame).
    #[serde(default = "yes")]
    pub in_order: bool,
    /// Transport-block interval (LTE: "1ms"): the frames ending in the same
    /// TTI share one block's errors; none: each frame is its own block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tti: Option<Duration>,
}

fn d_max_retries() -> u32 {
    3
}
fn d_retry_delay() -> Duration {
    Duration(8_000_000)
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum JitterDistribution {
    Uniform,
    Normal,
    Exponential,
}

/// Extra delay per packet: uniform (`min`, `max`), normal (`mean`, `std`,
/// truncated at 0) or exponential (`mean`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct JitterSpec {
    pub distribution: JitterDistribution,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub std: Option<Duration>,
    /// Delay each packet independently so packets may overtake (netem); false keeps order.
    #[serde(default)]
    pub reorder: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutageSpec {
    pub start: Duration,
    pub duration: Duration,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, Default, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum OutageDistribution {
    #[default]
    Fixed,
    Uniform,
    Exponential,
}

/// Random outages: exponential up times with mean `mean_interval`; durations
/// `fixed` (`duration`), `uniform` (`min`, `max`) or `exponential` (mean `duration`).
/// `discard = true`: every outage of the link (these and the scheduled ones)
/// resets the link layer, losing what its queue holds (a UMTS RLC reset).
/// `min_backlog`: every outage of the link holds it only while its queue holds
/// at least this much (a link layer stalls when its window is full of data).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OutageProcessSpec {
    pub mean_interval: Duration,
    #[serde(default)]
    pub distribution: OutageDistribution,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<Duration>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Duration>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub discard: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_backlog: Option<Bytes>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

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
    #[serde(default, deserialize_with = "super::kernel::deserialize_tcp_with_preset")]
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
    /// Linux). See `tcp/kernel.rs` for what each sets and its source.
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
fn yes() -> bool {
    true
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

/// What to record besides the per-flow summary.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordSpec {
    /// Sampling interval of the flow and link time series. Left out, the
    /// scenario's normalization writes the default in
    /// (record::series::default_interval_ns: 10 ms, longer for many flows
    /// and long runs); read it with `interval_ns`.
    #[serde(default)]
    pub interval: Option<Duration>,
    /// Which per-ACK RTT samples the `rtt` table keeps (the flows table's
    /// RTT statistics are computed from every sample whatever this says).
    #[serde(default)]
    pub rtt_samples: RttSamplesSpec,
    /// Write the packets entering a link to a pcap file (opens in Wireshark).
    #[serde(default)]
    pub pcap: Option<PcapSpec>,
}

impl RecordSpec {
    /// The sampling interval: the scenario's, or (before normalization
    /// filled it in) the default for few flows.
    pub fn interval_ns(&self) -> Nanos {
        self.interval.map_or(crate::record::series::DEFAULT_INTERVAL_NS, Duration::ns)
    }
}

/// `record.rtt_samples`: "all", "none", or N, a uniform random sample
/// (reservoir) of at most N per flow, drawn from the run seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RttSamplesSpec {
    All,
    None,
    PerFlow(u64),
}

/// The default reservoir: enough samples per flow for a smooth CDF and a
/// readable RTT-over-time plot, while a long fast flow (tens of thousands of
/// ACKs per second) keeps kilobytes instead of hundreds of megabytes. The
/// flows table's statistics come from every sample regardless.
pub const DEFAULT_RTT_SAMPLES_PER_FLOW: u64 = 10_000;

impl Default for RttSamplesSpec {
    fn default() -> Self {
        RttSamplesSpec::PerFlow(DEFAULT_RTT_SAMPLES_PER_FLOW)
    }
}

const RTT_SAMPLES_EXPECTING: &str = "\"all\", \"none\" or a number of samples kept per flow (at least 1, e.g. 10000)";

impl<'de> Deserialize<'de> for RttSamplesSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = RttSamplesSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(RTT_SAMPLES_EXPECTING)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RttSamplesSpec, E> {
                match v {
                    "all" => Ok(RttSamplesSpec::All),
                    "none" => Ok(RttSamplesSpec::None),
                    other => match other.parse::<u64>() {
                        Ok(n) => self.visit_u64(n),
                        Err(_) => Err(E::custom(format!(
                            "\"{other}\" is not {RTT_SAMPLES_EXPECTING}{}",
                            super::error::case_note(other, &["all", "none"], '"')
                        ))),
                    },
                }
            }
            /// true and false: the older switch for "all" and "none".
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<RttSamplesSpec, E> {
                Ok(if v { RttSamplesSpec::All } else { RttSamplesSpec::None })
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<RttSamplesSpec, E> {
                if v == 0 {
                    return Err(E::custom(format!("0 is not {RTT_SAMPLES_EXPECTING}; \"none\" keeps no sample")));
                }
                Ok(RttSamplesSpec::PerFlow(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<RttSamplesSpec, E> {
                match u64::try_from(v) {
                    Ok(n) => self.visit_u64(n),
                    Err(_) => Err(E::custom(format!("{v} is not {RTT_SAMPLES_EXPECTING}"))),
                }
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<RttSamplesSpec, E> {
                if v.fract() == 0.0 && (0.0..1e18).contains(&v) {
                    self.visit_u64(v as u64)
                } else {
                    Err(E::custom(format!("{v} is not {RTT_SAMPLES_EXPECTING}")))
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for RttSamplesSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RttSamplesSpec::All => s.serialize_str("all"),
            RttSamplesSpec::None => s.serialize_str("none"),
            RttSamplesSpec::PerFlow(n) => s.serialize_u64(*n),
        }
    }
}

/// `record.pcap`: a packet capture of one link's traffic or every link's.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    /// Which link's traffic: a link's name ("downlink", "uplink", or a name
    /// from `[[links]]`), or "both" (the default) or "all" for every link.
    /// The capture point is the sending side: the data of the flows whose
    /// data route crosses that link as their senders emit it, their ACKs as
    /// they reach the senders (tcpdump on the senders' host), and the UDP
    /// datagrams whose route crosses it.
    #[serde(default = "d_pcap_link")]
    pub link: String,
    /// File to write (created or truncated).
    pub path: String,
    /// Bytes kept of each packet (headers are at most 80 bytes).
    #[serde(default = "d_snaplen")]
    pub snaplen: u32,
}

fn d_snaplen() -> u32 {
    128
}

fn d_pcap_link() -> String {
    "both".to_string()
}

/// The `record.pcap.link` values that select every link.
pub const PCAP_EVERY_LINK: [&str; 2] = ["both", "all"];

/// `[[udp]]`: a UDP constant-bit-rate source (iperf -u -b RATE) with an on period.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UdpSpec {
    /// Sending rate on the wire (headers included).
    pub rate: Rate,
    #[serde(default)]
    pub start: Duration,
    /// Omitted: until the end of the run.
    #[serde(default)]
    pub stop: Option<Duration>,
    /// Dumbbell: "down" (over the downlink, the default) or "up" (over the uplink).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// With `links`: the links the datagrams cross, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub route: Vec<String>,
    /// Datagram size on the wire, IPv4 and UDP headers included.
    #[serde(default = "d_packet_size")]
    pub packet_size: Bytes,
}

fn d_packet_size() -> Bytes {
    Bytes(1500)
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum BackgroundKind {
    /// Poisson arrivals of heavy-tailed transfers (TCP or UDP).
    PoissonWeb,
    /// UDP sources alternating exponential on and off periods.
    OnOff,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TransportSpec {
    #[default]
    Tcp,
    Udp,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SizeDistSpec {
    #[default]
    Pareto,
    Lognormal,
    Exponential,
    Fixed,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, Default, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum InterpolationSpec {
    /// Each multiplier holds until the next point.
    #[default]
    Step,
    /// Multipliers are interpolated between points.
    Linear,
}

/// Sizes of the transfers of a poisson-web background.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SizeSpec {
    #[serde(default)]
    pub dist: SizeDistSpec,
    /// Mean transfer size (payload bytes).
    #[serde(default = "d_mean_size")]
    pub mean: Bytes,
    /// Pareto shape alpha (> 1; smaller is heavier-tailed).
    #[serde(default = "d_pareto_shape")]
    pub shape: f64,
    /// Lognormal standard deviation in log space.
    #[serde(default = "d_lognormal_sigma")]
    pub sigma: f64,
}

fn d_mean_size() -> Bytes {
    Bytes(100_000)
}
fn d_pareto_shape() -> f64 {
    1.5
}
fn d_lognormal_sigma() -> f64 {
    1.0
}

impl Default for SizeSpec {
    fn default() -> Self {
        SizeSpec {
            dist: SizeDistSpec::default(),
            mean: d_mean_size(),
            shape: d_pareto_shape(),
            sigma: d_lognormal_sigma(),
        }
    }
}

/// `[background]`: the load of other users sharing the bottleneck.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackgroundSpec {
    pub kind: BackgroundKind,
    /// Mean offered load as a fraction of the bottleneck's rate (at multiplier 1).
    pub load: f64,
    /// Dumbbell: "down" (the default) or "up".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// With `links`: the links the transfers' data crosses (the load is a
    /// fraction of the slowest one's rate) and, for TCP transfers, their ACKs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub route: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ack_route: Vec<String>,
    #[serde(default)]
    pub start: Duration,
    /// Omitted: until the end of the run (transfers under way finish).
    #[serde(default)]
    pub stop: Option<Duration>,
    /// Intensity over time: [[time, multiplier], ...]; omitted: constant 1.
    #[serde(default)]
    pub profile: Vec<(Duration, f64)>,
    #[serde(default)]
    pub interpolation: InterpolationSpec,
    /// poisson-web: transport of each transfer.
    #[serde(default)]
    pub transport: TransportSpec,
    /// poisson-web: transfer sizes.
    #[serde(default)]
    pub size: SizeSpec,
    /// poisson-web over TCP: algorithm, its parameters and TCP settings of the transfers.
    #[serde(default = "d_background_cc")]
    pub cc: String,
    #[serde(default)]
    pub cc_params: BTreeMap<String, f64>,
    /// TCP settings, over the kernel preset `tcp.kernel` names (if any).
    #[serde(default, deserialize_with = "super::kernel::deserialize_tcp_with_preset")]
    pub tcp: TcpSpec,
    /// poisson-web over UDP: sending rate of one transfer (omitted: a tenth
    /// of the bottleneck rate). On-off sources derive their rate from `load`.
    #[serde(default)]
    pub rate: Option<Rate>,
    /// on-off: number of sources, mean on and off periods (exponential).
    #[serde(default = "d_sources")]
    pub sources: u32,
    #[serde(default = "d_on_off")]
    pub on: Duration,
    #[serde(default = "d_on_off")]
    pub off: Duration,
    /// Datagram size on the wire of UDP background traffic.
    #[serde(default = "d_packet_size")]
    pub packet_size: Bytes,
}

pub(super) fn d_background_cc() -> String {
    "cubic".to_string()
}
fn d_sources() -> u32 {
    10
}
fn d_on_off() -> Duration {
    Duration(1_000_000_000)
}
