//! OpenAPI documents as a source: each operation gets `x-effects` (and, with `--hints`, the
//! derived hints where each MCP generator reads them), edited in the document's own syntax
//! and style. YAML gets lines indented like the operation's keys; JSON gets JSON, with the
//! document's indentation, spacing and line endings; every other byte stays as it was.
//!
//! Every edited text is checked before anything uses it: it must parse, hold the original's
//! data plus exactly the inserted keys, and plan no further edit. An operation whose edits
//! fail is left alone and reported; the document's other operations keep theirs.

use std::path::Path;

use serde_json::Value;

use crate::classify::{Group, Inference, infer_in};
use crate::diff;
use crate::effects::{Effects, derive_hints};
use crate::error::Error;
use crate::model::edit::{Edit, Status};
use crate::model::openapi::{EFFECTS_KEY, Inserted, NewValue, json_pointer};
use crate::model::site::{ActionSite, Insert, Shape};
use crate::parse::openapi::{self as doc, Operation};
use crate::pipeline::{Options, Plan, Planned};
use crate::text::lines::line_start;
use crate::view::Declared;
use crate::yaml::tree::{self, Kind, NodeId, Tree, opener};

pub struct OpenApi;

/// File names an OpenAPI document may have; which of them are documents is decided by
/// content.
pub fn may_be_document(name: &str) -> bool {
    !crate::walk::is_connector_file(name)
        && [".yaml", ".yml", ".json"]
            .iter()
            .any(|ext| name.ends_with(ext))
}

impl super::Source for OpenApi {
    fn name(&self) -> &'static str {
        "openapi"
    }

    fn claims(&self, name: &str, path: &Path) -> bool {
        may_be_document(name)
            && std::fs::read(path)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .is_some_and(|t| doc::is_document(&t))
    }

    fn owns_name(&self, name: &str) -> bool {
        may_be_document(name)
    }

    fn plan(
        &self,
        name: &str,
        text: String,
        opts: &Options,
        left_alone: Option<&str>,
        // A document is its own group: its operations are never split across files.
        _group: Option<&Group>,
        render: &mut dyn FnMut(&str, &[Edit]),
    ) -> Result<Plan, Error> {
        plan(text, name.ends_with(".json"), opts, left_alone, render)
    }
}

/// An operation of a document, named as a reviewer looks it up where line numbers say
/// nothing (every operation of a minified document is on line 1), and what it gains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// `GET /pets/{petId}`.
    pub operation: String,
    /// `/paths/~1pets~1{petId}/get`.
    pub pointer: String,
    /// Each key it gains, by its path below the operation, with its value
    /// (`x-effects: [read]`; a rewritten one `x-effects: [read] (was [write])`).
    pub change: Vec<String>,
}

impl Place {
    /// The place of an OpenAPI operation's result, with the change `inserted` holds for it
    /// (see [`by_operation`]); none for an action of a connector file.
    pub fn of(
        f: &crate::pipeline::FileResult,
        a: &crate::pipeline::ActionResult,
        inserted: &[&Inserted],
    ) -> Option<Place> {
        if f.shape != Some(Shape::OpenApi) {
            return None;
        }
        let method = a.methods.first()?;
        let path = a.paths.first()?;
        let lower = method.to_ascii_lowercase();
        // Under `paths`, or where a path item named by a `$ref` is written
        // (`components/pathItems/Pet/get`).
        let keys: Vec<&str> = match &a.written_at {
            Some(at) => at.iter().map(String::as_str).collect(),
            None => vec!["paths", path.as_str(), &lower],
        };
        let mut change = Vec::new();
        for i in inserted {
            // A generator map that exists gains its hints beside the keys it has (`…`).
            let below: Vec<&str> = i
                .target
                .iter()
                .skip(keys.len())
                .map(String::as_str)
                .collect();
            if !below.is_empty() {
                let value = NewValue::Map(i.entries.clone()).flow();
                change.push(format!("{}: {{…, {}", below.join("."), &value[1..]));
                continue;
            }
            for (k, v) in &i.entries {
                let mut line = format!("{k}: {}", v.flow());
                let old = a
                    .edit
                    .as_ref()
                    .map(|e| e.old.trim())
                    .filter(|o| !o.is_empty());
                if let (true, Some(old)) = (i.replaces, old) {
                    line.push_str(&format!(" (was {old})"));
                }
                change.push(line);
            }
        }
        Some(Place {
            operation: format!("{} {path}", method.to_ascii_uppercase()),
            pointer: json_pointer(&keys),
            change,
        })
    }
}

/// A file's insertions by the operation they belong to (the start of its mapping, the `map`
/// of its edits), so that each action finds its own without a search through all of them.
pub fn by_operation(
    f: &crate::pipeline::FileResult,
) -> std::collections::HashMap<usize, Vec<&Inserted>> {
    let mut out: std::collections::HashMap<usize, Vec<&Inserted>> = Default::default();
    for i in &f.inserted {
        out.entry(i.map).or_default().push(i);
    }
    out
}

/// The insertions of one action, from [`by_operation`].
pub fn inserted_of<'a>(
    by: &'a std::collections::HashMap<usize, Vec<&'a Inserted>>,
    a: &crate::pipeline::ActionResult,
) -> &'a [&'a Inserted] {
    a.edits()
        .next()
        .and_then(|e| by.get(&e.map))
        .map_or(&[], Vec::as_slice)
}

/// How the document writes itself, measured once.
#[derive(Debug, Clone, Copy)]
struct Style {
    json: bool,
    /// JSON: `": "` or `":"` between items (`, ` or `,`).
    spaced: bool,
    /// JSON: what the document writes between a key and its value (`": "`, `":"`,
    /// `" : "`, ...), as its first key does.
    colon: &'static str,
    /// JSON: arrays of scalars written one item per line.
    multiline_lists: bool,
    /// YAML in flow style whose keys are double-quoted (JSON with a comment, say): new keys
    /// and items are quoted too.
    quoted: bool,
}

impl Style {
    /// `json`: the document is JSON (see [`plan`]), else YAML, whatever its name says.
    fn of(tree: &Tree, json: bool) -> Style {
        let text = tree.text();
        let mut style = Style {
            json,
            spaced: true,
            colon: ": ",
            multiline_lists: false,
            quoted: false,
        };
        let root = tree.roots[0];
        if !json {
            style.quoted = tree.node(root).flow()
                && tree
                    .own_entries(root)
                    .and_then(|mut e| e.next())
                    .is_some_and(|(k, _)| {
                        tree.node(k).style() == saphyr_parser::ScalarStyle::DoubleQuoted
                    });
            return style;
        }
        if let Some((k, v)) = tree.own_entries(root).and_then(|mut e| e.next()) {
            let between = &text[tree.node(k).end()..tree.node(v).start()];
            style.spaced = between.contains(' ') || between.contains('\n');
            // A key's span may end past the blanks after it: from its closing quote.
            let key = &text[tree.node(k).start()..tree.node(v).start()];
            let between = closing_quote(key).map_or(between, |end| &key[end + 1..]);
            // Kept as written, where it is on one line: `"a" : 1` took `"b": 2` beside it
            // (issue 33).
            style.colon = COLONS
                .into_iter()
                .find(|c| *c == between)
                .unwrap_or(if style.spaced { ": " } else { ":" });
        }
        // The first array of scalars says how the document writes arrays.
        for id in 0..tree.len() {
            let n = tree.node(id);
            if n.kind() != Kind::Seq {
                continue;
            }
            let Some(mut items) = tree.items(id) else {
                continue;
            };
            let Some(first) = items.next() else { continue };
            if tree.node(first).kind() != Kind::Scalar {
                continue;
            }
            let open = opener(text, n.start()).map_or(n.start(), |(at, _)| at);
            style.multiline_lists = text[open..tree.node(first).start()].contains('\n');
            break;
        }
        style
    }
}

/// `s` as a JSON string, as serde_json writes it: quoted as it is when nothing in it needs
/// an escape (the keys and effects written here), which saves a value and a string each.
fn push_json_str(out: &mut String, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        out.push_str(&Value::from(s).to_string());
    }
}

/// A key as YAML writes it: plain when that reads back as the same string.
fn push_yaml_key(out: &mut String, s: &str) {
    // By bytes: every character allowed is ASCII, and any byte of another is not.
    let plain = s.as_bytes().first().is_some_and(u8::is_ascii_alphabetic)
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if plain {
        out.push_str(s);
    } else {
        push_json_str(out, s);
    }
}

/// Where the JSON string that `s` starts with closes, if `s` starts with one.
fn closing_quote(s: &str) -> Option<usize> {
    if !s.starts_with('"') {
        return None;
    }
    let mut escaped = false;
    for (i, b) in s.bytes().enumerate().skip(1) {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' => return Some(i),
            _ => {}
        }
    }
    None
}

/// The ways a JSON document writes what goes between a key and its value that the edits
/// copy; anything else (a line break) is written `": "` or `":"`.
const COLONS: [&str; 8] = [": ", ":", " : ", " :", ":\t", " :\t", "\t: ", "\t:\t"];

/// `(colon, separator)` between a key and its value and between items, inline.
fn punctuation(style: Style) -> (&'static str, &'static str) {
    match (style.json, style.spaced) {
        (false, _) => (": ", ", "),
        (true, true) => (style.colon, ", "),
        (true, false) => (style.colon, ","),
    }
}

fn inline(style: Style, value: &NewValue) -> String {
    let mut out = String::new();
    push_inline(&mut out, style, value);
    out
}

fn push_inline(out: &mut String, style: Style, value: &NewValue) {
    let (colon, sep) = punctuation(style);
    match value {
        NewValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        NewValue::List(items) => {
            out.push('[');
            for (n, i) in items.iter().enumerate() {
                if n > 0 {
                    out.push_str(sep);
                }
                if style.json || style.quoted {
                    push_json_str(out, i);
                } else {
                    out.push_str(i);
                }
            }
            out.push(']');
        }
        NewValue::Map(entries) => {
            out.push('{');
            for (n, (k, v)) in entries.iter().enumerate() {
                if n > 0 {
                    out.push_str(sep);
                }
                push_key(out, style, k);
                out.push_str(colon);
                push_inline(out, style, v);
            }
            out.push('}');
        }
    }
}

fn push_key(out: &mut String, style: Style, k: &str) {
    if style.json || style.quoted {
        push_json_str(out, k);
    } else {
        push_yaml_key(out, k);
    }
}

/// One entry written over lines at `indent`, nested values `unit` further in; no final
/// terminator. Written into one buffer: a string per piece was most of planning an edit.
fn push_pretty(
    out: &mut String,
    style: Style,
    k: &str,
    v: &NewValue,
    indent: &str,
    unit: &str,
    eol: &str,
) {
    let (colon, _) = punctuation(style);
    let inner = || {
        let mut s = String::with_capacity(indent.len() + unit.len());
        s.push_str(indent);
        s.push_str(unit);
        s
    };
    out.push_str(indent);
    push_key(out, style, k);
    match v {
        NewValue::Map(entries) if style.json => {
            out.push_str(colon);
            out.push('{');
            out.push_str(eol);
            let inner = inner();
            for (n, (ck, cv)) in entries.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                    out.push_str(eol);
                }
                push_pretty(out, style, ck, cv, &inner, unit, eol);
            }
            out.push_str(eol);
            out.push_str(indent);
            out.push('}');
        }
        NewValue::Map(entries) => {
            out.push(':');
            out.push_str(eol);
            let inner = inner();
            for (n, (ck, cv)) in entries.iter().enumerate() {
                if n > 0 {
                    out.push_str(eol);
                }
                push_pretty(out, style, ck, cv, &inner, unit, eol);
            }
        }
        NewValue::List(items) if style.json && style.multiline_lists => {
            out.push_str(colon);
            out.push('[');
            out.push_str(eol);
            for (n, i) in items.iter().enumerate() {
                if n > 0 {
                    out.push(',');
                    out.push_str(eol);
                }
                out.push_str(indent);
                out.push_str(unit);
                push_json_str(out, i);
            }
            out.push_str(eol);
            out.push_str(indent);
            out.push(']');
        }
        _ => {
            out.push_str(colon);
            push_inline(out, style, v);
        }
    }
}

/// The insertion that adds `entries` to the mapping `map` (the value of `parent_key`), or
/// why none can be made without rewriting what is written. New keys go first in the
/// mapping: before its first key, on lines of their own when it writes its keys on lines
/// of their own, else inline.
fn insertion(
    tree: &Tree,
    style: Style,
    map: NodeId,
    parent_key: NodeId,
    entries: &[(String, NewValue)],
) -> Result<(usize, String), &'static str> {
    let text = tree.text();
    let bytes = text.as_bytes();
    let m = tree.node(map);
    if m.anchored() || m.tagged() {
        return Err("the mapping carries an anchor or a tag, which other places may share");
    }
    let first = tree.own_entries(map).and_then(|mut e| e.next());
    // Asked only where keys sit on lines of their own: on a one-line document the line
    // start is the start of the file, and looking for it once per operation made a
    // minified 20 MB document quadratic.
    let parent_indent = || {
        let parent_start = tree.node(parent_key).start();
        text[line_start(bytes, parent_start)..parent_start]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect::<String>()
    };
    let sep = if !style.json || style.spaced {
        ", "
    } else {
        ","
    };
    if m.flow() {
        let Some((open, b'{')) = opener(text, m.start()) else {
            return Err("the mapping's `{` was not found where the parser put it");
        };
        let Some((k0, _)) = first else {
            let parts: Vec<String> = entries
                .iter()
                .map(|(k, v)| inline_entry(style, k, v))
                .collect();
            return Ok((open + 1, parts.join(sep)));
        };
        let k0_start = tree.node(k0).start();
        let gap = &text[open + 1..k0_start];
        let ls = if gap.contains('\n') {
            line_start(bytes, k0_start)
        } else {
            k0_start
        };
        let own_line =
            gap.contains('\n') && text[ls..k0_start].bytes().all(|b| b == b' ' || b == b'\t');
        if own_line {
            let indent = &text[ls..k0_start];
            let parent_indent = parent_indent();
            let unit = indent
                .strip_prefix(parent_indent.as_str())
                .filter(|u| !u.is_empty())
                .unwrap_or("  ");
            let eol = crate::text::lines::eol_before(text, ls);
            let mut out = String::with_capacity(256);
            for (k, v) in entries {
                if style.json {
                    push_pretty(&mut out, style, k, v, indent, unit, eol);
                } else {
                    // Inside a YAML flow mapping a nested mapping must be flow too.
                    out.push_str(indent);
                    out.push_str(&inline_entry(style, k, v));
                }
                out.push(',');
                out.push_str(eol);
            }
            return Ok((ls, out));
        }
        let mut out = String::new();
        for (k, v) in entries {
            out.push_str(&inline_entry(style, k, v));
            out.push_str(sep);
        }
        return Ok((k0_start, out));
    }
    let Some((k0, _)) = first else {
        return Err("the mapping is empty and written in block style");
    };
    let k0_start = tree.node(k0).start();
    let ls = line_start(bytes, k0_start);
    if !text[ls..k0_start].bytes().all(|b| b == b' ') {
        return Err("its first key shares its line with something else (`- key:` or `? key`)");
    }
    let indent = &text[ls..k0_start];
    let unit_cols = indent.len().saturating_sub(parent_indent().len());
    let unit = " ".repeat(if unit_cols == 0 { 2 } else { unit_cols });
    let eol = crate::text::lines::eol_before(text, ls);
    // Sized for what an operation usually gets (`x-effects` and a generator's hints), so
    // the buffer is not grown piece by piece.
    let mut out = String::with_capacity(256);
    for (k, v) in entries {
        push_pretty(&mut out, style, k, v, indent, &unit, eol);
        out.push_str(eol);
    }
    Ok((ls, out))
}

fn inline_entry(style: Style, k: &str, v: &NewValue) -> String {
    let (colon, _) = punctuation(style);
    let mut out = String::new();
    push_key(&mut out, style, k);
    out.push_str(colon);
    push_inline(&mut out, style, v);
    out
}

/// The hints an operation's effects derive, as a generator's map holds them: the three the
/// published rule sets (idempotentHint only from an override, never written here).
/// Keys as written here, owned only for what is inserted: a second plan inserts nothing.
fn hint_entries(hints: &crate::effects::Hints) -> [(&'static str, Option<bool>); 3] {
    [
        ("readOnlyHint", hints.read_only),
        ("destructiveHint", hints.destructive),
        ("openWorldHint", hints.open_world),
    ]
}

/// An operation planned: the shared [`Planned`] (decision, status, the `x-effects` edit in
/// `edit`, other insertions in `more`) and what each edit inserts where.
struct OpPlan {
    planned: Planned,
    inserted: Vec<Inserted>,
    /// The operation's mapping in the tree it was planned on.
    map: NodeId,
    /// How many keys lead from the root to that mapping (the start of each inserted
    /// target's keys below it).
    depth: usize,
}

/// Classifies and plans every operation of a parsed document. (The check plans an edited
/// text again operation by operation, given the decisions: see [`check`].)
fn plan_ops(
    tree: &Tree,
    json: bool,
    operations: Vec<Operation>,
    opts: &Options,
    notes: &mut Vec<Error>,
) -> (Vec<OpPlan>, Group) {
    let style = Style::of(tree, json);
    let group = Group::of_calls(
        operations.iter().map(|o| {
            (
                o.view.id.as_str(),
                o.view.steps.last().and_then(|s| s.method.as_deref()),
            )
        }),
        &opts.rules.lexicon,
    );
    let mut out = Vec::with_capacity(operations.len());
    for op in operations {
        let inference = infer_in(&op.view, &group, &opts.rules);
        let inference = match &opts.votes {
            Some(votes) => votes.apply(&op.view, inference),
            None => inference,
        };
        out.push(plan_op(tree, style, op, inference, opts, true, notes));
    }
    (out, group)
}

fn op_target(op: &Operation) -> Vec<String> {
    op.location.clone()
}

/// Plans one operation given its decision. `first` is false for the check's second plan of
/// an edited text, which is compared by its edits, id and declaration only: no column is
/// counted and the hints are not judged.
fn plan_op(
    tree: &Tree,
    style: Style,
    mut op: Operation,
    inference: Inference,
    opts: &Options,
    first: bool,
    notes: &mut Vec<Error>,
) -> OpPlan {
    let op = &mut op;
    let op_map = op.map;
    let op_depth = op.location.len();
    let text = tree.text();
    let mut view = std::mem::take(&mut op.view);
    // Decided: the text only rules read goes, unless a caller keeps the view (a large
    // document's parameter and property descriptions are most of its plan).
    if !opts.keep_views {
        view.description = None;
        view.details = None;
        view.inputs = Vec::new();
    }
    // A second plan's sites and notes are compared by what they plan, never shown: on a
    // one-line document each column is a search back through the line.
    let column = if first {
        tree.column(tree.node(op.key).start()) + 1
    } else {
        0
    };
    let map_start = tree.node(op.map).start();
    let status = diff::status(&view.declared, false, &inference, opts.min_confidence);
    let refuse = |why: &str| {
        Error::new(format!(
            "`{}` not edited: {why}; declare its effects by hand",
            view.id
        ))
        .at(view.line, column)
    };
    // What the operation declares once the patch is applied, and the entries that get it
    // there.
    let mut op_entries: Vec<(String, NewValue)> = Vec::new();
    let mut rewrite: Option<Edit> = None;
    let mut status = status;
    let mut after: Option<Effects> = view.declared.valid();
    let effects_value =
        |e: Effects| NewValue::List(e.iter().map(|x| x.name().to_owned()).collect());
    match status {
        Status::Added => {
            op_entries.push((EFFECTS_KEY.to_owned(), effects_value(inference.effects)));
            after = Some(inference.effects);
        }
        Status::Conflict if opts.fix_conflicts => match op.effects {
            Some(v) if tree.node(v).flow() && !tree.node(v).anchored() => {
                let n = tree.node(v);
                let start = opener(text, n.start()).map_or(n.start(), |(at, _)| at);
                rewrite = Some(Edit {
                    start,
                    end: n.end(),
                    text: inline(style, &effects_value(inference.effects)),
                    effects: inference.effects,
                    map: map_start,
                    old: text[start..n.end()].to_owned(),
                    removes: 0,
                });
                after = Some(inference.effects);
            }
            _ => notes.push(
                Error::new(format!(
                    "`{}` not rewritten: its {EFFECTS_KEY} is not a flow list (`[..]`) written here; rewrite it by hand",
                    view.id
                ))
                .at(view.line, column),
            ),
        },
        _ => {}
    }
    let mut inserted: Vec<Inserted> = Vec::new();
    let mut more: Vec<Edit> = Vec::new();
    let mut failed: Option<&'static str> = None;
    if let Some(effects) = after.filter(|_| !opts.hint_formats.is_empty()) {
        let hints = derive_hints(
            effects,
            view.label.as_deref(),
            view.annotations.as_ref(),
            opts.policy,
            inference.overwrites,
        );
        let wanted = hint_entries(&hints);
        for format in &opts.hint_formats {
            // The deepest mapping of the format's path that exists, and the keys below it.
            let mut at = op.map;
            let mut parent_key = op.key;
            let mut depth = 0;
            for k in format.path() {
                match tree.entry(at, k) {
                    Some((kn, v)) if tree.is_map(v) => {
                        // A map that comes through a `<<` merge or an alias is shared: hints
                        // written into it would be every sharer's. The operation still gets
                        // its `x-effects`.
                        let merged = !tree
                            .own_entries(at)
                            .is_some_and(|mut e| e.any(|(o, _)| o == kn));
                        let aliased = tree.node(v).kind() == Kind::Alias;
                        if merged || aliased {
                            let how = if merged {
                                "comes through a `<<` merge"
                            } else {
                                "is an alias (`*name`)"
                            };
                            // Named where the operation writes it: a merged key is
                            // written in the mapping merged.
                            let (line, col) = if merged {
                                (view.line, column)
                            } else {
                                (tree.line(kn), tree.column(tree.node(kn).start()) + 1)
                            };
                            notes.push(
                                Error::new(format!(
                                    "`{}`: `{k}` {how} of a mapping other places may share: {} hints not written; write them into this operation by hand",
                                    view.id,
                                    format.name()
                                ))
                                .at(line, col),
                            );
                            depth = usize::MAX;
                            break;
                        }
                        at = v;
                        parent_key = kn;
                        depth += 1;
                    }
                    Some((kn, _)) => {
                        notes.push(
                            Error::new(format!(
                                "`{}`: `{k}` is not a mapping: {} hints not written",
                                view.id,
                                format.name()
                            ))
                            .at(tree.line(kn), tree.column(tree.node(kn).start()) + 1),
                        );
                        depth = usize::MAX;
                        break;
                    }
                    None => break,
                }
            }
            if depth == usize::MAX {
                continue;
            }
            // A hint written there that is not a boolean is an error of the read (its line
            // and column); hints written beside it would read as settled when one is not.
            if depth == format.path().len()
                && tree
                    .fields(at, crate::model::openapi::HINT_KEYS)
                    .into_iter()
                    .flatten()
                    .any(|v| doc::boolean(tree, v).is_none())
            {
                continue;
            }
            let missing: Vec<(String, NewValue)> = wanted
                .iter()
                .filter_map(|&(k, v)| Some((k, v?)))
                .filter(|(k, _)| depth < format.path().len() || tree.get(at, k).is_none())
                .map(|(k, v)| (k.to_owned(), NewValue::Bool(v)))
                .collect();
            if missing.is_empty() {
                continue;
            }
            // Wrap the hints in the keys of the path that do not exist yet.
            let mut value = NewValue::Map(missing);
            for k in format.path()[depth..].iter().skip(1).rev() {
                value = NewValue::Map(vec![((*k).to_owned(), value)]);
            }
            let entries: Vec<(String, NewValue)> = if depth < format.path().len() {
                vec![(format.path()[depth].to_owned(), value)]
            } else {
                match value {
                    NewValue::Map(e) => e,
                    _ => Vec::new(),
                }
            };
            if at == op.map {
                op_entries.extend(entries);
                continue;
            }
            match insertion(tree, style, at, parent_key, &entries) {
                Ok((pos, new)) => {
                    let mut target = op_target(op);
                    target.extend(format.path()[..depth].iter().map(|s| (*s).to_owned()));
                    more.push(Edit {
                        start: pos,
                        end: pos,
                        text: new,
                        effects,
                        map: map_start,
                        old: String::new(),
                        removes: 0,
                    });
                    inserted.push(Inserted {
                        map: map_start,
                        target,
                        operation: op_depth,
                        entries,
                        replaces: false,
                    });
                }
                Err(why) => notes.push(
                    Error::new(format!(
                        "`{}`: {} hints not written: `{}`: {why}; write them by hand",
                        view.id,
                        format.name(),
                        format.path()[depth - 1],
                    ))
                    .at(
                        tree.line(parent_key),
                        tree.column(tree.node(parent_key).start()) + 1,
                    ),
                ),
            }
        }
    }
    let mut edit = rewrite;
    if let Some(r) = &edit {
        inserted.push(Inserted {
            map: map_start,
            target: op_target(op),
            operation: op_depth,
            entries: vec![(EFFECTS_KEY.to_owned(), effects_value(r.effects))],
            replaces: true,
        });
    }
    if failed.is_none() && !op_entries.is_empty() {
        match insertion(tree, style, op.map, op.key, &op_entries) {
            Ok((pos, new)) => {
                let e = Edit {
                    start: pos,
                    end: pos,
                    text: new,
                    effects: after.unwrap_or(Effects::EMPTY),
                    map: map_start,
                    old: String::new(),
                    removes: 0,
                };
                if status == Status::Added {
                    edit = Some(e);
                } else {
                    more.push(e);
                }
                inserted.insert(
                    0,
                    Inserted {
                        map: map_start,
                        target: op_target(op),
                        operation: op_depth,
                        entries: op_entries,
                        replaces: false,
                    },
                );
            }
            Err(why) => failed = Some(why),
        }
    }
    if let Some(why) = failed {
        notes.push(refuse(why));
        edit = None;
        more.clear();
        inserted.clear();
        if status == Status::Added {
            status = Status::Unclassified;
        }
    }
    more.sort_by_key(Edit::order);
    let site = ActionSite {
        view,
        column,
        map_start,
        nested: false,
        insert: Insert::Unsafe("an OpenAPI operation is planned by its own source"),
        effects: None,
        seq_offset: None,
        annotations: None,
    };
    let mut planned = Planned {
        site,
        inference,
        status,
        edit,
        hints: None,
        more,
    };
    // A second plan is compared by its edits, id and declaration, which judging the hints
    // leaves as they are (it sets `hints` and notes only: an operation has no
    // `annotations:` site to remove from): judged in the first plan only.
    if first {
        planned.judge_hints(text, opts, notes);
    }
    if let Some(h) = &mut planned.hints {
        // Hints in a generator's extension are what the generator reads, not a restatement
        // to clean up: one equal to what the effects derive is what `--hints` writes. They
        // are never removed; only one that differs (an override) is kept for the findings.
        h.migrate = false;
        h.notes
            .retain(|n| n.verdict != crate::model::hints::Verdict::Redundant);
        if h.notes.is_empty() {
            planned.hints = None;
        }
    }
    OpPlan {
        planned,
        inserted,
        map: op_map,
        depth: op_depth,
    }
}

/// A JSON document must be JSON, not only YAML: a trailing comma or a comment that the
/// YAML parser accepts would break every JSON consumer, and an edit must not hide it.
fn strict_json(text: &str) -> Result<(), Error> {
    serde_json::from_str::<serde::de::IgnoredAny>(text.trim_start_matches('\u{feff}'))
        .map(|_| ())
        .map_err(|e| {
            let message = e.to_string();
            let message = message
                .rsplit_once(" at line ")
                .map_or(message.as_str(), |(m, _)| m)
                .to_owned();
            Error::new(format!("not valid JSON: {message}")).at(e.line(), e.column())
        })
}

/// Where a JSONC comment (`//` or `/* */`) is: JSON has no comments, and YAML does not read
/// `//` as one, so the error names it. Outside strings, and only where a comment can stand:
/// after a blank, an opener or a comma (`http://` is not one); with `keys_only`, where a key
/// would start (first on its line, or after an opener or a comma), for a text YAML reads,
/// where `{a: //b}` is a value but `{"a": 1, // b` a key no one meant.
fn jsonc_comment(text: &str, keys_only: bool) -> Option<Error> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            // A single-quoted YAML scalar starts where a value can (`'a, // b'` is one).
            b'\''
                if b[..i]
                    .iter()
                    .rposition(|c| !matches!(c, b' ' | b'\t'))
                    .is_none_or(|j| matches!(b[j], b'\n' | b'\r' | b'{' | b'[' | b',' | b':')) =>
            {
                i += 1;
                while i < b.len() && (b[i] != b'\'' || b.get(i + 1) == Some(&b'\'')) {
                    i += if b[i] == b'\'' { 2 } else { 1 };
                }
            }
            b'#' => return None,
            b'/' if matches!(b.get(i + 1), Some(b'/' | b'*'))
                && (i == 0
                    || matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'\r' | b'{' | b'[' | b','))
                && (!keys_only || {
                    let before = b[..i].iter().rposition(|c| !matches!(c, b' ' | b'\t'));
                    before.is_none_or(|j| matches!(b[j], b'\n' | b'\r' | b'{' | b'[' | b','))
                }) =>
            {
                let lines = crate::yaml::tree::Lines::new(text);
                let which = if b[i + 1] == b'/' { "//" } else { "/*" };
                return Some(
                    Error::new(format!(
                        "a `{which}` comment: JSON has no comments and YAML does not read `{which}` as one (this is JSONC, which OpenAPI validators and generators do not read); remove the comments, or write the document as YAML, where a comment starts with `#`"
                    ))
                    .at(lines.line(i), lines.column(i) + 1),
                );
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// How deep the data check follows a document: far deeper than any real API description.
const MAX_DEPTH: usize = 1000;

/// The data of a node, as a loader would read it: plain `true`/`false` as booleans, every
/// other scalar as its string (the same on both sides of a comparison).
fn data(tree: &Tree, node: NodeId, budget: &mut usize, depth: usize) -> Result<Value, String> {
    if *budget == 0 {
        return Err("the document expands to too many nodes (aliases?)".into());
    }
    // Recursion, bounded: a hostile document nested deeper would exhaust the stack.
    if depth > MAX_DEPTH {
        return Err(format!("the document nests deeper than {MAX_DEPTH} levels"));
    }
    *budget -= 1;
    let node = tree.resolve(node);
    let n = tree.node(node);
    Ok(match n.kind() {
        Kind::Scalar => match tree.scalar_text(node) {
            Some(("true", saphyr_parser::ScalarStyle::Plain)) => Value::Bool(true),
            Some(("false", saphyr_parser::ScalarStyle::Plain)) => Value::Bool(false),
            Some((v, _)) => Value::String(v.to_owned()),
            None => Value::Null,
        },
        Kind::Seq => Value::Array(
            tree.items(node)
                .into_iter()
                .flatten()
                .map(|i| data(tree, i, budget, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Kind::Map => {
            let mut m = serde_json::Map::new();
            for (k, v) in tree.entries(node).into_iter().flatten() {
                let key = tree.scalar(k).unwrap_or_default().to_owned();
                m.insert(key, data(tree, v, budget, depth + 1)?);
            }
            Value::Object(m)
        }
        Kind::Alias => Value::Null,
    })
}

fn root_data(tree: &Tree) -> Result<Value, String> {
    let mut budget = tree.len().saturating_mul(4).max(1024);
    data(tree, tree.roots[0], &mut budget, 0)
}

/// The limits [`data`] reads a document within, checked without building its value: the
/// same nodes in the same order, so a document too large or too deep fails with the same
/// message.
fn within_limits(
    tree: &Tree,
    node: NodeId,
    budget: &mut usize,
    depth: usize,
) -> Result<(), String> {
    if *budget == 0 {
        return Err("the document expands to too many nodes (aliases?)".into());
    }
    if depth > MAX_DEPTH {
        return Err(format!("the document nests deeper than {MAX_DEPTH} levels"));
    }
    *budget -= 1;
    let node = tree.resolve(node);
    match tree.node(node).kind() {
        Kind::Seq => {
            for i in tree.items(node).into_iter().flatten() {
                within_limits(tree, i, budget, depth + 1)?;
            }
        }
        Kind::Map => {
            for (_, v) in tree.entries(node).into_iter().flatten() {
                within_limits(tree, v, budget, depth + 1)?;
            }
        }
        Kind::Scalar | Kind::Alias => {}
    }
    Ok(())
}

/// What the check compares an edited text with: the original's tree, walked beside the
/// edited one, and its data serialized (keys sorted, so the text is canonical) only when
/// that walk finds a difference and the exact reason is wanted. Building and serializing
/// both documents' values took half of a large document's backfill.
struct Original<'a, 't> {
    json: std::cell::OnceCell<String>,
    tree: &'a Tree<'t>,
    /// Read by the JSON reader, whose scalars' data is a function of their text and style.
    read_as_json: bool,
    /// The document is JSON, and its edited text must be too.
    is_json: bool,
}

impl<'a, 't> Original<'a, 't> {
    fn of(tree: &'a Tree<'t>, read_as_json: bool, json: bool) -> Result<Original<'a, 't>, String> {
        // Without an alias every node is read once, within the budget (four times the
        // nodes), and no node is deeper than the tree: its depth decides, counted in one
        // pass. Else (or too deep) the walk finds what fails, with its message.
        // What the JSON reader reads nests at most `JSON_DEPTH` (100) levels, 128 read whole
        // (`parse_json_whole`), far below the limit: no count.
        if tree.has_anchors() || (!read_as_json && tree.depth(MAX_DEPTH) > MAX_DEPTH) {
            let mut budget = tree.len().saturating_mul(4).max(1024);
            within_limits(tree, tree.roots[0], &mut budget, 0)?;
        }
        Ok(Original {
            json: std::cell::OnceCell::new(),
            tree,
            read_as_json,
            is_json: json,
        })
    }

    fn json(&self) -> Result<&str, String> {
        if self.json.get().is_none() {
            let json = root_data(self.tree)?.to_string();
            let _ = self.json.set(json);
        }
        Ok(self.json.get().map_or("", String::as_str))
    }

    /// The original's value at `target`, `key`, if it has one.
    fn value(&self, target: &[String], key: &str) -> Result<Option<Value>, String> {
        let tree = self.tree;
        let mut at = Some(tree.roots[0]);
        for k in target.iter().map(String::as_str).chain([key]) {
            at = at.and_then(|a| tree.get(a, k));
        }
        let mut budget = tree.len().max(1024);
        at.map(|n| data(tree, n, &mut budget, 0)).transpose()
    }
}

/// The nodes a value written here parses into.
fn nodes_of(value: &NewValue) -> usize {
    match value {
        NewValue::Bool(_) => 1,
        NewValue::List(items) => 1 + items.len(),
        NewValue::Map(entries) => 1 + entries.iter().map(|(_, v)| 1 + nodes_of(v)).sum::<usize>(),
    }
}

/// A scalar as [`data`] reads it.
#[derive(PartialEq)]
enum Datum<'s> {
    Bool(bool),
    Str(&'s str),
    Null,
}

fn datum<'s>(tree: &'s Tree, node: NodeId) -> Datum<'s> {
    match tree.scalar_text(node) {
        Some(("true", saphyr_parser::ScalarStyle::Plain)) => Datum::Bool(true),
        Some(("false", saphyr_parser::ScalarStyle::Plain)) => Datum::Bool(false),
        Some((v, _)) => Datum::Str(v),
        None => Datum::Null,
    }
}

/// Whether `node` holds `value` as written, entries in order: implies that [`data`] of it
/// equals `value.to_json()` (which compares mappings in any order), without building
/// either.
fn holds(tree: &Tree, node: NodeId, value: &NewValue) -> bool {
    let node = tree.resolve(node);
    match value {
        NewValue::Bool(b) => {
            tree.node(node).kind() == Kind::Scalar && datum(tree, node) == Datum::Bool(*b)
        }
        NewValue::List(items) => tree.items(node).is_some_and(|mut got| {
            items.iter().all(|i| {
                got.next().is_some_and(|g| {
                    let g = tree.resolve(g);
                    tree.node(g).kind() == Kind::Scalar && datum(tree, g) == Datum::Str(i)
                })
            }) && got.next().is_none()
        }),
        NewValue::Map(entries) => tree.entries(node).is_some_and(|mut got| {
            entries.iter().all(|(k, v)| {
                got.next().is_some_and(|(gk, gv)| {
                    tree.scalar(gk) == Some(k.as_str()) && holds(tree, gv, v)
                })
            }) && got.next().is_none()
        }),
    }
}

/// The original and the edited tree walked side by side: true when the edited one holds
/// the original's data, in the original's order, plus exactly the inserted entries (each
/// holding what was inserted; a replaced entry's old value is not compared, as [`without`]
/// puts it back). True implies what [`without`] and the serialized comparison conclude;
/// false is decided again by them, which name the difference.
struct Beside<'s> {
    old: &'s Tree<'s>,
    new: &'s Tree<'s>,
    verified: usize,
    budget: usize,
}

/// The inserted entries by the path of keys to their mapping, one level of keys a node:
/// the walk follows it along the keys it holds and asks nothing of any other mapping.
#[derive(Default)]
struct Targets<'s> {
    /// (key, value, replaces) inserted into this mapping.
    here: Vec<(&'s str, &'s NewValue, bool)>,
    under: std::collections::HashMap<&'s str, Targets<'s>>,
}

impl<'s> Beside<'s> {
    fn same(old: &'s Tree<'s>, new: &'s Tree<'s>, inserted: &[&'s Inserted]) -> bool {
        let mut b = Beside {
            old,
            new,
            verified: 0,
            budget: new.len().saturating_mul(4).max(1024),
        };
        let mut targets = Targets::default();
        let mut expected = 0;
        for ins in inserted {
            let mut at = &mut targets;
            for k in &ins.target {
                at = at.under.entry(k.as_str()).or_default();
            }
            for (k, v) in &ins.entries {
                at.here.push((k.as_str(), v, ins.replaces));
                expected += 1;
            }
        }
        b.node(old.roots[0], new.roots[0], Some(&targets), 0) && b.verified == expected
    }

    fn node(&mut self, o: NodeId, n: NodeId, at: Option<&Targets<'s>>, depth: usize) -> bool {
        if self.budget == 0 || depth > MAX_DEPTH {
            return false;
        }
        self.budget -= 1;
        let (old, new) = (self.old, self.new);
        let (o, n) = (old.resolve(o), new.resolve(n));
        match (old.node(o).kind(), new.node(n).kind()) {
            (Kind::Scalar, Kind::Scalar) => datum(old, o) == datum(new, n),
            (Kind::Alias, Kind::Alias) => true,
            (Kind::Seq, Kind::Seq) => {
                // Both are sequences here, so both have items: taken without wrapping
                // each step in an `Option`'s flatten.
                let (Some(mut a), Some(mut b)) = (old.items(o), new.items(n)) else {
                    return false;
                };
                loop {
                    match (a.next(), b.next()) {
                        (None, None) => return true,
                        (Some(x), Some(y)) if self.node(x, y, None, depth + 1) => {}
                        _ => return false,
                    }
                }
            }
            (Kind::Map, Kind::Map) => self.map(o, n, at, depth),
            _ => false,
        }
    }

    fn map(&mut self, o: NodeId, n: NodeId, at: Option<&Targets<'s>>, depth: usize) -> bool {
        let (old, new) = (self.old, self.new);
        let here: &[(&str, &NewValue, bool)] = at.map_or(&[], |t| &t.here);
        let under = at.map(|t| &t.under).filter(|u| !u.is_empty());
        // A replaced value is put back from the original by [`without`], found as `get`
        // finds it (through a merge key too): trusted here only when it is the mapping's
        // own entry, else the values decide.
        let replaced = here.iter().filter(|&&(_, _, r)| r).count();
        if replaced > 0 {
            let own = old
                .entries(o)
                .into_iter()
                .flatten()
                .filter(|&(k, _)| {
                    let key = old.scalar(k).unwrap_or_default();
                    here.iter().any(|&(x, _, r)| r && x == key)
                })
                .count();
            if own != replaced {
                return false;
            }
        }
        // Both are mappings here (see `items` above).
        let (Some(old_entries), Some(new_entries)) = (old.entries(o), new.entries(n)) else {
            return false;
        };
        let mut olds = old_entries.filter(|&(k, _)| {
            here.is_empty() || {
                let key = old.scalar(k).unwrap_or_default();
                !here.iter().any(|&(x, _, replaces)| replaces && x == key)
            }
        });
        for (k, v) in new_entries {
            let key = new.scalar(k).unwrap_or_default();
            if let Some(&(_, value, _)) = here.iter().find(|&&(x, _, _)| x == key) {
                if !holds(new, v, value) {
                    return false;
                }
                self.verified += 1;
                continue;
            }
            let Some((ok, ov)) = olds.next() else {
                return false;
            };
            if old.scalar(ok).unwrap_or_default() != key {
                return false;
            }
            let next = under.and_then(|u| u.get(key));
            if !self.node(ov, v, next, depth + 1) {
                return false;
            }
        }
        olds.next().is_none()
    }
}

/// The entry `key` of the mapping `map` itself (no merge, no alias), as the walk beside the
/// original follows a path.
fn own_get(tree: &Tree, map: NodeId, key: &str) -> Option<NodeId> {
    tree.own_entries(map)?
        .find(|&(k, _)| tree.scalar_text(k).is_some_and(|(v, _)| v == key))
        .map(|(_, v)| v)
}

/// [`Beside`] as one pass over both trees' nodes, where nothing can make the two differ
/// but what it compares: no anchor in either tree (so no alias, and no merge from one), no
/// `<<` anywhere in the original (so no inline merge either: `get` finds what the
/// mappings' own entries hold), no rewritten value, and nothing nested near the depth
/// limit. `None` where that does not hold, and [`Beside`] decides.
///
/// The nodes come in document order, each collection before what it holds. Outside the
/// inserted entries each edited node is paired with the original's next one: same kind,
/// every scalar with the same data, every collection closing after the same pairs. An
/// entry of an edited mapping is an inserted one when that mapping is the original's
/// mapping an edit targets (found from the operation's own mapping, along the target's
/// own keys, as [`Beside`] follows them) and its key is one inserted there: it must hold
/// what was inserted, and is skipped. True then means what [`Beside`]'s true means: the
/// edited tree holds the original's data, in its order, plus exactly the inserted entries.
/// Comparing the nodes in one loop, where [`Beside`] recursed through both trees by their
/// entries and looked each level up in a map of the targets, took a tenth of the
/// instructions.
///
/// With `json` (both trees read by the JSON reader, where a scalar's data is a function of
/// its text and style) a scalar written the same in both is the same without decoding
/// either: comparing the text was a tenth of the instructions of comparing the data.
fn alike(old: &Tree, new: &Tree, ops: &[&OpPlan], json: bool) -> Option<bool> {
    if old.has_anchors()
        || new.has_anchors()
        || memchr::memmem::find(old.text().as_bytes(), b"<<").is_some()
    {
        return None;
    }
    // (target mapping in the original, key, value), sorted by mapping.
    let mut expected: Vec<(NodeId, &str, &NewValue)> = Vec::new();
    for o in ops {
        for ins in &o.inserted {
            if ins.replaces || ins.target.len() < o.depth {
                return None;
            }
            let mut at = o.map;
            for k in &ins.target[o.depth..] {
                at = own_get(old, at, k)?;
            }
            if old.node(at).kind() != Kind::Map {
                return None;
            }
            expected.extend(ins.entries.iter().map(|(k, v)| (at, k.as_str(), v)));
        }
    }
    expected.sort_by_key(|e| e.0);
    let mut next_target = 0;
    let mut verified = 0;
    // Open collections: (end in the original, end in the edited tree, children paired,
    // the range of `expected` inserted into it).
    let mut frames: Vec<(usize, usize, usize, std::ops::Range<usize>)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    loop {
        if let Some((_, new_end, paired, targets)) = frames.last()
            && !targets.is_empty()
            && paired % 2 == 0
            && j < *new_end
        {
            let key = new.scalar_text(j).map(|(k, _)| k);
            if let Some(&(_, _, value)) =
                key.and_then(|k| expected[targets.clone()].iter().find(|e| e.1 == k))
            {
                let v = j + 1;
                if v >= *new_end || !holds(new, v, value) {
                    return Some(false);
                }
                verified += 1;
                j = v + 1 + new.descendants(v);
                continue;
            }
        }
        if let Some(&(old_end, new_end, _, _)) = frames.last() {
            match (i >= old_end, j >= new_end) {
                (true, true) => {
                    frames.pop();
                    continue;
                }
                (false, false) => {}
                _ => return Some(false),
            }
        }
        if i >= old.len() || j >= new.len() {
            return Some(i == old.len() && j == new.len() && verified == expected.len());
        }
        let (a, b) = (old.node(i), new.node(j));
        if a.kind() != b.kind() {
            return Some(false);
        }
        match a.kind() {
            Kind::Scalar => {
                let written_alike = json
                    && a.style() == b.style()
                    && old.text().as_bytes()[a.start()..a.end()]
                        == new.text().as_bytes()[b.start()..b.end()];
                if !written_alike && datum(old, i) != datum(new, j) {
                    return Some(false);
                }
            }
            Kind::Alias => return None,
            Kind::Seq | Kind::Map => {
                if frames.len() + 8 > MAX_DEPTH {
                    return None;
                }
                let mut targets = 0..0;
                if a.kind() == Kind::Map {
                    while expected.get(next_target).is_some_and(|e| e.0 < i) {
                        next_target += 1;
                    }
                    let from = next_target;
                    while expected.get(next_target).is_some_and(|e| e.0 == i) {
                        next_target += 1;
                    }
                    targets = from..next_target;
                }
                if let Some(f) = frames.last_mut() {
                    f.2 += 1;
                }
                frames.push((
                    i + 1 + old.descendants(i),
                    j + 1 + new.descendants(j),
                    0,
                    targets,
                ));
                i += 1;
                j += 1;
                continue;
            }
        }
        if let Some(f) = frames.last_mut() {
            f.2 += 1;
        }
        i += 1;
        j += 1;
    }
}

/// The edited text's data with each inserted key checked and put back as the original has
/// it (absent, or the value a rewrite replaced): equal to the original's when the edits
/// added exactly those keys.
fn without(
    mut edited: Value,
    original: &Original,
    inserted: &[&Inserted],
) -> Result<Value, String> {
    for ins in inserted {
        let mut at = &mut edited;
        for k in &ins.target {
            at = at
                .get_mut(k.as_str())
                .ok_or_else(|| format!("no `{k}` on the way to the edited mapping"))?;
        }
        let Value::Object(map) = at else {
            return Err("the edited place is not a mapping".into());
        };
        for (k, v) in &ins.entries {
            if map.get(k) != Some(&v.to_json()) {
                return Err(format!("`{k}` does not hold what was inserted"));
            }
            // Only a rewrite has an original value to put back: looking one up walks
            // `paths`, which on a large document cost more than the rest of the check.
            let old = if ins.replaces {
                original.value(&ins.target, k)?
            } else {
                None
            };
            match old {
                Some(old) => map.insert(k.clone(), old),
                None => map.remove(k),
            };
        }
    }
    Ok(edited)
}

/// Checks the operations' edits applied to `text`: the result parses as a document of the
/// same operations, holds the original's data plus exactly the inserted keys, and a second
/// plan proposes nothing. Returns the edited text.
fn check(
    text: &str,
    original: &Original,
    ops: &[&OpPlan],
    all: &[OpPlan],
    opts: &Options,
) -> Result<String, String> {
    // The edits by reference, applied as `diff::apply` applies them: a copy of every edit
    // was alive through the parse.
    let mut edits: Vec<&Edit> = ops
        .iter()
        .flat_map(|o| o.planned.edit.iter().chain(&o.planned.more))
        .collect();
    edits.sort_by_key(|e| e.order());
    let mut new =
        String::with_capacity(text.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
    let mut pos = 0;
    for e in &edits {
        new.push_str(&text[pos..e.start]);
        new.push_str(&e.text);
        pos = e.end;
    }
    new.push_str(&text[pos..]);
    drop(edits);
    // The edited tree holds the original's nodes and the inserted ones: built in room for
    // them, its arena is not regrown (which held the old arena and its copy at once).
    let inserted_nodes: usize = ops
        .iter()
        .flat_map(|o| &o.inserted)
        .flat_map(|i| &i.entries)
        .map(|(_, v)| 1 + nodes_of(v))
        .sum();
    let storage = tree::Storage::with_nodes(original.tree.len() + inserted_nodes);
    let does_not_parse = |e| format!("the edited text does not parse: {e}");
    let (tree, read_as_json) =
        crate::yaml::parse_edited_in(&new, storage).map_err(does_not_parse)?;
    // The one-pass walk's true pairs each of the original's entries with one of the edited
    // text's and finds each inserted key once, where the original had none: the edited text
    // then repeats no key, as the original (checked) repeats none. Only without it are the
    // keys looked through, as the parse did before (a tenth of a large document's check).
    let walked_alike = alike(
        original.tree,
        &tree,
        ops,
        original.read_as_json && read_as_json,
    ) == Some(true);
    if !walked_alike {
        crate::yaml::check_duplicate_keys(&tree).map_err(does_not_parse)?;
    }
    // Read by the JSON reader, the text is strict JSON already.
    if original.is_json && !read_as_json {
        strict_json(&new).map_err(|e| format!("the edited text is not JSON: {e}"))?;
    }
    let inserted: Vec<&Inserted> = ops.iter().flat_map(|o| &o.inserted).collect();
    let same = walked_alike || Beside::same(original.tree, &tree, &inserted);
    if !same {
        let edited = serde_json::to_string(&without(root_data(&tree)?, original, &inserted)?)
            .map_err(|e| e.to_string())?;
        if edited != original.json()? {
            return Err("the edited text's data is not the original's plus the new keys".into());
        }
    }
    let style = Style::of(&tree, original.is_json);
    let mut notes = Vec::new();
    // By address, as a set: searching `ops` for each operation was quadratic, most of a
    // 20,000-operation document's check. `ops` are distinct operations of `all`: as many
    // as `all` holds are all of them, and no set is needed.
    let every = ops.len() == all.len();
    let mut edited_ops: std::collections::HashSet<*const OpPlan> =
        std::collections::HashSet::with_capacity(if every { 0 } else { ops.len() });
    if !every {
        edited_ops.extend(ops.iter().map(|o| std::ptr::from_ref::<OpPlan>(o)));
    }
    // Each operation is read, planned again given its decision, compared and let go as it
    // comes: neither the second read nor the second plan is held whole (each was as large
    // as the first, at the check's peak). What fails is what failed when both were whole:
    // another number of operations first, else the first operation that differs.
    let mut read = 0;
    let mut failure: Option<String> = None;
    doc::read_to_plan(&tree, &mut |op| {
        let Some(before) = all.get(read) else {
            read += 1;
            return;
        };
        read += 1;
        if failure.is_some() {
            return;
        }
        notes.clear();
        let inference = before.planned.inference.clone();
        let after = plan_op(&tree, style, op, inference, opts, false, &mut notes);
        let edited = every || edited_ops.contains(&std::ptr::from_ref(before));
        failure = compare_again(before, &after, edited).err();
    })
    .map_err(|e| format!("the edited text is no document: {e}"))?;
    if read != all.len() {
        return Err("the edited text holds other operations".into());
    }
    if let Some(why) = failure {
        return Err(why);
    }
    Ok(new)
}

/// An operation planned again on the edited text (`after`) against its first plan
/// (`before`): the same id; nothing more to edit where it was edited, the same edits planned
/// where it was not; and, edited, the planned effects declared.
fn compare_again(before: &OpPlan, after: &OpPlan, edited: bool) -> Result<(), String> {
    let id = &before.planned.site.view.id;
    if *id != after.planned.site.view.id {
        return Err(format!("operation `{id}` changed its id"));
    }
    let planned_again = after.planned.edit.is_some() || !after.planned.more.is_empty();
    let had = before.planned.edit.is_some() || !before.planned.more.is_empty();
    if edited && planned_again {
        return Err(format!("planning the edited text again edits `{id}` again"));
    }
    if !edited && planned_again != had {
        return Err(format!(
            "planning the edited text again plans `{id}` differently"
        ));
    }
    if let Some(e) = before.planned.edit.as_ref().filter(|_| edited)
        && after.planned.site.view.declared != Declared::Valid(e.effects)
    {
        return Err(format!(
            "`{id}` does not declare the planned effects after the edit"
        ));
    }
    Ok(())
}

/// Parses, classifies and plans one OpenAPI document, then checks its edits (see
/// [`check`]); `render` sees the original and the edits that passed.
///
/// The document is edited in the syntax it has, whatever its name: JSON where it is JSON
/// (read by the JSON reader, or a flow mapping `serde_json` accepts), else YAML (a flow
/// mapping with a comment, in a `.yaml` file, is YAML). A `json_name` (`.json`) file that
/// opens like JSON must be JSON: a trailing comma or a comment that YAML would accept breaks
/// every JSON consumer, and an edit must not hide it.
pub fn plan(
    text: String,
    json_name: bool,
    opts: &Options,
    left_alone: Option<&str>,
    render: &mut dyn FnMut(&str, &[Edit]),
) -> Result<Plan, Error> {
    let flow = doc::flow_opening(text.trim_start_matches('\u{feff}')).is_some();
    let refused = |e: Error| {
        if let Some(jsonc) = jsonc_comment(&text, false) {
            return jsonc;
        }
        match strict_json(&text) {
            Err(not_json) if flow && json_name => not_json,
            _ => e,
        }
    };
    let (tree, read_as_json) = crate::yaml::parse_document(&text).map_err(refused)?;
    let json = read_as_json || (flow && strict_json(&text).is_ok());
    if flow && json_name && !json {
        return Err(refused(Error::new("not valid JSON")));
    }
    if flow
        && !json
        && let Some(jsonc) = jsonc_comment(&text, true)
    {
        return Err(jsonc);
    }
    let document = doc::read(&tree).map_err(refused)?;
    let mut notes = Vec::new();
    let (key, title) = (document.key(), document.title.clone());
    let mut problems = document.problems;
    let (mut ops, group) = plan_ops(&tree, json, document.operations, opts, &mut notes);
    if let Some(why) = left_alone {
        let mut refused = 0;
        for o in ops
            .iter_mut()
            .filter(|o| o.planned.edit.is_some() || !o.planned.more.is_empty())
        {
            o.inserted.clear();
            o.planned.more.clear();
            o.planned.refuse(why);
            refused += 1;
        }
        if refused > 0 {
            notes.push(Error::new(format!(
                "not edited: {why}; its {} listed for a human instead",
                crate::text::plural(refused, "proposal")
            )));
        }
    }
    let with_edits: Vec<usize> = (0..ops.len())
        .filter(|&i| ops[i].planned.edit.is_some() || !ops[i].planned.more.is_empty())
        .collect();
    let mut new_text = None;
    if !with_edits.is_empty() && opts.check_edits {
        let original = Original::of(&tree, read_as_json, json).map_err(Error::new)?;
        let refs: Vec<&OpPlan> = with_edits.iter().map(|&i| &ops[i]).collect();
        match check(&text, &original, &refs, &ops, opts) {
            Ok(new) => new_text = Some(new),
            Err(why) => {
                // The slow path: each operation alone, then those that pass together.
                let mut failing: Vec<(usize, String)> = Vec::new();
                let mut passing = Vec::new();
                for &i in &with_edits {
                    match check(&text, &original, &[&ops[i]], &ops, opts) {
                        Ok(_) => passing.push(i),
                        Err(e) => failing.push((i, e)),
                    }
                }
                let refs: Vec<&OpPlan> = passing.iter().map(|&i| &ops[i]).collect();
                if failing.is_empty() || check(&text, &original, &refs, &ops, opts).is_err() {
                    failing.extend(passing.drain(..).map(|i| (i, why.clone())));
                }
                for (i, why) in failing {
                    ops[i].inserted.clear();
                    let p = &mut ops[i].planned;
                    p.more.clear();
                    problems.push(p.refuse(&format!(
                        "its edit failed the check before writing ({why}); declare its effects by hand"
                    )));
                }
                if !passing.is_empty() {
                    let refs: Vec<&OpPlan> = passing.iter().map(|&i| &ops[i]).collect();
                    new_text = check(&text, &original, &refs, &ops, opts).ok();
                }
            }
        }
    }
    let edits = edits_of(&ops);
    if new_text.is_none() && opts.keep_texts && !edits.is_empty() {
        new_text = Some(diff::apply(&text, &edits));
    }
    render(&text, &edits);
    let silences = if json {
        Vec::new()
    } else {
        crate::text::file_silences(&text)
    };
    // Moved out with the plans, not copied: every key path and value of 20,000 operations
    // cloned, then dropped, was 1.5% of a document's backfill.
    let mut inserted = Vec::new();
    let actions = ops
        .into_iter()
        .map(|o| {
            inserted.extend(o.inserted);
            o.planned
        })
        .collect();
    Ok(Plan {
        shape: Shape::OpenApi,
        group,
        info_key: key,
        info_title: title,
        problems,
        notes,
        actions,
        edits,
        new_text: new_text.filter(|_| opts.keep_texts),
        silences,
        inserted,
        repeats: Vec::new(),
        // A document's `$ref`s are JSON pointers, resolved (and reported) by its reader,
        // not connector partials.
        refs: Vec::new(),
    })
}

/// Every edit the operations' plans make, in the order they apply.
fn edits_of(ops: &[OpPlan]) -> Vec<Edit> {
    let mut edits: Vec<Edit> = ops
        .iter()
        .flat_map(|o| o.planned.edit.iter().chain(&o.planned.more))
        .cloned()
        .collect();
    edits.sort_by_key(Edit::order);
    edits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::RuleSet;
    use crate::model::openapi::HintFormat;
    use crate::yaml as parse;

    fn run(text: &str, formats: &[HintFormat]) -> (String, Plan) {
        let mut opts = Options::new(RuleSet::builtin().unwrap());
        opts.keep_texts = true;
        opts.hint_formats = formats.to_vec();
        let p = plan(text.to_owned(), false, &opts, None, &mut |_, _| {}).unwrap();
        let new = p.new_text.clone().unwrap_or_else(|| text.to_owned());
        (new, p)
    }

    const YAML: &str = "openapi: 3.0.0\ninfo:\n  title: Pets\npaths:\n  /pets:\n    get:\n      operationId: listPets\n      summary: List all pets\n    delete:\n      operationId: deletePet\n      x-speakeasy-mcp:\n        name: remove\n";

    #[test]
    fn json_strings_are_written_as_serde_json_writes_them() {
        for s in [
            "read",
            "x-speakeasy-mcp",
            "a\"b",
            "back\\slash",
            "tab\there",
            "\u{7f}é/",
            "",
        ] {
            let mut out = String::new();
            push_json_str(&mut out, s);
            assert_eq!(out, Value::from(s).to_string(), "{s:?}");
        }
    }

    /// The walk beside the original is what the check trusts when it finds nothing wrong,
    /// so it must find every change that is not one of the inserted entries.
    #[test]
    fn the_walk_beside_the_original_finds_any_other_change() {
        let (new, p) = run(YAML, &[HintFormat::Speakeasy]);
        let old = parse::parse_tree(YAML).unwrap();
        let inserted: Vec<&Inserted> = p.inserted.iter().collect();
        assert!(!inserted.is_empty());
        let same = |text: &str| {
            let t = parse::parse_tree(text).unwrap();
            Beside::same(&old, &t, &inserted)
        };
        assert!(same(&new));
        for (from, to) in [
            ("List all pets", "List all dogs"),
            ("name: remove", "name: 'true'"),
            ("summary:", "summery:"),
            ("x-effects: [read]", "x-effects: [write]"),
            ("readOnlyHint: true", "readOnlyHint: 'true'"),
        ] {
            assert!(new.contains(from), "{from}");
            assert!(!same(&new.replacen(from, to, 1)), "{from} -> {to}");
        }
        // A rewritten declaration (`--fix-conflicts`) replaces the original's value.
        let conflicting = YAML.replace(
            "operationId: listPets",
            "operationId: listPets\n      x-effects: [delete]",
        );
        let mut opts = Options::new(RuleSet::builtin().unwrap());
        opts.fix_conflicts = true;
        let p = plan(conflicting.clone(), false, &opts, None, &mut |_, _| {}).unwrap();
        assert!(p.inserted.iter().any(|i| i.replaces), "{:?}", p.inserted);
        let edited = diff::apply(&conflicting, &p.edits);
        assert!(edited.contains("x-effects: [read]"), "{edited}");
        let (o, e) = (
            parse::parse_tree(&conflicting).unwrap(),
            parse::parse_tree(&edited).unwrap(),
        );
        let ins: Vec<&Inserted> = p.inserted.iter().collect();
        assert!(Beside::same(&o, &e, &ins));
        // An inserted entry missing, and the original text (nothing inserted).
        assert!(!same(&new.replacen("      x-effects: [read]\n", "", 1)));
        assert!(!same(YAML));
    }

    /// The one-pass walk is trusted like [`Beside`]: true only where the edited tree holds
    /// the original's data plus exactly the inserted entries, where they were planned.
    #[test]
    fn the_one_pass_walk_finds_any_other_change() {
        let mut opts = Options::new(RuleSet::builtin().unwrap());
        opts.hint_formats = vec![HintFormat::Speakeasy, HintFormat::Zuplo];
        for original in [YAML.to_owned(), YAML_AS_JSON.to_owned()] {
            let old = parse::parse_tree(&original).unwrap();
            let document = doc::read(&old).unwrap();
            let json = original.starts_with('{');
            let (ops, _) = plan_ops(&old, json, document.operations, &opts, &mut Vec::new());
            let refs: Vec<&OpPlan> = ops.iter().collect();
            let new = diff::apply(&original, &edits_of(&ops));
            // By the YAML parser's trees, and by the JSON reader's where it reads both texts
            // (the text compared for the data): the two must agree.
            let (old_doc, old_json) = crate::yaml::parse_document(&original).unwrap();
            let walk = |text: &str| {
                let by_data = alike(&old, &parse::parse_tree(text).unwrap(), &refs, false);
                let (t, json) = crate::yaml::parse_document(text).unwrap();
                let by_text = alike(&old_doc, &t, &refs, old_json && json);
                assert_eq!(by_data, by_text, "{text}");
                by_data
            };
            assert_eq!(walk(&new), Some(true), "{new}");
            let json = original.starts_with('{');
            let changes: &[(&str, &str)] = if json {
                &[
                    ("List all pets", "List all dogs"),
                    ("\"name\": \"remove\"", "\"name\": \"true\""),
                    ("\"summary\"", "\"summery\""),
                    ("[\"read\"]", "[\"write\"]"),
                    ("\"readOnlyHint\": true", "\"readOnlyHint\": \"true\""),
                    ("\"title\": \"Pets\"", "\"title\": \"Pets\", \"x\": 1"),
                    ("\"title\": \"Pets\"", "\"title\": [\"Pets\"]"),
                ]
            } else {
                &[
                    ("List all pets", "List all dogs"),
                    ("name: remove", "name: 'true'"),
                    ("summary:", "summery:"),
                    ("x-effects: [read]", "x-effects: [write]"),
                    ("readOnlyHint: true", "readOnlyHint: 'true'"),
                    ("  title: Pets\n", "  title: Pets\n  x: 1\n"),
                    ("  title: Pets\n", "  title: [Pets]\n"),
                    ("      operationId: listPets\n", ""),
                    ("      x-effects: [read]\n", ""),
                    (
                        "      x-effects: [read]\n",
                        "      x-effects: [read]\n      x-more: 1\n",
                    ),
                    (
                        "    get:\n      x-effects: [read]\n",
                        "    x-effects: [read]\n    get:\n",
                    ),
                ]
            };
            for &(from, to) in changes {
                assert!(new.contains(from), "{from} in {new}");
                let changed = new.replacen(from, to, 1);
                if parse::parse_tree(&changed).is_ok() {
                    assert_ne!(walk(&changed), Some(true), "{from} -> {to}");
                }
            }
            assert_ne!(walk(&original), Some(true));
            // Written otherwise, the same data: still the same.
            if json {
                let escaped = new.replacen("List all pets", "List all p\\u0065ts", 1);
                assert_eq!(walk(&escaped), Some(true), "{escaped}");
            }
            // A document with an anchor, or a merge key, is left to [`Beside`].
            if !json {
                let anchored = new.replacen("title: Pets", "title: &t Pets", 1);
                assert_eq!(walk(&anchored), None);
            }
        }
    }

    const YAML_AS_JSON: &str = "{\n  \"openapi\": \"3.0.0\",\n  \"info\": {\n    \"title\": \"Pets\"\n  },\n  \"paths\": {\n    \"/pets\": {\n      \"get\": {\n        \"operationId\": \"listPets\",\n        \"summary\": \"List all pets\"\n      },\n      \"delete\": {\n        \"operationId\": \"deletePet\",\n        \"x-speakeasy-mcp\": {\n          \"name\": \"remove\"\n        }\n      }\n    }\n  }\n}\n";

    #[test]
    fn yaml_operations_get_x_effects_and_hints_in_their_own_style() {
        let (new, p) = run(YAML, &[HintFormat::Speakeasy]);
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(
            new,
            "openapi: 3.0.0\ninfo:\n  title: Pets\npaths:\n  /pets:\n    get:\n      x-effects: [read]\n      x-speakeasy-mcp:\n        readOnlyHint: true\n        destructiveHint: false\n        openWorldHint: true\n      operationId: listPets\n      summary: List all pets\n    delete:\n      x-effects: [delete]\n      operationId: deletePet\n      x-speakeasy-mcp:\n        readOnlyHint: false\n        destructiveHint: true\n        openWorldHint: true\n        name: remove\n"
        );
        let (again, p2) = run(&new, &[HintFormat::Speakeasy]);
        assert_eq!(again, new);
        assert!(p2.edits.is_empty());
        assert!(p2.actions.iter().all(|a| a.status == Status::Agrees));
    }

    #[test]
    fn json_keeps_its_indentation_spacing_and_line_endings() {
        let text = "{\r\n\t\"swagger\": \"2.0\",\r\n\t\"paths\": {\r\n\t\t\"/pets\": {\r\n\t\t\t\"get\": {\r\n\t\t\t\t\"operationId\": \"listPets\",\r\n\t\t\t\t\"tags\": [\r\n\t\t\t\t\t\"pets\"\r\n\t\t\t\t]\r\n\t\t\t}\r\n\t\t}\r\n\t}\r\n}";
        let (new, _) = run(text, &[HintFormat::Zuplo]);
        assert_eq!(
            new,
            "{\r\n\t\"swagger\": \"2.0\",\r\n\t\"paths\": {\r\n\t\t\"/pets\": {\r\n\t\t\t\"get\": {\r\n\t\t\t\t\"x-effects\": [\r\n\t\t\t\t\t\"read\"\r\n\t\t\t\t],\r\n\t\t\t\t\"x-zuplo-route\": {\r\n\t\t\t\t\t\"mcp\": {\r\n\t\t\t\t\t\t\"annotations\": {\r\n\t\t\t\t\t\t\t\"readOnlyHint\": true,\r\n\t\t\t\t\t\t\t\"destructiveHint\": false,\r\n\t\t\t\t\t\t\t\"openWorldHint\": true\r\n\t\t\t\t\t\t}\r\n\t\t\t\t\t}\r\n\t\t\t\t},\r\n\t\t\t\t\"operationId\": \"listPets\",\r\n\t\t\t\t\"tags\": [\r\n\t\t\t\t\t\"pets\"\r\n\t\t\t\t]\r\n\t\t\t}\r\n\t\t}\r\n\t}\r\n}"
        );
        let v: Value = serde_json::from_str(&new).unwrap();
        assert_eq!(v["paths"]["/pets"]["get"]["x-effects"][0], "read");
    }

    #[test]
    fn minified_json_stays_minified() {
        let text = "{\"openapi\":\"3.1.0\",\"paths\":{\"/pets/{id}\":{\"delete\":{\"operationId\":\"deletePet\"},\"get\":{}}}}\n";
        let (new, _) = run(text, &[HintFormat::Mcp]);
        assert_eq!(
            new,
            "{\"openapi\":\"3.1.0\",\"paths\":{\"/pets/{id}\":{\"delete\":{\"x-effects\":[\"delete\"],\"x-mcp\":{\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":true,\"openWorldHint\":true}},\"operationId\":\"deletePet\"},\"get\":{\"x-effects\":[\"read\"],\"x-mcp\":{\"annotations\":{\"readOnlyHint\":true,\"destructiveHint\":false,\"openWorldHint\":true}}}}}}\n"
        );
    }

    #[test]
    fn a_yaml_flow_mapping_over_lines_gets_flow_entries_on_lines_of_their_own() {
        let text = "openapi: 3.0.0\npaths:\n  /a:\n    get: {\n      operationId: listA,\n      summary: List A\n    }\n";
        let (new, p) = run(text, &[HintFormat::Zilla]);
        assert!(
            p.problems.is_empty() && p.notes.is_empty(),
            "{:?} {:?}",
            p.problems,
            p.notes
        );
        assert_eq!(
            new,
            "openapi: 3.0.0\npaths:\n  /a:\n    get: {\n      x-effects: [read],\n      x-zilla-mcp: {annotations: {readOnlyHint: true, destructiveHint: false, openWorldHint: true}},\n      operationId: listA,\n      summary: List A\n    }\n"
        );
    }

    #[test]
    fn an_operation_that_cannot_take_a_key_is_named_and_the_rest_edited() {
        let text = "openapi: 3.0.0\npaths:\n  /a:\n    get: &op\n      operationId: listA\n    delete:\n      operationId: deleteA\n";
        let (new, p) = run(text, &[]);
        assert!(
            new.contains("    delete:\n      x-effects: [delete]\n"),
            "{new}"
        );
        assert!(!new.contains("get: &op\n      x-effects"), "{new}");
        assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
        assert!(
            p.notes[0].to_string().contains("`listA` not edited"),
            "{}",
            p.notes[0]
        );
    }

    #[test]
    fn a_jsonc_comment_is_found_where_one_can_stand_and_nowhere_else() {
        let at = |text: &str, keys_only: bool| {
            jsonc_comment(text, keys_only).map(|e| (e.line.unwrap_or(0), e.column.unwrap_or(0)))
        };
        assert_eq!(at("{\"a\": 1, // c\n}", false), Some((1, 10)));
        assert_eq!(at("{\"a\": 1, // c\n}", true), Some((1, 10)));
        assert_eq!(at("{\"a\": 1 /* c */}", false), Some((1, 9)));
        assert_eq!(at("{\"a\": 1 /* c */}", true), None);
        for yaml in [
            "{url: //cdn.example.com/x}",
            "{a: 'x, // y', b: \"//\"}",
            "{a: 'it''s, // y'}",
            "{u: http://x}",
            "{a: b} # c, // d",
        ] {
            assert_eq!(at(yaml, true), None, "{yaml}");
        }
    }

    #[test]
    fn a_deeply_nested_document_is_an_error_with_its_place_not_a_crash() {
        let deep = format!(
            "openapi: 3.0.0\nx: {}{}\n",
            "[".repeat(5000),
            "]".repeat(5000)
        );
        let opts = Options::new(crate::classify::RuleSet::builtin().unwrap());
        let e = plan(deep, false, &opts, None, &mut |_, _| {}).unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        assert!(e.column.is_some(), "{e}");
    }
}
