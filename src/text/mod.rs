//! Words the stages share, below all of them: how a count is written, the ignore-comment
//! syntax that `check`, `lint` and the parser read alike, and text from a catalog made safe
//! to print or write (`safe`).

pub mod lines;
pub mod safe;
pub mod sentence;
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

/// Opens the code of a file's silence that is not written `ignore[code, ...]` (see
/// [`malformed_silences`]), the rest being what is wrong with it: no code can start so.
pub const MALFORMED_SILENCE: &str = "\u{1}malformed:";

/// What is wrong with each `catalog-effects: ignore...` of a comment that silences nothing
/// because it is not written `ignore[code, ...]`: an `ignore[` with no `]`, an `ignore[]`
/// that names no code, an `ignore` with no `[`. Read as no silence, each was a reviewer's
/// intent dropped without a word while the finding it meant stayed or, worse, went
/// unnoticed as still silenced in review.
pub fn malformed_silences(comment: Option<&str>) -> Vec<String> {
    const MARK: &str = "catalog-effects:";
    const FIX: &str = "it silences nothing; write `# catalog-effects: ignore[code, ...]`";
    let mut out = Vec::new();
    let mut rest = comment.unwrap_or("");
    while let Some(at) = rest.find(MARK) {
        rest = rest[at + MARK.len()..].trim_start();
        if !rest.starts_with("ignore") {
            continue;
        }
        let written = rest.split(MARK).next().unwrap_or(rest).trim_end();
        let Some(list) = rest["ignore".len()..].trim_start().strip_prefix('[') else {
            out.push(format!(
                "`catalog-effects: {written}` has no `[` after `ignore`: {FIX}"
            ));
            continue;
        };
        let Some(end) = list.find(']') else {
            out.push(format!(
                "`catalog-effects: {written}` has no closing `]`: {FIX}"
            ));
            break;
        };
        if list[..end].split(',').all(|c| c.trim().is_empty()) {
            out.push(format!(
                "`catalog-effects: {}` names no code: {FIX}",
                &rest[..rest.len() - list.len() + end + 1]
            ));
        }
    }
    out
}

/// `# catalog-effects: ignore[code, ...]` in the file's leading comment lines (before any
/// YAML), as (line, code): silences for every action of the file. A silence not written so
/// is there too, its code [`MALFORMED_SILENCE`] and what is wrong with it, to be reported.
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
        out.extend(
            malformed_silences(Some(comment))
                .into_iter()
                .map(|why| (i + 1, format!("{MALFORMED_SILENCE}{why}"))),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silences_parse() {
        let s = silences(Some(
            " catalog-effects: ignore[vague-verb, euphemism] other",
        ));
        assert_eq!(
            s.into_iter().collect::<Vec<_>>(),
            ["euphemism", "vague-verb"]
        );
        assert!(silences(Some("catalog-effects: ignore[")).is_empty());
        assert!(silences(None).is_empty());
    }
}
