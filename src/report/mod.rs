//! Report: what `check` finds in each file and at the end of a run ([`Checker`]), compared
//! with a baseline ([`baseline`]); and `audit`'s comparison of an MCP server's hints with
//! the engine ([`audit`]).

pub mod audit;
pub mod baseline;

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::classify::RuleSet;
use crate::error::Error;
use crate::model::codes::{CHECK_CODES, check_code_level, explain_check_code, is_lint_code};
use crate::model::edit::Status;
use crate::model::finding::{Finding, Level};
use crate::model::hints::HintKey;
use crate::model::silence::{self, ActionSilences, Silencer, Unused};
use crate::model::site::Shape;
use crate::outcome::{ActionResult, FileResult};
use crate::view::Declared;

fn action_finding(f: &FileResult, a: &ActionResult, code: &str, message: String) -> Finding {
    Finding {
        file: Some(f.shown.clone()),
        line: Some(a.line),
        column: Some(a.column),
        code: code.to_owned(),
        level: check_code_level(code),
        message,
        tool: Some(a.tool_name()),
        ci_file: Some(f.ci_path().to_owned()),
        action: Some((a.connector.clone(), a.id.clone())),
        silenced: false,
    }
}

/// The finding code an action's status calls for, if any.
pub fn status_code(status: Status, declared_none: bool) -> Option<&'static str> {
    match status {
        Status::Unclassified => Some("unclassified-action"),
        Status::Conflict => Some("conflicting-effects"),
        Status::Invalid => Some("invalid-effects"),
        Status::Added if declared_none => Some("missing-effects"),
        _ => None,
    }
}

/// The findings of an action's hand-written hints: the redundant ones (a note), and an
/// override that makes a change look read-only (an error).
fn hint_findings(f: &FileResult, a: &ActionResult, out: &mut Vec<Finding>) {
    let Some(h) = &a.hint_review else { return };
    let derived: Vec<String> = h
        .redundant()
        .filter(|n| n.key != HintKey::Title)
        .map(|n| format!("{}: {}", n.key.name(), n.value))
        .collect();
    let mut parts = Vec::new();
    if !derived.is_empty() {
        parts.push(format!(
            "{} restate{} what its effects {} derive",
            derived.join(", "),
            if derived.len() == 1 { "s" } else { "" },
            h.effects_phrase()
        ));
    }
    if h.redundant().any(|n| n.key == HintKey::Title) {
        parts.push("its title restates its label".to_owned());
    }
    if !parts.is_empty() {
        let message = format!(
            "`{}`: {}; `backfill --migrate-hints` removes {}",
            a.id,
            parts.join("; "),
            if h.redundant().count() == 1 {
                "it"
            } else {
                "them"
            }
        );
        out.push(action_finding(f, a, "redundant-hint", message));
    }
    if h.read_only_override() {
        let message = format!(
            "`{}` declares readOnlyHint: true but its effects {} change something: clients would run it unattended",
            a.id,
            h.effects_phrase()
        );
        out.push(action_finding(f, a, "read-only-override", message));
    }
}

/// Produces `check` findings file by file, for runs that stream their files: each file's
/// findings come sorted by line, and files come in path order, so nothing needs holding.
#[derive(Debug, Default)]
pub struct Checker {
    /// Ids seen in the current folder, by connector, with where each was first seen. A
    /// connector's files share a folder, so duplicates are looked for within it and memory
    /// does not grow with the catalog.
    /// Ordered maps, not hashed: an id is a few bytes, and comparing a handful of them
    /// costs less than SipHash-ing one (the writer thread does this for every action).
    seen: BTreeMap<String, BTreeMap<String, (Rc<str>, usize)>>,
    folder: Option<(usize, String)>,
}

impl Checker {
    pub fn file(&mut self, f: &FileResult, rules: &RuleSet) -> Vec<Finding> {
        self.scan(f, rules, true)
    }

    /// Only the findings that make bad input: invalid declarations and duplicate ids
    /// (`backfill` fails on them and reports nothing else).
    pub fn bad_input(&mut self, f: &FileResult, rules: &RuleSet) -> Vec<Finding> {
        self.scan(f, rules, false)
    }

    fn scan(&mut self, f: &FileResult, rules: &RuleSet, all: bool) -> Vec<Finding> {
        let mut out = Vec::new();
        let file = f.shown.as_str();
        let folder = (f.catalog, f.folder.clone());
        if self.folder.as_ref() != Some(&folder) {
            self.seen.clear();
            self.folder = Some(folder);
        }
        if all {
            for e in f.error.iter().chain(&f.problems) {
                let mut finding = parse_error(Some(file.to_owned()), e);
                finding.ci_file = Some(f.ci_path().to_owned());
                out.push(finding);
            }
        }
        // One copy of the file name for every id it defines.
        let mut shared: Option<Rc<str>> = None;
        for run in f.actions.chunk_by(|a, b| a.connector == b.connector) {
            // A file's actions share their connector: one lookup per run of them.
            let ids = self.seen.entry(run[0].connector.clone()).or_default();
            for a in run {
                if let Some(code) = status_code(a.status, matches!(a.declared, Declared::None))
                    && (all || a.status == Status::Invalid)
                {
                    let message = if f.shape == Some(Shape::Server) {
                        server_message(a, rules)
                    } else {
                        status_message(a, rules)
                    };
                    out.push(action_finding(f, a, code, message));
                }
                if all {
                    hint_findings(f, a, &mut out);
                }
                if a.nested {
                    continue;
                }
                if let Some((first_file, first_line)) = ids.get(&a.id) {
                    let message = format!(
                        "`{}` is also defined at {first_file}:{first_line}; tool `{}` would be ambiguous",
                        a.id,
                        a.tool_name()
                    );
                    out.push(action_finding(f, a, "duplicate-action-id", message));
                } else {
                    let first = shared.get_or_insert_with(|| Rc::from(file));
                    ids.insert(a.id.clone(), (Rc::clone(first), a.line));
                }
            }
        }
        // An alias item lists its action a second time: edited once, at its anchor, but a
        // server would register the tool twice (counted once, silently).
        for (id, line, column) in &f.repeats {
            let Some(a) = f.actions.iter().find(|a| &a.id == id && !a.nested) else {
                continue;
            };
            let message = format!(
                "`{id}` is listed again here through an alias (first at {file}:{}); tool `{}` would be ambiguous",
                a.line,
                a.tool_name()
            );
            let mut finding = action_finding(f, a, "duplicate-action-id", message);
            finding.line = Some(*line);
            finding.column = Some(*column);
            out.push(finding);
        }
        if all {
            silence(f, &mut out);
        }
        out.sort();
        out
    }

    /// What is left once every file is done: errors from outside any file and rules that
    /// matched nothing.
    pub fn finish(self, errors: &[Error], rules_used: &[bool], rules: &RuleSet) -> Vec<Finding> {
        let mut out = Vec::new();
        for e in errors {
            let file = e
                .path
                .as_ref()
                .map(|p| p.to_string_lossy().replace('\\', "/"));
            out.push(parse_error(file, e));
        }
        // A built-in rule that matched nothing says nothing about the catalog, and its file
        // is not in the user's repository: only the user's own rules are reported.
        let builtin = |file: &str| crate::classify::BUILTIN.iter().any(|(f, _)| *f == file);
        for (used, r) in rules_used.iter().zip(&rules.rules) {
            if !used && !builtin(&r.file) {
                out.push(Finding {
                    file: Some(r.file.clone()),
                    code: "unused-heuristic".into(),
                    level: Level::Note,
                    message: format!("rule `{}` matched no action in this run", r.id),
                    ..Finding::default()
                });
            }
        }
        out.sort();
        out
    }
}

/// Marks the findings the file's and its actions' `ignore[...]` comments silence, and adds
/// an `unused-silence` finding for each of their codes that silences nothing: a code of
/// `check` with no finding there, a code no command knows (`lint`'s are its own), or a
/// silence not written `ignore[code, ...]`.
fn silence(f: &FileResult, out: &mut Vec<Finding>) {
    let actions: Vec<ActionSilences> = f
        .actions
        .iter()
        .enumerate()
        .filter_map(|(i, a)| ActionSilences::read((a.line, a.column), i, a.comment.as_deref()))
        .collect();
    silence::silence(&actions, &f.silences, out, &CheckSilences(f));
}

/// What `check` makes of a file's silences.
struct CheckSilences<'a>(&'a FileResult);

impl Silencer for CheckSilences<'_> {
    fn place(&self, finding: &Finding) -> Option<(usize, usize)> {
        let silenceable = finding.action.is_some()
            && !matches!(
                finding.code.as_str(),
                "parse-error" | "unused-heuristic" | "unused-silence"
            );
        silenceable.then_some((finding.line?, finding.column?))
    }

    fn unused(&self, code: &str, used: bool, at: Unused) -> Option<Finding> {
        let message = if let Some(why) = code.strip_prefix(crate::text::MALFORMED_SILENCE) {
            why.to_owned()
        } else if explain_check_code(code).is_some() {
            if used {
                return None;
            }
            format!("the silence of `{code}` matches no finding")
        } else if !is_lint_code(code) {
            let codes = CHECK_CODES.iter().map(|c| c.0);
            format!(
                "unknown code `{code}` in a silence{}",
                crate::error::did_you_mean(code, codes)
            )
        } else {
            return None;
        };
        let f = self.0;
        Some(match at {
            Unused::Action(i) => {
                let a = &f.actions[i];
                action_finding(f, a, "unused-silence", format!("`{}`: {message}", a.id))
            }
            Unused::File(line) => Finding {
                file: Some(f.shown.clone()),
                line: Some(line),
                code: "unused-silence".into(),
                level: check_code_level("unused-silence"),
                message: format!("{message} (for the whole file)"),
                ci_file: Some(f.ci_path().to_owned()),
                ..Finding::default()
            },
        })
    }
}

fn parse_error(file: Option<String>, e: &Error) -> Finding {
    Finding {
        file,
        line: e.line,
        column: e.column,
        code: "parse-error".into(),
        level: Level::Error,
        message: e.message.clone(),
        ..Finding::default()
    }
}

/// A server tool's status in its own terms: it declares hints, not effects, and the patch
/// writes the hints it lacks.
fn server_message(a: &ActionResult, rules: &RuleSet) -> String {
    let conf = a.inference.confidence.map_or("", |c| c.name());
    let by = a.inference.deciding_ids(rules).join(", ");
    let inferred = a.inference.effects.joined(", ");
    match a.status {
        Status::Added => {
            let written = a.edit.as_ref().map_or_else(String::new, |e| {
                let written = e.text.trim_matches(|c: char| c == ',' || c.is_whitespace());
                format!(": proposed `{written}`")
            });
            format!(
                "tool `{}` lacks readOnlyHint or destructiveHint{written}, from [{inferred}] ({conf}) by {by}",
                a.id
            )
        }
        Status::Conflict => format!(
            "tool `{}` declares {} but the evidence infers [{inferred}] ({conf}) by {by}, on a record good enough to overrule a person",
            a.id,
            declared_hints(a)
        ),
        _ if a.inference.effects.is_empty() => format!(
            "tool `{}` lacks readOnlyHint or destructiveHint and no rule classifies it: {}",
            a.id,
            a.inference.reason(a.vote.as_deref(), rules)
        ),
        _ => format!(
            "tool `{}` lacks readOnlyHint or destructiveHint; only a {conf} confidence proposal: [{inferred}]",
            a.id
        ),
    }
}

/// A server tool's declared readOnlyHint and destructiveHint, as a finding quotes them.
fn declared_hints(a: &ActionResult) -> String {
    let h = a.annotations.clone().unwrap_or_default();
    let parts: Vec<String> = [
        ("readOnlyHint", h.read_only),
        ("destructiveHint", h.destructive),
    ]
    .into_iter()
    .filter_map(|(k, v)| Some(format!("{k}: {}", v?)))
    .collect();
    parts.join(", ")
}

fn status_message(a: &ActionResult, rules: &RuleSet) -> String {
    let conf = a.inference.confidence.map_or("", |c| c.name());
    match (&a.status, &a.declared) {
        (Status::Added, _) => format!(
            "`{}` declares no effects; proposed [{}] ({conf}) by {}{}",
            a.id,
            a.inference.effects.joined(", "),
            a.inference.deciding_ids(rules).join(", "),
            // What the catalog's declarations did is part of why (`explain` says how).
            match a.vote.as_deref().map(|v| v.did) {
                Some(d) if d != crate::classify::vote::Did::Nothing =>
                    format!(" and the catalog's declarations ({})", d.name()),
                _ => String::new(),
            }
        ),
        (Status::Unclassified, _) if a.inference.effects.is_empty() => format!(
            "`{}` declares no effects and no rule classifies it: {}",
            a.id,
            a.inference.reason(a.vote.as_deref(), rules)
        ),
        (Status::Unclassified, _) => format!(
            "`{}` declares no effects; only a {conf} confidence proposal: [{}]",
            a.id,
            a.inference.effects.joined(", ")
        ),
        (Status::Conflict, _) => format!(
            "`{}` declares [{}] but the heuristics infer [{}] ({conf}) by {}",
            a.id,
            a.effects_declared(),
            a.inference.effects.joined(", "),
            a.inference.deciding_ids(rules).join(", ")
        ),
        (_, Declared::Invalid(why)) => format!("`{}`: {why}", a.id),
        _ => format!("`{}`: invalid effects", a.id),
    }
}
