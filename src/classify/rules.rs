//! Effect rules as data: the YAML schema, its validation, and matching against signals.
//!
//! A rule names one effect, a weight, a one-line `why`, the conditions that must all hold,
//! and examples that must and must not match. The built-in files are compiled in; user
//! files given with `--heuristics` add rules or replace built-in ones by id.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Deserialize;

use super::signals::{Signals, stems};
use crate::effects::Effect;
use crate::error::{Error, Result};
use crate::view::{ActionView, Input, Step};

/// The built-in rule files, in load order.
pub const BUILTIN: &[(&str, &str)] = &[(
    "heuristics/effects.yaml",
    include_str!("../../heuristics/effects.yaml"),
)];

/// How much one rule's evidence counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Weight {
    Weak = 1,
    Medium = 2,
    Strong = 3,
}

impl Weight {
    pub fn name(self) -> &'static str {
        match self {
            Weight::Weak => "weak",
            Weight::Medium => "medium",
            Weight::Strong => "strong",
        }
    }
}

/// Where a verb is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VerbSource {
    /// The action id (or tool name), wherever the verb sits in it.
    Id,
    Label,
    /// The first words of the description's first sentence.
    Description,
    /// An RPC-style path method (`/candidate.list`).
    Rpc,
    /// A custom method (`/files/{id}:batchGet`).
    Custom,
    /// A SOAP operation (`Get_Workers_Request`).
    Soap,
    /// A `?action=` / `method=` selector in a URL.
    Selector,
}

const DEFAULT_SOURCES: &[VerbSource] = &[VerbSource::Id, VerbSource::Label];

const ALL_SOURCES: [VerbSource; 7] = [
    VerbSource::Id,
    VerbSource::Label,
    VerbSource::Description,
    VerbSource::Rpc,
    VerbSource::Custom,
    VerbSource::Soap,
    VerbSource::Selector,
];

/// The verbs of one action, per source, looked up once and shared by every rule.
#[derive(Debug, Clone, Default)]
pub struct Verbs<'a>([Vec<Verb<'a>>; 7]);

/// Conditions; every one given must hold. Lists match when any value matches.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct When {
    /// Any step uses one of these HTTP methods.
    pub method: Option<Vec<String>>,
    /// Every HTTP step uses one of these methods (and there is at least one).
    pub only_methods: Option<Vec<String>>,
    /// True: no step makes an HTTP call. False: at least one does.
    pub no_http: Option<bool>,
    /// Any step function is one of these.
    pub function: Option<Vec<String>>,
    /// The leading verb (first lexicon word) of any source in `from` is one of these.
    pub verb: Option<Vec<String>>,
    /// Sources for `verb`; default `[id, label]`.
    pub from: Option<Vec<VerbSource>>,
    /// Any word of the id is one of these, wherever it sits.
    pub name_token: Option<Vec<String>>,
    /// The last word of the id is one of these: in an English compound the head noun comes
    /// last (`migrate_pages_guide` is a guide, not a migration).
    pub name_last: Option<Vec<String>>,
    /// Any literal path segment is one of these.
    pub path_segment: Option<Vec<String>>,
    /// The last literal segment of a path that does not end in a parameter.
    pub path_last: Option<Vec<String>>,
    /// True: a path ends in a parameter (addresses one item). False: none does.
    pub path_item: Option<bool>,
    pub action_type: Option<Vec<String>>,
    /// Any input is named one of these (case-insensitive).
    pub input: Option<Vec<String>>,
    /// Any free-string input (no enum) is named one of these.
    pub free_input: Option<Vec<String>>,
    /// Any input's description has one of these words (`The path to save the body to`):
    /// what an optional input does is often the only sign that a read also writes.
    pub input_word: Option<Vec<String>>,
    /// True: a URL picks its operation from an argument (`?action=${inputs.op}`, `.php`,
    /// `/rpc`), so its method says nothing.
    pub dispatch: Option<bool>,
    /// None of these conditions may hold together.
    pub unless: Option<Box<When>>,
}

/// A small action written inline in a rule, for its examples.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Example {
    pub id: Option<String>,
    pub label: Option<String>,
    pub description: Option<String>,
    #[serde(default)]
    pub method: OneOrMany,
    #[serde(default)]
    pub path: OneOrMany,
    #[serde(default)]
    pub function: OneOrMany,
    #[serde(default)]
    pub soap: OneOrMany,
    pub action_type: Option<String>,
    #[serde(default)]
    pub inputs: Vec<String>,
    /// Descriptions of `inputs`, by position.
    #[serde(default)]
    pub input_descriptions: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn list(&self) -> Vec<String> {
        match self {
            OneOrMany::None => Vec::new(),
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

impl Example {
    /// The example as an action view: steps are zipped from methods, paths, functions and
    /// SOAP operations.
    pub fn view(&self) -> ActionView {
        let (m, p, f, s) = (
            self.method.list(),
            self.path.list(),
            self.function.list(),
            self.soap.list(),
        );
        let n = m.len().max(p.len()).max(f.len()).max(s.len());
        let steps = (0..n)
            .map(|i| Step {
                method: m.get(i).map(|x| x.to_ascii_lowercase()),
                url: p.get(i).cloned(),
                function: f
                    .get(i)
                    .cloned()
                    .or_else(|| m.get(i).map(|_| "request".to_owned())),
                soap_operation: s.get(i).cloned(),
            })
            .collect();
        ActionView {
            id: self.id.clone().unwrap_or_default(),
            label: self.label.clone(),
            description: self.description.clone(),
            action_type: self.action_type.clone(),
            steps,
            inputs: self
                .inputs
                .iter()
                .enumerate()
                .map(|(i, n)| Input {
                    name: n.clone(),
                    description: self.input_descriptions.get(i).cloned(),
                    ..Input::default()
                })
                .collect(),
            ..ActionView::default()
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Examples {
    #[serde(rename = "match")]
    pub matches: Vec<Example>,
    pub no_match: Vec<Example>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: String,
    effect: String,
    weight: Weight,
    why: String,
    /// A write that replaces or modifies existing data (for `--destructive-policy
    /// overwrite`).
    #[serde(default)]
    overwrite: bool,
    when: When,
    examples: Examples,
}

/// A validated rule.
#[derive(Debug, Clone)]
pub struct Rule {
    pub id: String,
    pub effect: Effect,
    pub weight: Weight,
    pub why: String,
    pub overwrite: bool,
    pub when: When,
    pub examples: Examples,
    /// The file it came from, for messages.
    pub file: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    /// Verbs that are nouns as often as verbs (`build`, `deploy`, `request`): in a name
    /// they only count when no other verb is there, and then one weight lower.
    #[serde(default)]
    nouns_too: Vec<String>,
    rules: Vec<yaml_serde::Value>,
}

/// All rules in force, and the verb lexicon they define.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    pub rules: Vec<Rule>,
    /// Every word an `input_word` condition looks for.
    input_words: BTreeSet<String>,
    lexicon: BTreeSet<String>,
    nouns_too: BTreeSet<String>,
}

/// A verb read from a source; `ambiguous` when it is also a common noun and no other verb
/// was there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verb<'a> {
    pub word: &'a str,
    pub ambiguous: bool,
}

fn is_kebab(id: &str) -> bool {
    !id.is_empty()
        && id.starts_with(|c: char| c.is_ascii_lowercase())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !id.ends_with('-')
        && !id.contains("--")
}

fn parse_rules(text: &str, file: &str) -> Result<(Vec<Rule>, Vec<String>)> {
    let err = |msg: String| Error::new(msg).in_file(file);
    let raw: RawFile =
        yaml_serde::from_str(text).map_err(|e| err(format!("invalid heuristics file: {e}")))?;
    let mut out = Vec::new();
    for (i, value) in raw.rules.into_iter().enumerate() {
        let name = value
            .get("id")
            .and_then(|v| v.as_str())
            .map_or_else(|| format!("#{}", i + 1), |s| format!("`{s}`"));
        let r: RawRule =
            yaml_serde::from_value(value).map_err(|e| err(format!("rule {name}: {e}")))?;
        if !is_kebab(&r.id) {
            return Err(err(format!("rule {name}: field `id` must be kebab-case")));
        }
        let effect = Effect::parse(&r.effect).ok_or_else(|| {
            err(format!("rule {name}: field `effect`: unknown effect `{}` (expected read, search, write, delete or execute)", r.effect))
        })?;
        if r.examples.matches.is_empty() || r.examples.no_match.is_empty() {
            return Err(err(format!(
                "rule {name}: field `examples`: needs at least one `match` and one `no_match` example"
            )));
        }
        if r.why.trim().is_empty() {
            return Err(err(format!("rule {name}: field `why` is empty")));
        }
        if r.when.is_empty() {
            return Err(err(format!("rule {name}: field `when` has no condition")));
        }
        if r.when.from.is_some() && r.when.verb.is_none() {
            return Err(err(format!("rule {name}: field `from` needs `verb`")));
        }
        out.push(Rule {
            id: r.id,
            effect,
            weight: r.weight,
            why: r.why,
            overwrite: r.overwrite,
            when: r.when,
            examples: r.examples,
            file: file.to_owned(),
        });
    }
    Ok((out, raw.nouns_too))
}

impl When {
    fn is_empty(&self) -> bool {
        self.method.is_none()
            && self.only_methods.is_none()
            && self.no_http.is_none()
            && self.function.is_none()
            && self.verb.is_none()
            && self.name_token.is_none()
            && self.name_last.is_none()
            && self.path_segment.is_none()
            && self.path_last.is_none()
            && self.path_item.is_none()
            && self.action_type.is_none()
            && self.input.is_none()
            && self.free_input.is_none()
            && self.input_word.is_none()
            && self.dispatch.is_none()
    }

    fn input_words(&self, out: &mut BTreeSet<String>) {
        if let Some(v) = &self.input_word {
            out.extend(v.iter().cloned());
        }
        if let Some(u) = &self.unless {
            u.input_words(out);
        }
    }

    fn verbs(&self, out: &mut BTreeSet<String>) {
        if let Some(v) = &self.verb {
            out.extend(v.iter().cloned());
        }
        if let Some(u) = &self.unless {
            u.verbs(out);
        }
    }
}

fn any_in(list: &[String], values: &[String]) -> bool {
    values.iter().any(|v| list.iter().any(|l| l == v))
}

impl RuleSet {
    /// The built-in rules.
    pub fn builtin() -> Result<RuleSet> {
        let mut rules = Vec::new();
        let mut nouns = Vec::new();
        for (file, text) in BUILTIN {
            let (r, n) = parse_rules(text, file)?;
            rules.extend(r);
            nouns.extend(n);
        }
        RuleSet::from_rules(rules, nouns)
    }

    /// Built-in rules plus every `*.yaml` file in `dir`; a rule with a built-in id replaces
    /// it, the others are added.
    pub fn with_user_dir(dir: &Path) -> Result<RuleSet> {
        let mut set = RuleSet::builtin()?;
        let entries = std::fs::read_dir(dir).map_err(|e| {
            Error::new(format!("cannot read heuristics directory: {e}")).in_file(dir)
        })?;
        let mut files: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
            .collect();
        files.sort();
        let mut rules = std::mem::take(&mut set.rules);
        let mut nouns: Vec<String> = set.nouns_too.into_iter().collect();
        for path in files {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| Error::new(format!("cannot read: {e}")).in_file(&path))?;
            let (user_rules, user_nouns) = parse_rules(&text, &path.display().to_string())?;
            nouns.extend(user_nouns);
            for rule in user_rules {
                match rules.iter_mut().find(|r| r.id == rule.id) {
                    Some(slot) => *slot = rule,
                    None => rules.push(rule),
                }
            }
        }
        RuleSet::from_rules(rules, nouns)
    }

    pub fn from_rules(rules: Vec<Rule>, nouns_too: Vec<String>) -> Result<RuleSet> {
        let mut seen = BTreeSet::new();
        for r in &rules {
            if !seen.insert(r.id.as_str()) {
                return Err(Error::new(format!("rule `{}`: duplicate id", r.id)).in_file(&r.file));
            }
        }
        let mut lexicon = BTreeSet::new();
        let mut input_words = BTreeSet::new();
        for r in &rules {
            r.when.verbs(&mut lexicon);
            r.when.input_words(&mut input_words);
        }
        Ok(RuleSet {
            rules,
            input_words,
            lexicon,
            nouns_too: nouns_too.into_iter().collect(),
        })
    }

    /// The signals of an action, keeping only the input-description words rules look for.
    pub fn signals(&self, view: &ActionView) -> Signals {
        Signals::keeping(view, &|raw| {
            self.input_words
                .iter()
                .find(|w| w.eq_ignore_ascii_case(raw))
                .cloned()
        })
    }

    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// The verb of a name: the first word that is a verb and not also a common noun; failing
    /// that, the first verb that is also a noun, marked ambiguous. Words match exactly: in a
    /// name, `builds` or `logs` are nouns.
    pub fn name_verb<'a>(&'a self, words: &[String]) -> Option<Verb<'a>> {
        let known = |w: &String| self.lexicon.get(w).map(String::as_str);
        if let Some(word) = words
            .iter()
            .filter_map(known)
            .find(|w| !self.nouns_too.contains(*w))
        {
            return Some(Verb {
                word,
                ambiguous: false,
            });
        }
        // Only verbs that are also nouns: one that opens the name is its verb
        // (`search_contacts`, `run_report`); one further in is probably a noun (`wql_query`).
        let first = words.first().and_then(known);
        first
            .map(|word| Verb {
                word,
                ambiguous: false,
            })
            .or_else(|| {
                words.iter().find_map(known).map(|word| Verb {
                    word,
                    ambiguous: true,
                })
            })
    }

    /// The verb a description opens with: its first word, after lead-ins such as "This
    /// tool will", "Use this to" or an adverb ("Permanently deletes"), in any inflection.
    /// Nothing when the first real word is not a known verb: later words describe the
    /// result or a subordinate clause, not the action.
    pub fn description_verb<'a>(&'a self, words: &[String]) -> Option<Verb<'a>> {
        const LEAD_INS: &[&str] = &[
            "this",
            "tool",
            "will",
            "use",
            "used",
            "to",
            "allows",
            "allow",
            "lets",
            "let",
            "you",
            "endpoint",
            "action",
            "api",
            "operation",
            "function",
            "can",
            "please",
            "always",
            "here",
            "we",
            "it",
            "helper",
            "method",
            "call",
            "just",
            "also",
            "then",
            "simply",
        ];
        let first = words
            .iter()
            .find(|w| !LEAD_INS.contains(&w.as_str()) && !w.ends_with("ly"))?;
        let word = stems(first).find_map(|f| self.lexicon.get(&f))?;
        Some(Verb {
            word: word.as_str(),
            ambiguous: false,
        })
    }

    fn verb_of(&self, signals: &Signals, source: VerbSource) -> Vec<Verb<'_>> {
        let last = |words: Option<&Vec<String>>| {
            words.and_then(|w| self.name_verb(w)).into_iter().collect()
        };
        match source {
            VerbSource::Id => self.name_verb(&signals.id_tokens).into_iter().collect(),
            VerbSource::Label => self.name_verb(&signals.label_tokens).into_iter().collect(),
            VerbSource::Description => self
                .description_verb(&signals.description_tokens)
                .into_iter()
                .collect(),
            // Only the last call counts: earlier steps of a multi-step action usually read
            // what the last one needs, and a read that feeds a write is still a write.
            VerbSource::Rpc => last(signals.paths.last().map(|p| &p.rpc)),
            VerbSource::Custom => last(signals.paths.last().map(|p| &p.custom)),
            VerbSource::Soap => last(signals.soap.last()),
            VerbSource::Selector => last(signals.paths.last().map(|p| &p.selectors)),
        }
    }

    /// Whether every condition of `when` holds for these signals.
    pub fn matches(&self, when: &When, s: &Signals) -> bool {
        self.evaluate(when, s, &self.verbs(s)).is_some()
    }

    /// Every source's verb for these signals.
    pub fn verbs<'a>(&'a self, s: &Signals) -> Verbs<'a> {
        Verbs(ALL_SOURCES.map(|src| self.verb_of(s, src)))
    }

    /// `None` when a condition fails; otherwise `Some(ambiguous)`, true when the `verb`
    /// condition held only through a verb that is also a common noun.
    pub fn evaluate(&self, when: &When, s: &Signals, verbs: &Verbs<'_>) -> Option<bool> {
        let ok = |cond: &Option<Vec<String>>, f: &dyn Fn(&[String]) -> bool| {
            cond.as_deref().is_none_or(f)
        };
        let mut ambiguous = false;
        if let Some(wanted) = &when.verb {
            let sources = when.from.as_deref().unwrap_or(DEFAULT_SOURCES);
            let (mut found, mut all_ambiguous) = (false, true);
            for v in sources.iter().flat_map(|src| &verbs.0[*src as usize]) {
                if wanted.iter().any(|w| w == v.word) {
                    found = true;
                    all_ambiguous &= v.ambiguous;
                }
            }
            if !found {
                return None;
            }
            ambiguous = all_ambiguous;
        }
        let held = ok(&when.method, &|v| any_in(&s.methods, v))
            && ok(&when.only_methods, &|v| {
                !s.methods.is_empty() && s.methods.iter().all(|m| v.contains(m))
            })
            && when.no_http.is_none_or(|want| s.methods.is_empty() == want)
            && ok(&when.function, &|v| any_in(&s.functions, v))
            && ok(&when.name_token, &|v| any_in(&s.id_tokens, v))
            && ok(&when.name_last, &|v| {
                s.id_tokens.last().is_some_and(|l| v.contains(l))
            })
            && ok(&when.path_segment, &|v| {
                s.paths.iter().any(|p| any_in(&p.segments, v))
            })
            && ok(&when.path_last, &|v| {
                s.paths.iter().any(|p| {
                    !p.item
                        && p.custom.is_empty()
                        && p.segments.last().is_some_and(|l| v.contains(l))
                })
            })
            && when
                .path_item
                .is_none_or(|want| s.paths.iter().any(|p| p.item) == want)
            && ok(&when.action_type, &|v| {
                s.action_type.as_ref().is_some_and(|t| v.contains(t))
            })
            && ok(&when.input, &|v| any_in(&s.inputs, v))
            && ok(&when.free_input, &|v| any_in(&s.free_string_inputs, v))
            && ok(&when.input_word, &|v| any_in(&s.input_description_words, v))
            && when
                .dispatch
                .is_none_or(|want| s.paths.iter().any(|p| p.dispatch) == want);
        let excluded = when
            .unless
            .as_deref()
            .is_some_and(|u| self.evaluate(u, s, verbs).is_some());
        (held && !excluded).then_some(ambiguous)
    }

    /// Runs every rule's examples; returns one message per example that does not behave.
    pub fn check_examples(&self) -> Vec<String> {
        let mut failures = Vec::new();
        for rule in &self.rules {
            for (want, list) in [
                (true, &rule.examples.matches),
                (false, &rule.examples.no_match),
            ] {
                for ex in list {
                    let got = self.matches(&rule.when, &Signals::of(&ex.view()));
                    if got != want {
                        let what = if want {
                            "should match"
                        } else {
                            "should not match"
                        };
                        failures.push(format!(
                            "{}: rule `{}`: example {what}: {ex:?}",
                            rule.file, rule.id
                        ));
                    }
                }
            }
        }
        failures
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_rules_load_and_their_examples_hold() {
        let set = RuleSet::builtin().unwrap();
        let failures = set.check_examples();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    fn load(text: &str) -> Result<Vec<Rule>> {
        parse_rules(text, "user.yaml").map(|(rules, _)| rules)
    }

    const GOOD: &str = "rules:\n- id: x-read\n  effect: read\n  weight: strong\n  why: because\n  when: {method: [get]}\n  examples:\n    match: [{method: get}]\n    no_match: [{method: post}]\n";

    #[test]
    fn a_good_rule_loads() {
        assert_eq!(load(GOOD).unwrap().len(), 1);
    }

    #[test]
    fn unknown_field_names_file_rule_and_field() {
        let bad = GOOD.replace("  why:", "  whyy: x\n  why:");
        let e = load(&bad).unwrap_err().to_string();
        assert!(
            e.contains("user.yaml") && e.contains("`x-read`") && e.contains("whyy"),
            "{e}"
        );
        let bad = GOOD.replace("{method: [get]}", "{methd: [get]}");
        let e = load(&bad).unwrap_err().to_string();
        assert!(e.contains("`x-read`") && e.contains("methd"), "{e}");
    }

    #[test]
    fn rules_without_examples_do_not_load() {
        let bad = GOOD.replace("    no_match: [{method: post}]\n", "    no_match: []\n");
        let e = load(&bad).unwrap_err().to_string();
        assert!(e.contains("examples"), "{e}");
        let bad = GOOD.replace("effect: read", "effect: reed");
        assert!(load(&bad).unwrap_err().to_string().contains("reed"));
    }
}
