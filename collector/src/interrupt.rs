//! Ctrl-C as a flag. The handler only sets it; experiments poll it between
//! repetitions so a run stops at a clean boundary and still writes what
//! finished.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

pub fn install() -> Result<(), String> {
    ctrlc::set_handler(|| REQUESTED.store(true, Ordering::SeqCst))
        .map_err(|e| format!("cannot install the Ctrl-C handler: {e}"))
}

pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
