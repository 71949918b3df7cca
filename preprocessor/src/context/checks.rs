//! `checks`: every premise check the shown run failed, and every one it
//! could not make, with the experiment and the chapter that uses it, so
//! "your machine" can list them all (method.md promises that a failed
//! check is never left unnamed).

use pagewalk_model::{Kind, RunFile};
use schemars::JsonSchema;
use serde::Serialize;

/// The shown run's checks that did not pass.
#[derive(Clone, Default, Serialize, JsonSchema)]
pub struct Checks {
    /// Checks that failed (findings and checks the machine could not make excluded), in the run's order.
    pub failed: Vec<Listed>,
    /// Checks this machine could not make, with why (counted neither as passed nor as failed).
    pub not_checked: Vec<Listed>,
    /// How many premise checks the shown run made, passed or failed.
    pub made: usize,
}

/// One check, as the list shows it.
#[derive(Clone, Serialize, JsonSchema)]
pub struct Listed {
    /// The experiment (`mlp`).
    pub experiment: String,
    /// The chapter that uses the experiment, as a link target (`page-tables.md`).
    pub chapter: &'static str,
    /// What was checked.
    pub name: String,
    /// What the premise needed.
    pub expected: String,
    /// What the run saw; for a check not made, why it could not be.
    pub observed: String,
}

/// The chapter where an experiment's numbers are read. Exhaustive: a new
/// kind does not compile until it has one.
pub fn chapter(kind: Kind) -> &'static str {
    match kind {
        Kind::FirstTouch => "first-touch.md",
        Kind::Staircase => "staircases.md",
        Kind::TlbReach => "tlb-reach.md",
        Kind::Thp => "huge-pages.md",
        Kind::Walk | Kind::Mlp => "page-tables.md",
        Kind::Tail => "hot-path-faults.md",
        Kind::Alloc => "allocator.md",
        Kind::Syscall => "syscalls.md",
        Kind::Shootdown => "shootdowns.md",
        Kind::Noise => "noise.md",
        Kind::Numa => "numa.md",
        Kind::Inspect => "your-process.md",
    }
}

pub fn view(run: Option<&RunFile>) -> Checks {
    let mut checks = Checks::default();
    for e in run.iter().flat_map(|r| r.experiments.iter()) {
        let Some(kind) = Kind::from_name(&e.name) else {
            continue;
        };
        for c in e.checks.iter().filter(|c| !c.finding) {
            let listed = |observed: &str| Listed {
                experiment: e.name.clone(),
                chapter: chapter(kind),
                name: c.name.clone(),
                expected: c.expected.clone(),
                observed: observed.to_string(),
            };
            match &c.cannot_tell {
                Some(why) => checks.not_checked.push(listed(why)),
                None => {
                    checks.made += 1;
                    if !c.passed {
                        checks.failed.push(listed(&c.observed));
                    }
                }
            }
        }
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagewalk_model::{Check, ExperimentRecord, Provenance, Status};

    fn check(name: &str, passed: bool, cannot_tell: Option<&str>, finding: bool) -> Check {
        Check {
            name: name.into(),
            passed,
            expected: "e".into(),
            observed: "o".into(),
            finding,
            cannot_tell: cannot_tell.map(String::from),
        }
    }

    #[test]
    fn failed_and_unmade_checks_are_listed_apart_and_findings_not_at_all() {
        let run = RunFile {
            schema_version: pagewalk_model::SCHEMA_VERSION,
            provenance: Provenance::Reference {
                source_id: "T".into(),
                name: "t".into(),
                conditions: "c".into(),
                note: "n".into(),
            },
            machine: None,
            experiments: vec![ExperimentRecord {
                name: "mlp".into(),
                status: Status::Ok,
                reason: None,
                duration_s: None,
                checks: vec![
                    check("a", true, None, false),
                    check("b", false, None, false),
                    check("c", false, Some("no root"), false),
                    check("d", false, None, true),
                ],
                background: None,
                results: None,
            }],
        };
        let c = view(Some(&run));
        assert_eq!(c.made, 2);
        assert_eq!(c.failed.len(), 1);
        assert_eq!(
            (c.failed[0].name.as_str(), c.failed[0].chapter),
            ("b", "page-tables.md")
        );
        assert_eq!(c.not_checked.len(), 1);
        assert_eq!(c.not_checked[0].observed, "no root");
    }
}
