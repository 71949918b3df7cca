//! `build.rs` promises that a plain `cargo test` lists the real-browser tests
//! as ignored, with the reason, instead of reporting passes for tests that
//! never opened a page. This holds every test here to it: a test that
//! builds or serves the book or starts Chromium carries the `cfg_attr`
//! that ignores it without PAGEWALK_BROWSER_TESTS=1. (Eight did not, and
//! reported "ok" under `cargo test`.)

#[test]
fn every_browser_test_is_ignored_without_a_browser() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut unmarked = Vec::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        // This file names the words it looks for.
        if path.extension().is_none_or(|e| e != "rs")
            || path.ends_with(file!().rsplit('/').next().unwrap())
        {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.trim() != "#[test]" {
                continue;
            }
            let head = lines[i + 1..(i + 6).min(lines.len())].join("\n");
            let body = lines[i + 1..(i + 20).min(lines.len())].join("\n");
            let needs_browser = ["built_book(", "book(", "Browser::start", "should_run("]
                .iter()
                .any(|w| body.contains(w));
            if !needs_browser {
                continue;
            }
            checked += 1;
            if !head.contains("not(pagewalk_browser_tests)") {
                unmarked.push(format!("{}:{}", path.display(), i + 1));
            }
        }
    }
    assert!(checked >= 40, "found only {checked} browser tests");
    assert!(
        unmarked.is_empty(),
        "not ignored without a browser: {unmarked:?}"
    );
}
