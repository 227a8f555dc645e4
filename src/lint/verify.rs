//! The rules file's examples run as tests: each `match` example must yield exactly one
//! finding of its code, each `no_match` example none.

use super::engine::lint;
use super::filter::CodeFilter;
use super::rules::LintRules;

impl LintRules {
    /// Runs every code's examples; one line per failure (empty when all pass).
    pub fn verify_examples(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for contract in self.rules() {
            let cases = [
                ("match", &contract.examples.matches, 1),
                ("no_match", &contract.examples.no_match, 0),
            ];
            for (kind, examples, want) in cases {
                for (i, ex) in examples.iter().enumerate() {
                    let effects = ex.effects().unwrap_or_default();
                    let found = lint(&ex.view(), effects, self, &CodeFilter::default());
                    let got = found.iter().filter(|f| f.code == contract.code).count();
                    if got != want {
                        problems.push(format!(
                            "{}: rule `{}`: {kind} example #{} (`{}`) gave {got} findings, want {want}: {:?}",
                            self.file,
                            contract.code,
                            i + 1,
                            ex.id,
                            found
                                .iter()
                                .map(|f| (&f.code, &f.message))
                                .collect::<Vec<_>>()
                        ));
                    }
                }
            }
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_examples_pass() {
        let rules = LintRules::builtin().unwrap();
        let problems = rules.verify_examples();
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
