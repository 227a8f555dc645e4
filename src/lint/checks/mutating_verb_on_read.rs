//! `mutating-verb-on-read`: a read action described with a verb of change.

use crate::lint::context::Reading;
use crate::lint::contract::{Breach, Contract, LintCheck, WORDS};
use crate::lint::hint::{effect_verbs, replaced, sentence, verbs_like};
use crate::lint::words::phrase_at;

pub const CHECK: LintCheck = LintCheck {
    code: "mutating-verb-on-read",
    required: &[WORDS],
    optional: &[],
    needs_effects: true,
    run: Some(mutating_verb_on_read),
};

fn mutating_verb_on_read(ctx: &Reading, contract: &Contract) -> Option<Breach> {
    if !ctx.effects.is_read_only() {
        return None;
    }
    let (text, toks, verb) = ctx.verb_source();
    let p = contract.words.iter().find(|p| phrase_at(toks, p, verb))?;
    let (start, end) = (toks[verb].start, toks[verb + p.stems.len() - 1].end);
    let word = &text[start..end];
    let effects = ctx.effects.joined(", ");
    let example = replaced(
        text,
        start,
        end,
        &verbs_like(word, &effect_verbs(ctx.effects)),
    );
    Some(Breach {
        message: format!("\"{word}\" is a verb of change, but the effects are {effects}"),
        hint: format!(
            "describe what the call returns, e.g. \"{}\", or correct the effects if it changes state",
            sentence(&example)
        ),
    })
}
