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
    let measured: Vec<Marker> = measured_tlbs(run)
        .into_iter()
        .map(|(level, low, high)| {
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
    let is_measured =
        |level: u8, page: u64| page == 4096 && measured_tlbs(run).iter().any(|m| m.0 == level);
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
/// entries held, the fewest clearly missed).
fn measured_tlbs(run: &RunFile) -> Vec<(u8, u64, u64)> {
    let Some(m) = run.tlb_reach().and_then(|t| t.measured.as_ref()) else {
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
}
