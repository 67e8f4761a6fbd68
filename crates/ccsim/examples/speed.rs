//! Runs one scenario (a JSON file, as `ccbench.scenario` normalizes it) and
//! prints one JSON line of what bench/suite.py measures: events, the
//! bottleneck's departures, CPU and wall seconds of the simulation alone
//! (building the world and the results included, reading the file not), and a
//! digest of every result table, so two builds can be checked to give the
//! same results on scenarios larger than the golden ones.
//!   cargo run --release -p ccsim --example speed -- scenario.json [bottleneck-link]
//! The bottleneck defaults to the link with the most departures.
use std::hash::Hasher;

use ccsim::record::table::{Column, Table};

/// A fast word hash (the multiply-rotate of rustc's FxHasher): the digest
/// tells two builds' results apart, it need not resist an adversary, and
/// SipHash cost half as much as the simulation of a 50,000-packet run.
#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Hashes a result table's names and values as they are held (f64 by their
/// bits, text by its bytes). Formatting every value as text instead cost
/// about three times the simulation of a 50,000-packet run.
fn hash_table(h: &mut WordHasher, table: &Table) {
    let text = |h: &mut WordHasher, s: &str| {
        h.write(s.as_bytes());
        h.write_u8(0xff);
    };
    for (name, column) in &table.columns {
        text(h, name);
        h.write_u64(column.len() as u64);
        match column {
            Column::F64(v) => v.iter().for_each(|x| h.write_u64(x.to_bits())),
            Column::U64(v) => v.iter().for_each(|&x| h.write_u64(x)),
            Column::U32(v) => v.iter().for_each(|&x| h.write_u64(x as u64)),
            Column::Str(v) => v.iter().for_each(|s| text(h, s)),
            Column::Dict { dictionary, codes } => codes.iter().for_each(|&c| text(h, dictionary[c as usize])),
            Column::Names { names, codes } => codes.iter().for_each(|&c| text(h, &names[c as usize])),
        }
    }
}

/// CPU seconds the main thread has run (user + system), from the scheduler's
/// nanosecond account (/proc/self/schedstat): finer than getrusage's ticks.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/schedstat").expect("/proc/self/schedstat");
    stat.split(' ').next().and_then(|ns| ns.parse::<f64>().ok()).expect("schedstat format") / 1e9
}

/// The process's peak resident set (VmHWM), in bytes.
fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM");
    line.split_whitespace().nth(1).and_then(|kb| kb.parse::<u64>().ok()).expect("VmHWM format") * 1024
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("scenario file");
    let s = ccsim::Scenario::from_json(&text).unwrap_or_else(|e| panic!("{e}"));
    let (cpu0, wall0) = (cpu_seconds(), std::time::Instant::now());
    let r = ccsim::run(&s);
    let (cpu, wall) = (cpu_seconds() - cpu0, wall0.elapsed().as_secs_f64());
    let peak_rss = peak_rss_bytes();
    let names = match r.links.get("link") {
        Some(ccsim::record::table::Column::Str(v)) => v.clone(),
        _ => Vec::new(),
    };
    let departures = r.links.u64("departures");
    let bottleneck = match args.get(2) {
        Some(name) => names.iter().position(|n| n == name).expect("no such link"),
        None => (0..departures.len()).max_by_key(|&i| departures[i]).expect("a link"),
    };
    let mut h = WordHasher::default();
    for t in [&r.flows, &r.series, &r.rtt, &r.links, &r.link_series, &r.sources, &r.source_series] {
        hash_table(&mut h, t);
    }
    println!(
        "{{\"events\": {}, \"bottleneck\": \"{}\", \"bottleneck_packets\": {}, \"cpu_seconds\": {:.6}, \
         \"wall_seconds\": {:.6}, \"peak_rss_bytes\": {}, \"delivered_bytes\": {}, \"digest\": \"{:016x}\"}}",
        r.events,
        names[bottleneck],
        departures[bottleneck],
        cpu,
        wall,
        peak_rss,
        r.flows.u64("delivered_bytes").iter().sum::<u64>(),
        h.finish()
    );
}
