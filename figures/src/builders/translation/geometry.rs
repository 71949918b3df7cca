//! The machine's geometry on a chart: markers at its cache sizes and TLB
//! reaches, and sizes in binary units.

use pagewalk_model::{Geometry, RunFile};

use crate::spec::{Marker, MarkerKind};

/// Markers at the cache sizes and the TLB reaches, tagged in a few letters
/// (`L1d`, `L2`, `dTLB`, `STLB`, with the page size where it is not 4 KiB)
/// and described in full for the tooltip. `cache_x` places a cache of so
/// many bytes; `tlb_x(entries, page bytes)` a TLB level. A 4 KiB TLB level
/// that the run's own tlb-reach curves measured is marked where they put
/// it, not where CPUID says (CPUID is a claim; a hypervisor may zero or
/// shrink it); CPUID's figure is used for the rest.
pub(super) fn geometry_markers(
    run: &RunFile,
    g: &Geometry,
    cache_x: impl Fn(u64) -> f64,
    tlb_x: impl Fn(u64, u64) -> u64,
) -> Vec<Marker> {
    let levels = measured_tlbs(run);
    let measured: Vec<Marker> = levels
        .iter()
        .map(|&(level, low, high)| {
            let tag = if level == 1 { "dTLB" } else { "STLB" };
            // Between the last size it held and the first it had clearly
            // missed: the geometric middle, on these log axes.
            let entries = ((low as f64) * (high as f64)).sqrt().round() as u64;
            Marker {
                x: tlb_x(entries, 4096) as f64,
                label: format!(
                    "{} reach, measured by this run: between {low} and {high} entries × 4 KiB ({} to {})",
                    if level == 1 { "L1 dTLB" } else { "L2 TLB (STLB)" },
                    size_label(low * 4096),
                    size_label(high * 4096)
                ),
                kind: MarkerKind::Tlb,
                tag: tag.to_string(),
            }
        })
        .collect();
    let is_measured = |level: u8, page: u64| page == 4096 && levels.iter().any(|m| m.0 == level);
    let caches = g
        .caches
        .iter()
        .filter(|c| c.kind != "Instruction")
        .map(|c| {
            let tag = if c.level == 1 {
                "L1d".to_string()
            } else {
                format!("L{}", c.level)
            };
            Marker {
                x: cache_x(c.size_bytes),
                label: format!("{tag} cache: {}", size_label(c.size_bytes)),
                kind: MarkerKind::Cache,
                tag,
            }
        });
    let tlbs = g
        .tlbs
        .iter()
        .filter(|t| t.kind != pagewalk_model::TlbKind::Instruction)
        .filter(|t| !is_measured(t.level, t.page_bytes))
        .map(|t| {
            let level = if t.level == 1 { "dTLB" } else { "STLB" };
            let tag = if t.page_bytes == 4096 {
                level.to_string()
            } else {
                format!("{level} {}", page_tag(t.page_bytes))
            };
            Marker {
                x: tlb_x(u64::from(t.entries), t.page_bytes) as f64,
                label: format!(
                    "{} reach: {} entries × {} = {}",
                    if t.level == 1 {
                        "L1 dTLB"
                    } else {
                        "L2 TLB (STLB)"
                    },
                    t.entries,
                    size_label(t.page_bytes),
                    size_label(u64::from(t.entries) * t.page_bytes)
                ),
                kind: MarkerKind::Tlb,
                tag,
            }
        });
    caches.chain(tlbs).chain(measured).collect()
}

/// The 4 KiB TLB levels the run's tlb-reach measured: (level, the most
/// entries held, the fewest clearly missed). Recorded from schema 6; for an
/// older run, with `read-old-runs`, read off its curves by the function the
/// book's text uses (`pagewalk_analysis::measured::of_run`), so chart and
/// sentence agree.
fn measured_tlbs(run: &RunFile) -> Vec<(u8, u64, u64)> {
    let Some(t) = run.tlb_reach() else {
        return Vec::new();
    };
    #[cfg(feature = "read-old-runs")]
    let (m, _) = pagewalk_analysis::measured::of_run(t);
    #[cfg(not(feature = "read-old-runs"))]
    let Some(m) = t.measured.as_ref() else {
        return Vec::new();
    };
    m.tlbs
        .iter()
        .filter(|t| t.page_bytes == 4096 && t.figure.measured())
        .filter_map(|t| Some((t.level, t.entries_low?, t.entries_high?)))
        .filter(|(_, low, high)| *low > 0 && high >= low)
        .collect()
}

/// Why a translation chart has no TLB marker, when it has none.
pub(super) fn no_tlb_note(markers: &[Marker]) -> Option<String> {
    (!markers.iter().any(|m| m.kind == MarkerKind::Tlb)).then(|| {
        "no TLB reach is marked: this run's CPUID reported no TLB sizes and its curves did not measure one".to_string()
    })
}

/// `2M`, `1G`: a page size in a tag.
fn page_tag(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{}G", b >> 30),
        b if b >= 1 << 20 => format!("{}M", b >> 20),
        b => format!("{}K", b >> 10),
    }
}

/// `256MiB`: a stable category key.
pub(super) fn size_key(bytes: u64) -> String {
    size_label(bytes).replace(' ', "")
}

/// Binary units, trimmed: `4 KiB`, `1.25 MiB`, `1 GiB`.
pub fn size_label(bytes: u64) -> String {
    pagewalk_model::units::bytes(bytes as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builders::fixtures::committed;

    #[test]
    fn a_measured_level_is_marked_where_the_curves_put_it_not_where_cpuid_says() {
        let run = committed("example");
        let t = run.tlb_reach().unwrap();
        let m = t.measured.as_ref().unwrap().tlb(2).unwrap();
        let (low, high) = (m.entries_low.unwrap(), m.entries_high.unwrap());
        let markers = geometry_markers(&run, &t.geometry, |b| b as f64, |e, p| e * p);
        let stlb: Vec<&Marker> = markers.iter().filter(|m| m.tag == "STLB").collect();
        assert_eq!(stlb.len(), 1, "{markers:?}");
        let x = stlb[0].x;
        assert!((low * 4096) as f64 <= x && x <= (high * 4096) as f64, "{x}");
        assert!(stlb[0].label.contains("measured"), "{}", stlb[0].label);
        assert!(no_tlb_note(&markers).is_none());
        // CPUID's own figure for that level is not drawn beside it.
        if let Some(c) = m.cpuid_entries.filter(|&c| u64::from(c) > high) {
            assert!(markers.iter().all(|k| k.x != (u64::from(c) * 4096) as f64));
        }
    }

    /// The Intel guest's hypervisor zeroes CPUID leaf 0x18 and its run
    /// (schema 5) recorded no measured geometry: its charts mark the TLB
    /// levels its curves give, the same levels the book's text reads off
    /// them with `measured::of_run`.
    #[cfg(feature = "read-old-runs")]
    #[test]
    fn a_run_that_recorded_no_measurement_is_marked_where_its_curves_put_it() {
        let path = format!(
            "{}/../data/machines/intel-xeon-emr-16vcpu-kvm.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let run = pagewalk_model::read_run(std::path::Path::new(&path)).unwrap();
        let t = run.tlb_reach().unwrap();
        assert!(
            t.measured.is_none(),
            "the fixture is a run without `measured`"
        );
        let (m, recorded) = pagewalk_analysis::measured::of_run(t);
        assert!(!recorded);
        let markers = geometry_markers(&run, &t.geometry, |b| b as f64, |e, p| e * p);
        for (level, tag) in [(1, "dTLB"), (2, "STLB")] {
            let l = m.tlb(level).unwrap();
            let (low, high) = (l.entries_low.unwrap(), l.entries_high.unwrap());
            let at: Vec<&Marker> = markers.iter().filter(|m| m.tag == tag).collect();
            assert_eq!(at.len(), 1, "{tag}: {markers:?}");
            let x = at[0].x;
            assert!(
                (low * 4096) as f64 <= x && x <= (high * 4096) as f64,
                "{tag} at {x}"
            );
            assert!(
                at[0].label.contains("measured by this run"),
                "{}",
                at[0].label
            );
            assert!(at[0]
                .label
                .contains(&format!("between {low} and {high} entries")));
        }
        assert!(no_tlb_note(&markers).is_none());
    }
}
