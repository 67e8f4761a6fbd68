//! The JSON Schema of scenario files (draft-07, what editors such as taplo /
//! Even Better TOML read), generated from the schema types themselves with
//! `schemars`: field names, types, defaults and doc comments come from one
//! definition. The quantities with units (units.rs) get their schemas here:
//! a number in the base unit or a string with a unit. The schema is the
//! editor's first check; `Scenario::from_json` stays the exact one (ranges,
//! units, routes).

use super::{RttSamplesSpec, Scenario, TraceSpec, DEFAULT_RTT_SAMPLES_PER_FLOW};
use crate::units::{Bytes, Duration, QueueSize, Rate};
use schemars::generate::SchemaSettings;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde_json::Value;
use std::borrow::Cow;

/// A number followed by a unit, as `units.rs` splits it (the unit itself is
/// checked by the core, whose message lists the accepted ones).
const NUMBER_WITH_UNIT: &str = r"^\s*\+?([0-9]+\.?[0-9]*|\.[0-9]+)\s*[A-Za-zµ/ ]*$";

/// A quantity: a non-negative number in `base_unit`, or a string with a unit.
fn quantity(description: &str, base_unit: &str, examples: &[&str]) -> Schema {
    json_schema!({
        "description": format!("{description}: a string with a unit such as {}, or a number of {base_unit}", examples.join(", ")),
        "anyOf": [
            { "type": "number", "minimum": 0 },
            { "type": "string", "pattern": NUMBER_WITH_UNIT }
        ],
        "examples": examples,
    })
}

impl JsonSchema for Duration {
    fn schema_name() -> Cow<'static, str> {
        "Duration".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        quantity("A duration", "seconds", &["50ms", "1.5s", "200us", "2min"])
    }
}

impl JsonSchema for Rate {
    fn schema_name() -> Cow<'static, str> {
        "Rate".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        quantity("A bit rate", "bit/s", &["10Mbit", "384kbit", "1Gbit"])
    }
}

impl JsonSchema for Bytes {
    fn schema_name() -> Cow<'static, str> {
        "Bytes".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        quantity("A size (KB, MB, GB: powers of 1000; KiB, MiB, GiB: of 1024)", "bytes", &["64KB", "1MiB", "1448B"])
    }
}

impl JsonSchema for QueueSize {
    fn schema_name() -> Cow<'static, str> {
        "QueueSize".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        quantity(
            "A queue capacity: packets, bytes or a multiple of the bandwidth-delay product",
            "packets",
            &["1bdp", "0.5bdp", "100pkt", "64KB"],
        )
    }
}

/// `record.rtt_samples`: "all", "none", a number kept per flow, or the older true/false.
impl JsonSchema for RttSamplesSpec {
    fn schema_name() -> Cow<'static, str> {
        "RttSamples".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Which per-ACK RTT samples the rtt table keeps: \"all\", \"none\", or at most N per flow (a reservoir drawn from the seed); the flows' RTT statistics use every sample",
            "anyOf": [
                { "type": "string", "enum": ["all", "none"] },
                { "type": "integer", "minimum": 1 },
                { "type": "boolean" }
            ],
            "default": DEFAULT_RTT_SAMPLES_PER_FLOW,
        })
    }
}

/// `trace`: the trace's data, or (in a scenario file) the path of a
/// Mahimahi trace file that the ccbench front end reads into that data.
pub fn trace_file_or_data(generator: &mut SchemaGenerator) -> Schema {
    let data = generator.subschema_for::<TraceSpec>();
    json_schema!({
        "description": "Delivery opportunities in the Mahimahi format: a trace file (relative to the scenario's folder, then the working directory) or its data",
        "anyOf": [
            { "type": "string", "description": "A Mahimahi trace file (one millisecond timestamp per line)" },
            data
        ]
    })
}

/// The JSON Schema of a scenario (draft-07) as a JSON value.
pub fn scenario_json_schema() -> serde_json::Value {
    let mut schema = SchemaSettings::draft07().into_generator().into_root_schema_for::<Scenario>();
    schema.insert("title".into(), "ccbench scenario".into());
    let mut value = schema.to_value();
    without_null(&mut value);
    value
}

/// Removes `null` from the schema (TOML has no null: an optional field is
/// omitted, never null), so that an error points at the field itself, not
/// at "none of: the field's schema, or null".
fn without_null(value: &mut Value) {
    let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
    if let Value::Object(obj) = value {
        if let Some(Value::Array(types)) = obj.get_mut("type") {
            types.retain(|t| t != "null");
            if types.len() == 1 {
                let only = types.pop().expect("one type");
                obj.insert("type".into(), only);
            }
        }
        if let Some(Value::Array(values)) = obj.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
        // A default of null, or a null member of a default table.
        obj.retain(|_, v| !v.is_null());
        if let Some(Value::Array(alternatives)) = obj.get_mut("anyOf") {
            alternatives.retain(|a| !is_null(a));
            if alternatives.len() == 1 {
                if let Some(Value::Object(only)) = alternatives.pop() {
                    obj.remove("anyOf");
                    for (k, v) in only {
                        obj.entry(k).or_insert(v);
                    }
                }
            }
        }
        obj.values_mut().for_each(without_null);
    } else if let Value::Array(items) = value {
        items.iter_mut().for_each(without_null);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_describes_every_top_level_field_and_refuses_others() {
        let schema = scenario_json_schema();
        let properties = schema["properties"].as_object().expect("properties");
        for field in ["name", "duration", "seed", "downlink", "uplink", "links", "flows", "udp", "background", "record"]
        {
            assert!(properties.contains_key(field), "{field} missing");
        }
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["required"], serde_json::json!(["duration", "flows"]));
    }

    #[test]
    fn optional_fields_are_their_type_not_null() {
        let text = scenario_json_schema().to_string();
        assert!(!text.contains("null"), "{text}");
    }

    #[test]
    fn quantities_accept_numbers_and_strings_with_units() {
        let schema = scenario_json_schema();
        let duration = &schema["definitions"]["Duration"];
        assert_eq!(duration["anyOf"][0]["type"], "number");
        let pattern = duration["anyOf"][1]["pattern"].as_str().unwrap();
        assert_eq!(pattern, NUMBER_WITH_UNIT);
    }
}
