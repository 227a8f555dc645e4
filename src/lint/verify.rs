//! The rules file's examples run as tests: each `match` example must yield exactly one
//! finding of its code, each `no_match` example none.

use super::engine::lint;
use super::example::LintExample;
use super::filter::CodeFilter;
use super::rules::LintRules;
use crate::model::finding::Finding;

impl LintRules {
    /// Runs every code's examples; one line per failure (empty when all pass).
    pub fn verify_examples(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for contract in self.rules() {
            let found = |ex: &LintExample| {
                let effects = ex.effects().unwrap_or_default();
                lint(&ex.view(), effects, self, &CodeFilter::default())
            };
            let got = |found: &[Finding]| found.iter().filter(|f| f.code == contract.code).count();
            // A `match` example yields exactly one finding of its code, a `no_match` none.
            let wrong = contract
                .examples
                .misbehaving(|want, ex| got(&found(ex)) == usize::from(want));
            for (want, i, ex) in wrong {
                let findings = found(ex);
                problems.push(format!(
                    "{}: rule `{}`: {} example #{} (`{}`) gave {} findings, want {}: {:?}",
                    self.file,
                    contract.code,
                    if want { "match" } else { "no_match" },
                    i + 1,
                    ex.id,
                    got(&findings),
                    usize::from(want),
                    findings
                        .iter()
                        .map(|f| (&f.code, &f.message))
                        .collect::<Vec<_>>()
                ));
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shared runner names an example that does not behave as it always has: the file,
    /// the code, which list and where, what it gave and what was wanted.
    #[test]
    fn an_example_that_does_not_behave_is_named() {
        let builtin = LintRules::builtin().unwrap();
        let text = crate::lint::rules::BUILTIN_TEXT.replacen(
            "        - {id: list_processes, description: \"Lists the running processes on the host.\"}",
            "        - {id: manage_hosts, description: \"Manages the hosts.\"}",
            1,
        );
        assert_ne!(
            text,
            crate::lint::rules::BUILTIN_TEXT,
            "the example to plant is there"
        );
        let rules = LintRules::from_yaml(&text, "planted.yaml").unwrap();
        let problems = rules.verify_examples();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with(
                "planted.yaml: rule `vague-verb`: no_match example #1 (`manage_hosts`) gave 1 findings, want 0: "
            ),
            "{}",
            problems[0]
        );
        assert!(builtin.verify_examples().is_empty());
    }

    #[test]
    fn builtin_examples_pass() {
        let rules = LintRules::builtin().unwrap();
        let problems = rules.verify_examples();
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
