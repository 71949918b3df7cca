//! Reading JSON into the model's types (and the chart specs, overlays and
//! the worker's parameters), with the path of the field that does not fit
//! (`experiments[0].results.first-touch.pages`).
//!
//! The text is parsed into a [`serde_json::Value`] first, by [`parse()`]
//! (the run files' limits are checked on that tree), then each type reads itself from the
//! tree with [`FromJson`], derived by `#[derive(FromJson)]` from the same
//! `#[serde]` attributes serde's derive reads, so one set of attributes
//! says how a type is written and read.
//!
//! Why not serde's `Deserialize`: its derive compiles a visitor state
//! machine per struct, and in the page's WebAssembly that was over half
//! of the experiments' worker. Here a struct is one call per field to a
//! function generic over the field's type only ([`read::Fields::req`]),
//! shared by every struct with a field of that type, with no branch. serde's derive stays
//! on the types as the specification: `tests/json_errors.rs` changes every
//! node of the committed files in every way a hand-edited file goes wrong
//! and holds this reader's field and message to serde's (wrapped in
//! `serde_path_to_error`, what the model used before). The messages are
//! serde's words, written here so that serde's own formatting (core's float
//! and `Debug` code) never links into the page.

mod error;
mod float;
mod impls;
mod parse;
#[doc(hidden)]
pub mod read;
#[doc(hidden)]
pub mod shape;

pub use error::{describe, quoted, FieldError};
pub use pagewalk_model_derive::FromJson;
pub use serde_json::Value;

/// A type read from a parsed JSON tree.
pub trait FromJson: Sized {
    fn from_json(v: &Value) -> Result<Self, FieldError>;

    /// Any value of the type, standing in for a field that did not read
    /// while the rest of its struct is read (see [`read::Fields`]); never
    /// returned to a caller.
    fn fallback() -> Self;

    /// The value of a struct field the object does not have: an error
    /// (`missing field`), except for `Option`, which reads as `None`.
    fn absent(field: &'static str) -> Result<Self, FieldError> {
        Err(FieldError::missing(field))
    }

    /// The JSON this type reads, for tests that walk every field (see
    /// [`shape`]); hand-written readers leave it undescribed.
    #[doc(hidden)]
    fn shape() -> shape::Shape {
        shape::Shape::Opaque
    }
}

/// Parses `text` and reads a `T` from it.
pub fn from_str<T: FromJson>(text: &str) -> Result<T, FieldError> {
    from_value(&parse(text)?)
}

/// Parses JSON text into a tree, as `serde_json::from_str::<Value>` does
/// (the same text accepted, the same error where it is not; see `parse`),
/// except that a key repeated in one object is refused with its field.
pub fn parse(text: &str) -> Result<Value, FieldError> {
    parse::parse(text)
}

/// Reads a `T` from a parsed tree.
pub fn from_value<T: FromJson>(value: &Value) -> Result<T, FieldError> {
    T::from_json(value)
}
