//! The words of a description as the checks read them: each with its span (so a finding
//! can quote it as written), its stem, and the phrases of the rules file matched on stems.

use crate::text::words;

/// A word of a text: its byte span, lower-case form and stem.
#[derive(Debug, Clone)]
pub struct Token {
    pub start: usize,
    pub end: usize,
    pub word: String,
    pub stem: String,
    /// Ends in a plural-looking `s` ("contacts", not "access").
    pub plural: bool,
}

/// The words of a text with their spans ([`words::spans`]), so a finding can quote them.
pub fn tokens(text: &str) -> Vec<Token> {
    words::spans(text)
        .map(|(start, end)| {
            let word = text[start..end].to_lowercase();
            let plural = word.len() > 3 && word.ends_with('s') && !word.ends_with("ss");
            Token {
                start,
                end,
                stem: words::stem(&word),
                word,
                plural,
            }
        })
        .collect()
}

/// A phrase of the rules file, as the stems it matches.
#[derive(Debug, Clone)]
pub struct Phrase {
    pub stems: Vec<String>,
}

impl Phrase {
    pub fn new(text: &str) -> Phrase {
        Phrase {
            stems: tokens(text).into_iter().map(|t| t.stem).collect(),
        }
    }

    /// A phrase of one word with this stem.
    pub fn is_word(&self, stem: &str) -> bool {
        matches!(self.stems.as_slice(), [s] if s == stem)
    }
}

pub fn phrases(list: &[String]) -> Vec<Phrase> {
    list.iter()
        .map(|w| Phrase::new(w))
        .filter(|p| !p.stems.is_empty())
        .collect()
}

pub fn phrase_at(toks: &[Token], p: &Phrase, i: usize) -> bool {
    i + p.stems.len() <= toks.len() && p.stems.iter().zip(&toks[i..]).all(|(s, t)| *s == t.stem)
}

/// The phrase ends right before token `i`.
pub fn ends_at(toks: &[Token], p: &Phrase, i: usize) -> bool {
    i >= p.stems.len() && phrase_at(toks, p, i - p.stems.len())
}

/// The earliest match of any phrase, as a token range.
pub fn find_any(toks: &[Token], list: &[Phrase]) -> Option<(usize, usize)> {
    (0..toks.len()).find_map(|i| {
        list.iter()
            .find(|p| phrase_at(toks, p, i))
            .map(|p| (i, i + p.stems.len()))
    })
}

/// The text of the tokens `start..end`, as written.
pub fn span<'t>(text: &'t str, toks: &[Token], start: usize, end: usize) -> &'t str {
    &text[toks[start].start..toks[end - 1].end]
}

/// Index of the first word after a lead-in ("This tool will ..."), longest lead-in first.
pub fn skip_lead_in(toks: &[Token], lead_ins: &[Phrase]) -> usize {
    lead_ins
        .iter()
        .filter(|p| phrase_at(toks, p, 0))
        .map(|p| p.stems.len())
        .max()
        .unwrap_or(0)
}

/// `dry_run`, `dryRun` and `dry-run` are one name.
pub fn normalize_name(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_camel_and_snake() {
        let words: Vec<String> = tokens("dryRun dry_run read-only")
            .into_iter()
            .map(|t| t.word)
            .collect();
        assert_eq!(words, ["dry", "run", "dry", "run", "read", "only"]);
    }
}
