//! The tail, alloc, syscall, noise and numa views on a fixture run (a real
//! `--quick` run, trimmed) and R2's committed reference files.

use std::path::Path;
use std::sync::Arc;

use mdbook_pagewalk::{DataSet, Renderer};

fn data_dir() -> tempfile::TempDir {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let (example, reference) = (dir.path().join("example"), dir.path().join("reference"));
    std::fs::create_dir_all(&example).unwrap();
    std::fs::create_dir_all(&reference).unwrap();
    std::fs::copy(
        here.join("tests/fixtures/hot-path-run.json"),
        example.join("run.json"),
    )
    .unwrap();
    for entry in std::fs::read_dir(here.join("../data/reference")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, reference.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

fn render(template: &str) -> Result<String, String> {
    let dir = data_dir();
    let data = DataSet::load(dir.path()).map_err(|e| e.to_string())?;
    Renderer::new(Arc::new(data))
        .render("test.md", template)
        .map_err(|e| e.to_string())
}

#[test]
fn tail_view_reads_the_run_and_r2() {
    let out = render(
        "{{dur tail.variants.as_written.p999}} vs {{dur tail.prefaulted.p999}} ({{tail.prefaulted_key}}), \
         {{ratio tail.variants.as_written.p999 tail.prefaulted.p999}}, mean {{num tail.mean_ratio 2}}, \
         faults {{num tail.variants.as_written.faults}} of {{num tail.pages}} pages, 1 in {{tail.iterations_per_page}}; \
         pre-faulted at most {{num tail.prefault_faults_max}}; mlockall {{tail.mlockall_permitted}}; \
         R2 {{dur r2.tail.variants.as_written.p999}} vs {{dur r2.tail.prefaulted.p999}} = {{num r2.tail.p999_ratio 1}}, \
         R2 p50 {{num r2.tail.variants.as_written.p50}}, R2 populate {{num r2.tail.variants.populate.p999}}",
    )
    .unwrap();
    assert_eq!(
        out,
        "2.34 µs vs 550 ns (populate), 4.3×, mean 1.35, faults 256 of 256 pages, 1 in 256; \
         pre-faulted at most 0; mlockall true; \
         R2 39.00 µs vs 7.60 µs = 5.1, R2 p50 n/a, R2 populate n/a"
    );
}

#[test]
fn alloc_view_has_paths_calls_and_the_cliff() {
    let out = render(
        "{{num alloc.paths.tcache.p50 1}} {{num alloc.paths.mmap_forced.p50}} \
         {{num alloc.paths.mmap_forced.mmap_calls}} over {{num alloc.paths.mmap_forced.calls_ops}} ({{alloc.paths.mmap_forced.calls_method}}, {{alloc.paths.mmap_forced.mmap_calls_per_op}} per op) \
         {{alloc.paths.mmap_pinned.in_child}} {{num alloc.cliff}} | \
         R2 {{num r2.alloc.paths.mmap_forced.p50}} {{num r2.alloc.paths.mmap_forced.mmap_calls}} {{r2.alloc.paths.mmap_forced.calls_method}} \
         {{num r2.alloc.cliff}} {{num r2.alloc.paths.mmap_pinned.p50}}",
    )
    .unwrap();
    assert_eq!(
        out,
        "9.2 8,700 400 over 200 (strace, 2.0 per op) true 485 | R2 4,200 200,000 published 102 n/a"
    );
}

#[test]
fn syscall_view_has_ops_multiplier_and_mitigations() {
    let out = render(
        "{{num syscall.ops.getpid.ns}} {{num syscall.ops.clock_gettime.ns}} {{num syscall.strace_multiplier}}× \
         {{#if syscall.strace_skipped}}skipped{{else}}traced{{/if}} [{{syscall.mitigations_active}}] {{syscall.mitigations_count}} \
         {{dur syscall.ops.wakeup.ns}} | R2 {{num r2.syscall.ops.getpid.ns}} {{num r2.syscall.strace_multiplier}}× \
         {{num r2.syscall.mitigations_count}} {{dur r2.syscall.ops.wakeup.ns}}",
    )
    .unwrap();
    assert_eq!(
        out,
        // Strings from data come out as text: Markdown's `_` as a reference.
        // "Vulnerable: Safe RET, no microcode" still runs the Safe RET thunk.
        "139 22 130× traced [spectre&#95;v1, spectre&#95;v2, spec&#95;rstack&#95;overflow] 3 2.44 µs | R2 142 166× n/a 5.00 µs"
    );
}

#[test]
fn noise_view_has_spreads_verdicts_and_levers() {
    let out = render(
        "{{num noise.batches.pinned.spread 3}} {{pct noise.a_vs_a}} {{pct noise.a_vs_b}} {{noise.a_vs_b_inside_noise}} \
         {{pct noise.longer_by}} {{noise.levers.rt_runtime_us}}/{{noise.levers.rt_period_us}} {{pct noise.levers.rt_share}} \
         {{#if noise.levers.boot_isolation}}isolated{{else}}no boot isolation{{/if}} {{noise.levers.cpuset_partitions}} \
         {{#if noise.cpufreq_visible}}cpufreq{{else}}no cpufreq{{/if}} {{noise.governor}} | \
         R2 {{num r2.noise.batches.unpinned.spread 1}} {{pct r2.noise.batches.pinned.spread_excess}} {{num r2.noise.hybrid_slowdown 2}} \
         {{num r2.noise.levers.rt_runtime_us}}",
    )
    .unwrap();
    assert_eq!(
        out,
        "2.176 0.1% 18% false 10% 950000/1000000 95% no boot isolation false no cpufreq  | R2 2.4 1% 1.87 n/a"
    );
}

#[test]
fn numa_view_keeps_the_topology_when_skipped() {
    let out = render(
        "{{numa.nodes}} {{numa.node_list.0.cpus}} {{#if numa.skipped}}skipped{{/if}} {{num numa.placements.parallel.ms}} {{num r2.numa.nodes}}",
    )
    .unwrap();
    assert_eq!(out, "1 0-1 skipped n/a n/a");
}

#[test]
fn the_charts_render_and_a_typo_fails() {
    for name in [
        "tail-histogram",
        "tail-percentiles",
        "alloc-latency",
        "syscall-floor",
        "noise-spread",
    ] {
        let out = render(&format!("{{{{chart \"{name}\"}}}}")).unwrap();
        assert!(out.contains(&format!("data-chart=\"{name}\"")), "{name}");
        // R2 published no histogram: only the other charts have it beside.
        if name != "tail-histogram" {
            assert!(
                out.contains("the reference lab machine"),
                "{name}: R2 beside"
            );
        }
    }
    let e = render("{{num tail.variants.as_written.p99_9}}").unwrap_err();
    assert!(e.contains("not in the context"), "{e}");
}
