//! Page-fault counts of the calling thread.
//!
//! `RUSAGE_THREAD` rather than `RUSAGE_SELF`: the progress-bar thread and the
//! allocator's own bookkeeping in other threads must not leak into a phase's
//! count, and the phases run on the thread that asks.

use std::ops::Sub;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Faults {
    pub minor: u64,
    pub major: u64,
}

impl Faults {
    pub fn of_this_thread() -> Faults {
        // SAFETY: getrusage only writes into the struct we pass.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
        // Cannot fail with a valid pointer and a known `who`.
        assert_eq!(rc, 0, "getrusage(RUSAGE_THREAD) failed");
        Faults {
            minor: usage.ru_minflt as u64,
            major: usage.ru_majflt as u64,
        }
    }
}

impl Sub for Faults {
    type Output = Faults;

    fn sub(self, before: Faults) -> Faults {
        Faults {
            minor: self.minor - before.minor,
            major: self.major - before.major,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touching_fresh_pages_counts_on_this_thread() {
        let pages = 64;
        let page = 4096;
        // SAFETY: fresh private anonymous mapping, written within bounds, unmapped after.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                pages * page,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(p, libc::MAP_FAILED);
            libc::madvise(p, pages * page, libc::MADV_NOHUGEPAGE);
            let before = Faults::of_this_thread();
            for i in 0..pages {
                std::ptr::write_volatile((p as *mut u8).add(i * page), 1);
            }
            let delta = Faults::of_this_thread() - before;
            libc::munmap(p, pages * page);
            assert!(delta.minor >= pages as u64, "{delta:?}");
        }
    }
}
