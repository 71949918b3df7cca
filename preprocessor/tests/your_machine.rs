//! "Your machine at a glance" (`book/your-machine.md`) over the example run
//! and the references: each headline row shows, in its own columns, the
//! context value that row names, so a row wired to the wrong path (p90 for
//! p99.9, the reference in the run's column) fails here.

use std::path::Path;
use std::sync::Arc;

use mdbook_pagewalk::helpers::format_dur;
use mdbook_pagewalk::{context, DataSet, Renderer};
use serde_json::Value;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The example run and the references, without the reader's own runs.
fn data() -> (DataSet, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["example", "reference"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        for entry in std::fs::read_dir(Path::new(ROOT).join("data").join(sub)).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, dir.path().join(sub).join(path.file_name().unwrap())).unwrap();
        }
    }
    (DataSet::load(dir.path()).unwrap(), dir)
}

fn at<'a>(ctx: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(ctx, |v, k| &v[k])
}

/// The table row whose first cell is `label`, as its cells.
fn row<'a>(page: &'a str, label: &str) -> Vec<&'a str> {
    page.lines()
        .find(|l| l.starts_with(&format!("| {label} |")))
        .unwrap_or_else(|| panic!("no row {label:?}"))
        .trim_matches('|')
        .split(" | ")
        .map(str::trim)
        .collect()
}

#[test]
fn each_row_shows_its_own_values() {
    let (data, _dir) = data();
    let data = Arc::new(data);
    let ctx = context::build(&data);
    let template = std::fs::read_to_string(Path::new(ROOT).join("book/your-machine.md")).unwrap();
    let page = Renderer::new(data)
        .render("your-machine.md", &template)
        .unwrap();
    // label, the run's path, the reference's path (R1 or R2 by the table).
    let rows = [
        (
            "first write, per 4 KiB page (no huge pages)",
            "ft.modes.nohugepage.first.ns",
            "r1.ft.modes.nohugepage.first.ns",
        ),
        (
            "`MAP_POPULATE`, per page",
            "ft.modes.populate.alloc.ns",
            "r1.ft.modes.populate.alloc.ns",
        ),
        (
            "p99.9 as written",
            "tail.variants.as_written.p999",
            "r2.tail.variants.as_written.p999",
        ),
        (
            "above the threshold: a fresh `mmap` each time",
            "alloc.paths.mmap_forced.p50",
            "r2.alloc.paths.mmap_forced.p50",
        ),
        (
            "`getpid` (a real system call)",
            "syscall.ops.getpid.ns",
            "r2.syscall.ops.getpid.ns",
        ),
        (
            "`clock_gettime` (vDSO)",
            "syscall.ops.clock_gettime.ns",
            "r2.syscall.ops.clock_gettime.ns",
        ),
    ];
    for (label, run, reference) in rows {
        let cells = row(&page, label);
        for (column, path) in [(1, run), (2, reference)] {
            let v = at(&ctx, path)
                .as_f64()
                .unwrap_or_else(|| panic!("{path} is not a number in the example context"));
            assert_eq!(
                cells[column],
                format_dur(v),
                "{label}, column {column} ({path})"
            );
        }
    }
    // The run's kind heads the run's column.
    let kind = ctx["run"]["kind"].as_str().unwrap();
    assert!(page.contains(&format!("| figure | {kind} | R2 |")));
}
