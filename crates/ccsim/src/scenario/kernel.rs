//! A flow's `tcp` table read through its kernel preset (`kernel = "2.6.24"`):
//! the preset's values (`kernel_presets`) first, the fields the scenario
//! wrote over them. On the input side, as the presets are, so that tcp never
//! reads the scenario's types.

use super::kernel_presets::{preset, preset_names, PresetLiteral};
use serde::de::{Deserializer, Error as _};
use serde::Deserialize;
use serde_json::{Map, Value};

/// A preset value as the JSON a scenario would give.
fn to_json(v: PresetLiteral) -> Value {
    match v {
        PresetLiteral::Int(v) => Value::from(v),
        PresetLiteral::Bool(v) => Value::from(v),
        PresetLiteral::Text(v) => Value::from(v),
    }
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
    let mut merged: Map<String, Value> = preset.tcp.iter().map(|p| (p.field.to_string(), to_json(p.value))).collect();
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
    use crate::scenario::{CwndCountsSpec, FrtoSpec, TcpSpec};

    #[test]
    fn old_releases_count_acks_offer_their_first_window_and_run_the_old_frto() {
        let merged = with_preset(serde_json::from_str(r#"{"kernel": "2.6.24"}"#).unwrap()).unwrap();
        let tcp: TcpSpec = serde_json::from_value(Value::Object(merged)).unwrap();
        assert_eq!((tcp.cwnd_counts, tcp.init_rcv_wnd), (CwndCountsSpec::Acks, Some(4)));
        assert_eq!(tcp.frto, FrtoSpec::Rfc4138);
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
