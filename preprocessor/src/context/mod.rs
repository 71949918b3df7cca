//! The template context: the numbers chapters may cite, as typed views.
//!
//! Each view is a struct whose fields are the keys a chapter can use, with
//! a doc comment each; `TEMPLATES.md`'s key list is generated from them
//! (`tests/templates_doc.rs`). Every key is present, `null` when the run
//! lacks the value, so the helpers can tell a typo (a missing key: build
//! error) from an honest gap (null: rendered as "n/a"). Each experiment
//! has its own module with a `view(run)`, chosen per kind in
//! [`Views::fill`]; [`Views::judge`] then has each view file its verdicts
//! (every one a judge of `pagewalk_model::judge`: plain numbers in, a
//! typed outcome out), and [`Views::fill_rows`] the tables' rows.
//!
//! This file only declares the modules and puts the context together; no
//! module here imports it, and none imports another that imports it back.

mod alloc;
pub(crate) mod checks;
mod first_touch;
mod inspect;
mod latency;
mod measured;
mod mlp;
mod noise;
mod numa;
mod run;
mod shootdown;
mod staircase;
mod syscall;
mod tail;
mod thp;
mod tlb_reach;
mod translation;
mod views;
mod walk;

use pagewalk_model::Kind;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::DataSet;
use run::{run_info, Release, RunInfo, Whose};
pub use views::Views;

/// Everything a chapter's template can read.
#[derive(Serialize, JsonSchema)]
pub struct Context {
    /// The run the book shows: its provenance and machine; null when there is no run at all.
    pub run: Option<RunInfo>,
    /// The shown run's views, one per experiment (`ft`, `stair`, ...), each from the newest complete run that has it.
    #[serde(flatten)]
    pub views: Views,
    /// Where the collector's release binary is downloaded from: `release.url`, the latest release's download folder, when the site was built by the publishing workflow (from `GITHUB_REPOSITORY`); null in a local build.
    pub release: Release,
    /// The shown run's premise checks that failed or could not be made, each with its experiment and chapter.
    pub checks: checks::Checks,
    /// The newest `collector inspect` file (see "Your process" below); null when there is none.
    pub inspect: Option<inspect::Inspect>,
    /// The reference laptop's published figures (R1), in the same views; a view is null where R1 has no such figures.
    pub r1: Views,
    /// The reference lab machine's published figures (R2), in the same views; null where R2 has none (it has no `tlb-reach` and no `numa`).
    pub r2: Views,
    /// The run each view of the shown run comes from, keyed as the views are (`whose.ft.kind`, `whose.stair.machine.cpu`): the reader's own, or the committed example's where the reader's runs have none of that experiment yet. A chapter's "Whose numbers" says this, not `run`, which is the newest run only.
    pub whose: Whose,
    /// Every experiment the book shows, with what else the machine did while it ran (from the run its view comes from, as `whose`), in the model's order: the method page's full list. A chapter's box says it only when the verdict is `busy`.
    pub backgrounds: Vec<run::ExperimentBackground>,
}

/// Published sources and the context key each is filed under.
const SOURCES: [&str; 2] = ["R1", "R2"];

/// The context as chapters read it.
pub fn build(data: &DataSet) -> Value {
    serde_json::to_value(context(data)).expect("the context serializes")
}

/// The typed context.
pub fn context(data: &DataSet) -> Context {
    let run = data.run.as_ref();
    let mut views = Views::default();
    if let Some(run) = run {
        for &kind in Kind::ALL.iter() {
            views.fill(kind, run);
        }
    }
    views.judge();
    // `r1.ft`, `r2.stair`, ...: each view from the source's file that
    // reports that experiment, null where the source has none.
    let [mut r1, mut r2] = SOURCES.map(|source| {
        let mut views = Views::default();
        for &kind in Kind::ALL.iter() {
            if let Some(file) = data.reference_with(source, kind.name()) {
                views.fill(kind, file);
            }
        }
        views.judge();
        views
    });
    // The shown run's tables have R2's values beside its own; each
    // source's own, nothing beside.
    views.fill_rows(Some(&r2));
    r1.fill_rows(None);
    r2.fill_rows(None);
    let context = Context {
        run: run.map(|r| run_info(r, data.own)),
        checks: checks::view(run),
        release: Release::from_env(),
        views,
        // Not a view of the shown run: the inspection is a file of its own.
        inspect: inspect::view(data.inspection.as_ref()),
        r1,
        r2,
        whose: Whose::of(data),
        backgrounds: run::backgrounds(data),
    };
    context
}

/// The JSON schema of the context: its keys and their doc comments.
pub fn schema() -> schemars::Schema {
    schemars::schema_for!(Context)
}
