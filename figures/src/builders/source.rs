//! A run file as a chart's source: which reference reports an experiment,
//! the name its series carry in a legend, and the role they are drawn in.

use pagewalk_model::{Provenance, RunFile};

use crate::spec::Role;

/// The first reference file that reports `experiment`.
pub fn reference_for<'a>(references: &[&'a RunFile], experiment: &str) -> Option<&'a RunFile> {
    references
        .iter()
        .copied()
        .find(|r| r.is_reference() && r.experiment(experiment).is_some())
}

/// How a source is named in a legend: "this run" for a collector run, the
/// source's own name for published figures.
pub fn series_name(run: &RunFile) -> String {
    match &run.provenance {
        Provenance::Collector { .. } => "this run".to_string(),
        Provenance::Reference { name, .. } => name.clone(),
    }
}

pub(crate) fn role(run: &RunFile) -> Role {
    if run.is_reference() {
        Role::Reference
    } else {
        Role::Run
    }
}
