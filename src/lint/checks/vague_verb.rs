//! `vague-verb`: a verb like manage, handle, process or sync, where it acts as the verb.

use crate::effects::{Effect, Effects};
use crate::lint::context::Reading;
use crate::lint::contract::{Breach, Contract, LintCheck, WORDS};
use crate::lint::hint::{effect_verbs, replaced, sentence, verbs_like};
use crate::lint::words::{Phrase, phrase_at};

pub const CHECK: LintCheck = LintCheck {
    code: "vague-verb",
    required: &[WORDS],
    optional: &[],
    needs_effects: false,
    run: Some(vague_verb),
};

/// Vague verbs count only where they act as the verb: a noun ("the process") is fine.
fn vague_verb(ctx: &Reading, contract: &Contract) -> Option<Breach> {
    let (text, toks, verb) = ctx.verb_source();
    let to = Phrase::new("to");
    let i = (0..toks.len()).find(|&i| {
        (i == verb || (i > 0 && phrase_at(toks, &to, i - 1)))
            && contract.words.iter().any(|p| phrase_at(toks, p, i))
    })?;
    let (start, end) = (toks[i].start, toks[i].end);
    let word = &text[start..end];
    // "Runs" would be as vague as the verb it replaces: without a plain change among the
    // effects, offer the usual ones to choose from.
    let plain = Effects::from_iter(ctx.effects.iter().filter(|e| *e != Effect::Execute));
    let verbs = verbs_like(word, &effect_verbs(plain));
    Some(Breach {
        message: format!("\"{word}\" hides which change the call makes"),
        hint: format!(
            "say what changes, e.g. \"{}\"",
            sentence(&replaced(text, start, end, &verbs))
        ),
    })
}
