//! `libc`, under a name of its own, for the book's Rust blocks.
//!
//! `mdbook test` can only add directories to rustdoc's search path (`-L`),
//! and the toolchain's sysroot ships a `libc` rlib of its own, so a block's
//! `extern crate libc;` finds two candidates and fails. `scripts/test` builds
//! this crate alone into `target/book-test/`, and a block that calls libc
//! starts with the hidden line `# extern crate pagewalk_snippets as libc;`;
//! rustdoc then finds exactly one crate of that name, and its `libc`
//! dependency by hash.
//!
//! The tests in `tests/` check the other languages: every C block compiles
//! with `cc -Wall -Werror`, and every read-only shell line runs.

pub use libc::*;
