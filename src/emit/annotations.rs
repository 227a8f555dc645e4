//! `annotations`: the `tools/list` an MCP server built from the catalog would advertise.
//!
//! Clients and app directories ask for every hint spelled out, so all four are written on
//! every tool: a hint the effects do not set takes the specification's default, which is what
//! a client assumes for a missing one anyway. Clients drop unknown keys inside `annotations`,
//! so the effects and where they came from go under `_meta`, with keys prefixed as the
//! specification asks of custom `_meta` keys.
//!
//! What is written must pass the SDKs' own models (`mcp.types.ListToolsResult`): every tool
//! has an `inputSchema` of `"type": "object"`, and a name in the specification's character
//! set and length ([`tool_name`]); two tools that would share a name stop the export, since
//! a server can list only one of them.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::classify::{Confidence, RuleSet};
use crate::effects::{DestructivePolicy, Effect, derive_hints};
use crate::emit::sink::{End, Sink};
use crate::error::Error;
use crate::model::edit::Status;
use crate::model::site::Shape;
use crate::outcome::{ActionResult, FileResult};
use crate::view::{ActionView, Input};

/// The longest tool name the specification allows.
pub const NAME_MAX: usize = 128;

/// One tool, keys in the order written.
#[derive(Debug, Serialize)]
pub struct Tool {
    pub name: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(rename = "inputSchema")]
    pub input_schema: InputSchema,
    pub annotations: Annotations,
    #[serde(rename = "_meta")]
    pub meta: Meta,
}

/// A tool's `inputSchema`: a JSON Schema object, its properties the action's inputs.
#[derive(Debug, Serialize)]
pub struct InputSchema {
    #[serde(rename = "type")]
    pub ty: &'static str,
    /// By name, sorted (a map of `serde_json` keeps its keys in order).
    pub properties: Map<String, Value>,
    /// Sorted, and only names among `properties`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<String>,
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
    /// `<key>_<actionId>` before [`tool_name`] mapped it, when that changed it: with the
    /// file's own key, how `explain` and the reports name the tool.
    #[serde(
        rename = "catalog-effects/tool",
        skip_serializing_if = "Option::is_none"
    )]
    pub tool: Option<String>,
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
    /// Set when the evidence contradicts the declared effects the hints come from (at high
    /// confidence, or at medium when the declaration says read-only and the evidence
    /// change), or when the hints written by hand contradict the effects or each other:
    /// what is wrong, and what the export says instead.
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

/// Strong evidence against the declaration: a high-confidence proposal that differs, or a
/// medium one where the declaration says read-only and the evidence a change. With whether
/// it is that dangerous case, whose export takes the safe reading.
fn contradiction(a: &ActionResult, rules: &RuleSet) -> Option<(String, bool)> {
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
        "exported as not read-only (readOnlyHint false), the safe reading, so that clients ask before they run it; correct the declaration, or see `catalog-effects explain`"
    } else if !declared.contains(Effect::Delete) && inf.effects.contains(Effect::Delete) {
        "clients will not warn that it removes data; correct the declaration, or see `catalog-effects explain`"
    } else {
        "its hints may be wrong; correct the declaration, or see `catalog-effects explain`"
    };
    Some((
        format!(
            "declares [{}], but the evidence says [{}] ({} confidence: {}): {consequence}",
            declared.joined(", "),
            inf.effects.joined(", "),
            inf.confidence.map_or("", Confidence::name),
            inf.deciding_ids(rules).join(", ")
        ),
        dangerous,
    ))
}

/// The four hints a client reads, never both read-only and destructive (a client reads
/// `readOnlyHint` alone then, and runs the tool unasked), and what is wrong with the
/// declarations they come from, if anything.
///
/// Where a read-only declaration meets effects that change, the export takes the safe
/// reading, the effects': not read-only, destructive as they derive (or as a hand-written
/// `destructiveHint` says). A wrong "not read-only" costs a client one confirmation; a wrong
/// "read-only" runs a delete unasked.
fn hints(
    a: &ActionResult,
    rules: &RuleSet,
    policy: DestructivePolicy,
) -> (Annotations, Option<String>) {
    let h = &a.hints;
    let by_hand = a.annotations.as_ref();
    let hand_destructive = by_hand.and_then(|o| o.destructive);
    // The specification's defaults: what a client assumes for a hint left out.
    let mut read_only = h.read_only.unwrap_or(false);
    let mut destructive = h.destructive.unwrap_or(true);
    let mut warnings: Vec<String> = Vec::new();
    let title = h
        .title
        .clone()
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| title_from_id(&a.id));
    if let Some((said, dangerous)) = contradiction(a, rules) {
        if dangerous && read_only {
            let inf = &a.inference;
            let derived = derive_hints(inf.effects, None, None, policy, inf.overwrites);
            read_only = false;
            destructive = hand_destructive.or(derived.destructive).unwrap_or(true);
        }
        warnings.push(said);
    }
    if read_only
        && by_hand.and_then(|o| o.read_only) == Some(true)
        && !a.effects.is_empty()
        && !a.effects.is_read_only()
    {
        // Destructive is already what the effects derive, or what the hand wrote.
        read_only = false;
        let from = if a.declared_source {
            "declared".to_owned()
        } else {
            let inf = &a.inference;
            format!(
                "inferred, {} confidence: {}",
                inf.confidence.map_or("", Confidence::name),
                inf.deciding_ids(rules).join(", ")
            )
        };
        warnings.push(format!(
            "`annotations:` sets readOnlyHint true, but its effects are [{}] ({from}): exported as not read-only (readOnlyHint false), the safe reading; remove the hint (`check` reports it as read-only-override)",
            a.effects.joined(", ")
        ));
    }
    if read_only && destructive {
        if hand_destructive == Some(true) {
            read_only = false;
            warnings.push(
                "`annotations:` sets readOnlyHint and destructiveHint both true: exported as not read-only (readOnlyHint false), the safe reading; remove one of them".to_owned(),
            );
        } else {
            // Only the specification's default: a read-only tool destroys nothing.
            destructive = false;
        }
    }
    let annotations = Annotations {
        title,
        read_only_hint: read_only,
        destructive_hint: destructive,
        idempotent_hint: h.idempotent.unwrap_or(false),
        open_world_hint: h.open_world.unwrap_or(true),
    };
    let warning = (!warnings.is_empty()).then(|| warnings.join("; also, "));
    (annotations, warning)
}

/// A tool name the specification accepts, from `<connector>_<actionId>`: each run of
/// characters outside `A-Z a-z 0-9 _ - .` becomes one `_` (dropped at either end), and a
/// name longer than [`NAME_MAX`] keeps its first 119 characters, then `_` and the 8 hex
/// digits of the 32-bit FNV-1a hash of the whole mapped name. The same name always maps to
/// the same tool name, whatever else the catalog holds.
pub fn tool_name(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut gap = false;
    for c in raw.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            out.push(c);
        } else {
            gap = true;
        }
    }
    if out.is_empty() {
        // Nothing of it is in the character set: the hash alone names it.
        return format!("tool_{:08x}", fnv1a(raw));
    }
    if out.len() <= NAME_MAX {
        return out;
    }
    // Every character is ASCII by now: any byte is a character boundary.
    format!("{}_{:08x}", &out[..NAME_MAX - 9], fnv1a(&out))
}

/// The 32-bit FNV-1a hash: stable across builds and platforms, unlike the standard
/// library's hasher, so a shortened name never changes.
fn fnv1a(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5, |h: u32, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// JSON Schema's types; any other written type (`datetime_string`, `file`) leaves the
/// property untyped, which accepts any value.
const SCHEMA_TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// One input as a JSON Schema property: its type where JSON Schema has it, its allowed
/// values where they fit that type, its description.
fn property(i: &Input) -> Value {
    let mut p = Map::new();
    let ty =
        i.ty.as_deref()
            .map(str::to_ascii_lowercase)
            .filter(|t| SCHEMA_TYPES.contains(&t.as_str()));
    if !i.enum_values.is_empty() {
        // Read as text; written as the type says, or left out where one does not fit it.
        let values: Option<Vec<Value>> = match ty.as_deref() {
            None | Some("string") => Some(
                i.enum_values
                    .iter()
                    .map(|v| Value::String(v.clone()))
                    .collect(),
            ),
            Some("number" | "integer") => i
                .enum_values
                .iter()
                .map(|v| {
                    serde_json::from_str::<serde_json::Number>(v)
                        .ok()
                        .map(Value::Number)
                })
                .collect(),
            Some("boolean") => i
                .enum_values
                .iter()
                .map(|v| v.parse::<bool>().ok().map(Value::Bool))
                .collect(),
            _ => None,
        };
        if let Some(values) = values {
            p.insert("enum".into(), Value::Array(values));
        }
    }
    if let Some(ty) = ty {
        p.insert("type".into(), Value::String(ty));
    }
    if let Some(d) = i.description.as_deref().filter(|d| !d.trim().is_empty()) {
        p.insert("description".into(), Value::String(d.trim_end().to_owned()));
    }
    Value::Object(p)
}

/// The action's inputs as an `inputSchema`: a property for each name (the first input of a
/// name wins: an OpenAPI path parameter and a body property may share one), and the
/// names it requires.
pub fn input_schema(view: Option<&ActionView>) -> InputSchema {
    let mut properties = Map::new();
    let mut required = Vec::new();
    if let Some(v) = view {
        for i in &v.inputs {
            if !properties.contains_key(&i.name) {
                properties.insert(i.name.clone(), property(i));
            }
        }
        required = v
            .required
            .iter()
            .filter(|r| properties.contains_key(r.as_str()))
            .cloned()
            .collect();
        required.sort();
        required.dedup();
    }
    InputSchema {
        ty: "object",
        properties,
        required,
    }
}

/// The tool of one action, named `<key>_<actionId>` through [`tool_name`].
pub fn tool(
    file: &str,
    key: &str,
    a: &ActionResult,
    rules: &RuleSet,
    policy: DestructivePolicy,
) -> Tool {
    let source = if a.effects.is_empty() {
        "none"
    } else if a.declared_source {
        "declared"
    } else {
        "inferred"
    };
    let raw = format!("{key}_{}", a.id);
    let name = tool_name(&raw);
    let (annotations, warning) = hints(a, rules, policy);
    let view = a.view.as_deref();
    Tool {
        name: name.clone(),
        title: annotations.title.clone(),
        description: view
            .and_then(|v| v.description.as_deref())
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_owned),
        input_schema: input_schema(view),
        annotations,
        meta: Meta {
            tool: (name != raw).then_some(raw),
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
            warning,
        },
    }
}

/// The connector key the tools of an OpenAPI document are named with, beside what the run
/// reads from the document: a connector file's tools always take its `info.key`.
#[derive(Debug, Clone, Default)]
pub struct Keys {
    /// `--key`: every document's, whatever it says.
    pub given: Option<String>,
    /// The configuration's: a document's that writes none (`info.x-effects-key`).
    pub fallback: Option<String>,
}

impl Keys {
    /// The key of the tools of `f`'s action `a`: `--key`, else the document's
    /// `info.x-effects-key`, else the configuration's, else the one made from its title.
    pub fn for_action<'a>(&'a self, f: &FileResult, a: &'a ActionResult) -> &'a str {
        if f.shape != Some(Shape::OpenApi) {
            return &a.connector;
        }
        let fallback = self.fallback.as_deref().filter(|_| !f.key_written);
        self.given.as_deref().or(fallback).unwrap_or(&a.connector)
    }
}

/// The `annotations` export as a [`Sink`]: each file's tools are made as the run goes (the run's results
/// are not kept), then sorted by name, so the list is the same however the catalog's files
/// are laid out, and written where `path` says (`-`: stdout).
pub struct Export<'r> {
    rules: &'r RuleSet,
    policy: DestructivePolicy,
    keys: Keys,
    path: PathBuf,
    tools: Vec<Tool>,
    /// Each name given so far, with the `<key>_<actionId>` it was made from.
    names: std::collections::HashMap<String, (String, usize)>,
    /// Declared effects the evidence contradicts, and hand-written hints the effects do,
    /// each at its `actionId`.
    pub warnings: Vec<Error>,
    /// Tools given a name an earlier one has, each at its `actionId`, naming both: nothing is
    /// written then, since a server can list only one tool by a name.
    pub collisions: Vec<Error>,
}

impl<'r> Export<'r> {
    pub fn new(
        rules: &'r RuleSet,
        policy: DestructivePolicy,
        keys: Keys,
        path: PathBuf,
    ) -> Export<'r> {
        Export {
            rules,
            policy,
            keys,
            path,
            tools: Vec::new(),
            names: Default::default(),
            warnings: Vec::new(),
            collisions: Vec::new(),
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
        // Plain structs of strings, numbers, booleans and JSON values always serialize.
        serde_json::to_string_pretty(&List { tools: &self.tools }).unwrap_or_default() + "\n"
    }
}

impl Sink for Export<'_> {
    /// Nested refresh actions are not tools.
    fn file(&mut self, f: &FileResult) -> Result<(), Error> {
        // A server's source is the server: the tools it lists are its own, under its own
        // names, and a client reads them from it, not from an export made beside it.
        if f.shape == Some(Shape::Server) && !f.actions.is_empty() {
            self.warnings.push(
                Error::new(
                    "not exported: an MCP server's source lists its own tools; `catalog-effects audit -- COMMAND` reads them from the running server",
                )
                .in_file(&f.shown),
            );
            return Ok(());
        }
        for a in f.actions.iter().filter(|a| !a.nested) {
            let key = self.keys.for_action(f, a);
            let t = tool(&f.shown, key, a, self.rules, self.policy);
            let raw = format!("{key}_{}", a.id);
            let at = |e: Error| e.in_file(&f.shown).at(a.line, a.column);
            if let Some(w) = &t.meta.warning {
                self.warnings
                    .push(at(Error::new(format!("`{}` {w}", t.name))));
            }
            // The run hands files over in catalog then path order, so which of two is named
            // first does not depend on the threads.
            let index = self.tools.len();
            match self.names.get(&t.name) {
                Some((first_raw, i)) => {
                    let first = &self.tools[*i];
                    self.collisions.push(at(Error::new(format!(
                        "tool name `{}` is made from `{raw}` here and from `{first_raw}` at {}:{}: a server lists one tool by a name; rename one of the actions, or name the connector otherwise (`--key`, `info.x-effects-key`)",
                        t.name, first.meta.file, first.meta.line
                    ))));
                }
                None => {
                    self.names.insert(t.name.clone(), (raw, index));
                }
            }
            self.tools.push(t);
        }
        Ok(())
    }

    fn finish(&mut self, end: &End) -> Result<(), Error> {
        if !self.collisions.is_empty() {
            return Err(Error::new(format!(
                "{} tool(s) named as another is: nothing written",
                self.collisions.len()
            )));
        }
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
