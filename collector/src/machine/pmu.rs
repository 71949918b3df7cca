//! Can this process read hardware performance counters? Many VMs expose no
//! PMU, and `perf_event_paranoid` may forbid it; experiments that need
//! counters consult this instead of failing halfway.

use pagewalk_model::PmuAccess;

const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_COUNT_HW_CPU_CYCLES: u64 = 0;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 1 << 3;
// Bits of perf_event_attr's flag word.
const EXCLUDE_KERNEL: u64 = 1 << 5;
const EXCLUDE_HV: u64 = 1 << 6;

/// `struct perf_event_attr` up to `PERF_ATTR_SIZE_VER0` (64 bytes): the
/// kernel accepts the short form and zero-fills the rest. The libc crate
/// does not define it.
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

pub fn probe() -> PmuAccess {
    let counter = match Counter::open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false) {
        Ok(c) => c,
        Err(err) => {
            return PmuAccess {
                hardware_counters: false,
                detail: format!(
                    "perf_event_open(PERF_COUNT_HW_CPU_CYCLES, user only) failed: {err}"
                ),
            }
        }
    };
    // Some hypervisors accept the event but never count: spin a little and
    // read it back before claiming counters work.
    let mut x = 0u64;
    for i in 0..100_000u64 {
        x = std::hint::black_box(x.wrapping_add(i));
    }
    match counter.read() {
        Some(c) if c > 0 => PmuAccess {
            hardware_counters: true,
            detail: format!(
                "cpu-cycles counter opened and counted {c} user cycles in a short loop"
            ),
        },
        Some(_) => PmuAccess {
            hardware_counters: false,
            detail: "cpu-cycles counter opened but counted 0 cycles (virtual PMU not counting)"
                .into(),
        },
        None => PmuAccess {
            hardware_counters: false,
            detail: format!(
                "cpu-cycles counter opened but read failed: {}",
                std::io::Error::last_os_error()
            ),
        },
    }
}

/// `PERF_TYPE_HW_CACHE` dTLB read misses: what proves a chase walks pages.
pub const DTLB_READ_MISS: (u32, u64) = (
    PERF_TYPE_HW_CACHE,
    PERF_COUNT_HW_CACHE_DTLB
        | PERF_COUNT_HW_CACHE_OP_READ << 8
        | PERF_COUNT_HW_CACHE_RESULT_MISS << 16,
);
/// Software page faults: counted by the kernel, so available without a PMU.
pub const PAGE_FAULTS: (u32, u64) = (PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);

const PERF_TYPE_SOFTWARE: u32 = 1;
const PERF_TYPE_HW_CACHE: u32 = 3;
const PERF_COUNT_SW_PAGE_FAULTS: u64 = 2;
const PERF_COUNT_HW_CACHE_DTLB: u64 = 3;
const PERF_COUNT_HW_CACHE_OP_READ: u64 = 0;
const PERF_COUNT_HW_CACHE_RESULT_MISS: u64 = 1;
const DISABLED: u64 = 1;
// ioctls: _IO('$', n).
const PERF_EVENT_IOC_ENABLE: libc::c_ulong = 0x2400;
const PERF_EVENT_IOC_DISABLE: libc::c_ulong = 0x2401;
const PERF_EVENT_IOC_RESET: libc::c_ulong = 0x2403;

/// One counter on the calling thread, user space only (what
/// `perf_event_paranoid=2` still allows), closed on drop.
pub struct Counter {
    fd: libc::c_int,
}

impl Counter {
    /// Opens `(type, config)`; `disabled` leaves it stopped until
    /// [`Counter::start`]. The error is the kernel's (errno text).
    pub fn open(kind: u32, config: u64, disabled: bool) -> Result<Counter, std::io::Error> {
        let attr = PerfEventAttr {
            kind,
            size: std::mem::size_of::<PerfEventAttr>() as u32,
            config,
            flags: EXCLUDE_KERNEL | EXCLUDE_HV | if disabled { DISABLED } else { 0 },
            ..Default::default()
        };
        // SAFETY: attr outlives the call; pid 0 / cpu -1 = this thread on any CPU.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_perf_event_open,
                &attr as *const PerfEventAttr,
                0,
                -1,
                -1,
                PERF_FLAG_FD_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Counter {
            fd: fd as libc::c_int,
        })
    }

    /// Zeroes and starts the counter.
    pub fn start(&self) {
        // SAFETY: plain ioctls on a perf fd we own.
        unsafe {
            libc::ioctl(self.fd, PERF_EVENT_IOC_RESET, 0);
            libc::ioctl(self.fd, PERF_EVENT_IOC_ENABLE, 0);
        }
    }

    /// Stops the counter and returns its count.
    pub fn stop(&self) -> Option<u64> {
        // SAFETY: a plain ioctl on a perf fd we own.
        unsafe { libc::ioctl(self.fd, PERF_EVENT_IOC_DISABLE, 0) };
        self.read()
    }

    pub fn read(&self) -> Option<u64> {
        let mut count = 0u64;
        // SAFETY: reading 8 bytes into a u64 we own from an fd we opened.
        let n = unsafe { libc::read(self.fd, (&mut count as *mut u64).cast(), 8) };
        (n == 8).then_some(count)
    }
}

impl Drop for Counter {
    fn drop(&mut self) {
        // SAFETY: closing the fd we opened, once.
        unsafe { libc::close(self.fd) };
    }
}
