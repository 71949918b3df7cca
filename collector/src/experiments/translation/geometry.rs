//! What the machine says about its TLBs (CPUID) and caches (sysfs): the
//! bends a latency curve should show if the description is true. In a VM
//! CPUID is whatever the hypervisor passes through, so the curve may
//! disagree; both are recorded.

use std::fs;
use std::path::Path;

use pagewalk_model::{CacheLevel, CpuidLeaves, Geometry, TlbKind, TlbLevel};
use raw_cpuid::native_cpuid::cpuid_count;
use raw_cpuid::{Associativity, CpuId, CpuIdReader, DatType};

const KIB: u64 = 1024;
const PAGE_4K: u64 = 4 * KIB;
const PAGE_2M: u64 = 2 << 20;
const PAGE_1G: u64 = 1 << 30;

pub fn read() -> Geometry {
    let (tlb_source, tlbs) = tlbs();
    Geometry {
        tlb_source,
        tlbs,
        caches: caches(Path::new("/sys/devices/system/cpu/cpu0/cache")),
    }
}

fn tlbs() -> (String, Vec<TlbLevel>) {
    let id = CpuId::new();
    let vendor = id
        .get_vendor_info()
        .map(|v| v.as_str().to_string())
        .unwrap_or_default();
    match vendor.as_str() {
        "AuthenticAMD" | "HygonGenuine" => amd(&id, l2_tlb_counts_times_32()),
        "GenuineIntel" => intel(&id),
        other => (
            format!("CPUID: no TLB leaves decoded for vendor {other:?}"),
            Vec::new(),
        ),
    }
}

/// Whether leaf 0x8000_0006's L2 TLB counts are in units of 32: CPUID
/// 0x8000_0021 EAX bit 14, set from Zen 5 on (Linux reads it from commit
/// 228200f695c0, "x86/CPU/AMD: Fix Zen5 TLB sizes reporting"). Read
/// without it, a Zen 5's L2 dTLB claims 128 entries for its 4096.
fn l2_tlb_counts_times_32() -> bool {
    let max_extended = cpuid_count(0x8000_0000, 0).eax;
    max_extended >= 0x8000_0021 && cpuid_count(0x8000_0021, 0).eax & (1 << 14) != 0
}

/// AMD: leaves 0x8000_0005 (L1), 0x8000_0006 (L2) and 0x8000_0019 (1 GiB);
/// `l2_times_32`: the L2 counts are in units of 32
/// ([`l2_tlb_counts_times_32`]).
fn amd<R: CpuIdReader>(id: &CpuId<R>, l2_times_32: bool) -> (String, Vec<TlbLevel>) {
    let l2_scale: u32 = if l2_times_32 { 32 } else { 1 };
    let mut out = Vec::new();
    let mut add = |level, page_bytes, entries: u32, assoc: Option<Associativity>| {
        if entries > 0 {
            out.push(tlb(level, TlbKind::Data, page_bytes, entries, assoc));
        }
    };
    if let Some(l1) = id.get_l1_cache_and_tlb_info() {
        add(
            1,
            PAGE_4K,
            l1.dtlb_4k_size().into(),
            Some(l1.dtlb_4k_associativity()),
        );
        add(
            1,
            PAGE_2M,
            l1.dtlb_2m_4m_size().into(),
            Some(l1.dtlb_2m_4m_associativity()),
        );
    }
    if let Some(l2) = id.get_l2_l3_cache_and_tlb_info() {
        add(
            2,
            PAGE_4K,
            u32::from(l2.dtlb_4k_size()) * l2_scale,
            Some(l2.dtlb_4k_associativity()),
        );
        add(
            2,
            PAGE_2M,
            u32::from(l2.dtlb_2m_4m_size()) * l2_scale,
            Some(l2.dtlb_2m_4m_associativity()),
        );
    }
    if let Some(g) = id.get_tlb_1gb_page_info() {
        add(
            1,
            PAGE_1G,
            g.dtlb_l1_1gb_size().into(),
            Some(g.dtlb_l1_1gb_associativity()),
        );
        add(
            2,
            PAGE_1G,
            g.dtlb_l2_1gb_size().into(),
            Some(g.dtlb_l2_1gb_associativity()),
        );
    }
    let source = if l2_times_32 {
        "CPUID 0x80000005/0x80000006/0x80000019 (AMD; L2 counts x32, as 0x80000021 EAX bit 14 says)"
    } else {
        "CPUID 0x80000005/0x80000006/0x80000019 (AMD)"
    };
    (source.into(), out)
}

/// Intel: leaf 0x18 (deterministic address translation), else the leaf 0x2
/// descriptors.
fn intel<R: CpuIdReader>(id: &CpuId<R>) -> (String, Vec<TlbLevel>) {
    let mut out = Vec::new();
    if let Some(dat) = id.get_deterministic_address_translation_info() {
        for d in dat {
            let kind = match d.cache_type() {
                DatType::DataTLB | DatType::LoadOnly => TlbKind::Data,
                DatType::UnifiedTLB => TlbKind::Unified,
                _ => continue,
            };
            let entries = u32::from(d.ways()) * d.sets();
            let assoc = if d.is_fully_associative() {
                "fully associative".to_string()
            } else {
                format!("{}-way", d.ways())
            };
            let sizes = [
                (d.has_4k_entries(), PAGE_4K),
                (d.has_2mb_entries(), PAGE_2M),
                (d.has_1gb_entries(), PAGE_1G),
            ];
            for (_, page) in sizes.into_iter().filter(|(has, _)| *has) {
                out.push(TlbLevel {
                    level: d.cache_level(),
                    kind,
                    page_bytes: page,
                    entries,
                    associativity: Some(assoc.clone()),
                });
            }
        }
        if !out.is_empty() {
            return ("CPUID 0x18 (Intel)".into(), out);
        }
    }
    if let Some(info) = id.get_cache_info() {
        for c in info {
            out.extend(leaf2_descriptor(c.desc()));
        }
    }
    ("CPUID 0x2 descriptors (Intel)".into(), out)
}

/// Reads a leaf-0x2 TLB descriptor such as `Data TLB: 4 KByte pages, 4-way
/// set associative, 64 entries` or `Shared 2nd-Level TLB: 4 KByte/2MByte
/// pages, 8-way associative, 1024 entries`. Instruction TLBs and anything
/// that is not a TLB give nothing.
fn leaf2_descriptor(desc: &str) -> Vec<TlbLevel> {
    let (head, rest) = desc.split_once(':').unwrap_or(("", ""));
    let shared = head.contains("Shared 2nd-Level TLB") || head.contains("STLB");
    let data = head.contains("Data TLB") || head.starts_with("DTLB") || head.starts_with("uTLB");
    if !(shared || data) {
        return Vec::new();
    }
    // The first array only (a few descriptors describe a second one).
    let first = rest.split(" and a separate").next().unwrap_or(rest);
    let words: Vec<&str> = first.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let Some(entries) = words
        .iter()
        .position(|w| *w == "entries")
        .and_then(|i| words.get(i.checked_sub(1)?))
        .and_then(|w| w.parse::<u32>().ok())
    else {
        return Vec::new();
    };
    let compact: String = first.chars().filter(|c| !c.is_whitespace()).collect();
    let mut pages = Vec::new();
    if compact.contains("4KByte") || compact.contains("4k") {
        pages.push(PAGE_4K);
    }
    if compact.contains("2MByte") || compact.contains("2-MByte") || compact.contains("2M") {
        pages.push(PAGE_2M);
    }
    if compact.contains("1GByte") {
        pages.push(PAGE_1G);
    }
    let assoc = if compact.contains("fullyassociative") {
        Some("fully associative".to_string())
    } else {
        words
            .iter()
            .find_map(|w| w.strip_suffix("-way"))
            .map(|n| format!("{n}-way"))
    };
    pages
        .into_iter()
        .map(|page| TlbLevel {
            level: if shared { 2 } else { 1 },
            kind: if shared {
                TlbKind::Unified
            } else {
                TlbKind::Data
            },
            page_bytes: page,
            entries,
            associativity: assoc.clone(),
        })
        .collect()
}

fn tlb(
    level: u8,
    kind: TlbKind,
    page_bytes: u64,
    entries: u32,
    a: Option<Associativity>,
) -> TlbLevel {
    TlbLevel {
        level,
        kind,
        page_bytes,
        entries,
        associativity: a.and_then(|a| match a {
            Associativity::NWay(n) => Some(format!("{n}-way")),
            Associativity::FullyAssociative => Some("fully associative".into()),
            Associativity::DirectMapped => Some("direct mapped".into()),
            _ => None,
        }),
    }
}

/// The raw leaves behind [`read`]'s TLB figures, registers as returned:
/// the evidence when CPUID is silent (leaf 0x2 saying "see leaf 0x18",
/// leaf 0x18 all zeros) or claims something the curves do not show.
pub fn cpuid_leaves() -> CpuidLeaves {
    let regs = |leaf: u32| {
        let r = cpuid_count(leaf, 0);
        [r.eax, r.ebx, r.ecx, r.edx]
    };
    let [max_basic, b, c, d] = regs(0);
    let vendor: String = [b, d, c]
        .iter()
        .flat_map(|r| r.to_le_bytes())
        .map(char::from)
        .filter(char::is_ascii_graphic)
        .collect();
    let max_extended = regs(0x8000_0000)[0];
    let basic = |leaf: u32| (max_basic >= leaf).then(|| regs(leaf).to_vec());
    let extended = |leaf: u32| (max_extended >= leaf).then(|| regs(leaf).to_vec());
    CpuidLeaves {
        vendor,
        max_basic_leaf: max_basic,
        max_extended_leaf: max_extended,
        leaf_0x2_descriptors: basic(2).map(|r| leaf2_bytes(&r)),
        leaf_0x18: basic(0x18),
        leaf_0x80000005: extended(0x8000_0005),
        leaf_0x80000006: extended(0x8000_0006),
        leaf_0x80000019: extended(0x8000_0019),
    }
}

/// Leaf 0x2's descriptor bytes: each register's four bytes, low first,
/// less AL (the iteration count, always 1), null descriptors, and any
/// register whose bit 31 says it holds none.
fn leaf2_bytes(regs: &[u32]) -> Vec<u8> {
    regs.iter()
        .enumerate()
        .filter(|(_, r)| *r & (1 << 31) == 0)
        .flat_map(|(i, r)| r.to_le_bytes().into_iter().skip(usize::from(i == 0)))
        .filter(|&b| b != 0)
        .collect()
}

/// `(level, number_of_sets, ways_of_associativity)` of each data or
/// unified cache under sysfs: which set a line lands in, and how many it
/// holds, is the premise of tlb-reach's and walk's layouts.
pub fn data_cache_sets() -> Vec<(u8, u64, u64)> {
    let dir = Path::new("/sys/devices/system/cpu/cpu0/cache");
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(u8, u64, u64)> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("index"))
        .filter_map(|e| {
            let read = |f: &str| fs::read_to_string(e.path().join(f)).ok();
            if read("type")?.trim() == "Instruction" {
                return None;
            }
            Some((
                read("level")?.trim().parse().ok()?,
                read("number_of_sets")?.trim().parse().ok()?,
                read("ways_of_associativity")?.trim().parse().ok()?,
            ))
        })
        .collect();
    out.sort_unstable();
    out
}

/// `index*/{level,type,size}` under `dir`, in level order.
fn caches(dir: &Path) -> Vec<CacheLevel> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<CacheLevel> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("index"))
        .filter_map(|e| {
            let read = |f: &str| fs::read_to_string(e.path().join(f)).ok();
            Some(CacheLevel {
                level: read("level")?.trim().parse().ok()?,
                kind: read("type")?.trim().to_string(),
                size_bytes: parse_cache_size(&read("size")?)?,
            })
        })
        .collect();
    out.sort_by(|a, b| (a.level, &a.kind).cmp(&(b.level, &b.kind)));
    out
}

/// sysfs cache sizes: `32K`, `1024K`, `32M`.
fn parse_cache_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (num, mult) = match t.chars().last()? {
        'K' => (&t[..t.len() - 1], KIB),
        'M' => (&t[..t.len() - 1], KIB * KIB),
        'G' => (&t[..t.len() - 1], KIB * KIB * KIB),
        _ => (t, 1),
    };
    Some(num.parse::<u64>().ok()? * mult)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An AMD core whose leaf 0x8000_0006 says 128 L2 dTLB entries for
    /// 4 KiB pages and 64 for 2 MiB ones (a Zen 5's raw fields).
    fn zen5_like(eax: u32, _subleaf: u32) -> raw_cpuid::CpuIdResult {
        let (ebx, ecx, edx) = match eax {
            // "AuthenticAMD", in EBX, EDX, ECX.
            0 => (0x6874_7541, 0x444d_4163, 0x6974_6e65),
            _ => (0, 0, 0),
        };
        let r = |eax, ebx, ecx, edx| raw_cpuid::CpuIdResult { eax, ebx, ecx, edx };
        match eax {
            0 => r(0x10, ebx, ecx, edx),
            0x8000_0000 => r(0x8000_0021, 0, 0, 0),
            // EAX: 2 MiB dTLB in bits 27:16, EBX: 4 KiB dTLB in bits 27:16,
            // associativity code 6 (8-way) in bits 31:28.
            0x8000_0006 => r(0x6040_0000, 0x6080_0000, 0, 0),
            _ => r(0, 0, 0, 0),
        }
    }

    #[test]
    fn zen5_l2_tlb_counts_are_in_units_of_32_when_the_bit_says_so() {
        let id = CpuId::with_cpuid_fn(zen5_like);
        let l2 = |tlbs: &[TlbLevel], page| {
            tlbs.iter()
                .find(|t| t.level == 2 && t.page_bytes == page)
                .map(|t| t.entries)
        };
        let (_, raw) = amd(&id, false);
        assert_eq!(
            (l2(&raw, PAGE_4K), l2(&raw, PAGE_2M)),
            (Some(128), Some(64))
        );
        let (source, scaled) = amd(&id, true);
        assert_eq!(
            (l2(&scaled, PAGE_4K), l2(&scaled, PAGE_2M)),
            (Some(4096), Some(2048))
        );
        assert!(source.contains("x32"), "{source}");
    }

    #[test]
    fn leaf2_descriptors() {
        let d = leaf2_descriptor("Data TLB: 4 KByte pages, 4-way set associative, 64 entries");
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].level, d[0].entries, d[0].page_bytes),
            (1, 64, PAGE_4K)
        );
        assert_eq!(d[0].associativity.as_deref(), Some("4-way"));
        let s = leaf2_descriptor(
            "Shared 2nd-Level TLB: 4 KByte/2MByte pages, 8-way associative, 1024 entries",
        );
        assert_eq!(s.len(), 2);
        assert!(s.iter().all(|t| t.level == 2 && t.entries == 1024));
        assert_eq!(s[1].page_bytes, PAGE_2M);
        let h = leaf2_descriptor("Data TLB: 4 KByte and 4 MByte pages,128 entries");
        assert_eq!(h[0].entries, 128);
        assert!(leaf2_descriptor(
            "Instruction TLB: 4 KByte pages, 4-way set associative, 32 entries"
        )
        .is_empty());
        assert!(leaf2_descriptor(
            "1st-level data cache: 32 KBytes, 8-way set associative, 64 byte line size"
        )
        .is_empty());
    }

    #[test]
    fn leaf2_bytes_drop_the_count_and_invalid_registers() {
        // The Xeon guest: AL = 1, then 0xff ("see leaf 4") and 0xfe ("see
        // leaf 0x18"), nothing else.
        assert_eq!(leaf2_bytes(&[0x00fe_ff01, 0, 0, 0]), vec![0xff, 0xfe]);
        // A register with bit 31 set holds no descriptors.
        assert_eq!(
            leaf2_bytes(&[0x0000_5a01, 0x8000_00b1, 0x0000_0063, 0]),
            vec![0x5a, 0x63]
        );
    }

    #[test]
    fn this_machine_s_cpuid_leaves_read() {
        let c = cpuid_leaves();
        assert_eq!(c.vendor.len(), 12, "{:?}", c.vendor);
        assert!(c.max_basic_leaf >= 1);
        assert_eq!(c.leaf_0x18.is_some(), c.max_basic_leaf >= 0x18);
        assert!(c.leaf_0x18.as_ref().is_none_or(|r| r.len() == 4));
    }

    #[test]
    fn cache_sizes() {
        assert_eq!(parse_cache_size("32K\n"), Some(32 * KIB));
        assert_eq!(parse_cache_size("32768K"), Some(32 << 20));
        assert_eq!(parse_cache_size("2M"), Some(2 << 20));
        assert_eq!(parse_cache_size("x"), None);
    }

    #[test]
    fn this_machine_describes_itself() {
        let g = read();
        assert!(!g.tlb_source.is_empty());
        for t in &g.tlbs {
            assert!(t.entries > 0 && t.reach_bytes() >= t.page_bytes, "{t:?}");
        }
    }
}
