//! What a run records besides the per-flow summary (`[record]`): series,
//! RTT samples, a packet capture.

use crate::time::Nanos;
use crate::units::Duration;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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
                            crate::scenario::error::case_note(other, &["all", "none"], '"')
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
