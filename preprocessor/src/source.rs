//! `{{source "staircase" "tlb-reach"}}`: the line under a chapter's title
//! that says which run its numbers come from. Experiments can come from
//! different runs (see [`crate::data`]), a run can have been cut short, and
//! a reader's runs can come from different machines; the reader is told
//! each of these where it applies, never left to assume one run.

use std::collections::BTreeMap;

use crate::helpers::escape_text;
use pagewalk_model::Status;

use crate::data::Source;
use crate::DataSet;

/// The HTML paragraph for the experiments `names`. Names must be
/// experiments a run can hold; one the shown run lacks is passed over.
pub fn source_html(data: &DataSet, names: &[&str]) -> Result<String, String> {
    if names.is_empty() {
        return Err("takes one or more experiment names".into());
    }
    let mut by_run: BTreeMap<&str, (Vec<&str>, &Source)> = BTreeMap::new();
    for name in names {
        if let Some(source) = data.sources.get(*name) {
            by_run
                .entry(&source.run_id)
                .or_insert_with(|| (Vec::new(), source))
                .0
                .push(name);
        }
    }
    if by_run.is_empty() {
        return Ok(String::new());
    }
    let several = by_run.len() > 1;
    let newest = data.run.as_ref().and_then(|r| match &r.provenance {
        pagewalk_model::Provenance::Collector { run_id, .. } => Some(run_id.as_str()),
        pagewalk_model::Provenance::Reference { .. } => None,
    });
    let mut parts = Vec::new();
    for (run_id, (experiments, source)) in &by_run {
        let date = source.started.map_or(String::new(), |t| {
            format!(" of {}", escape_text(&t.to_string()))
        });
        let which = if several {
            format!("{}: ", escape_text(&experiments.join(", ")))
        } else {
            String::new()
        };
        let whose = if data.own && !source.example {
            "your"
        } else {
            "the committed example"
        };
        let mut part = format!(
            "{which}{whose} run <code>{}</code>{date}",
            escape_text(run_id)
        );
        if data.own && source.example {
            let commands: Vec<String> = experiments
                .iter()
                .map(|e| format!("<code>collector run {}</code>", escape_text(e)))
                .collect();
            part.push_str(&format!(
                " (your runs have none of this yet; {} replaces it with yours)",
                commands.join(", ")
            ));
        }
        // Why a page mixes runs: each experiment is the newest run's that
        // has it complete, so an older one stands in where the newest ran
        // only some experiments or was cut short.
        if several && data.own && !source.example && Some(*run_id) != newest {
            part.push_str(&format!(
                " (the newest of your runs with a complete record of {}; a later one did not run {} or was cut short)",
                if experiments.len() == 1 { "it" } else { "them" },
                if experiments.len() == 1 { "it" } else { "them" },
            ));
        }
        if let Some(machine) = &source.other_machine {
            part.push_str(&format!(
                ", on another machine ({}) than the rest of the book",
                escape_text(machine)
            ));
        }
        if source.status == Status::Interrupted {
            let why = source.reason.as_deref().unwrap_or("interrupted");
            part.push_str(&format!(
                ". <strong>That run was cut short</strong> ({}): the figures here hold only what finished",
                escape_text(why)
            ));
        }
        parts.push(part);
    }
    Ok(format!(
        "<p class=\"pw-source\">Numbers on this page: {}.</p>\n",
        parts.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagewalk_model::{RunFile, UtcTime};

    fn source(id: &str, status: Status, other: Option<&str>) -> Source {
        Source {
            example: false,
            quick: false,
            machine: None,
            background: None,
            run_id: id.into(),
            started: UtcTime::parse("2026-11-30T09:00:14Z").ok(),
            status,
            reason: (status == Status::Interrupted).then(|| "cut short by SIGTERM".into()),
            other_machine: other.map(str::to_string),
        }
    }

    fn data(sources: &[(&str, Source)]) -> DataSet {
        DataSet {
            run: None,
            own: true,
            sources: sources
                .iter()
                .map(|(n, s)| (n.to_string(), s.clone()))
                .collect(),
            references: Vec::new(),
            machines: Vec::new(),
            warnings: Vec::new(),
            inspection: None,
        }
    }

    #[test]
    fn one_run_is_named_with_its_date() {
        let d = data(&[("staircase", source("r-1", Status::Ok, None))]);
        let html = source_html(&d, &["staircase"]).unwrap();
        assert_eq!(
            html,
            "<p class=\"pw-source\">Numbers on this page: your run <code>r-1</code> of 2026-11-30 09:00 UTC.</p>\n"
        );
    }

    #[test]
    fn runs_machines_and_cuts_are_each_said() {
        let d = data(&[
            ("staircase", source("r-1", Status::Ok, None)),
            (
                "tlb-reach",
                source("r-2", Status::Interrupted, Some("Xeon <b>, 4 CPUs")),
            ),
        ]);
        let html = source_html(&d, &["staircase", "tlb-reach"]).unwrap();
        assert!(
            html.contains("staircase: your run <code>r-1</code>"),
            "{html}"
        );
        assert!(
            html.contains("tlb-reach: your run <code>r-2</code>"),
            "{html}"
        );
        assert!(
            html.contains("another machine (Xeon &lt;b&gt;, 4 CPUs)"),
            "{html}"
        );
        assert!(
            html.contains("cut short</strong> (cut short by SIGTERM)"),
            "{html}"
        );
    }

    #[test]
    fn an_older_run_standing_in_says_why() {
        let mut d = data(&[
            ("staircase", source("r-new", Status::Ok, None)),
            ("tlb-reach", source("r-old", Status::Ok, None)),
        ]);
        d.run = Some(RunFile {
            schema_version: pagewalk_model::SCHEMA_VERSION,
            provenance: pagewalk_model::Provenance::Collector {
                collector_version: "v".into(),
                run_id: "r-new".into(),
                started_utc: "2026-11-30T09:00:14Z".into(),
                finished_utc: None,
                quick: false,
                command: Vec::new(),
                interrupted: false,
                signal: None,
            },
            machine: None,
            experiments: Vec::new(),
        });
        let html = source_html(&d, &["staircase", "tlb-reach"]).unwrap();
        let (new, old) = html.split_once("; ").unwrap();
        assert!(!new.contains("newest of your runs"), "{html}");
        assert!(
            old.contains("tlb-reach: your run <code>r-old</code>")
                && old.contains("the newest of your runs with a complete record of it"),
            "{html}"
        );
    }

    #[test]
    fn nothing_to_say_without_the_experiment() {
        let d = data(&[]);
        assert_eq!(source_html(&d, &["numa"]).unwrap(), "");
        assert!(source_html(&d, &[]).is_err());
    }
}
