//! The one error type of the library: every error says where it happened.

use std::fmt;
use std::path::PathBuf;

/// An error with enough context to act on it: the file and, where known, line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub path: Option<PathBuf>,
    /// 1-based line and column, when the error has a position.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            path: None,
            line: None,
            column: None,
            message: message.into(),
        }
    }

    pub fn at(mut self, line: usize, column: usize) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }

    pub fn in_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{}", path.display())?;
            if let (Some(line), Some(col)) = (self.line, self.column) {
                write!(f, ":{line}:{col}")?;
            }
            write!(f, ": ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The known word a mistyped one was most likely meant to be: the closest by edit distance
/// (case ignored), if it is close enough that suggesting it helps rather than puzzles.
pub fn closest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let word = word.to_lowercase();
    known
        .into_iter()
        .map(|k| (distance(&word, &k.to_lowercase()), k))
        .filter(|(d, k)| *d <= (word.chars().count().max(k.chars().count()) / 3).max(2))
        .min_by_key(|(d, k)| (*d, *k))
        .map(|(_, k)| k)
}

/// ` (did you mean `x`?)` when a known word is close, else nothing.
pub fn did_you_mean<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, known).map_or_else(String::new, |k| format!(" (did you mean `{k}`?)"))
}

/// Levenshtein distance over characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_only_close_words() {
        let hints = ["readOnlyHint", "destructiveHint", "idempotentHint"];
        assert_eq!(closest("readOnlyHnt", hints), Some("readOnlyHint"));
        assert_eq!(closest("readonlyhint", hints), Some("readOnlyHint"));
        assert_eq!(closest("readOnly", hints), Some("readOnlyHint"));
        assert_eq!(closest("destructive", hints), Some("destructiveHint"));
        assert_eq!(closest("color", hints), None);
        assert_eq!(
            closest("vauge-verb", ["vague-verb", "euphemism"]),
            Some("vague-verb")
        );
        assert_eq!(did_you_mean("x", ["vague-verb"]), "");
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
