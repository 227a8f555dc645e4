//! A code of the description contract: what the rules file says of it ([`Contract`]: its
//! severity, `why`, suggestion and word lists) and the check that looks for it
//! ([`LintCheck`], one file of `checks/` each).

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::context::Reading;
use super::example::LintExamples;
use super::words::Phrase;
use crate::model::finding::{Finding, Level};

/// How bad a finding is: any remaining error makes `lint` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }

    /// The level of the report's findings.
    pub fn level(self) -> Level {
        match self {
            Severity::Error => Level::Error,
            Severity::Warning => Level::Warning,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Field names a rule may carry besides code/severity/why/suggestion/examples.
pub const WORDS: &str = "words";
pub const NEEDS_SCOPE: &str = "needs_scope";
pub const SCOPE: &str = "scope";
pub const INPUTS: &str = "inputs";
pub const NOT_PRECEDED_BY: &str = "not_preceded_by";
pub const NOT_FOLLOWED_BY: &str = "not_followed_by";
pub const REMOVAL: &str = "removal";

/// What a check found on one action: the message, and the hint written for that action.
pub struct Breach {
    pub message: String,
    pub hint: String,
}

/// The check behind one code. The code strings are the stable public names.
#[derive(Debug)]
pub struct LintCheck {
    pub code: &'static str,
    /// The rules file's data fields this check needs, and those it may take.
    pub required: &'static [&'static str],
    pub optional: &'static [&'static str],
    /// Says nothing when the effects are unknown (empty).
    pub needs_effects: bool,
    /// What the finding says when the code applies to the action; `None` for a check that
    /// looks at a file's silences rather than at one action.
    pub run: Option<fn(&Reading, &Contract) -> Option<Breach>>,
}

/// One code: what the user sees (`why`, `suggestion`) and what its check needs.
#[derive(Debug, Clone)]
pub struct Contract {
    pub code: String,
    pub severity: Severity,
    pub why: String,
    pub suggestion: String,
    pub(crate) check: &'static LintCheck,
    pub(crate) words: Vec<Phrase>,
    pub(crate) needs_scope: Vec<Phrase>,
    pub(crate) scope: Vec<Phrase>,
    /// Input names, normalized (lower case, no `_` or `-`).
    pub(crate) inputs: BTreeSet<String>,
    pub(crate) not_preceded_by: Vec<Phrase>,
    pub(crate) not_followed_by: Vec<Phrase>,
    pub(crate) removal: Vec<Phrase>,
    pub(crate) examples: LintExamples,
}

impl Contract {
    /// The finding of this code that `found` describes, not yet located.
    pub fn finding(&self, found: Breach) -> Finding {
        Finding {
            code: self.code.clone(),
            level: self.severity.level(),
            message: format!("{}; {}", found.message, found.hint),
            ..Finding::default()
        }
    }
}
