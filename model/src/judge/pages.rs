//! The pages themselves: how much of a region the kernel backed with huge
//! pages, whether free memory could have, where first touch put pages on
//! NUMA nodes, and what moved a curve more, placement or repetition.
//! Pages and windows are counted, so these need no noise floor.

use serde::Serialize;

/// How much of a region came in huge pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Backed {
    /// Every 2 MiB window (for [`granted`], all but at most the one an
    /// unaligned mapping loses).
    All,
    /// Some huge pages, not all.
    Some,
    /// No huge page at all.
    None,
}

/// How much of a region of `windows` 2 MiB windows came in huge pages,
/// from the `fraction` (0..1) backed: `all` when at most the one window an
/// unaligned mapping loses is missing, `some`, or `none`.
pub fn granted(fraction: f64, windows: u64) -> Backed {
    let windows = windows.max(1) as f64;
    if fraction <= 0.0 {
        Backed::None
    } else if fraction * windows >= windows - 1.0 {
        Backed::All
    } else {
        Backed::Some
    }
}

/// The least-backed huge region, from its `fraction` (0..1): `none` (no
/// huge page at all), `some` or `all`.
pub fn backed(fraction: f64) -> Backed {
    if fraction <= 0.0 {
        Backed::None
    } else if fraction >= 1.0 {
        Backed::All
    } else {
        Backed::Some
    }
}

/// Free 2 MiB blocks before the run against the windows a region has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum HugeBlocks {
    /// Every window could have had a free block.
    Plenty,
    /// Fewer free blocks than windows.
    Scarce,
}

/// Free blocks of 2 MiB or more before the run against the windows the
/// region has: `plenty` when every window could have one, else `scarce`.
pub fn huge_blocks(free_blocks: u64, windows: u64) -> HugeBlocks {
    if free_blocks >= windows {
        HugeBlocks::Plenty
    } else {
        HugeBlocks::Scarce
    }
}

/// Where one thread's first touch put its pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum NodeShare {
    /// Every page placed is on the fullest node.
    OneNode,
    /// Some page went to another node.
    Spread,
}

/// Where one thread's first touch put its pages, from the share (0..1) of
/// them on the fullest node: `one-node` when it is all of them, else
/// `spread`.
pub fn node_share(max_node_share: f64) -> NodeShare {
    if max_node_share >= 1.0 {
        NodeShare::OneNode
    } else {
        NodeShare::Spread
    }
}

/// Where one thread per node, each writing its own share, put the pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Split {
    /// No node holds more than one share.
    Even,
    /// Some thread's pages went to another node than its own.
    Uneven,
}

/// Where one thread per node, each writing its own share, put the pages:
/// `even` when no node holds more than one share (`pages / nodes`, rounded
/// up), else `uneven` (some thread's pages went to another node than its
/// own). Pages are counted, so this is exact.
pub fn split(max_node_share: f64, pages: u64, nodes: u64) -> Split {
    let fullest = (max_node_share * pages as f64).round() as u64;
    if fullest <= pages.div_ceil(nodes.max(1)) {
        Split::Even
    } else {
        Split::Uneven
    }
}

/// A region against a TLB level's reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum ReachSide {
    /// The region fits the reach (or fills it exactly).
    Inside,
    /// The region is larger than the reach.
    Beyond,
}

/// A region of `span` bytes against a `reach` of bytes: `inside` when it
/// is no larger, else `beyond`.
pub fn reach_side(span: u64, reach: u64) -> ReachSide {
    if span <= reach {
        ReachSide::Inside
    } else {
        ReachSide::Beyond
    }
}

/// What moved a curve's points more: fresh mappings (placement) or
/// repetitions within one mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Larger {
    /// The spread between mappings is the larger.
    BetweenLarger,
    /// The spread within a mapping is as large or larger.
    WithinLarger,
}

/// The spread `between` mappings against the spread `within` one (each
/// `max / min - 1`): `between-larger` when placement moved the points
/// more, else `within-larger`; `None` without both spreads.
pub fn larger(between: Option<f64>, within: Option<f64>) -> Option<Larger> {
    let (b, w) = (between?, within?);
    Some(if b > w {
        Larger::BetweenLarger
    } else {
        Larger::WithinLarger
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn granted_counts_windows() {
        assert_eq!(granted(1.0, 512), Backed::All);
        // An unaligned mapping loses one window and still got all it could.
        assert_eq!(granted(511.0 / 512.0, 512), Backed::All);
        assert_eq!(granted(510.0 / 512.0, 512), Backed::Some);
        assert_eq!(granted(100.0 / 512.0, 512), Backed::Some);
        assert_eq!(granted(0.0, 512), Backed::None);
        // A region smaller than a window: any huge page is all of it.
        assert_eq!(granted(0.5, 0), Backed::All);
    }

    #[test]
    fn huge_blocks_plenty_or_scarce() {
        assert_eq!(huge_blocks(2, 512), HugeBlocks::Scarce);
        assert_eq!(huge_blocks(511, 512), HugeBlocks::Scarce);
        assert_eq!(huge_blocks(512, 512), HugeBlocks::Plenty);
        assert_eq!(huge_blocks(9000, 512), HugeBlocks::Plenty);
    }

    #[test]
    fn backing_of_the_least_backed_region() {
        assert_eq!(backed(0.0), Backed::None);
        assert_eq!(backed(0.4), Backed::Some);
        assert_eq!(backed(0.999), Backed::Some);
        assert_eq!(backed(1.0), Backed::All);
    }

    #[test]
    fn one_node_or_spread() {
        assert_eq!(node_share(1.0), NodeShare::OneNode);
        assert_eq!(node_share(0.97), NodeShare::Spread);
    }

    #[test]
    fn split_even_or_uneven() {
        // Two nodes, 16384 pages: a node may hold 8192 and no more.
        assert_eq!(split(0.5, 16384, 2), Split::Even);
        assert_eq!(split(8193.0 / 16384.0, 16384, 2), Split::Uneven);
        assert_eq!(split(0.75, 16384, 2), Split::Uneven);
        // An odd count rounds a share up.
        assert_eq!(split(2.0 / 3.0, 3, 2), Split::Even);
        assert_eq!(split(1.0, 3, 2), Split::Uneven);
    }

    #[test]
    fn a_region_as_large_as_the_reach_is_inside_it() {
        assert_eq!(reach_side(1 << 30, 1 << 30), ReachSide::Inside);
        assert_eq!(reach_side((1 << 30) + 1, 1 << 30), ReachSide::Beyond);
        assert_eq!(reach_side(1 << 20, 1 << 30), ReachSide::Inside);
    }

    #[test]
    fn placement_wins_only_when_it_moved_the_points_more() {
        assert_eq!(larger(Some(0.5), Some(0.01)), Some(Larger::BetweenLarger));
        assert_eq!(larger(Some(0.02), Some(0.1)), Some(Larger::WithinLarger));
        // A tie is no win for placement.
        assert_eq!(larger(Some(0.1), Some(0.1)), Some(Larger::WithinLarger));
        assert_eq!(larger(Some(0.1), None), None);
        assert_eq!(larger(None, Some(0.1)), None);
    }

    #[test]
    fn outcomes_read_as_the_chapters_write_them() {
        use crate::judge::word;
        assert_eq!(word(Backed::All), "all");
        assert_eq!(word(Backed::Some), "some");
        assert_eq!(word(Backed::None), "none");
        assert_eq!(word(HugeBlocks::Plenty), "plenty");
        assert_eq!(word(HugeBlocks::Scarce), "scarce");
        assert_eq!(word(NodeShare::OneNode), "one-node");
        assert_eq!(word(NodeShare::Spread), "spread");
        assert_eq!(word(Split::Even), "even");
        assert_eq!(word(Split::Uneven), "uneven");
        assert_eq!(word(ReachSide::Inside), "inside");
        assert_eq!(word(ReachSide::Beyond), "beyond");
        assert_eq!(word(Larger::BetweenLarger), "between-larger");
        assert_eq!(word(Larger::WithinLarger), "within-larger");
    }
}
