//! `--select` / `--ignore`: which codes run.

use std::collections::BTreeSet;

use super::rules::LintRules;
use crate::error::{Error, Result};

/// Which codes run. The default runs every code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CodeFilter {
    select: BTreeSet<String>,
    ignore: BTreeSet<String>,
}

impl CodeFilter {
    /// Unknown codes are rejected with the list of valid ones: a typo must not silently
    /// turn a check off.
    pub fn new(select: &[String], ignore: &[String], rules: &LintRules) -> Result<CodeFilter> {
        for code in select.iter().chain(ignore) {
            if rules.explain(code).is_none() {
                return Err(Error::new(format!(
                    "unknown lint code `{code}`{}; valid codes: {}",
                    crate::error::did_you_mean(code, rules.codes()),
                    rules.valid_codes()
                )));
            }
        }
        Ok(CodeFilter {
            select: select.iter().cloned().collect(),
            ignore: ignore.iter().cloned().collect(),
        })
    }

    pub fn allows(&self, code: &str) -> bool {
        (self.select.is_empty() || self.select.contains(code)) && !self.ignore.contains(code)
    }
}
