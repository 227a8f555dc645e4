//! The baseline `check` compares a run with: a coverage report written by
//! `--write-baseline`, read back as the findings and actions it held.

use std::collections::BTreeMap;

use crate::model::edit::Status;

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
