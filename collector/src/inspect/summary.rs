//! The terminal side of `collector inspect`: where the file went, what was
//! watched, then one line per symptom with its evidence and chapter.

use std::fmt::Write;
use std::path::Path;

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::Table;
use pagewalk_model::inspect::{Evidence, InspectResults, Presence};

pub fn render(r: &InspectResults, path: &Path) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Inspection written to {}", path.display());
    let _ = writeln!(
        out,
        "Process {} ({}): watched {:.1} s every {:.0} ms, {} samples",
        r.pid,
        r.command,
        r.observed_s,
        r.interval_ms,
        r.samples.len()
    );
    if let Some(why) = &r.ended_early {
        let _ = writeln!(out, "!! ended early: {why}");
    }
    let s = &r.settings;
    let or_none = |v: &Option<String>| match v.as_deref() {
        None | Some("") => "none".to_string(),
        Some(v) => v.to_string(),
    };
    let _ = writeln!(
        out,
        "Settings: THP enabled={} defrag={}, nohz_full={}, isolated={}, RT runtime/period={}/{} µs, CPUs allowed {}",
        or_none(&s.thp_enabled),
        or_none(&s.thp_defrag),
        or_none(&s.nohz_full),
        or_none(&s.isolated),
        s.sched_rt_runtime_us.map_or("?".into(), |v| v.to_string()),
        s.sched_rt_period_us.map_or("?".into(), |v| v.to_string()),
        or_none(&s.cpus_allowed),
    );
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_header(vec!["symptom", "verdict", "evidence", "chapter"]);
    for v in &r.verdicts {
        let verdict = match v.verdict {
            Presence::Present => "PRESENT".to_string(),
            other => other.label().to_string(),
        };
        let evidence: Vec<String> = v.evidence.iter().map(Evidence::text).collect();
        table.add_row(vec![
            v.symptom.label().to_string(),
            verdict,
            evidence.join("\n"),
            v.symptom.chapter().to_string(),
        ]);
    }
    let _ = writeln!(out, "{table}");
    for v in &r.verdicts {
        let _ = writeln!(
            out,
            "  {} ({}): {}",
            v.symptom.label(),
            v.verdict.label(),
            v.reason
        );
    }
    if !r.unreadable.is_empty() {
        let _ = writeln!(out, "Not readable:");
        for (what, why) in &r.unreadable {
            let _ = writeln!(out, "  {what}: {why}");
        }
    }
    out
}
