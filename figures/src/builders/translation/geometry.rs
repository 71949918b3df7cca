//! The machine's geometry on a chart: markers at its cache sizes and TLB
//! reaches, and sizes in binary units.

use pagewalk_model::Geometry;

use crate::spec::{Marker, MarkerKind};

/// Markers at the cache sizes and the TLB reaches, tagged in a few letters
/// (`L1d`, `L2`, `dTLB`, `STLB`, with the page size where it is not 4 KiB)
/// and described in full for the tooltip. `cache_x` places a cache of so
/// many bytes; `tlb_x(entries, page bytes)` a TLB level.
pub(super) fn geometry_markers(
    g: &Geometry,
    cache_x: impl Fn(u64) -> f64,
    tlb_x: impl Fn(u64, u64) -> u64,
) -> Vec<Marker> {
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
    caches.chain(tlbs).collect()
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
