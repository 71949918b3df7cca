//! The values the command line reads (durations, sizes, names), each
//! parsed and held to the bounds a run file can record before anything
//! runs: what clap's value parsers call.

use pagewalk_model::limits::check_tree;
use pagewalk_model::{AllocPath, Mode};

/// The shortest `--interval`: a sample reads several files of `/proc` for
/// every thread, and samples closer together than that would mostly
/// measure the reading.
pub const MIN_INTERVAL: std::time::Duration = std::time::Duration::from_millis(10);

/// `--for`: a duration ([`parse_duration`]) that a run file can record as
/// the time asked for (the model's limit on seconds).
pub(super) fn parse_watch(text: &str) -> Result<std::time::Duration, String> {
    let d = parse_duration(text)?;
    recordable(serde_json::json!({ "requested_s": d.as_secs_f64() }))?;
    Ok(d)
}

/// `--interval`: a duration of at least [`MIN_INTERVAL`].
pub(super) fn parse_interval(text: &str) -> Result<std::time::Duration, String> {
    let d = parse_duration(text)?;
    if d < MIN_INTERVAL {
        return Err(format!(
            "must be at least {MIN_INTERVAL:?}: each sample reads several /proc files per thread, and closer samples would mostly measure the reading"
        ));
    }
    Ok(d)
}

/// Whether the model's rules accept `field` as a run file would hold it:
/// the bounds on values come from the model, not from numbers typed here.
fn recordable(field: serde_json::Value) -> Result<(), String> {
    check_tree(&field, None).map_err(|(_, why)| format!("a run file could not record it: it {why}"))
}

/// `10s`, `100ms`, `1m 30s`; zero is refused (nothing would be measured).
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    if let Ok(n) = text.trim().parse::<u64>() {
        return Err(match n {
            0 => "must be longer than zero: nothing would be measured".into(),
            _ => format!("`{n}` needs a unit: {n}s or {n}ms"),
        });
    }
    let d: jiff::SignedDuration = text
        .parse()
        .map_err(|e| format!("{e} (try 10s or 250ms)"))?;
    let d = std::time::Duration::try_from(d).map_err(|_| "must not be negative".to_string())?;
    if d.is_zero() {
        return Err("must be longer than zero: nothing would be measured".into());
    }
    Ok(d)
}

/// The smallest page, and the smallest size an experiment can measure.
const PAGE_BYTES: u64 = 4096;

/// Human sizes with binary multiples: `64M` and `64MiB` are both 2^26, as
/// page sizes are powers of two.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let bytes = parse_size::Config::new()
        .with_binary()
        .parse_size(text)
        .map_err(|e| format!("{e} (try 256M or 1G)"))?;
    // A fraction of a byte is no size (`0.5` would round to 1 byte).
    if text.trim().parse::<f64>().is_ok_and(|b| b.fract() != 0.0) {
        return Err("is a fraction of a byte; give whole bytes or a unit (4096, 64M)".into());
    }
    if bytes < PAGE_BYTES {
        return Err(format!(
            "is {bytes} bytes, less than one 4 KiB page ({PAGE_BYTES} bytes): no experiment measures less than a page"
        ));
    }
    // Recorded as the size asked for, whatever the guard then allows.
    recordable(serde_json::json!({ "requested_bytes": bytes }))?;
    Ok(bytes)
}

pub(super) fn parse_alloc_path(text: &str) -> Result<AllocPath, String> {
    AllocPath::from_name(text).ok_or_else(|| format!("unknown allocator path `{text}`"))
}

pub(super) fn parse_mode(text: &str) -> Result<Mode, String> {
    Mode::from_name(text).ok_or_else(|| {
        let names: Vec<_> = Mode::ALL.iter().map(|m| m.name()).collect();
        format!("unknown mode `{text}`; modes are {}", names.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        use std::time::Duration;
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("100ms"), Ok(Duration::from_millis(100)));
        assert_eq!(parse_duration("1m 30s"), Ok(Duration::from_secs(90)));
        assert!(parse_duration("0s")
            .unwrap_err()
            .contains("longer than zero"));
        assert!(parse_duration("0")
            .unwrap_err()
            .contains("longer than zero"));
        assert!(parse_duration("5").unwrap_err().contains("5s"));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn sizes_are_binary() {
        assert_eq!(parse_bytes("64M"), Ok(64 << 20));
        assert_eq!(parse_bytes("64MiB"), Ok(64 << 20));
        assert_eq!(parse_bytes("1G"), Ok(1 << 30));
        assert_eq!(parse_bytes("256m"), Ok(256 << 20));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("1.5M"), Ok(3 << 19));
        assert!(parse_bytes("0").is_err());
        assert!(parse_bytes("4095").unwrap_err().contains("4 KiB page"));
        assert!(parse_bytes("0.5").unwrap_err().contains("fraction"));
        assert!(parse_bytes("4096.5").unwrap_err().contains("fraction"));
        assert!(parse_bytes("lots").is_err());
    }
}
