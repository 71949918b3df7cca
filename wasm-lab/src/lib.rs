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
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// The modules run single-threaded (no `atomics`), what talc's wasm
/// allocator needs.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

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
    let v = value.unwrap_or_else(|e| object(vec![("error", Value::String(e))]));
    text(&v)
}

/// `v` as JSON text. Not `Value`'s `to_string`, whose `Display` adapter
/// builds an `io::Error` from a string and so links `Debug` formatting.
fn text(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// `x` as JSON. Not `serde_json::json!`, which unwraps each conversion:
/// that panic's message would bring `Debug` formatting, with its Unicode
/// tables, into the module, and these types always convert.
fn value<T: serde::Serialize>(x: &T) -> Value {
    serde_json::to_value(x).unwrap_or(Value::Null)
}

/// `{"key": value, ...}`, inserted one by one: collecting into the map
/// would compile a sort per caller.
fn object(entries: Vec<(&str, Value)>) -> Value {
    let mut map = serde_json::Map::new();
    for (k, v) in entries {
        map.insert(k.to_string(), v);
    }
    Value::Object(map)
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
    text(&value(&measure_timer(cross_origin_isolated)))
}

/// Runs first touch; `params` is a `FirstTouchParams`. Returns
/// `{"report": FirstTouchReport, "series": {"lab-first-touch": Overlay},
/// "left_off": [phase and why, for a phase with no value at any size]}`
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
        let (drawn, left_off) = charts::first_touch_series(&r);
        let series = object(vec![("series", value(&drawn))]);
        object(vec![
            ("report", value(&r)),
            ("series", object(vec![(charts::FIRST_TOUCH, series)])),
            ("left_off", value(&left_off)),
        ])
    }))
}

/// Runs the chase sweep; `params` is a `ChaseParams`.
#[wasm_bindgen]
pub fn chase(params: &str, cross_origin_isolated: bool) -> String {
    report(parse::<ChaseParams>("chase", params).map(|p| {
        let timer = measure_timer(cross_origin_isolated);
        let r = pagewalk_lab::chase::run(&p, timer, &PerformanceClock, &mut reporter());
        let series = object(vec![("series", value(&charts::chase_series(&r)))]);
        // Also over the collector's staircase chart, where a page has it:
        // the same chase, the same axes.
        object(vec![
            ("report", value(&r)),
            (
                "series",
                object(vec![(charts::CHASE, series.clone()), ("staircase", series)]),
            ),
        ])
    }))
}

/// The TLB model; `params` is a `TlbParams`.
#[wasm_bindgen]
pub fn tlb_model(params: &str) -> String {
    report(parse::<TlbParams>("tlb-model", params).map(|p| {
        let r = pagewalk_lab::tlb::run(&p);
        let markers = charts::tlb_markers(&r);
        let series = object(vec![("series", value(&charts::tlb_series(&r)))]);
        let markers = value(&markers);
        let marked = charts::TLB_MARKED.iter().map(|&c| (c, markers.clone()));
        object(vec![
            ("report", value(&r)),
            ("series", object(vec![(charts::TLB_MODEL, series)])),
            ("markers", object(marked.collect())),
        ])
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
            .map(|f| object(vec![("file", value(&f))])),
    )
}

/// Compares run files: `names` is a JSON array of file names, `lengths` a
/// JSON array of their byte counts, `bytes` the files one after another
/// (one buffer crosses into wasm more simply than a list of them).
/// Returns `{"table": CompareTable}` or `{"error"}` naming the file.
#[wasm_bindgen]
pub fn compare_files(names: &str, lengths: &str, bytes: &[u8]) -> String {
    report(split_files(names, lengths, bytes).and_then(|files| {
        pagewalk_lab::compare::compare_files(&files).map(|t| object(vec![("table", value(&t))]))
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
