//! The run behind the context and behind each view (`run`, `whose`), its
//! machine, what else the machine did, and where the collector's release
//! is downloaded from.

use pagewalk_model::judge::busy::{self, Busy, Load};
use pagewalk_model::{Kind, MachineContext, RunFile, UtcTime};
use schemars::JsonSchema;
use serde::Serialize;

use crate::DataSet;

/// The run behind each view: [`RunInfo`] per view key, null where the
/// shown run has no such experiment.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Whose {
    /// The run behind `ft`.
    pub ft: Option<RunInfo>,
    /// The run behind `stair`.
    pub stair: Option<RunInfo>,
    /// The run behind `tlb`.
    pub tlb: Option<RunInfo>,
    /// The run behind `thp`.
    pub thp: Option<RunInfo>,
    /// The run behind `walk`.
    pub walk: Option<RunInfo>,
    /// The run behind `mlp`.
    pub mlp: Option<RunInfo>,
    /// The run behind `tail`.
    pub tail: Option<RunInfo>,
    /// The run behind `alloc`.
    pub alloc: Option<RunInfo>,
    /// The run behind `syscall`.
    pub syscall: Option<RunInfo>,
    /// The run behind `sd`.
    pub sd: Option<RunInfo>,
    /// The run behind `noise`.
    pub noise: Option<RunInfo>,
    /// The run behind `numa`.
    pub numa: Option<RunInfo>,
}

impl Whose {
    /// Each experiment's source, as the book names whose run it is.
    pub fn of(data: &DataSet) -> Whose {
        let mut w = Whose::default();
        for &kind in Kind::ALL.iter() {
            let Some(s) = data.sources.get(kind.name()) else {
                continue;
            };
            let mut info = RunInfo::new(
                s.run_id.clone(),
                s.started,
                s.quick,
                s.machine.as_ref(),
                data.own && !s.example,
            );
            let cpus = s.machine.as_ref().map(|m| m.cpu.logical_cpus);
            info.background = s.background.as_ref().map(|b| background(b, cpus));
            let info = Some(info);
            match kind {
                Kind::FirstTouch => w.ft = info,
                Kind::Staircase => w.stair = info,
                Kind::TlbReach => w.tlb = info,
                Kind::Thp => w.thp = info,
                Kind::Walk => w.walk = info,
                Kind::Mlp => w.mlp = info,
                Kind::Tail => w.tail = info,
                Kind::Alloc => w.alloc = info,
                Kind::Syscall => w.syscall = info,
                Kind::Shootdown => w.sd = info,
                Kind::Noise => w.noise = info,
                Kind::Numa => w.numa = info,
                Kind::Inspect => {}
            }
        }
        w
    }
}

/// The shown run: which one, when, on what.
#[derive(Clone, Serialize, JsonSchema)]
pub struct RunInfo {
    /// `"your machine"` or `"the example machine"`.
    pub kind: &'static str,
    /// True when the run is the reader's own.
    pub own: bool,
    /// The run id (`20261130T090014Z-66e994`), or a published source's name.
    pub id: String,
    /// Its UTC date (`2026-11-30`); empty for a published source.
    pub date: String,
    /// True for a `--quick` run.
    pub quick: bool,
    /// The machine it ran on; null when the file does not say.
    pub machine: Option<Machine>,
    /// What else the machine did while this view's experiment ran; null
    /// for the newest run as a whole, for references and for files before
    /// schema 4.
    pub background: Option<BackgroundView>,
}

/// The machine a run was made on.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Machine {
    /// CPU model name.
    pub cpu: String,
    /// Logical CPUs.
    pub logical_cpus: usize,
    /// Kernel release.
    pub kernel: String,
    /// True when CPUID says a hypervisor is present.
    pub vm: bool,
    /// Hypervisor vendor string, if any (`KVMKVMKVM`).
    pub hypervisor: Option<String>,
    /// The THP `enabled` setting in force (`madvise`).
    pub thp_enabled: Option<String>,
    /// The THP `defrag` setting in force.
    pub thp_defrag: Option<String>,
    /// True when hardware counters could be opened.
    pub pmu: bool,
    /// `MemTotal`, in MiB.
    pub mem_total_mib: u64,
    /// Multi-size THP (Linux 6.8+): the anonymous sizes not set to `never`,
    /// smallest first (empty when all are); null where the run read none.
    pub mthp_on: Option<Vec<MthpOn>>,
    /// How many multi-size THP sizes the kernel offers; null before 6.8.
    pub mthp_sizes: Option<usize>,
    /// `khugepaged/max_ptes_none` (511 by default).
    pub max_ptes_none: Option<u64>,
}

/// How busy the machine was while one experiment ran.
#[derive(Clone, Serialize, JsonSchema)]
pub struct BackgroundView {
    /// Steal time: the share of the CPUs' time the hypervisor gave to others (0 to 1).
    pub steal: f64,
    /// Runnable tasks besides the collector, on average; null when unreadable.
    pub other_runnable: Option<f64>,
    /// CPUs other processes kept busy on average; null when unreadable.
    pub others_cpus: Option<f64>,
    /// The busiest other process and its CPU seconds (`cc1: 1.90 s`), when it took a twentieth of the window or more; else null.
    pub busiest: Option<String>,
    /// The figures in one line, for the method page: `12% steal, 1.4 other runnable tasks, other processes 0.8 CPUs`.
    pub summary: String,
    /// `busy` when the machine was busy enough to matter to this experiment's figures (see `judge::busy`: steal of 5% or more, more other runnable tasks than the CPUs the collector left free, or other processes keeping half of those busy), else `quiet`.
    pub verdict: Busy,
    /// What was high (`steal`, `runnable`, `others`); empty when quiet.
    pub loads: Vec<Load>,
    /// The sentence a chapter's "Whose numbers" box ends with when the verdict is `busy`, naming what was high (`While this ran, the hypervisor took 7% of the CPU time for others (steal): ...`); null when quiet, and the box says nothing.
    pub busy: Option<String>,
}

fn background(b: &pagewalk_model::Background, logical_cpus: Option<usize>) -> BackgroundView {
    let others = b.others_cpus();
    // Named only when it took a twentieth of the window or more: a
    // kernel thread's tick in a quiet second is no neighbour.
    let busiest = b
        .busiest
        .first()
        .filter(|p| p.cpu_s >= 0.05 * b.window_s)
        .map(|p| format!("{}: {:.2} s", p.command, p.cpu_s));
    let loads = busy::loads(b, logical_cpus);
    BackgroundView {
        steal: b.steal_fraction,
        other_runnable: b.other_runnable,
        others_cpus: others,
        busy: busy_sentence(b, &loads, logical_cpus, busiest.as_deref()),
        busiest,
        summary: b.summary(),
        verdict: busy::busy(&loads),
        loads,
    }
}

/// What was high while the experiment ran, as the box says it; `None`
/// when nothing was. Each load has its own words (the match is exhaustive),
/// so a new load cannot go unsaid.
fn busy_sentence(
    b: &pagewalk_model::Background,
    loads: &[Load],
    logical_cpus: Option<usize>,
    busiest: Option<&str>,
) -> Option<String> {
    if loads.is_empty() {
        return None;
    }
    let spare = match busy::spare_cpus(logical_cpus) {
        1 => "the one CPU".to_string(),
        n => format!("the {n} CPUs"),
    };
    let said: Vec<String> = loads
        .iter()
        .map(|load| match load {
            Load::Steal => format!(
                "the hypervisor took {:.0}% of the CPU time for others (steal)",
                b.steal_fraction * 100.0
            ),
            Load::Runnable => format!(
                "on average {:.1} other tasks were ready to run, more than {spare} the collector left free",
                b.other_runnable.unwrap_or_default()
            ),
            Load::Others => format!(
                "other processes kept {:.1} CPUs busy",
                b.others_cpus().unwrap_or_default()
            ),
        })
        .collect();
    let list = match said.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{}, and {last}", rest.join(", ")),
        None => return None,
    };
    // The neighbour, where one process took a share worth naming and the
    // load it adds to is among those said.
    let neighbour = busiest
        .filter(|_| {
            loads
                .iter()
                .any(|l| matches!(l, Load::Runnable | Load::Others))
        })
        .map_or(String::new(), |p| {
            format!(" (the busiest other process: {p})")
        });
    Some(format!(
        "While this ran, {list}{neighbour}: the figures here may read slower, and vary more, than on a quiet machine."
    ))
}

#[cfg(test)]
#[test]
fn the_busy_sentence_names_each_load_high_and_nothing_when_quiet() {
    let b = pagewalk_model::Background {
        window_s: 2.0,
        user_fraction: 0.5,
        system_fraction: 0.1,
        idle_fraction: 0.33,
        iowait_fraction: 0.0,
        irq_fraction: 0.0,
        steal_fraction: 0.07,
        other_runnable: Some(2.5),
        load_1m: Some(2.0),
        others_cpu_s: Some(3.0),
        busiest: vec![pagewalk_model::BusyProcess {
            command: "cc1".into(),
            cpu_s: 1.9,
        }],
        memory_some_us: None,
        memory_full_us: None,
        cpu_some_us: None,
    };
    let view = background(&b, Some(4));
    assert_eq!(view.verdict, Busy::Busy);
    assert_eq!(view.loads, [Load::Steal, Load::Others]);
    assert_eq!(
        view.busy.as_deref(),
        Some(
            "While this ran, the hypervisor took 7% of the CPU time for others (steal), and other \
             processes kept 1.5 CPUs busy (the busiest other process: cc1: 1.90 s): the figures \
             here may read slower, and vary more, than on a quiet machine."
        )
    );
    // On two CPUs the same runnable tasks outnumber the one left free.
    assert_eq!(
        background(&b, Some(2)).loads,
        [Load::Steal, Load::Runnable, Load::Others]
    );
    let quiet = pagewalk_model::Background {
        steal_fraction: 0.0,
        other_runnable: Some(0.5),
        others_cpu_s: Some(0.1),
        ..b
    };
    let view = background(&quiet, Some(2));
    assert_eq!((view.verdict, view.busy), (Busy::Quiet, None));
    assert_eq!(
        view.summary,
        "0% steal, 0.5 other runnable tasks, other processes 0.1 CPUs"
    );
}

/// One experiment's background, for the method page's list of them all.
#[derive(Clone, Serialize, JsonSchema)]
pub struct ExperimentBackground {
    /// The experiment's name (`first-touch`).
    pub experiment: &'static str,
    /// What else the machine did meanwhile, in the same view as `whose.<view>.background`.
    pub background: BackgroundView,
}

/// Every experiment the book shows with a recorded background, each from
/// the run its view comes from (as `whose`), in the model's order.
pub fn backgrounds(data: &DataSet) -> Vec<ExperimentBackground> {
    Kind::ALL
        .iter()
        .filter_map(|&kind| {
            let s = data.sources.get(kind.name())?;
            let cpus = s.machine.as_ref().map(|m| m.cpu.logical_cpus);
            Some(ExperimentBackground {
                experiment: kind.name(),
                background: background(s.background.as_ref()?, cpus),
            })
        })
        .collect()
}

/// A multi-size THP size in use.
#[derive(Clone, Serialize, JsonSchema)]
pub struct MthpOn {
    /// The size, as the book writes sizes (`64 KiB`).
    pub size: String,
    /// Its `enabled` setting (`always`, `inherit`, `madvise`).
    pub enabled: String,
}

/// The collector's published binary.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Release {
    /// `https://github.com/OWNER/NAME/releases/latest/download`: the folder the release's files download from; null when the build does not know its repository.
    pub url: Option<String>,
}

impl Release {
    /// From the publishing workflow's `GITHUB_REPOSITORY` (`owner/name`).
    /// The value is written into a shell line unescaped, so it is held to
    /// the characters a repository name may have.
    pub fn from_env() -> Release {
        Release {
            url: std::env::var("GITHUB_REPOSITORY")
                .ok()
                .filter(|r| repository_name(r))
                .map(|r| format!("https://github.com/{r}/releases/latest/download")),
        }
    }
}

/// `owner/name`, each part letters, digits, `-`, `_` and `.` only.
fn repository_name(r: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && p.len() <= 100
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && !p.starts_with('.')
    };
    matches!(r.split_once('/'), Some((owner, name)) if part(owner) && part(name))
}

#[cfg(test)]
#[test]
fn a_repository_name_is_only_a_repository_name() {
    assert!(repository_name("acme/pagewalk"));
    assert!(repository_name("a-b/c_d.e"));
    for bad in [
        "acme",
        "acme/",
        "/x",
        "a/b/c",
        "a/b;rm -rf",
        "a/$(x)",
        "a/b c",
        "a/..",
        "a/b\nc",
    ] {
        assert!(!repository_name(bad), "{bad}");
    }
}

/// The shown run as a whole: its id, date and machine.
pub fn run_info(run: &RunFile, own: bool) -> RunInfo {
    let (id, started, quick) = run.provenance.identity();
    RunInfo::new(id, started, quick, run.machine.as_ref(), own)
}

impl RunInfo {
    fn new(
        id: String,
        started: Option<UtcTime>,
        quick: bool,
        machine: Option<&MachineContext>,
        own: bool,
    ) -> RunInfo {
        RunInfo {
            kind: if own {
                "your machine"
            } else {
                "the example machine"
            },
            own,
            id,
            // The model has already refused a started_utc that is not a
            // timestamp; a date is only ever printed from a parsed one.
            date: started.map(|t| t.date()).unwrap_or_default(),
            quick,
            machine: machine.map(self::machine),
            background: None,
        }
    }
}

fn machine(m: &MachineContext) -> Machine {
    Machine {
        cpu: m.cpu.model_name.clone(),
        logical_cpus: m.cpu.logical_cpus,
        kernel: m.kernel_release.clone(),
        vm: m.virtualization.hypervisor_bit,
        hypervisor: m.virtualization.hypervisor_vendor.clone(),
        thp_enabled: m.thp.enabled.clone(),
        thp_defrag: m.thp.defrag.clone(),
        pmu: m.pmu.hardware_counters,
        mem_total_mib: m.memory.mem_total_kib / 1024,
        mthp_on: m.thp.sizes.as_ref().map(|sizes| {
            sizes
                .iter()
                .filter(|s| s.enabled != "never")
                .map(|s| MthpOn {
                    size: pagewalk_figures::size_label(s.kib.saturating_mul(1024)),
                    enabled: s.enabled.clone(),
                })
                .collect()
        }),
        mthp_sizes: m.thp.sizes.as_ref().map(Vec::len),
        max_ptes_none: m.thp.max_ptes_none,
    }
}
