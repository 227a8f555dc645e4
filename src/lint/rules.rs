//! The rules file (`heuristics/lint.yaml`): its serde types are the schema, and loading it
//! binds each code to its check and checks the fields that check reads.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Deserialize;

use super::checks::ALL;
use super::context::Vocabulary;
use super::contract::{
    Contract, INPUTS, NEEDS_SCOPE, NOT_FOLLOWED_BY, NOT_PRECEDED_BY, REMOVAL, SCOPE, Severity,
    WORDS,
};
use super::example::LintExamples;
use super::words::{normalize_name, phrases, tokens};
use crate::classify::RuleSet;
use crate::classify::rules::{typed, without_values};
use crate::error::{Error, Result};

const BUILTIN_FILE: &str = "heuristics/lint.yaml";
pub(super) const BUILTIN_TEXT: &str = include_str!("../../heuristics/lint.yaml");

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping of `rules`, `lead_ins` and `stopwords`"
)]
struct RawLintFile {
    #[serde(default)]
    lead_ins: Vec<String>,
    #[serde(default)]
    stopwords: Vec<String>,
    rules: Vec<yaml_serde::Value>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a rule (a mapping with `code`, `severity`, `why`, ...)"
)]
struct RawContract {
    code: String,
    severity: Severity,
    why: String,
    suggestion: String,
    #[serde(default)]
    words: Vec<String>,
    #[serde(default)]
    needs_scope: Vec<String>,
    #[serde(default)]
    scope: Vec<String>,
    #[serde(default)]
    inputs: Vec<String>,
    #[serde(default)]
    not_preceded_by: Vec<String>,
    #[serde(default)]
    not_followed_by: Vec<String>,
    #[serde(default)]
    removal: Vec<String>,
    examples: Option<LintExamples>,
}

/// The loaded rule set: the contracts in file order, and the words they share.
#[derive(Debug, Clone)]
pub struct LintRules {
    pub(crate) file: String,
    contracts: Vec<Contract>,
    pub(crate) vocabulary: Vocabulary,
}

impl LintRules {
    /// The rules compiled into the binary.
    pub fn builtin() -> Result<LintRules> {
        LintRules::from_yaml(BUILTIN_TEXT, BUILTIN_FILE)
    }

    /// A user rules file.
    pub fn load(path: &Path) -> Result<LintRules> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::new(format!("cannot read lint rules: {e}")).in_file(path))?;
        LintRules::from_yaml(&text, &path.display().to_string())
    }

    /// Parse and validate a rules file; every error names the file, and the code and field
    /// when it concerns one rule.
    pub fn from_yaml(text: &str, file_name: &str) -> Result<LintRules> {
        let fail = |msg: String| Error::new(msg).in_file(file_name);
        let mut raw: RawLintFile = yaml_serde::from_str(text).map_err(|e| {
            fail(format!(
                "invalid lint rules file: {}",
                without_values(&e.to_string())
            ))
        })?;
        let mut contracts: Vec<Contract> = Vec::new();
        for raw in typed::<RawContract>(std::mem::take(&mut raw.rules), "rule", "code", &fail)? {
            let code = raw.code.clone();
            let contract = contract(raw).map_err(|msg| fail(format!("rule `{code}`: {msg}")))?;
            if contracts.iter().any(|r| r.code == contract.code) {
                return Err(fail(format!("rule `{code}`: code defined twice")));
            }
            contracts.push(contract);
        }
        let stopwords: BTreeSet<String> = raw
            .stopwords
            .iter()
            .flat_map(|w| tokens(w))
            .map(|t| t.stem)
            .collect();
        Ok(LintRules {
            file: file_name.to_owned(),
            contracts,
            vocabulary: Vocabulary {
                lead_ins: phrases(&raw.lead_ins),
                stopwords,
                effect_rules: RuleSet::builtin()?,
            },
        })
    }

    /// The same lint rules, asking `rules` for the effects (the ones `--heuristics` gives).
    pub fn with_effect_rules(mut self, rules: RuleSet) -> LintRules {
        self.vocabulary.effect_rules = rules;
        self
    }

    pub fn rules(&self) -> &[Contract] {
        &self.contracts
    }

    /// Codes in file order.
    pub fn codes(&self) -> impl Iterator<Item = &str> {
        self.contracts.iter().map(|r| r.code.as_str())
    }

    /// A code's severity, `why` and suggestion, for `--explain` style documentation.
    pub fn explain(&self, code: &str) -> Option<&Contract> {
        self.contracts.iter().find(|r| r.code == code)
    }

    pub(crate) fn valid_codes(&self) -> String {
        self.codes().collect::<Vec<_>>().join(", ")
    }
}

/// Turn a raw rule into a checked contract; the error text names the offending field.
fn contract(raw: RawContract) -> Result<Contract, String> {
    let Some(&check) = ALL.iter().find(|c| c.code == raw.code) else {
        let known: Vec<&str> = ALL.iter().map(|c| c.code).collect();
        return Err(format!(
            "field `code`: unknown code (known: {})",
            known.join(", ")
        ));
    };
    let fields: [(&str, &Vec<String>); 7] = [
        (WORDS, &raw.words),
        (NEEDS_SCOPE, &raw.needs_scope),
        (SCOPE, &raw.scope),
        (INPUTS, &raw.inputs),
        (NOT_PRECEDED_BY, &raw.not_preceded_by),
        (NOT_FOLLOWED_BY, &raw.not_followed_by),
        (REMOVAL, &raw.removal),
    ];
    for (name, list) in fields {
        if list.is_empty() && check.required.contains(&name) {
            return Err(format!(
                "field `{name}`: required by this code and empty or missing"
            ));
        }
        if !list.is_empty() && !check.required.contains(&name) && !check.optional.contains(&name) {
            return Err(format!("field `{name}`: not used by this code"));
        }
    }
    let examples = raw.examples.unwrap_or_default();
    if examples.matches.is_empty() || examples.no_match.is_empty() {
        return Err(
            "field `examples`: needs at least one `match` and one `no_match` example".into(),
        );
    }
    for ex in examples.matches.iter().chain(&examples.no_match) {
        if ex.effects().is_none() {
            return Err(format!(
                "field `examples`: example `{}` has an unknown effect in {:?}",
                ex.id, ex.effects
            ));
        }
    }
    Ok(Contract {
        code: raw.code,
        severity: raw.severity,
        why: raw.why,
        suggestion: raw.suggestion,
        check,
        words: phrases(&raw.words),
        needs_scope: phrases(&raw.needs_scope),
        scope: phrases(&raw.scope),
        inputs: raw.inputs.iter().map(|n| normalize_name(n)).collect(),
        not_preceded_by: phrases(&raw.not_preceded_by),
        not_followed_by: phrases(&raw.not_followed_by),
        removal: phrases(&raw.removal),
        examples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The registry lists lint's codes: what `check` reads to leave their silences to lint.
    #[test]
    fn the_registry_lists_every_code_lint_checks() {
        let codes: Vec<&str> = ALL.iter().map(|c| c.code).collect();
        assert_eq!(codes, crate::model::codes::LINT_CODES);
    }

    #[test]
    fn builtin_has_every_code() {
        let rules = LintRules::builtin().unwrap();
        let codes: Vec<&str> = rules.codes().collect();
        for check in ALL {
            assert!(codes.contains(&check.code), "missing {}", check.code);
        }
    }
}
