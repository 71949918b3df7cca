//! Where walk's pages live: one reserved range, page `i` a stride in, its
//! table entry and its line varying from page to page so that neither the
//! page tables' lines nor the data's crowd into a few cache sets.

use pagewalk_analysis::layout;
use pagewalk_model::Regime;

use super::super::region::{errno_name, human};
use super::strides::{GIB, HUGE, PAGE};
use crate::{guard, procfs};

/// Odd: the line's multiplier (tlb-reach's too).
const LINE_STEP: u64 = 13;

/// Where page `i` of a layout with `stride` lives, from the start of the
/// range: `i` strides in, then a table entry (odd steps, so 512 neighbours
/// take them all) and the line [`layout::line`] gives. The line folds the
/// page number's higher bits in: on physically contiguous memory (a huge
/// page) the set bits above 4 KiB are the offset's own, and a line that
/// followed `i mod 64` alone put the 4 KiB stride's lines, and the wide
/// strides' (whose entry steps also repeat every 64 pages in the set
/// bits), in 64 sets of the L2.
pub fn offset(i: u64, stride: u64) -> u64 {
    let line = layout::line(i, LINE_STEP) * layout::LINE;
    let pte = if stride >= HUGE {
        (i * 37) % 512 * PAGE
    } else {
        0
    };
    let pmd = if stride >= GIB {
        (i * 41) % 512 * HUGE
    } else {
        0
    };
    i * stride + pmd + pte + line
}

/// The line page `i`'s load falls in within its 2 MiB frame: what picks
/// its set in a cache of up to 2^15 sets whatever frame the page is on,
/// when the frame is a huge page.
pub fn line_in_frame(i: u64, stride: u64) -> u64 {
    offset(i, stride) % HUGE / layout::LINE
}

/// The page-table pages a layout needs on top of what the range's
/// neighbours share: one per distinct table at each level the walk reads
/// (PTE tables only on 4 KiB pages), in KiB.
pub fn predicted_tables_kib(pages: u64, stride: u64, regime: Regime) -> u64 {
    let distinct = |shift: u32| {
        let mut v: Vec<u64> = (0..pages).map(|i| offset(i, stride) >> shift).collect();
        v.dedup();
        v.len() as u64
    };
    let pte = if regime == Regime::Small {
        distinct(21)
    } else {
        0
    };
    (pte + distinct(30) + distinct(39)) * 4
}

/// One reserved range, unmapped on drop.
pub struct Range {
    base: *mut u8,
    pub len: usize,
    pub start: *mut u8,
}

impl Range {
    /// `pages` pages of `stride` in a `MAP_NORESERVE` range aligned to the
    /// stride (so page `i` is in table `i` of its level), advised for the
    /// regime.
    pub fn map(
        pages: u64,
        stride: u64,
        regime: Regime,
        overcommit: Option<u32>,
    ) -> Result<Range, String> {
        let align = stride.max(HUGE);
        let span = pages * stride;
        let len = span + align;
        if let Some(a) = guard::address_space() {
            if len > a.limit.saturating_sub(a.used) {
                return Err(format!(
                    "needs {} of address space, and RLIMIT_AS ({}) leaves {}",
                    human(len as usize),
                    human(a.limit as usize),
                    human(a.limit.saturating_sub(a.used) as usize)
                ));
            }
        }
        let len = usize::try_from(len).map_err(|_| "the range exceeds usize".to_string())?;
        let base = crate::mapping::anonymous(len, libc::MAP_NORESERVE).map_err(|e| {
            let why = if overcommit == Some(2) {
                " (vm.overcommit_memory=2 ignores MAP_NORESERVE)"
            } else {
                ""
            };
            format!(
                "mmap of {} with MAP_NORESERVE: {} ({e}){why}",
                human(len),
                errno_name(&e)
            )
        })?;
        let start = base.wrapping_add(base.align_offset(align as usize));
        let range = Range { base, len, start };
        let advice = match regime {
            Regime::Small => libc::MADV_NOHUGEPAGE,
            Regime::Huge => libc::MADV_HUGEPAGE,
            Regime::Gigantic => unreachable!("walk times 4 KiB and THP ranges only"),
        };
        // SAFETY: [start, start + span) lies inside the mapping.
        if unsafe { libc::madvise(start.cast(), span as usize, advice) } != 0 {
            return Err(format!("madvise: {}", std::io::Error::last_os_error()));
        }
        Ok(range)
    }

    pub fn at(&self, i: u64, stride: u64) -> *mut usize {
        self.start.wrapping_add(offset(i, stride) as usize).cast()
    }
}

impl Drop for Range {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly what `map` mapped.
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

/// `VmPTE` of this process, KiB.
pub fn vm_pte_kib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    procfs::parse_kib_fields(&text).get("VmPTE").copied()
}

#[cfg(test)]
mod tests {
    use super::super::strides::SMALL_STRIDES;
    use super::*;

    const KIB: u64 = 1024;

    #[test]
    fn strides_spread_the_entries_level_by_level() {
        // 4 KiB: 8 neighbouring pages share one line of last-level entries.
        let pte_line = |i: u64, s: u64| (offset(i, s) >> 12) * 8 / 64;
        assert_eq!(pte_line(0, PAGE), pte_line(7, PAGE));
        // 32 KiB: a line each.
        assert_ne!(pte_line(0, 32 * KIB), pte_line(1, 32 * KIB));
        // 2 MiB: a page-table page each, the entry inside it varying.
        assert_ne!(offset(0, HUGE) >> 21, offset(1, HUGE) >> 21);
        assert_ne!((offset(1, HUGE) >> 12) % 512, (offset(2, HUGE) >> 12) % 512);
        // 1 GiB: a page-directory page each.
        assert_ne!(offset(3, GIB) >> 30, offset(4, GIB) >> 30);
        // Every page stays inside its own stride.
        for s in SMALL_STRIDES {
            for i in 0..1000 {
                assert_eq!(offset(i, s) / s, i, "stride {s}, page {i}");
            }
        }
    }

    #[test]
    fn on_huge_pages_the_lines_fill_every_set_of_a_2048_set_l2() {
        let sets = 2048;
        for stride in [PAGE, HUGE, GIB] {
            let most = layout::most_in_one_set((0..8192).map(|i| line_in_frame(i, stride)), sets);
            // 8192 lines over 2048 sets: four each, evenly.
            assert_eq!(most, 4, "stride {stride}");
        }
        // The old line, `(i * 13) mod 64`, put the 4 KiB stride's 8192
        // lines in 64 sets: 128 each, past any L2's ways.
        let old = |i: u64| (i % 512 * PAGE + (i * 13) % 64 * 64) / 64;
        assert_eq!(layout::most_in_one_set((0..8192).map(old), sets), 128);
    }

    #[test]
    fn predicted_tables() {
        // 1024 pages at 4 KiB: 2 PTE tables, one PMD, one PUD table.
        assert_eq!(predicted_tables_kib(1024, PAGE, Regime::Small), 16);
        // At 2 MiB a PTE table each; at 1 GiB a PMD table each as well.
        assert_eq!(
            predicted_tables_kib(64, HUGE, Regime::Small),
            (64 + 1 + 1) * 4
        );
        assert_eq!(
            predicted_tables_kib(64, GIB, Regime::Small),
            (64 + 64 + 1) * 4
        );
        // Huge pages need no PTE table.
        assert_eq!(predicted_tables_kib(64, GIB, Regime::Huge), (64 + 1) * 4);
    }
}
