//! A measurement in a fresh `collector probe ...` process: for what must
//! not touch the collector's own state (`mallopt`), or must be read at a
//! process's start (glibc tunables), or counted alone (`strace -c`).

use serde_json::Value;

/// Runs `collector <args>` in a fresh process with `env` added to its
/// environment, and reads back the JSON it prints.
pub fn run(args: &[String], env: &[(&str, &str)]) -> Result<Value, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let out = std::process::Command::new(exe)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .map_err(|e| format!("starting the probe: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "probe exited with {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("probe output: {e}"))
}
