//! `broad-operation-input`: a free-string input (`operation`, `command`) that decides what
//! the call does.

use crate::lint::context::{Reading, is_free_string};
use crate::lint::contract::{Breach, Contract, INPUTS, LintCheck};

pub const CHECK: LintCheck = LintCheck {
    code: "broad-operation-input",
    required: &[INPUTS],
    optional: &[],
    needs_effects: false,
    run: Some(broad_operation_input),
};

fn broad_operation_input(ctx: &Reading, contract: &Contract) -> Option<Breach> {
    let name = ctx.input(&contract.inputs, is_free_string)?;
    Some(Breach {
        message: format!("the free-string input `{name}` decides what the call does"),
        hint: format!(
            "split `{}` into one tool per operation, or make `{name}` an enum of the operations it allows",
            ctx.view.id
        ),
    })
}
