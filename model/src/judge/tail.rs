//! The tail: whether the fault counter explains the as-written p99.9.

use serde::Serialize;

use super::counts::PercentileBand;
use super::order::Order;

/// What the fault counter says about the as-written p99.9.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum P999Cause {
    /// Pre-faulting took faults out of the loop, faulting iterations are
    /// common enough to be the p99.9, and it fell beyond the spread.
    Faults,
    /// The faults went but the p99.9 measurably did not fall: something
    /// else sets it.
    NotFaults,
    /// The counter did not fall, faulting iterations are rarer than one in
    /// a thousand, or the repetitions cannot say whether the p99.9 fell.
    Unproved,
}

/// What the fault counter says about the as-written p99.9, from `p999`
/// (its order against the pre-faulted p99.9), the fault share's `band`
/// ([`super::counts::percentile_band`]) and the hot loop's faults as
/// written and at most pre-faulted: `faults` when pre-faulting took faults
/// out of the loop, faulting iterations are common enough to be the p99.9
/// and it fell beyond the spread; `not-faults` when the faults went but
/// the p99.9 did not fall; `unproved` when the counter did not fall, or
/// faulting iterations are rarer than one in a thousand.
pub fn p999_cause(
    p999: Order,
    band: PercentileBand,
    written: f64,
    prefaulted_max: f64,
) -> P999Cause {
    if prefaulted_max >= written || band == PercentileBand::BelowP999 {
        return P999Cause::Unproved;
    }
    match p999 {
        Order::Slower => P999Cause::Faults,
        // The p99.9 measurably did not fall.
        Order::WithinNoise | Order::Faster => P999Cause::NotFaults,
        // The repetitions cannot say whether it fell.
        Order::Unstable | Order::Unrepeated => P999Cause::Unproved,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::word;

    #[test]
    fn the_p999_is_the_faults_only_when_the_counter_and_the_percentile_both_move() {
        let band = PercentileBand::BetweenP99AndP999;
        assert_eq!(
            p999_cause(Order::Slower, band, 256.0, 0.0),
            P999Cause::Faults
        );
        assert_eq!(
            p999_cause(Order::Slower, PercentileBand::AboveP99, 256.0, 255.0),
            P999Cause::Faults
        );
        // The faults went, the p99.9 stayed (or rose): something else sets it.
        assert_eq!(
            p999_cause(Order::WithinNoise, band, 256.0, 0.0),
            P999Cause::NotFaults
        );
        assert_eq!(
            p999_cause(Order::Faster, band, 256.0, 0.0),
            P999Cause::NotFaults
        );
        // The counter did not fall, or faults are rarer than the percentile.
        assert_eq!(
            p999_cause(Order::Slower, band, 256.0, 256.0),
            P999Cause::Unproved
        );
        assert_eq!(
            p999_cause(Order::Slower, PercentileBand::BelowP999, 256.0, 0.0),
            P999Cause::Unproved
        );
        // The repetitions cannot say whether it fell.
        assert_eq!(
            p999_cause(Order::Unstable, band, 256.0, 0.0),
            P999Cause::Unproved
        );
        assert_eq!(
            p999_cause(Order::Unrepeated, band, 256.0, 0.0),
            P999Cause::Unproved
        );
    }

    #[test]
    fn outcomes_read_as_the_chapters_write_them() {
        assert_eq!(word(P999Cause::Faults), "faults");
        assert_eq!(word(P999Cause::NotFaults), "not-faults");
        assert_eq!(word(P999Cause::Unproved), "unproved");
    }
}
