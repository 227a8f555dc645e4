//! New keys written in an OpenAPI document's own style: YAML lines indented like the
//! operation's keys, or JSON with the document's indentation, spacing, colons and line
//! endings; inline where the mapping is written on one line.

use serde_json::Value;

use crate::model::openapi::NewValue;
use crate::text::lines::{eol_before, line_start};
use crate::yaml::tree::{Kind, NodeId, Tree, opener};

/// How the document writes itself, measured once.
#[derive(Debug, Clone, Copy)]
pub(super) struct Style {
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
    pub(super) fn detect(tree: &Tree, json: bool) -> Style {
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
            // Kept as written, where it is on one line: `"a" : 1` took `"b": 2` beside it.
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
pub(super) fn push_json_str(out: &mut String, s: &str) {
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

pub(super) fn inline(style: Style, value: &NewValue) -> String {
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
pub(super) fn insertion(
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
            let eol = eol_before(text, ls);
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
    let eol = eol_before(text, ls);
    // Sized for what an operation usually gets (`x-effects` and a generator's hints), so
    // the buffer is not grown piece by piece.
    let mut out = String::with_capacity(256);
    for (k, v) in entries {
        push_pretty(&mut out, style, k, v, indent, &unit, eol);
        out.push_str(eol);
    }
    Ok((ls, out))
}

pub(super) fn inline_entry(style: Style, k: &str, v: &NewValue) -> String {
    let (colon, _) = punctuation(style);
    let mut out = String::new();
    push_key(&mut out, style, k);
    out.push_str(colon);
    push_inline(&mut out, style, v);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
