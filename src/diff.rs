//! Diff: compare a proposal with what is declared, plan byte-exact edits, apply them, and
//! render them as a unified diff that `git apply` and `patch -p1` accept.
//!
//! Edits only insert or replace the `effects` value; every other byte stays as it was. The
//! diff is rendered straight from the edits (no whole-file diffing), and a test checks it
//! against `similar`'s rendering.

use std::fmt::Write as _;

use crate::classify::{Confidence, Inference};
use crate::effects::Effects;
use crate::parse::{ActionSite, EffectsSite, Insert};
use crate::view::Declared;

/// How an action's declared effects relate to the proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    /// Nothing declared; a proposal is inserted.
    Added,
    /// Declared and valid, and no confident proposal disagrees.
    Agrees,
    /// Declared and valid, and a confident proposal differs.
    Conflict,
    /// Nothing declared and no confident proposal.
    Unclassified,
    /// Declared, but not a list of known effects: an error, never fixed silently.
    Invalid,
    /// Not a tool (the nested `refreshAuthentication.action`): reported, never patched.
    Skipped,
}

impl Status {
    pub const ALL: [Status; 6] = [
        Status::Added,
        Status::Agrees,
        Status::Conflict,
        Status::Unclassified,
        Status::Invalid,
        Status::Skipped,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Status::Added => "added",
            Status::Agrees => "agrees",
            Status::Conflict => "conflict",
            Status::Unclassified => "unclassified",
            Status::Invalid => "invalid",
            Status::Skipped => "skipped",
        }
    }
}

/// The proposal counts only at or above `min`; below it, it is listed for a human instead.
pub fn status(declared: &Declared, nested: bool, inference: &Inference, min: Confidence) -> Status {
    let confident = !inference.effects.is_empty() && inference.confidence.is_some_and(|c| c >= min);
    match declared {
        _ if nested => Status::Skipped,
        Declared::Invalid(_) => Status::Invalid,
        Declared::Valid(d) if confident && *d != inference.effects => Status::Conflict,
        Declared::Valid(_) => Status::Agrees,
        Declared::None if confident => Status::Added,
        Declared::None => Status::Unclassified,
    }
}

/// Replace `start..end` with `text`. Edits of one file never overlap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// The terminator of the line that ends right before `at`, or the file's first one.
fn eol_before(text: &str, at: usize) -> &'static str {
    let b = text.as_bytes();
    if at > 0 && b[at - 1] == b'\n' {
        return if at > 1 && b[at - 2] == b'\r' {
            "\r\n"
        } else {
            "\n"
        };
    }
    match b.iter().position(|&c| c == b'\n') {
        Some(p) if p > 0 && b[p - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

fn flow_list(effects: Effects) -> String {
    format!("[{}]", effects.joined(", "))
}

/// The edit that adds `effects` to an action that declares none.
pub fn plan_insert(text: &str, site: &ActionSite, seq_offset: usize, effects: Effects) -> Edit {
    match site.insert {
        Insert::Flow { at } => Edit {
            start: at,
            end: at,
            text: format!(", effects: {}", flow_list(effects)),
        },
        Insert::Block { at, indent } => {
            let eol = eol_before(text, at);
            let key = " ".repeat(indent);
            let item = " ".repeat(indent + seq_offset);
            let mut lines = vec![format!("{key}effects:")];
            lines.extend(effects.iter().map(|e| format!("{item}- {e}")));
            // A file without a final newline keeps that state: the new lines go after a
            // terminator added to the last line, and the last new line gets none.
            let new = if at == text.len() && !text.ends_with('\n') {
                format!("{eol}{}", lines.join(eol))
            } else {
                lines.iter().map(|l| format!("{l}{eol}")).collect()
            };
            Edit {
                start: at,
                end: at,
                text: new,
            }
        }
    }
}

/// The edit that rewrites a conflicting `effects` value in the style it was written, or
/// `None` when it cannot be rewritten without touching other actions (a merged value).
pub fn plan_rewrite(text: &str, site: &EffectsSite, effects: Effects) -> Option<Edit> {
    if !site.own {
        return None;
    }
    let new = if site.flow {
        flow_list(effects)
    } else {
        let line_start = text.as_bytes()[..site.start]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let eol = eol_before(text, line_start);
        let sep = format!("{eol}{}", " ".repeat(site.item_indent));
        effects
            .iter()
            .map(|e| format!("- {e}"))
            .collect::<Vec<_>>()
            .join(&sep)
    };
    Some(Edit {
        start: site.start,
        end: site.end,
        text: new,
    })
}

/// Applies sorted, non-overlapping edits.
pub fn apply(text: &str, edits: &[Edit]) -> String {
    let mut out =
        String::with_capacity(text.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
    let mut pos = 0;
    for e in edits {
        out.push_str(&text[pos..e.start]);
        out.push_str(&e.text);
        pos = e.end;
    }
    out.push_str(&text[pos..]);
    out
}

/// Quotes a path the way git does in patch headers: C-style, in double quotes, when it holds
/// a control character, a quote, a backslash or a non-ASCII byte.
pub fn git_quote(path: &str) -> String {
    let needs = path
        .bytes()
        .any(|b| b < 0x20 || b == b'"' || b == b'\\' || b >= 0x7f);
    if !needs {
        return path.to_owned();
    }
    let mut out = String::from("\"");
    for b in path.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x0b => out.push_str("\\v"),
            0x0c => out.push_str("\\f"),
            b if !(0x20..0x7f).contains(&b) => {
                let _ = write!(out, "\\{b:03o}");
            }
            b => out.push(b as char),
        }
    }
    out.push('"');
    out
}

fn header_path(prefix: &str, path: &str) -> String {
    git_quote(&format!("{prefix}{path}"))
}

/// Start offsets of every line.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    // `match_indices` with a char uses the standard library's memchr: the scan runs at
    // memory speed, which matters since every changed file is scanned once.
    starts.extend(
        text.match_indices('\n')
            .map(|(i, _)| i + 1)
            .filter(|&i| i < text.len()),
    );
    starts
}

/// The lines of `text` (terminators kept), by index into `starts`.
struct Lines<'a> {
    text: &'a str,
    starts: &'a [usize],
}

impl<'a> Lines<'a> {
    fn len(&self) -> usize {
        if self.text.is_empty() {
            0
        } else {
            self.starts.len()
        }
    }

    fn get(&self, i: usize) -> &'a str {
        let end = self.starts.get(i + 1).copied().unwrap_or(self.text.len());
        &self.text[self.starts[i]..end]
    }
}

/// Splits text into lines that keep their terminators.
fn split_lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// One changed region: old lines `old_start..old_end` become `new`.
struct Change {
    old_start: usize,
    old_end: usize,
    new: String,
}

fn changes(text: &str, starts: &[usize], edits: &[Edit]) -> Vec<Change> {
    let line_of = |byte: usize| starts.partition_point(|&s| s <= byte).saturating_sub(1);
    let line_end = |line: usize| starts.get(line + 1).copied().unwrap_or(text.len());
    let mut out: Vec<Change> = Vec::new();
    let mut i = 0;
    while i < edits.len() {
        let first = &edits[i];
        let at_end = first.start == text.len() && (text.is_empty() || text.ends_with('\n'));
        let pure_insert =
            first.start == first.end && (at_end || starts.binary_search(&first.start).is_ok());
        if pure_insert {
            let line = if at_end {
                // Every line of a file that ends with a newline: one per start.
                if text.is_empty() { 0 } else { starts.len() }
            } else {
                line_of(first.start)
            };
            out.push(Change {
                old_start: line,
                old_end: line,
                new: first.text.clone(),
            });
            i += 1;
            continue;
        }
        // Whole lines around the edit, plus any later edit that touches them.
        let old_start = line_of(first.start);
        let mut old_end =
            line_of(first.end.max(first.start + 1).min(text.len().max(1)) - 1).max(old_start) + 1;
        let mut j = i + 1;
        while j < edits.len() && edits[j].start < line_end(old_end - 1) {
            old_end = old_end.max(line_of(edits[j].end.max(edits[j].start + 1) - 1) + 1);
            j += 1;
        }
        let (from, to) = (starts[old_start], line_end(old_end - 1));
        let local: Vec<Edit> = edits[i..j]
            .iter()
            .map(|e| Edit {
                start: e.start - from,
                end: e.end - from,
                text: e.text.clone(),
            })
            .collect();
        out.push(Change {
            old_start,
            old_end,
            new: apply(&text[from..to], &local),
        });
        i = j;
    }
    out
}

fn push_line(out: &mut String, sign: char, line: &str) {
    out.push(sign);
    out.push_str(line);
    if !line.ends_with('\n') {
        out.push_str("\n\\ No newline at end of file\n");
    }
}

fn range(start: usize, count: usize) -> String {
    // Unified diff numbers an empty range by the line before it.
    let first = if count == 0 { start } else { start + 1 };
    if count == 1 {
        format!("{first}")
    } else {
        format!("{first},{count}")
    }
}

/// Appends the unified diff of `edits` on `text` to `out`, with `diff --git` headers for
/// `path` and three lines of context. Nothing is appended when there are no edits.
pub fn render_patch(path: &str, text: &str, edits: &[Edit], out: &mut String) {
    const CONTEXT: usize = 3;
    if edits.is_empty() {
        return;
    }
    let starts = line_starts(text);
    let old_lines = Lines {
        text,
        starts: &starts,
    };
    let changes = changes(text, &starts, edits);
    let (a, b) = (header_path("a/", path), header_path("b/", path));
    // git ends a ---/+++ path holding a space with a tab, so the path has a clear end.
    let tab = if path.contains(' ') && !a.starts_with('"') {
        "\t"
    } else {
        ""
    };
    let _ = write!(out, "diff --git {a} {b}\n--- {a}{tab}\n+++ {b}{tab}\n");
    let mut delta: isize = 0;
    let mut k = 0;
    while k < changes.len() {
        let mut last = k;
        while last + 1 < changes.len()
            && changes[last + 1].old_start - changes[last].old_end <= 2 * CONTEXT
        {
            last += 1;
        }
        let h_start = changes[k].old_start.saturating_sub(CONTEXT);
        let h_end = (changes[last].old_end + CONTEXT).min(old_lines.len());
        let mut body = String::new();
        let mut new_count = 0;
        let mut pos = h_start;
        let mut hunk_delta = 0isize;
        for c in &changes[k..=last] {
            for line in (pos..c.old_start).map(|i| old_lines.get(i)) {
                push_line(&mut body, ' ', line);
                new_count += 1;
            }
            for line in (c.old_start..c.old_end).map(|i| old_lines.get(i)) {
                push_line(&mut body, '-', line);
            }
            let added = split_lines(&c.new);
            for line in &added {
                push_line(&mut body, '+', line);
            }
            new_count += added.len();
            hunk_delta += added.len() as isize - (c.old_end - c.old_start) as isize;
            pos = c.old_end;
        }
        for line in (pos..h_end).map(|i| old_lines.get(i)) {
            push_line(&mut body, ' ', line);
            new_count += 1;
        }
        let new_start = (h_start as isize + delta) as usize;
        let _ = writeln!(
            out,
            "@@ -{} +{} @@",
            range(h_start, h_end - h_start),
            range(new_start, new_count)
        );
        out.push_str(&body);
        delta += hunk_delta;
        k = last + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn similar_patch(path: &str, old: &str, new: &str) -> String {
        let diff = similar::TextDiff::from_lines(old, new);
        let mut u = diff.unified_diff();
        u.context_radius(3)
            .header(&format!("a/{path}"), &format!("b/{path}"));
        format!("diff --git a/{path} b/{path}\n{u}")
    }

    fn ours(path: &str, old: &str, edits: &[Edit]) -> String {
        let mut out = String::new();
        render_patch(path, old, edits, &mut out);
        out
    }

    fn ins(at: usize, text: &str) -> Edit {
        Edit {
            start: at,
            end: at,
            text: text.into(),
        }
    }

    #[test]
    fn hunks_match_similar() {
        let old: String = (1..=40).map(|i| format!("line {i}\n")).collect();
        let at = |line: usize| {
            old.match_indices('\n')
                .nth(line - 1)
                .map(|(i, _)| i + 1)
                .unwrap()
        };
        let cases: Vec<Vec<Edit>> = vec![
            vec![ins(0, "top\n")],
            vec![ins(at(5), "a\nb\n")],
            vec![ins(at(5), "a\n"), ins(at(9), "b\n")],
            vec![ins(at(5), "a\n"), ins(at(20), "b\n")],
            vec![ins(at(39), "end\n")],
            vec![ins(old.len(), "tail\n")],
            vec![Edit {
                start: at(3) + 2,
                end: at(3) + 4,
                text: "XY".into(),
            }],
            vec![ins(at(2) + 3, ", z"), ins(at(3), "q\n")],
        ];
        for edits in cases {
            let new = apply(&old, &edits);
            assert_eq!(
                ours("f.yaml", &old, &edits),
                similar_patch("f.yaml", &old, &new),
                "{edits:?}"
            );
        }
    }

    #[test]
    fn no_final_newline_and_crlf_match_similar() {
        let old = "- actionId: a\r\n  label: A\r\n- actionId: b\r\n  label: B";
        let edits = vec![ins(old.len(), "\r\n  effects:\r\n  - read")];
        let new = apply(old, &edits);
        assert!(new.starts_with(old));
        assert_eq!(
            ours("f.yaml", old, &edits),
            similar_patch("f.yaml", old, &new)
        );
    }

    #[test]
    fn quoting_follows_git() {
        assert_eq!(git_quote("a/plain name.yaml"), "a/plain name.yaml");
        assert_eq!(git_quote("a/naïve.yaml"), "\"a/na\\303\\257ve.yaml\"");
        assert_eq!(git_quote("a/q\"t\n.yaml"), "\"a/q\\\"t\\n.yaml\"");
    }

    #[test]
    fn statuses() {
        use crate::effects::Effect;
        let read = Effects::single(Effect::Read);
        let inf = Inference {
            effects: read,
            confidence: Some(Confidence::High),
            ..Inference::default()
        };
        let low = Inference {
            confidence: Some(Confidence::Low),
            ..inf.clone()
        };
        let none = Inference::default();
        let m = Confidence::Medium;
        assert_eq!(status(&Declared::None, false, &inf, m), Status::Added);
        assert_eq!(
            status(&Declared::None, false, &low, m),
            Status::Unclassified
        );
        assert_eq!(
            status(&Declared::None, false, &none, m),
            Status::Unclassified
        );
        assert_eq!(
            status(&Declared::Valid(read), false, &inf, m),
            Status::Agrees
        );
        assert_eq!(
            status(
                &Declared::Valid(Effects::single(Effect::Write)),
                false,
                &inf,
                m
            ),
            Status::Conflict
        );
        assert_eq!(
            status(&Declared::Invalid("x".into()), false, &inf, m),
            Status::Invalid
        );
        assert_eq!(status(&Declared::None, true, &inf, m), Status::Skipped);
    }
}
