//! `freeform-environment`: a free-string input that picks the environment.

use crate::lint::context::{Reading, is_free_string};
use crate::lint::contract::{Breach, Contract, INPUTS, LintCheck, WORDS};
use crate::lint::words::{find_any, normalize_name, tokens};

pub const CHECK: LintCheck = LintCheck {
    code: "freeform-environment",
    required: &[INPUTS],
    optional: &[WORDS],
    needs_effects: false,
    run: Some(freeform_environment),
};

/// A free-string input that picks an environment: named like one (`environment`, `env`),
/// or described with environment names (`stage`: "dev, staging or prod"). A CRM
/// opportunity's `stage` is a pipeline stage, not an environment.
fn freeform_environment(ctx: &Reading, contract: &Contract) -> Option<Breach> {
    let input = ctx
        .view
        .inputs
        .iter()
        .filter(|i| is_free_string(i))
        .find(|i| {
            // An id (`site_id`: "the production site's id") names one object, whatever its
            // description mentions; it picks no environment.
            let id = tokens(&i.name)
                .last()
                .is_some_and(|t| t.word == "id" || t.word == "ids");
            contract.inputs.contains(&normalize_name(&i.name))
                || !id
                    && i.description
                        .as_deref()
                        .is_some_and(|d| find_any(&tokens(d), &contract.words).is_some())
        })?;
    let name = &input.name;
    Some(Breach {
        message: format!(
            "the free-string input `{name}` picks the environment: a typo or a default can point the call at production"
        ),
        hint: format!(
            "make `{name}` an enum of the real environments (e.g. staging, production), with no default"
        ),
    })
}
