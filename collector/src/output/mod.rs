//! Where a run goes: a JSON file for the book, a table for the person.

pub mod hot_path;
pub mod json;
pub mod save;
pub mod summary;
pub mod translation;
