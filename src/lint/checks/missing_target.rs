//! `missing-target`: the first sentence of a state-changing call names neither the
//! provider nor the resource.

use crate::lint::context::Reading;
use crate::lint::contract::{Breach, Contract, LintCheck, WORDS};

pub const CHECK: LintCheck = LintCheck {
    code: "missing-target",
    required: &[WORDS],
    optional: &[],
    needs_effects: true,
    run: Some(missing_target),
};

/// After its verb, the first sentence holds only generic words ("Deletes the record by its
/// ID."). Any specific noun counts as naming the target: synonyms ("repository" for git,
/// "tab" for page) cannot be told from a wrong target, and precision comes first.
fn missing_target(ctx: &Reading, contract: &Contract) -> Option<Breach> {
    if !ctx.changes_state() || ctx.description.is_empty() {
        return None;
    }
    let specific = ctx.first_tokens.iter().skip(ctx.first_verb + 1).any(|t| {
        !ctx.vocabulary.stopwords.contains(&t.stem)
            && !contract.words.iter().any(|p| p.is_word(&t.stem))
    });
    if specific {
        return None;
    }
    let place = ctx.target().unwrap_or("the provider");
    Some(Breach {
        message: format!(
            "\"{}\" names neither the provider nor the resource it changes",
            ctx.first
        ),
        hint: format!(
            "name both in the first sentence: which {} in {place}",
            ctx.resource()
        ),
    })
}
