//! How each mode obtains its memory, and the one touch loop all modes share.

use std::hint::black_box;
use std::io;
use std::ptr;

use pagewalk_model::Mode;

use crate::mapping::anonymous;

/// Transparent huge pages are 2 MiB on x86-64.
pub const HUGE_PAGE: usize = 2 << 20;

/// Memory obtained by one mode, released on drop the way it was obtained.
pub enum Region {
    /// `base`/`map_len` is what mmap returned; `start` is the part touched
    /// (2 MiB-aligned for the huge-page mode).
    Mapped {
        base: *mut u8,
        map_len: usize,
        start: *mut u8,
    },
    /// From libc `malloc`/`calloc`.
    Libc(*mut u8),
    Vec(Vec<u8>),
}

impl Region {
    pub fn start(&mut self) -> *mut u8 {
        match self {
            Region::Mapped { start, .. } => *start,
            Region::Libc(p) => *p,
            Region::Vec(v) => v.as_mut_ptr(),
        }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: each pointer came from the matching allocation call and is
        // released exactly once, here.
        match self {
            Region::Mapped { base, map_len, .. } => unsafe {
                libc::munmap(base.cast(), *map_len);
            },
            Region::Libc(p) => unsafe { libc::free(p.cast()) },
            Region::Vec(_) => {}
        }
    }
}

/// The Rust forms go through the global allocator, where the counting
/// allocator can see which entry point they reached.
pub fn is_rust(mode: Mode) -> bool {
    matches!(mode, Mode::VecMacro | Mode::ResizeZero | Mode::ResizeOne)
}

/// Obtains `len` bytes the way `mode` does. This is the timed allocation
/// phase: for the eager modes it includes the page faults.
pub fn allocate(mode: Mode, len: usize) -> Result<Region, String> {
    let region = match mode {
        Mode::Nohugepage => map(len, 0, 0, Some((libc::MADV_NOHUGEPAGE, "MADV_NOHUGEPAGE")))?,
        Mode::Default => map(len, 0, 0, None)?,
        // Aligned so every 2 MiB of the touched range can be one huge page.
        Mode::Hugepage => map(
            len,
            HUGE_PAGE,
            0,
            Some((libc::MADV_HUGEPAGE, "MADV_HUGEPAGE")),
        )?,
        Mode::Populate => map(len, 0, libc::MAP_POPULATE, None)?,
        // malloc-hugetlb differs only in the process it runs in (its
        // environment sets the glibc tunable).
        Mode::MallocMemset | Mode::MallocHugetlb => {
            // black_box hides that the pointer came from malloc; otherwise
            // LLVM may fold malloc + memset(0) into calloc and the memset,
            // the point of this mode, would vanish. A check proves it ran.
            // SAFETY: memset stays within the `len` bytes malloc returned.
            let p = black_box(unsafe { libc::malloc(len) }).cast::<u8>();
            if p.is_null() {
                return Err(alloc_error("malloc", len));
            }
            unsafe { libc::memset(p.cast(), 0, len) };
            Region::Libc(p)
        }
        Mode::Calloc => {
            // SAFETY: plain calloc; null is handled.
            let p = unsafe { libc::calloc(1, len) }.cast::<u8>();
            if p.is_null() {
                return Err(alloc_error("calloc", len));
            }
            Region::Libc(p)
        }
        Mode::VecMacro => Region::Vec(vec![0u8; len]),
        // Nothing may stand between with_capacity and resize: whether LLVM
        // fuses them into one zeroed allocation is what is being observed.
        // (Clippy calls this form slow for the same reason.)
        #[allow(clippy::slow_vector_initialization)]
        Mode::ResizeZero => {
            let mut v = Vec::with_capacity(len);
            v.resize(len, 0u8);
            Region::Vec(v)
        }
        Mode::ResizeOne => {
            let mut v = Vec::with_capacity(len);
            v.resize(len, 1u8);
            Region::Vec(v)
        }
    };
    // The contents escape here, so no fill above can be proven dead.
    Ok(black_box(region))
}

/// Writes one byte every `stride` bytes: one store per page, volatile so
/// the passes cannot be optimised away or merged.
#[inline(never)]
pub fn touch(start: *mut u8, len: usize, stride: usize) {
    for offset in (0..len).step_by(stride) {
        // SAFETY: offset < len, and callers pass a region of `len` bytes.
        unsafe { ptr::write_volatile(start.add(offset), 1) };
    }
}

fn map(
    len: usize,
    align: usize,
    flags: libc::c_int,
    advice: Option<(libc::c_int, &str)>,
) -> Result<Region, String> {
    let map_len = len + align;
    let base = anonymous(map_len, flags).map_err(|err| failed("mmap", map_len, err))?;
    let start = if align > 0 {
        base.wrapping_add(base.align_offset(align))
    } else {
        base
    };
    let region = Region::Mapped {
        base,
        map_len,
        start,
    };
    if let Some((advice, name)) = advice {
        // SAFETY: [start, start + len) lies inside the mapping.
        if unsafe { libc::madvise(start.cast(), len, advice) } != 0 {
            let err = io::Error::last_os_error();
            return Err(format!("madvise({name}): {err}"));
        }
    }
    Ok(region)
}

fn alloc_error(call: &str, len: usize) -> String {
    // errno first: formatting allocates, and malloc may touch errno.
    failed(call, len, io::Error::last_os_error())
}

fn failed(call: &str, len: usize, err: io::Error) -> String {
    format!("{call}({}): {err}", crate::guard::human(len as u64))
}
