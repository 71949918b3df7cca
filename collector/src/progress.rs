//! Progress bars on stderr. indicatif hides them when stderr is not a
//! terminal, so piped output and tests stay clean.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

pub fn bar(len: u64, prefix: &str) -> ProgressBar {
    let bar = ProgressBar::new(len)
        .with_prefix(prefix.to_string())
        .with_style(
            ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} {elapsed:>4} {msg}")
                .expect("static template")
                .progress_chars("=> "),
        );
    // The tick thread wakes rarely and its faults are not counted: phases
    // count faults per thread (see faults.rs).
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}
