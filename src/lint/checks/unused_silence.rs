//! `unused-silence`: a silence of one of lint's codes that hides no finding, or of a code no
//! command knows. It looks at a file's silences, not at one action: this is what lint makes
//! of them in the one silence pass ([`crate::model::silence`]).

use std::collections::BTreeSet;

use crate::lint::contract::{Breach, Contract, LintCheck};
use crate::model::finding::Finding;
use crate::model::silence::{Silencer, Unused};

pub const CHECK: LintCheck = LintCheck {
    code: "unused-silence",
    required: &[],
    optional: &[],
    needs_effects: false,
    run: None,
};

/// One action as lint read it, for judging the silences of its `actionId` line.
#[derive(Debug, Default)]
pub struct Linted {
    /// Where its findings are (file, line, column, tool), and no more.
    pub at: Finding,
    /// The codes whose check ran on it: a silence of another (left out by `--select`, or
    /// needing effects the action does not have) hid nothing only because nothing looked.
    pub ran: BTreeSet<&'static str>,
    /// Its comment silences `unused-silence` itself.
    pub quiet: bool,
}

/// What lint makes of one file's silences (or of one action's, outside any file).
pub struct LintSilences<'a> {
    /// lint's codes, in the rules file's order.
    pub codes: Vec<&'a str>,
    /// `unused-silence`'s contract, when the rules hold it and the run asks for it.
    pub contract: Option<&'a Contract>,
    /// Whether the run asks for a code (`--select`, `--ignore`).
    pub allows: &'a dyn Fn(&str) -> bool,
    pub actions: &'a [Linted],
    /// Where the file's own silences are reported (file and CI path).
    pub file: Finding,
}

impl Silencer for LintSilences<'_> {
    /// Every lint finding is an action's, and a silence may hide any of them.
    fn place(&self, finding: &Finding) -> Option<(usize, usize)> {
        Some((finding.line.unwrap_or(0), finding.column.unwrap_or(0)))
    }

    fn unused(&self, code: &str, used: bool, at: Unused) -> Option<Finding> {
        let contract = self.contract?;
        let ours = self.codes.contains(&code);
        match at {
            Unused::Action(i) => {
                let action = &self.actions[i];
                if action.quiet {
                    return None;
                }
                let found = if ours {
                    if used || !action.ran.contains(code) {
                        return None;
                    }
                    Breach {
                        message: format!("the silence of `{code}` matches no finding"),
                        hint: format!("remove `{code}` from `# catalog-effects: ignore[...]`"),
                    }
                } else if code.starts_with(crate::text::MALFORMED_SILENCE)
                    || crate::model::codes::explain_check_code(code).is_some()
                {
                    // `check` reports its own codes' silences, and the malformed ones.
                    return None;
                } else {
                    Breach {
                        message: format!("unknown code `{code}` in a silence"),
                        hint: format!(
                            "fix its spelling{}, or remove it; valid codes: {}",
                            crate::error::did_you_mean(code, self.codes.iter().copied()),
                            self.codes.join(", ")
                        ),
                    }
                };
                Some(located(contract.finding(found), &action.at))
            }
            Unused::File(line) => {
                if !ours || used || !(self.allows)(code) {
                    return None;
                }
                let found = Breach {
                    message: format!(
                        "the silence of `{code}` matches no finding (for the whole file)"
                    ),
                    hint: format!("remove `{code}` from `# catalog-effects: ignore[...]`"),
                };
                let at = Finding {
                    line: Some(line),
                    ..self.file.clone()
                };
                Some(located(contract.finding(found), &at))
            }
        }
    }
}

/// `finding` where `at` is.
fn located(finding: Finding, at: &Finding) -> Finding {
    Finding {
        file: at.file.clone(),
        line: at.line,
        column: at.column,
        tool: at.tool.clone(),
        ci_file: at.ci_file.clone(),
        ..finding
    }
}
