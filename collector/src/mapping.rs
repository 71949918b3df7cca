//! Private anonymous memory, mapped one way for every experiment that
//! needs its own pages rather than the allocator's.

use std::io;
use std::ptr;

/// Maps `len` bytes of private anonymous read-write memory, with `flags`
/// added (`MAP_POPULATE`, `MAP_HUGETLB`...). The caller unmaps it. The
/// error is read right after the call, before anything can touch errno.
pub fn anonymous(len: usize, flags: libc::c_int) -> io::Result<*mut u8> {
    // SAFETY: a fresh private anonymous mapping; nothing else refers to it.
    let p = unsafe {
        libc::mmap(
            ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | flags,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    Ok(p.cast())
}

/// A private anonymous mapping of plain 4 KiB pages, unmapped on drop.
pub struct SmallPages {
    pub ptr: *mut u8,
    pub len: usize,
}

impl SmallPages {
    /// Plain 4 KiB pages whatever THP is set to: one fault per page, and
    /// each page on its own NUMA node. The advice comes before any page is
    /// touched, except where `flags` populate inside `mmap` itself
    /// (`MAP_POPULATE`): see [`SmallPages::map_populated`].
    pub fn map(len: usize, flags: libc::c_int) -> Result<SmallPages, String> {
        if flags & libc::MAP_POPULATE != 0 {
            return SmallPages::map_populated(len, flags);
        }
        let ptr = anonymous(len, flags).map_err(|e| format!("mmap: {e}"))?;
        Ok(SmallPages::advised(ptr, len))
    }

    /// As [`SmallPages::map`], for a mapping `mmap` fills before it returns
    /// (`MAP_POPULATE`, or any mapping after `mlockall(MCL_FUTURE)`). Advice
    /// given after the call would come too late (under THP `always` the
    /// pages would already be huge), so the call runs with THP off for the
    /// process (`PR_SET_THP_DISABLE`, Linux 3.15), put back right after.
    pub fn map_populated(len: usize, flags: libc::c_int) -> Result<SmallPages, String> {
        let ptr = without_thp(|| anonymous(len, flags)).map_err(|e| format!("mmap: {e}"))?;
        Ok(SmallPages::advised(ptr, len))
    }

    /// `MADV_NOHUGEPAGE`, which also keeps khugepaged from collapsing the
    /// range later. Fails only where THP does not exist: nothing to undo.
    fn advised(ptr: *mut u8, len: usize) -> SmallPages {
        // SAFETY: advice on our own mapping.
        unsafe { libc::madvise(ptr.cast(), len, libc::MADV_NOHUGEPAGE) };
        SmallPages { ptr, len }
    }

    /// `AnonHugePages` of this mapping in KiB, from `/proc/self/smaps`: the
    /// premise check that it really holds no huge page.
    pub fn anon_huge_kib(&self) -> Option<u64> {
        crate::procfs::read_smaps_at(self.ptr as usize)
            .ok()
            .flatten()?
            .get("AnonHugePages")
            .copied()
    }
}

/// Runs `f` with transparent huge pages disabled for this process, then
/// puts the previous setting back. Where the kernel has no such switch
/// (no THP), `f` runs as it is.
fn without_thp<T>(f: impl FnOnce() -> T) -> T {
    // SAFETY: PR_GET/SET_THP_DISABLE take plain integers and touch no memory.
    let before = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
    let switched = before == 0 && unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) } == 0;
    let out = f();
    if switched {
        // SAFETY: as above; restores the setting read before.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0) };
    }
    out
}

impl Drop for SmallPages {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly what `map` mapped.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The THP setting this machine runs with (`always [madvise] never`).
    fn thp_enabled() -> Option<String> {
        let text = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").ok()?;
        let start = text.find('[')? + 1;
        let end = text.find(']')?;
        Some(text[start..end].to_string())
    }

    /// Populated inside `mmap`, the mapping still holds no huge page.
    /// Decisive under THP `always`, where advice after the call arrived too
    /// late (tried: the old order fails here then); elsewhere it checks the
    /// pages were all faulted in. (`mlockall` is left to the tail
    /// experiment's own check: it would lock this whole test process.)
    #[test]
    fn populated_inside_mmap_yet_no_huge_page() {
        let len = 8 << 20;
        let populated = SmallPages::map(len, libc::MAP_POPULATE).unwrap();
        let rollup = crate::procfs::read_smaps_at(populated.ptr as usize)
            .unwrap()
            .unwrap();
        assert_eq!(
            rollup.get("Rss"),
            Some(&((len / 1024) as u64)),
            "{rollup:?}"
        );
        assert_eq!(
            populated.anon_huge_kib(),
            Some(0),
            "THP {:?}",
            thp_enabled()
        );
        // The process's own setting is as it was.
        assert_eq!(
            unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) },
            0
        );
    }
}
