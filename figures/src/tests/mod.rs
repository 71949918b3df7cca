//! The crate's own tests across its modules: the first-touch charts built
//! from a run made here (`charts`), and how specs are drawn, tabled and
//! written (`render`); the run and its reference are in `fixtures`.

mod charts;
mod fixtures;
mod render;
