//! Shared by the R2 tests: a committed reference file, loaded through the
//! model (`tests/common/` so cargo does not run it as a test of its own).

use std::path::Path;

use pagewalk_model::{read_run, RunFile};

/// `data/reference/NAME`, which must load and be a reference file.
pub fn reference(name: &str) -> RunFile {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data/reference")
        .join(name);
    let run = read_run(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(run.is_reference());
    run
}
