//! The TLB markers on a run's translation charts and the TLB levels the
//! chapter's text reads for that run come from one computation
//! (`pagewalk_analysis::measured::of_run`): held against each other here
//! on the committed Intel guest, a schema-5 run whose hypervisor zeroes
//! CPUID leaf 0x18 and whose file recorded no measured geometry, so the
//! book reads its levels off its curves.

use std::path::Path;

use mdbook_pagewalk::{context, DataSet};
use pagewalk_figures::{build, MarkerKind};
use serde_json::Value;

mod common;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data");
const INTEL: &str = "machines/intel-xeon-emr-16vcpu-kvm.json";

/// The Intel run as the shown run, beside the references.
fn data() -> (DataSet, tempfile::TempDir) {
    let dir = common::data_dir(&Path::new(DATA).join(INTEL));
    (DataSet::load(dir.path()).unwrap(), dir)
}

/// `80–112` or `1,536–2,048` as the context writes a level's entries.
fn bounds(entries: &Value) -> (u64, u64) {
    let text = entries.as_str().expect("the level was measured");
    let (low, high) = text.split_once('–').expect("both bounds");
    let n = |s: &str| s.replace(',', "").trim().parse::<u64>().unwrap();
    (n(low), n(high))
}

#[test]
fn the_intel_runs_charts_mark_the_tlb_levels_its_text_reads() {
    let (data, _dir) = data();
    let run = data.run.as_ref().unwrap();
    assert!(
        run.tlb_reach().unwrap().measured.is_none(),
        "a run without `measured`"
    );
    let context = context::build(&data);
    let measured = &context["tlb"]["measured"];
    assert_eq!(measured["recorded"], Value::Bool(false), "{measured:#}");
    assert_eq!(measured["cpuid_silent"], Value::Bool(true), "{measured:#}");
    for (key, tag) in [("l1", "dTLB"), ("l2", "STLB")] {
        let (low, high) = bounds(&measured[key]["entries"]);
        for chart in [
            "staircase",
            "staircase-ratio",
            "tlb-reach",
            "tlb-reach-ratio",
        ] {
            let spec = build(chart, &[run]).unwrap();
            let at: Vec<_> = spec
                .x
                .markers
                .iter()
                .filter(|m| m.kind == MarkerKind::Tlb && m.tag == tag)
                .collect();
            assert_eq!(at.len(), 1, "{chart}, {tag}: {:?}", spec.x.markers);
            let label = &at[0].label;
            assert!(label.contains("measured by this run"), "{chart}: {label}");
            assert!(
                label.contains(&format!("between {low} and {high} entries")),
                "{chart}: {label} against the text's {low}–{high}"
            );
            let note = spec.note.as_deref().unwrap_or("");
            assert!(!note.contains("no TLB reach is marked"), "{chart}: {note}");
        }
    }
}
