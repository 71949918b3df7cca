//! `alloc` (and `r2.alloc`): malloc + free per allocator path.

use pagewalk_model::{AllocPath, AllocPathResult, CountMethod, RunFile, Stat};
use schemars::JsonSchema;
use serde::Serialize;

use super::latency::{key, ratio, skipped, Stats};

/// The allocator view.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Alloc {
    /// Why the experiment was skipped or failed; else null.
    pub skipped: Option<String>,
    /// One view per path (KEY); null where it did not run.
    pub paths: Paths,
    /// One per path in the table's order (`tcache`, `bins`, `mmap_typical`, `mmap_forced`, `mmap_pinned`, `pool`), with R2's beside it: one table row each with `#each`.
    pub rows: Vec<AllocRow>,
    /// `mmap_forced.p50 / mmap_typical.p50`: the same kind of call, cheap or a cliff.
    pub cliff: Option<f64>,
    /// `mmap_pinned.p50 / mmap_typical.p50`: the same `malloc(1 MiB)` both ways.
    pub pinned_cliff: Option<f64>,
}

/// One view per allocator path.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Paths {
    /// Small blocks from the thread cache.
    pub tcache: Option<Path>,
    /// Blocks from the bins.
    pub bins: Option<Path>,
    /// 1 MiB after glibc raised its threshold: from the heap.
    pub mmap_typical: Option<Path>,
    /// Above the 32 MiB dynamic maximum: a fresh `mmap` every time.
    pub mmap_forced: Option<Path>,
    /// 1 MiB with `M_MMAP_THRESHOLD` pinned at 128 KiB, in a child process.
    pub mmap_pinned: Option<Path>,
    /// A free list of fixed blocks.
    pub pool: Option<Path>,
}

impl Paths {
    pub fn get(&self, p: AllocPath) -> Option<&Path> {
        match p {
            AllocPath::Tcache => self.tcache.as_ref(),
            AllocPath::Bins => self.bins.as_ref(),
            AllocPath::MmapTypical => self.mmap_typical.as_ref(),
            AllocPath::MmapForced => self.mmap_forced.as_ref(),
            AllocPath::MmapPinned => self.mmap_pinned.as_ref(),
            AllocPath::Pool => self.pool.as_ref(),
        }
    }

    fn slot(&mut self, p: AllocPath) -> &mut Option<Path> {
        match p {
            AllocPath::Tcache => &mut self.tcache,
            AllocPath::Bins => &mut self.bins,
            AllocPath::MmapTypical => &mut self.mmap_typical,
            AllocPath::MmapForced => &mut self.mmap_forced,
            AllocPath::MmapPinned => &mut self.mmap_pinned,
            AllocPath::Pool => &mut self.pool,
        }
    }
}

/// One path: ns per operation (one allocation + one free), over timed batches.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Path {
    /// The distribution over timed batches, ns (`n`: the batches).
    #[serde(flatten)]
    pub stats: Stats,
    /// Why the path did not run.
    pub skipped: Option<String>,
    /// Short name for prose (`forced mmap`).
    pub label: &'static str,
    /// Bytes per allocation.
    pub size_bytes: Option<u64>,
    /// What one operation does (text).
    pub pattern: Option<String>,
    /// Operations run (the untimed warm-up batch included).
    pub ops: Option<u64>,
    /// Operations per batch.
    pub ops_per_batch: Option<u64>,
    /// Minor faults per operation (1 = a fresh mapping each time).
    pub faults_per_op: Option<f64>,
    /// `mmap` + `munmap` calls measured over `calls_ops` operations (the exact `strace` count when strace was there, else from faults).
    pub mmap_calls: Option<u64>,
    /// That per operation (2 = one `mmap` and one `munmap`).
    pub mmap_calls_per_op: Option<f64>,
    /// `strace`, `faults` or `published`.
    pub calls_method: Option<&'static str>,
    /// Operations the count covers.
    pub calls_ops: Option<u64>,
    /// Measured in a child process.
    pub in_child: bool,
}

/// A row of the allocator table.
#[derive(Clone, Serialize, JsonSchema)]
pub struct AllocRow {
    /// The path's KEY under `alloc.paths`.
    pub key: String,
    /// Its name in the table (`1 MiB, threshold raised`).
    pub label: &'static str,
    /// True for the three paths whose `mmap` + `munmap` calls the collector counts (the ones that map).
    pub counted: bool,
    /// The path on this source, as under `alloc.paths`.
    pub run: Option<Path>,
    /// The path on R2 (null on `r2.alloc` itself).
    pub r2: Option<Path>,
}

impl Alloc {
    /// `rows`, with R2's paths beside them (`r2`: null on R2's own view).
    pub fn fill_rows(&mut self, r2: Option<&Alloc>) {
        self.rows = AllocPath::ALL
            .iter()
            .map(|&p| AllocRow {
                key: key(p.name()),
                label: p.label(),
                counted: matches!(
                    p,
                    AllocPath::MmapTypical | AllocPath::MmapForced | AllocPath::MmapPinned
                ),
                run: self.paths.get(p).cloned(),
                r2: r2.and_then(|a| a.paths.get(p)).cloned(),
            })
            .collect();
    }
}

pub fn view(run: &RunFile) -> Option<Alloc> {
    let record = run.experiment(pagewalk_model::alloc::EXPERIMENT)?;
    let a = run.alloc();
    let get = |p: AllocPath| a.and_then(|a| a.path(p));
    let p50 = |p| get(p)?.latency.as_ref()?.get(Stat::P50);
    let mut paths = Paths::default();
    for &p in AllocPath::ALL.iter() {
        *paths.slot(p) = get(p).map(path);
    }
    Some(Alloc {
        skipped: skipped(record),
        paths,
        rows: Vec::new(),
        cliff: ratio(p50(AllocPath::MmapForced), p50(AllocPath::MmapTypical)),
        pinned_cliff: ratio(p50(AllocPath::MmapPinned), p50(AllocPath::MmapTypical)),
    })
}

fn path(r: &AllocPathResult) -> Path {
    // The exact strace count when there is one, else the next best.
    let calls = [
        CountMethod::Strace,
        CountMethod::Published,
        CountMethod::Faults,
    ]
    .iter()
    .find_map(|&m| r.mapping_calls.iter().find(|c| c.method == m));
    Path {
        stats: Stats::of(r.latency.as_ref()),
        skipped: r.skipped.as_deref().map(pagewalk_model::reason::in_words),
        label: r.path.label(),
        size_bytes: r.size_bytes,
        pattern: r.pattern.clone(),
        ops: r.ops,
        ops_per_batch: r.ops_per_batch,
        faults_per_op: r.minor_faults_per_op,
        mmap_calls: calls.map(|c| c.total),
        mmap_calls_per_op: calls.and_then(|c| Some(c.total as f64 / c.ops?.max(1) as f64)),
        calls_method: calls.map(|c| match c.method {
            CountMethod::Strace => "strace",
            CountMethod::Faults => "faults",
            CountMethod::Published => "published",
        }),
        calls_ops: calls.and_then(|c| c.ops),
        in_child: r.in_child,
    }
}
