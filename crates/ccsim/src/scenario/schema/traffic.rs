//! Traffic besides the flows: UDP constant-bit-rate sources (`[[udp]]`) and
//! the background load of other users (`[background]`), with its transfer sizes.

use super::{Direction, TcpSpec};
use crate::units::{Bytes, Duration, Rate};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    #[serde(default, deserialize_with = "crate::scenario::kernel::deserialize_tcp_with_preset")]
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

pub(in crate::scenario) fn d_background_cc() -> String {
    "cubic".to_string()
}
fn d_sources() -> u32 {
    10
}
fn d_on_off() -> Duration {
    Duration(1_000_000_000)
}
