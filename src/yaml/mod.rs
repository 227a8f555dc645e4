//! YAML as both sources read it: a span-aware tree ([`tree`]) and the refusals every file
//! passes before its actions are read (nothing at all, a lone carriage return, a second
//! document, a key written twice). Never re-serializes anything.

pub mod tree;

use saphyr_parser::ScalarStyle;

use crate::error::Error;
use tree::{Kind, NodeId, Storage, Tree};

/// What a plan does with a file's tree besides planning with it: a run that plans a file
/// twice (once to count the catalog's votes, once with them) parses it once.
#[derive(Debug)]
pub enum Reuse<'a> {
    /// Parses the text.
    Parse,
    /// Parses the text and spills its tree here ([`Tree::spill`]), for a later plan.
    Spill(&'a mut Vec<u8>),
    /// Has back the tree an earlier plan of this very text spilled.
    Spilled(&'a [u8]),
}

/// The tree of `text` and whether the JSON reader read it: `parse`'s, or the one `reuse`
/// had spilled (then no refusal can come, as the text passed them when it was parsed).
pub fn parse_reusing<'t>(
    text: &'t str,
    reuse: Reuse<'_>,
    parse: impl FnOnce(&'t str) -> Result<(Tree<'t>, bool), Error>,
) -> Result<(Tree<'t>, bool), Error> {
    match reuse {
        Reuse::Parse => parse(text),
        Reuse::Spill(out) => {
            let (tree, json) = parse(text)?;
            out.push(u8::from(json));
            tree.spill(out);
            Ok((tree, json))
        }
        Reuse::Spilled(bytes) => {
            let back = bytes.split_first().and_then(|(&json, rest)| {
                Some((Tree::unspill(text, rest, Storage::default())?, json == 1))
            });
            match back {
                Some(back) => Ok(back),
                None => parse(text),
            }
        }
    }
}

/// Parses a connector file's text into its tree, refusing what YAML allows but a connector
/// file must not hold: nothing at all, lone carriage returns, duplicate keys, a second
/// document.
pub fn parse_tree(text: &str) -> Result<Tree<'_>, Error> {
    parse_tree_in(text, tree::Storage::default())
}

/// [`parse_tree`], building the tree in `storage` (see [`tree::Storage`]).
pub fn parse_tree_in(text: &str, storage: tree::Storage) -> Result<Tree<'_>, Error> {
    parse_checked(text, storage, false, true).map(|(tree, _)| tree)
}

/// [`parse_tree`] for an OpenAPI document: a JSON object is read by the JSON reader when it
/// can ([`tree::parse_json`]: the same tree, without the YAML scanner's cost), else by the
/// YAML parser. True with the tree when the JSON reader read it: the text is then strict
/// JSON, as `serde_json` would find.
pub fn parse_document(text: &str) -> Result<(Tree<'_>, bool), Error> {
    parse_checked(text, tree::Storage::default(), true, true)
}

/// [`parse_document`] of an edited text, building the tree in `storage` (see
/// [`tree::Storage`]), without looking for duplicate keys: the check of the edit settles that
/// by comparing with the original, and calls [`check_duplicate_keys`] only where the
/// comparison does not.
pub fn parse_edited_in(text: &str, storage: tree::Storage) -> Result<(Tree<'_>, bool), Error> {
    parse_checked(text, storage, true, false)
}

/// Without `keys`, duplicate keys are not looked for ([`parse_edited_in`]).
fn parse_checked(
    text: &str,
    storage: tree::Storage,
    json_first: bool,
    keys: bool,
) -> Result<(Tree<'_>, bool), Error> {
    // An empty connector file is valid YAML (a null document) but never intended: it is
    // what a truncated copy or a failed generator leaves, so it is an error. A
    // file of comments only is deliberate (every action commented out) and stays valid.
    if text.trim_start_matches('\u{feff}').trim().is_empty() {
        return Err(Error::new(
            "empty file: no YAML document (a connector file holds a mapping or a list of actions)",
        ));
    }
    // A carriage return not followed by a line feed is a line break to YAML but not to the
    // edit planning (columns, line ends and diff lines count `\n` only): an insertion after
    // it would be indented wrongly and break the file. Refused, never guessed (the
    // fuzzer's crash 645f82ee: `- a\n\r- actionId: x`).
    let lone_cr = || {
        let bytes = text.as_bytes();
        // Most files hold no carriage return at all, and `contains` finds that out a word
        // at a time.
        if bytes.contains(&b'\r')
            && let Some(at) =
                (0..bytes.len()).find(|&i| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
        {
            let lines = tree::Lines::new(text);
            return Err(Error::new(
                "a carriage return not followed by a line feed (a classic Mac line break): convert the file to LF or CRLF line endings",
            )
            .at(lines.line(at), lines.column(at) + 1));
        }
        Ok(())
    };
    // The JSON reader takes a carriage return only before a line feed, so what it reads
    // needs no search for a lone one.
    let (tree, json) = if json_first && text.trim_start_matches([' ', '\n', '\r']).starts_with('{')
    {
        // Declined, the storage is handed on with its room.
        let nodes = storage.capacity();
        match tree::parse_json(text, storage) {
            Some(tree) => (tree, true),
            None => {
                lone_cr()?;
                yaml_else_json(text, tree::Storage::with_nodes(nodes))?
            }
        }
    } else if json_first {
        lone_cr()?;
        yaml_else_json(text, storage)?
    } else {
        lone_cr()?;
        (tree::parse_in(text, storage)?, false)
    };
    // Later documents would be read by nothing: their actions would silently go without
    // effects, so a second document is refused where it starts.
    if let Some(&second) = tree.roots.iter().filter(|&&r| !is_null(&tree, r)).nth(1) {
        return Err(node_error(
            &tree,
            second,
            "a second YAML document: a connector file holds one, and nothing would read this one's actions; split it into its own file".into(),
        ));
    }
    if keys {
        check_duplicate_keys(&tree)?;
    }
    Ok((tree, json))
}

/// A document's text read by the YAML parser, else, where that refuses valid JSON (an
/// escaped surrogate pair, which `json.dumps` writes by default, beside a tab or an
/// exponent the JSON reader's subset declines), as the JSON it is: valid JSON is never
/// refused as invalid YAML. True with the tree when it was read as JSON.
fn yaml_else_json(text: &str, storage: tree::Storage) -> Result<(Tree<'_>, bool), Error> {
    let nodes = storage.capacity();
    match tree::parse_in(text, storage) {
        Ok(tree) => Ok((tree, false)),
        Err(e) => {
            serde_json::from_str::<serde::de::IgnoredAny>(text.trim_start_matches('\u{feff}'))
                .ok()
                .and_then(|_| tree::parse_json_whole(text, tree::Storage::with_nodes(nodes)))
                .map(|tree| (tree, true))
                .ok_or(e)
        }
    }
}

pub(crate) fn node_error(tree: &Tree, node: NodeId, message: String) -> Error {
    let at = tree.node(node).start();
    Error::new(message).at(tree.line(node), tree.column(at) + 1)
}

/// A mapping key written twice is an error: loaders disagree on which one wins (this tool
/// took the first, most others take the last), so what the file declares is unclear.
/// Shape C is the exception the format defines: its `actions:` mapping repeats `$ref:`.
pub fn check_duplicate_keys(tree: &Tree) -> Result<(), Error> {
    let shape_c_refs = tree
        .roots
        .iter()
        .filter_map(|&r| tree.own_entries(r))
        .flat_map(|mut e| e.find(|&(k, _)| tree.scalar(k) == Some("actions")))
        .map(|(_, v)| v)
        .find(|&v| tree.node(v).kind() == Kind::Map);
    // `1` and `'1'` are different keys (a number and a string); `a` and `'a'` are the same
    // one. Only keys of equal text need that asked.
    let typed = |k: NodeId| {
        tree.scalar_text(k)
            .is_some_and(|(v, style)| style == ScalarStyle::Plain && plain_type(v).is_some())
    };
    let mut keys: Vec<(&str, NodeId)> = Vec::new();
    for map in (0..tree.len()).filter(|&id| tree.node(id).kind() == Kind::Map) {
        keys.clear();
        keys.extend(
            tree.own_entries(map)
                .into_iter()
                .flatten()
                .filter_map(|(k, _)| tree.scalar_text(k).map(|(v, _)| (v, k))),
        );
        let exempt = |key: &str| Some(map) == shape_c_refs && key == "$ref";
        let same = |a: &(&str, NodeId), b: &(&str, NodeId)| {
            a.0 == b.0 && !exempt(a.0) && typed(a.1) == typed(b.1)
        };
        let mut dup = None;
        // Most mappings hold a few keys: comparing them pairwise is cheaper than sorting.
        if keys.len() <= 16 {
            'outer: for (i, a) in keys.iter().enumerate() {
                for b in &keys[i + 1..] {
                    if same(a, b) {
                        dup = Some((a.1, b.1));
                        break 'outer;
                    }
                }
            }
        } else {
            // Sorted by text, then by position: keys of equal text side by side, the first
            // of them first.
            keys.sort_unstable();
            dup = keys
                .chunk_by(|a, b| a.0 == b.0)
                .filter_map(|run| {
                    let again = run
                        .iter()
                        .skip(1)
                        .find(|b| run.iter().any(|a| a.1 < b.1 && same(a, b)))?;
                    let first = run.iter().find(|a| a.1 < again.1 && same(a, again))?;
                    Some((first.1, again.1))
                })
                .min_by_key(|&(_, again)| again);
        }
        if let Some((first, again)) = dup {
            let name = tree.scalar(again).unwrap_or_default();
            return Err(node_error(
                tree,
                again,
                format!(
                    "duplicate key `{name}` (first at line {}): YAML loaders disagree on which one wins; keep one",
                    tree.line(first)
                ),
            ));
        }
    }
    Ok(())
}

pub(crate) fn is_null(tree: &Tree, id: NodeId) -> bool {
    matches!(
        tree.scalar_text(id),
        Some(("" | "~" | "null", ScalarStyle::Plain))
    )
}

/// The YAML 1.2 core-schema type a plain scalar resolves to, when it is not a string.
pub(crate) fn plain_type(v: &str) -> Option<&'static str> {
    match v {
        "" | "~" | "null" | "Null" | "NULL" => Some("null"),
        "true" | "True" | "TRUE" | "false" | "False" | "FALSE" => Some("a boolean"),
        ".inf" | "-.inf" | "+.inf" | ".nan" | ".NaN" | ".NAN" => Some("a number"),
        // Rust also parses `inf` and `nan`, which YAML reads as strings.
        _ if v.starts_with(|c: char| c.is_ascii_digit() || "+-.".contains(c))
            && (v.parse::<f64>().is_ok() || v.starts_with("0x") || v.starts_with("0o")) =>
        {
            Some("a number")
        }
        _ => None,
    }
}
