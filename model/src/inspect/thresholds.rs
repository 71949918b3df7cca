//! Every threshold of the symptom table, in one table: each says why it
//! is where it is. The collector's verdicts (`collector inspect`) judge
//! by them and the "your process" timelines draw them, so a line on a
//! chart is the line the verdict used.

/// A minor fault on fresh memory costs the process about 1-2 µs of kernel
/// time (the first-touch chapter measures 1.7 µs per 4 KiB page on the
/// example machine). At 100 per second one lands every 10 ms: enough to
/// show in the p99 of anything that takes milliseconds, and two orders of
/// magnitude above the handful a settled process takes (stack, timers).
pub const MINOR_FAULTS_PER_S: f64 = 100.0;

/// A major fault waits for storage: ~0.1 ms on an SSD, milliseconds on a
/// disk or a network volume. The symptom is a *rare* stall, so one in the
/// window is already the evidence.
pub const MAJOR_FAULTS: u64 = 1;

/// Run-queue wait per second of wall time (summed over threads) from which
/// waiting for a CPU is a symptom: 50 ms/s is a twentieth of every second
/// lost, each wait at least a scheduler slice (milliseconds). A sleeping
/// process only collects wake-up latency, microseconds per wake-up.
pub const WAIT_MS_PER_S: f64 = 50.0;

/// ...and the share of its runnable time spent waiting: below a tenth, a
/// many-threaded process summing small waits over threads is not being
/// starved.
pub const WAIT_SHARE: f64 = 0.10;

/// A thread is RT-throttled only if it wants more than `rt_runtime / rt_period`
/// of a CPU (95% by default); from 90% of a CPU the process runs close to
/// that limit and the sampled share cannot tell the two apart.
pub const NEVER_SLEEPS_CPU_SHARE: f64 = 0.9;

/// With THP, less than half of the eligible anonymous memory in huge pages
/// means most of what could be huge came in 4 KiB pages. Above half, the
/// rest is mapping ends not aligned to 2 MiB and pages khugepaged has not
/// collapsed yet.
pub const HUGE_SHARE: f64 = 0.5;

/// Less eligible memory than two huge pages: nothing to judge.
pub const ELIGIBLE_KIB: u64 = 4096;

/// A frequency swing of 10% moves every operation by up to 10%: far above
/// the sub-1% A-vs-A floor of a pinned CPU-bound loop (noise chapter) and
/// above the rounding of `scaling_cur_freq`.
pub const FREQUENCY_SWING: f64 = 1.10;

/// Resident memory within half the reach of the largest data TLB (4 KiB
/// pages) cannot outgrow it: set-associative second-level TLBs conflict
/// before they are full, and code and kernel pages share them, hence the
/// margin of two.
pub const TLB_MARGIN: u64 = 2;

/// A quarter of the memory on a node that is not the CPU's: remote
/// accesses cost ~1.5-2x a local one, so the average rises by 12-25%.
pub const REMOTE_SHARE: f64 = 0.25;

/// TLB shootdowns a second on one of the process's CPUs from which they
/// are a symptom: each costs the interrupted thread a few microseconds
/// (the shootdown chapter measures 2-4 µs per call on the example
/// machine), so 1,000 a second take about half a percent of that CPU and
/// put a few-µs spike into one in every thousand microseconds of work;
/// an idle desktop's CPUs see tens.
pub const SHOOTDOWNS_PER_S: f64 = 1000.0;
