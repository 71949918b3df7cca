//! Address translation, measured. Three experiments time the same
//! dependent pointer chase ([`chase`], its loop in [`kernel`]) in two page
//! regimes ([`region`]):
//!
//! * [`staircase`]: ns per load vs region size, where the cache and the TLB
//!   staircases interleave;
//! * [`tlb_reach`]: one line per page, data kept in cache, so only
//!   translation changes as pages are added;
//! * [`thp`]: huge pages at large sizes and what the kernel really granted.
//!
//! [`sweep`] runs the chase over a ladder of sizes in every regime.
//! [`bends`] finds the steps and sets them against what CPUID and sysfs say
//! ([`geometry`]); [`measured`] reads each TLB level's reach off the
//! curves, for tlb-reach to record and for [`walk`] and [`mlp`] to size
//! themselves past; [`checks`] proves each premise with a counter.

mod bends;
mod chase;
mod checks;
mod counters;
pub(crate) mod geometry;
pub(crate) mod hugetlb;
mod kernel;
mod measured;
pub mod mlp;
mod region;
pub mod staircase;
mod sweep;
pub mod thp;
pub mod tlb_reach;
pub mod walk;
