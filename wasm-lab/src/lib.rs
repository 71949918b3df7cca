//! The in-page experiments as WebAssembly, for a Web Worker.
//!
//! `scripts/build-wasm` wraps this module, its wasm-bindgen glue and
//! `worker.js` (the message loop) into one function whose source the page
//! turns into a Blob URL worker, so nothing is fetched, from `file://` too.
//! Every export takes and returns JSON text (progress goes to the global
//! `pagewalkLabProgress(done, total, text)`); the logic is in
//! `pagewalk-lab` and, for a dropped file's overlays,
//! `pagewalk_figures::overlay`, tested natively.
//!
//! | export | does |
//! | --- | --- |
//! | [`timer`] | measures `performance.now()`'s step here |
//! | [`first_touch`] | grows this module's memory size by size, times grow and two passes |
//! | [`chase`] | the pointer chase over region sizes up to a bound |
//! | [`tlb_model`] | the LRU TLB model over the same sizes |
//! | [`load_file`] | validates a run file and builds its overlay for each chart |
//! | [`compare_files`] | holds two or more run files against the first, as `collector compare` does |
//!
//! The experiments run synchronously: the worker is busy until they
//! return, and the page cancels one by terminating the worker.

use pagewalk_lab::charts;
use pagewalk_lab::first_touch::{FirstTouchParams, Grow};
use pagewalk_lab::{chase::ChaseParams, tlb::TlbParams, Clock, Progress, TimerInfo};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `performance.now()`: a global in workers as in pages.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;

    /// The worker's progress hook (`self.pagewalkLabProgress`, set by
    /// `worker.js`). A global rather than a callback argument: a borrowed
    /// JS object makes wasm-bindgen emit `table.fill`, which Debian's
    /// wasm-opt 108 cannot parse.
    #[wasm_bindgen(js_name = pagewalkLabProgress)]
    fn progress_hook(done: u32, total: u32, text: &str);
}

struct PerformanceClock;

impl Clock for PerformanceClock {
    fn now_ms(&self) -> f64 {
        performance_now()
    }
}

/// This module's own linear memory, grown with `memory.grow`.
struct WasmMemory;

impl Grow for WasmMemory {
    fn grow(&mut self, bytes: u64) -> Result<*mut u8, String> {
        grow_memory(bytes)
    }
}

#[cfg(target_arch = "wasm32")]
fn grow_memory(bytes: u64) -> Result<*mut u8, String> {
    use pagewalk_lab::first_touch::WASM_PAGE;
    use pagewalk_lab::size_label;
    let have = core::arch::wasm32::memory_size(0) as u64 * WASM_PAGE;
    let pages = bytes.div_ceil(WASM_PAGE);
    let refused = || {
        format!(
            "memory.grow by {} failed: the browser refused more memory (this worker already had {}); \
             nothing else is affected, try smaller sizes",
            size_label(bytes),
            size_label(have)
        )
    };
    let pages = usize::try_from(pages).map_err(|_| refused())?;
    let prev = core::arch::wasm32::memory_grow(0, pages);
    if prev == usize::MAX {
        return Err(refused());
    }
    Ok((prev as u64 * WASM_PAGE) as usize as *mut u8)
}

#[cfg(not(target_arch = "wasm32"))]
fn grow_memory(_bytes: u64) -> Result<*mut u8, String> {
    Err("memory.grow exists only in WebAssembly".to_string())
}

fn parse<T: pagewalk_model::json::FromJson>(what: &str, text: &str) -> Result<T, String> {
    pagewalk_model::json::from_str(text).map_err(|e| format!("bad {what} parameters: {e}"))
}

fn report(value: Result<Value, String>) -> String {
    match value {
        Ok(v) => v.to_string(),
        Err(e) => json!({ "error": e }).to_string(),
    }
}

fn reporter() -> impl FnMut(Progress) {
    |p: Progress| progress_hook(p.done, p.total, &p.text)
}

fn measure_timer(cross_origin_isolated: bool) -> TimerInfo {
    pagewalk_lab::timer_resolution(&PerformanceClock, 100.0, cross_origin_isolated)
}

/// `{"resolution_ns", "readings", "cross_origin_isolated"}`.
#[wasm_bindgen]
pub fn timer(cross_origin_isolated: bool) -> String {
    json!(measure_timer(cross_origin_isolated)).to_string()
}

/// Runs first touch; `params` is a `FirstTouchParams`. Returns
/// `{"report": FirstTouchReport, "series": {"lab-first-touch": Overlay}}`
/// or `{"error"}` for parameters that do not parse.
#[wasm_bindgen]
pub fn first_touch(params: &str, cross_origin_isolated: bool) -> String {
    report(parse::<FirstTouchParams>("first-touch", params).map(|p| {
        let timer = measure_timer(cross_origin_isolated);
        let r = pagewalk_lab::first_touch::run(
            &p,
            timer,
            &PerformanceClock,
            &mut WasmMemory,
            &mut reporter(),
        );
        json!({
            "report": r,
            "series": { charts::FIRST_TOUCH: { "series": charts::first_touch_series(&r) } },
        })
    }))
}

/// Runs the chase sweep; `params` is a `ChaseParams`.
#[wasm_bindgen]
pub fn chase(params: &str, cross_origin_isolated: bool) -> String {
    report(parse::<ChaseParams>("chase", params).map(|p| {
        let timer = measure_timer(cross_origin_isolated);
        let r = pagewalk_lab::chase::run(&p, timer, &PerformanceClock, &mut reporter());
        let series = json!({ "series": charts::chase_series(&r) });
        // Also over the collector's staircase chart, where a page has it:
        // the same chase, the same axes.
        json!({
            "report": r,
            "series": { charts::CHASE: series, "staircase": series },
        })
    }))
}

/// The TLB model; `params` is a `TlbParams`.
#[wasm_bindgen]
pub fn tlb_model(params: &str) -> String {
    report(parse::<TlbParams>("tlb-model", params).map(|p| {
        let r = pagewalk_lab::tlb::run(&p);
        let markers = charts::tlb_markers(&r);
        json!({
            "report": r,
            "series": { charts::TLB_MODEL: { "series": charts::tlb_series(&r) } },
            "markers": charts::TLB_MARKED.iter().map(|c| (c.to_string(), json!(markers))).collect::<serde_json::Map<_, _>>(),
        })
    }))
}

/// Validates a run file and builds its overlays: `{"file": LoadedFile}`,
/// or `{"error": "NAME: field `...`: ..."}`. `charts` is a JSON array of
/// the page's chart names.
#[wasm_bindgen]
pub fn load_file(label: &str, bytes: &[u8], charts: &str) -> String {
    report(
        parse::<Vec<String>>("chart list", charts)
            .and_then(|c| pagewalk_figures::overlay::load_file(label, bytes, &c))
            .map(|f| json!({ "file": f })),
    )
}

/// Compares run files: `names` is a JSON array of file names, `lengths` a
/// JSON array of their byte counts, `bytes` the files one after another
/// (one buffer crosses into wasm more simply than a list of them).
/// Returns `{"table": CompareTable}` or `{"error"}` naming the file.
#[wasm_bindgen]
pub fn compare_files(names: &str, lengths: &str, bytes: &[u8]) -> String {
    report(split_files(names, lengths, bytes).and_then(|files| {
        pagewalk_lab::compare::compare_files(&files).map(|t| json!({ "table": t }))
    }))
}

fn split_files(names: &str, lengths: &str, bytes: &[u8]) -> Result<Vec<(String, Vec<u8>)>, String> {
    let names = parse::<Vec<String>>("file name", names)?;
    let lengths = parse::<Vec<usize>>("file length", lengths)?;
    if names.len() != lengths.len() || lengths.iter().sum::<usize>() != bytes.len() {
        return Err("the files did not arrive whole; load them again".to_string());
    }
    let mut at = 0;
    Ok(names
        .into_iter()
        .zip(lengths)
        .map(|(name, n)| {
            let file = bytes[at..at + n].to_vec();
            at += n;
            (name, file)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_split_by_their_lengths_and_a_short_buffer_is_refused() {
        let files = split_files(r#"["a","b"]"#, "[2,3]", b"xyabc").unwrap();
        assert_eq!(
            files,
            [("a".into(), b"xy".to_vec()), ("b".into(), b"abc".to_vec())]
        );
        assert!(split_files(r#"["a","b"]"#, "[2,3]", b"xyab").is_err());
        assert!(split_files(r#"["a"]"#, "[2,3]", b"xyabc").is_err());
    }
}
