//! Summary lines for the experiments of `Group::Translation` (staircase,
//! tlb-reach, thp, walk, mlp): the curves at a glance, the steps found, and where
//! they disagree with what CPUID says.

use std::fmt::Write;

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{CellAlignment, Table};
use pagewalk_model::{
    Agreement, ChasePoint, CounterStatus, Curve, Geometry, MeasuredGeometry, MlpRegion, MlpResults,
    Regime, StaircaseResults, Step, ThpResults, TlbReachResults, TlbReachUsed, WalkResults,
};

use crate::guard::human;

pub fn staircase(out: &mut String, name: &str, took: &str, s: &StaircaseResults) {
    let _ = writeln!(
        out,
        "{name}: ok{took}: {} to {}, {} repetition(s), ns per load (medians)",
        human(
            s.curves
                .iter()
                .filter_map(|c| c.points.first())
                .map(|p| p.region_bytes)
                .min()
                .unwrap_or(0)
        ),
        human(s.max_bytes.unwrap_or(0)),
        s.repetitions.unwrap_or(0)
    );
    if let Some(note) = &s.size_note {
        let _ = writeln!(out, "  size: {note}");
    }
    let bytes = |p: &ChasePoint| p.region_bytes as f64;
    curves(out, &s.curves, bytes, &|x| human(x as u64));
    steps(
        out,
        &s.steps,
        &|x| human(x as u64),
        &s.agreement,
        &s.geometry,
    );
    counters(out, s.counters.as_ref());
}

pub fn tlb_reach(out: &mut String, name: &str, took: &str, t: &TlbReachResults) {
    let _ = writeln!(
        out,
        "{name}: ok{took}: one line per page, data <= {}, {} repetition(s), ns per load (medians)",
        human(t.data_limit_bytes),
        t.repetitions
    );
    if let Some(note) = &t.size_note {
        let _ = writeln!(out, "  size: {note}");
    }
    let pages = |p: &ChasePoint| p.pages.unwrap_or(0) as f64;
    curves(out, &t.curves, pages, &|x| format!("{x} pages"));
    steps(
        out,
        &t.steps,
        &|x| format!("{x:.0} pages"),
        &t.agreement,
        &t.geometry,
    );
    if let Some(m) = &t.measured {
        measured(out, m);
    }
    counters(out, t.counters.as_ref());
}

/// Each TLB level as the curves measured it, and the figure used.
fn measured(out: &mut String, m: &MeasuredGeometry) {
    if let Some(why) = &m.not_read {
        let _ = writeln!(out, "  measured TLBs: none ({why})");
    }
    for t in &m.tlbs {
        let name = if t.level == 1 { "L1 dTLB" } else { "L2 TLB" };
        let _ = writeln!(out, "  {name} [{}]: {}", t.figure.name(), t.why);
    }
    if let Some(note) = &m.note {
        let _ = writeln!(out, "  {note}");
    }
}

/// The L2 TLB reach an experiment sized itself from.
fn sized_from(out: &mut String, u: &TlbReachUsed) {
    let bounds = match u.entries_high {
        Some(h) if h != u.entries_low => format!("{}-{h} entries", u.entries_low),
        Some(h) => format!("{h} entries"),
        None => format!("at least {} entries", u.entries_low),
    };
    let _ = writeln!(
        out,
        "  sized from the L2 TLB's {bounds} ({}): {}",
        u.source.name(),
        u.note
    );
}

/// Both regimes side by side at every power-of-two x (the full curve is in
/// the file and the book).
fn curves(
    out: &mut String,
    curves: &[Curve],
    x: fn(&ChasePoint) -> f64,
    label: &dyn Fn(f64) -> String,
) {
    let of = |r: Regime| curves.iter().find(|c| c.regime == r);
    let small = of(Regime::Small).map_or(&[][..], |c| &c.points);
    let huge = of(Regime::Huge).map_or(&[][..], |c| &c.points);
    let gigantic = of(Regime::Gigantic).filter(|c| !c.points.is_empty());
    let mut table = table(if gigantic.is_some() {
        &["1 GiB pages"]
    } else {
        &[]
    });
    for p in small.iter().filter(|p| (x(p) as u64).is_power_of_two()) {
        let h = same_x(huge, x, p);
        let mut row = vec![label(x(p)), ns(Some(p)), ns(h), huge_backed(h)];
        row.extend(gigantic.map(|g| ns(same_x(&g.points, x, p))));
        table.add_row(row);
    }
    for i in 1..5 {
        if let Some(col) = table.column_mut(i) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
    let _ = writeln!(out, "{table}");
    for c in curves.iter().filter(|c| c.regime != Regime::Gigantic) {
        if let Some(between) = c.typical_between_mapping_spread() {
            let within = c
                .typical_within_mapping_spread()
                .map_or("one sample in each, so no spread within one".into(), |w| {
                    format!("its repetitions within one {:.1}%", w * 100.0)
                });
            let _ = writeln!(
                out,
                "  {}: a point's fresh mappings typically spread {:.1}%, {within}",
                c.regime.label(),
                between * 100.0
            );
        }
    }
    for c in curves.iter().filter(|c| c.skipped.is_some()) {
        let _ = writeln!(
            out,
            "  {} skipped: {}",
            c.regime.label(),
            c.skipped.as_deref().unwrap_or("")
        );
    }
}

/// The point of `points` at `p`'s x.
fn same_x<'a>(
    points: &'a [ChasePoint],
    x: fn(&ChasePoint) -> f64,
    p: &ChasePoint,
) -> Option<&'a ChasePoint> {
    points.iter().find(|q| x(q) == x(p))
}

/// A size column and both regimes side by side, then the `more` columns.
fn table(more: &[&str]) -> Table {
    let mut table = Table::new();
    let header = ["size", "4 KiB pages", "huge pages", "huge-backed"];
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_header(header.iter().chain(more).collect::<Vec<_>>());
    table
}

/// The median ns per load, or `-` where the point was not measured.
fn ns(p: Option<&ChasePoint>) -> String {
    p.map_or("-".into(), |p| format!("{:.1}", p.ns_per_load.median))
}

/// How much of the region huge pages backed, or `-` where unknown.
fn huge_backed(p: Option<&ChasePoint>) -> String {
    p.and_then(|p| p.huge_fraction)
        .map_or("-".into(), |f| format!("{:.0}%", f * 100.0))
}

fn steps(
    out: &mut String,
    steps: &[Step],
    label: &dyn Fn(f64) -> String,
    agreement: &[Agreement],
    g: &Geometry,
) {
    for s in steps {
        let _ = writeln!(
            out,
            "  step ({}) at {}: {:.1} -> {:.1} ns, {:?}{}",
            s.regime.name(),
            label(s.at_x),
            s.ns_before,
            s.ns_after,
            s.kind,
            s.matches
                .as_deref()
                .map_or(String::new(), |m| format!(", near {m}"))
        );
    }
    let tlbs: Vec<String> = g
        .tlbs
        .iter()
        .map(|t| format!("L{} {} x {}", t.level, t.entries, human(t.page_bytes)))
        .collect();
    let _ = writeln!(out, "  {}: {}", g.tlb_source, tlbs.join(", "));
    let missed: Vec<&str> = agreement
        .iter()
        .filter(|a| !a.agrees)
        .map(|a| a.what.as_str())
        .collect();
    if !missed.is_empty() {
        let _ = writeln!(
            out,
            "  no measured step of the predicted kind near: {}",
            missed.join("; ")
        );
    }
}

fn counters(out: &mut String, c: Option<&CounterStatus>) {
    if let Some(c) = c.filter(|c| !c.dtlb_load_misses.available) {
        let _ = writeln!(out, "  dTLB counter: {}", c.dtlb_load_misses.detail);
    }
}

pub fn thp(out: &mut String, name: &str, took: &str, t: &ThpResults) {
    let _ = writeln!(
        out,
        "{name}: ok{took}: THP enabled={} defrag={}, {} repetition(s), ns per load (medians)",
        t.settings.enabled.as_deref().unwrap_or("absent"),
        t.settings.defrag.as_deref().unwrap_or("absent"),
        t.repetitions.unwrap_or(0)
    );
    let mut table = table(&["MADV_COLLAPSE"]);
    for s in &t.sizes {
        let huge = s.huge.as_ref();
        table.add_row(vec![
            human(s.size_bytes),
            ns(s.small.as_ref()),
            ns(huge),
            huge_backed(huge),
            huge.and_then(|h| h.collapse.as_ref())
                .map_or("-".into(), |c| {
                    if c.ok {
                        "ok".into()
                    } else {
                        c.errno.clone().unwrap_or_default()
                    }
                }),
        ]);
    }
    let _ = writeln!(out, "{table}");
    if let Some(m) = &t.memory_before {
        let _ = writeln!(
            out,
            "  free 2 MiB+ blocks before: {}",
            m.blocks_available(9)
        );
    }
    if let Some(h) = &t.hugetlb {
        let _ = writeln!(out, "  MAP_HUGETLB: {}", h.outcome);
    }
}

/// ns per load per chain count, each region a column, then `t(1)/t(k)`.
pub fn mlp(out: &mut String, name: &str, took: &str, m: &MlpResults) {
    let _ = writeln!(
        out,
        "{name}: ok{took}: k independent chains, ns per load (medians of {} repetition(s)), t(1)/t(k) in brackets",
        m.repetitions
    );
    if let Some(note) = &m.size_note {
        let _ = writeln!(out, "  size: {note}");
    }
    let mut table = Table::new();
    let mut header = vec!["chains".to_string()];
    header.extend(
        m.regions
            .iter()
            .map(|r| format!("{}\n{}", r.region.label(), human(r.bytes))),
    );
    table.load_style(UTF8_FULL_CONDENSED).set_header(header);
    for &k in &m.chains {
        let mut row = vec![k.to_string()];
        for r in &m.regions {
            let one = r.point(1).map(|p| p.ns_per_load.median);
            row.push(match r.point(k) {
                Some(p) => {
                    let t = p.ns_per_load.median;
                    match one.filter(|_| t > 0.0) {
                        Some(one) => format!("{t:.1} ({:.1}x)", one / t),
                        None => format!("{t:.1}"),
                    }
                }
                None => "-".into(),
            });
        }
        table.add_row(row);
    }
    let _ = writeln!(out, "{table}");
    if let Some(u) = &m.l2_tlb {
        sized_from(out, u);
    }
    for r in &m.regions {
        match (&r.skipped, r.huge_fraction) {
            (Some(why), _) => {
                let _ = writeln!(out, "  {} skipped: {why}", r.region.label());
            }
            (None, Some(f)) if r.region == MlpRegion::Huge => {
                let _ = writeln!(out, "  huge region: {:.0}% on huge pages", f * 100.0);
            }
            _ => {}
        }
    }
}

/// ns per load per stride, both page sizes, and the counters or why none.
pub fn walk(out: &mut String, name: &str, took: &str, w: &WalkResults) {
    let _ = writeln!(
        out,
        "{name}: ok{took}: one load per page, {} pages on 4 KiB pages and {} huge pages, random order, ns per load (medians)",
        w.pages, w.huge_pages
    );
    if let Some(note) = &w.size_note {
        let _ = writeln!(out, "  size: {note}");
    }
    if let Some(u) = &w.l2_tlb {
        sized_from(out, u);
    }
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED).set_header(vec![
        "stride",
        "4 KiB pages",
        "huge pages",
        "page tables\nKiB (4 KiB)",
        "dTLB misses\nper load",
    ]);
    let mut strides: Vec<u64> = w.points.iter().map(|p| p.stride_bytes).collect();
    strides.sort_unstable();
    strides.dedup();
    for s in strides {
        let cell = |r: Regime| {
            w.point(r, s)
                .map_or("-".to_string(), |p| match (&p.skipped, &p.ns_per_load) {
                    (Some(_), _) => "skipped".into(),
                    (None, Some(n)) => format!("{:.1}", n.median),
                    (None, None) => "-".into(),
                })
        };
        let small = w.point(Regime::Small, s);
        table.add_row(vec![
            human(s),
            cell(Regime::Small),
            cell(Regime::Huge),
            small
                .and_then(|p| p.page_table_kib)
                .map_or("-".into(), |k| k.to_string()),
            small
                .and_then(|p| p.per_load(p.dtlb_misses))
                .map_or("-".into(), |x| format!("{x:.2}")),
        ]);
    }
    let _ = writeln!(out, "{table}");
    for p in w.points.iter().filter(|p| p.skipped.is_some()) {
        let _ = writeln!(
            out,
            "  {} {} skipped: {}",
            human(p.stride_bytes),
            p.regime.label(),
            p.skipped.as_deref().unwrap_or("")
        );
    }
    let _ = writeln!(out, "  counters: {}", w.counters.detail);
}
