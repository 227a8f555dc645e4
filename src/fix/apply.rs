//! Edits applied to a text and taken off again, so the original is had back from the edited
//! text instead of being held beside it.

use crate::model::edit::Edit;

/// Applies sorted, non-overlapping edits in place when they only insert (the text's own
/// buffer grows into the edited text, so one large file is not held twice), else into a
/// new string.
pub fn apply_owned(text: String, edits: &[Edit]) -> String {
    if edits.iter().any(|e| e.start != e.end) {
        return apply(&text, edits);
    }
    let old_len = text.len();
    let mut bytes = text.into_bytes();
    let mut shift: usize = edits.iter().map(|e| e.text.len()).sum();
    // Exactly: growing by doubling would make a large file's buffer twice its size.
    bytes.reserve_exact(shift);
    bytes.resize(old_len + shift, 0);
    // From the last edit back, each stretch of the original moves right by the bytes
    // inserted before it, then the insertion goes in front of it.
    let mut end = old_len;
    for e in edits.iter().rev() {
        bytes.copy_within(e.start..end, e.start + shift);
        shift -= e.text.len();
        bytes[e.start + shift..e.start + shift + e.text.len()].copy_from_slice(e.text.as_bytes());
        end = e.start;
    }
    // Only whole UTF-8 strings were moved and inserted at character boundaries.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The original of a text `edits` were applied to, in the edited text's own buffer when
/// the edits only inserted.
pub fn unapply_owned(edited: String, edits: &[Edit]) -> String {
    if edits.iter().any(|e| e.start != e.end) {
        return unapply(&edited, edits);
    }
    let mut bytes = edited.into_bytes();
    // From the first edit on, each stretch after an insertion moves left over it.
    let (mut to, mut from) = (0, 0);
    let mut shift = 0;
    for e in edits {
        let at = e.start + shift;
        bytes.copy_within(from..at, to);
        to += at - from;
        from = at + e.text.len();
        shift += e.text.len();
    }
    let len = bytes.len();
    bytes.copy_within(from..len, to);
    bytes.truncate(to + len - from);
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The original of a text `edits` were applied to.
pub fn unapply(edited: &str, edits: &[Edit]) -> String {
    unapplied(edited, edits).concat()
}

/// [`unapply`] as pieces of the edited text and of the replaced text, for comparing
/// without building the original. `edits` come sorted by start.
pub fn unapplied<'a>(edited: &'a str, edits: impl IntoIterator<Item = &'a Edit>) -> Vec<&'a str> {
    let mut pieces = Vec::new();
    let (mut pos, mut shift) = (0, 0isize);
    for e in edits {
        let at = (e.start as isize + shift) as usize;
        pieces.push(&edited[pos..at]);
        pieces.push(e.old.as_str());
        pos = at + e.text.len();
        shift += e.text.len() as isize - (e.end - e.start) as isize;
    }
    pieces.push(&edited[pos..]);
    pieces
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::effects::Effects;

    /// An insertion of `text` at `at`, of no effects (the edits the patch tests render).
    pub(crate) fn ins(at: usize, text: &str) -> Edit {
        replace(at, at, text)
    }

    /// `text` in place of `start..end`.
    pub(crate) fn replace(start: usize, end: usize, text: &str) -> Edit {
        Edit {
            start,
            end,
            text: text.into(),
            effects: Effects::EMPTY,
            map: 0,
            old: String::new(),
            removes: 0,
        }
    }

    #[test]
    fn edits_apply_in_place_and_come_off_again() {
        let old = "a\nbé\nc\n".to_owned();
        let mut edits = vec![ins(0, "x\n"), ins(2, "y\n"), ins(old.len(), "z")];
        let new = apply_owned(old.clone(), &edits);
        assert_eq!(new, apply(&old, &edits));
        assert_eq!(new, "x\na\ny\nbé\nc\nz");
        assert_eq!(unapply_owned(new, &edits), old);
        let mut rewrite = replace(2, 5, "rewritten");
        rewrite.old = old[2..5].to_owned();
        edits.insert(2, rewrite);
        let new = apply_owned(old.clone(), &edits);
        assert_eq!(new, apply(&old, &edits));
        assert_eq!(unapply(&new, &edits), old);
        assert_eq!(unapply_owned(new, &edits), old);
    }
}
