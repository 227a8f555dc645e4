//! `destructive-without-permanence`: a call that removes something and does not say
//! whether that can be undone.

use crate::effects::Effect;
use crate::lint::context::Reading;
use crate::lint::contract::{Breach, Contract, LintCheck, NOT_PRECEDED_BY, REMOVAL, WORDS};
use crate::lint::hint::sentence;
use crate::lint::words::{ends_at, find_any, phrase_at};

pub const CHECK: LintCheck = LintCheck {
    code: "destructive-without-permanence",
    required: &[WORDS, REMOVAL],
    optional: &[NOT_PRECEDED_BY],
    needs_effects: true,
    run: Some(destructive_without_permanence),
};

fn destructive_without_permanence(ctx: &Reading, contract: &Contract) -> Option<Breach> {
    removes_without_words(ctx, contract).then(|| Breach {
        message: format!(
            "\"{}\" does not say whether the deletion can be undone",
            ctx.first
        ),
        hint: format!(
            "say so, e.g. \"{} This cannot be undone.\", or how to restore the {} (trash, recovery window)",
            sentence(ctx.first),
            ctx.resource()
        ),
    })
}

/// A destructive action whose text says something is removed but none of the contract's
/// words: what this check and `destructive-without-confirmation` look for, each with its
/// own words.
pub fn removes_without_words(ctx: &Reading, contract: &Contract) -> bool {
    if !ctx.effects.contains(Effect::Delete) || ctx.description.is_empty() {
        return false;
    }
    // Servers disagree on destructiveHint (some mark every click or update), so the
    // finding needs the text itself to say something is removed.
    let removes = [&ctx.id_tokens, &ctx.label_tokens, &ctx.body_tokens]
        .iter()
        .any(|toks| {
            (0..toks.len()).any(|i| {
                contract.removal.iter().any(|p| phrase_at(toks, p, i))
                    && !contract.not_preceded_by.iter().any(|q| ends_at(toks, q, i))
            })
        });
    removes && find_any(&ctx.body_tokens, &contract.words).is_none()
}
