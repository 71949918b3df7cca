//! One source's views, one per experiment: filled from its run file
//! ([`Views::fill`]), then judged ([`Views::judge`]: each view files its own
//! verdicts from the judges in `pagewalk_model::judge`, with the run's
//! noise), then given their table rows ([`Views::fill_rows`]).

use pagewalk_model::judge::Noise;
use pagewalk_model::{Kind, RunFile};
use schemars::JsonSchema;
use serde::Serialize;

use super::{
    alloc, first_touch, mlp, noise, numa, shootdown, staircase, syscall, tail, thp, tlb_reach, walk,
};

#[cfg(test)]
mod tests;

/// One source's views: the shown run's at the top of the context, each
/// published source's under `r1` and `r2`. A view is null when the source
/// has no such experiment.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Views {
    /// Experiment `first-touch`: demand paging, one mode per way of getting memory.
    pub ft: Option<first_touch::FirstTouch>,
    /// Experiment `staircase`: ns per load against region size, 4 KiB and huge pages.
    pub stair: Option<staircase::Staircase>,
    /// Experiment `tlb-reach`: one line per page, so translation alone grows.
    pub tlb: Option<tlb_reach::TlbReach>,
    /// Experiment `thp`: 4 KiB against huge pages at large sizes, and what the kernel granted.
    pub thp: Option<thp::Thp>,
    /// Experiment `walk`: one load per page at strides that spread the walk's entries out, 4 KiB and huge pages.
    pub walk: Option<walk::Walk>,
    /// Experiment `mlp`: k independent chains in one thread, how many misses overlap on 4 KiB pages, huge pages and inside the TLB's reach.
    pub mlp: Option<mlp::Mlp>,
    /// Experiment `tail`: per-iteration latency as written and pre-faulted.
    pub tail: Option<tail::Tail>,
    /// Experiment `alloc`: malloc + free on each allocator path.
    pub alloc: Option<alloc::Alloc>,
    /// Experiment `syscall`: the syscall floor and the vDSO.
    pub syscall: Option<syscall::Syscall>,
    /// Experiment `shootdown`: munmap, mprotect and MADV_DONTNEED with another thread running, asleep, or none.
    pub sd: Option<shootdown::Shootdown>,
    /// Experiment `noise`: run-to-run noise, A against A, and the scheduling levers.
    pub noise: Option<noise::Noise>,
    /// Experiment `numa`: where one thread's first touch puts the pages.
    pub numa: Option<numa::Numa>,
}

impl Views {
    /// Files the view of `kind` read from `file`. Exhaustive: a new kind in
    /// the model's list does not compile until its view (or its absence)
    /// is decided.
    pub fn fill(&mut self, kind: Kind, file: &RunFile) {
        match kind {
            Kind::FirstTouch => self.ft = first_touch::view(file),
            Kind::Staircase => self.stair = staircase::view(file),
            Kind::TlbReach => self.tlb = tlb_reach::view(file),
            Kind::Thp => self.thp = thp::view(file),
            Kind::Walk => self.walk = walk::view(file),
            Kind::Mlp => self.mlp = mlp::view(file),
            Kind::Tail => self.tail = tail::view(file),
            Kind::Alloc => self.alloc = alloc::view(file),
            Kind::Syscall => self.syscall = syscall::view(file),
            Kind::Shootdown => self.sd = shootdown::view(file),
            Kind::Noise => self.noise = noise::view(file),
            Kind::Numa => self.numa = numa::view(file),
            // An inspection is a file of its own, not part of the shown
            // run: it has its own key (see `build`).
            Kind::Inspect => {}
        }
    }
}

impl Views {
    /// Files every verdict under its view, each judged with the run's
    /// noise: the A-vs-A floor of this source's `noise` experiment and the
    /// view's own repetitions.
    pub fn judge(&mut self) {
        let floor = self.noise.as_ref().and_then(|n| n.floor);
        let noise = |reps: Option<u32>| Noise::new(floor, reps);
        let repeated = |n: Option<u32>| n.map(|n| n > 1);
        if let Some(v) = self.ft.as_mut() {
            v.repeated = repeated(v.repetitions);
        }
        if let Some(v) = self.stair.as_mut() {
            v.repeated = repeated(v.repetitions);
        }
        if let Some(v) = self.tlb.as_mut() {
            v.repeated = repeated(v.repetitions);
        }
        if let Some(v) = self.thp.as_mut() {
            v.repeated = repeated(v.repetitions);
        }
        if let Some(v) = self.tail.as_mut() {
            v.repeated = repeated(v.repetitions);
            v.judge(noise(v.repetitions));
        }
        if let Some(n) = self.noise.as_mut() {
            n.judge();
        }
        if let Some(syscall) = self.syscall.as_mut() {
            syscall.judge(floor);
        }
        if let Some(numa) = self.numa.as_mut() {
            numa.judge();
        }
        if let Some(sd) = self.sd.as_mut() {
            sd.judge(noise(sd.repetitions));
        }
        if let Some(ft) = self.ft.as_mut() {
            ft.judge(noise(ft.repetitions));
        }
        if let Some(stair) = self.stair.as_mut() {
            stair.judge(noise(stair.repetitions));
        }
        if let Some(tlb) = self.tlb.as_mut() {
            tlb.judge(noise(tlb.repetitions));
        }
        if let Some(w) = self.walk.as_mut() {
            w.judge(noise(w.repetitions));
        }
        if let Some(m) = self.mlp.as_mut() {
            m.judge(noise(m.repetitions));
        }
        // The cross-check holds the staircase's point at `thp.medium`'s
        // size against thp's own: two experiments' ranges, so the fewer
        // repetitions of the two stand behind both.
        let stair = self.stair.as_ref();
        let medium = self.thp.as_ref().and_then(|t| t.medium.as_ref());
        let at = medium.and_then(|m| stair?.chase_at(m.bytes)).cloned();
        if let Some(thp) = self.thp.as_mut() {
            let reps = stair.and_then(|s| s.repetitions);
            let both = noise(thp.repetitions.zip(reps).map(|(a, b)| a.min(b)));
            thp.judge(noise(thp.repetitions), at.as_ref(), both);
        }
    }

    /// Files every table's rows, with `beside`'s values next to this
    /// source's (R2's, for the shown run; none for a published source's
    /// own views).
    pub fn fill_rows(&mut self, beside: Option<&Views>) {
        if let Some(alloc) = self.alloc.as_mut() {
            alloc.fill_rows(beside.and_then(|v| v.alloc.as_ref()));
        }
        if let Some(noise) = self.noise.as_mut() {
            noise.fill_rows(beside.and_then(|v| v.noise.as_ref()));
        }
        if let Some(numa) = self.numa.as_mut() {
            numa.fill_rows();
        }
        if let Some(stair) = self.stair.as_mut() {
            stair.fill_rows();
        }
        // R2 published its TLB figures with its staircase, and no `tlb-reach`.
        if let Some(tlb) = self.tlb.as_mut() {
            tlb.fill_rows(beside.and_then(|v| v.stair.as_ref()).map(|s| &s.cpuid));
        }
    }
}
