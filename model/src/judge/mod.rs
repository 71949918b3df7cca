//! The judges: every verdict the book, `collector compare` and the page
//! show about a run is a pure function here, from plain numbers to a typed
//! outcome. They know nothing of views, templates or pages, so each is
//! tested at its boundaries once and read the same way everywhere.
//!
//! [`order`] is the one rule for "faster, slower, within noise, unstable";
//! the method chapter explains it to readers. [`measured`] reads a view's
//! figures (a median and its range) and the run's noise with it. The
//! other modules, by topic, name the outcomes the chapters branch on; each
//! outcome serializes as the word a template compares with (`"off-chart"`),
//! and its JSON schema lists every such word, so a template comparing with
//! a word no outcome has fails the build.

pub mod busy;
pub mod counts;
pub mod curves;
pub mod measured;
mod order;
pub mod pages;
pub mod rank;
pub mod steps;
pub mod tail;

pub use measured::{Measured, Noise};
pub use order::{
    cross_check, order, p_text, Agreement, Basis, Judgement, Order, Repeated, SIGNIFICANCE,
};

/// An outcome as a template reads it (`"off-chart"`).
#[cfg(test)]
fn word(outcome: impl serde::Serialize) -> String {
    match serde_json::to_value(outcome).unwrap() {
        serde_json::Value::String(s) => s,
        other => panic!("not a word: {other}"),
    }
}
