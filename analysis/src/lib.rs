//! Algorithms shared by the native collector and the in-page (wasm)
//! experiments, so the browser's pointer chase is the same chase the
//! collector runs. Pure Rust, no I/O, no platform calls: it compiles for
//! wasm32 and is tested natively.

pub mod chase;
pub mod layout;
pub mod measured;
pub mod reach;
pub mod rng;
pub mod steps;
pub mod tlb_model;
