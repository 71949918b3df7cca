//! The mdBook preprocessor behind pagewalk's chapters.
//!
//! Each chapter is a Handlebars template. [`Pagewalk`] loads the runs in
//! `data/` ([`data`]), turns them into the template context ([`context`]),
//! and renders every chapter with the formatting and chart helpers
//! ([`helpers`]). See `TEMPLATES.md` for the context chapters can use.
//!
//! [`Renderer`] is the whole of it but mdBook's protocol: without the
//! default `mdbook` feature the crate builds for WebAssembly, where
//! wasm-book renders the book in the page from a reader's run through the
//! same [`Renderer::render_for_html`] as `mdbook build`, its data set made
//! from files in memory ([`DataFiles`]).

pub mod context;
pub mod data;
pub mod diagram;
pub mod doctest;
pub mod drill;
pub mod escape;
pub mod helpers;
pub mod lab;
pub mod machines;
pub mod search;
pub mod source;
pub mod tables;
pub mod template_check;
pub mod verdict_words;
pub mod whose;

#[cfg(feature = "mdbook")]
mod preprocess;

pub mod render;

pub use data::{DataFiles, DataSet};
#[cfg(feature = "mdbook")]
pub use preprocess::Pagewalk;
pub use render::{RenderedChapter, Renderer};
