//! Quantities with units as scenario files write them: durations ("50ms"),
//! rates ("10Mbit"), sizes ("64KB") and queue sizes ("1bdp", "100pkt").
//!
//! Each accepts a plain number in the base unit (seconds, bit/s, bytes,
//! packets) or a string with a unit. A bad value is rejected with a message
//! that shows the value and the accepted forms; the caller adds the field path.

use crate::time::{Nanos, NS_PER_SEC};
use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

fn split_number(s: &str) -> Option<(f64, String)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == '-' || *c == '+'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let number: f64 = s[..end].trim().parse().ok()?;
    let unit = s[end..].trim().to_ascii_lowercase().replace(' ', "");
    Some((number, unit))
}

/// Reads a number-or-string field and hands it to `parse` as (number, unit).
struct QuantityVisitor<F> {
    expecting: &'static str,
    parse: F,
}

impl<'de, T, F: Fn(f64, &str) -> Result<T, String>> Visitor<'de> for QuantityVisitor<F> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        (self.parse)(v, "").map_err(|m| E::custom(format!("{m} (got {v}); expected {}", self.expecting)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        self.visit_f64(v as f64)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        self.visit_f64(v as f64)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        let bad = |m: String| E::custom(format!("{m} (got \"{}\"); expected {}", shown(v), self.expecting));
        let (number, unit) = split_number(v).ok_or_else(|| bad("not a number with a unit".into()))?;
        (self.parse)(number, &unit).map_err(bad)
    }
}

/// `v` in the base unit as a u64, refused (never wrapped or clamped) when it
/// does not fit: `duration = 1e300` is an error, not 1.8e10 s.
fn fit_u64(v: f64, unit_name: &str) -> Result<u64, String> {
    let rounded = v.round();
    // u64::MAX as f64 rounds up to 2^64, which does not fit: refuse it too.
    if rounded >= u64::MAX as f64 {
        return Err(format!("is too large (at most {:e} {unit_name})", u64::MAX as f64));
    }
    Ok(rounded as u64)
}

/// A value as an error message shows it: at most 40 characters, control
/// characters escaped, a longer value as its prefix and its length.
pub fn shown(v: &str) -> String {
    const MAX_CHARS: usize = 40;
    let escaped: String = v.chars().take(MAX_CHARS).flat_map(|c| c.escape_debug()).collect();
    let count = v.chars().count();
    if count > MAX_CHARS {
        format!("{escaped}... ({count} characters)")
    } else {
        escaped
    }
}

fn check_finite_nonnegative(v: f64) -> Result<(), String> {
    if !v.is_finite() {
        return Err("must be a finite number".into());
    }
    if v < 0.0 {
        return Err("must not be negative".into());
    }
    Ok(())
}

/// A duration; plain numbers are seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Duration(pub Nanos);

impl Duration {
    pub fn parse(v: f64, unit: &str) -> Result<Duration, String> {
        check_finite_nonnegative(v)?;
        let scale = match unit {
            "" | "s" | "sec" | "secs" | "second" | "seconds" => 1e9,
            "ms" | "msec" => 1e6,
            "us" | "µs" | "usec" => 1e3,
            "ns" => 1.0,
            "min" | "m" => 60e9,
            "h" => 3600e9,
            other => return Err(format!("unknown time unit '{other}'")),
        };
        Ok(Duration(fit_u64(v * scale, "ns")?))
    }
    pub fn ns(self) -> Nanos {
        self.0
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(QuantityVisitor {
            expecting: "a duration such as \"50ms\", \"1.5s\", \"200us\" or a number of seconds",
            parse: Duration::parse,
        })
    }
}
impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0 as f64 / NS_PER_SEC as f64)
    }
}

/// A bit rate; plain numbers are bit/s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rate(pub u64);

impl Rate {
    pub fn parse(v: f64, unit: &str) -> Result<Rate, String> {
        check_finite_nonnegative(v)?;
        let unit = unit.trim_end_matches("/s").trim_end_matches("ps");
        let scale = match unit {
            "" | "b" | "bit" | "bits" => 1.0,
            "k" | "kb" | "kbit" | "kbits" => 1e3,
            "m" | "mb" | "mbit" | "mbits" => 1e6,
            "g" | "gb" | "gbit" | "gbits" => 1e9,
            other => return Err(format!("unknown rate unit '{other}'")),
        };
        let bps = fit_u64(v * scale, "bit/s")?;
        if bps < 1 {
            return Err("must be positive".into());
        }
        Ok(Rate(bps))
    }
    pub fn bps(self) -> u64 {
        self.0
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(QuantityVisitor {
            expecting: "a rate such as \"10Mbit\", \"384kbit\", \"1Gbit\" or a number of bit/s",
            parse: Rate::parse,
        })
    }
}
impl Serialize for Rate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

/// A size in bytes; plain numbers are bytes. KB/MB/GB are powers of 1000,
/// KiB/MiB/GiB powers of 1024.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes(pub u64);

fn bytes_scale(unit: &str) -> Option<f64> {
    Some(match unit {
        "" | "b" | "byte" | "bytes" => 1.0,
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    })
}

impl Bytes {
    pub fn parse(v: f64, unit: &str) -> Result<Bytes, String> {
        check_finite_nonnegative(v)?;
        let scale = bytes_scale(unit).ok_or_else(|| format!("unknown size unit '{unit}'"))?;
        Ok(Bytes(fit_u64(v * scale, "bytes")?))
    }
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(QuantityVisitor {
            expecting: "a size such as \"64KB\", \"1MiB\", \"1448B\" or a number of bytes",
            parse: Bytes::parse,
        })
    }
}
impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

/// A queue capacity: packets, bytes, or a multiple of the path's
/// bandwidth-delay product. Plain numbers are packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueueSize {
    Packets(u64),
    Bytes(u64),
    Bdp(f64),
}

impl QueueSize {
    pub fn parse(v: f64, unit: &str) -> Result<QueueSize, String> {
        check_finite_nonnegative(v)?;
        match unit {
            "" | "p" | "pkt" | "pkts" | "packet" | "packets" => Ok(QueueSize::Packets(fit_u64(v, "packets")?)),
            "bdp" | "xbdp" => Ok(QueueSize::Bdp(v)),
            u => match bytes_scale(u) {
                Some(scale) => Ok(QueueSize::Bytes(fit_u64(v * scale, "bytes")?)),
                None => Err(format!("unknown queue size unit '{u}'")),
            },
        }
    }
}

impl<'de> Deserialize<'de> for QueueSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(QuantityVisitor {
            expecting: "a queue size such as \"1bdp\", \"0.5bdp\", \"100pkt\", \"64KB\" or a number of packets",
            parse: QueueSize::parse,
        })
    }
}
impl Serialize for QueueSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            QueueSize::Packets(p) => s.serialize_str(&format!("{p}pkt")),
            QueueSize::Bytes(b) => s.serialize_str(&format!("{b}B")),
            QueueSize::Bdp(m) => s.serialize_str(&format!("{m}bdp")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(Duration::parse(50.0, "ms").unwrap().ns(), 50_000_000);
        assert_eq!(Rate::parse(10.0, "mbit").unwrap().bps(), 10_000_000);
        assert_eq!(Rate::parse(384.0, "kbps").unwrap().bps(), 384_000);
        assert_eq!(Rate::parse(1.0, "gbit/s").unwrap().bps(), 1_000_000_000);
        assert_eq!(Bytes::parse(64.0, "kib").unwrap().0, 65_536);
        assert_eq!(QueueSize::parse(1.0, "bdp").unwrap(), QueueSize::Bdp(1.0));
        assert!(Rate::parse(-5.0, "").is_err());
        assert!(Duration::parse(1.0, "parsec").is_err());
    }

    #[test]
    fn strings_and_numbers_deserialize() {
        let d: Duration = serde_json::from_str("\"1.5 s\"").unwrap();
        assert_eq!(d.ns(), 1_500_000_000);
        let r: Rate = serde_json::from_str("\"100 Mbit/s\"").unwrap();
        assert_eq!(r.bps(), 100_000_000);
        let e = serde_json::from_str::<Rate>("-3").unwrap_err().to_string();
        assert!(e.contains("must not be negative"), "{e}");
    }

    #[test]
    fn values_beyond_u64_are_refused_not_wrapped() {
        for (v, unit) in [(1e300, ""), (2f64.powi(64), "ns"), (99_999_999_999.0, "h")] {
            let e = Duration::parse(v, unit).unwrap_err();
            assert!(e.contains("too large"), "{e}");
        }
        assert!(Rate::parse(1e20, "").unwrap_err().contains("too large"));
        assert!(Bytes::parse(1e30, "gb").unwrap_err().contains("too large"));
        assert!(QueueSize::parse(1e20, "pkt").is_err());
        assert_eq!(Duration::parse(18e9, "").unwrap().ns(), 18_000_000_000_000_000_000);
    }

    #[test]
    fn echoed_values_are_capped_and_escaped() {
        let long = "9".repeat(100_000) + "parsec";
        let e = serde_json::from_str::<Duration>(&format!("\"{long}\"")).unwrap_err().to_string();
        assert!(e.len() < 300 && e.contains("(100006 characters)"), "{e}");
        assert_eq!(shown("a\u{1b}]0;pwned\u{7}"), "a\\u{1b}]0;pwned\\u{7}");
    }
}
