//! `walk.verdict`: what a walk cost where its entries share lines, and at
//! which stride each further level of the walk started to cost more, so a
//! chapter says a level missed only where the run's own ranges say so.

use schemars::JsonSchema;
use serde::Serialize;

use super::{order, Measured, SLOWER};
use crate::context::walk::{Point, Walk};

/// Each null where its inputs are absent.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct WalkVerdict {
    /// `slower`, `faster`, `within-noise`: 4 KiB pages at the 4 KiB stride against huge pages at the same stride (the same lines, no walk): what a walk whose entries share cache lines adds (repetition ranges, else the A-vs-A floor).
    pub shared_walk: Option<&'static str>,
    /// 4 KiB pages, 32 KiB stride against 4 KiB: each last-level entry in a line of its own.
    pub own_line: Option<&'static str>,
    /// 2 MiB against 32 KiB: a page-table page each.
    pub own_table: Option<&'static str>,
    /// 1 GiB against 2 MiB: a page-directory page each.
    pub own_directory: Option<&'static str>,
    /// How many of `own_line`, `own_table`, `own_directory` were `slower`.
    pub levels_slower: Option<u32>,
    /// The 1 GiB stride's extra ns over the 4 KiB stride's (both against the no-walk baseline).
    pub widest_over_shared: Option<f64>,
    /// 4 KiB pages against huge pages at the 2 MiB stride.
    pub huge_2m: Option<&'static str>,
}

fn measured(p: Option<&Point>) -> Option<Measured> {
    let p = p?;
    Measured::ranged(p.ns, p.ns_min, p.ns_max)
}

/// How many of the steps outward were `slower`, when all were judged.
pub fn levels_slower(steps: &[Option<&'static str>]) -> Option<u32> {
    steps
        .iter()
        .map(|s| s.map(|s| u32::from(s == SLOWER)))
        .sum()
}

/// Files the verdict under `walk`.
pub fn add(walk: &mut Walk, floor: Option<f64>) {
    if walk.record.skipped.is_some() {
        return;
    }
    let cmp = |a: Option<&Point>, b: Option<&Point>| {
        measured(a)
            .zip(measured(b))
            .map(|(a, b)| order(a, b, floor))
    };
    let s = &walk.small;
    let own_line = cmp(s.s32k.as_ref(), s.s4k.as_ref());
    let own_table = cmp(s.s2m.as_ref(), s.s32k.as_ref());
    let own_directory = cmp(s.s1g.as_ref(), s.s2m.as_ref());
    let extra = |p: &Option<Point>| p.as_ref().and_then(|p| p.extra_ns);
    walk.verdict = Some(WalkVerdict {
        shared_walk: cmp(s.s4k.as_ref(), walk.huge.s4k.as_ref()),
        own_line,
        own_table,
        own_directory,
        levels_slower: levels_slower(&[own_line, own_table, own_directory]),
        widest_over_shared: extra(&s.s1g)
            .zip(extra(&s.s4k))
            .filter(|(_, shared)| *shared > 0.0)
            .map(|(wide, shared)| wide / shared),
        huge_2m: cmp(s.s2m.as_ref(), walk.huge.s2m.as_ref()),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_counted_only_when_all_were_judged() {
        assert_eq!(
            levels_slower(&[Some("slower"), Some("within-noise"), Some("slower")]),
            Some(2)
        );
        assert_eq!(levels_slower(&[Some("slower"), None, Some("slower")]), None);
        assert_eq!(levels_slower(&[Some("faster"); 3]), Some(0));
    }
}
