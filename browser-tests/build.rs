//! Browser tests are compiled as `#[ignore]`d unless PAGEWALK_BROWSER_TESTS=1,
//! so a plain `cargo test` lists them as ignored (with the reason) instead
//! of reporting passes for tests that did not run.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(pagewalk_browser_tests)");
    println!("cargo::rerun-if-env-changed=PAGEWALK_BROWSER_TESTS");
    if std::env::var("PAGEWALK_BROWSER_TESTS").is_ok_and(|v| v == "1") {
        println!("cargo::rustc-cfg=pagewalk_browser_tests");
    }
}
