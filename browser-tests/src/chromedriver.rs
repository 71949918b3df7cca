//! Finding Chromium and chromedriver, and running chromedriver: on a free
//! port, in a process group of its own, ended (with anything it left
//! behind) when dropped.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

/// The Chromium and chromedriver binaries: `$PAGEWALK_CHROMIUM` and
/// `$PAGEWALK_CHROMEDRIVER`, else Debian's `/usr/bin/chromium` and
/// `/usr/bin/chromedriver`.
pub fn browser_binaries() -> Result<(PathBuf, PathBuf)> {
    let find = |var: &str, default: &str, package: &str| -> Result<PathBuf> {
        let path = std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map_or_else(|| PathBuf::from(default), PathBuf::from);
        if !path.is_file() {
            bail!(
                "{} not found: install Debian's `{package}` package \
                 (`apt-get install chromium chromium-driver`; scripts/test does), or set {var}",
                path.display()
            );
        }
        Ok(path)
    };
    Ok((
        find("PAGEWALK_CHROMIUM", "/usr/bin/chromium", "chromium")?,
        find(
            "PAGEWALK_CHROMEDRIVER",
            "/usr/bin/chromedriver",
            "chromium-driver",
        )?,
    ))
}

/// A chromedriver process on a free port, in its own process group so
/// that ending it also ends any browser it left behind.
pub(crate) struct ChromeDriver {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl ChromeDriver {
    pub(crate) fn spawn(binary: &Path, log: &Path) -> Result<ChromeDriver> {
        use std::os::unix::process::CommandExt;
        let mut last_error = None;
        for _ in 0..3 {
            let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
            let child = Command::new(binary)
                .arg(format!("--port={port}"))
                .arg(format!("--log-path={}", log.display()))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0)
                .spawn()
                .with_context(|| format!("starting {}", binary.display()))?;
            let mut driver = ChromeDriver {
                child,
                port,
                log: log.to_path_buf(),
            };
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(15) {
                if let Ok(Some(status)) = driver.child.try_wait() {
                    last_error = Some(format!("chromedriver exited with {status}"));
                    break;
                }
                if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return Ok(driver);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            last_error.get_or_insert_with(|| "chromedriver did not listen within 15 s".into());
            drop(driver);
        }
        bail!(
            "{}: {}; its log:\n{}",
            binary.display(),
            last_error.unwrap_or_default(),
            tail(log)
        )
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub(crate) fn log_tail(&self) -> String {
        tail(&self.log)
    }

    /// Ends WebDriver session `id` with a plain blocking request (see
    /// `Drop for Browser`).
    pub(crate) fn delete_session(&self, id: &str) -> std::io::Result<()> {
        use std::io::{Read, Write};
        let port = self.port;
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let mut conn = TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
        conn.set_read_timeout(Some(Duration::from_secs(15)))?;
        write!(
            conn,
            "DELETE /session/{id} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )?;
        // chromedriver keeps the connection open: read the head and the body
        // it announces, not to the end.
        let mut reply = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let n = conn.read(&mut buf)?;
            if n == 0 {
                return Ok(());
            }
            reply.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&reply);
            if let Some(end) = text.find("\r\n\r\n") {
                let length = text[..end]
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                if reply.len() >= end + 4 + length {
                    return Ok(());
                }
            }
        }
    }
}

impl Drop for ChromeDriver {
    fn drop(&mut self) {
        // The group is chromedriver's own (process_group(0) above): its id
        // is chromedriver's pid, so this ends only what this harness started.
        let pid = self.child.id();
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pid}")])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}
