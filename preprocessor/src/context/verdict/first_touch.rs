//! `ft.verdict` and each mode's `granted`.

use pagewalk_model::Mode;
use schemars::JsonSchema;
use serde::Serialize;

use super::{basis, count_against, granted, huge_blocks, order, per_page, Measured};
use crate::context::first_touch::{FirstTouch, PhaseView};

/// What the first touch says, each null where its inputs are absent.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct FirstTouchVerdict {
    /// `slower`, `faster`, `within-noise`: the `hugepage` first pass against the `nohugepage` one, ns per page.
    pub hugepage_first: Option<&'static str>,
    /// `slower`, `faster`, `within-noise`: the `default` first pass against the `nohugepage` one.
    pub default_first: Option<&'static str>,
    /// `slower`, `faster`, `within-noise`: `populate`'s allocation (where it faults) against the `nohugepage` first pass.
    pub populate: Option<&'static str>,
    /// `as-expected`, `more`, `fewer`: the `nohugepage` first pass's faults against `ft.pages` (counts are exact: no noise).
    pub touch_faults: Option<&'static str>,
    /// `as-expected`, `more`, `fewer`: the `default` first pass's faults against its `faults_predicted`.
    pub default_faults: Option<&'static str>,
    /// `plenty`, `scarce`: the free 2 MiB blocks before the run (an order-10 block supplies two) against the region's 2 MiB windows (`ft.huge_regions`).
    pub huge_blocks: Option<&'static str>,
    /// `ranges`, `floor`, `medians`: what decided `hugepage_first`: the repetitions' ranges (overlapping or not), the A-vs-A floor (each mode ran once), or the medians alone (no floor either).
    pub hugepage_first_basis: Option<&'static str>,
    /// `exact`, `about-one-per-page`, `more`, `fewer`: the `nohugepage` first pass's faults against `ft.pages`, allowing as many extra as that mode's second pass took over memory already present (the rest of the thread faulting, not the region).
    pub touch_per_page: Option<&'static str>,
}

/// Files `ft.verdict` and each mode's `granted` (nothing for a skipped run).
pub fn add(ft: &mut FirstTouch, floor: Option<f64>) {
    let windows = ft.huge_regions;
    let Some(modes) = ft.modes.as_mut() else {
        return;
    };
    let phase =
        |mode: Mode, pick: fn(&crate::context::first_touch::ModeView) -> &Option<PhaseView>| {
            modes
                .get(mode)
                .and_then(|m| pick(m).as_ref())
                .and_then(|p| Measured::ranged(Some(p.ns), Some(p.ns_min), Some(p.ns_max)))
        };
    let compare =
        |a: Option<Measured>, b: Option<Measured>| a.zip(b).map(|(a, b)| order(a, b, floor));
    let touch = phase(Mode::Nohugepage, |m| &m.first);
    let hugepage = phase(Mode::Hugepage, |m| &m.first);
    let faults = |mode: Mode| modes.get(mode)?.first.as_ref()?.faults;
    // The same loop over pages already present: what the thread faults
    // besides the region.
    let second = modes
        .get(Mode::Nohugepage)
        .and_then(|m| m.second.as_ref()?.faults);
    let verdict = FirstTouchVerdict {
        hugepage_first: compare(phase(Mode::Hugepage, |m| &m.first), touch),
        default_first: compare(phase(Mode::Default, |m| &m.first), touch),
        populate: compare(phase(Mode::Populate, |m| &m.alloc), touch),
        touch_faults: faults(Mode::Nohugepage)
            .zip(ft.pages)
            .map(|(f, p)| count_against(f, p as f64)),
        default_faults: faults(Mode::Default)
            .zip(modes.get(Mode::Default).and_then(|m| m.faults_predicted))
            .map(|(f, p)| count_against(f, p)),
        huge_blocks: ft
            .before
            .as_ref()
            .zip(windows)
            .map(|(b, w)| huge_blocks(b.free_huge_blocks, w)),
        hugepage_first_basis: hugepage.zip(touch).map(|(a, b)| basis(a, b, floor)),
        touch_per_page: faults(Mode::Nohugepage)
            .zip(ft.pages)
            .map(|(f, p)| per_page(f, p as f64, second.unwrap_or(0.0))),
    };
    for &mode in Mode::ALL.iter() {
        if let Some(m) = modes.get_mut(mode) {
            m.granted = m.huge_fraction.zip(windows).map(|(f, w)| granted(f, w));
        }
    }
    ft.verdict = Some(verdict);
}
