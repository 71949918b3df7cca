//! Counts against what they should be: faults against pages, a count that
//! should be zero, how often a fault or an interrupt comes. Counts are
//! exact, so there is no noise to allow for and no threshold but the
//! shares the percentiles stand for.

use serde::Serialize;

/// A count against the count expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Count {
    /// Exactly as many as expected.
    AsExpected,
    /// More than expected.
    More,
    /// Fewer than expected.
    Fewer,
}

/// A count against the count expected (faults against pages or against
/// the huge-page prediction): `as-expected`, `more` or `fewer`. Counts are
/// exact, so there is no noise to allow for.
pub fn count_against(counted: f64, expected: f64) -> Count {
    if counted > expected {
        Count::More
    } else if counted < expected {
        Count::Fewer
    } else {
        Count::AsExpected
    }
}

/// A fault count against the pages that should each fault once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum PerPage {
    /// One fault per page exactly.
    Exact,
    /// More than the pages by no more than the allowance: the surplus is
    /// the rest of the thread faulting, not the region.
    AboutOnePerPage,
    /// More than the pages and the allowance together.
    More,
    /// Fewer than the pages: some page took no fault of its own.
    Fewer,
}

/// A fault count against the pages that should each fault once: `exact`;
/// `about-one-per-page` when it passes the pages by no more than
/// `allowance`, the faults the same code took over memory that was already
/// present (so the surplus is the rest of the thread faulting, not the
/// region); `more` beyond that; `fewer` when some page took no fault of its
/// own. Counts are exact and the allowance is the run's own, so no
/// tolerance is typed in.
pub fn per_page(faults: f64, pages: f64, allowance: f64) -> PerPage {
    if faults == pages {
        PerPage::Exact
    } else if faults < pages {
        PerPage::Fewer
    } else if faults - pages <= allowance {
        PerPage::AboutOnePerPage
    } else {
        PerPage::More
    }
}

/// An exact count that should be zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum NoneOrSome {
    /// Zero.
    None,
    /// One or more.
    Some,
}

/// An exact count that should be zero: `none` or `some`.
pub fn none_or_some(count: f64) -> NoneOrSome {
    if count > 0.0 {
        NoneOrSome::Some
    } else {
        NoneOrSome::None
    }
}

/// Where a share of iterations falls among the tail percentiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum PercentileBand {
    /// More than one iteration in a hundred: p99 is one of them.
    AboveP99,
    /// One in a thousand or more, one in a hundred or fewer: p99.9 is one
    /// of them, p99 not.
    BetweenP99AndP999,
    /// Fewer than one in a thousand: not even p99.9 is one of them.
    BelowP999,
}

/// Where a fault share falls among the tail percentiles: `above-p99` (more
/// than one iteration in a hundred faults, so p99 is a faulting one),
/// `between-p99-and-p999`, or `below-p999` (fewer than one in a thousand).
pub fn percentile_band(fault_share: f64) -> PercentileBand {
    if fault_share > 0.01 {
        PercentileBand::AboveP99
    } else if fault_share >= 0.001 {
        PercentileBand::BetweenP99AndP999
    } else {
        PercentileBand::BelowP999
    }
}

/// How often another CPU was interrupted, per timed call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Interrupts {
    /// At least one call in two.
    EveryCall,
    /// More than one call in ten, fewer than one in two.
    SomeCalls,
    /// One call in ten or fewer.
    None,
}

/// How often the other CPU was interrupted, from its interrupts per timed
/// call: `every-call` (at least one call in two), `some-calls` (more than
/// one in ten), else `none`.
pub fn interrupts(per_call: f64) -> Interrupts {
    if per_call >= 0.5 {
        Interrupts::EveryCall
    } else if per_call > 0.1 {
        Interrupts::SomeCalls
    } else {
        Interrupts::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::word;

    #[test]
    fn counts_against_what_was_expected() {
        assert_eq!(count_against(262144.0, 262144.0), Count::AsExpected);
        assert_eq!(count_against(262145.0, 262144.0), Count::More);
        assert_eq!(count_against(262143.0, 262144.0), Count::Fewer);
        assert_eq!(count_against(512.0, 262144.0), Count::Fewer);
    }

    #[test]
    fn per_page_allows_only_what_the_same_code_faulted_anyway() {
        assert_eq!(per_page(16384.0, 16384.0, 0.0), PerPage::Exact);
        // Two extra, and the pass over present memory took three: the rest of
        // the thread, not the region.
        assert_eq!(per_page(16386.0, 16384.0, 3.0), PerPage::AboutOnePerPage);
        assert_eq!(per_page(16387.0, 16384.0, 3.0), PerPage::AboutOnePerPage);
        // Beyond the allowance, or with none, it is more.
        assert_eq!(per_page(16388.0, 16384.0, 3.0), PerPage::More);
        assert_eq!(per_page(16385.0, 16384.0, 0.0), PerPage::More);
        // No allowance makes a shortfall one per page.
        assert_eq!(per_page(16000.0, 16384.0, 1000.0), PerPage::Fewer);
    }

    #[test]
    fn none_or_some_at_zero() {
        assert_eq!(none_or_some(0.0), NoneOrSome::None);
        assert_eq!(none_or_some(1.0), NoneOrSome::Some);
    }

    #[test]
    fn percentile_band_at_one_in_a_hundred_and_one_in_a_thousand() {
        assert_eq!(
            percentile_band(1.0 / 256.0),
            PercentileBand::BetweenP99AndP999
        );
        assert_eq!(percentile_band(1.0 / 16.0), PercentileBand::AboveP99);
        assert_eq!(percentile_band(1.0 / 4096.0), PercentileBand::BelowP999);
        // One in a hundred exactly is not more than one in a hundred; one
        // in a thousand exactly is p99.9's.
        assert_eq!(percentile_band(0.01), PercentileBand::BetweenP99AndP999);
        assert_eq!(percentile_band(0.001), PercentileBand::BetweenP99AndP999);
    }

    #[test]
    fn interrupts_every_call_some_calls_or_none() {
        assert_eq!(interrupts(0.82), Interrupts::EveryCall);
        assert_eq!(interrupts(0.5), Interrupts::EveryCall);
        assert_eq!(interrupts(0.49), Interrupts::SomeCalls);
        assert_eq!(interrupts(0.14), Interrupts::SomeCalls);
        assert_eq!(interrupts(0.1), Interrupts::None);
        assert_eq!(interrupts(0.0), Interrupts::None);
    }

    #[test]
    fn outcomes_read_as_the_chapters_write_them() {
        assert_eq!(word(Count::AsExpected), "as-expected");
        assert_eq!(word(Count::More), "more");
        assert_eq!(word(Count::Fewer), "fewer");
        assert_eq!(word(PerPage::Exact), "exact");
        assert_eq!(word(PerPage::AboutOnePerPage), "about-one-per-page");
        assert_eq!(word(PerPage::More), "more");
        assert_eq!(word(PerPage::Fewer), "fewer");
        assert_eq!(word(NoneOrSome::None), "none");
        assert_eq!(word(NoneOrSome::Some), "some");
        assert_eq!(word(PercentileBand::AboveP99), "above-p99");
        assert_eq!(
            word(PercentileBand::BetweenP99AndP999),
            "between-p99-and-p999"
        );
        assert_eq!(word(PercentileBand::BelowP999), "below-p999");
        assert_eq!(word(Interrupts::EveryCall), "every-call");
        assert_eq!(word(Interrupts::SomeCalls), "some-calls");
        assert_eq!(word(Interrupts::None), "none");
    }
}
