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
    let attr = PerfEventAttr {
        kind: PERF_TYPE_HARDWARE,
        size: std::mem::size_of::<PerfEventAttr>() as u32,
        config: PERF_COUNT_HW_CPU_CYCLES,
        // User space only: what perf_event_paranoid=2 still allows.
        flags: EXCLUDE_KERNEL | EXCLUDE_HV,
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
        let err = std::io::Error::last_os_error();
        return PmuAccess {
            hardware_counters: false,
            detail: format!("perf_event_open(PERF_COUNT_HW_CPU_CYCLES, user only) failed: {err}"),
        };
    }
    let fd = fd as libc::c_int;
    // Some hypervisors accept the event but never count: spin a little and
    // read it back before claiming counters work.
    let mut x = 0u64;
    for i in 0..100_000u64 {
        x = std::hint::black_box(x.wrapping_add(i));
    }
    let mut cycles = 0u64;
    // SAFETY: reading 8 bytes into a u64 we own from an fd we opened.
    let n = unsafe { libc::read(fd, (&mut cycles as *mut u64).cast(), 8) };
    unsafe { libc::close(fd) };
    match (n, cycles) {
        (8, c) if c > 0 => PmuAccess {
            hardware_counters: true,
            detail: format!(
                "cpu-cycles counter opened and counted {c} user cycles in a short loop"
            ),
        },
        (8, _) => PmuAccess {
            hardware_counters: false,
            detail: "cpu-cycles counter opened but counted 0 cycles (virtual PMU not counting)"
                .into(),
        },
        _ => PmuAccess {
            hardware_counters: false,
            detail: format!(
                "cpu-cycles counter opened but read failed: {}",
                std::io::Error::last_os_error()
            ),
        },
    }
}
