//! `mdbook serve` rebuilds when a run lands in `data/runs/`, as the README
//! promises. mdBook's watcher skips every path the book's root `.gitignore`
//! ignores, so this runs the real `mdbook serve` on a copy of the book with
//! the repository's own `.gitignore` files, writes a run, and waits for the
//! served page to name it.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pagewalk_browser_tests::book_copy::{copy_book, fresh_run};
use pagewalk_browser_tests::{serial, should_run};

/// Kills `mdbook serve` however the test ends.
struct Serving(Child);

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
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
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path();
    copy_book(book);

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
    let run = fresh_run("5e7e00");
    let id = run["provenance"]["run_id"].as_str().unwrap().to_string();
    std::fs::write(
        book.join(format!("data/runs/{id}.json")),
        serde_json::to_string(&run).unwrap(),
    )
    .unwrap();
    assert!(
        wait_for(port, "/introduction.html", Duration::from_secs(120), |b| b
            .contains(&id)),
        "the served book never showed the new run {id}: the watcher did not see data/runs/"
    );
}
