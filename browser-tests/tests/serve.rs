//! `mdbook serve` rebuilds when a run lands in `data/runs/`, as the README
//! promises. mdBook's watcher skips every path the book's root `.gitignore`
//! ignores, so this runs the real `mdbook serve` on a copy of the book with
//! the repository's own `.gitignore` files, writes a run, and waits for the
//! served page to name it.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pagewalk_browser_tests::{serial, should_run, workspace_root};

/// Kills `mdbook serve` however the test ends.
struct Serving(Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The body of `GET /path` on `port`, or `None` while nothing answers.
fn get(port: u16, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut body = String::new();
    s.read_to_string(&mut body).ok()?;
    body.starts_with("HTTP/1.1 200").then_some(body)
}

/// Polls until `page` satisfies `ok`, for at most `limit`: a bound on a
/// wait, not a timing assertion.
fn wait_for(port: u16, page: &str, limit: Duration, ok: impl Fn(&str) -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if get(port, page).is_some_and(|b| ok(&b)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    false
}

#[test]
#[cfg_attr(
    not(pagewalk_browser_tests),
    ignore = "needs mdbook and a built preprocessor: set PAGEWALK_BROWSER_TESTS=1 (scripts/test does)"
)]
fn mdbook_serve_rebuilds_when_a_run_lands() {
    if !should_run("mdbook_serve_rebuilds_when_a_run_lands") {
        return;
    }
    let _one_at_a_time = serial();
    let root = workspace_root();
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path();
    copy_dir(&root.join("book"), &book.join("book"));
    copy_dir(&root.join("data/example"), &book.join("data/example"));
    copy_dir(&root.join("data/reference"), &book.join("data/reference"));
    std::fs::create_dir_all(book.join("data/runs")).unwrap();
    // The repository's own ignore files: the root one is what the watcher
    // reads, and putting runs back into it must fail this test.
    std::fs::copy(root.join(".gitignore"), book.join(".gitignore")).unwrap();
    std::fs::copy(
        root.join("data/runs/.gitignore"),
        book.join("data/runs/.gitignore"),
    )
    .unwrap();
    // The same configuration, with the preprocessor built from this
    // workspace wherever the copy is, and without the generated scripts
    // (not needed to see the text change).
    let manifest = root.join("Cargo.toml");
    let toml = std::fs::read_to_string(root.join("book.toml"))
        .unwrap()
        .replace(
            "cargo run --quiet --release -p mdbook-pagewalk --",
            &format!(
                "cargo run --quiet --release --manifest-path {} -p mdbook-pagewalk --",
                manifest.display()
            ),
        )
        .lines()
        .filter(|l| !l.starts_with("additional-js") && !l.starts_with("additional-css"))
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(book.join("book.toml"), toml).unwrap();

    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("mdbook")
        .args(["serve", "-n", "127.0.0.1", "-p", &port.to_string()])
        .arg(book)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mdbook on PATH (scripts/install-tools installs it)");
    let _serving = Serving(child);
    assert!(
        wait_for(port, "/introduction.html", Duration::from_secs(120), |b| b
            .contains("example")),
        "mdbook serve never served the example book"
    );

    // A run of this reader's, newer than the example, with its own id.
    let example = std::fs::read_dir(root.join("data/example"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let mut run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(example).unwrap()).unwrap();
    let id = "20991231T000000Z-5e7e00";
    run["provenance"]["run_id"] = id.into();
    run["provenance"]["started_utc"] = "2099-12-31T00:00:00Z".into();
    std::fs::write(
        book.join(format!("data/runs/{id}.json")),
        serde_json::to_string(&run).unwrap(),
    )
    .unwrap();
    assert!(
        wait_for(port, "/introduction.html", Duration::from_secs(120), |b| b
            .contains(id)),
        "the served book never showed the new run {id}: the watcher did not see data/runs/"
    );
}
