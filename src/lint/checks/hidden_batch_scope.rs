//! `hidden-batch-scope`: a name or path that says all, bulk or batch over a description
//! that does not say how many objects one call changes.

use std::collections::BTreeSet;

use crate::lint::context::Reading;
use crate::lint::contract::{Breach, Contract, LintCheck, SCOPE, WORDS};
use crate::lint::words::{Token, find_any, tokens};

pub const CHECK: LintCheck = LintCheck {
    code: "hidden-batch-scope",
    required: &[WORDS, SCOPE],
    optional: &[],
    needs_effects: true,
    run: Some(hidden_batch_scope),
};

fn hidden_batch_scope(ctx: &Reading, contract: &Contract) -> Option<Breach> {
    if !ctx.changes_state() || ctx.description.is_empty() {
        return None;
    }
    let paths: Vec<String> = ctx.view.urls().map(str::to_owned).collect();
    let path_tokens = tokens(&paths.join(" "));
    let name: Vec<&Token> = ctx
        .id_tokens
        .iter()
        .chain(&ctx.label_tokens)
        .chain(&path_tokens)
        .collect();
    let batch = name
        .iter()
        .find(|t| contract.words.iter().any(|p| p.is_word(&t.stem)))?;
    if find_any(&ctx.body_tokens, &contract.scope).is_some() {
        return None;
    }
    // A plural of a name word ("Deletes contacts") states the scope too; the verb's own -s
    // ("Deletes") does not count.
    let name_stems: BTreeSet<&str> = name.iter().map(|t| t.stem.as_str()).collect();
    let plural = ctx
        .body_tokens
        .iter()
        .enumerate()
        .any(|(i, t)| i != ctx.first_verb && t.plural && name_stems.contains(t.stem.as_str()));
    if plural {
        return None;
    }
    Some(Breach {
        message: format!(
            "the name says \"{}\", but \"{}\" does not say how many objects one call changes",
            batch.word, ctx.first
        ),
        hint: format!(
            "state the scope: which {} (all those matched by the filter? the ids given?) and up to how many per call",
            ctx.resource()
        ),
    })
}
