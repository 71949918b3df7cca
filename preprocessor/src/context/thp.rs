//! `thp` (and `r2.thp`): 4 KiB vs huge pages at large sizes, and what the
//! kernel granted.

use pagewalk_model::judge::measured::cross_check;
use pagewalk_model::judge::pages::{granted, Backed};
use pagewalk_model::judge::{self, Agreement, Measured, Noise, Order};
use pagewalk_model::{RunFile, ThpSize};
use schemars::JsonSchema;
use serde::Serialize;

use super::translation::{size, Chase, Counters, Record};

/// The THP view.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Thp {
    /// Skip reason, duration and checks.
    #[serde(flatten)]
    pub record: Record,
    /// Timed samples per point.
    pub repetitions: Option<u32>,
    /// True when `repetitions` is more than one.
    pub repeated: Option<bool>,
    /// THP settings when it ran.
    pub settings: Settings,
    /// The first size (256 MiB by default, scaled by the memory guard; 32 MiB with `--quick`).
    pub medium: Option<Size>,
    /// The second size (1 GiB by default; 64 MiB with `--quick`).
    pub large: Option<Size>,
    /// One per size.
    pub sizes: Vec<Size>,
    /// What `MADV_COLLAPSE` did over the sizes.
    pub collapse: ThpCollapse,
    /// Memory and `/proc/buddyinfo` before the experiment.
    pub before: ThpBefore,
    /// The hugetlbfs pool (2 MiB pages), when tried.
    pub hugetlb: Hugetlb,
    /// Whether the perf counters opened.
    pub counters: Counters,
    /// The same configuration (4 KiB pages at `thp.medium`'s size) measured by `staircase` and by `thp`; null when the staircase has no point at that size.
    pub cross_check: Option<CrossCheck>,
}

/// THP settings.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Settings {
    /// `/sys/kernel/mm/transparent_hugepage/enabled`.
    pub enabled: Option<String>,
    /// `.../defrag`.
    pub defrag: Option<String>,
    /// `.../khugepaged/defrag`.
    pub khugepaged_defrag: Option<String>,
}

/// One size, both regimes.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Size {
    /// Region size, bytes.
    pub bytes: u64,
    /// The same as text.
    pub size: String,
    /// Why it was scaled down, if it was.
    pub size_note: Option<String>,
    /// Both regimes' ns per load.
    #[serde(flatten)]
    pub chase: Chase,
    /// The share (0..1) of the huge region backed by huge pages.
    pub huge_fraction: Option<f64>,
    /// `AnonHugePages` of the huge region, MiB.
    pub huge_mib: Option<f64>,
    /// `small_ns / huge_ns`.
    pub gain: Option<f64>,
    /// The `MADV_COLLAPSE` result as text (`ok`, `ENOMEM: ...`); null when not tried.
    pub collapse: Option<String>,
    /// Whether it succeeded.
    pub collapse_ok: Option<bool>,
    /// The error name alone when it failed (`ENOMEM`), for prose; null when it succeeded or was not tried.
    pub collapse_errno: Option<String>,
    /// A source's words about it (R2).
    pub note: Option<String>,
    /// An order (`slower`, `faster`, `within-noise`, `unstable`, `unrepeated`; see `judge::order`): 4 KiB against huge pages at that size.
    pub small_vs_huge: Option<Order>,
    /// `all`, `some`, `none`: `huge_fraction` against the size's 2 MiB windows, as for `ft`.
    pub granted: Option<Backed>,
}

/// `MADV_COLLAPSE` over the sizes.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct ThpCollapse {
    /// False when the kernel has no `MADV_COLLAPSE` (`EINVAL`); null when not tried.
    pub available: Option<bool>,
    /// What it returned, in words.
    pub text: Option<String>,
}

/// Memory before the experiment.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct ThpBefore {
    /// `MemAvailable`, MiB.
    pub mem_available_mib: Option<u64>,
    /// Free 4 KiB blocks.
    pub free_order0: Option<u64>,
    /// Free 2 MiB blocks the free lists could supply (an order-10 block
    /// counted as two).
    pub free_huge_blocks: Option<u64>,
}

/// The hugetlbfs attempt.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Hugetlb {
    /// The pool's page size as text.
    pub page: Option<String>,
    /// `nr_hugepages`.
    pub nr_hugepages: Option<u64>,
    /// `free_hugepages`.
    pub free_hugepages: Option<u64>,
    /// True when `--reserve-hugepages N` reserved pages for the run (and restored the pool after).
    pub reserved: Option<bool>,
    /// Whether `MAP_HUGETLB` mapped.
    pub mapped: Option<bool>,
    /// The size tried.
    pub size: Option<String>,
    /// ns per load on it.
    pub ns: Option<f64>,
    /// What happened in words (`no pages reserved (nr_hugepages 0): MAP_HUGETLB cannot map; not an error`).
    pub text: Option<String>,
    /// The errno name.
    pub errno: Option<String>,
}

/// The same configuration measured by two experiments.
#[derive(Clone, Serialize, JsonSchema)]
pub struct CrossCheck {
    /// The size (`thp.medium`'s).
    pub size: String,
    /// The staircase's 4 KiB point there, median ns per load.
    pub stair_ns: f64,
    /// Its fastest repetition.
    pub stair_ns_min: f64,
    /// Its slowest repetition.
    pub stair_ns_max: f64,
    /// `thp`'s own 4 KiB figure there.
    pub thp_ns: f64,
    /// Its fastest repetition.
    pub thp_ns_min: f64,
    /// Its slowest repetition.
    pub thp_ns_max: f64,
    /// `agree` unless the judge (`judge::order`) finds the two differ: separated ranges beyond the A-vs-A floor.
    pub verdict: Agreement,
}

impl Thp {
    /// Files `sizes[].small_vs_huge` and `.granted` (also under `medium`,
    /// `large`), and `cross_check` against `stair`, the staircase's points
    /// at `thp.medium`'s size (`both`: the noise of the two experiments
    /// together).
    pub fn judge(&mut self, noise: Noise, stair: Option<&Chase>, both: Noise) {
        self.cross_check = self.cross_check(stair, both);
        let one = |s: &mut Size| {
            s.small_vs_huge = s.chase.small_vs_huge(noise);
            let windows = (s.bytes as f64 / (2u64 << 20) as f64) as u64;
            s.granted = s.huge_fraction.map(|f| granted(f, windows));
        };
        self.sizes.iter_mut().for_each(one);
        self.medium.iter_mut().for_each(one);
        self.large.iter_mut().for_each(one);
    }

    /// The staircase's 4 KiB point at the size of the first `thp` region
    /// (`stair`), against the `thp` experiment's own 4 KiB figure there.
    fn cross_check(&self, stair: Option<&Chase>, noise: Noise) -> Option<CrossCheck> {
        let size = self.medium.as_ref()?;
        let point = stair?;
        let small = |c: &Chase| Measured::ranged(c.small_ns, c.small_ns_min, c.small_ns_max);
        let (a, b) = (small(point)?, small(&size.chase)?);
        let verdict = match (point.repeated(0, noise), size.chase.repeated(0, noise)) {
            (Some(x), Some(y)) => judge::cross_check(&x, &y, noise.floor),
            _ => cross_check(a, b, noise),
        };
        Some(CrossCheck {
            size: size.size.clone(),
            stair_ns: a.median,
            stair_ns_min: a.min,
            stair_ns_max: a.max,
            thp_ns: b.median,
            thp_ns_min: b.min,
            thp_ns_max: b.max,
            verdict,
        })
    }
}

pub fn view(run: &RunFile) -> Option<Thp> {
    let record = run.experiment(pagewalk_model::translation::THP)?;
    let t = run.thp();
    let sizes: Vec<Size> = t
        .map_or(&[][..], |t| &t.sizes)
        .iter()
        .map(one_size)
        .collect();
    let collapses: Vec<&pagewalk_model::AdviceOutcome> = t
        .map_or(&[][..], |t| &t.sizes)
        .iter()
        .filter_map(|s| s.huge.as_ref()?.collapse.as_ref())
        .collect();
    let lacking = collapses
        .iter()
        .any(|c| c.errno.as_deref() == Some("EINVAL"));
    let collapse_text = (!collapses.is_empty()).then(|| {
        if collapses.iter().all(|c| c.ok) {
            "MADV_COLLAPSE succeeded at every size".to_string()
        } else if lacking {
            "MADV_COLLAPSE returned EINVAL: this kernel does not have it".to_string()
        } else {
            let errors: Vec<&str> = collapses
                .iter()
                .filter(|c| !c.ok)
                .filter_map(|c| c.errno.as_deref())
                .collect();
            format!(
                "MADV_COLLAPSE failed ({}): the kernel found no free huge pages to collapse into",
                errors.join(", ")
            )
        }
    });
    let before = t.and_then(|t| t.memory_before.as_ref());
    let h = t.and_then(|t| t.hugetlb.as_ref());
    let settings = t.map(|t| &t.settings);
    let knob = |f: fn(&pagewalk_model::ThpSettings) -> &Option<String>| {
        settings.and_then(|s| f(s).clone())
    };
    Some(Thp {
        record: Record::of(record),
        repetitions: t.and_then(|t| t.repetitions),
        repeated: None,
        settings: Settings {
            enabled: knob(|s| &s.enabled),
            defrag: knob(|s| &s.defrag),
            khugepaged_defrag: knob(|s| &s.khugepaged_defrag),
        },
        medium: sizes.first().cloned(),
        large: sizes.get(1).cloned(),
        sizes,
        collapse: ThpCollapse {
            available: (!collapses.is_empty()).then_some(!lacking),
            text: collapse_text,
        },
        before: ThpBefore {
            mem_available_mib: before.map(|b| b.mem_available_kib / 1024),
            free_order0: before.map(|b| b.free_blocks_of(0)),
            free_huge_blocks: before.map(|b| b.blocks_available(9)),
        },
        hugetlb: Hugetlb {
            page: h.map(|h| size(h.page_bytes)),
            nr_hugepages: h.map(|h| h.nr_hugepages),
            free_hugepages: h.map(|h| h.free_hugepages),
            reserved: h.map(|h| h.reserved.is_some()),
            mapped: h.map(|h| h.mapped),
            size: h.filter(|h| h.size_bytes > 0).map(|h| size(h.size_bytes)),
            ns: h
                .and_then(|h| h.chase.as_ref())
                .map(|c| c.ns_per_load.median),
            text: h.map(|h| h.outcome.clone()),
            errno: h.and_then(|h| h.errno.clone()),
        },
        counters: Counters::of(t.and_then(|t| t.counters.as_ref())),
        cross_check: None,
    })
}

fn one_size(s: &ThpSize) -> Size {
    let huge = s.huge.as_ref();
    let median = |p: Option<&pagewalk_model::ChasePoint>| p.map(|p| p.ns_per_load.median);
    let c = huge.and_then(|h| h.collapse.as_ref());
    let notes: Vec<String> = [&s.small, &s.huge]
        .into_iter()
        .flatten()
        .filter_map(|p| p.note.clone())
        .chain(s.skipped.as_deref().map(pagewalk_model::reason::in_words))
        .collect();
    Size {
        bytes: s.size_bytes,
        size: size(s.size_bytes),
        size_note: s.size_note.clone(),
        chase: Chase::of(s.small.as_ref(), huge),
        huge_fraction: huge.and_then(|h| h.huge_fraction),
        huge_mib: huge
            .and_then(|h| h.anon_huge_kib)
            .map(|k| k as f64 / 1024.0),
        gain: match (median(s.small.as_ref()), median(huge)) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        },
        collapse: c.map(|c| {
            if c.ok {
                "ok".to_string()
            } else {
                match (&c.errno, &c.detail) {
                    (Some(e), Some(d)) => format!("{e}: {d}"),
                    (Some(e), None) => e.clone(),
                    (None, d) => d.as_deref().unwrap_or("failed").to_string(),
                }
            }
        }),
        collapse_ok: c.map(|c| c.ok),
        // The error name alone, for prose; `collapse` keeps the whole message.
        collapse_errno: c.filter(|c| !c.ok).and_then(|c| c.errno.clone()),
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        small_vs_huge: None,
        granted: None,
    }
}
