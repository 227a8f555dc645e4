//! `dry-run-flag`: a boolean input that puts a preview and the real change in one tool.

use crate::lint::context::{Reading, is_boolean};
use crate::lint::contract::{Breach, Contract, INPUTS, LintCheck};

pub const CHECK: LintCheck = LintCheck {
    code: "dry-run-flag",
    required: &[INPUTS],
    optional: &[],
    needs_effects: false,
    run: Some(dry_run_flag),
};

fn dry_run_flag(ctx: &Reading, contract: &Contract) -> Option<Breach> {
    let name = ctx.input(&contract.inputs, is_boolean)?;
    Some(Breach {
        message: format!(
            "the boolean input `{name}` puts a preview and the real change in one tool"
        ),
        hint: format!(
            "split `{}` into a read-only preview tool and one that applies the change",
            ctx.view.id
        ),
    })
}
