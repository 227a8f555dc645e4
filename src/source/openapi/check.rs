//! The check of an OpenAPI document's edits: the edited text must parse as a document of
//! the same operations (JSON where the original is JSON), hold the original's data plus
//! exactly the inserted keys, and plan no further edit. Comparing both documents' values
//! took half of a large document's backfill, so the trees are walked side by side first.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::error::Error;
use crate::fix::apply::apply;
use crate::fix::options::Options;
use crate::fix::plan::{Plan, Planned};
use crate::fix::{EachCheck, EditCheck};
use crate::model::edit::Edit;
use crate::model::openapi::{Inserted, NewValue};
use crate::view::Declared;
use crate::yaml::tree::{self, Kind, NodeId, Tree};

use super::plan::plan_op;
use super::read as doc;
use super::write::Style;

/// What the check of a document reads of its original: its tree and data, and where each
/// operation's mapping is in that tree.
pub(super) struct Checker<'a, 't> {
    pub original: Original<'a, 't>,
    pub maps: HashMap<usize, NodeId>,
    pub opts: &'a Options,
}

impl EditCheck for Checker<'_, '_> {
    fn all<'s>(
        &mut self,
        text: Cow<'s, str>,
        plan: &Plan,
    ) -> (Cow<'s, str>, Result<Option<String>, String>) {
        let checked = check(
            &text,
            &self.original,
            &plan.edits,
            plan,
            &self.maps,
            self.opts,
        );
        (text, checked.map(Some))
    }

    fn each<'a>(&'a self, text: &'a str, plan: &'a Plan) -> Result<EachCheck<'a>, Error> {
        Ok(Box::new(move |edits: &[Edit]| {
            check(text, &self.original, edits, plan, &self.maps, self.opts)
        }))
    }
}

/// A JSON document must be JSON, not only YAML: a trailing comma or a comment that the
/// YAML parser accepts would break every JSON consumer, and an edit must not hide it.
pub(super) fn strict_json(text: &str) -> Result<(), Error> {
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
pub(super) fn jsonc_comment(text: &str, keys_only: bool) -> Option<Error> {
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
/// message, here placed at the node where the limit is passed: a document refused for its
/// depth alone was named with no place to look for it.
fn within_limits(tree: &Tree, node: NodeId, budget: &mut usize, depth: usize) -> Result<(), Error> {
    if *budget == 0 {
        return Err(crate::yaml::node_error(
            tree,
            node,
            "the document expands to too many nodes (aliases?): not edited, as its edit cannot be checked; use fewer aliases (each is read as a copy of its anchor's value)".into(),
        ));
    }
    if depth > MAX_DEPTH {
        return Err(crate::yaml::node_error(
            tree,
            node,
            format!(
                "the document nests deeper than {MAX_DEPTH} levels here: not edited, as its edit cannot be checked this deep; nest the value less deeply (a `$ref` to a component)"
            ),
        ));
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
pub(super) struct Original<'a, 't> {
    json: std::cell::OnceCell<String>,
    tree: &'a Tree<'t>,
    /// Read by the JSON reader, whose scalars' data is a function of their text and style.
    read_as_json: bool,
    /// The document is JSON, and its edited text must be too.
    is_json: bool,
}

impl<'a, 't> Original<'a, 't> {
    pub(super) fn new(
        tree: &'a Tree<'t>,
        read_as_json: bool,
        json: bool,
    ) -> Result<Original<'a, 't>, Error> {
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
pub(super) struct Beside<'s> {
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
    pub(super) fn same(old: &'s Tree<'s>, new: &'s Tree<'s>, inserted: &[&'s Inserted]) -> bool {
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
pub(super) fn alike(
    old: &Tree,
    new: &Tree,
    ops: &[(NodeId, &Inserted)],
    json: bool,
) -> Option<bool> {
    if old.has_anchors()
        || new.has_anchors()
        || memchr::memmem::find(old.text().as_bytes(), b"<<").is_some()
    {
        return None;
    }
    let expected = expected_entries(old, ops)?;
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
                if !same_scalar(old, new, i, j, json) {
                    return Some(false);
                }
            }
            Kind::Alias => return None,
            Kind::Seq | Kind::Map => {
                if frames.len() + 8 > MAX_DEPTH {
                    return None;
                }
                let targets = if a.kind() == Kind::Map {
                    targets_of(&expected, &mut next_target, i)
                } else {
                    0..0
                };
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

/// What [`alike`] expects inserted: (target mapping in the original, key, value), sorted by
/// mapping. Each target is found from its operation's mapping along the target's own keys;
/// `None` for a rewrite or a target that is no mapping, which the walk leaves to [`Beside`].
fn expected_entries<'i>(
    old: &Tree,
    ops: &[(NodeId, &'i Inserted)],
) -> Option<Vec<(NodeId, &'i str, &'i NewValue)>> {
    let mut expected: Vec<(NodeId, &str, &NewValue)> = Vec::new();
    for &(map, ins) in ops {
        if ins.replaces || ins.target.len() < ins.operation {
            return None;
        }
        let mut at = map;
        for k in &ins.target[ins.operation..] {
            at = own_get(old, at, k)?;
        }
        if old.node(at).kind() != Kind::Map {
            return None;
        }
        expected.extend(ins.entries.iter().map(|(k, v)| (at, k.as_str(), v)));
    }
    expected.sort_by_key(|e| e.0);
    Some(expected)
}

/// The entries of `expected` inserted into the original's mapping `map`. The walk reaches
/// mappings in document order, the order `expected` is sorted in: `next` only moves on.
#[inline]
fn targets_of(
    expected: &[(NodeId, &str, &NewValue)],
    next: &mut usize,
    map: NodeId,
) -> std::ops::Range<usize> {
    while expected.get(*next).is_some_and(|e| e.0 < map) {
        *next += 1;
    }
    let from = *next;
    while expected.get(*next).is_some_and(|e| e.0 == map) {
        *next += 1;
    }
    from..*next
}

/// Whether the original's scalar `i` and the edited tree's `j` hold the same data: read by
/// the JSON reader (`json`), written alike in both without decoding either.
#[inline]
fn same_scalar(old: &Tree, new: &Tree, i: NodeId, j: NodeId, json: bool) -> bool {
    let (a, b) = (old.node(i), new.node(j));
    let written_alike = json
        && a.style() == b.style()
        && old.text().as_bytes()[a.start()..a.end()] == new.text().as_bytes()[b.start()..b.end()];
    written_alike || datum(old, i) == datum(new, j)
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

/// Checks `edits` (sorted, whole operations) applied to `text`: the result parses as a
/// document of the same operations, holds the original's data plus exactly the inserted
/// keys, and a second plan proposes nothing. `maps` finds each operation's mapping in the
/// original's tree by where it starts. Returns the edited text.
fn check(
    text: &str,
    original: &Original,
    edits: &[Edit],
    plan: &Plan,
    maps: &HashMap<usize, NodeId>,
    opts: &Options,
) -> Result<String, String> {
    let new = apply(text, edits);
    let edited: HashSet<usize> = edits.iter().map(|e| e.map).collect();
    // Every operation edited, no set is asked: most runs edit them all.
    let every = edited.len() == plan.actions.len();
    let inserted: Vec<&Inserted> = plan
        .inserted
        .iter()
        .filter(|i| every || edited.contains(&i.map))
        .collect();
    // The edited tree holds the original's nodes and the inserted ones: built in room for
    // them, its arena is not regrown (which held the old arena and its copy at once).
    let inserted_nodes: usize = inserted
        .iter()
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
    let targets: Option<Vec<(NodeId, &Inserted)>> = inserted
        .iter()
        .map(|i| Some((*maps.get(&i.map)?, *i)))
        .collect();
    let walked_alike = targets.is_some_and(|t| {
        alike(
            original.tree,
            &tree,
            &t,
            original.read_as_json && read_as_json,
        ) == Some(true)
    });
    if !walked_alike {
        crate::yaml::check_duplicate_keys(&tree).map_err(does_not_parse)?;
    }
    // Read by the JSON reader, the text is strict JSON already.
    if original.is_json && !read_as_json {
        strict_json(&new).map_err(|e| format!("the edited text is not JSON: {e}"))?;
    }
    let same = walked_alike || Beside::same(original.tree, &tree, &inserted);
    if !same {
        let edited = serde_json::to_string(&without(root_data(&tree)?, original, &inserted)?)
            .map_err(|e| e.to_string())?;
        if edited != original.json()? {
            return Err("the edited text's data is not the original's plus the new keys".into());
        }
    }
    let style = Style::detect(&tree, original.is_json);
    let mut notes = Vec::new();
    // Each operation is read, planned again given its decision, compared and let go as it
    // comes: neither the second read nor the second plan is held whole (each was as large
    // as the first, at the check's peak). What fails is what failed when both were whole:
    // another number of operations first, else the first operation that differs.
    let all = &plan.actions;
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
        let decided = (before.inference.clone(), before.vote.clone());
        let after = plan_op(&tree, style, op, decided, opts, false, &mut notes);
        let edited = every || edited.contains(&before.site.map_start);
        failure = compare_again(before, &after.planned, edited).err();
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
fn compare_again(before: &Planned, after: &Planned, edited: bool) -> Result<(), String> {
    let id = &before.site.view.id;
    if *id != after.site.view.id {
        return Err(format!("operation `{id}` changed its id"));
    }
    let planned_again = after.edit.is_some() || !after.more.is_empty();
    let had = before.edit.is_some() || !before.more.is_empty();
    if edited && planned_again {
        return Err(format!("planning the edited text again edits `{id}` again"));
    }
    if !edited && planned_again != had {
        return Err(format!(
            "planning the edited text again plans `{id}` differently"
        ));
    }
    if let Some(e) = before.edit.as_ref().filter(|_| edited)
        && after.site.view.declared != Declared::Valid(e.effects)
    {
        return Err(format!(
            "`{id}` does not declare the planned effects after the edit"
        ));
    }
    Ok(())
}
