//! The release binary (`scripts/release`, attached to each tagged release):
//! it needs no glibc symbol newer than 2.17, its checksum file matches, and
//! copied to a folder outside the repository it lists the experiments and
//! writes a run the model reads. `scripts/test` builds it and points
//! PAGEWALK_RELEASE_DIR at it; without that this test says it skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

const NAME: &str = "collector-x86_64-linux-gnu";
/// The oldest glibc the binary must run on.
const FLOOR: (u32, u32) = (2, 17);

fn release_dir() -> Option<PathBuf> {
    match std::env::var_os("PAGEWALK_RELEASE_DIR") {
        Some(d) => Some(PathBuf::from(d)),
        None => {
            eprintln!("skipped: PAGEWALK_RELEASE_DIR is not set (scripts/test sets it after scripts/release)");
            None
        }
    }
}

/// Every `GLIBC_x.y[.z]` version the binary's dynamic symbols name.
fn glibc_versions(binary: &Path) -> Vec<(u32, u32)> {
    let out = Command::new("objdump")
        .arg("-T")
        .arg(binary)
        .output()
        .expect("objdump");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut versions: Vec<(u32, u32)> = text
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .filter_map(|w| w.strip_prefix("GLIBC_"))
        .filter_map(|v| {
            let mut parts = v.split('.').map(|p| p.parse::<u32>());
            Some((parts.next()?.ok()?, parts.next()?.ok()?))
        })
        .collect();
    versions.sort();
    versions.dedup();
    versions
}

#[test]
fn the_release_binary_runs_on_glibc_2_17_from_anywhere() {
    let Some(dir) = release_dir() else { return };
    let binary = dir.join(NAME);
    assert!(binary.is_file(), "{} is missing", binary.display());

    let versions = glibc_versions(&binary);
    assert!(!versions.is_empty(), "a glibc binary names glibc versions");
    let newest = *versions.last().unwrap();
    assert!(
        newest <= FLOOR,
        "needs GLIBC_{}.{}, newer than {FLOOR:?}: {versions:?}",
        newest.0,
        newest.1
    );

    let check = Command::new("sha256sum")
        .args(["--check", &format!("{NAME}.sha256")])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );

    // A reader's download folder: nothing of the repository around it.
    let elsewhere = tempfile::tempdir().unwrap();
    let copy = elsewhere.path().join("collector");
    std::fs::copy(&binary, &copy).unwrap();
    let list = Command::new(&copy)
        .arg("list")
        .current_dir(elsewhere.path())
        .output()
        .unwrap();
    assert!(list.status.success());
    assert!(String::from_utf8_lossy(&list.stdout).contains("first-touch"));

    let run = Command::new(&copy)
        .args(["run", "syscall", "--quick"])
        .current_dir(elsewhere.path())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // The default folder, relative to where the reader ran it.
    let runs: Vec<_> = std::fs::read_dir(elsewhere.path().join("data/runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "{runs:?}");
    let file = pagewalk_model::read_run(&runs[0]).unwrap();
    let pagewalk_model::Provenance::Collector {
        collector_version, ..
    } = &file.provenance
    else {
        panic!("a collector run");
    };
    assert!(collector_version.contains("release"), "{collector_version}");
    eprintln!(
        "release binary: newest glibc symbol GLIBC_{}.{}, {} bytes, ran list and run syscall --quick from {}",
        newest.0,
        newest.1,
        std::fs::metadata(&binary).unwrap().len(),
        elsewhere.path().display()
    );
}
