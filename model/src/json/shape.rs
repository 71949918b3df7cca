//! What JSON each type reads, as data: written by `#[derive(FromJson)]`
//! from the same `#[serde]` attributes as the reader, so a test can reach
//! every field a type has without a list typed by hand (the hostile-file
//! test puts markup in every free-text field of a run, present or not).
//! Nothing in the page calls it, so none of it links into WebAssembly.

/// The JSON a type reads. Nested shapes are functions, so a shape is built
/// only as deep as it is walked.
pub enum Shape {
    /// Any string.
    Text,
    /// One of these names (an enum's unit variants).
    Word(&'static [&'static str]),
    Number,
    Bool,
    /// `null`, absent, or the inner shape.
    Optional(fn() -> Shape),
    List(fn() -> Shape),
    /// An object whose keys are text (`Text`) or whole numbers (`Number`).
    Map(fn() -> Shape, fn() -> Shape),
    /// A struct: its fields by JSON name.
    Object(Vec<Field>),
    /// An externally tagged enum: `"name"` (no content) or
    /// `{"name": content}`.
    External(Vec<(&'static str, Option<ShapeOf>)>),
    /// An internally tagged enum: `{tag: "name", ...fields}`.
    Tagged {
        tag: &'static str,
        variants: Vec<(&'static str, Vec<Field>)>,
    },
    /// A type read by hand-written code, not described.
    Opaque,
}

/// A nested shape, built when walked.
pub type ShapeOf = fn() -> Shape;

/// A struct's field: its JSON name, its shape, and whether it may be left
/// out (`Option`, or `#[serde(default)]`).
pub struct Field {
    pub name: &'static str,
    pub shape: fn() -> Shape,
    pub optional: bool,
}
