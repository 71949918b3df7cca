//! A tiny static file server on 127.0.0.1 for the built book.
//!
//! One thread accepts, one short-lived thread per connection answers
//! (`Connection: close`, no caching), and every request is logged so a test
//! can see what the page asked for, 404s included.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// One request the server answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    pub method: String,
    /// The request target as sent (path and query).
    pub target: String,
    pub status: u16,
}

/// A running server; stops when dropped.
pub struct Server {
    addr: SocketAddr,
    root: PathBuf,
    stop: Arc<AtomicBool>,
    log: Arc<Mutex<Vec<Served>>>,
    thread: Option<JoinHandle<()>>,
}

/// Serves `dir` on a free port of 127.0.0.1.
pub fn serve(dir: impl Into<PathBuf>) -> io::Result<Server> {
    let root = dir.into();
    if !root.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{}: not a folder to serve", root.display()),
        ));
    }
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let stop = Arc::new(AtomicBool::new(false));
    let log = Arc::new(Mutex::new(Vec::new()));
    let thread = {
        let (root, stop, log) = (root.clone(), stop.clone(), log.clone());
        std::thread::Builder::new()
            .name("pagewalk-static-server".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let (root, log) = (root.clone(), log.clone());
                    let _ = std::thread::Builder::new()
                        .name("pagewalk-static-conn".into())
                        .spawn(move || {
                            answer(conn, &root, &log);
                        });
                }
            })?
    };
    Ok(Server {
        addr,
        root,
        stop,
        log,
        thread: Some(thread),
    })
}

impl Server {
    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The URL of `path` (relative to the served folder, e.g. `first-touch.html`).
    pub fn url(&self, path: &str) -> String {
        format!("{}/{}", self.origin(), path.trim_start_matches('/'))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every request answered so far.
    pub fn requests(&self) -> Vec<Served> {
        self.log.lock().unwrap().clone()
    }

    /// Requests answered with anything but 200.
    pub fn failures(&self) -> Vec<Served> {
        self.requests()
            .into_iter()
            .filter(|r| r.status != 200)
            .collect()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Answers one request; logs it before replying, so a page that has loaded
/// a resource always finds it in the log.
fn answer(mut conn: TcpStream, root: &Path, log: &Mutex<Vec<Served>>) -> Option<()> {
    conn.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    let mut reader = BufReader::new(conn.try_clone().ok()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    // Skip the headers; a GET has no body we care about.
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next()?.to_string(), parts.next()?.to_string());
    let (status, body, content_type) = if method != "GET" && method != "HEAD" {
        (
            405,
            b"method not allowed\n".to_vec(),
            "text/plain; charset=utf-8",
        )
    } else {
        match resolve(root, &target).and_then(|p| std::fs::read(&p).ok().map(|b| (p, b))) {
            Some((path, body)) => (200, body, content_type(&path)),
            None => (
                404,
                format!("not found: {target}\n").into_bytes(),
                "text/plain; charset=utf-8",
            ),
        }
    };
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Method Not Allowed",
    };
    log.lock().unwrap().push(Served {
        method: method.clone(),
        target,
        status,
    });
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = conn.write_all(head.as_bytes());
    if method != "HEAD" {
        let _ = conn.write_all(&body);
    }
    let _ = conn.flush();
    let _ = conn.shutdown(Shutdown::Write);
    // Let the client see the close before the socket goes away.
    let _ = reader.read(&mut [0u8; 64]);
    Some(())
}

/// The file for a request target, never outside `root`.
fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next()?;
    let decoded = percent_decode(path)?;
    let mut out = root.to_path_buf();
    for c in Path::new(decoded.trim_start_matches('/')).components() {
        match c {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if out.is_dir() {
        out.push("index.html");
    }
    out.is_file().then_some(out)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "ico" => "image/x-icon",
        "wasm" => "application/wasm",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "otf" => "font/otf",
        "eot" => "application/vnd.ms-fontobject",
        "txt" | "md" => "text/plain; charset=utf-8",
        "xml" => "application/xml",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_inside_root_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a b.html"), "x").unwrap();
        std::fs::write(dir.path().join("index.html"), "i").unwrap();
        assert_eq!(
            resolve(dir.path(), "/a%20b.html?x=1"),
            Some(dir.path().join("a b.html"))
        );
        assert_eq!(
            resolve(dir.path(), "/"),
            Some(dir.path().join("index.html"))
        );
        assert_eq!(resolve(dir.path(), "/../etc/passwd"), None);
        assert_eq!(resolve(dir.path(), "/missing.html"), None);
    }

    #[test]
    fn serves_files_and_logs_requests() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("page.html"), "<p>hi</p>").unwrap();
        let server = serve(dir.path()).unwrap();
        let get = |path: &str| {
            let mut s = TcpStream::connect(server.addr).unwrap();
            write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
            let mut text = String::new();
            s.read_to_string(&mut text).unwrap();
            text
        };
        let ok = get("/page.html");
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        assert!(ok.contains("Content-Type: text/html"), "{ok}");
        assert!(ok.ends_with("<p>hi</p>"), "{ok}");
        assert!(get("/nope.js").starts_with("HTTP/1.1 404"));
        assert_eq!(server.requests().len(), 2);
        assert_eq!(server.failures().len(), 1);
        assert_eq!(server.failures()[0].target, "/nope.js");
    }
}
