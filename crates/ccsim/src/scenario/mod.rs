//! The scenario schema: the one definition of what a scenario file may say.
//!
//! Python reads the TOML, hands it over as JSON, and this module deserializes
//! it strictly (unknown fields are errors), fills in defaults and checks every
//! value before anything runs. An error names the field path
//! (`flows[2].cc`), the bad value and what is allowed.
//!
//! The field types are in `schema`, the checks in `check` (flows, traffic,
//! record), `check_link` (one link's fields) and `topology` (links, routes,
//! directions), the error type and its wording helpers in `error`; traces
//! handed over already read in `shared_traces`; the kernel presets' values
//! in `kernel_presets`, and `kernel` reads each `tcp` table through its preset. `lower` turns a checked
//! scenario into the plain configs the simulator and the emulator build from.

mod check;
pub mod check_link;
mod error;
pub mod json_schema;
pub mod kernel;
pub mod kernel_presets;
pub mod lower;
mod schema;
pub mod shared_traces;
pub mod topology;

pub use error::{unknown_algorithm_message, ScenarioError};
pub use schema::*;

use crate::units::Duration;
use check::{check_background, check_flow, check_pcap, check_udp};
use error::{clean_serde_message, err};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The largest seed: saved tables keep seeds as signed 64-bit integers,
/// which every Parquet reader takes.
pub const MAX_SEED: u64 = i64::MAX as u64;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A label for reports.
    #[serde(default)]
    pub name: String,
    /// Simulated time of the run.
    pub duration: Duration,
    /// Seed of every random stream of the run: 0 to 2^63 - 1 (MAX_SEED).
    #[serde(default = "default_seed", deserialize_with = "seed_field")]
    pub seed: u64,
    /// The dumbbell shorthand: the link that carries the data of downlink
    /// flows (and the ACKs of uplink flows). Either this or `links`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub downlink: Option<LinkSpec>,
    /// The link in the other direction. Omitted: a loss-free mirror of the downlink.
    #[serde(default)]
    pub uplink: Option<LinkSpec>,
    /// Any topology: named links (`[[links]]`), which flows, UDP sources and
    /// the background cross along their `route` and `ack_route`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowSpec>,
    /// UDP constant-bit-rate cross traffic (`[[udp]]`).
    #[serde(default)]
    pub udp: Vec<UdpSpec>,
    /// Background load of other users (`[background]`).
    #[serde(default)]
    pub background: Option<BackgroundSpec>,
    #[serde(default)]
    pub record: RecordSpec,
}

fn default_seed() -> u64 {
    1
}

/// `seed`: a whole number from 0 to MAX_SEED, with one message for any
/// number out of that range, however far: JSON reads one below 0 as a signed
/// integer and one beyond 2^64 - 1 as a float, which serde would otherwise
/// refuse as of the wrong type.
fn seed_field<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    struct V;
    fn out_of_range<E: serde::de::Error>(shown: impl std::fmt::Display) -> E {
        E::custom(format!("{shown} is out of range; an integer from 0 to {MAX_SEED} (saved tables keep it as int64)"))
    }
    impl serde::de::Visitor<'_> for V {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "an integer from 0 to {MAX_SEED}")
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u64, E> {
            if v <= MAX_SEED {
                Ok(v)
            } else {
                Err(out_of_range(v))
            }
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_or_else(|_| Err(out_of_range(v)), |v| self.visit_u64(v))
        }
        /// A whole number beyond the integers JSON reads (2^64 is
        /// 18446744073709551616 exactly); a fraction is not a seed.
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<u64, E> {
            if v.fract() == 0.0 && !(0.0..=MAX_SEED as f64).contains(&v) {
                Err(out_of_range(format!("{v:.0}")))
            } else {
                Err(E::invalid_type(serde::de::Unexpected::Float(v), &self))
            }
        }
    }
    d.deserialize_u64(V)
}

impl Scenario {
    /// Parses and checks a scenario given as JSON text.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        // Read without tracking the path first: tracking it costs as much
        // again on every element, and a trace has hundreds of thousands. Only
        // a scenario that fails is read again, for the path of its error.
        let mut scenario = match Scenario::deserialize(&mut serde_json::Deserializer::from_str(text)) {
            Ok(scenario) => scenario,
            Err(_) => Scenario::deserialize_tracking_path(text)?,
        };
        scenario.validate()?;
        scenario.fill_directions();
        scenario.fill_record_interval();
        scenario.fill_queue_sizes();
        Ok(scenario)
    }

    /// Deserializes `text` keeping track of where it is, so that an error
    /// names the field (`flows[2].cc`).
    fn deserialize_tracking_path(text: &str) -> Result<Scenario, ScenarioError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let message = e.into_inner().to_string();
            ScenarioError { path, message: clean_serde_message(&message) }
        })
    }

    /// The series' sampling interval defaults to one that keeps the series
    /// proportionate to the run (record::series::default_interval_ns),
    /// written out so the normalized scenario says what was used.
    fn fill_record_interval(&mut self) {
        let flows = self.flows.iter().map(|f| f.count as u64).sum();
        let interval = crate::record::series::default_interval_ns(flows, self.duration.ns());
        self.record.interval.get_or_insert(crate::units::Duration(interval));
    }

    /// Every queue's size, the default where none was given (written out, as
    /// every default is; left out until the checks are done, so that their
    /// messages can tell the default from a size the user gave).
    fn fill_queue_sizes(&mut self) {
        let links = self.downlink.iter_mut().chain(self.uplink.iter_mut()).chain(self.links.iter_mut());
        links.for_each(|l| l.queue.size = Some(l.queue.size()));
    }

    /// The dumbbell's directions default to "down" (written out, as every default is).
    fn fill_directions(&mut self) {
        if self.downlink.is_none() {
            return;
        }
        let down = Some(Direction::Down);
        self.flows.iter_mut().for_each(|f| f.direction = f.direction.or(down));
        self.udp.iter_mut().for_each(|u| u.direction = u.direction.or(down));
        if let Some(b) = self.background.as_mut() {
            b.direction = b.direction.or(down);
        }
    }

    /// The shorthand's uplink as configured, or the downlink's mirror: the
    /// same rate (or trace, or rate process), delay and queue, without loss,
    /// ARQ, jitter or outages. None with `[[links]]`.
    pub fn uplink(&self) -> Option<LinkSpec> {
        let down = self.downlink.as_ref()?;
        Some(self.uplink.clone().unwrap_or_else(|| LinkSpec {
            loss: LossSpec::None,
            arq: None,
            jitter: None,
            outages: Vec::new(),
            outage_process: None,
            ..down.clone()
        }))
    }

    /// An outage from the start to the end of the run makes every result
    /// zero: that is a mistake in the scenario, not a measurement. Outages
    /// that overlap or touch are one outage (their union, as the link runs
    /// them: net::channel::outage), so a chain of them from time 0 counts too.
    /// So is an outage that starts when the run is over: it never happens (a
    /// typo in its start or in `duration`), and the run would look as if it did.
    fn check_outages_leave_time(&self) -> Result<(), ScenarioError> {
        let named = self.links.iter().enumerate().map(|(i, l)| (format!("links[{i}]"), l));
        let shorthand = [("downlink", &self.downlink), ("uplink", &self.uplink)]
            .into_iter()
            .filter_map(|(k, l)| l.as_ref().map(|l| (k.to_string(), l)));
        for (path, link) in named.chain(shorthand) {
            if let Some(i) = link.outages.iter().position(|o| o.start.ns() >= self.duration.ns()) {
                return err(
                    format!("{path}.outages[{i}].start"),
                    format!(
                        "{} s is not before the run's end (duration {} s): the outage would never happen; \
                         give a start below the duration",
                        link.outages[i].start.ns() as f64 / 1e9,
                        self.duration.ns() as f64 / 1e9
                    ),
                );
            }
            let mut order: Vec<usize> = (0..link.outages.len()).collect();
            order.sort_by_key(|&i| link.outages[i].start);
            let (mut covered_until, mut chain) = (0, Vec::new());
            for i in order {
                let o = &link.outages[i];
                if o.start.ns() > covered_until {
                    break;
                }
                covered_until = covered_until.max(o.start.ns().saturating_add(o.duration.ns()));
                if covered_until >= self.duration.ns() {
                    let with: Vec<String> = chain.iter().map(|k| format!("{path}.outages[{k}]")).collect();
                    return err(
                        format!("{path}.outages[{i}]"),
                        format!(
                            "covers the whole run ({} s){}: nothing could be delivered",
                            self.duration.ns() as f64 / 1e9,
                            if with.is_empty() { String::new() } else { format!(" with {}", with.join(", ")) }
                        ),
                    );
                }
                chain.push(i);
            }
        }
        Ok(())
    }

    /// Checks every value; the first problem found is returned.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        if self.duration.ns() == 0 {
            return err("duration", "must be longer than zero");
        }
        topology::check_links(self)?;
        self.check_outages_leave_time()?;
        if self.flows.is_empty() {
            return err("flows", "at least one flow is needed ([[flows]] with cc = \"cubic\", say)");
        }
        for (i, f) in self.flows.iter().enumerate() {
            check_flow(&format!("flows[{i}]"), f, self.duration)?;
        }
        for (i, u) in self.udp.iter().enumerate() {
            check_udp(&format!("udp[{i}]"), u, self.duration)?;
        }
        if let Some(b) = &self.background {
            check_background("background", b, self.duration)?;
        }
        if let Some(p) = &self.record.pcap {
            check_pcap("record.pcap", p)?;
        }
        topology::check_routes(self)?;
        topology::check_bdp_queues(self)?;
        if let Some(interval) = self.record.interval.filter(|i| i.ns() < 1_000_000) {
            return err(
                "record.interval",
                format!("{} s is too fine; the smallest interval is 1ms", interval.ns() as f64 / 1e9),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minimal(extra_flow: &str) -> String {
        format!(
            r#"{{"duration": 10, "downlink": {{"rate": "10Mbit", "delay": "50ms"}},
               "flows": [{{"cc": "reno"}}, {{"cc": "cubic" {extra_flow}}}]}}"#
        )
    }

    #[test]
    fn defaults_are_linux_like() {
        let s = Scenario::from_json(&minimal("")).unwrap();
        let t = &s.flows[1].tcp;
        assert_eq!((t.mss, t.init_cwnd, t.sack, t.delack_segments), (1448, 10, true, 2));
        assert_eq!(t.min_rto.ns(), 200_000_000);
        assert_eq!(s.uplink().and_then(|u| u.rate).map(|r| r.bps()), Some(10_000_000));
    }

    #[test]
    fn a_kernel_preset_sets_its_release_and_explicit_fields_win() {
        let s = Scenario::from_json(&minimal(r#", "tcp": {"kernel": "2.6.24", "rmem_max": "8MB"}"#)).unwrap();
        let t = &s.flows[1].tcp;
        assert_eq!((t.init_cwnd, t.prr, t.initial_rto.ns()), (3, false, 3_000_000_000));
        assert_eq!((t.rmem_default.0, t.rmem_max.0), (87_380, 8_000_000));
        let modern = Scenario::from_json(&minimal(r#", "tcp": {"kernel": "6.x"}"#)).unwrap();
        let default = Scenario::from_json(&minimal("")).unwrap();
        let mut modern_tcp = modern.flows[1].tcp.clone();
        modern_tcp.kernel = None;
        assert_eq!(format!("{modern_tcp:?}"), format!("{:?}", default.flows[1].tcp));
        let e = Scenario::from_json(&minimal(r#", "tcp": {"kernel": "2.6.24", "msss": 3}"#)).unwrap_err();
        assert!(e.path.starts_with("flows[1].tcp") && e.message.contains("msss"), "{e}");
    }

    #[test]
    fn errors_name_the_field_value_and_choices() {
        let e = Scenario::from_json(&minimal(r#", "cc": "cubc""#).replace(r#""cc": "cubic" ,"#, "")).unwrap_err();
        assert_eq!(e.path, "flows[1].cc");
        assert!(e.message.contains("did you mean 'cubic'"), "{e}");

        let e = Scenario::from_json(&minimal(r#", "colour": 3"#)).unwrap_err();
        assert_eq!(e.path, "flows[1].colour");
        assert!(e.message.contains("colour"), "{e}");

        let bad = r#"{"duration": 10, "downlink": {"rate": -5}, "flows": [{"cc": "reno"}]}"#;
        let e = Scenario::from_json(bad).unwrap_err();
        assert_eq!(e.path, "downlink.rate");
        assert!(e.message.contains("negative"), "{e}");

        let bad = r#"{"duration": 10, "downlink": {"rate": 5, "outages": [{"start": 0, "duration": 10}]},
                      "flows": [{"cc": "reno"}]}"#;
        let e = Scenario::from_json(bad).unwrap_err();
        assert_eq!(e.path, "downlink.outages[0]");
        assert!(e.message.contains("whole run"), "{e}");

        // Overlapping outages are one: together they may cover the run.
        let bad = r#"{"duration": 10, "downlink": {"rate": 5, "outages": [{"start": 4, "duration": 7},
                      {"start": 0, "duration": 5}]}, "flows": [{"cc": "reno"}]}"#;
        let e = Scenario::from_json(bad).unwrap_err();
        assert_eq!(e.path, "downlink.outages[0]");
        assert!(e.message.contains("whole run (10 s) with downlink.outages[1]"), "{e}");
        let gap = bad.replace(r#""start": 4"#, r#""start": 5.5"#);
        assert!(Scenario::from_json(&gap).is_ok());

        // An outage after the run's end never happens.
        let bad = r#"{"duration": 5, "downlink": {"rate": 5, "outages": [{"start": 1, "duration": 1},
                      {"start": "10s", "duration": 2}]}, "flows": [{"cc": "reno"}]}"#;
        let e = Scenario::from_json(bad).unwrap_err();
        assert_eq!(e.path, "downlink.outages[1].start");
        assert!(e.message.contains("10 s is not before the run's end (duration 5 s)"), "{e}");
        assert!(Scenario::from_json(&bad.replace(r#""10s""#, "4.5")).is_ok());

        let bad = r#"{"duration": 10, "downlink": {"rate": 5, "queue": {"size": "100B"}}, "flows": [{"cc": "reno"}]}"#;
        let e = Scenario::from_json(bad).unwrap_err();
        assert_eq!(e.path, "downlink.queue.size");
        assert!(e.message.contains("no full-size packet"), "{e}");

        let bad = r#"{"duration": 1, "downlink": {"rate": 5}, "flows": [{"cc": "reno", "tcp": {"init_rcv_wnd": 0}}]}"#;
        let e = Scenario::from_json(bad).unwrap_err();
        assert_eq!(
            (e.path.as_str(), e.message.as_str()),
            ("flows[0].tcp.init_rcv_wnd", "0 is outside 1..10000 segments")
        );

        let bad = r#"{"duration": "ten", "downlink": {"rate": 5}, "flows": [{"cc": "reno"}]}"#;
        let e = Scenario::from_json(bad).unwrap_err();
        assert_eq!(e.path, "duration");
        assert!(e.message.contains("\"ten\""), "{e}");

        let bad = r#"{"seed": 9223372036854775808, "duration": 1, "downlink": {"rate": 5}, "flows": [{"cc": "reno"}]}"#;
        let e = Scenario::from_json(bad).unwrap_err();
        assert_eq!(e.path, "seed");
        let range = "is out of range; an integer from 0 to 9223372036854775807 (saved tables keep it as int64)";
        assert_eq!(e.message, format!("9223372036854775808 {range}"));
        // Below 0, and beyond 2^64 - 1 (which JSON reads as a float): the same message, not a type error.
        for given in ["-3", "18446744073709551616"] {
            let e = Scenario::from_json(&bad.replace("9223372036854775808", given)).unwrap_err();
            assert_eq!((e.path.as_str(), e.message), ("seed", format!("{given} {range}")));
        }
        let e = Scenario::from_json(&bad.replace("9223372036854775808", "2.5")).unwrap_err();
        assert_eq!(e.message, "invalid type: floating point '2.5', expected an integer from 0 to 9223372036854775807");
        let e = Scenario::from_json(&minimal(r#", "count": 1.5"#)).unwrap_err();
        assert_eq!(e.message, "invalid type: floating point '1.5', expected a whole number from 0 to 4294967295");
        let largest = bad.replace("9223372036854775808", "9223372036854775807");
        assert_eq!(Scenario::from_json(&largest).unwrap().seed, MAX_SEED);
    }

    fn with_rtt_samples(value: &str) -> Result<Scenario, ScenarioError> {
        Scenario::from_json(&format!(
            r#"{{"duration": 10, "downlink": {{"rate": 5}}, "flows": [{{"cc": "reno"}}],
                "record": {{"rtt_samples": {value}}}}}"#
        ))
    }

    #[test]
    fn rtt_samples_is_all_none_or_a_count_per_flow() {
        let kept = |v: &str| with_rtt_samples(v).unwrap().record.rtt_samples;
        assert_eq!(kept(r#""all""#), RttSamplesSpec::All);
        assert_eq!(kept(r#""none""#), RttSamplesSpec::None);
        assert_eq!(kept("500"), RttSamplesSpec::PerFlow(500));
        assert_eq!((kept("true"), kept("false")), (RttSamplesSpec::All, RttSamplesSpec::None));
        assert_eq!(RecordSpec::default().rtt_samples, RttSamplesSpec::PerFlow(DEFAULT_RTT_SAMPLES_PER_FLOW));
        for (bad, shown) in [(r#""some""#, "\"some\""), ("0", "0 is not"), ("-3", "-3 is not"), ("2.5", "2.5 is not")] {
            let e = with_rtt_samples(bad).unwrap_err();
            assert_eq!(e.path, "record.rtt_samples");
            assert!(e.message.contains(shown) && e.message.contains("\"all\", \"none\""), "{e}");
        }
        // Keywords are case-sensitive, as queue kinds and directions are: the message says so.
        let e = with_rtt_samples(r#""ALL""#).unwrap_err();
        assert!(e.message.starts_with("\"ALL\" is not \"all\", \"none\""), "{e}");
        assert!(e.message.ends_with("; case matters: write \"all\""), "{e}");
        assert!(!with_rtt_samples(r#""some""#).unwrap_err().message.contains("case"));
        let normalized = serde_json::to_value(with_rtt_samples("7").unwrap()).unwrap();
        assert_eq!(normalized["record"]["rtt_samples"], 7);
    }

    #[test]
    fn the_normalized_scenario_writes_the_series_interval_it_uses() {
        let scenario = |flows: u32, record: &str| {
            Scenario::from_json(&format!(
                r#"{{"duration": 10, "downlink": {{"rate": "1Gbit"}}, "flows": [{{"cc": "reno", "count": {flows}}}],
                    "record": {{{record}}}}}"#
            ))
            .unwrap()
        };
        let interval = |s: &Scenario| serde_json::to_value(s).unwrap()["record"]["interval"].clone();
        assert_eq!(interval(&scenario(2, "")), 0.01);
        // 4096 flows x 10 s: the default keeps the series to 100,000 flow samples.
        assert_eq!(interval(&scenario(4096, "")), 0.41);
        assert_eq!(scenario(4096, "").record.interval_ns(), 410_000_000);
        // One the scenario gives is kept, and normalizing again changes nothing.
        let given = scenario(4096, r#""interval": "5ms""#);
        assert_eq!(interval(&given), 0.005);
        let again = Scenario::from_json(&serde_json::to_string(&given).unwrap()).unwrap();
        assert_eq!(again.record.interval_ns(), 5_000_000);
        let e = Scenario::from_json(
            r#"{"duration": 1, "downlink": {"rate": 5}, "flows": [{"cc": "reno"}], "record": {"interval": "0.5ms"}}"#,
        )
        .unwrap_err();
        assert_eq!(e.path, "record.interval");
    }
}
