//! `euphemism`: a word (retire, clean up) that hides that data is removed, or one (purge)
//! that hides how much without a scope nearby.

use crate::lint::context::Reading;
use crate::lint::contract::{Breach, Contract, LintCheck, NEEDS_SCOPE, SCOPE, WORDS};
use crate::lint::hint::{replaced, sentence, verbs_like};
use crate::lint::words::{find_any, span};

pub const CHECK: LintCheck = LintCheck {
    code: "euphemism",
    required: &[WORDS],
    optional: &[NEEDS_SCOPE, SCOPE],
    needs_effects: false,
    run: Some(euphemism),
};

fn euphemism(ctx: &Reading, contract: &Contract) -> Option<Breach> {
    if ctx.effects.is_read_only() {
        return None;
    }
    for (in_body, text, toks) in [
        (true, ctx.body.as_str(), &ctx.body_tokens),
        (false, ctx.label, &ctx.label_tokens),
    ] {
        let scoped = find_any(toks, &contract.scope).is_some();
        let plain = find_any(toks, &contract.words);
        let hit = plain.or_else(|| {
            if scoped {
                None
            } else {
                find_any(toks, &contract.needs_scope)
            }
        });
        let Some((s, e)) = hit else { continue };
        let word = span(text, toks, s, e);
        let message = if plain.is_some() {
            format!("\"{word}\" hides that data is removed")
        } else {
            format!("\"{word}\" without a scope hides how much is removed")
        };
        // As the verb of the first sentence, the word can be replaced in place (the body
        // starts with that sentence, so their tokens line up).
        let in_first = in_body && s == ctx.first_verb && toks[e - 1].end <= ctx.first.len();
        let example = if in_first {
            let (start, end) = (toks[s].start, toks[e - 1].end);
            sentence(&replaced(
                ctx.first,
                start,
                end,
                &verbs_like(word, &["delete"]),
            ))
        } else {
            ctx.example()
        };
        return Some(Breach {
            message,
            hint: format!(
                "say what is removed and how much, e.g. \"{example}\", and whether it can be undone"
            ),
        });
    }
    None
}
