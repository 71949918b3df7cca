//! `inspect`: the `collector inspect` file the "your process" page shows
//! (see `TEMPLATES.md`). Null when there is none, so the page can say how
//! to make one instead of showing anything invented.

use pagewalk_model::inspect::{InspectResults, Presence};
use pagewalk_model::{Provenance, UtcTime};
use schemars::JsonSchema;
use serde::Serialize;

use crate::data::Inspection;

/// The inspection view: the newest `collector inspect` file in
/// `data/inspections/` (one found in `data/runs/` counts too, and is never
/// the shown run), else the committed one in `data/example-inspection/`.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Inspect {
    /// True for the reader's own file.
    pub own: bool,
    /// `"your process"` or `"the example process"`.
    pub kind: &'static str,
    /// The file's name.
    pub file: String,
    /// Its run id.
    pub run_id: String,
    /// Its UTC date.
    pub date: String,
    /// The process watched.
    pub pid: u32,
    /// Its `comm`, from the file: print it with `{{code}}`.
    pub command: String,
    /// The window asked for, s.
    pub requested_s: f64,
    /// The window watched, s.
    pub observed_s: f64,
    /// The sampling interval, ms.
    pub interval_ms: f64,
    /// The number of samples.
    pub samples: usize,
    /// Why watching stopped before the window ended, else null.
    pub ended_early: Option<String>,
    /// The machine it ran on.
    pub machine: InspectMachine,
    /// Settings in force while it was watched (null where unread).
    pub settings: InspectSettings,
    /// One per row of `book/symptoms.md` a process's `/proc` can show, in its order.
    pub verdicts: Vec<SymptomView>,
    /// How many verdicts are `present`.
    pub present: usize,
    /// How many are `absent`.
    pub absent: usize,
    /// How many are `cannot-tell`.
    pub cannot_tell: usize,
    /// Sources that could not be read.
    pub unreadable: Vec<Unreadable>,
}

/// The machine an inspection ran on.
#[derive(Clone, Serialize, JsonSchema)]
pub struct InspectMachine {
    /// CPU model name.
    pub cpu: Option<String>,
    /// Logical CPUs.
    pub logical_cpus: Option<usize>,
    /// Kernel release.
    pub kernel: Option<String>,
    /// True in a virtual machine.
    pub vm: Option<bool>,
}

/// Settings in force while the process was watched.
#[derive(Clone, Serialize, JsonSchema)]
pub struct InspectSettings {
    /// THP `enabled`.
    pub thp_enabled: Option<String>,
    /// THP `defrag`.
    pub thp_defrag: Option<String>,
    /// `nohz_full` CPUs (empty or null when none).
    pub nohz_full: Option<String>,
    /// Isolated CPUs (empty or null when none).
    pub isolated: Option<String>,
    /// RT throttling budget, µs.
    pub rt_runtime_us: Option<i64>,
    /// RT throttling period, µs.
    pub rt_period_us: Option<i64>,
    /// CPUs the process may run on.
    pub cpus_allowed: Option<String>,
    /// Memory nodes it may use.
    pub mems_allowed: Option<String>,
}

/// One symptom's verdict.
#[derive(Clone, Serialize, JsonSchema)]
pub struct SymptomView {
    /// The key (`first-touch-faults`, ...).
    pub symptom: String,
    /// The symptom in words.
    pub label: &'static str,
    /// `present`, `absent` or `cannot-tell`.
    pub verdict: String,
    /// The same in words.
    pub verdict_text: &'static str,
    /// Why, in words.
    pub reason: String,
    /// What was read, each as text (`minor faults: 1234 /s`).
    pub evidence: Vec<String>,
    /// The symptom table's link (`isolation.md#...`).
    pub chapter: &'static str,
    /// The same as `.html`, for a link written in HTML.
    pub chapter_href: String,
}

/// A source that could not be read.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Unreadable {
    /// What.
    pub what: String,
    /// Why.
    pub why: String,
}

pub fn view(inspection: Option<&Inspection>) -> Option<Inspect> {
    let insp = inspection?;
    let i = insp.run.inspect()?;
    let (run_id, date) = match &insp.run.provenance {
        Provenance::Collector {
            run_id,
            started_utc,
            ..
        } => (
            run_id.clone(),
            UtcTime::parse(started_utc)
                .map(|t| t.date())
                .unwrap_or_default(),
        ),
        Provenance::Reference { name, .. } => (name.clone(), String::new()),
    };
    let count = |p: Presence| i.verdicts.iter().filter(|v| v.verdict == p).count();
    let m = insp.run.machine.as_ref();
    Some(Inspect {
        own: insp.own,
        kind: if insp.own {
            "your process"
        } else {
            "the example process"
        },
        file: insp.file.clone(),
        run_id,
        date,
        pid: i.pid,
        command: i.command.clone(),
        requested_s: i.requested_s,
        observed_s: i.observed_s,
        interval_ms: i.interval_ms,
        samples: i.samples.len(),
        ended_early: i.ended_early.clone(),
        machine: InspectMachine {
            cpu: m.map(|m| m.cpu.model_name.clone()),
            logical_cpus: m.map(|m| m.cpu.logical_cpus),
            kernel: m.map(|m| m.kernel_release.clone()),
            vm: m.map(|m| m.virtualization.hypervisor_bit),
        },
        settings: settings(i),
        verdicts: verdicts(i),
        present: count(Presence::Present),
        absent: count(Presence::Absent),
        cannot_tell: count(Presence::CannotTell),
        unreadable: i
            .unreadable
            .iter()
            .map(|(what, why)| Unreadable {
                what: what.clone(),
                why: why.clone(),
            })
            .collect(),
    })
}

fn settings(i: &InspectResults) -> InspectSettings {
    let s = &i.settings;
    InspectSettings {
        thp_enabled: s.thp_enabled.clone(),
        thp_defrag: s.thp_defrag.clone(),
        nohz_full: s.nohz_full.clone(),
        isolated: s.isolated.clone(),
        rt_runtime_us: s.sched_rt_runtime_us,
        rt_period_us: s.sched_rt_period_us,
        cpus_allowed: s.cpus_allowed.clone(),
        mems_allowed: s.mems_allowed.clone(),
    }
}

/// One per symptom-table row, in its order. `verdict` is the key a chapter
/// branches on (`present`, `absent`, `cannot-tell`); `chapter` is the
/// model's link for the symptom, never text from the file.
fn verdicts(i: &InspectResults) -> Vec<SymptomView> {
    i.verdicts
        .iter()
        .map(|v| SymptomView {
            symptom: name(v.symptom),
            label: v.symptom.label(),
            verdict: name(v.verdict),
            verdict_text: v.verdict.label(),
            reason: v.reason.clone(),
            evidence: v.evidence.iter().map(|e| e.text()).collect(),
            chapter: v.symptom.chapter(),
            // For a link written in HTML, where mdBook does not turn
            // `.md` into `.html` itself.
            chapter_href: v.symptom.chapter().replacen(".md", ".html", 1),
        })
        .collect()
}

/// The kebab-case name an enum has in the file (`first-touch-faults`).
fn name(v: impl Serialize) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}
