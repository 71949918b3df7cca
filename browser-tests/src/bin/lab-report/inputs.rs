//! What the report sets the page's numbers beside: the collector's run
//! files, the native chase's JSON, and the renderer processes' fault
//! counters.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::Value;

/// ns per load (median) at `kib` in a chase report's points.
pub fn chase_at(points: &Value, kib: u64) -> Option<(f64, f64, f64)> {
    let p = points
        .as_array()?
        .iter()
        .find(|p| p["region_bytes"].as_u64() == Some(kib * 1024))?;
    let s = &p["summary"];
    Some((
        s["median"].as_f64()?,
        s["min"].as_f64()?,
        s["max"].as_f64()?,
    ))
}

/// The collector's staircase, 4 KiB pages: ns per load (median) at `kib`.
pub fn staircase_at(run: &Value, kib: u64) -> Option<f64> {
    let exp = run["experiments"]
        .as_array()?
        .iter()
        .find(|e| e["name"] == "staircase")?;
    let curve = exp["results"]["staircase"]["curves"]
        .as_array()?
        .iter()
        .find(|c| c["regime"] == "small")?;
    curve["points"]
        .as_array()?
        .iter()
        .find(|p| p["region_bytes"].as_u64() == Some(kib * 1024))?["ns_per_load"]["median"]
        .as_f64()
}

pub fn read_json(path: &PathBuf) -> Result<Value> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))
}

/// Minor faults of every Chromium renderer process now (`/proc/PID/stat`
/// field 10), summed: the lab's worker runs in one of them.
pub fn renderer_minor_faults() -> u64 {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return 0;
    };
    procs
        .filter_map(|e| e.ok())
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .is_ok_and(|c| c.windows(15).any(|w| w == b"--type=renderer"))
        })
        .filter_map(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // Fields after the command name, which may hold spaces.
            let rest = stat.rsplit_once(')')?.1;
            rest.split_whitespace().nth(7)?.parse::<u64>().ok()
        })
        .sum()
}

/// The collector's 4 KiB first pass, ns per page (median), from a run file.
pub fn native_first_pass(path: &std::path::Path) -> Result<Option<f64>> {
    let run = pagewalk_model::read_run(path).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(run
        .first_touch()
        .and_then(|ft| ft.mode(pagewalk_model::Mode::Nohugepage))
        .and_then(|m| m.summary.first_pass.as_ref())
        .map(|p| p.ns_per_page.median))
}
