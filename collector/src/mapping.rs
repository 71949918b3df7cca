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
    pub fn map(len: usize, flags: libc::c_int) -> Result<SmallPages, String> {
        let ptr = anonymous(len, flags).map_err(|e| format!("mmap: {e}"))?;
        // Plain 4 KiB pages whatever THP is set to: one fault per page, and
        // each page on its own NUMA node. Fails only where THP does not
        // exist: nothing to undo.
        // SAFETY: advice on our own mapping.
        unsafe { libc::madvise(ptr.cast(), len, libc::MADV_NOHUGEPAGE) };
        Ok(SmallPages { ptr, len })
    }
}

impl Drop for SmallPages {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly what `map` mapped.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}
