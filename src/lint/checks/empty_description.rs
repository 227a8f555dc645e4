//! `empty-description`: no description at all.

use crate::lint::context::Ctx;
use crate::lint::contract::{Contract, Found, LintCheck};

pub const CHECK: LintCheck = LintCheck {
    code: "empty-description",
    required: &[],
    optional: &[],
    needs_effects: false,
    run: Some(empty_description),
};

fn empty_description(ctx: &Ctx, _: &Contract) -> Option<Found> {
    ctx.description.is_empty().then(|| Found {
        message: "the description is empty".into(),
        hint: format!(
            "write one sentence naming the result and the target, e.g. \"{}\"",
            ctx.example()
        ),
    })
}
