//! Words the stages share, below all of them: how a count is written, the ignore-comment
//! syntax that `check`, `lint` and the parser read alike, and text from a catalog made safe
//! to print or write (`safe`).

pub mod lines;
pub mod safe;
pub mod words;

use std::collections::BTreeSet;

/// `1 error`, `2 errors`.
pub fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// Codes silenced by `catalog-effects: ignore[a, b]` in a comment: the `actionId` line's
/// (that action), or one of the file's leading comment lines (every action of the file).
/// `check` and `lint` read the same comments, each for its own codes.
pub fn silences(comment: Option<&str>) -> BTreeSet<String> {
    const MARK: &str = "catalog-effects:";
    let mut out = BTreeSet::new();
    let mut rest = comment.unwrap_or("");
    while let Some(at) = rest.find(MARK) {
        rest = rest[at + MARK.len()..].trim_start();
        let Some(list) = rest.strip_prefix("ignore[") else {
            continue;
        };
        let Some(end) = list.find(']') else { break };
        out.extend(
            list[..end]
                .split(',')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(String::from),
        );
        rest = &list[end..];
    }
    out
}

/// `# catalog-effects: ignore[code, ...]` in the file's leading comment lines (before any
/// YAML), as (line, code): silences for every action of the file.
pub fn file_silences(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.trim_start_matches('\u{feff}').lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some(comment) = line.strip_prefix('#') else {
            break;
        };
        out.extend(
            silences(Some(comment))
                .into_iter()
                .map(|code| (i + 1, code)),
        );
    }
    out
}
