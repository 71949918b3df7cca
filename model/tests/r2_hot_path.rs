//! R2's figures for the experiments of `Group::HotPath` (labs perf/05, systems/01, systems/02,
//! perf/01) load through the model and read back as transcribed.

mod common;

use common::reference;
use pagewalk_model::{AllocPath, Condition, CountMethod, SyscallOp, TailVariant};

#[test]
fn perf_05_tail() {
    let tail = reference("r2-perf-05.json").tail().cloned().unwrap();
    let p999 = |v| tail.variant(v).unwrap().latency.as_ref().unwrap().p999_ns;
    assert_eq!(p999(TailVariant::AsWritten), Some(39_000.0));
    assert_eq!(p999(TailVariant::Prefaulted), Some(7_600.0));
    assert!(tail.variant(TailVariant::Populate).is_none());
}

#[test]
fn systems_01_alloc() {
    let alloc = reference("r2-systems-01.json").alloc().cloned().unwrap();
    let p50 = |p| alloc.path(p).unwrap().latency.as_ref().unwrap().p50_ns;
    assert_eq!(p50(AllocPath::Tcache), Some(36.0));
    assert_eq!(p50(AllocPath::MmapTypical), Some(41.0));
    assert_eq!(p50(AllocPath::MmapForced), Some(4_200.0));
    let calls = &alloc.path(AllocPath::MmapForced).unwrap().mapping_calls[0];
    assert_eq!(
        (calls.method, calls.total),
        (CountMethod::Published, 200_000)
    );
    assert!(alloc.path(AllocPath::MmapPinned).is_none());
}

#[test]
fn systems_02_syscall() {
    let sys = reference("r2-systems-02.json").syscall().cloned().unwrap();
    let p50 = |o| sys.op(o).unwrap().latency.as_ref().unwrap().p50_ns.unwrap();
    assert_eq!(p50(SyscallOp::Getpid), 142.0);
    assert!((p50(SyscallOp::GetpidStrace) / p50(SyscallOp::Getpid) - 166.2).abs() < 0.1);
    assert_eq!(p50(SyscallOp::Wakeup), 5_000.0);
}

#[test]
fn perf_01_noise() {
    let noise = reference("r2-perf-01.json").noise().cloned().unwrap();
    assert_eq!(noise.batch(Condition::Unpinned).unwrap().spread, Some(2.4));
    assert_eq!(noise.batch(Condition::Pinned).unwrap().spread, Some(1.01));
    assert_eq!(noise.hybrid_slowdown, Some(1.87));
    assert!(noise.levers.is_none() && noise.comparisons.is_empty());
}
