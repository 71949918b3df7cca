//! Any bytes as a run file: refused by the model with the file named, or
//! charted and drawn without a panic, in work bounded by the points drawn.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pagewalk_figures::{build, render_svg, Palette, CHART_NAMES};

fuzz_target!(|bytes: &[u8]| {
    let Ok(run) = pagewalk_model::parse_run_bytes("fuzz.json", bytes) else {
        return;
    };
    for name in CHART_NAMES {
        if let Ok(spec) = build(name, &[&run]) {
            let _ = render_svg(&spec, &Palette::light(), 640, 0);
        }
    }
});
