//! Text as words, one way for every stage: identifiers and prose split at anything not a
//! letter or digit and at camelCase humps (`dryRun`, `dry_run`, "dry run" and `DRY-RUN` give
//! the same words), lower-cased; prose words as written; and a word's inflections undone.
//!
//! Inflections are undone two ways because two questions are asked. `classify` looks a word
//! up in lists of base forms (`words.yaml`), so it tries each form the word may be
//! ([`each_stem`]: `queries` -> `query`, `deleted` -> `delete`) until one is listed. `lint`
//! compares two texts, neither a list, so it maps both sides to one crude [`stem`]
//! (`deletes`, `deleted`, `deleting` -> `delet`). Either doing the other's job would change
//! what it finds, so both stay, side by side.

/// Each word of `s` as a byte span: a run of letters and digits, broken before an upper-case
/// letter that follows a lower-case letter or a digit (`batchGet`, `v2Users`), not inside a
/// run of capitals (`HTTPServer` is one word).
pub fn spans(s: &str) -> Spans<'_> {
    Spans { s, pos: 0 }
}

pub struct Spans<'a> {
    s: &'a str,
    pos: usize,
}

impl Spans<'_> {
    /// The character at `i` (not ASCII): whether it is a letter or digit, upper-case,
    /// lower-case or a digit, and its length.
    #[cold]
    fn wide_at(&self, i: usize) -> (bool, bool, bool, usize) {
        let c = self.s[i..].chars().next().unwrap_or_default();
        let lower = c.is_lowercase() || c.is_ascii_digit();
        (c.is_alphanumeric(), c.is_uppercase(), lower, c.len_utf8())
    }
}

impl Iterator for Spans<'_> {
    type Item = (usize, usize);

    // Bytes rather than `char_indices`: names and descriptions are nearly all ASCII, and
    // every action's name, label, path and prose are split here.
    #[inline]
    fn next(&mut self) -> Option<(usize, usize)> {
        let bytes = self.s.as_bytes();
        let (mut start, mut prev_lower, mut i) = (None, false, self.pos);
        while let Some(&b) = bytes.get(i) {
            let (alnum, upper, lower, width) = if b.is_ascii() {
                let lower = b.is_ascii_lowercase() || b.is_ascii_digit();
                (b.is_ascii_alphanumeric(), b.is_ascii_uppercase(), lower, 1)
            } else {
                self.wide_at(i)
            };
            if alnum {
                match start {
                    Some(from) if prev_lower && upper => {
                        self.pos = i;
                        return Some((from, i));
                    }
                    None => start = Some(i),
                    Some(_) => {}
                }
                prev_lower = lower;
            } else if let Some(from) = start {
                self.pos = i + width;
                return Some((from, i));
            }
            i += width;
        }
        self.pos = bytes.len();
        start.map(|from| (from, bytes.len()))
    }
}

/// Splits an identifier or phrase into lower-case words: `unified_list_employees`,
/// `candidate.addTag`, `Get_Workers_Request`, `batchGet`, `kebab-case` all work.
pub fn tokens(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_token(s, &mut String::new(), |t| out.push(t.to_owned()));
    out
}

/// The words of [`tokens`], each handed to `f` from the reused buffer `cur`: inference
/// only looks words up, so it need not allocate one per word.
pub fn each_token(s: &str, cur: &mut String, mut f: impl FnMut(&str)) {
    for (from, to) in spans(s) {
        f(lower(&s[from..to], cur));
    }
    cur.clear();
}

/// `word` lower-cased as `str::to_lowercase` would; copied into `buf` only when that
/// changes it.
pub fn lower<'a>(word: &'a str, buf: &'a mut String) -> &'a str {
    if word.is_ascii() {
        return ascii_lower(word, buf);
    }
    buf.clear();
    buf.push_str(&word.to_lowercase());
    buf
}

/// `word` as `to_ascii_lowercase` would make it; copied into `buf` only when that changes
/// it.
pub fn ascii_lower<'a>(word: &'a str, buf: &'a mut String) -> &'a str {
    if !word.bytes().any(|b| b.is_ascii_uppercase()) {
        return word;
    }
    buf.clear();
    buf.push_str(word);
    buf.make_ascii_lowercase();
    buf
}

/// The words of prose as written, without allocating.
pub fn raw_words(s: &str) -> RawWords<'_> {
    RawWords { s, pos: 0 }
}

/// What `s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty())` yields, with
/// ASCII decided per byte: input descriptions are long and nearly all ASCII.
pub struct RawWords<'a> {
    s: &'a str,
    pos: usize,
}

impl RawWords<'_> {
    /// Whether the character at `i` (not ASCII) is a letter or digit, and its length.
    #[cold]
    fn wide_at(&self, i: usize) -> (bool, usize) {
        let c = self.s[i..].chars().next().unwrap_or_default();
        (c.is_alphanumeric(), c.len_utf8())
    }

    /// The end of the run starting at `i` of characters that are (`alnum`) or are not
    /// letters or digits.
    #[inline]
    fn run(&self, mut i: usize, alnum: bool) -> usize {
        let bytes = self.s.as_bytes();
        while let Some(&b) = bytes.get(i) {
            if b.is_ascii() {
                if b.is_ascii_alphanumeric() != alnum {
                    break;
                }
                i += 1;
            } else {
                let (a, w) = self.wide_at(i);
                if a != alnum {
                    break;
                }
                i += w;
            }
        }
        i
    }
}

impl<'a> Iterator for RawWords<'a> {
    type Item = &'a str;

    #[inline]
    fn next(&mut self) -> Option<&'a str> {
        let start = self.run(self.pos, false);
        self.pos = self.run(start, true);
        (start < self.pos).then(|| &self.s[start..self.pos])
    }
}

/// The forms a word may take in the lexicon: `lists` -> `list`, `queries` -> `query`,
/// `deleted` -> `delete`, `syncing` -> `sync`.
pub fn stems(word: &str) -> impl Iterator<Item = String> + '_ {
    let mut forms = Vec::new();
    each_stem(word, &mut String::new(), |f| {
        forms.push(f.to_owned());
        false
    });
    forms.into_iter()
}

/// Hands each form of [`stems`] to `f`, in order, until `f` returns true; builds forms in
/// `buf` rather than allocating five strings per word.
pub fn each_stem(word: &str, buf: &mut String, mut f: impl FnMut(&str) -> bool) -> bool {
    let mut form = |stem: &str, tail: &str| {
        if stem.len() + tail.len() < 2 {
            return false;
        }
        if tail.is_empty() {
            return f(stem);
        }
        buf.clear();
        buf.push_str(stem);
        buf.push_str(tail);
        f(buf)
    };
    if form(word, "") {
        return true;
    }
    if let Some(w) = word.strip_suffix("ies")
        && form(w, "y")
    {
        return true;
    }
    if let Some(w) = word.strip_suffix("es")
        && form(w, "")
    {
        return true;
    }
    if let Some(w) = word.strip_suffix('s')
        && form(w, "")
    {
        return true;
    }
    if let Some(w) = word.strip_suffix("ed")
        && (form(w, "") || form(w, "e"))
    {
        return true;
    }
    if let Some(w) = word.strip_suffix("ing")
        && (form(w, "") || form(w, "e"))
    {
        return true;
    }
    false
}

/// A crude suffix stripper: enough that "deletes", "deleted", "deleting" and "delete" meet.
/// Both sides of every comparison are stemmed the same way, so exactness does not matter.
pub fn stem(word: &str) -> String {
    let w = word;
    let mut s: String = if let Some(b) = w.strip_suffix("ies").filter(|b| b.len() > 1) {
        format!("{b}y")
    } else if let Some(b) = w.strip_suffix("ied").filter(|b| b.len() > 1) {
        format!("{b}y")
    } else if let Some(b) = w.strip_suffix("ing").filter(|b| b.len() > 2) {
        undouble(b)
    } else if let Some(b) = w.strip_suffix("ed").filter(|b| b.len() > 2) {
        undouble(b)
    } else if let Some(b) = w
        .strip_suffix("es")
        .filter(|b| b.len() > 2 && b.ends_with(['s', 'x', 'z', 'h']))
    {
        b.to_owned()
    } else if let Some(b) = w
        .strip_suffix('s')
        .filter(|b| b.len() > 2 && !b.ends_with(['s', 'u', 'i']))
    {
        b.to_owned()
    } else {
        w.to_owned()
    };
    if s.len() > 3 && s.ends_with('e') {
        s.pop();
    }
    s
}

/// "stopp" -> "stop", "sett" -> "set"; but "install", "process" keep their doubles.
fn undouble(b: &str) -> String {
    let bytes = b.as_bytes();
    let n = bytes.len();
    if n >= 4 && bytes[n - 1] == bytes[n - 2] && !matches!(bytes[n - 1], b'l' | b's' | b'z') {
        b[..n - 1].to_owned()
    } else {
        b.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn tokens_split_every_style() {
        assert_eq!(
            tokens("unified_list_employees"),
            ["unified", "list", "employees"]
        );
        assert_eq!(tokens("candidate.addTag"), ["candidate", "add", "tag"]);
        assert_eq!(tokens("Get_Workers_Request"), ["get", "workers", "request"]);
        assert_eq!(
            tokens("atlas-list-db-users"),
            ["atlas", "list", "db", "users"]
        );
        assert_eq!(tokens("HTTPServer"), ["httpserver"]);
    }

    #[test]
    fn spans_point_into_the_text() {
        let s = "Delete dryRun, ÉTÉ_été";
        let words: Vec<&str> = spans(s).map(|(a, b)| &s[a..b]).collect();
        assert_eq!(words, ["Delete", "dry", "Run", "ÉTÉ", "été"]);
    }

    #[test]
    fn stems_cover_inflections() {
        let forms: Vec<String> = stems("queries").collect();
        assert!(forms.contains(&"query".to_owned()));
        let forms: Vec<String> = stems("deleted").collect();
        assert!(forms.contains(&"delete".to_owned()));
    }

    #[test]
    fn inflections_meet() {
        for group in [
            ["delete", "deletes", "deleted", "deleting"],
            ["manage", "manages", "managed", "managing"],
            ["stop", "stops", "stopped", "stopping"],
            ["process", "processes", "processed", "processing"],
            ["modify", "modifies", "modified", "modifying"],
        ] {
            let stems: BTreeSet<String> = group.iter().map(|w| stem(w)).collect();
            assert_eq!(stems.len(), 1, "{group:?} -> {stems:?}");
        }
        assert_ne!(stem("management"), stem("manage"));
    }
}
