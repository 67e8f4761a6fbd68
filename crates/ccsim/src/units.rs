//! Quantities with units as scenario files write them: durations ("50ms"),
//! rates ("10Mbit"), sizes ("64KB") and queue sizes ("1bdp", "100pkt").
//!
//! Each accepts a plain number in the base unit (seconds, bit/s, bytes,
//! packets) or a string with a unit. A bad value is rejected with a message
//! that shows the value and the accepted forms; the caller adds the field path.
//!
//! Rates and sizes tell bits from bytes as networking tools write them
//! (IEC 80000-13, iperf, ethtool): a lowercase `b` or the word `bit` is bits,
//! an uppercase `B` or the word `byte` is bytes; `k`, `M`, `G`, `T` are powers
//! of 1000 and `Ki`, `Mi`, `Gi`, `Ti` powers of 1024, in either letter case.
//! `10Mbit`, `10Mb`, `10Mbps` and `10Mbit/s` are 10 megabits per second,
//! `10MB/s` and `10MBps` are 10 megabytes per second (80 Mbit/s), `64KB` is
//! 64000 bytes, `64KiB` 65536 bytes and `64Kb` 64 kilobits (8000 bytes). A
//! prefix without `b`/`B` (`10M`) is ambiguous and refused, as is any unknown
//! suffix; the message lists the accepted ones. Durations and queue units
//! (`ms`, `pkt`, `bdp`) ignore letter case.

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
    // Letter case is kept: in rates and sizes `b` (bits) and `B` (bytes) differ.
    let unit = s[end..].trim().replace(' ', "");
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

/// `v` in the base unit, to the nearest, as a u64; refused (never wrapped
/// or clamped) when it does not fit: `duration = 1e300` is an error, not
/// 1.8e10 s. For the units that are the simulator's resolution
/// (nanoseconds, bit/s): a time in seconds computed as 1/3 is a third of a
/// second to the nanosecond.
fn nearest_u64(v: f64, unit_name: &str) -> Result<u64, String> {
    let rounded = v.round();
    // u64::MAX as f64 rounds up to 2^64, which does not fit: refuse it too.
    if rounded >= u64::MAX as f64 {
        return Err(format!("is too large (at most {:e} {unit_name})", u64::MAX as f64));
    }
    Ok(rounded as u64)
}

/// `v` in the base unit as a u64, for what only comes whole (bytes, bits,
/// packets): as `nearest_u64`, and refused when it is not whole: `size =
/// "1.5B"` is an error, not 2 bytes. A relative 1e-12 absorbs the error of
/// scaling a decimal in binary floating point (`"1.1KB"` is
/// 1100.0000000000002 bytes).
fn whole_u64(v: f64, unit_name: &str) -> Result<u64, String> {
    let rounded = nearest_u64(v, unit_name)?;
    if (v - rounded as f64).abs() > 1e-12 * (rounded as f64).max(1.0) {
        return Err(format!("{v} {unit_name} is not a whole number of {unit_name}"));
    }
    Ok(rounded)
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
        let unit = unit.to_ascii_lowercase();
        let scale = match unit.as_str() {
            "" | "s" | "sec" | "secs" | "second" | "seconds" => 1e9,
            "ms" | "msec" => 1e6,
            "us" | "µs" | "usec" => 1e3,
            "ns" => 1.0,
            "min" | "m" => 60e9,
            "h" => 3600e9,
            other => return Err(format!("unknown time unit '{other}'")),
        };
        Ok(Duration(nearest_u64(v * scale, "ns")?))
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
        let data = DataUnit::parse(unit, RATE_UNITS, "B/s")?;
        if data.counts_bytes && !data.per_second {
            return Err(format!(
                "'{unit}' is a size; a rate in bytes is written '{unit}/s' or '{unit}ps' (bytes per second); \
                 accepted: {RATE_UNITS}"
            ));
        }
        let bits_per_unit = if data.counts_bytes { 8.0 } else { 1.0 };
        let bps = nearest_u64(v * data.scale * bits_per_unit, "bit/s")?;
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
            expecting: "a rate such as \"10Mbit\", \"384kbps\", \"1Gbit/s\", \"10MB/s\" or a number of bit/s",
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
/// KiB/MiB/GiB powers of 1024; a size in bits (`64Kb`) must be a whole
/// number of bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes(pub u64);

/// Every suffix a rate accepts, as error messages list them.
pub const RATE_UNITS: &str =
    "bits per second: b, bit, bps or bit/s after k, M, G, T (powers of 1000) or Ki, Mi, Gi, Ti \
     (powers of 1024), e.g. 10Mbit, 10Mb, 10Mbps, 10Mbit/s; bytes per second: B/s or Bps, e.g. 10MB/s, 10MBps";
/// Every suffix a size accepts, as error messages list them.
pub const SIZE_UNITS: &str = "bytes: B or byte after k, M, G, T (powers of 1000) or Ki, Mi, Gi, Ti (powers of 1024), \
     e.g. 64KB, 1MiB, 1448B; bits: b or bit with the same prefixes, e.g. 64Kb (8000 bytes)";

/// A rate's or size's suffix taken apart: its multiplier, bits or bytes,
/// and whether it says "per second".
#[derive(Clone, Copy, Debug, PartialEq)]
struct DataUnit {
    scale: f64,
    counts_bytes: bool,
    per_second: bool,
}

impl DataUnit {
    /// `unit` as written (letter case kept, spaces removed); `accepted` is
    /// the list an unknown suffix's message shows, `bytes_suffix` how the
    /// caller writes bytes ("B/s" for a rate, "B" for a size). An empty unit
    /// is the base unit, and its meaning (bit/s or bytes) is the caller's.
    fn parse(unit: &str, accepted: &str, bytes_suffix: &str) -> Result<DataUnit, String> {
        if unit.is_empty() {
            return Ok(DataUnit { scale: 1.0, counts_bytes: false, per_second: false });
        }
        let unknown = || format!("unknown unit '{unit}'; accepted: {accepted}");
        let lower = unit.to_ascii_lowercase();
        let (rest, per_second) = if let Some(r) = strip_suffix_ignore_case(unit, &lower, "/s") {
            (r, true)
        } else if unit.ends_with("bps") || unit.ends_with("Bps") {
            (&unit[..unit.len() - 2], true)
        } else {
            (unit, false)
        };
        let lower_rest = rest.to_ascii_lowercase();
        let (prefix, counts_bytes) = if let Some(p) =
            ["bits", "bit"].iter().find_map(|w| strip_suffix_ignore_case(rest, &lower_rest, w))
        {
            (p, false)
        } else if let Some(p) = ["bytes", "byte"].iter().find_map(|w| strip_suffix_ignore_case(rest, &lower_rest, w)) {
            (p, true)
        } else if let Some(p) = rest.strip_suffix('b') {
            (p, false)
        } else if let Some(p) = rest.strip_suffix('B') {
            (p, true)
        } else if prefix_scale(rest).is_some() && !rest.is_empty() {
            return Err(format!(
                "'{unit}' is ambiguous: write '{rest}bit' or '{rest}b' for bits, '{rest}{bytes_suffix}' for bytes; \
                 accepted: {accepted}"
            ));
        } else {
            return Err(unknown());
        };
        let scale = prefix_scale(prefix).ok_or_else(unknown)?;
        Ok(DataUnit { scale, counts_bytes, per_second })
    }
}

/// `s` without the ending `suffix` (given in lowercase) in any letter case;
/// `lower` is `s` in lowercase.
fn strip_suffix_ignore_case<'a>(s: &'a str, lower: &str, suffix: &str) -> Option<&'a str> {
    lower.ends_with(suffix).then(|| &s[..s.len() - suffix.len()])
}

/// The multiplier of a decimal (k, M, G, T) or binary (Ki, Mi, Gi, Ti) prefix, either letter case.
fn prefix_scale(prefix: &str) -> Option<f64> {
    let lower = prefix.to_ascii_lowercase();
    Some(match lower.as_str() {
        "" => 1.0,
        "k" => 1e3,
        "m" => 1e6,
        "g" => 1e9,
        "t" => 1e12,
        "ki" => 1024.0,
        "mi" => 1024.0 * 1024.0,
        "gi" => 1024.0 * 1024.0 * 1024.0,
        "ti" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    })
}

/// `v` in the size unit `unit` as a number of bytes.
fn size_bytes(v: f64, unit: &str) -> Result<u64, String> {
    let data = DataUnit::parse(unit, SIZE_UNITS, "B")?;
    if data.per_second {
        return Err(format!("'{unit}' is a rate, not a size; accepted: {SIZE_UNITS}"));
    }
    if data.counts_bytes || unit.is_empty() {
        return whole_u64(v * data.scale, "bytes");
    }
    let bits = whole_u64(v * data.scale, "bits")?;
    if bits % 8 != 0 {
        return Err(format!("{bits} bits is not a whole number of bytes"));
    }
    Ok(bits / 8)
}

impl Bytes {
    pub fn parse(v: f64, unit: &str) -> Result<Bytes, String> {
        check_finite_nonnegative(v)?;
        Ok(Bytes(size_bytes(v, unit)?))
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
        match unit.to_ascii_lowercase().as_str() {
            "" | "p" | "pkt" | "pkts" | "packet" | "packets" => Ok(QueueSize::Packets(whole_u64(v, "packets")?)),
            "bdp" | "xbdp" => Ok(QueueSize::Bdp(v)),
            _ => size_bytes(v, unit)
                .map(QueueSize::Bytes)
                .map_err(|e| format!("{e}; or packets (pkt) or a multiple of the bandwidth-delay product (bdp)")),
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
        assert_eq!(Bytes::parse(64.0, "KiB").unwrap().0, 65_536);
        assert_eq!(QueueSize::parse(1.0, "bdp").unwrap(), QueueSize::Bdp(1.0));
        assert!(Rate::parse(-5.0, "").is_err());
        assert!(Duration::parse(1.0, "parsec").is_err());
    }

    fn rate(text: &str) -> Result<u64, String> {
        serde_json::from_str::<Rate>(&format!("\"{text}\"")).map(Rate::bps).map_err(|e| e.to_string())
    }

    fn size(text: &str) -> Result<u64, String> {
        serde_json::from_str::<Bytes>(&format!("\"{text}\"")).map(|b| b.0).map_err(|e| e.to_string())
    }

    #[test]
    fn every_accepted_rate_spelling() {
        let megabits = [
            "10Mbit",
            "10mbit",
            "10MBit",
            "10Mbits",
            "10Mb",
            "10mb",
            "10Mbps",
            "10mbps",
            "10Mbit/s",
            "10 Mbit/s",
            "10Mb/s",
            "10Mbits/s",
        ];
        for text in megabits {
            assert_eq!(rate(text), Ok(10_000_000), "{text}");
        }
        for text in ["10MB/s", "10MBps", "10mBps", "10MByte/s", "10Mbytes/s", "10 MB/s"] {
            assert_eq!(rate(text), Ok(80_000_000), "{text} is megabytes per second");
        }
        let cases = [
            ("384kbit", 384_000),
            ("384Kbit", 384_000),
            ("384kbps", 384_000),
            ("384kb/s", 384_000),
            ("1Gbit", 1_000_000_000),
            ("1gbps", 1_000_000_000),
            ("1Tbit", 1_000_000_000_000),
            ("1Mibit", 1_048_576),
            ("1Kibps", 1024),
            ("1KiB/s", 8192),
            ("1500bit", 1500),
            ("1500b", 1500),
            ("1500bps", 1500),
            ("1500bit/s", 1500),
            ("1500B/s", 12_000),
            ("1500Bps", 12_000),
            ("1500", 1500),
        ];
        for (text, bps) in cases {
            assert_eq!(rate(text), Ok(bps), "{text}");
        }
        assert_eq!(serde_json::from_str::<Rate>("2500").unwrap().bps(), 2500);
    }

    #[test]
    fn rejected_rate_spellings_list_the_accepted_ones() {
        for text in ["10M", "10m", "10k", "10G/s", "10MB", "10KiB", "10Mbyte", "10parsec", "10Mbitz", "10bitps", "10/s"]
        {
            let e = rate(text).unwrap_err();
            assert!(e.contains("bits per second: b, bit, bps"), "{text}: {e}");
        }
        let e = rate("10M").unwrap_err();
        assert!(e.contains("ambiguous") && e.contains("'MB/s' for bytes"), "{e}");
        assert!(rate("10MB").unwrap_err().contains("'MB' is a size"));
    }

    #[test]
    fn every_accepted_size_spelling() {
        let cases = [
            ("64KB", 64_000),
            ("64kB", 64_000),
            ("64KByte", 64_000),
            ("64kbytes", 64_000),
            ("64 KB", 64_000),
            ("64KiB", 65_536),
            ("64kiB", 65_536),
            ("1MB", 1_000_000),
            ("1MiB", 1_048_576),
            ("1GB", 1_000_000_000),
            ("1GiB", 1_073_741_824),
            ("1TB", 1_000_000_000_000),
            ("1TiB", 1_099_511_627_776),
            ("1448B", 1448),
            ("1448byte", 1448),
            ("1448bytes", 1448),
            ("1448", 1448),
            ("64Kb", 8000),
            ("64kbit", 8000),
            ("64Kib", 8192),
            ("1Mbit", 125_000),
            ("8b", 1),
            ("16bits", 2),
        ];
        for (text, bytes) in cases {
            assert_eq!(size(text), Ok(bytes), "{text}");
        }
    }

    #[test]
    fn rejected_size_spellings_list_the_accepted_ones() {
        for text in ["64K", "64k", "1M", "1Mi", "64KB/s", "64Kbps", "64 parsec", "64KBB", "64pkt"] {
            let e = size(text).unwrap_err();
            assert!(e.contains("bytes: B or byte after k, M, G"), "{text}: {e}");
        }
        let e = size("64K").unwrap_err();
        assert!(e.contains("ambiguous") && e.contains("'KB' for bytes"), "{e}");
        assert!(size("64KB/s").unwrap_err().contains("is a rate, not a size"));
        let e = size("12bit").unwrap_err();
        assert!(e.contains("12 bits is not a whole number of bytes"), "{e}");
    }

    #[test]
    fn queue_sizes_tell_bits_from_bytes() {
        assert_eq!(QueueSize::parse(64.0, "KB"), Ok(QueueSize::Bytes(64_000)));
        assert_eq!(QueueSize::parse(64.0, "Kb"), Ok(QueueSize::Bytes(8000)));
        assert_eq!(QueueSize::parse(100.0, "PKT"), Ok(QueueSize::Packets(100)));
        assert_eq!(QueueSize::parse(2.0, "BDP"), Ok(QueueSize::Bdp(2.0)));
        let e = QueueSize::parse(64.0, "K").unwrap_err();
        assert!(e.contains("ambiguous") && e.contains("(pkt)"), "{e}");
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
        assert!(Bytes::parse(1e30, "GB").unwrap_err().contains("too large"));
        assert!(QueueSize::parse(1e20, "pkt").is_err());
        assert_eq!(Duration::parse(18e9, "").unwrap().ns(), 18_000_000_000_000_000_000);
    }

    #[test]
    fn counts_that_are_not_whole_are_refused_and_times_and_rates_rounded() {
        let e = size("1.5B").unwrap_err();
        assert!(e.contains("1.5 bytes is not a whole number of bytes") && e.contains("\"1.5B\""), "{e}");
        assert!(size("1.0005KB").unwrap_err().contains("1000.5 bytes is not a whole number"));
        assert!(size("8.4bit").unwrap_err().contains("8.4 bits is not a whole number"));
        assert!(Bytes::parse(0.5, "").unwrap_err().contains("0.5 bytes"));
        assert!(QueueSize::parse(1.5, "pkt").unwrap_err().contains("1.5 packets is not a whole number"));
        // Decimals that are whole in the base unit pass, whatever binary floating point makes of them.
        assert_eq!(size("1.1KB"), Ok(1100));
        assert_eq!(size("0.3MB"), Ok(300_000));
        assert_eq!(QueueSize::parse(0.5, "bdp"), Ok(QueueSize::Bdp(0.5)));
        // Times and rates are to the simulator's resolution: a third of a
        // second (a computed start time, a swept delay) is to the nanosecond.
        assert_eq!(Duration::parse(1.0 / 3.0, "").unwrap().ns(), 333_333_333);
        assert_eq!(Duration::parse(2.093_403_754_788_873_5, "").unwrap().ns(), 2_093_403_755);
        assert_eq!(Duration::parse(0.3, "").unwrap().ns(), 300_000_000);
        assert_eq!(Duration::parse(1.1, "ms").unwrap().ns(), 1_100_000);
        assert_eq!(rate("2.2Mbit"), Ok(2_200_000));
        assert_eq!(Rate::parse(1e7 / 3.0, "").map(|r| r.bps()), Ok(3_333_333));
    }

    #[test]
    fn echoed_values_are_capped_and_escaped() {
        let long = "9".repeat(100_000) + "parsec";
        let e = serde_json::from_str::<Duration>(&format!("\"{long}\"")).unwrap_err().to_string();
        assert!(e.len() < 300 && e.contains("(100006 characters)"), "{e}");
        assert_eq!(shown("a\u{1b}]0;pwned\u{7}"), "a\\u{1b}]0;pwned\\u{7}");
    }
}
