//! Reading JSON into the model's types (and the chart specs and the
//! worker's parameters), with the path of the field that does not fit
//! (`experiments[0].results.first-touch.pages`).
//!
//! The text is parsed into a [`serde_json::Value`] first (the run files'
//! limits are checked on that tree), then read from the tree here. This
//! does what serde_json's `&Value` deserializer wrapped in
//! `serde_path_to_error` did, with the same messages, in a fraction of the
//! code: the page's worker reads run files with it, and there that pair was
//! over half the wasm. What keeps it small: a struct is read from a JSON
//! object only (serde would also compile every struct's read-from-an-array
//! path, which the collector never writes), the path is added to an error
//! on its way out rather than tracked on the way in (no wrapper around
//! every visitor), and the generic methods only match and call the
//! visitor. Its messages are written here too, so that serde's own (which
//! formats floats with core's float code) never links into the page.

mod error;
mod key;
mod node;

pub use error::FieldError;

use serde::de::{self, DeserializeOwned};
use serde_json::Value;

/// Parses `text` and reads a `T` from it.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, FieldError> {
    let value: Value = serde_json::from_str(text).map_err(|e| FieldError::new(e.to_string()))?;
    from_value(&value)
}

/// Reads a `T` from a parsed tree.
pub fn from_value<'de, T: de::Deserialize<'de>>(value: &'de Value) -> Result<T, FieldError> {
    T::deserialize(node::Node(value))
}
