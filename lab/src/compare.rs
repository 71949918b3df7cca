//! "Compare runs" in the page: the files a reader dropped, validated with
//! the model and held against the first by the model's own rule
//! ([`pagewalk_model::comparison`]), laid out as the cells `collector
//! compare` prints, each figure named as the book's charts name it. The
//! page writes every cell as text.

use pagewalk_model::comparison::display::{self, cells, tally, RULE, VALUE_COLUMNS};
use pagewalk_model::comparison::{compare_named, Outcome, SetupDifference};
use pagewalk_model::json::FromJson;
use pagewalk_model::RunFile;
use serde::{Deserialize, Serialize};

/// The verdict table, ready to draw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct CompareTable {
    /// Run labels, the baseline first.
    pub runs: Vec<String>,
    /// Settings that differ, listed before any figure.
    pub setup: Vec<SetupDifference>,
    /// What "noise" is, said once for every row.
    pub rule: String,
    /// Column headers: experiment, figure, run (with more than one run
    /// compared), then [`VALUE_COLUMNS`].
    pub header: Vec<String>,
    pub rows: Vec<TableRow>,
    /// `tally` line: how many figures came out which way.
    pub tally: String,
}

/// One figure of one run against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, FromJson)]
pub struct TableRow {
    pub experiment: String,
    /// `collector compare`'s name for it (`nohugepage first pass`); the
    /// figure's cell has the book's (`MADV_NOHUGEPAGE, first pass`).
    pub figure: String,
    pub run: String,
    pub outcome: Outcome,
    /// One cell per header, in order.
    pub cells: Vec<String>,
    /// The noise basis, or why it was not compared.
    pub basis: String,
}

/// Parses each `(file name, bytes)` with the model and compares every run
/// with the first. Fewer than two files, or one that does not load, is an
/// error naming it.
pub fn compare_files(files: &[(String, Vec<u8>)]) -> Result<CompareTable, String> {
    if files.len() < 2 {
        return Err("comparing needs two or more run files".to_string());
    }
    let runs = files
        .iter()
        .map(|(name, bytes)| {
            pagewalk_model::parse_run_bytes(name, bytes).map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<RunFile>, String>>()?;
    let refs: Vec<&RunFile> = runs.iter().collect();
    let names: Vec<String> = files.iter().map(|(name, _)| name.clone()).collect();
    let named: Vec<(String, &RunFile)> = display::labels(&refs, &names)
        .into_iter()
        .zip(refs)
        .collect();
    let c = compare_named(&named);
    let many = c.runs.len() > 2;
    let mut header = vec!["experiment".to_string(), "figure".to_string()];
    if many {
        header.push("run".to_string());
    }
    header.extend(VALUE_COLUMNS.iter().map(|h| h.to_string()));
    let rows = c
        .rows
        .iter()
        .map(|r| {
            let mut row = vec![r.experiment.clone(), r.label.clone()];
            if many {
                row.push(r.run.clone());
            }
            row.extend(cells(r));
            TableRow {
                experiment: r.experiment.clone(),
                figure: r.figure.clone(),
                run: r.run.clone(),
                outcome: r.outcome,
                cells: row,
                basis: r.basis.clone(),
            }
        })
        .collect();
    Ok(CompareTable {
        tally: tally(&c),
        runs: c.runs,
        setup: c.setup,
        rule: RULE.to_string(),
        header,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> Vec<u8> {
        std::fs::read(crate::example_run_path()).unwrap()
    }

    #[test]
    fn a_run_against_itself_is_within_noise_and_named_by_file() {
        let ex = example();
        let t = compare_files(&[("a.json".into(), ex.clone()), ("b.json".into(), ex)]).unwrap();
        assert_eq!(t.runs, ["a.json", "b.json"]);
        assert!(t.setup.is_empty());
        assert!(!t.rows.is_empty());
        assert!(t
            .rows
            .iter()
            .all(|r| r.outcome == Outcome::WithinNoise && r.cells.len() == t.header.len()));
        assert!(t.tally.contains(" 0 faster, 0 slower, "), "{}", t.tally);
        // Each figure is in the book's words.
        let ft = t
            .rows
            .iter()
            .find(|r| r.figure == "nohugepage first pass")
            .expect("the example's first pass");
        assert_eq!(ft.cells[1], "MADV_NOHUGEPAGE, first pass");
        for r in &t.rows {
            let id = r.figure.split(' ').next().unwrap_or_default();
            assert!(
                !id.contains('-') || r.cells[1] != r.figure,
                "{} / {} is shown by its id",
                r.experiment,
                r.figure
            );
        }
    }

    #[test]
    fn a_bad_file_is_named_and_one_file_is_not_a_comparison() {
        let ex = example();
        let e = compare_files(&[
            ("a.json".into(), ex.clone()),
            ("bad.json".into(), b"{".to_vec()),
        ])
        .unwrap_err();
        assert!(e.contains("bad.json"), "{e}");
        assert!(compare_files(&[("a.json".into(), ex)]).is_err());
    }

    #[test]
    fn three_runs_get_a_run_column() {
        let ex = example();
        let files: Vec<_> = ["a", "b", "c"]
            .iter()
            .map(|n| (format!("{n}.json"), ex.clone()))
            .collect();
        let t = compare_files(&files).unwrap();
        assert_eq!(t.header[2], "run");
        assert!(t.rows.iter().any(|r| r.run == "c.json"));
    }
}
