//! The checks, one file each: the code it reports, the rules file's fields it reads, and
//! what it looks for. [`ALL`] is the registry, in the documented order.

mod broad_operation_input;
mod description_repeats_name;
mod destructive_without_confirmation;
mod destructive_without_permanence;
mod dry_run_flag;
mod empty_description;
mod euphemism;
mod freeform_environment;
mod hidden_batch_scope;
mod missing_target;
mod mutating_verb_on_read;
mod read_only_claim_contradicted;
pub mod unused_silence;
mod vague_verb;

use crate::lint::contract::LintCheck;

/// Every check, in the order `explain-code` and the registry of codes list them.
pub const ALL: [&LintCheck; 14] = [
    &vague_verb::CHECK,
    &euphemism::CHECK,
    &destructive_without_permanence::CHECK,
    &destructive_without_confirmation::CHECK,
    &read_only_claim_contradicted::CHECK,
    &mutating_verb_on_read::CHECK,
    &broad_operation_input::CHECK,
    &dry_run_flag::CHECK,
    &freeform_environment::CHECK,
    &hidden_batch_scope::CHECK,
    &empty_description::CHECK,
    &description_repeats_name::CHECK,
    &missing_target::CHECK,
    &unused_silence::CHECK,
];
