//! The words of a lint hint: a finding suggests a fix written for the action at hand (its
//! own sentence with the vague verb replaced, its resource, its provider), not a canned
//! example from another action.

use crate::effects::{Effect, Effects};

/// Base-form verbs for what the effects do, in the canonical order; unknown effects offer
/// the usual changes to choose from.
pub fn effect_verbs(effects: Effects) -> Vec<&'static str> {
    let mut verbs = Vec::new();
    for e in effects.iter() {
        match e {
            Effect::Read => verbs.push("return"),
            Effect::Search => verbs.push("find"),
            Effect::Write => verbs.extend(["create", "update"]),
            Effect::Delete => verbs.push("delete"),
            Effect::Execute => verbs.push("run"),
        }
    }
    if verbs.is_empty() {
        verbs = vec!["create", "update", "delete"];
    }
    verbs
}

/// "create" -> "creates", "search" -> "searches", "carry" -> "carries".
pub fn third_person(base: &str) -> String {
    let b = base.as_bytes();
    let consonant_y = base.ends_with('y')
        && b.len() > 1
        && !matches!(b[b.len() - 2], b'a' | b'e' | b'i' | b'o' | b'u');
    if consonant_y {
        format!("{}ies", &base[..base.len() - 1])
    } else if ["s", "x", "z", "ch", "sh", "o"]
        .iter()
        .any(|end| base.ends_with(end))
    {
        format!("{base}es")
    } else {
        format!("{base}s")
    }
}

/// "a", "a or b", "a, b or c".
pub fn join_or(words: &[String]) -> String {
    match words {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// `verbs` in the form of `like`: third person when it is ("Manages"), capitalized when it
/// is, so the rewritten sentence reads as the original did.
pub fn verbs_like(like: &str, verbs: &[&str]) -> String {
    let lower = like.to_lowercase();
    let third = lower.len() > 3 && lower.ends_with('s') && !lower.ends_with("ss");
    let words: Vec<String> = verbs
        .iter()
        .map(|v| {
            if third {
                third_person(v)
            } else {
                (*v).to_owned()
            }
        })
        .collect();
    let joined = join_or(&words);
    if like.chars().next().is_some_and(char::is_uppercase) {
        capitalized(&joined)
    } else {
        joined
    }
}

pub fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// `text` with the bytes `start..end` replaced by `with`.
pub fn replaced(text: &str, start: usize, end: usize, with: &str) -> String {
    format!("{}{with}{}", &text[..start], &text[end..])
}

/// A sentence that ends as sentences do, for quoting an example.
pub fn sentence(s: &str) -> String {
    let s = s.trim();
    if s.ends_with(['.', '!', '?']) {
        s.to_owned()
    } else {
        format!("{s}.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbs_take_the_form_of_the_word_they_replace() {
        assert_eq!(third_person("search"), "searches");
        assert_eq!(third_person("carry"), "carries");
        assert_eq!(third_person("delete"), "deletes");
        assert_eq!(
            verbs_like("Manages", &["create", "update", "delete"]),
            "Creates, updates or deletes"
        );
        assert_eq!(verbs_like("handle", &["return"]), "return");
        assert_eq!(verbs_like("Process", &["run"]), "Run");
        let write = effect_verbs(Effects::single(Effect::Write));
        assert_eq!(write, ["create", "update"]);
        assert_eq!(effect_verbs(Effects::EMPTY).len(), 3);
        assert_eq!(sentence("Lists users"), "Lists users.");
        assert_eq!(
            replaced("Manages users.", 0, 7, "Creates"),
            "Creates users."
        );
    }
}
