//! `empty-description`: no description at all.

use crate::lint::context::Reading;
use crate::lint::contract::{Breach, Contract, LintCheck};

pub const CHECK: LintCheck = LintCheck {
    code: "empty-description",
    required: &[],
    optional: &[],
    needs_effects: false,
    run: Some(empty_description),
};

fn empty_description(ctx: &Reading, _: &Contract) -> Option<Breach> {
    ctx.description.is_empty().then(|| Breach {
        message: "the description is empty".into(),
        hint: format!(
            "write one sentence naming the result and the target, e.g. \"{}\"",
            ctx.example()
        ),
    })
}
