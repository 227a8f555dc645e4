//! `description-repeats-name`: a description whose every content word is already in the
//! name.

use std::collections::BTreeSet;

use crate::lint::context::Reading;
use crate::lint::contract::{Breach, Contract, LintCheck};
use crate::lint::words::Token;

pub const CHECK: LintCheck = LintCheck {
    code: "description-repeats-name",
    required: &[],
    optional: &[],
    needs_effects: false,
    run: Some(repeats_name),
};

/// Every content word of the description is already in the id. (Not the label: MCP titles
/// are often the description itself.)
fn repeats_name(ctx: &Reading, _: &Contract) -> Option<Breach> {
    let name: BTreeSet<&str> = ctx.id_tokens.iter().map(|t| t.stem.as_str()).collect();
    let content: Vec<&Token> = ctx
        .body_tokens
        .iter()
        .filter(|t| !ctx.vocabulary.stopwords.contains(&t.stem))
        .collect();
    if content.is_empty() || !content.iter().all(|t| name.contains(t.stem.as_str())) {
        return None;
    }
    let place = ctx.target().map(|t| format!(" in {t}")).unwrap_or_default();
    let resource = ctx.resource();
    let hint = if ctx.effects.is_empty() {
        format!("say what the call returns or changes{place}, and for which {resource}")
    } else if ctx.effects.is_read_only() {
        format!(
            "say what comes back: which {resource}{place}, with which fields, how many per page"
        )
    } else {
        format!(
            "say what changes{place}: which {resource}, what else changes with it, and what the call returns"
        )
    };
    Some(Breach {
        message: format!(
            "\"{}\" only repeats the name `{}`",
            ctx.description, ctx.view.id
        ),
        hint,
    })
}
