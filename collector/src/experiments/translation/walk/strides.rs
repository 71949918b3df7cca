//! The strides walk spreads its pages by, and the page sizes they are
//! made of: shared by the run, the layout ([`super::range`]) and the checks.

const KIB: u64 = 1024;
pub const PAGE: u64 = 4 * KIB;
pub const HUGE: u64 = 2 << 20;
pub const GIB: u64 = 1 << 30;
/// Strides on 4 KiB pages: entries sharing a line, a line each, a
/// page-table page each, a page-directory page each.
pub const SMALL_STRIDES: [u64; 4] = [PAGE, 32 * KIB, HUGE, GIB];
/// On huge pages: the baseline (every translation in the TLB), then a
/// directory line shared, then a page-directory page each.
pub const HUGE_STRIDES: [u64; 3] = [PAGE, HUGE, GIB];
