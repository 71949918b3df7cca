//! Where a request goes: the origin of a URL, whether a request stays on
//! the page's own origin, and the `file://` URL of a file.

use std::path::Path;

use anyhow::{Context, Result};

/// `http://host:port` of an http(s) URL, `file://` for a file URL.
pub fn origin_of(url: &str) -> String {
    if url.starts_with("file:") {
        return "file://".to_string();
    }
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
            format!("{scheme}://{host}")
        }
        None => url.to_string(),
    }
}

/// True when `url` stays on `origin` (see [`origin_of`]).
pub fn same_origin(url: &str, origin: &str) -> bool {
    if ["data:", "blob:", "about:"]
        .iter()
        .any(|p| url.starts_with(p))
    {
        return true;
    }
    if origin == "file://" {
        return url.starts_with("file://");
    }
    url == origin || url.starts_with(&format!("{origin}/"))
}

/// The `file://` URL of a file on disk.
pub fn file_url(path: &Path) -> Result<String> {
    let abs = std::fs::canonicalize(path).with_context(|| format!("{}", path.display()))?;
    let mut url = String::from("file://");
    for b in abs.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                url.push(b as char)
            }
            _ => url.push_str(&format!("%{b:02X}")),
        }
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        assert_eq!(
            origin_of("http://127.0.0.1:8000/a/b.html?x"),
            "http://127.0.0.1:8000"
        );
        assert_eq!(origin_of("file:///tmp/x.html"), "file://");
        let o = "http://127.0.0.1:8000";
        assert!(same_origin("http://127.0.0.1:8000/x.js", o));
        assert!(same_origin("data:image/png;base64,AA", o));
        assert!(!same_origin("http://127.0.0.1:8001/x.js", o));
        assert!(!same_origin("http://127.0.0.1:80000/x.js", o));
        assert!(!same_origin("https://fonts.googleapis.com/css", o));
        assert!(!same_origin("chrome-error://chromewebdata/", o));
        assert!(same_origin("file:///tmp/a.css", "file://"));
        assert!(!same_origin("https://example.org/", "file://"));
    }

    #[test]
    fn file_urls_escape() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a b#.html");
        std::fs::write(&p, "").unwrap();
        let url = file_url(&p).unwrap();
        assert!(url.starts_with("file:///"), "{url}");
        assert!(url.ends_with("/a%20b%23.html"), "{url}");
    }
}
