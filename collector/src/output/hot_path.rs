//! Summary lines for the experiments of `Group::HotPath` (tail, alloc,
//! syscall, noise, numa). Every comparison printed goes through
//! [`Verdict`] where an A-vs-A measurement exists.

use std::fmt::Write;

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{CellAlignment, Table};
use pagewalk_model::{
    AllocResults, ComparisonKind, CountMethod, Latency, NoiseResults, NumaResults,
    ShootdownResults, Stat, SyscallOp, SyscallResults, TailResults, TailVariant,
};

use crate::guard::human;

/// Whether [`render`] writes this kind of results.
/// `440 ns`, `2.32 µs`, `1.51 ms`.
pub fn ns(v: f64) -> String {
    pagewalk_model::units::duration_ns(v)
}

fn opt_ns(v: Option<f64>) -> String {
    v.map_or("-".into(), ns)
}

fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(UTF8_FULL_CONDENSED)
        .set_header(header.to_vec());
    t
}

fn right_align(t: &mut Table, from: usize) {
    let columns = t.column_count();
    for i in from..columns {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

fn stat_cells(l: Option<&Latency>, stats: &[Stat]) -> Vec<String> {
    stats
        .iter()
        .map(|&s| opt_ns(l.and_then(|l| l.get(s))))
        .collect()
}

pub fn tail(out: &mut String, name: &str, took: &str, t: &TailResults) -> std::fmt::Result {
    writeln!(
        out,
        "{name}: ok{took}: {} iterations x {} repetition(s), {} fresh bytes each (1 in {} meets a new page)",
        t.iterations.unwrap_or(0),
        t.repetitions.unwrap_or(0),
        t.bytes_per_iteration.unwrap_or(0),
        t.region_bytes.unwrap_or(0) / t.pages.unwrap_or(1).max(1) / t.bytes_per_iteration.unwrap_or(1).max(1)
    )?;
    let mut tab = table(&[
        "variant",
        "p50",
        "p90",
        "p99",
        "p99.9",
        "max",
        "mean",
        "hot-loop\nfaults",
        "prepare",
    ]);
    for v in &t.variants {
        let mut row = vec![v.variant.label().to_string()];
        if let Some(why) = &v.skipped {
            row.push(format!("skipped: {why}"));
        } else {
            row.extend(stat_cells(v.latency.as_ref(), &Stat::ALL));
            row.push(
                v.hot_minor_faults
                    .map_or("-".into(), |f| format!("{:.0}", f.median)),
            );
            row.push(v.prepare_ns.map_or("-".into(), |p| ns(p.median)));
        }
        tab.add_row(row);
    }
    right_align(&mut tab, 1);
    writeln!(out, "{tab}")?;
    let stat = |v: TailVariant, s: Stat| t.variant(v)?.latency.as_ref()?.get(s);
    let ratio = |s: Stat| Some(stat(TailVariant::AsWritten, s)? / stat(TailVariant::Populate, s)?);
    if let (Some(p999), Some(mean)) = (ratio(Stat::P999), ratio(Stat::Mean)) {
        writeln!(
            out,
            "  as written / MAP_POPULATE: p99.9 {p999:.1}x, mean {mean:.2}x"
        )?;
    }
    Ok(())
}

pub fn alloc(out: &mut String, name: &str, took: &str, a: &AllocResults) -> std::fmt::Result {
    writeln!(out, "{name}: ok{took}: ns per malloc + free, over batches")?;
    let mut tab = table(&[
        "path",
        "size",
        "p50",
        "p99",
        "faults\nper op",
        "mmap+munmap\nper op",
    ]);
    for p in &a.paths {
        let mut row = vec![p.path.label().to_string()];
        if let Some(why) = &p.skipped {
            row.push(format!("skipped: {why}"));
        } else {
            row.push(p.size_bytes.map_or("-".into(), human));
            row.extend(stat_cells(p.latency.as_ref(), &[Stat::P50, Stat::P99]));
            row.push(
                p.minor_faults_per_op
                    .map_or("-".into(), |f| format!("{f:.3}")),
            );
            // The exact count when strace made one, else the fault-based one.
            let best = p
                .mapping_calls
                .iter()
                .find(|c| c.method == CountMethod::Strace)
                .or(p.mapping_calls.first());
            row.push(best.map_or("-".into(), |c| {
                let per_op = c.total as f64 / c.ops.unwrap_or(1).max(1) as f64;
                format!("{per_op:.2} ({})", method(c.method))
            }));
        }
        tab.add_row(row);
    }
    right_align(&mut tab, 1);
    writeln!(out, "{tab}")
}

fn method(m: CountMethod) -> &'static str {
    match m {
        CountMethod::Strace => "strace -c",
        CountMethod::Faults => "from faults",
        CountMethod::Published => "published",
    }
}

pub fn shootdown(
    out: &mut String,
    name: &str,
    took: &str,
    s: &ShootdownResults,
) -> std::fmt::Result {
    writeln!(
        out,
        "{name}: ok{took}: ns per call on CPU {}, {} pages each; the other thread on CPU {}",
        s.cpu, s.pages_per_call, s.remote_cpu
    )?;
    let mut tab = table(&[
        "call",
        "other thread",
        "median",
        "p99",
        "interrupts per call",
    ]);
    let timed = (s.calls * u64::from(s.repetitions)).max(1) as f64;
    for c in &s.cells {
        let mut row = vec![c.op.label().to_string(), c.sibling.label().to_string()];
        row.push(c.median_ns.map_or("-".into(), |m| ns(m.median)));
        row.push(opt_ns(c.latency.as_ref().and_then(|l| l.p99_ns)));
        row.push(
            c.remote_shootdowns
                .map_or("-".into(), |n| format!("{:.2}", n as f64 / timed)),
        );
        tab.add_row(row);
    }
    right_align(&mut tab, 2);
    writeln!(out, "{tab}")?;
    if let Some(pv) = s.pv_tlb_flush {
        let says = if pv { "offers" } else { "does not offer" };
        writeln!(out, "  KVM {says} paravirtual TLB flushes")?;
    }
    Ok(())
}

pub fn syscall(out: &mut String, name: &str, took: &str, s: &SyscallResults) -> std::fmt::Result {
    writeln!(out, "{name}: ok{took}: ns per call, over batches")?;
    let mut tab = table(&["operation", "p50", "p99", "max"]);
    for op in &s.ops {
        let mut row = vec![op.op.label().to_string()];
        match &op.skipped {
            Some(why) => row.push(format!("skipped: {why}")),
            None => row.extend(stat_cells(
                op.latency.as_ref(),
                &[Stat::P50, Stat::P99, Stat::Max],
            )),
        }
        tab.add_row(row);
    }
    right_align(&mut tab, 1);
    writeln!(out, "{tab}")?;
    let p50 = |o: SyscallOp| s.op(o)?.latency.as_ref()?.p50_ns;
    if let (Some(traced), Some(plain)) = (p50(SyscallOp::GetpidStrace), p50(SyscallOp::Getpid)) {
        writeln!(
            out,
            "  getpid under strace / getpid: {:.0}x",
            traced / plain
        )?;
    }
    let active: Vec<&str> = s
        .mitigations
        .iter()
        .filter(|m| m.active())
        .map(|m| m.name.as_str())
        .collect();
    writeln!(
        out,
        "  entry-path mitigations in force: {}",
        if active.is_empty() {
            "none".to_string()
        } else {
            active.join(", ")
        }
    )
}

pub fn noise(out: &mut String, name: &str, took: &str, n: &NoiseResults) -> std::fmt::Result {
    writeln!(
        out,
        "{name}: ok{took}: {} runs per batch of {} hash rounds{}",
        n.runs_per_batch.unwrap_or(0),
        n.rounds.unwrap_or(0),
        n.pinned_cpu
            .map_or(String::new(), |c| format!(", pinned to CPU {c}"))
    )?;
    let mut tab = table(&["batch", "median", "min", "max", "max/min", "cv", "migrated"]);
    for b in &n.batches {
        let mut row = vec![b.condition.label().to_string()];
        match (&b.skipped, &b.summary) {
            (Some(why), _) => row.push(format!("skipped: {why}")),
            (None, Some(s)) => row.extend([
                ns(s.median),
                ns(s.min),
                ns(s.max),
                format!("{:.3}", s.spread()),
                b.cv.map_or("-".into(), |c| format!("{:.2}%", c * 100.0)),
                b.migrated_runs.map_or("-".into(), |m| m.to_string()),
            ]),
            (None, None) => row.push("no runs".into()),
        }
        tab.add_row(row);
    }
    right_align(&mut tab, 1);
    writeln!(out, "{tab}")?;
    for c in &n.comparisons {
        match c.kind {
            ComparisonKind::AVsA => writeln!(
                out,
                "  A vs A (pinned, twice): {:.1}% apart: the noise floor",
                c.verdict.difference * 100.0
            )?,
            ComparisonKind::PinnedVsUnpinned => {
                writeln!(out, "  pinned vs unpinned: {}", c.verdict.describe())?
            }
            ComparisonKind::AVsLonger => writeln!(
                out,
                "  pinned vs {:.0}% more work: {}",
                (n.longer_rounds.unwrap_or(0) as f64 / n.rounds.unwrap_or(1) as f64 - 1.0) * 100.0,
                c.verdict.describe()
            )?,
        }
    }
    let l = n.levers.clone().unwrap_or_default();
    let f = n.frequency.clone().unwrap_or_default();
    let boot: Vec<String> = [
        ("isolcpus", &l.isolcpus),
        ("nohz_full", &l.nohz_full),
        ("rcu_nocbs", &l.rcu_nocbs),
    ]
    .iter()
    .filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}={v}")))
    .collect();
    writeln!(
        out,
        "  levers: boot isolation {}; RT throttling {} of {} µs; SCHED_FIFO {}; cpuset partitions {}; governor {}",
        if boot.is_empty() { "none".into() } else { boot.join(" ") },
        l.sched_rt_runtime_us.map_or("?".into(), |v| v.to_string()),
        l.sched_rt_period_us.map_or("?".into(), |v| v.to_string()),
        match l.sched_fifo_permitted {
            Some(true) => "permitted",
            Some(false) => "not permitted",
            None => "unknown",
        },
        if l.cpuset_partitions == Some(true) { "available" } else { "not available" },
        f.governor
            .as_deref()
            .unwrap_or(if f.cpufreq_visible { "unknown" } else { "not visible (no cpufreq)" }),
    )
}

pub fn numa(out: &mut String, name: &str, took: &str, n: &NumaResults) -> std::fmt::Result {
    writeln!(
        out,
        "{name}: ok{took}: {} nodes, {} pages per placement",
        n.nodes.len(),
        n.pages
    )?;
    for p in &n.placements {
        writeln!(
            out,
            "  {}: {} thread(s), {}, pages per node {:?}",
            p.placement.name(),
            p.threads,
            ns(p.touch_ns),
            p.pages_per_node
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_pick_a_unit() {
        assert_eq!(ns(440.0), "440 ns");
        assert_eq!(ns(2324.0), "2.32 µs");
        assert_eq!(ns(17.84), "17.8 ns");
        assert_eq!(ns(3_637_000.0), "3.64 ms");
    }
}
