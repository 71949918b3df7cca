//! The one data model of pagewalk.
//!
//! The collector writes [`RunFile`]s as JSON into `data/`; the mdBook
//! preprocessor and the `wasm-viz` chart component read them back. Keeping
//! the types in one crate means a field renamed here is renamed everywhere,
//! and a file that does not fit is rejected with the file and field named
//! (see [`load`]).
//!
//! Units live in the field names (`_ns`, `_kib`, `_bytes`) so the JSON reads
//! on its own.

pub mod first_touch;
pub mod load;
pub mod machine;
pub mod run;
pub mod stats;
pub mod translation;

pub use first_touch::*;
pub use load::{parse_run, read_run, ModelError};
pub use machine::*;
pub use run::*;
pub use stats::Summary;
pub use translation::*;

/// The schema version this build writes and the newest it can read.
///
/// Bump it when a change would make an older reader misread a file (a new
/// experiment kind, a renamed or retyped field). Additions that older readers
/// may ignore do not need a bump.
pub const SCHEMA_VERSION: u32 = 1;
