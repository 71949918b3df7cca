//! Ctrl-C, SIGTERM and SIGHUP as a flag. A run is stopped by a person
//! (Ctrl-C), by a service manager or a CI timeout (SIGTERM), or by a closed
//! terminal (SIGHUP); in each case what finished is worth keeping. The
//! handler only records the signal; experiments poll [`requested`] between
//! repetitions, so a run stops at a clean boundary and still writes its file.

use std::sync::atomic::{AtomicI32, Ordering};

/// The first signal received, 0 for none.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn on_signal(signal: libc::c_int) {
    // Async-signal-safe: one atomic store, nothing else.
    let _ = RECEIVED.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
}

pub fn install() -> Result<(), String> {
    for signal in SIGNALS {
        // SAFETY: a zeroed sigaction is valid; the handler is an
        // `extern "C" fn(c_int)` that only touches an atomic. SA_RESTART
        // keeps the collector's own waits (on probe children) going.
        let rc = unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut())
        };
        if rc != 0 {
            return Err(format!(
                "cannot install the {} handler: {}",
                name(signal),
                std::io::Error::last_os_error()
            ));
        }
    }
    Ok(())
}

pub fn requested() -> bool {
    RECEIVED.load(Ordering::SeqCst) != 0
}

/// The signal that stopped the run, if one did.
pub fn received() -> Option<libc::c_int> {
    Some(RECEIVED.load(Ordering::SeqCst)).filter(|&s| s != 0)
}

/// How a person would name the signal: `Ctrl-C (SIGINT)`, `SIGTERM`.
pub fn name(signal: libc::c_int) -> &'static str {
    match signal {
        libc::SIGINT => "Ctrl-C (SIGINT)",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// The signal as a run file records it.
pub fn stop_signal(signal: libc::c_int) -> pagewalk_model::StopSignal {
    use pagewalk_model::StopSignal;
    match signal {
        libc::SIGINT => StopSignal::Sigint,
        libc::SIGHUP => StopSignal::Sighup,
        // The only other one handled.
        _ => StopSignal::Sigterm,
    }
}

/// The exit status a shell reports for death by `signal`: 128 + its number.
pub fn exit_status(signal: libc::c_int) -> u8 {
    128u8.saturating_add(signal as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_match_the_shells() {
        assert_eq!(exit_status(libc::SIGINT), 130);
        assert_eq!(exit_status(libc::SIGTERM), 143);
        assert_eq!(exit_status(libc::SIGHUP), 129);
    }
}
