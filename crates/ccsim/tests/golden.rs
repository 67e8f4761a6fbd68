//! Golden tables: a few small scenarios whose complete results are committed,
//! so a refactor that is meant to change nothing is checked to change nothing.
//!
//! Each `tests/golden/NAME.json` scenario is run and every result table is
//! reduced to its row count and a 64-bit FNV-1a hash of its column names,
//! types and values (f64 by their bits), written with a readable excerpt of
//! the flows table to `tests/golden/NAME.golden`. The test fails on any
//! difference and prints both versions.
//!
//! When a change is meant to alter results (a bug fix), regenerate and commit
//! the files, saying in the commit which fix changed which table:
//!
//!     CCSIM_BLESS=1 cargo test -p ccsim --test golden

mod common;
use ccsim::record::table::{Column, Table};
use ccsim::Results;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// FNV-1a, 64 bits: tiny, stable across platforms and Rust releases (unlike `DefaultHasher`).
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, data: &[u8]) {
        for b in data {
            self.0 ^= *b as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

fn table_hash(t: &Table) -> u64 {
    let mut h = Fnv::new();
    for (name, column) in &t.columns {
        h.bytes(name.as_bytes());
        match column {
            Column::F64(v) => {
                h.bytes(b"f64");
                v.iter().for_each(|x| h.bytes(&x.to_bits().to_le_bytes()));
            }
            Column::U64(v) => {
                h.bytes(b"u64");
                v.iter().for_each(|x| h.bytes(&x.to_le_bytes()));
            }
            Column::U32(v) => {
                h.bytes(b"u32");
                v.iter().for_each(|x| h.bytes(&x.to_le_bytes()));
            }
            // Text: a Names column hashes as the Str column it stands for.
            text => {
                h.bytes(if matches!(text, Column::Dict { .. }) { b"dict" } else { b"str" });
                for row in 0..text.len() {
                    h.bytes(text.text(row).expect("a text column").as_bytes());
                    h.bytes(&[0]);
                }
            }
        }
    }
    h.0
}

/// The columns of the flows table a reader checks first.
const EXCERPT: &[&str] =
    &["flow", "cc", "delivered_bytes", "retransmitted_segments", "timeouts", "fast_recoveries", "rtt_mean_ms"];

fn cell(column: &Column, row: usize) -> String {
    match column {
        Column::F64(v) => format!("{:.3}", v[row]),
        Column::U64(v) => v[row].to_string(),
        Column::U32(v) => v[row].to_string(),
        text => text.text(row).expect("a text column").to_string(),
    }
}

fn render(r: &Results) -> String {
    let mut out = String::new();
    let tables = [
        ("flows", &r.flows),
        ("series", &r.series),
        ("cc_state", &r.cc_state),
        ("rtt", &r.rtt),
        ("links", &r.links),
        ("link_series", &r.link_series),
        ("sources", &r.sources),
        ("source_series", &r.source_series),
    ];
    writeln!(out, "events {}", r.events).unwrap();
    for (name, t) in tables {
        writeln!(out, "table {name}: {} rows, {} columns, hash {:016x}", t.rows(), t.columns.len(), table_hash(t))
            .unwrap();
    }
    let shown: Vec<&(String, Column)> = r.flows.columns.iter().filter(|(n, _)| EXCERPT.contains(&n.as_str())).collect();
    writeln!(out, "\nflows excerpt:").unwrap();
    writeln!(out, "{}", shown.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join("\t")).unwrap();
    for row in 0..r.flows.rows() {
        writeln!(out, "{}", shown.iter().map(|(_, c)| cell(c, row)).collect::<Vec<_>>().join("\t")).unwrap();
    }
    out
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

#[test]
fn golden_tables_are_unchanged() {
    let bless = std::env::var_os("CCSIM_BLESS").is_some();
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("tests/golden")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    scenarios.sort();
    assert!(scenarios.len() >= 5, "golden scenarios missing from {}", golden_dir().display());
    let mut failures = Vec::new();
    for path in &scenarios {
        let text = std::fs::read_to_string(path).unwrap();
        let got = render(&common::simulate(&text));
        let golden_path = path.with_extension("golden");
        if bless {
            std::fs::write(&golden_path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&golden_path).unwrap_or_default();
        if got != want {
            failures.push(format!("{}\n--- committed\n{want}\n--- now\n{got}", golden_path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "results changed (CCSIM_BLESS=1 cargo test -p ccsim --test golden regenerates them if meant):\n{}",
        failures.join("\n")
    );
}
