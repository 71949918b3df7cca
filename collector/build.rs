//! Records how the collector was compiled. Some results depend on it: whether
//! `Vec::with_capacity(n)` + `resize(n, 0)` becomes one zeroed allocation is
//! up to the optimiser of a given rustc, and a debug build's timings mean
//! little. The run file names both.

use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "rustc (unknown version)".into());
    println!("cargo:rustc-env=COLLECTOR_RUSTC={version}");
    println!(
        "cargo:rustc-env=COLLECTOR_PROFILE={}",
        std::env::var("PROFILE").unwrap_or_default()
    );
    println!("cargo:rerun-if-env-changed=RUSTC");
}
