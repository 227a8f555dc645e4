//! The baseline `check` compares a run with: a coverage report written by
//! `--write-baseline`, read back as the findings and actions it held ([`baseline`]), and
//! the run's findings judged against it as they come ([`Comparison`]).

use std::collections::{BTreeMap, BTreeSet};

use crate::model::codes::check_code_level;
use crate::model::edit::Status;
use crate::model::finding::{Finding, Level};
use crate::outcome::FileResult;

use super::status_code;

/// A finding or an action as a previous CSV report locates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaselineRow {
    /// Relative to its catalog, as in the report.
    pub file: String,
    pub line: usize,
    pub tool: String,
}

/// What a previous CSV report says, keyed so that a finding keeps its identity when lines
/// move: its findings by (connector, actionId, code), and its actions by (connector, actionId).
#[derive(Debug, Default)]
pub struct Baseline {
    pub findings: BTreeMap<(String, String, String), BaselineRow>,
    pub actions: BTreeMap<(String, String), BaselineRow>,
}

/// Reads a previous CSV report (`check --write-baseline`, or any `--report`).
pub fn baseline(csv_text: &str) -> Result<Baseline, String> {
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let headers = reader.headers().map_err(|e| e.to_string())?.clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| format!("not a coverage report: no `{name}` column"))
    };
    let [connector, file, line, id, tool, status, declared] = [
        "connector",
        "file",
        "line",
        "action_id",
        "tool_name",
        "status",
        "declared_effects",
    ]
    .map(col);
    let (connector, file, line, id, tool, status, declared) =
        (connector?, file?, line?, id?, tool?, status?, declared?);
    // Older reports may lack them: no `read-only-override` is read from those.
    let (read_only, inferred) = (col("read_only_hint").ok(), col("inferred_effects").ok());
    let mut base = Baseline::default();
    for (i, record) in reader.records().enumerate() {
        let r = record.map_err(|e| format!("row {}: {e}", i + 2))?;
        // Cells were neutralised against spreadsheet formulas as they were written.
        let cell =
            |c: usize| crate::text::safe::csv_read(r.get(c).unwrap_or_default()).into_owned();
        let status = match r.get(status).unwrap_or_default() {
            "added" => Status::Added,
            "agrees" => Status::Agrees,
            "conflict" => Status::Conflict,
            "unclassified" => Status::Unclassified,
            "invalid" => Status::Invalid,
            "skipped" => Status::Skipped,
            other => return Err(format!("row {}: unknown status `{other}`", i + 2)),
        };
        let row = BaselineRow {
            file: cell(file),
            line: cell(line).parse().unwrap_or(0),
            tool: cell(tool),
        };
        let key = (cell(connector), cell(id));
        let mut codes: Vec<&str> = status_code(status, cell(declared).is_empty())
            .into_iter()
            .collect();
        // The effects the row's hints were derived from (declared, else the patch's
        // proposal), against the hint it reports: the rule `check` applies, read back.
        let has = match (cell(declared), status, inferred) {
            (d, _, _) if !d.is_empty() => d,
            (_, Status::Added, Some(c)) => cell(c),
            _ => String::new(),
        };
        let changes = has
            .split('|')
            .filter_map(crate::effects::Effect::parse)
            .any(|e| !e.is_read_only());
        if changes && read_only.is_some_and(|c| r.get(c) == Some("true")) {
            codes.push("read-only-override");
        }
        // The report lists both actions of a duplicate id, as `check` reports the second.
        if status != Status::Skipped {
            if base.actions.contains_key(&key) {
                codes.push("duplicate-action-id");
            } else {
                base.actions.insert(key.clone(), row.clone());
            }
        }
        for code in codes {
            let (c, a) = key.clone();
            base.findings.insert((c, a, code.to_owned()), row.clone());
        }
    }
    Ok(base)
}

/// A run's findings against a baseline, as they come, in file order: which are new, which
/// of the baseline's the run still has, and, once it is done, the baseline's actions and
/// findings it no longer has. Only the baseline's own keys are kept: a copy of every
/// action's key of a million-action catalog would grow with it.
#[derive(Debug)]
pub struct Comparison<'a> {
    baseline: &'a Baseline,
    /// A `--since` run: it only looked at the changed files, and what it did not look at
    /// did not go.
    partial: bool,
    /// The baseline's findings and actions the run has too, and the files looked at
    /// (relative to their catalog, as the baseline has them).
    seen: BTreeSet<&'a (String, String, String)>,
    actions: BTreeSet<&'a (String, String)>,
    files: BTreeSet<String>,
}

impl<'a> Comparison<'a> {
    pub fn new(baseline: &'a Baseline, partial: bool) -> Comparison<'a> {
        Comparison {
            baseline,
            partial,
            seen: BTreeSet::new(),
            actions: BTreeSet::new(),
            files: BTreeSet::new(),
        }
    }

    /// Notes what a file holds, for what the baseline has and the run does not.
    pub fn file(&mut self, f: &FileResult) {
        self.files.insert(f.rel.clone());
        for a in f.actions.iter().filter(|a| !a.nested) {
            let key = (a.connector.clone(), a.id.clone());
            if let Some((key, _)) = self.baseline.actions.get_key_value(&key) {
                self.actions.insert(key);
            }
        }
    }

    /// A silenced finding: a reviewer's decision kept in the catalog. A baseline entry it
    /// matches stays seen, not absent.
    pub fn silenced(&mut self, f: &Finding) {
        if let Some((key, _)) = self.baseline.findings.get_key_value(&f.identity()) {
            self.seen.insert(key);
        }
    }

    /// Whether a finding is new. A file the tool could not read (`unreadable`) always is;
    /// a note is never counted as seen.
    pub fn is_new(&mut self, f: &Finding, unreadable: bool) -> bool {
        let known = self
            .baseline
            .findings
            .get_key_value(&f.identity())
            .filter(|_| !unreadable)
            .map(|(key, _)| key);
        if !unreadable && f.level != Level::Note {
            self.seen.extend(known);
        }
        unreadable || known.is_none()
    }

    /// Whether the run looked at what a baseline row describes.
    fn looked_at(&self, file: &str) -> bool {
        !self.partial || self.files.contains(file)
    }

    /// The baseline's actions that the run no longer has, as tool names.
    pub fn gone(&self) -> Vec<String> {
        self.baseline
            .actions
            .iter()
            .filter(|(key, row)| !self.actions.contains(*key) && self.looked_at(&row.file))
            .map(|(_, row)| row.tool.clone())
            .collect()
    }

    /// The baseline's findings the run no longer reports, for SARIF's `absent` results.
    pub fn absent(&self) -> Vec<Finding> {
        self.baseline
            .findings
            .iter()
            .filter(|(key, row)| !self.seen.contains(*key) && self.looked_at(&row.file))
            .map(|((connector, id, code), row)| Finding {
                code: code.clone(),
                level: check_code_level(code),
                message: format!(
                    "`{id}`: no longer reported (in the baseline at {}:{})",
                    row.file, row.line
                ),
                tool: Some(row.tool.clone()),
                action: Some((connector.clone(), id.clone())),
                ..Finding::default()
            })
            .collect()
    }
}
