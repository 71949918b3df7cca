//! The memory a chase runs over, backed the way a regime asks: plain 4 KiB
//! pages, transparent huge pages (2 MiB-aligned, `MADV_HUGEPAGE`, then
//! `MADV_COLLAPSE`), or a hugetlbfs pool (`MAP_HUGETLB`, of 2 MiB or of
//! 1 GiB pages). Unmapped on drop.

use std::io;

use pagewalk_model::{AdviceOutcome, Regime, ThpSettings};

use crate::mapping::anonymous;
use crate::procfs;

/// A huge page on x86-64.
pub const HUGE_PAGE: usize = 2 << 20;
/// A gigantic page on x86-64 (CPUs with `pdpe1gb`): one PUD entry maps it.
pub const GIGANTIC_PAGE: usize = 1 << 30;
/// `MADV_COLLAPSE` (Linux 6.1): collapse the range into huge pages now,
/// synchronously, instead of waiting for khugepaged.
const MADV_COLLAPSE: libc::c_int = 25;
/// `MAP_HUGE_SHIFT`: `MAP_HUGETLB` picks its pool by the log2 of the page
/// size in the bits from here (21 << 26 is `MAP_HUGE_2MB`, 30 << 26
/// `MAP_HUGE_1GB`).
const MAP_HUGE_SHIFT: u32 = 26;

/// Why a regime cannot run on this machine, if it cannot.
pub fn unavailable(regime: Regime, thp: &ThpSettings) -> Option<String> {
    match (regime, thp.enabled.as_deref()) {
        (Regime::Small, _) => None,
        (Regime::Huge, None) => Some(
            "this kernel has no transparent huge pages (no /sys/kernel/mm/transparent_hugepage/enabled)".into(),
        ),
        (Regime::Huge, Some("never")) => {
            Some("THP enabled=never: MADV_HUGEPAGE cannot obtain huge pages".into())
        }
        _ => None,
    }
}

pub struct Region {
    base: *mut u8,
    map_len: usize,
    /// Where the chase starts: 2 MiB-aligned for huge pages.
    pub start: *mut u8,
    /// Bytes the chase may use from `start`.
    pub len: usize,
    /// The advised window from `start` (whole huge pages for THP).
    window: usize,
    /// Transparent huge pages were asked for (not hugetlbfs, not 4 KiB).
    thp: bool,
}

impl Region {
    /// Maps `len` bytes for `regime`. A huge region is at least one whole
    /// huge page, so even a 4 KiB chase runs on a single 2 MiB translation.
    pub fn map(len: usize, regime: Regime) -> Result<Region, String> {
        let (window, align, advice) = match regime {
            Regime::Small => (len.next_multiple_of(4096), 0, libc::MADV_NOHUGEPAGE),
            Regime::Huge => (
                len.next_multiple_of(HUGE_PAGE),
                HUGE_PAGE,
                libc::MADV_HUGEPAGE,
            ),
            // Not a matter of advice: a 1 GiB page comes from its
            // hugetlbfs pool, reserved ahead (`hugetlb::Gigantic`).
            Regime::Gigantic => {
                return Err("1 GiB pages are mapped by hugetlb::Gigantic, not by advice".into())
            }
        };
        let map_len = window + align;
        let base = anonymous(map_len, 0).map_err(|e| format!("mmap({}): {e}", human(map_len)))?;
        let start = base.wrapping_add(base.align_offset(align.max(1)));
        let region = Region {
            base,
            map_len,
            start,
            len,
            window,
            thp: regime == Regime::Huge,
        };
        // SAFETY: [start, start + window) lies inside the mapping.
        if unsafe { libc::madvise(start.cast(), window, advice) } != 0 {
            let err = io::Error::last_os_error();
            return Err(format!("madvise({}): {err}", advice_name(advice)));
        }
        Ok(region)
    }

    /// Maps `len` bytes (whole 2 MiB pages) from the 2 MiB hugetlbfs pool.
    /// The error is the kernel's: `ENOMEM` when the pool has too few free
    /// pages.
    pub fn map_hugetlb(len: usize) -> Result<Region, io::Error> {
        Region::map_pool(len, HUGE_PAGE)
    }

    /// Maps `len` bytes (whole 1 GiB pages) from the 1 GiB hugetlbfs pool
    /// (`MAP_HUGETLB | MAP_HUGE_1GB`), 1 GiB-aligned: the kernel places a
    /// hugetlbfs mapping on its page size. `EINVAL` where the kernel has
    /// no such pool, `ENOMEM` when it has too few free pages.
    pub fn map_gigantic(len: usize) -> Result<Region, io::Error> {
        Region::map_pool(len, GIGANTIC_PAGE)
    }

    /// `len` rounded up to whole `page`s, from the hugetlbfs pool of that
    /// page size.
    fn map_pool(len: usize, page: usize) -> Result<Region, io::Error> {
        let window = len.next_multiple_of(page);
        let size = (page.trailing_zeros() as libc::c_int) << MAP_HUGE_SHIFT;
        let base = anonymous(window, libc::MAP_HUGETLB | size)?;
        debug_assert_eq!(base as usize % page, 0, "hugetlbfs maps on its page size");
        Ok(Region {
            base,
            map_len: window,
            start: base,
            len,
            window,
            thp: false,
        })
    }

    /// `MADV_COLLAPSE` over the window of a THP region, once the chase has
    /// faulted it in; `None` for 4 KiB regions. A failure is a finding:
    /// `EINVAL` on kernels without it, `ENOMEM`/`EAGAIN` when no huge page
    /// could be had.
    pub fn collapse(&self) -> Option<AdviceOutcome> {
        if !self.thp {
            return None;
        }
        // SAFETY: the window lies inside the mapping.
        let rc = unsafe { libc::madvise(self.start.cast(), self.window, MADV_COLLAPSE) };
        let err = (rc != 0).then(io::Error::last_os_error);
        Some(AdviceOutcome {
            advice: "MADV_COLLAPSE".into(),
            ok: err.is_none(),
            errno: err.as_ref().map(errno_name),
            detail: err.map(|e| e.to_string()),
        })
    }

    /// The advised window: `len` rounded up to whole pages of the regime.
    pub fn window(&self) -> usize {
        self.window
    }

    /// `AnonHugePages` of this mapping, from `/proc/self/smaps`.
    pub fn anon_huge_kib(&self) -> Option<u64> {
        self.smaps("AnonHugePages")
    }

    /// `KernelPageSize` of this mapping, from `/proc/self/smaps`: the page
    /// size the kernel maps it with (4 for plain pages and THP, 2048 or
    /// 1048576 for the hugetlbfs pools).
    pub fn kernel_page_kib(&self) -> Option<u64> {
        self.smaps("KernelPageSize")
    }

    /// A `kB` field of this mapping's entry in `/proc/self/smaps`.
    fn smaps(&self, field: &str) -> Option<u64> {
        procfs::read_smaps_at(self.start as usize)
            .ok()
            .flatten()?
            .get(field)
            .copied()
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: base/map_len is exactly what mmap returned; unmapped once.
        unsafe { libc::munmap(self.base.cast(), self.map_len) };
    }
}

fn advice_name(advice: libc::c_int) -> &'static str {
    match advice {
        libc::MADV_HUGEPAGE => "MADV_HUGEPAGE",
        libc::MADV_NOHUGEPAGE => "MADV_NOHUGEPAGE",
        _ => "madvise",
    }
}

/// The symbolic name of an OS error (`ENOMEM`), as man pages print it.
pub fn errno_name(err: &io::Error) -> String {
    let name = match err.raw_os_error() {
        Some(libc::EINVAL) => "EINVAL",
        Some(libc::ENOMEM) => "ENOMEM",
        Some(libc::EAGAIN) => "EAGAIN",
        Some(libc::EPERM) => "EPERM",
        Some(libc::EACCES) => "EACCES",
        Some(libc::EBUSY) => "EBUSY",
        Some(libc::ENOENT) => "ENOENT",
        Some(libc::ENODEV) => "ENODEV",
        Some(libc::EOPNOTSUPP) => "EOPNOTSUPP",
        Some(libc::EROFS) => "EROFS",
        Some(n) => return format!("errno {n}"),
        None => return "no errno".into(),
    };
    name.into()
}

pub fn human(bytes: usize) -> String {
    crate::guard::human(bytes as u64)
}

#[cfg(test)]
mod tests {
    use std::ptr;

    use super::*;

    #[test]
    fn huge_regions_are_aligned_whole_huge_pages() {
        let r = Region::map(8192, Regime::Huge).unwrap();
        assert_eq!(r.start as usize % HUGE_PAGE, 0);
        assert_eq!((r.len, r.window), (8192, HUGE_PAGE));
        let s = Region::map(8192, Regime::Small).unwrap();
        assert_eq!(s.window, 8192);
        assert!(s.collapse().is_none());
    }

    #[test]
    fn smaps_sees_the_region() {
        let r = Region::map(4 << 20, Regime::Small).unwrap();
        // SAFETY: within the region.
        unsafe { ptr::write_volatile(r.start, 1) };
        assert_eq!(r.anon_huge_kib(), Some(0));
        assert_eq!(r.kernel_page_kib(), Some(4));
    }

    #[test]
    fn errno_names() {
        assert_eq!(
            errno_name(&io::Error::from_raw_os_error(libc::ENOMEM)),
            "ENOMEM"
        );
        assert_eq!(
            errno_name(&io::Error::from_raw_os_error(9999)),
            "errno 9999"
        );
    }

    #[test]
    fn huge_pages_need_thp() {
        let thp = |e: Option<&str>| ThpSettings {
            enabled: e.map(Into::into),
            defrag: None,
            khugepaged_defrag: None,
            max_ptes_none: None,
            shrink_underused: None,
            sizes: None,
        };
        assert!(unavailable(Regime::Huge, &thp(Some("never"))).is_some());
        assert!(unavailable(Regime::Huge, &thp(None)).is_some());
        assert!(unavailable(Regime::Huge, &thp(Some("madvise"))).is_none());
        assert!(unavailable(Regime::Small, &thp(None)).is_none());
    }
}
