//! `destructive-without-confirmation`: a call that removes something and names no one who
//! confirms it first.

use super::destructive_without_permanence::removes_without_words;
use crate::lint::context::Reading;
use crate::lint::contract::{Breach, Contract, LintCheck, NOT_PRECEDED_BY, REMOVAL, WORDS};
use crate::lint::hint::sentence;

pub const CHECK: LintCheck = LintCheck {
    code: "destructive-without-confirmation",
    required: &[WORDS, REMOVAL],
    optional: &[NOT_PRECEDED_BY],
    needs_effects: true,
    run: Some(destructive_without_confirmation),
};

fn destructive_without_confirmation(ctx: &Reading, contract: &Contract) -> Option<Breach> {
    removes_without_words(ctx, contract).then(|| Breach {
        message: format!("\"{}\" names no confirmation before it deletes", ctx.first),
        hint: format!(
            "say who confirms which facts, e.g. \"{} Ask the user to confirm the {} and {} before calling.\"",
            sentence(ctx.first),
            ctx.resource(),
            ctx.target()
                .map_or("the account it is in".to_owned(), |t| format!("the {t} account"))
        ),
    })
}
