//! What classify knows, loaded and running nothing: the lexicon, the rules and the records
//! (`record.rs`), read from the built-in heuristics files and a user's own. Every stage reads
//! it and it calls none of them: a user's examples are run by the face (`mod.rs`).

use super::example;
use super::lexicon::Lexicon;
use super::record::{Departures, Measured};
use super::rules::{self, Rule};
use super::terms::Ref;
use crate::error::Result;

/// The built-in heuristics files, in load order.
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "heuristics/words.yaml",
        include_str!("../../heuristics/words.yaml"),
    ),
    (
        "heuristics/effects.yaml",
        include_str!("../../heuristics/effects.yaml"),
    ),
];

const MEASURED: &str = include_str!("../../heuristics/measured.tsv");

/// All heuristics in force: the lexicon, the rules, and the measured counts.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    pub lexicon: Lexicon,
    pub rules: Vec<Rule>,
    pub measured: Measured,
    /// The departures from the plain reading the engine makes, and their records.
    pub departures: Departures,
    pub(crate) matcher: rules::Matcher,
}

impl RuleSet {
    /// The built-in heuristics.
    pub fn builtin() -> Result<RuleSet> {
        RuleSet::load(BUILTIN.iter().map(|(f, t)| (f.to_string(), t.to_string())))
    }

    /// The built-in files, then `files` in order: a rule, sense or object with an id already
    /// loaded replaces it. Nothing is checked but the files' shape: their examples are run by
    /// the face (`RuleSet::with_user_dir`, `RuleSet::check_examples`).
    pub(super) fn load(files: impl IntoIterator<Item = (String, String)>) -> Result<RuleSet> {
        let mut rules: Vec<Rule> = Vec::new();
        let mut parts = Vec::new();
        for (file, text) in files {
            let (file_rules, part) = rules::parse_file(&text, &file)?;
            for rule in file_rules {
                example::replace_by_id(&mut rules, rule, |r| &r.id);
            }
            parts.push(part);
        }
        let mut set = RuleSet {
            lexicon: Lexicon::from_parts(&parts)?,
            matcher: rules::Matcher::new(&rules),
            rules,
            measured: Measured::default(),
            departures: Departures::builtin()?,
        };
        set.measured = Measured::parse(MEASURED, &set.lexicon, &set.rules);
        Ok(set)
    }

    /// The id a report shows for something that decided.
    pub fn ref_id(&self, r: Ref) -> &str {
        match r {
            Ref::Sense(s) => &self.lexicon.sense(s).id,
            Ref::Object(o) => &self.lexicon.objects[o].id,
            Ref::Rule(i) => &self.rules[i].id,
            Ref::Hint => "declared-hint",
            Ref::Plain => "plain-reading",
        }
    }
}
