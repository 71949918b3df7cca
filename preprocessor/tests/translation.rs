//! The stair, tlb and thp views on a fixture run (a real `--quick` run of
//! staircase, tlb-reach and thp on a KVM guest, `--size 16M --reps 3`) and
//! R2's committed reference files.

use std::path::Path;
use std::sync::Arc;

use mdbook_pagewalk::{DataSet, Renderer};

fn data_dir(with_run: bool) -> tempfile::TempDir {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let (example, reference) = (dir.path().join("example"), dir.path().join("reference"));
    std::fs::create_dir_all(&example).unwrap();
    std::fs::create_dir_all(&reference).unwrap();
    let run = if with_run {
        "tests/fixtures/translation-run.json"
    } else {
        // A run without these experiments: the views are null.
        "tests/fixtures/hot-path-run.json"
    };
    std::fs::copy(here.join(run), example.join("run.json")).unwrap();
    for entry in std::fs::read_dir(here.join("../data/reference")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, reference.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// The rendered Markdown as a reader reads it: values from data come out
/// as character references (see `helpers::escape_text`), decoded here.
fn as_read(markdown: &str) -> String {
    let mut out = String::new();
    let mut rest = markdown;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let end = tail.find(';').filter(|&e| e <= 8);
        let decoded = end.and_then(|e| match &tail[1..e] {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            num => num.strip_prefix('#')?.parse().ok().and_then(char::from_u32),
        });
        match (decoded, end) {
            (Some(c), Some(e)) => {
                out.push(c);
                rest = &tail[e + 1..];
            }
            _ => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out + rest
}

fn render_with(with_run: bool, template: &str) -> Result<String, String> {
    let dir = data_dir(with_run);
    let data = DataSet::load(dir.path()).map_err(|e| e.to_string())?;
    Renderer::new(Arc::new(data))
        .render("test.md", template)
        .map(|md| as_read(&md))
        .map_err(|e| e.to_string())
}

fn render(template: &str) -> Result<String, String> {
    render_with(true, template)
}

#[test]
fn stair_view_sizes_geometry_and_agreement() {
    let out = render(
        "{{stair.sizes}} sizes, {{stair.min_size}} to {{stair.max_size}}, {{stair.repetitions}} reps; \
         L1 {{num stair.at.l1.small_ns 1}} ns at {{stair.at.l1.size}}; \
         largest {{stair.at.largest.size}} {{num stair.at.largest.small_ns}} vs {{num stair.at.largest.huge_ns}} ns; \
         {{stair.cpuid.l1d_4k.arithmetic}}, {{stair.cpuid.l2_4k.reach}}, 1G {{num stair.cpuid.l1d_1g.entries}}; \
         caches {{stair.caches.l1d.size}} {{stair.caches.l2.size}} {{stair.caches.l3.size}}; \
         agree {{stair.agreement.all}}: {{stair.agreement.text}}; \
         collapse {{stair.collapse.text}}; faults {{stair.timed_faults_max}}; \
         dTLB {{stair.counters.dtlb}}; checks {{stair.all_checks_passed}}; \
         {{#each stair.steps}}{{#if (eq regime \"small\")}}[{{at}} {{kind}} {{label}}]{{/if}}{{/each}}",
    )
    .unwrap();
    assert!(
        out.starts_with("25 sizes, 4 KiB to 16 MiB, 3 reps; L1 1.1 ns at 16 KiB; largest 16 MiB "),
        "{out}"
    );
    assert!(
        out.contains("72 × 4 KiB = 288 KiB, 12 MiB, 1G n/a;"),
        "{out}"
    );
    assert!(out.contains("caches 32 KiB 1 MiB 32 MiB;"), "{out}");
    assert!(out.contains("agree false: no measured step of its kind within a factor of two of: L1 dTLB reach (72 × 4 KiB = 288 KiB); L2 TLB reach (3072 × 4 KiB = 12 MiB) (this is a virtual machine"), "{out}");
    assert!(
        out.contains("collapse ok at every size; faults 0; dTLB false; checks true;"),
        "{out}"
    );
    assert!(out.contains("[39.2 KiB cache L1d cache (32 KiB)]"), "{out}");
    // Nothing known near it and no twin on the huge-page curve: the label
    // says so instead of naming a level.
    assert!(
        out.contains("[3.46 MiB cache matches no known size]"),
        "{out}"
    );
}

#[test]
fn stair_points_list_both_regimes() {
    let out = render("{{#each stair.points}}{{#if @first}}{{bytes}} {{size}} {{num small_ns 2}}/{{num huge_ns 2}} {{pct huge_fraction}} {{num small_dtlb_per_load}}{{/if}}{{/each}}").unwrap();
    assert_eq!(out, "4096 4 KiB 1.08/1.08 100% n/a");
}

#[test]
fn r2_stair_has_published_levels_and_its_tlb_geometry() {
    let out = render(
        "{{r2.stair.cpuid.l1d_4k.entries}} × {{r2.stair.cpuid.l1d_4k.page}} = {{r2.stair.cpuid.l1d_4k.reach}}, \
         STLB {{r2.stair.cpuid.l2_4k.arithmetic}}; points {{r2.stair.sizes}}; \
         {{#each r2.stair.published}}[{{from}}-{{to}}: {{num ns_min 1}}..{{num ns_max 1}} +{{num added_ns_min}}..{{num added_ns_max}} {{actual}}]{{/each}} \
         at {{num r2.stair.at.l1.small_ns}}; agree {{r2.stair.agreement.all}}; dur {{r2.stair.duration_s}}; r2.tlb {{r2.tlb}}",
    )
    .unwrap();
    assert!(
        out.starts_with("96 × 4 KiB = 384 KiB, STLB 2048 × 4 KiB = 8 MiB; points 0; "),
        "{out}"
    );
    assert!(
        out.contains("[384 KiB-1.25 MiB: 4.0..12.0 +n/a..n/a L1 dTLB exhausted at 384 KiB]"),
        "{out}"
    );
    assert!(
        out.contains("[8 MiB-8 MiB: n/a..n/a +15..100 STLB exhausted at 8 MiB]"),
        "{out}"
    );
    assert!(out.ends_with("at n/a; agree ; dur ; r2.tlb "), "{out}");
}

#[test]
fn tlb_view_pages_and_levels() {
    let out = render(
        "{{tlb.min_pages}}..{{tlb.max_pages}} pages, data <= {{tlb.data_limit}}, step {{tlb.line_step}}; \
         few {{num tlb.at.few.small_ns 1}}; in L1 dTLB ({{tlb.at.l1.pages}}) {{num tlb.at.l1.small_ns 1}}; \
         in L2 TLB ({{tlb.at.l2.pages}}) {{num tlb.at.l2.small_ns 1}}; beyond ({{tlb.at.beyond.pages}}) \
         {{num tlb.at.beyond.small_ns 1}} vs {{num tlb.at.beyond.huge_ns 1}}; agree {{tlb.agreement.all}}; \
         translation steps {{tlb.step_counts.translation}}; {{tlb.agreement.text}}; \
         {{#each tlb.steps}}{{#if (eq regime \"small\")}}[{{at}} {{kind}} near {{near_kind}}]{{/if}}{{/each}}",
    )
    .unwrap();
    assert!(
        out.starts_with("8..8192 pages, data <= 512 KiB, step 13; few "),
        "{out}"
    );
    assert!(out.contains("in L2 TLB (3072) "), "{out}");
    assert!(out.contains("beyond (8192) "), "{out}");
    assert!(out.contains("in L1 dTLB (64) "), "{out}");
    assert!(out.contains("agree false; translation steps 1; no measured step of its kind within a factor of two of: L1 dTLB reach (72 entries) (there is a step at 78 pages, but it stays put with huge pages)"), "{out}");
    // The L1 dTLB's step stays with huge pages here (a KVM guest): its kind
    // says cache, what it is near says translation.
    assert!(out.contains("[78 pages cache near translation]"), "{out}");
}

#[test]
fn thp_view_sizes_collapse_and_hugetlb() {
    let out = render(
        "{{thp.settings.enabled}}/{{thp.settings.defrag}}; {{thp.medium.size}} {{num thp.medium.small_ns}}/{{num thp.medium.huge_ns}} \
         {{pct thp.medium.huge_fraction}} {{thp.medium.collapse}}; {{thp.large.size}}; {{thp.collapse.available}} {{thp.collapse.text}}; \
         free 2M {{thp.before.free_huge_blocks}}; hugetlb {{thp.hugetlb.nr_hugepages}} {{thp.hugetlb.mapped}} {{thp.hugetlb.errno}} \
         {{num thp.hugetlb.ns}}: {{thp.hugetlb.text}}",
    )
    .unwrap();
    assert!(out.starts_with("madvise/madvise; 4 MiB "), "{out}");
    assert!(
        out.contains(" 100% ok; 16 MiB; true MADV_COLLAPSE succeeded at every size; free 2M "),
        "{out}"
    );
    assert!(
        out.contains("hugetlb 0 false ENOMEM n/a: no huge pages reserved (nr_hugepages 0)"),
        "{out}"
    );
}

#[test]
fn r2_thp_figures() {
    let out = render(
        "{{r2.thp.medium.size}} {{num r2.thp.medium.small_ns}}/{{num r2.thp.medium.huge_ns}} {{pct r2.thp.medium.huge_fraction}} \
         {{ratio r2.thp.large.small_ns r2.thp.large.huge_ns}} {{pct r2.thp.large.huge_fraction}} {{r2.thp.large.collapse}} \
         ok={{r2.thp.large.collapse_ok}} {{r2.thp.collapse.text}} | {{r2.thp.hugetlb.text}} {{r2.thp.repetitions}}",
    )
    .unwrap();
    assert_eq!(
        out,
        "256 MiB 147/130 n/a 1.2× 33% ENOMEM: returned ENOMEM on a long-running machine ok=false \
         MADV_COLLAPSE failed (ENOMEM): the kernel found no free huge pages to collapse into |  "
    );
}

#[test]
fn views_are_null_without_the_experiments_and_keys_are_checked() {
    let out = render_with(
        false,
        "[{{num stair.at.l1.small_ns}}] [{{num thp.large.gain}}] [{{stair}}]",
    )
    .unwrap();
    assert_eq!(out, "[n/a] [n/a] []");
    let err = render("{{num stair.at.l9.small_ns}}").unwrap_err();
    assert!(err.contains("not in the context"), "{err}");
}

#[test]
fn charts_build_from_the_fixture() {
    let out = render("{{chart \"staircase\"}}{{chart \"tlb-reach\"}}{{chart \"thp\"}}").unwrap();
    assert_eq!(out.matches("<figure class=\"pw-chart\"").count(), 3);
    assert!(out.contains("class=\"pw-marker pw-marker-tlb\""));
    assert!(out.contains("the reference lab machine, huge pages"));
}
