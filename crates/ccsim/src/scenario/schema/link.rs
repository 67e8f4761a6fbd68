//! A link's fields (`[[links]]`, or `[link]` / `[link.down]` / `[link.up]`):
//! its rate (fixed, a trace, a rate process, a UMTS DCH), queue, random loss,
//! link-layer retransmission, jitter and outages.

use super::yes;
use crate::units::{Bytes, Duration, QueueSize, Rate};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

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
    #[schemars(schema_with = "crate::scenario::json_schema::trace_file_or_data")]
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
        deserialize_with = "crate::scenario::shared_traces::deserialize_opportunities",
        serialize_with = "crate::scenario::shared_traces::serialize_opportunities"
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
