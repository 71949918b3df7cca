//! Pieces shared by the address-translation views (`stair`, `tlb`, `thp`):
//! a chase point's keys, CPUID and cache geometry, steps, agreement,
//! counters and checks. Every key is always present, null when absent.

use pagewalk_model::judge::{measured, Noise, Order, Repeated};
use pagewalk_model::{
    Agreement, ChasePoint, Curve, ExperimentRecord, Geometry, Regime, RunFile, StepKind,
};
use schemars::JsonSchema;
use serde::Serialize;

pub(super) mod counters;
mod pages;
pub(super) mod steps;

pub use super::latency::FailedCheck;
pub use counters::Counters;
pub use pages::{Gigantic, Placement};
pub use pagewalk_figures::size_label as size;
pub use steps::{steps, StepCounts, StepView};

/// The skip reason, the duration and the checks: the keys every view has.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Record {
    /// Why the experiment was skipped or failed (the other keys are then null or empty); null when it ran.
    pub skipped: Option<String>,
    /// Seconds the experiment took (null for references).
    pub duration_s: Option<f64>,
    /// Every premise check passed.
    pub all_checks_passed: Option<bool>,
    /// The premise checks that failed.
    pub failed_checks: Vec<FailedCheck>,
}

impl Record {
    pub fn of(record: &ExperimentRecord) -> Record {
        let failed = super::latency::failed_checks(record);
        let ok = record.status.measured() && record.results.is_some();
        Record {
            skipped: (!ok)
                .then(|| {
                    record
                        .reason
                        .as_deref()
                        .map(pagewalk_model::reason::in_words)
                })
                .flatten(),
            duration_s: record.duration_s,
            all_checks_passed: ok.then_some(failed.is_empty()),
            failed_checks: failed,
        }
    }
}

/// Both regimes at one point: medians over the repetitions, ns per load,
/// with the fastest and slowest repetition.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Chase {
    /// 4 KiB pages (`MADV_NOHUGEPAGE`), median ns per load.
    pub small_ns: Option<f64>,
    /// Its fastest repetition.
    pub small_ns_min: Option<f64>,
    /// Its slowest repetition.
    pub small_ns_max: Option<f64>,
    /// dTLB load misses per load on 4 KiB pages, where the counter opened.
    pub small_dtlb_per_load: Option<f64>,
    /// Huge pages (`MADV_HUGEPAGE`, then `MADV_COLLAPSE`), median ns per load.
    pub huge_ns: Option<f64>,
    /// Its fastest repetition.
    pub huge_ns_min: Option<f64>,
    /// Its slowest repetition.
    pub huge_ns_max: Option<f64>,
    /// dTLB load misses per load on huge pages.
    pub huge_dtlb_per_load: Option<f64>,
    /// Each regime's point as the judge reads it (`ChasePoint::repeated`,
    /// the input `collector compare` uses too); not a template key.
    #[serde(skip)]
    #[schemars(skip)]
    pub judged: [Option<pagewalk_model::judge::Repeated>; 2],
}

impl Chase {
    pub fn of(small: Option<&ChasePoint>, huge: Option<&ChasePoint>) -> Chase {
        let s = small.map(|p| p.ns_per_load);
        let h = huge.map(|p| p.ns_per_load);
        Chase {
            small_ns: s.map(|s| s.median),
            small_ns_min: s.map(|s| s.min),
            small_ns_max: s.map(|s| s.max),
            small_dtlb_per_load: small.and_then(ChasePoint::dtlb_misses_per_load),
            huge_ns: h.map(|s| s.median),
            huge_ns_min: h.map(|s| s.min),
            huge_ns_max: h.map(|s| s.max),
            huge_dtlb_per_load: huge.and_then(ChasePoint::dtlb_misses_per_load),
            judged: [
                small.map(ChasePoint::repeated),
                huge.map(ChasePoint::repeated),
            ],
        }
    }

    /// The 4 KiB (`0`) or huge-page (`1`) figure as the judge reads it:
    /// the point's own repetitions where the view kept them, else its
    /// range with the run's repetitions.
    pub fn repeated(&self, regime: usize, noise: Noise) -> Option<Repeated> {
        if let Some(r) = &self.judged[regime] {
            return Some(r.clone());
        }
        let m = match regime {
            0 => measured::Measured::ranged(self.small_ns, self.small_ns_min, self.small_ns_max),
            _ => measured::Measured::ranged(self.huge_ns, self.huge_ns_min, self.huge_ns_max),
        }?;
        Some(m.repeated(noise))
    }

    /// 4 KiB against huge pages at this point, over their repetitions.
    pub fn small_vs_huge(&self, noise: Noise) -> Option<Order> {
        measured::order_of(self.repeated(0, noise), self.repeated(1, noise), noise)
    }
}

/// The points of both regimes joined on `x`, ascending: each x with the
/// small point, the huge one, and `make` of the two.
pub fn joined<T>(
    curves: &[Curve],
    x: fn(&ChasePoint) -> Option<u64>,
    make: impl Fn(u64, Option<&ChasePoint>, Option<&ChasePoint>) -> T,
) -> Vec<T> {
    let of = |r: Regime| {
        curves
            .iter()
            .find(|c| c.regime == r)
            .map_or(&[][..], |c| &c.points)
    };
    let (small, huge) = (of(Regime::Small), of(Regime::Huge));
    let mut xs: Vec<u64> = small.iter().chain(huge).filter_map(x).collect();
    xs.sort_unstable();
    xs.dedup();
    xs.into_iter()
        .map(|at| {
            let s = small.iter().find(|p| x(p) == Some(at));
            let h = huge.iter().find(|p| x(p) == Some(at));
            make(at, s, h)
        })
        .collect()
}

/// The TLB levels CPUID (or the source) reports.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Cpuid {
    /// Where the TLB figures came from (`CPUID 0x80000005/0x80000006/0x80000019 (AMD)`, `CPUID 0x18 (Intel)`, `CPUID 0x2 descriptors (Intel)`; for R2, its own text), or why there are none.
    pub source: Option<String>,
    /// True when CPUID (or the source) reported no TLB level at all (a hypervisor that zeroes Intel's leaf 0x18, say); then `source` is null, since no figure came from anywhere.
    pub silent: Option<bool>,
    /// L1 dTLB, 4 KiB entries.
    pub l1d_4k: Option<TlbLevelReach>,
    /// L2 TLB (the STLB), 4 KiB entries.
    pub l2_4k: Option<TlbLevelReach>,
    /// L1 dTLB, 2 MiB entries.
    pub l1d_2m: Option<TlbLevelReach>,
    /// L2 TLB, 2 MiB entries.
    pub l2_2m: Option<TlbLevelReach>,
    /// L1 dTLB, 1 GiB entries.
    pub l1d_1g: Option<TlbLevelReach>,
    /// L2 TLB, 1 GiB entries.
    pub l2_1g: Option<TlbLevelReach>,
}

/// One TLB level and the memory it maps; null when CPUID does not report that level.
#[derive(Clone, Serialize, JsonSchema)]
pub struct TlbLevelReach {
    /// Entries.
    pub entries: u32,
    /// Page size as text (`4 KiB`).
    pub page: String,
    /// Entries × page size, bytes.
    pub reach_bytes: u64,
    /// The same as text (`288 KiB`).
    pub reach: String,
    /// The sum written out: `72 × 4 KiB = 288 KiB`.
    pub arithmetic: String,
}

impl Cpuid {
    pub fn of(g: Option<&Geometry>) -> Cpuid {
        let level = |level, page| {
            let t = g?.data_tlb(level, page)?;
            Some(TlbLevelReach {
                entries: t.entries,
                page: size(t.page_bytes),
                reach_bytes: t.reach_bytes(),
                reach: size(t.reach_bytes()),
                arithmetic: format!(
                    "{} × {} = {}",
                    t.entries,
                    size(t.page_bytes),
                    size(t.reach_bytes())
                ),
            })
        };
        Cpuid {
            source: g
                .filter(|g| !g.tlbs.is_empty())
                .map(|g| g.tlb_source.clone()),
            silent: g.map(|g| g.tlbs.is_empty()),
            l1d_4k: level(1, 4096),
            l2_4k: level(2, 4096),
            l1d_2m: level(1, 2 << 20),
            l2_2m: level(2, 2 << 20),
            l1d_1g: level(1, 1 << 30),
            l2_1g: level(2, 1 << 30),
        }
    }
}

/// Data cache sizes from `/sys/devices/system/cpu/cpu0/cache`.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Caches {
    /// L1 data cache.
    pub l1d: Option<Cache>,
    /// L2.
    pub l2: Option<Cache>,
    /// L3.
    pub l3: Option<Cache>,
}

/// One cache level; null when absent.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Cache {
    /// Size, bytes.
    pub bytes: u64,
    /// Size as text (`1 MiB`).
    pub size: String,
}

impl Caches {
    pub fn of(g: Option<&Geometry>) -> Caches {
        let level = |l| {
            let c = g?.data_cache(l)?;
            Some(Cache {
                bytes: c.size_bytes,
                size: size(c.size_bytes),
            })
        };
        Caches {
            l1d: level(1),
            l2: level(2),
            l3: level(3),
        }
    }
}

/// Each bend CPUID and sysfs predict, set against the measured steps.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct AgreementView {
    /// Each predicted bend (within the measured range) next to the measured one.
    pub items: Vec<AgreementItem>,
    /// True when every predicted bend agrees; false otherwise; null when nothing could be compared.
    pub all: Option<bool>,
    /// A sentence fragment saying so (`every bend CPUID and sysfs predict has a measured step of its kind within a factor of two`, or `no measured step of its kind within a factor of two of: ...` naming them and any step of the other kind found there, with why a VM may disagree when the run was in one); null when nothing could be compared.
    pub text: Option<String>,
}

/// One predicted bend.
#[derive(Clone, Serialize, JsonSchema)]
pub struct AgreementItem {
    /// What predicts it (`L2 cache (1 MiB)`).
    pub what: String,
    /// Where, bytes or pages.
    pub expected: f64,
    /// The same as text.
    pub expected_text: String,
    /// The nearest step within a factor of two, one of the predicted kind first; null when there is none.
    pub found: Option<f64>,
    /// The same as text.
    pub found_text: Option<String>,
    /// That step's kind.
    pub found_kind: Option<&'static str>,
    /// True only when that step is of the predicted kind (or unclassified): a TLB reach with a step there that stays put with huge pages does not agree.
    pub agrees: bool,
}

/// `agreement.items`, `.all`, `.text`. `vm` adds why a VM may disagree.
pub fn agreement(items: &[Agreement], at: fn(f64) -> String, vm: bool) -> AgreementView {
    let list = items
        .iter()
        .map(|a| AgreementItem {
            what: a.what.clone(),
            expected: a.expected_x,
            expected_text: at(a.expected_x),
            found: a.found_x,
            found_text: a.found_x.map(at),
            found_kind: a.found_kind.map(steps::kind_name),
            agrees: a.agrees,
        })
        .collect();
    let all = (!items.is_empty()).then(|| items.iter().all(|a| a.agrees));
    let missed: Vec<String> = items
        .iter()
        .filter(|a| !a.agrees)
        .map(|a| match (a.found_kind, a.found_x) {
            (Some(StepKind::Cache), Some(x)) => format!(
                "{} (there is a step at {}, but it stays put with huge pages)",
                &a.what,
                at(x)
            ),
            (Some(StepKind::Translation), Some(x)) => format!(
                "{} (there is a step at {}, but it changes with huge pages)",
                &a.what,
                at(x)
            ),
            _ => a.what.clone(),
        })
        .collect();
    let text = match all {
        None => None,
        Some(true) => Some(
            "every bend CPUID and sysfs predict has a measured step of its kind within a factor of two"
                .to_string(),
        ),
        Some(false) => Some(format!(
            "no measured step of its kind within a factor of two of: {}{}",
            missed.join("; "),
            if vm {
                " (this is a virtual machine: CPUID gives the hypervisor's figures, and nested paging changes what a walk costs)"
            } else {
                ""
            }
        )),
    };
    AgreementView {
        items: list,
        all,
        text,
    }
}

/// Whether each TLB reach (4 KiB pages) falls short of the cache level
/// after it: the L1 dTLB against L2, the L2 TLB against L3 (null when
/// unknown). Where it does, data can sit in that cache while translations
/// run out.
pub fn below(cpuid: &Cpuid, caches: &Caches) -> (Option<bool>, Option<bool>) {
    let cmp = |reach: Option<u64>, size: Option<u64>| reach.zip(size).map(|(r, s)| r < s);
    (
        cmp(
            cpuid.l1d_4k.as_ref().map(|r| r.reach_bytes),
            caches.l2.as_ref().map(|c| c.bytes),
        ),
        cmp(
            cpuid.l2_4k.as_ref().map(|r| r.reach_bytes),
            caches.l3.as_ref().map(|c| c.bytes),
        ),
    )
}

/// A row for one of the points a view picks out (`stair.at`, `tlb.at`).
#[derive(Clone, Serialize, JsonSchema)]
#[schemars(rename = "AtRow_of_{T}")]
pub struct AtRow<T> {
    /// The point's KEY under `VIEW.at`.
    pub key: &'static str,
    /// Its name in the table (`half of L1d`, `most pages within the L2 TLB`).
    pub label: &'static str,
    /// The point, as under `VIEW.at`; null where there is none.
    pub point: Option<T>,
}

impl<T: Clone> AtRow<T> {
    pub fn of(key: &'static str, label: &'static str, point: &Option<T>) -> AtRow<T> {
        AtRow {
            key,
            label,
            point: point.clone(),
        }
    }
}

/// Whether the run was measured in a virtual machine.
pub fn in_vm(run: &RunFile) -> bool {
    run.machine
        .as_ref()
        .is_some_and(|m| m.virtualization.hypervisor_bit)
}

/// The item whose x is nearest `target` on a log scale.
pub fn nearest<T>(items: &[T], x: impl Fn(&T) -> f64, target: f64) -> Option<&T> {
    items.iter().min_by(|a, b| {
        let d = |v: &T| (x(v) / target).ln().abs();
        d(a).total_cmp(&d(b))
    })
}
