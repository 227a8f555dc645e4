//! The patch: a unified diff rendered straight from the edits (no whole-file diffing), that
//! `git apply` and `patch -p1` accept; a test checks it against `similar`'s rendering.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::model::edit::Edit;
use crate::text::lines::{line_end, line_start};
use crate::yaml::tree::newlines;

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

/// Lines in `bytes[from..to]`, where `from` starts a line and `to` ends one (or the text).
fn lines_between(bytes: &[u8], from: usize, to: usize) -> usize {
    newlines(&bytes[from..to]) + usize::from(to > from && bytes[to - 1] != b'\n')
}

/// One changed region: old lines `old_start..old_end`, bytes `from..to`, become `new`.
struct Change<'e> {
    old_start: usize,
    old_end: usize,
    from: usize,
    to: usize,
    /// Borrowed from the edit when it inserts between lines (most do): a copy of every
    /// insertion of one large file would be held while its patch is rendered.
    new: Cow<'e, str>,
    /// The lines [`push_lines`] writes of `new`, counted once: a minified document's one
    /// line is tens of megabytes.
    new_lines: usize,
}

/// The edits grouped into whole-line changes. Line numbers are counted as the text is
/// passed (edits are sorted), never indexed for the whole file.
fn changes<'e>(text: &str, edits: &'e [Edit]) -> Vec<Change<'e>> {
    let bytes = text.as_bytes();
    // Newlines before `counted`, for the next line number.
    let (mut counted, mut line) = (0, 0);
    let mut line_of = |at: usize| {
        line += newlines(&bytes[counted..at]);
        counted = at;
        line
    };
    let mut out: Vec<Change> = Vec::with_capacity(edits.len());
    let mut i = 0;
    while i < edits.len() {
        let first = &edits[i];
        let at_line_start = first.start == 0 || bytes[first.start - 1] == b'\n';
        if first.start == first.end && at_line_start {
            // An insertion between lines (or at the end of a file that ends with one).
            let at = line_of(first.start);
            out.push(Change {
                old_start: at,
                old_end: at,
                from: first.start,
                to: first.start,
                new: Cow::Borrowed(&first.text),
                new_lines: count_lines(&first.text),
            });
            i += 1;
            continue;
        }
        // Whole lines around the edit, plus any later edit that touches them.
        let last_byte = |e: &Edit| e.end.max(e.start + 1).min(text.len().max(1)) - 1;
        let from = line_start(bytes, first.start);
        let mut to = line_end(bytes, last_byte(first));
        let mut j = i + 1;
        // An edit at the very end of a file without a final newline is on its last line
        // too.
        let unterminated_end = |to: usize| to == text.len() && !text.ends_with('\n');
        while j < edits.len() && (edits[j].start < to || unterminated_end(to)) {
            // Only an edit that reaches past `to` can move it: looking for the line end of
            // every edit on a long line made a one-line file quadratic.
            if last_byte(&edits[j]) >= to {
                to = line_end(bytes, last_byte(&edits[j]));
            }
            j += 1;
        }
        let old_start = line_of(from);
        let local: Vec<Edit> = edits[i..j]
            .iter()
            .map(|e| Edit {
                start: e.start - from,
                end: e.end - from,
                ..e.clone()
            })
            .collect();
        let new = super::apply::apply(&text[from..to], &local);
        out.push(Change {
            old_start,
            old_end: old_start + lines_between(bytes, from, to),
            from,
            to,
            new_lines: count_lines(&new),
            new: Cow::Owned(new),
        });
        i = j;
    }
    out
}

/// Appends each line of `text` with its sign.
fn push_lines(out: &mut String, sign: char, text: &str) {
    // Line by line as `split_inclusive` goes, by `line_end`'s vector search: a minified
    // document's one line is tens of megabytes, written twice in its patch.
    let mut from = 0;
    while from < text.len() {
        let to = line_end(text.as_bytes(), from);
        let line = &text[from..to];
        out.push(sign);
        out.push_str(line);
        if !line.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
        from = to;
    }
}

/// The lines [`push_lines`] writes of `text`.
fn count_lines(text: &str) -> usize {
    newlines(text.as_bytes()) + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

fn range(out: &mut String, start: usize, count: usize) {
    // Unified diff numbers an empty range by the line before it.
    let first = if count == 0 { start } else { start + 1 };
    let _ = if count == 1 {
        write!(out, "{first}")
    } else {
        write!(out, "{first},{count}")
    };
}

/// Lines of context around each change, as git writes them.
const CONTEXT: usize = 3;

/// One hunk: changes `first..=last` with their context, bytes `from..to`, of which `before`
/// lines come before the first change.
struct Hunk {
    first: usize,
    last: usize,
    from: usize,
    to: usize,
    before: usize,
}

/// The changes grouped into hunks: changes closer than twice the context share one.
fn hunks(bytes: &[u8], changes: &[Change]) -> Vec<Hunk> {
    let mut hunks = Vec::new();
    let mut k = 0;
    while k < changes.len() {
        let mut last = k;
        while last + 1 < changes.len()
            && changes[last + 1].old_start - changes[last].old_end <= 2 * CONTEXT
        {
            last += 1;
        }
        // Up to CONTEXT whole lines before the first change and after the last.
        let mut h_from = changes[k].from;
        let mut before = 0;
        while before < CONTEXT && h_from > 0 {
            h_from = line_start(bytes, h_from - 1);
            before += 1;
        }
        let mut h_to = changes[last].to;
        let mut after = 0;
        while after < CONTEXT && h_to < bytes.len() {
            h_to = line_end(bytes, h_to);
            after += 1;
        }
        hunks.push(Hunk {
            first: k,
            last,
            from: h_from,
            to: h_to,
            before,
        });
        k = last + 1;
    }
    hunks
}

/// A hunk's changes in runs: changes with no line between them read as one, all their old
/// lines, then all their new ones, as a line diff shows them.
fn runs<'c, 'e>(changes: &'c [Change<'e>], h: &Hunk) -> impl Iterator<Item = &'c [Change<'e>]> {
    changes[h.first..=h.last].chunk_by(|a: &Change, b| a.to == b.from)
}

/// A hunk's old and new lines, for its header: the changes' own lines as counted when they
/// were made, the context's here (a few lines, where the changes' may be a minified
/// document's one line, counted again four times over).
fn hunk_counts(text: &str, changes: &[Change], h: &Hunk) -> (usize, usize) {
    let (mut old_count, mut new_count) = (0, 0);
    let mut pos = h.from;
    for run in runs(changes, h) {
        let same = count_lines(&text[pos..run[0].from]);
        old_count += same + run.iter().map(|c| c.old_end - c.old_start).sum::<usize>();
        new_count += same + run.iter().map(|c| c.new_lines).sum::<usize>();
        pos = run[run.len() - 1].to;
    }
    let same = count_lines(&text[pos..h.to]);
    (old_count + same, new_count + same)
}

/// An upper bound on the bytes of the hunks: on one large file, a patch grown by doubling
/// left its outgrown buffers resident beside it. Each line gains a prefix and
/// may gain a line end; a hunk header holds four numbers and at most two `\ No newline`
/// markers. A text holds at most as many line ends as lines.
fn room(changes: &[Change], hunks: &[Hunk], counts: &[(usize, usize)]) -> usize {
    hunks
        .iter()
        .zip(counts)
        .map(|(h, &(old_count, _))| {
            let added: usize = changes[h.first..=h.last]
                .iter()
                .map(|c| c.new.len() + 2 * (c.new_lines + 1))
                .sum();
            (h.to - h.from) + 2 * (old_count + 1) + added + 160
        })
        .sum()
}

/// Appends a hunk's lines, its header written: context, then each run's old lines and new.
fn push_hunk(out: &mut String, text: &str, changes: &[Change], h: &Hunk) {
    let mut pos = h.from;
    for run in runs(changes, h) {
        let (from, to) = (run[0].from, run[run.len() - 1].to);
        push_lines(out, ' ', &text[pos..from]);
        push_lines(out, '-', &text[from..to]);
        for c in run {
            push_lines(out, '+', &c.new);
        }
        pos = to;
    }
    push_lines(out, ' ', &text[pos..h.to]);
}

/// Appends the unified diff of `edits` on `text` to `out`, with `diff --git` headers for
/// `path` and three lines of context. Nothing is appended when there are no edits.
pub fn render_patch(path: &str, text: &str, edits: &[Edit], out: &mut String) {
    if edits.is_empty() {
        return;
    }
    let changes = changes(text, edits);
    let (a, b) = (header_path("a/", path), header_path("b/", path));
    // git ends a ---/+++ path holding a space with a tab, so the path has a clear end.
    let tab = if path.contains(' ') && !a.starts_with('"') {
        "\t"
    } else {
        ""
    };
    let hunks = hunks(text.as_bytes(), &changes);
    let counts: Vec<(usize, usize)> = hunks
        .iter()
        .map(|h| hunk_counts(text, &changes, h))
        .collect();
    // Room for all of it at once ([`room`]), and for the file header's four paths.
    let room = room(&changes, &hunks, &counts) + 2 * (a.len() + b.len()) + 32;
    let ceiling = out.len() + room;
    out.reserve(room);
    let _ = write!(out, "diff --git {a} {b}\n--- {a}{tab}\n+++ {b}{tab}\n");
    let mut delta: isize = 0;
    // Each header is written with its counts, then the hunk straight after it: a hunk built
    // aside and copied in held a one-line file's line twice more, by doubling.
    for (h, (old_count, new_count)) in hunks.iter().zip(counts) {
        let h_start = changes[h.first].old_start - h.before;
        out.push_str("@@ -");
        range(out, h_start, old_count);
        out.push_str(" +");
        range(out, (h_start as isize + delta) as usize, new_count);
        out.push_str(" @@\n");
        push_hunk(out, text, &changes, h);
        delta += new_count as isize - old_count as isize;
    }
    // Every test that renders a patch (the property tests among them) checks the room.
    debug_assert!(out.len() <= ceiling, "patch outgrew its room");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::apply::apply;
    use crate::fix::apply::tests::{ins, replace};

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
            vec![replace(at(3) + 2, at(3) + 4, "XY")],
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

    /// Random files and edits, every line unique so the oracle's alignment is not ambiguous.
    #[test]
    fn random_edits_match_similar() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for case in 0..600 {
            let eol = if next(3) == 0 { "\r\n" } else { "\n" };
            let lines = next(25);
            let mut old: String = (0..lines)
                .map(|i| format!("line {i} of {case}{eol}"))
                .collect();
            if next(3) == 0 && old.ends_with(eol) {
                old.truncate(old.len() - eol.len());
            }
            let starts: Vec<usize> = std::iter::once(0)
                .chain(old.match_indices('\n').map(|(i, _)| i + 1))
                .filter(|&i| i < old.len())
                .collect();
            let mut edits: Vec<Edit> = Vec::new();
            let mut pos = 0;
            for k in 0..1 + next(5) {
                if starts.is_empty() || pos > *starts.last().unwrap() {
                    break;
                }
                let line = starts
                    .iter()
                    .position(|&s| s >= pos)
                    .unwrap_or(starts.len() - 1);
                let line = line + next(starts.len() - line);
                let at = starts[line];
                let content_end = old[at..].find(['\r', '\n']).map_or(old.len(), |e| at + e);
                let edit = match next(3) {
                    0 => ins(at, &format!("new {k}{eol}")),
                    1 => ins(content_end, &format!(", z{k}")),
                    _ if content_end > at + 2 => {
                        replace(at + 1, content_end - 1, &format!("XY{k}"))
                    }
                    _ => ins(at, &format!("new {k}{eol}")),
                };
                pos = edit.end.max(edit.start) + 1;
                edits.push(edit);
            }
            if next(4) == 0 {
                let tail = if old.is_empty() || old.ends_with('\n') {
                    format!("tail{eol}")
                } else {
                    format!("{eol}tail")
                };
                if edits.last().is_none_or(|e| e.end < old.len()) {
                    edits.push(ins(old.len(), &tail));
                }
            }
            if edits.is_empty() {
                continue;
            }
            let new = apply(&old, &edits);
            assert_eq!(
                ours("f.yaml", &old, &edits),
                similar_patch("f.yaml", &old, &new),
                "case {case}: {old:?} {edits:?}"
            );
        }
    }

    #[test]
    fn quoting_follows_git() {
        assert_eq!(git_quote("a/plain name.yaml"), "a/plain name.yaml");
        assert_eq!(git_quote("a/naïve.yaml"), "\"a/na\\303\\257ve.yaml\"");
        assert_eq!(git_quote("a/q\"t\n.yaml"), "\"a/q\\\"t\\n.yaml\"");
    }
}
