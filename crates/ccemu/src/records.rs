//! What the emulator records besides the link model's own counters: one
//! fixed-size binary record per packet (arrival, departure or drop), written
//! through a buffer to a file that NumPy reads with `PACKET_RECORD_DTYPE` of
//! ccbench.emulate, and a histogram of how late the timer loop delivered.

use std::fs::File;
use std::io::{self, BufWriter, Write};

/// Record outcomes.
pub const DELIVERED: u8 = 0;
pub const DROPPED_AT_ENQUEUE: u8 = 1;
/// Delivered by the model but its bytes were overwritten (ring too small).
pub const OVERRUN: u8 = 2;
/// Delivered by the model, refused by the receiving TUN device.
pub const WRITE_FAILED: u8 = 3;

/// Bytes of one record: t_in_ns u64, t_out_ns u64, flow u32, bytes u16, link u8, outcome u8, ce u8, pad 3.
pub const RECORD_BYTES: usize = 28;

pub struct PacketRecords {
    out: BufWriter<File>,
}

impl PacketRecords {
    pub fn create(path: &str) -> io::Result<PacketRecords> {
        Ok(PacketRecords { out: BufWriter::with_capacity(1 << 20, File::create(path)?) })
    }

    /// Times are nanoseconds since the run's start; `t_out_ns` is 0 for a drop.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn push(&mut self, t_in_ns: u64, t_out_ns: u64, flow: u32, bytes: u32, link: u8, outcome: u8, ce: bool) {
        let mut r = [0u8; RECORD_BYTES];
        r[0..8].copy_from_slice(&t_in_ns.to_le_bytes());
        r[8..16].copy_from_slice(&t_out_ns.to_le_bytes());
        r[16..20].copy_from_slice(&flow.to_le_bytes());
        r[20..22].copy_from_slice(&(bytes.min(u16::MAX as u32) as u16).to_le_bytes());
        r[22] = link;
        r[23] = outcome;
        r[24] = ce as u8;
        // A failed write of the record file must not stop the forwarding; it shows in `finish`.
        let _ = self.out.write_all(&r);
    }

    pub fn finish(mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Lateness of deliveries (actual time minus the time the model set), in
/// microsecond bins up to 100 ms (the last bin holds everything later).
pub struct Lateness {
    bins: Vec<u64>,
    max_ns: u64,
    sum_ns: u128,
    count: u64,
}

const LATENESS_BINS: usize = 100_000;

impl Default for Lateness {
    fn default() -> Self {
        Lateness { bins: vec![0; LATENESS_BINS + 1], max_ns: 0, sum_ns: 0, count: 0 }
    }
}

impl Lateness {
    #[inline]
    pub fn add(&mut self, late_ns: u64) {
        self.bins[((late_ns / 1000) as usize).min(LATENESS_BINS)] += 1;
        self.max_ns = self.max_ns.max(late_ns);
        self.sum_ns += late_ns as u128;
        self.count += 1;
    }

    /// The `q` quantile in microseconds (upper edge of its bin), NaN if empty.
    pub fn quantile_us(&self, q: f64) -> f64 {
        if self.count == 0 {
            return f64::NAN;
        }
        let target = (q * self.count as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, &n) in self.bins.iter().enumerate() {
            seen += n;
            if seen >= target {
                return (i + 1) as f64;
            }
        }
        f64::NAN
    }

    pub fn mean_us(&self) -> f64 {
        if self.count == 0 {
            f64::NAN
        } else {
            self.sum_ns as f64 / self.count as f64 / 1000.0
        }
    }

    pub fn max_us(&self) -> f64 {
        self.max_ns as f64 / 1000.0
    }

    pub fn count(&self) -> u64 {
        self.count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_upper_bin_edges() {
        let mut l = Lateness::default();
        for ns in [500, 1500, 2500, 3500] {
            l.add(ns);
        }
        assert_eq!(l.quantile_us(0.5), 2.0);
        assert_eq!(l.quantile_us(1.0), 4.0);
        assert_eq!(l.max_us(), 3.5);
        assert_eq!(l.mean_us(), 2.0);
    }

    #[test]
    fn records_are_fixed_size() {
        let path = std::env::temp_dir().join(format!("ccemu-records-{}.bin", std::process::id()));
        let mut r = PacketRecords::create(path.to_str().unwrap()).unwrap();
        r.push(1, 2, 3, 1500, 0, DELIVERED, true);
        r.push(4, 0, 5, 40, 1, DROPPED_AT_ENQUEUE, false);
        r.finish().unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(bytes.len(), 2 * RECORD_BYTES);
        assert_eq!(u16::from_le_bytes([bytes[20], bytes[21]]), 1500);
        assert_eq!(bytes[RECORD_BYTES + 23], DROPPED_AT_ENQUEUE);
    }
}
