//! `ft.verdict` and each mode's `granted`, from the judges in
//! [`pagewalk_model::judge`].

use pagewalk_model::judge::counts::{count_against, per_page};
use pagewalk_model::judge::measured::{basis, order};
use pagewalk_model::judge::pages::{granted, huge_blocks};
use pagewalk_model::judge::{Measured, Noise};
use pagewalk_model::Mode;

use super::{FirstTouch, FirstTouchVerdict, ModeView, PhaseView};

impl FirstTouch {
    /// Files `verdict` and each mode's `granted` (nothing for a skipped
    /// run).
    pub fn judge(&mut self, noise: Noise) {
        let windows = self.huge_regions;
        let Some(modes) = self.modes.as_mut() else {
            return;
        };
        let phase = |mode: Mode, pick: fn(&ModeView) -> &Option<PhaseView>| {
            modes
                .get(mode)
                .and_then(|m| pick(m).as_ref())
                .and_then(|p| Measured::ranged(Some(p.ns), Some(p.ns_min), Some(p.ns_max)))
        };
        let compare =
            |a: Option<Measured>, b: Option<Measured>| a.zip(b).map(|(a, b)| order(a, b, noise));
        let touch = phase(Mode::Nohugepage, |m| &m.first);
        let hugepage = phase(Mode::Hugepage, |m| &m.first);
        let faults = |mode: Mode| modes.get(mode)?.first.as_ref()?.faults;
        // The same loop over pages already present: what the thread faults
        // besides the region.
        let second = modes
            .get(Mode::Nohugepage)
            .and_then(|m| m.second.as_ref()?.faults);
        let mut verdict = FirstTouchVerdict {
            hugepage_first: compare(hugepage, touch),
            default_first: compare(phase(Mode::Default, |m| &m.first), touch),
            populate: compare(phase(Mode::Populate, |m| &m.alloc), touch),
            malloc_hugetlb: compare(
                phase(Mode::MallocHugetlb, |m| &m.alloc),
                phase(Mode::MallocMemset, |m| &m.alloc),
            ),
            touch_faults: faults(Mode::Nohugepage)
                .zip(self.pages)
                .map(|(f, p)| count_against(f, p as f64)),
            default_faults: faults(Mode::Default)
                .zip(modes.get(Mode::Default).and_then(|m| m.faults_predicted))
                .map(|(f, p)| count_against(f, p)),
            huge_blocks: self
                .before
                .as_ref()
                .zip(windows)
                .map(|(b, w)| huge_blocks(b.free_huge_blocks, w)),
            hugepage_first_basis: hugepage.zip(touch).map(|(a, b)| basis(a, b, noise)),
            touch_per_page: faults(Mode::Nohugepage)
                .zip(self.pages)
                .map(|(f, p)| per_page(f, p as f64, second.unwrap_or(0.0))),
            ..FirstTouchVerdict::default()
        };
        // Which phase carries each mode's faults: the chart's question.
        for &mode in Mode::ALL.iter() {
            let Some(m) = modes.get(mode) else { continue };
            let count = |p: &Option<PhaseView>| p.as_ref().and_then(|p| p.faults);
            let (Some(alloc), Some(first)) = (count(&m.alloc), count(&m.first)) else {
                continue;
            };
            let phase = if alloc > first {
                &mut verdict.faults_at_allocation
            } else {
                &mut verdict.faults_at_first_pass
            };
            phase.push(mode.code().to_string());
        }
        for &mode in Mode::ALL.iter() {
            if let Some(m) = modes.get_mut(mode) {
                m.granted = m.huge_fraction.zip(windows).map(|(f, w)| granted(f, w));
            }
        }
        self.verdict = Some(verdict);
    }
}
