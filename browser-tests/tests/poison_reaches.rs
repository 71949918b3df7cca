//! The hostile-file test's poisoned run, checked without a browser: the
//! model refuses a payload only in the fields whose format it checks (a
//! run id, the timestamps, an experiment's name), so a new field with a
//! rule across its siblings (schema 6's measured TLB figures) fails here in
//! seconds rather than in the browser test minutes later.

use pagewalk_browser_tests::book_copy::fresh_run;
use pagewalk_browser_tests::poison::poison_run;

#[test]
fn only_formats_keep_a_payload_out_of_a_run_file() {
    let poisoned = poison_run(&fresh_run("cccccc"));
    let formats = [
        "provenance.run_id",
        "provenance.started_utc",
        "provenance.finished_utc",
        "experiments[].name",
    ];
    for (field, why) in &poisoned.refused {
        assert!(
            formats.contains(&field.as_str()),
            "refused in {field}: {why}"
        );
    }
    assert!(
        poisoned.places.len() > 100,
        "only {} places",
        poisoned.places.len()
    );
    // The schema-6 fields are among those reached.
    for field in ["measured.tlbs[].why", "l2_tlb.note"] {
        assert!(
            poisoned.fields.iter().any(|f| f.ends_with(field)),
            "{field} not poisoned: {:?}",
            poisoned.fields
        );
    }
}
