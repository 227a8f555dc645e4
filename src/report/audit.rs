//! Audit: compare the hints an MCP server declares with what the engine infers from each
//! tool's name, title, description and input schema, and summarize how well they agree.
//!
//! The inference is the one `backfill` uses (same engine, same heuristics), so an audit of a
//! labelled tool list also measures the backfill. Renderers return strings; only the binary
//! prints.

use std::fmt::Write as _;
use std::io::Write;

use serde::Serialize;

use crate::classify::record::{Count, Key, OVERRULES, PROVIDERS};
use crate::classify::{Confidence, Group, Inference, RuleSet, infer_in};
use crate::effects::{DestructivePolicy, Effect, Effects, Hints, derive_hints};
use crate::error::{Error, Result};
use crate::source::mcp::Tool;
use crate::view::ActionView;

/// What the audit concludes about one tool's declared hints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Verdict {
    /// No disagreement found. A tool left unclassified (or below `--min-confidence`) has
    /// nothing to disagree with, so it lands here too; its empty effects say so.
    Agrees,
    /// Neither `readOnlyHint` nor `destructiveHint` is declared: clients fall back to the
    /// specification's defaults (not read-only, destructive).
    Missing,
    /// Declared read-only, inferred mutating: a client would run it unattended.
    Unsafe,
    /// Declared not read-only, inferred read-only with high confidence: a human approves a
    /// harmless call every time.
    Overcautious,
    /// An explicit `destructiveHint` that differs from the inferred one.
    Differs,
    /// `destructiveHint: false` on a tool inferred to delete: clients use the hint to decide
    /// whether to ask first, so this fails like `unsafe`.
    Understated,
    /// A hint key misspelled, misplaced or not a boolean: what the author meant never
    /// reaches the client.
    Malformed,
    /// An additive write (creates, removes and replaces nothing) declared not read-only
    /// with `destructiveHint` unset: clients then assume destructive.
    DestructiveUnset,
    /// Declared read-only (or `destructiveHint: false`) where the rules lean to a change (a
    /// delete), on evidence whose record is not good enough to overrule a person: the claim
    /// is not confirmed. A note for a reviewer; it never fails a run.
    Unconfirmed,
}

impl Verdict {
    pub const ALL: [Verdict; 9] = [
        Verdict::Agrees,
        Verdict::Missing,
        Verdict::Unsafe,
        Verdict::Understated,
        Verdict::Malformed,
        Verdict::Unconfirmed,
        Verdict::Overcautious,
        Verdict::Differs,
        Verdict::DestructiveUnset,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Agrees => "agrees",
            Verdict::Missing => "missing",
            Verdict::Unsafe => "unsafe",
            Verdict::Overcautious => "overcautious",
            Verdict::Differs => "differs",
            Verdict::Understated => "understated",
            Verdict::Malformed => "malformed",
            Verdict::DestructiveUnset => "destructive-unset",
            Verdict::Unconfirmed => "unconfirmed",
        }
    }

    /// The verdicts that fail the audit: the declared hints would let a client act without
    /// asking where it should ask, or say nothing a client can read.
    pub fn fails(self) -> bool {
        matches!(
            self,
            Verdict::Unsafe | Verdict::Understated | Verdict::Malformed
        )
    }
}

/// One audited tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditRow {
    pub tool_name: String,
    pub title: Option<String>,
    /// The annotations as the server declares them (`None` fields are not set).
    pub declared: Hints,
    /// Empty when unclassified or below the confidence threshold.
    pub inferred_effects: Effects,
    pub confidence: Option<Confidence>,
    /// Ids of the rules that decided, in rule order.
    pub rules: Vec<String>,
    /// Hints derived from the inferred effects with the chosen destructive policy (the
    /// declared annotations are not merged in: they are what is being checked).
    pub inferred: Hints,
    pub verdict: Verdict,
    /// One sentence on which evidence won, or why nothing was inferred.
    pub reason: String,
}

impl AuditRow {
    /// The truth the declared hints give for read-only: `readOnlyHint` true is read-only;
    /// `readOnlyHint` false or `destructiveHint` true is not; anything else is unknown.
    pub fn declared_read_only(&self) -> Option<bool> {
        match (self.declared.read_only, self.declared.destructive) {
            (Some(true), _) => Some(true),
            (Some(false), _) | (_, Some(true)) => Some(false),
            _ => None,
        }
    }
}

/// Audits tools against the rules. Inferences below `min_confidence` count as unclassified:
/// their effects, hints, confidence and rules are left empty and the reason says why, so a
/// weak guess never produces an `unsafe` or `overcautious` verdict on its own. One weak
/// guess is kept: a delete against a declared `readOnlyHint: true` (see [`weak_delete`]).
pub fn audit(
    tools: &[ActionView],
    rules: &RuleSet,
    policy: DestructivePolicy,
    min_confidence: Confidence,
) -> Vec<AuditRow> {
    // A server names its tools in one style: read each name in the style of all of them.
    let group = Group::learn(tools.iter().map(|t| t.id.as_str()), &rules.lexicon);
    tools
        .iter()
        .map(|tool| audit_one(tool, &group, &[], rules, policy, min_confidence))
        .collect()
}

/// [`audit`] of a tool list as read, with each tool's hint problems.
pub fn audit_tools(
    tools: &[Tool],
    rules: &RuleSet,
    policy: DestructivePolicy,
    min_confidence: Confidence,
) -> Vec<AuditRow> {
    let group = Group::learn(tools.iter().map(|t| t.view.id.as_str()), &rules.lexicon);
    tools
        .iter()
        .map(|t| audit_one(&t.view, &group, &t.problems, rules, policy, min_confidence))
        .collect()
}

fn audit_one(
    tool: &ActionView,
    group: &Group,
    problems: &[String],
    rules: &RuleSet,
    policy: DestructivePolicy,
    min_confidence: Confidence,
) -> AuditRow {
    let inf = infer_in(tool, group, rules);
    judge(tool, &inf, problems, rules, policy, min_confidence)
}

/// The verdict on one tool's declared hints given what the rules inferred of it: what
/// [`audit`] does after inferring, for callers that hold the inference already (the
/// evaluation declares each labelled tool read-only over the inference it made).
pub fn judge(
    tool: &ActionView,
    inf: &Inference,
    problems: &[String],
    rules: &RuleSet,
    policy: DestructivePolicy,
    min_confidence: Confidence,
) -> AuditRow {
    let declared = tool.annotations.clone().unwrap_or_default();
    let weak = weak_delete(&declared, inf, min_confidence);
    let kept = inf.confident(min_confidence) || weak;
    let (effects, confidence, fired, reason) = if kept {
        let ids = inf.deciding_ids(rules).into_iter().map(str::to_owned);
        let mut reason = inf.reason(None, rules);
        if weak {
            let _ = write!(
                reason,
                "; below --min-confidence {min_confidence}, yet a read-only claim is never agreed with against a delete"
            );
        }
        (inf.effects, inf.confidence, ids.collect(), reason)
    } else if let Some(c) = inf.confidence {
        let reason = format!(
            "{} confidence is below the threshold ({}): counted as unclassified ({})",
            c,
            min_confidence,
            inf.reason(None, rules)
        );
        (Effects::EMPTY, None, Vec::new(), reason)
    } else {
        (Effects::EMPTY, None, Vec::new(), inf.reason(None, rules))
    };
    let inferred = derive_hints(effects, tool.label.as_deref(), None, policy, inf.overwrites);
    let mut row = AuditRow {
        tool_name: tool.id.clone(),
        title: tool.label.clone(),
        declared,
        inferred_effects: effects,
        confidence,
        rules: fired,
        inferred,
        verdict: Verdict::Agrees,
        reason,
    };
    // Additive: a write that neither removes nor replaces what is there.
    let additive = effects == Effects::single(Effect::Write) && !inf.overwrites;
    // An explicit hint is a person's claim: only evidence whose own record is good enough
    // to overrule a person calls it wrong. The plain reading's last line ("otherwise a
    // change", right about 63% of the time where no method speaks), a word seen in a
    // handful of rows or a rule that never fired on the labelled sets cannot; they leave
    // the claim unconfirmed instead, a note that fails nothing.
    let overruling = inf
        .decision
        .as_ref()
        .and_then(|d| rules.measured.overruling(d));
    let overrules = overruling.is_some();
    row.verdict = verdict(&row, problems, additive, overrules);
    // Only a contradiction names its evidence: the words are made for those rows alone.
    let contradicts = matches!(
        row.verdict,
        Verdict::Unsafe | Verdict::Understated | Verdict::Unconfirmed
    );
    let record = overruling
        .or(inf.judgement.map(|j| (j.key, j.count)))
        .filter(|_| contradicts)
        .map(|(key, count)| record(key, count, rules));
    if let Some(why) = why(&row, problems, record.as_deref()) {
        row.reason = format!("{why}; {}", row.reason);
    }
    row
}

/// The evidence a contradiction rests on and its record, in words: what a reviewer weighs
/// against the author's claim.
fn record(key: Key, count: Count, rules: &RuleSet) -> String {
    if count.of == 0 {
        return format!(
            "{}: never decided a labelled operation, so it has no record to overrule a person with",
            key.describe(rules)
        );
    }
    let (_, lower, _) = count.bounds();
    format!(
        "{}: right in {} of {} labelled operations of {} provider{} (at least {:.1}% with 95% confidence; overruling a person takes {:.0}% and {} providers)",
        key.describe(rules),
        count.held,
        count.of,
        count.providers,
        if count.providers == 1 { "" } else { "s" },
        lower * 100.0,
        OVERRULES * 100.0,
        PROVIDERS,
    )
}

/// Whether the inference is a delete below `min_confidence` on a tool that declares
/// `readOnlyHint: true`. Counted as unclassified, it made the audit agree with the claim
/// (`drop_database`, `truncate_table`, `erase_all`: delete verbs whose own records come
/// from too few providers to reach medium), and a client then runs the delete without
/// asking: of every mistake a hint can make the costliest, so no threshold hides it; its
/// record still decides whether the claim is called wrong or only left unconfirmed.
fn weak_delete(declared: &Hints, inf: &Inference, min: Confidence) -> bool {
    declared.read_only == Some(true) && inf.effects.contains(Effect::Delete) && !inf.confident(min)
}

fn verdict(row: &AuditRow, problems: &[String], additive: bool, overrules: bool) -> Verdict {
    let d = &row.declared;
    let inferred_ro = row.inferred.read_only;
    if d.read_only == Some(true) && inferred_ro == Some(false) {
        return if overrules {
            Verdict::Unsafe
        } else {
            Verdict::Unconfirmed
        };
    }
    if d.read_only != Some(true)
        && d.destructive == Some(false)
        && row.inferred_effects.contains(Effect::Delete)
    {
        return if overrules {
            Verdict::Understated
        } else {
            Verdict::Unconfirmed
        };
    }
    if !problems.is_empty() {
        return Verdict::Malformed;
    }
    if d.read_only.is_none() && d.destructive.is_none() {
        return Verdict::Missing;
    }
    if row.declared_read_only() == Some(false)
        && inferred_ro == Some(true)
        && row.confidence == Some(Confidence::High)
    {
        return Verdict::Overcautious;
    }
    // destructiveHint only means something for a tool that is not read-only, on both sides.
    // Declared true where the policy says false is caution the specification allows (a
    // destructive update, not only a delete): only the opposite is a disagreement.
    if d.read_only != Some(true)
        && inferred_ro == Some(false)
        && d.destructive == Some(false)
        && row.inferred.destructive == Some(true)
    {
        return Verdict::Differs;
    }
    if d.read_only == Some(false) && d.destructive.is_none() && additive {
        return Verdict::DestructiveUnset;
    }
    Verdict::Agrees
}

/// What the verdict means for a client, in one clause; none for `agrees`. `record` is the
/// deciding evidence and its record, which a contradiction names.
fn why(row: &AuditRow, problems: &[String], record: Option<&str>) -> Option<String> {
    let effects = row.inferred_effects.joined(", ");
    let flag = |b: Option<bool>| b.map_or("unset".to_owned(), |b| b.to_string());
    let record = record.unwrap_or("no measured evidence");
    Some(match row.verdict {
        Verdict::Agrees
            if row.declared.read_only != Some(true)
                && row.declared.destructive == Some(true)
                && row.inferred.read_only == Some(false)
                && row.inferred.destructive == Some(false) =>
        {
            format!("destructiveHint true on a change the policy calls non-destructive ({effects}): caution the specification allows, not a disagreement")
        }
        Verdict::Agrees => return None,
        Verdict::Missing => "neither readOnlyHint nor destructiveHint is declared: clients assume a destructive write and ask every time".into(),
        Verdict::Unsafe => format!("declared read-only, but the rules infer {effects}: clients run it without asking; {record}"),
        Verdict::Understated => format!("declares destructiveHint false, but the rules infer {effects}: clients will not warn that it removes data; {record}"),
        Verdict::Unconfirmed if row.declared.read_only == Some(true) => format!("declared read-only; the rules lean to {effects}, but not on evidence good enough to overrule a person, so the claim is not confirmed (a note: it fails nothing); {record}"),
        Verdict::Unconfirmed => format!("declares destructiveHint false; the rules lean to {effects}, but not on evidence good enough to overrule a person, so the claim is not confirmed (a note: it fails nothing); {record}"),
        Verdict::Malformed => problems.join("; "),
        Verdict::Overcautious => format!("declared not read-only, but the rules infer {effects} with high confidence: a human approves a harmless call every time"),
        Verdict::Differs => format!(
            "destructiveHint is {}, the rules say {}",
            flag(row.declared.destructive),
            flag(row.inferred.destructive)
        ),
        Verdict::DestructiveUnset => "an additive write with destructiveHint unset: clients assume it destructive; declare destructiveHint: false".into(),
    })
}

/// The CSV columns, in order.
pub const CSV_COLUMNS: [&str; 12] = [
    "tool_name",
    "title",
    "declared_read_only",
    "declared_destructive",
    "declared_idempotent",
    "declared_open_world",
    "inferred_effects",
    "confidence",
    "rules",
    "inferred_read_only",
    "inferred_destructive",
    "verdict",
];

fn flag(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "true",
        Some(false) => "false",
        None => "",
    }
}

/// Writes the rows as CSV with [`CSV_COLUMNS`]: booleans `true` / `false`, empty when not
/// set; effects `|`-joined in canonical order; rules `|`-joined.
pub fn write_csv<W: Write>(rows: &[AuditRow], out: W) -> Result<()> {
    let fail = |e: csv::Error| Error::new(format!("cannot write the CSV report: {e}"));
    let mut w = csv::Writer::from_writer(out);
    w.write_record(CSV_COLUMNS).map_err(fail)?;
    for r in rows {
        let effects = r.inferred_effects.joined("|");
        let rules = r.rules.join("|");
        w.write_record(
            [
                r.tool_name.as_str(),
                r.title.as_deref().unwrap_or(""),
                flag(r.declared.read_only),
                flag(r.declared.destructive),
                flag(r.declared.idempotent),
                flag(r.declared.open_world),
                effects.as_str(),
                r.confidence.map_or("", Confidence::name),
                rules.as_str(),
                flag(r.inferred.read_only),
                flag(r.inferred.destructive),
                r.verdict.name(),
            ]
            .map(crate::text::safe::csv_cell)
            .iter()
            .map(|c| c.as_ref()),
        )
        .map_err(fail)?;
    }
    w.flush()
        .map_err(|e| Error::new(format!("cannot write the CSV report: {e}")))
}

/// Field order here is the key order of the JSON output: stable across runs and versions.
#[derive(Serialize)]
struct JsonRow<'a> {
    tool_name: &'a str,
    title: Option<&'a str>,
    declared_read_only: Option<bool>,
    declared_destructive: Option<bool>,
    declared_idempotent: Option<bool>,
    declared_open_world: Option<bool>,
    inferred_effects: Vec<&'static str>,
    confidence: Option<&'static str>,
    rules: &'a [String],
    inferred_read_only: Option<bool>,
    inferred_destructive: Option<bool>,
    verdict: &'static str,
    reason: &'a str,
}

#[derive(Serialize)]
struct JsonCounts {
    tools: usize,
    agrees: usize,
    missing: usize,
    #[serde(rename = "unsafe")]
    unsafe_: usize,
    overcautious: usize,
    differs: usize,
    understated: usize,
    malformed: usize,
    #[serde(rename = "destructive-unset")]
    destructive_unset: usize,
    unconfirmed: usize,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    tools: Vec<JsonRow<'a>>,
    summary: JsonCounts,
}

/// `{"tools": [...], "summary": {...}}` with every row's CSV fields plus `reason`, keys in
/// a fixed order, pretty-printed, newline-terminated.
pub fn render_json(rows: &[AuditRow]) -> String {
    let count = |v: Verdict| rows.iter().filter(|r| r.verdict == v).count();
    let report = JsonReport {
        tools: rows
            .iter()
            .map(|r| JsonRow {
                tool_name: &r.tool_name,
                title: r.title.as_deref(),
                declared_read_only: r.declared.read_only,
                declared_destructive: r.declared.destructive,
                declared_idempotent: r.declared.idempotent,
                declared_open_world: r.declared.open_world,
                inferred_effects: r.inferred_effects.iter().map(|e| e.name()).collect(),
                confidence: r.confidence.map(Confidence::name),
                rules: &r.rules,
                inferred_read_only: r.inferred.read_only,
                inferred_destructive: r.inferred.destructive,
                verdict: r.verdict.name(),
                reason: &r.reason,
            })
            .collect(),
        summary: JsonCounts {
            tools: rows.len(),
            agrees: count(Verdict::Agrees),
            missing: count(Verdict::Missing),
            unsafe_: count(Verdict::Unsafe),
            overcautious: count(Verdict::Overcautious),
            differs: count(Verdict::Differs),
            understated: count(Verdict::Understated),
            malformed: count(Verdict::Malformed),
            destructive_unset: count(Verdict::DestructiveUnset),
            unconfirmed: count(Verdict::Unconfirmed),
        },
    };
    // Serializing plain structs of strings, numbers and options cannot fail.
    let mut s = serde_json::to_string_pretty(&report).unwrap_or_default();
    s.push('\n');
    s
}

/// `ro`, `rw`, `rw destructive`, `-`: the declared or inferred hints in a few characters.
fn short(h: &Hints) -> String {
    match (h.read_only, h.destructive) {
        (Some(true), _) => "ro".into(),
        (Some(false), Some(true)) | (None, Some(true)) => "rw destructive".into(),
        (Some(false), _) | (None, Some(false)) => "rw".into(),
        (None, None) => "-".into(),
    }
}

/// A human table: one line per tool, what each verdict other than `agrees` means, then the
/// verdict counts.
pub fn render_table(rows: &[AuditRow]) -> String {
    let header = [
        "TOOL", "DECLARED", "INFERRED", "EFFECTS", "CONF", "VERDICT", "RULES",
    ];
    let body: Vec<[String; 7]> = rows
        .iter()
        .map(|r| {
            [
                crate::text::safe::line(&r.tool_name).into_owned(),
                short(&r.declared),
                short(&r.inferred),
                match r.inferred_effects.joined("|") {
                    e if e.is_empty() => "-".into(),
                    e => e,
                },
                r.confidence.map_or("-", Confidence::name).to_owned(),
                r.verdict.name().to_owned(),
                match r.rules.join(",") {
                    s if s.is_empty() => "-".into(),
                    s => s,
                },
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for line in &body {
        for (w, cell) in widths.iter_mut().zip(line) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut emit = |cells: &[&str]| {
        let mut line = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                line.push_str(cell);
            } else {
                let pad = w - cell.chars().count();
                let _ = write!(line, "{cell}{}  ", " ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    };
    emit(&header);
    for line in &body {
        emit(&line.each_ref().map(String::as_str));
    }
    let notes: Vec<&AuditRow> = rows
        .iter()
        .filter(|r| r.verdict != Verdict::Agrees)
        .collect();
    if !notes.is_empty() {
        out.push('\n');
    }
    for r in notes {
        let _ = writeln!(out, "{}: {}: {}", r.tool_name, r.verdict.name(), r.reason);
    }
    let counts: Vec<String> = Verdict::ALL
        .iter()
        .map(|v| {
            let n = rows.iter().filter(|r| r.verdict == *v).count();
            format!("{n} {}", v.name())
        })
        .collect();
    let _ = writeln!(out, "\n{} tools: {}", rows.len(), counts.join(", "));
    out
}

/// Read-only accuracy of the inferences made at one confidence level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Calibration {
    /// Tools with a known truth inferred at this level.
    pub total: usize,
    /// Of those, the ones whose inferred read-only matches the declared one.
    pub correct: usize,
}

impl Calibration {
    pub fn accuracy(&self) -> Option<f64> {
        ratio(self.correct, self.total)
    }
}

fn ratio(n: usize, d: usize) -> Option<f64> {
    (d > 0).then(|| n as f64 / d as f64)
}

/// How well inference agrees with declared hints over a set of audited tools, taking the
/// declared hints as the truth (see [`AuditRow::declared_read_only`]). For measuring the
/// engine on labelled tool lists; run the audit with `min_confidence` low for the
/// conservative figures (a read-only inference at any confidence counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HintAgreement {
    pub tools: usize,
    /// Tools that got any effects.
    pub classified: usize,
    /// Declared read-only.
    pub read_only: usize,
    /// Declared not read-only.
    pub not_read_only: usize,
    /// Declared not read-only, inferred read-only: the error that lets a write run
    /// unattended.
    pub unsafe_inferences: usize,
    /// Declared read-only, not inferred read-only (unclassified included).
    pub friction: usize,
    /// Not-read-only tools with an explicit `destructiveHint` and a mutating inference.
    pub destructive_compared: usize,
    pub destructive_agree: usize,
    /// Indexed by confidence: low, medium, high.
    pub by_confidence: [Calibration; 3],
}

impl HintAgreement {
    pub fn tally(rows: &[AuditRow]) -> HintAgreement {
        let mut s = HintAgreement::default();
        for r in rows {
            s.add(r);
        }
        s
    }

    pub fn add(&mut self, r: &AuditRow) {
        self.tools += 1;
        let inferred_ro = r.inferred.read_only == Some(true);
        if !r.inferred_effects.is_empty() {
            self.classified += 1;
        }
        let truth = r.declared_read_only();
        match truth {
            Some(true) => {
                self.read_only += 1;
                self.friction += usize::from(!inferred_ro);
            }
            Some(false) => {
                self.not_read_only += 1;
                self.unsafe_inferences += usize::from(inferred_ro);
                if let (Some(d), Some(false)) = (r.declared.destructive, r.inferred.read_only) {
                    self.destructive_compared += 1;
                    self.destructive_agree += usize::from(Some(d) == r.inferred.destructive);
                }
            }
            None => {}
        }
        if let (Some(t), Some(c)) = (truth, r.confidence) {
            let slot = &mut self.by_confidence[c as usize];
            slot.total += 1;
            slot.correct += usize::from(t == inferred_ro);
        }
    }

    pub fn merge(&mut self, o: &HintAgreement) {
        self.tools += o.tools;
        self.classified += o.classified;
        self.read_only += o.read_only;
        self.not_read_only += o.not_read_only;
        self.unsafe_inferences += o.unsafe_inferences;
        self.friction += o.friction;
        self.destructive_compared += o.destructive_compared;
        self.destructive_agree += o.destructive_agree;
        for (a, b) in self.by_confidence.iter_mut().zip(o.by_confidence) {
            a.total += b.total;
            a.correct += b.correct;
        }
    }

    pub fn coverage(&self) -> Option<f64> {
        ratio(self.classified, self.tools)
    }

    pub fn unsafe_rate(&self) -> Option<f64> {
        ratio(self.unsafe_inferences, self.not_read_only)
    }

    pub fn friction_rate(&self) -> Option<f64> {
        ratio(self.friction, self.read_only)
    }

    pub fn destructive_agreement(&self) -> Option<f64> {
        ratio(self.destructive_agree, self.destructive_compared)
    }

    pub fn calibration(&self, c: Confidence) -> Calibration {
        self.by_confidence[c as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::mcp::parse_tools;

    const TOOLS: &str = r#"{"tools": [
      {"name": "list_users", "description": "Lists users.",
       "annotations": {"readOnlyHint": true}},
      {"name": "delete_user", "description": "Deletes a user.",
       "annotations": {"readOnlyHint": true, "destructiveHint": false}},
      {"name": "users_get", "description": "Gets users by name.",
       "annotations": {"readOnlyHint": false}},
      {"name": "update_user", "title": "Update user", "description": "Updates a user.",
       "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true}},
      {"name": "create_user", "description": "Creates a user."},
      {"name": "widget", "description": "Widget.", "annotations": {"readOnlyHint": false}}
    ]}"#;

    fn rows(policy: DestructivePolicy, min: Confidence) -> Vec<AuditRow> {
        let tools = parse_tools(TOOLS, "t.json").unwrap();
        audit(&tools, &RuleSet::builtin().unwrap(), policy, min)
    }

    /// A tool list's rows at `min`, with the built-in rules and the delete policy.
    fn audited(json: &str, min: Confidence) -> Vec<AuditRow> {
        let tools = parse_tools(json, "t").unwrap();
        audit(
            &tools,
            &RuleSet::builtin().unwrap(),
            DestructivePolicy::Delete,
            min,
        )
    }

    fn verdicts(rows: &[AuditRow]) -> Vec<&'static str> {
        rows.iter().map(|r| r.verdict.name()).collect()
    }

    #[test]
    fn verdicts_follow_the_declared_hints() {
        let r = rows(DestructivePolicy::Delete, Confidence::Low);
        assert_eq!(
            verdicts(&r),
            [
                "agrees",
                "unsafe",
                "overcautious",
                "agrees",
                "missing",
                "agrees"
            ]
        );
        // destructiveHint true on an update is the caution the specification allows.
        assert!(
            r[3].reason.starts_with(
                "destructiveHint true on a change the policy calls non-destructive (write): caution"
            ),
            "{}",
            r[3].reason
        );
        // The contradiction names its evidence and that evidence's record.
        assert!(
            r[1].reason.contains("verb `delete` in a name"),
            "{}",
            r[1].reason
        );
        assert!(
            r[1].reason.contains("labelled operations of"),
            "{}",
            r[1].reason
        );
        assert_eq!(r[1].inferred.destructive, Some(true));
        assert!(r[1].rules.contains(&"verb-delete".to_owned()), "{:?}", r[1]);
        // Nothing inferred for an opaque noun: nothing to disagree with.
        assert!(r[5].inferred_effects.is_empty() && r[5].confidence.is_none());
    }

    /// The verdicts: a delete declaring destructiveHint false fails like unsafe;
    /// misspelled, misplaced or non-boolean hint keys are malformed and fail too; an
    /// additive write that leaves destructiveHint unset is told so, without failing.
    #[test]
    fn understated_malformed_and_destructive_unset() {
        let tools = crate::source::mcp::read_tools(
            r#"[
              {"name": "delete_page", "description": "Deletes a page.",
               "annotations": {"readOnlyHint": false, "destructiveHint": false}},
              {"name": "create_page", "description": "Creates a page.",
               "annotations": {"readOnlyHint": false}},
              {"name": "update_page", "description": "Updates a page.",
               "annotations": {"readOnlyHint": false}},
              {"name": "list_pages", "description": "Lists the pages.",
               "annotations": {"readOnlyHnt": true}},
              {"name": "get_page", "description": "Gets a page.",
               "annotations": {"readOnlyHint": "true"}},
              {"name": "read_page", "description": "Reads a page.", "readOnlyHint": true},
              {"name": "delete_note", "description": "Deletes a note.",
               "annotations": {"readOnlyHint": false, "destructiveHint": true}}
            ]"#,
            "t.json",
        )
        .unwrap();
        let rows = audit_tools(
            &tools,
            &RuleSet::builtin().unwrap(),
            DestructivePolicy::Delete,
            Confidence::Low,
        );
        assert_eq!(
            verdicts(&rows),
            [
                "understated",
                "destructive-unset",
                "agrees",
                "malformed",
                "malformed",
                "malformed",
                "agrees"
            ],
            "{rows:#?}"
        );
        let fails: Vec<bool> = rows.iter().map(|r| r.verdict.fails()).collect();
        assert_eq!(fails, [true, false, false, true, true, true, false]);
        assert!(rows[0].reason.starts_with(
            "declares destructiveHint false, but the rules infer delete: clients will not warn that it removes data; "
        ), "{}", rows[0].reason);
        assert!(
            rows[3].reason.contains("did you mean `readOnlyHint`?"),
            "{}",
            rows[3].reason
        );
        assert!(
            rows[4]
                .reason
                .contains("is the string \"true\", not true or false"),
            "{}",
            rows[4].reason
        );
        // Not an additive write: an update replaces what is there.
        assert_eq!(rows[2].inferred_effects, Effects::single(Effect::Write));
        // `audit` on the views alone knows no problems, as before.
        let views: Vec<ActionView> = tools.into_iter().map(|t| t.view).collect();
        let plain = audit(
            &views,
            &RuleSet::builtin().unwrap(),
            DestructivePolicy::Delete,
            Confidence::Low,
        );
        assert_eq!(plain[3].verdict, Verdict::Missing);
    }

    #[test]
    fn overwrite_policy_makes_updates_destructive() {
        let r = rows(DestructivePolicy::Overwrite, Confidence::Low);
        assert_eq!(r[3].inferred.destructive, Some(true));
        assert_eq!(r[3].verdict, Verdict::Agrees);
        // A create is still not destructive.
        assert_eq!(r[4].inferred.destructive, Some(false));
    }

    #[test]
    fn below_the_threshold_counts_as_unclassified() {
        let tools = parse_tools(
            r#"[{"name": "tickets", "description": "Tickets.",
                 "inputSchema": {"properties": {"query": {"type": "string"}}},
                 "annotations": {"readOnlyHint": false}}]"#,
            "t",
        )
        .unwrap();
        let rules = RuleSet::builtin().unwrap();
        let low = audit(&tools, &rules, DestructivePolicy::Delete, Confidence::Low);
        assert_eq!(low[0].inferred.read_only, Some(true), "{:?}", low[0]);
        let high = audit(&tools, &rules, DestructivePolicy::Delete, Confidence::High);
        assert!(high[0].inferred_effects.is_empty());
        assert!(high[0].rules.is_empty() && high[0].confidence.is_none());
        assert!(
            high[0].reason.contains("below the threshold"),
            "{}",
            high[0].reason
        );
        assert_eq!(high[0].verdict, Verdict::Agrees);
    }

    /// A rule that never decided a labelled operation has no record to overrule a person
    /// with: a declared read that it contradicts is left unconfirmed, a note, not a failure.
    #[test]
    fn an_input_that_saves_a_file_leaves_a_declared_read_unconfirmed() {
        let r = audited(
            r#"[{"name": "get_request", "description": "Gets a request by id.",
                 "inputSchema": {"properties": {
                    "id": {"type": "number"},
                    "bodyPath": {"type": "string",
                                 "description": "The path to save the body to."}}},
                 "annotations": {"readOnlyHint": true}}]"#,
            Confidence::Low,
        );
        assert_eq!(r[0].inferred.read_only, Some(false), "{:?}", r[0]);
        assert!(r[0].rules.contains(&"input-saves-output".to_owned()));
        assert_eq!(r[0].verdict, Verdict::Unconfirmed);
        assert!(!r[0].verdict.fails());
        assert!(
            r[0].reason.contains("never decided a labelled operation"),
            "{}",
            r[0].reason
        );
    }

    /// The plain reading's last line ("otherwise a change") is right about 63% of the time
    /// where no method speaks: never enough to call a person's read-only claim unsafe. A
    /// delete verb's record is.
    #[test]
    fn a_weak_change_leaves_a_declared_hint_unconfirmed() {
        let r = audited(
            r#"[{"name": "git_diff", "description": "Shows differences between branches or commits",
                 "annotations": {"readOnlyHint": true}},
                {"name": "git_status", "description": "Shows the working tree status",
                 "annotations": {"readOnlyHint": true}},
                {"name": "git_delete_branch", "description": "Deletes a branch",
                 "annotations": {"readOnlyHint": true}}]"#,
            Confidence::Medium,
        );
        assert_eq!(verdicts(&r), ["unconfirmed", "agrees", "unsafe"], "{r:#?}");
        assert!(
            r[0].reason
                .contains("the plain reading's change (otherwise)"),
            "{}",
            r[0].reason
        );
    }

    #[test]
    fn csv_has_the_documented_columns() {
        let r = rows(DestructivePolicy::Delete, Confidence::Low);
        let mut buf = Vec::new();
        write_csv(&r, &mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(CSV_COLUMNS.join(",").as_str()));
        let list = lines.next().unwrap();
        assert!(list.starts_with("list_users,,true,,,,read,"), "{list}");
        assert!(list.ends_with(",true,false,agrees"), "{list}");
        let update = text.lines().find(|l| l.starts_with("update_user")).unwrap();
        let cells: Vec<&str> = update.split(',').collect();
        assert_eq!(cells.len(), CSV_COLUMNS.len());
        assert_eq!(
            &cells[..7],
            [
                "update_user",
                "Update user",
                "false",
                "true",
                "true",
                "",
                "write"
            ]
        );
        assert_eq!(cells[11], "agrees");
        let widget = text.lines().find(|l| l.starts_with("widget")).unwrap();
        assert_eq!(widget, "widget,,false,,,,,,,,,agrees");
    }

    #[test]
    fn json_is_stable_and_complete() {
        let r = rows(DestructivePolicy::Delete, Confidence::Low);
        let a = render_json(&r);
        assert_eq!(a, render_json(&r));
        let v: serde_json::Value = serde_json::from_str(&a).unwrap();
        assert_eq!(v["summary"]["tools"], 6);
        assert_eq!(v["summary"]["unsafe"], 1);
        assert_eq!(v["tools"][1]["verdict"], "unsafe");
        assert_eq!(v["tools"][1]["inferred_effects"][0], "delete");
        assert!(v["tools"][4]["declared_read_only"].is_null());
        // Keys keep the CSV order, `reason` last.
        let first = a.find("\"tool_name\"").unwrap();
        let verdict = a.find("\"verdict\"").unwrap();
        assert!(first < verdict && verdict < a.find("\"reason\"").unwrap());
    }

    #[test]
    fn table_lists_every_tool_and_the_counts() {
        let r = rows(DestructivePolicy::Delete, Confidence::Low);
        let t = render_table(&r);
        assert!(t.starts_with("TOOL"), "{t}");
        // The table, a blank line, one line per verdict other than agrees, a blank, the counts.
        assert_eq!(t.lines().count(), 1 + 6 + 1 + 3 + 2, "{t}");
        assert!(t.contains(
            "\ndelete_user: unsafe: declared read-only, but the rules infer delete: clients run it without asking; "
        ), "{t}");
        assert!(
            t.ends_with("6 tools: 3 agrees, 1 missing, 1 unsafe, 0 understated, 0 malformed, 0 unconfirmed, 1 overcautious, 0 differs, 0 destructive-unset\n"),
            "{t}"
        );
    }

    #[test]
    fn summary_rates() {
        let r = rows(DestructivePolicy::Delete, Confidence::Low);
        let s = HintAgreement::tally(&r);
        assert_eq!((s.tools, s.read_only, s.not_read_only), (6, 2, 3));
        // users_get is declared not read-only but inferred read-only.
        assert_eq!(s.unsafe_inferences, 1);
        // delete_user is declared read-only and inferred mutating.
        assert_eq!(s.friction, 1);
        assert_eq!(s.classified, 5);
        let total: usize = s.by_confidence.iter().map(|c| c.total).sum();
        assert_eq!(total, 4);
        let mut twice = s;
        twice.merge(&s);
        assert_eq!(twice.tools, 12);
        assert_eq!(twice.unsafe_rate(), s.unsafe_rate());
    }
}
