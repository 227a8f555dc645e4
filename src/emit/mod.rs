//! Emit: every output of a run, each a [`sink::Sink`] fed a shared result, and the findings
//! formats, each a [`findings::Emitter`]; here, the CSV rows and the run summary they and
//! the workers render. Nothing here prints.

pub mod annotations;
pub mod explain;
pub mod findings;
pub mod github;
pub mod history;
pub mod html;
pub mod in_place;
pub mod overlay;
pub mod page;
pub mod review;
pub mod sarif;
pub mod sink;
pub mod streams;
pub mod write;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::effects::Hints;
use crate::model::edit::Status;
use crate::outcome::{ActionResult, FileResult};

/// The CSV columns, in order.
pub const CSV_COLUMNS: [&str; 17] = [
    "connector",
    "file",
    "line",
    "action_id",
    "tool_name",
    "title",
    "methods",
    "paths",
    "declared_effects",
    "inferred_effects",
    "status",
    "confidence",
    "rules",
    "read_only_hint",
    "destructive_hint",
    "idempotent_hint",
    "open_world_hint",
];

fn flag(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "true",
        Some(false) => "false",
        None => "",
    }
}

/// The hints as the report shows them: all four empty when the action has no effects.
pub fn hint_cells(a: &ActionResult) -> [&'static str; 4] {
    let h: &Hints = &a.hints;
    if a.effects.is_empty() && a.annotations.is_none() {
        return ["", "", "", ""];
    }
    [
        flag(h.read_only),
        flag(h.destructive),
        flag(h.idempotent),
        flag(h.open_world),
    ]
}

/// One file's rows of the coverage report, without the header. Fields go straight into
/// one string, quoted as the `csv` crate quotes them (a test holds the two together): rows
/// are most of the report's cost at a million actions.
pub fn csv_rows(file: &FileResult, rules: &crate::classify::RuleSet) -> String {
    let mut out = String::with_capacity(256 * file.actions.len());
    let mut cell = String::new();
    for a in &file.actions {
        write_row(&mut out, &mut cell, file, a, rules);
    }
    out
}

/// Appends one CSV field: quoted only when it holds a comma, a quote or a line break, with
/// quotes doubled, which is the `csv` crate's default (`QuoteStyle::Necessary`).
fn push_field(out: &mut String, field: &str) {
    let field = &*crate::text::safe::csv_cell(field);
    if field
        .bytes()
        .any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
    {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
    }
}

/// One row, in [`CSV_COLUMNS`] order; `cell` is scratch space for the joined fields.
fn write_row(
    out: &mut String,
    cell: &mut String,
    file: &FileResult,
    a: &ActionResult,
    rules: &crate::classify::RuleSet,
) {
    let declared = match &a.declared {
        crate::view::Declared::Valid(e) => *e,
        _ => crate::effects::Effects::EMPTY,
    };
    let name = crate::effects::Effect::name;
    push_field(out, &a.connector);
    out.push(',');
    push_field(out, &file.rel);
    let _ = write!(out, ",{},", a.line);
    push_field(out, &a.id);
    out.push(',');
    if a.server_tool {
        push_field(out, &a.id);
    } else {
        push_joined(
            out,
            cell,
            &mut [a.connector.as_str(), a.id.as_str()].into_iter(),
            '_',
        );
    }
    out.push(',');
    push_field(out, a.label.as_deref().unwrap_or_default());
    out.push(',');
    push_joined(out, cell, &mut a.methods.iter().map(String::as_str), '|');
    out.push(',');
    push_joined(out, cell, &mut a.paths.iter().map(String::as_str), '|');
    out.push(',');
    push_joined(out, cell, &mut declared.iter().map(name), '|');
    out.push(',');
    push_joined(out, cell, &mut a.inference.effects.iter().map(name), '|');
    out.push(',');
    out.push_str(a.status.name());
    out.push(',');
    out.push_str(a.inference.confidence.map_or("", |c| c.name()));
    out.push(',');
    let deciding = &mut a.inference.deciding().iter().map(|&r| rules.ref_id(r));
    push_joined(out, cell, deciding, '|');
    for hint in hint_cells(a) {
        out.push(',');
        out.push_str(hint);
    }
    out.push('\n');
}

/// Appends `parts` joined by `sep` as one field; `cell` is scratch space.
fn push_joined(
    out: &mut String,
    cell: &mut String,
    parts: &mut dyn Iterator<Item = &str>,
    sep: char,
) {
    cell.clear();
    for (i, p) in parts.enumerate() {
        if i > 0 {
            cell.push(sep);
        }
        cell.push_str(p);
    }
    push_field(out, cell);
}

/// The CSV header line.
pub fn csv_header() -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record(CSV_COLUMNS);
    w.into_inner()
        .map(|v| String::from_utf8_lossy(&v).into_owned())
        .unwrap_or_default()
}

/// Counts for one connector, or for the whole run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub actions: usize,
    pub added: usize,
    pub agrees: usize,
    pub conflict: usize,
    pub unclassified: usize,
    pub invalid: usize,
    pub skipped: usize,
    /// Actions that declare effects once the patch is applied.
    pub with_effects: usize,
}

impl Counts {
    pub fn add(&mut self, a: &ActionResult) {
        self.actions += 1;
        match a.status {
            Status::Added => self.added += 1,
            Status::Agrees => self.agrees += 1,
            Status::Conflict => self.conflict += 1,
            Status::Unclassified => self.unclassified += 1,
            Status::Invalid => self.invalid += 1,
            Status::Skipped => self.skipped += 1,
        }
        if matches!(a.status, Status::Added | Status::Agrees | Status::Conflict) {
            self.with_effects += 1;
        }
    }

    /// Share of tools (skipped ones excluded) that declare valid effects once the patch is
    /// applied, in percent; none when there is no tool to cover. A run that could read no
    /// action read 100.0%: nothing is not everything.
    pub fn coverage(&self) -> Option<f64> {
        let tools = self.actions - self.skipped;
        (tools > 0).then(|| 100.0 * self.with_effects as f64 / tools as f64)
    }

    /// The coverage as the summaries print it: `95.2%`, or `-` without a tool.
    pub fn coverage_shown(&self) -> String {
        self.coverage()
            .map_or_else(|| "-".to_owned(), |c| format!("{c:.1}%"))
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub connectors: BTreeMap<String, Counts>,
    pub total: Counts,
    /// Files the run took up, read or not.
    pub files: usize,
    /// Of those, files that could not be read or parsed whole: none of their actions is
    /// counted, so they are not "read".
    pub files_unreadable: usize,
    /// Files the patch changes: by any edit, generator hints and hint removals included.
    pub files_changed: usize,
    /// OpenAPI operations the patch gives generator hints (`--hints`), which the status
    /// columns do not show: a run that only adds hints added no effects.
    pub hints_added: usize,
    pub errors: usize,
}

impl Summary {
    /// The summary of a collected run.
    pub fn from_run(run: &crate::outcome::Run) -> Summary {
        let mut s = Summary {
            errors: run.errors.len(),
            ..Summary::default()
        };
        for f in &run.files {
            s.add_file(f);
        }
        s
    }

    /// Counts only what the catalog declares, not what a patch would add: `check` reports
    /// the catalog as it is.
    pub fn as_declared(&mut self) {
        for c in self
            .connectors
            .values_mut()
            .chain(std::iter::once(&mut self.total))
        {
            c.with_effects = c.agrees + c.conflict;
        }
    }

    /// Counts one file (for runs that stream their files).
    pub fn add_file(&mut self, f: &FileResult) {
        self.files += 1;
        self.files_unreadable += usize::from(f.error.is_some());
        self.errors += usize::from(f.error.is_some()) + f.problems.len();
        // From the edits, not the patch: runs that write no patch do not render it.
        if f.actions.iter().any(|a| a.edits().next().is_some()) {
            self.files_changed += 1;
        }
        self.hints_added += hinted_operations(f);
        // A file's actions share their connector: one lookup per run of them, not one
        // (and a copy of the name) per action.
        for run in f.actions.chunk_by(|a, b| a.connector == b.connector) {
            let counts = self.connectors.entry(run[0].connector.clone()).or_default();
            for a in run {
                counts.add(a);
                self.total.add(a);
            }
        }
    }
}

/// The operations of `f` whose edits insert a generator's hints: what `--overlay` is told
/// each edit inserts, one entry per operation's mapping holding a key besides `x-effects`.
fn hinted_operations(f: &FileResult) -> usize {
    let mut maps: Vec<usize> = f
        .inserted
        .iter()
        .filter(|i| {
            i.entries
                .iter()
                .any(|(k, _)| k != crate::model::openapi::EFFECTS_KEY)
        })
        .map(|i| i.map)
        .collect();
    maps.sort_unstable();
    maps.dedup();
    maps.len()
}

/// The summary as an aligned table.
pub fn summary_table(s: &Summary) -> String {
    let head = [
        "connector",
        "actions",
        "added",
        "agrees",
        "conflict",
        "unclassified",
        "invalid",
        "skipped",
        "coverage",
    ];
    let line = |name: &str, c: &Counts| {
        [
            crate::text::safe::line(name).into_owned(),
            c.actions.to_string(),
            c.added.to_string(),
            c.agrees.to_string(),
            c.conflict.to_string(),
            c.unclassified.to_string(),
            c.invalid.to_string(),
            c.skipped.to_string(),
            c.coverage_shown(),
        ]
    };
    let mut rows: Vec<[String; 9]> = vec![head.map(str::to_owned)];
    rows.extend(s.connectors.iter().map(|(n, c)| line(n, c)));
    rows.push(line("total", &s.total));
    table(&rows)
}

/// Left-aligns the first column and right-aligns the others.
pub fn table<const N: usize>(rows: &[[String; N]]) -> String {
    let mut widths = [0usize; N];
    for r in rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i == 0 {
                    format!("{c:<w$}", w = widths[i])
                } else {
                    format!("{c:>w$}", w = widths[i])
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

pub fn summary_json(s: &Summary) -> String {
    let mut v = serde_json::to_value(s).unwrap_or_default();
    if let Some(obj) = v.as_object_mut() {
        obj.insert(
            "coverage_percent".into(),
            serde_json::json!(s.total.coverage().map(|c| (c * 10.0).round() / 10.0)),
        );
    }
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report's rows are written by hand for speed; the `csv` crate is the oracle.
    #[test]
    fn fields_are_quoted_as_the_csv_crate_quotes_them() {
        let fields = [
            "",
            "plain",
            "a,b",
            "say \"hi\"",
            "\"",
            "line\nbreak",
            "cr\rhere",
            "crlf\r\n",
            "tab\there",
            " spaced ",
            "émoji 🚀, and \"quotes\"",
            "|pipe|",
            "'single'",
            "#hash",
        ];
        for field in fields {
            let mut ours = String::new();
            push_field(&mut ours, field);
            ours.push_str(",x\n");
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record([&*crate::text::safe::csv_cell(field), "x"])
                .unwrap();
            let theirs = String::from_utf8(w.into_inner().unwrap()).unwrap();
            assert_eq!(ours, theirs, "field {field:?}");
        }
    }
}
