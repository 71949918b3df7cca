//! The crate's own tests across its modules: the first-touch charts built
//! from a run made here (`charts`), how specs are drawn, tabled and
//! written (`render`), and that no chart's note says an error as the
//! system wrote it (`notes`); the run and its reference are in `fixtures`.

mod charts;
mod fixtures;
mod notes;
mod recount;
mod render;
