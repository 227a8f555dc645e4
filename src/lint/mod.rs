//! `lint`: check descriptions against the description contract.
//!
//! The contracts are data (`heuristics/lint.yaml`, read by `rules`): each code has a
//! severity, a one-line `why`, a general suggestion, the word lists its check needs, and
//! examples that must and must not match it (`verify`). Each check is one file of
//! `checks`; it sees only the [`ActionView`](crate::view::ActionView) as `context`
//! reads it, the action's final effects and, for a read-only claim, what the effect rules
//! infer; each writes its finding's message and a hint for that action, and never prints.
//! The findings are the report's, silenced by the pass `check` uses (`engine`).

mod checks;
mod context;
mod contract;
mod engine;
mod example;
mod filter;
mod hint;
mod rules;
mod verify;
mod words;

pub use contract::{Contract, Severity};
pub use engine::{lint, lint_file, lint_in};
pub use filter::CodeFilter;
pub use rules::LintRules;
