//! Build script of ccsim: `SOURCE_ID`, a fingerprint of the sources of the
//! core and of the kernel-mode emulator (crates/ccemu), so that the Python
//! front end can tell an emulator binary built from other sources than
//! itself (an old `target/release/ccemu` after an update) before it speaks
//! to it. FNV-1a (64 bits) over every file's path and bytes, in path order.

use std::path::{Path, PathBuf};

fn files_below(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_below(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn fnv1a(hash: &mut u64, bytes: &[u8]) {
    for &b in bytes {
        *hash ^= b as u64;
        *hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let roots = [manifest.join("src"), manifest.join("../ccemu/src")];
    let mut files = Vec::new();
    for root in &roots {
        println!("cargo:rerun-if-changed={}", root.display());
        files_below(root, &mut files);
    }
    let mut named: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|p| (p.strip_prefix(&manifest).unwrap_or(&p).to_string_lossy().replace('\\', "/"), p))
        .collect();
    named.sort();
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    for (name, path) in &named {
        fnv1a(&mut hash, name.as_bytes());
        fnv1a(&mut hash, &std::fs::read(path).unwrap_or_default());
    }
    println!("cargo:rustc-env=CCSIM_SOURCE_ID={hash:016x}");
}
