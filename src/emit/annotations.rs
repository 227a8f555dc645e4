//! `annotations`: the `tools/list` an MCP server built from the catalog would advertise.
//!
//! Clients and app directories ask for every hint spelled out, so all four are written on
//! every tool: a hint the effects do not set takes the specification's default, which is what
//! a client assumes for a missing one anyway. Clients drop unknown keys inside `annotations`,
//! so the effects and where they came from go under `_meta`, with keys prefixed as the
//! specification asks of custom `_meta` keys.

use std::path::PathBuf;

use serde::Serialize;

use crate::classify::{Confidence, RuleSet};
use crate::effects::Effect;
use crate::emit::sink::{End, Sink};
use crate::error::Error;
use crate::model::edit::Status;
use crate::outcome::{ActionResult, FileResult};

/// One tool, keys in the order written.
#[derive(Debug, Serialize)]
pub struct Tool {
    pub name: String,
    pub title: String,
    pub annotations: Annotations,
    #[serde(rename = "_meta")]
    pub meta: Meta,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    pub title: String,
    pub read_only_hint: bool,
    pub destructive_hint: bool,
    pub idempotent_hint: bool,
    pub open_world_hint: bool,
}

/// Where the hints came from.
#[derive(Debug, Serialize)]
pub struct Meta {
    #[serde(rename = "catalog-effects/effects")]
    pub effects: Vec<&'static str>,
    /// `declared` (the catalog's `effects`), `inferred` (a confident proposal) or `none`
    /// (no effects: every hint is the specification's default, unless `annotations:` sets it).
    #[serde(rename = "catalog-effects/source")]
    pub source: &'static str,
    /// What the rules infer, whichever the source: for a declared tool, what the
    /// declaration is checked against.
    #[serde(rename = "catalog-effects/inference")]
    pub inference: Inferred,
    #[serde(rename = "catalog-effects/file")]
    pub file: String,
    #[serde(rename = "catalog-effects/line")]
    pub line: usize,
    /// Set when the evidence contradicts the declared effects the hints come from: at high
    /// confidence, or at medium when the declaration says read-only and the evidence change.
    #[serde(
        rename = "catalog-effects/warning",
        skip_serializing_if = "Option::is_none"
    )]
    pub warning: Option<String>,
}

/// The inference behind a tool's hints, or beside its declaration.
#[derive(Debug, Serialize)]
pub struct Inferred {
    pub effects: Vec<&'static str>,
    pub confidence: Option<&'static str>,
    /// The rules that decided.
    pub rules: Vec<String>,
}

/// A title from the `actionId` when there is no label: `delete_user` -> "Delete user".
fn title_from_id(id: &str) -> String {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in id.chars() {
        if (!c.is_alphanumeric() || (prev_lower && c.is_uppercase())) && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    words.push(word);
    let mut title = words
        .into_iter()
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(first) = title.chars().next() {
        title.replace_range(..first.len_utf8(), &first.to_uppercase().to_string());
    }
    title
}

/// Strong evidence against the declaration: a high-confidence proposal that differs.
fn contradiction(a: &ActionResult, rules: &RuleSet) -> Option<String> {
    let inf = &a.inference;
    let declared = a.declared.valid()?;
    // A declaration that lets clients run a change unattended is worth a warning on medium
    // evidence; any other disagreement only on high.
    let dangerous = declared.is_read_only() && !inf.effects.is_read_only();
    let enough = match inf.confidence {
        Some(Confidence::High) => true,
        Some(Confidence::Medium) => dangerous,
        _ => false,
    };
    if a.status != Status::Conflict || !enough {
        return None;
    }
    let consequence = if dangerous {
        "clients will run it without asking"
    } else if !declared.contains(Effect::Delete) && inf.effects.contains(Effect::Delete) {
        "clients will not warn that it removes data"
    } else {
        "its hints may be wrong"
    };
    Some(format!(
        "declares [{}], but the evidence says [{}] ({} confidence: {}): {consequence}; correct the declaration, or see `catalog-effects explain`",
        declared.joined(", "),
        inf.effects.joined(", "),
        inf.confidence.map_or("", Confidence::name),
        inf.deciding_ids(rules).join(", ")
    ))
}

pub fn tool(file: &str, a: &ActionResult, rules: &RuleSet) -> Tool {
    let h = &a.hints;
    let title = h
        .title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| title_from_id(&a.id));
    let source = if a.effects.is_empty() {
        "none"
    } else if a.declared_source {
        "declared"
    } else {
        "inferred"
    };
    Tool {
        name: a.tool_name(),
        annotations: Annotations {
            title: title.clone(),
            // The specification's defaults: what a client assumes for a hint left out.
            read_only_hint: h.read_only.unwrap_or(false),
            destructive_hint: h.destructive.unwrap_or(true),
            idempotent_hint: h.idempotent.unwrap_or(false),
            open_world_hint: h.open_world.unwrap_or(true),
        },
        title,
        meta: Meta {
            effects: a.effects.iter().map(|e| e.name()).collect(),
            source,
            inference: Inferred {
                effects: a.inference.effects.iter().map(|e| e.name()).collect(),
                confidence: a.inference.confidence.map(Confidence::name),
                rules: a
                    .inference
                    .deciding_ids(rules)
                    .into_iter()
                    .map(str::to_owned)
                    .collect(),
            },
            file: file.to_owned(),
            line: a.line,
            warning: contradiction(a, rules),
        },
    }
}

/// The `annotations` export as a [`Sink`]: each file's tools are made as the run goes (the run's results
/// are not kept), then sorted by name, so the list is the same however the catalog's files
/// are laid out, and written where `path` says (`-`: stdout).
pub struct Export<'r> {
    rules: &'r RuleSet,
    path: PathBuf,
    tools: Vec<Tool>,
    /// Declared effects the evidence contradicts, each at its `actionId`.
    pub warnings: Vec<Error>,
}

impl<'r> Export<'r> {
    pub fn new(rules: &'r RuleSet, path: PathBuf) -> Export<'r> {
        Export {
            rules,
            path,
            tools: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The JSON of every tool seen, sorted by name.
    fn json(&mut self) -> String {
        self.tools.sort_by(|a, b| {
            (&a.name, &a.meta.file, a.meta.line).cmp(&(&b.name, &b.meta.file, b.meta.line))
        });
        #[derive(Serialize)]
        struct List<'a> {
            tools: &'a [Tool],
        }
        // Plain structs of strings, numbers and booleans always serialize.
        serde_json::to_string_pretty(&List { tools: &self.tools }).unwrap_or_default() + "\n"
    }
}

impl Sink for Export<'_> {
    /// Nested refresh actions are not tools.
    fn file(&mut self, f: &FileResult) -> Result<(), Error> {
        for a in f.actions.iter().filter(|a| !a.nested) {
            let t = tool(&f.shown, a, self.rules);
            if let Some(w) = &t.meta.warning {
                self.warnings.push(
                    Error::new(format!("`{}` {w}", t.name))
                        .in_file(&f.shown)
                        .at(a.line, a.column),
                );
            }
            self.tools.push(t);
        }
        Ok(())
    }

    fn finish(&mut self, end: &End) -> Result<(), Error> {
        let json = self.json();
        (end.write)(&self.path, &json)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_from_ids() {
        assert_eq!(title_from_id("delete_user"), "Delete user");
        assert_eq!(title_from_id("listUsers"), "List users");
        assert_eq!(title_from_id("get-v2-item"), "Get v2 item");
        assert_eq!(title_from_id(""), "");
    }
}
