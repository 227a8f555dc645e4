//! `lint`: check descriptions against the description contract.
//!
//! The rules are data (`heuristics/lint.yaml`): each code has a severity, a one-line `why`, a
//! general suggestion, the word lists its check needs, and examples that must and must not
//! trigger it. The checks themselves are small functions keyed by code; they see only the
//! [`ActionView`], the action's final effects and, for a read-only claim, what the effect
//! rules infer; each writes its finding's message and a hint for that action, and never
//! prints.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

mod hint;

use crate::classify::rules::{typed, without_values};
use crate::classify::{Confidence, Group, Inference, RuleSet, infer_in};
use crate::effects::{Effect, Effects, Hints};
use crate::error::{Error, Result};
use crate::text::words;
use crate::view::{ActionView, Input, Step};
use hint::{capitalized, effect_verbs, replaced, sentence, third_person, verbs_like};

const BUILTIN_FILE: &str = "heuristics/lint.yaml";
const BUILTIN_TEXT: &str = include_str!("../../heuristics/lint.yaml");

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
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One problem in one action's description, label, inputs or annotations.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct LintFinding {
    pub code: String,
    pub severity: Severity,
    pub message: String,
    /// The offending text as written (a word, an input name, a sentence).
    pub text: String,
    pub suggestion: String,
}

/// The check behind each code. The code strings are the stable public names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Check {
    VagueVerb,
    Euphemism,
    DestructiveWithoutPermanence,
    DestructiveWithoutConfirmation,
    ReadOnlyClaimContradicted,
    MutatingVerbOnRead,
    BroadOperationInput,
    DryRunFlag,
    FreeformEnvironment,
    HiddenBatchScope,
    EmptyDescription,
    DescriptionRepeatsName,
    MissingTarget,
    UnusedSilence,
}

/// Field names a rule may carry besides code/severity/why/suggestion/examples.
const WORDS: &str = "words";
const NEEDS_SCOPE: &str = "needs_scope";
const SCOPE: &str = "scope";
const INPUTS: &str = "inputs";
const NOT_PRECEDED_BY: &str = "not_preceded_by";
const NOT_FOLLOWED_BY: &str = "not_followed_by";
const REMOVAL: &str = "removal";

/// (code, check, required data fields, optional data fields)
type Spec = (
    &'static str,
    Check,
    &'static [&'static str],
    &'static [&'static str],
);

const SPECS: &[Spec] = &[
    ("vague-verb", Check::VagueVerb, &[WORDS], &[]),
    (
        "euphemism",
        Check::Euphemism,
        &[WORDS],
        &[NEEDS_SCOPE, SCOPE],
    ),
    (
        "destructive-without-permanence",
        Check::DestructiveWithoutPermanence,
        &[WORDS, REMOVAL],
        &[NOT_PRECEDED_BY],
    ),
    (
        "destructive-without-confirmation",
        Check::DestructiveWithoutConfirmation,
        &[WORDS, REMOVAL],
        &[NOT_PRECEDED_BY],
    ),
    (
        "read-only-claim-contradicted",
        Check::ReadOnlyClaimContradicted,
        &[WORDS],
        &[NOT_PRECEDED_BY, NOT_FOLLOWED_BY],
    ),
    (
        "mutating-verb-on-read",
        Check::MutatingVerbOnRead,
        &[WORDS],
        &[],
    ),
    (
        "broad-operation-input",
        Check::BroadOperationInput,
        &[INPUTS],
        &[],
    ),
    ("dry-run-flag", Check::DryRunFlag, &[INPUTS], &[]),
    (
        "freeform-environment",
        Check::FreeformEnvironment,
        &[INPUTS],
        &[WORDS],
    ),
    (
        "hidden-batch-scope",
        Check::HiddenBatchScope,
        &[WORDS, SCOPE],
        &[],
    ),
    ("empty-description", Check::EmptyDescription, &[], &[]),
    (
        "description-repeats-name",
        Check::DescriptionRepeatsName,
        &[],
        &[],
    ),
    ("missing-target", Check::MissingTarget, &[WORDS], &[]),
    ("unused-silence", Check::UnusedSilence, &[], &[]),
];

impl Check {
    /// Checks that say nothing when the effects are unknown (empty).
    fn needs_effects(self) -> bool {
        matches!(
            self,
            Check::DestructiveWithoutPermanence
                | Check::DestructiveWithoutConfirmation
                | Check::MutatingVerbOnRead
                | Check::HiddenBatchScope
                | Check::MissingTarget
        )
    }
}

// ---- the file format: serde types are the schema --------------------------------------

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping of `rules`, `lead_ins` and `stopwords`"
)]
struct RawFile {
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
struct RawRule {
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
    examples: Option<Examples>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "examples (a mapping with `trigger` and `clean`)"
)]
struct Examples {
    #[serde(default)]
    trigger: Vec<Example>,
    #[serde(default)]
    clean: Vec<Example>,
}

/// A small action written inline in the rules file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an example (a mapping with `id`, `description`, ...)"
)]
struct Example {
    id: String,
    label: Option<String>,
    description: Option<String>,
    details: Option<String>,
    #[serde(default)]
    effects: Vec<String>,
    #[serde(default)]
    inputs: Vec<ExampleInput>,
    path: Option<String>,
    method: Option<String>,
    connector_title: Option<String>,
    /// The `actionId` line comment (for silences).
    comment: Option<String>,
    read_only_hint: Option<bool>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an input (a mapping with `name`, `type`, ...)"
)]
struct ExampleInput {
    name: String,
    #[serde(rename = "type")]
    ty: Option<String>,
    #[serde(rename = "enum", default)]
    enum_values: Vec<String>,
    description: Option<String>,
}

impl Example {
    fn effects(&self) -> Option<Effects> {
        self.effects.iter().map(|e| Effect::parse(e)).collect()
    }

    fn view(&self) -> ActionView {
        let steps = if self.path.is_some() || self.method.is_some() {
            vec![Step {
                function: Some("request".into()),
                method: self.method.as_ref().map(|m| m.to_lowercase()),
                url: self.path.clone(),
                soap_operation: None,
            }]
        } else {
            Vec::new()
        };
        ActionView {
            id: self.id.clone(),
            label: self.label.clone(),
            description: self.description.clone(),
            details: self.details.clone(),
            steps,
            inputs: self
                .inputs
                .iter()
                .map(|i| Input {
                    name: i.name.clone(),
                    ty: i.ty.clone(),
                    enum_values: i.enum_values.clone(),
                    description: i.description.clone(),
                })
                .collect(),
            annotations: self.read_only_hint.map(|r| Hints {
                read_only: Some(r),
                ..Hints::default()
            }),
            line: 1,
            id_comment: self.comment.clone(),
            connector_title: self.connector_title.clone(),
            ..ActionView::default()
        }
    }
}

// ---- loaded rules ------------------------------------------------------------------------

/// A phrase as written and as the stems it matches.
#[derive(Debug, Clone)]
struct Phrase {
    stems: Vec<String>,
}

impl Phrase {
    fn new(text: &str) -> Phrase {
        Phrase {
            stems: tokens(text).into_iter().map(|t| t.stem).collect(),
        }
    }
}

fn phrases(list: &[String]) -> Vec<Phrase> {
    list.iter()
        .map(|w| Phrase::new(w))
        .filter(|p| !p.stems.is_empty())
        .collect()
}

/// One code: what the user sees (`why`, `suggestion`) and what its check needs.
#[derive(Debug, Clone)]
pub struct Rule {
    pub code: String,
    pub severity: Severity,
    pub why: String,
    pub suggestion: String,
    check: Check,
    words: Vec<Phrase>,
    needs_scope: Vec<Phrase>,
    scope: Vec<Phrase>,
    /// Input names, normalized (lower case, no `_` or `-`).
    inputs: BTreeSet<String>,
    not_preceded_by: Vec<Phrase>,
    not_followed_by: Vec<Phrase>,
    removal: Vec<Phrase>,
    examples: Examples,
}

/// The loaded rule set, in file order.
#[derive(Debug, Clone)]
pub struct LintRules {
    file: String,
    rules: Vec<Rule>,
    /// The effect rules the read-only claim check asks (`--heuristics` replaces them).
    effect_rules: RuleSet,
    lead_ins: Vec<Phrase>,
    stopwords: BTreeSet<String>,
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
        let mut raw: RawFile = yaml_serde::from_str(text).map_err(|e| {
            fail(format!(
                "invalid lint rules file: {}",
                without_values(&e.to_string())
            ))
        })?;
        let mut rules: Vec<Rule> = Vec::new();
        for raw in typed::<RawRule>(std::mem::take(&mut raw.rules), "rule", "code", &fail)? {
            let code = raw.code.clone();
            let rule = build_rule(raw).map_err(|msg| fail(format!("rule `{code}`: {msg}")))?;
            if rules.iter().any(|r| r.code == rule.code) {
                return Err(fail(format!("rule `{code}`: code defined twice")));
            }
            rules.push(rule);
        }
        let stopwords = raw
            .stopwords
            .iter()
            .flat_map(|w| tokens(w))
            .map(|t| t.stem)
            .collect();
        Ok(LintRules {
            file: file_name.to_owned(),
            rules,
            effect_rules: RuleSet::builtin()?,
            lead_ins: phrases(&raw.lead_ins),
            stopwords,
        })
    }

    /// The same lint rules, asking `rules` for the effects (the ones `--heuristics` gives).
    pub fn with_effect_rules(mut self, rules: RuleSet) -> LintRules {
        self.effect_rules = rules;
        self
    }

    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Codes in file order.
    pub fn codes(&self) -> impl Iterator<Item = &str> {
        self.rules.iter().map(|r| r.code.as_str())
    }

    /// A code's severity, `why` and suggestion, for `--explain` style documentation.
    pub fn explain(&self, code: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.code == code)
    }

    /// Run every rule's examples: each `trigger` must yield exactly one finding of its code,
    /// each `clean` none. Returns one line per failure (empty when all pass).
    pub fn verify_examples(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for rule in &self.rules {
            let cases = [
                ("trigger", &rule.examples.trigger, 1),
                ("clean", &rule.examples.clean, 0),
            ];
            for (kind, examples, want) in cases {
                for (i, ex) in examples.iter().enumerate() {
                    let effects = ex.effects().unwrap_or_default();
                    let found = lint(&ex.view(), effects, self, &CodeFilter::default());
                    let got = found.iter().filter(|f| f.code == rule.code).count();
                    if got != want {
                        problems.push(format!(
                            "{}: rule `{}`: {kind} example #{} (`{}`) gave {got} findings, want {want}: {:?}",
                            self.file,
                            rule.code,
                            i + 1,
                            ex.id,
                            found.iter().map(|f| (&f.code, &f.text)).collect::<Vec<_>>()
                        ));
                    }
                }
            }
        }
        problems
    }

    fn valid_codes(&self) -> String {
        self.codes().collect::<Vec<_>>().join(", ")
    }
}

/// Turn a raw rule into a checked one; the error text names the offending field.
fn build_rule(raw: RawRule) -> Result<Rule, String> {
    let Some(&(_, check, required, optional)) = SPECS.iter().find(|s| s.0 == raw.code) else {
        let known: Vec<&str> = SPECS.iter().map(|s| s.0).collect();
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
        if list.is_empty() && required.contains(&name) {
            return Err(format!(
                "field `{name}`: required by this code and empty or missing"
            ));
        }
        if !list.is_empty() && !required.contains(&name) && !optional.contains(&name) {
            return Err(format!("field `{name}`: not used by this code"));
        }
    }
    let examples = raw.examples.unwrap_or_default();
    if examples.trigger.is_empty() || examples.clean.is_empty() {
        return Err(
            "field `examples`: needs at least one `trigger` and one `clean` example".into(),
        );
    }
    for ex in examples.trigger.iter().chain(&examples.clean) {
        if ex.effects().is_none() {
            return Err(format!(
                "field `examples`: example `{}` has an unknown effect in {:?}",
                ex.id, ex.effects
            ));
        }
    }
    Ok(Rule {
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

// ---- which codes run ----------------------------------------------------------------------

/// `--select` / `--ignore`: which codes run. The default runs every code.
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

// ---- the engine ---------------------------------------------------------------------------

/// Lint one action. `effects` are its final effects (declared or inferred); empty means
/// unknown, and the checks that depend on effects are skipped. Findings are sorted.
pub fn lint(
    view: &ActionView,
    effects: Effects,
    rules: &LintRules,
    filter: &CodeFilter,
) -> Vec<LintFinding> {
    lint_in(view, &Group::single(), effects, rules, filter)
}

/// [`lint`] for an action of `group` (its file's names, or its server's tools).
pub fn lint_in(
    view: &ActionView,
    group: &Group,
    effects: Effects,
    rules: &LintRules,
    filter: &CodeFilter,
) -> Vec<LintFinding> {
    lint_decided(view, group, effects, None, rules, filter)
}

/// [`lint_in`] for a catalog action whose decision the run made already (`decided`, with
/// the hints it declares and the catalog's votes): the claims are held against it, so
/// `lint` and `backfill` never disagree on one action. `None`: the action is inferred alone.
pub fn lint_decided(
    view: &ActionView,
    group: &Group,
    effects: Effects,
    decided: Option<&Inference>,
    rules: &LintRules,
    filter: &CodeFilter,
) -> Vec<LintFinding> {
    let mut ctx = Ctx::new(view, group, effects, rules);
    ctx.decided = decided;
    let silenced = crate::text::silences(view.id_comment.as_deref());
    let mut out = Vec::new();
    let mut ran = BTreeSet::new();
    let mut fired = BTreeSet::new();
    for rule in &rules.rules {
        if rule.check == Check::UnusedSilence || !filter.allows(&rule.code) {
            continue;
        }
        if rule.check.needs_effects() && effects.is_empty() {
            continue;
        }
        ran.insert(rule.code.as_str());
        let Some(found) = ctx.run(rule) else {
            continue;
        };
        if silenced.contains(&rule.code) {
            fired.insert(rule.code.as_str());
        } else {
            out.push(finding(rule, found));
        }
    }
    let unused = rules.rules.iter().find(|r| r.check == Check::UnusedSilence);
    if let Some(rule) = unused.filter(|r| filter.allows(&r.code) && !silenced.contains(&r.code)) {
        for code in &silenced {
            // `check`'s codes are silenced in the same comments; `check` reports them.
            if rules.explain(code).is_none()
                && crate::model::codes::explain_check_code(code).is_some()
            {
                continue;
            }
            let (message, hint) = if rules.explain(code).is_none() {
                (
                    format!("unknown code `{code}` in a silence"),
                    format!(
                        "fix its spelling{}, or remove it; valid codes: {}",
                        crate::error::did_you_mean(code, rules.codes()),
                        rules.valid_codes()
                    ),
                )
            } else if ran.contains(code.as_str()) && !fired.contains(code.as_str()) {
                (
                    format!("the silence of `{code}` matches no finding"),
                    format!("remove `{code}` from `# catalog-effects: ignore[...]`"),
                )
            } else {
                continue;
            };
            let text = code.clone();
            out.push(finding(
                rule,
                Found {
                    message,
                    text,
                    hint,
                },
            ));
        }
    }
    out.sort();
    out
}

fn finding(rule: &Rule, found: Found) -> LintFinding {
    LintFinding {
        code: rule.code.clone(),
        severity: rule.severity,
        message: found.message,
        text: found.text,
        suggestion: found.hint,
    }
}

/// Text of one action, tokenized once for every check.
struct Ctx<'a> {
    view: &'a ActionView,
    /// The names around the action (its file, or the server's tool list), read as backfill
    /// and audit read them, so lint holds a claim against the same decision.
    group: &'a Group,
    effects: Effects,
    /// The run's decision for the action, when it made one.
    decided: Option<&'a Inference>,
    rules: &'a LintRules,
    description: &'a str,
    /// The first sentence of the description.
    first: &'a str,
    first_tokens: Vec<Token>,
    /// Index in `first_tokens` of the verb, after any lead-in.
    first_verb: usize,
    /// Description and details together.
    body: String,
    body_tokens: Vec<Token>,
    label: &'a str,
    label_tokens: Vec<Token>,
    id_tokens: Vec<Token>,
}

impl<'a> Ctx<'a> {
    fn new(
        view: &'a ActionView,
        group: &'a Group,
        effects: Effects,
        rules: &'a LintRules,
    ) -> Ctx<'a> {
        // An OpenAPI operation's summary is the text a tool made from it shows where it has
        // no description: the operation is described, in one line.
        let description = view
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .or_else(|| {
                (view.source == crate::view::SourceKind::OpenApi)
                    .then_some(view.label.as_deref())
                    .flatten()
                    .map(str::trim)
            })
            .unwrap_or("");
        let first = first_sentence(description);
        let first_tokens = tokens(first);
        let first_verb = skip_lead_in(&first_tokens, &rules.lead_ins);
        let body = match view.details.as_deref() {
            Some(d) => format!("{description}\n{d}"),
            None => description.to_owned(),
        };
        let body_tokens = tokens(&body);
        let label = view.label.as_deref().unwrap_or("").trim();
        Ctx {
            view,
            group,
            effects,
            decided: None,
            rules,
            description,
            first,
            first_tokens,
            first_verb,
            body,
            body_tokens,
            label,
            label_tokens: tokens(label),
            id_tokens: tokens(&view.id),
        }
    }

    fn changes_state(&self) -> bool {
        self.effects.iter().any(|e| !e.is_read_only())
    }

    /// What the finding says when the rule fires.
    fn run(&self, rule: &Rule) -> Option<Found> {
        match rule.check {
            Check::VagueVerb => self.vague_verb(rule),
            Check::Euphemism => self.euphemism(rule),
            Check::DestructiveWithoutPermanence => self.destructive_lacks(rule).map(|()| Found {
                message: format!(
                    "\"{}\" does not say whether the deletion can be undone",
                    self.first
                ),
                text: self.first.to_owned(),
                hint: format!(
                    "say so, e.g. \"{} This cannot be undone.\", or how to restore the {} (trash, recovery window)",
                    sentence(self.first),
                    self.resource()
                ),
            }),
            Check::DestructiveWithoutConfirmation => {
                self.destructive_lacks(rule).map(|()| Found {
                    message: format!(
                        "\"{}\" names no confirmation before it deletes",
                        self.first
                    ),
                    text: self.first.to_owned(),
                    hint: format!(
                        "say who confirms which facts, e.g. \"{} Ask the user to confirm the {} and {} before calling.\"",
                        sentence(self.first),
                        self.resource(),
                        self.target()
                            .map_or("the account it is in".to_owned(), |t| format!("the {t} account"))
                    ),
                })
            }
            Check::ReadOnlyClaimContradicted => self.read_only_claim(rule),
            Check::MutatingVerbOnRead => self.mutating_verb_on_read(rule),
            Check::BroadOperationInput => self.input(rule, is_free_string).map(|name| Found {
                message: format!("the free-string input `{name}` decides what the call does"),
                hint: format!(
                    "split `{}` into one tool per operation, or make `{name}` an enum of the operations it allows",
                    self.view.id
                ),
                text: name,
            }),
            Check::DryRunFlag => self.input(rule, is_boolean).map(|name| Found {
                message: format!(
                    "the boolean input `{name}` puts a preview and the real change in one tool"
                ),
                hint: format!(
                    "split `{}` into a read-only preview tool and one that applies the change",
                    self.view.id
                ),
                text: name,
            }),
            Check::FreeformEnvironment => self.freeform_environment(rule),
            Check::HiddenBatchScope => self.hidden_batch_scope(rule),
            Check::EmptyDescription => self.description.is_empty().then(|| Found {
                message: "the description is empty".into(),
                text: String::new(),
                hint: format!(
                    "write one sentence naming the result and the target, e.g. \"{}\"",
                    self.example()
                ),
            }),
            Check::DescriptionRepeatsName => self.repeats_name(),
            Check::MissingTarget => self.missing_target(rule),
            Check::UnusedSilence => None,
        }
    }

    /// The provider, when known (a catalog connector's title).
    fn target(&self) -> Option<&str> {
        self.view
            .connector_title
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
    }

    /// The name's verb and what it acts on: the verb is the word the description or the
    /// label opens with, else the name's first word; the rest, without batch words, is the
    /// resource ("bulk_delete_contacts" -> delete, contacts; "candidate_create" -> create,
    /// candidate). A one-word name is taken for a verb with no resource.
    fn name_parts(&self) -> (Option<&str>, Option<String>) {
        const BATCH: [&str; 6] = ["all", "bulk", "batch", "many", "multiple", "mass"];
        let label_verb = skip_lead_in(&self.label_tokens, &self.rules.lead_ins);
        let opens: Vec<&str> = [
            self.first_tokens.get(self.first_verb),
            self.label_tokens.get(label_verb),
        ]
        .into_iter()
        .flatten()
        .map(|t| t.stem.as_str())
        .collect();
        // The name past the prefix its group shares (a server's `API-`, a product's
        // `browser_`): a service names no resource (`API-delete-a-block` deletes a block).
        let skip = self.group.prefix.as_deref().map_or(0, |p| {
            let words: Vec<&str> = p.split('_').collect();
            let opens = self.id_tokens.len() > words.len()
                && words.iter().zip(&self.id_tokens).all(|(w, t)| *w == t.word);
            if opens { words.len() } else { 0 }
        });
        let toks = &self.id_tokens[skip..];
        // A name made of the method and the path (an operation without an `operationId`:
        // `post_api_contents_path_checkpoints_checkpoint_id`) has no verb, and its resource
        // is the path's last literal segment, not its parameters and prefixes.
        if let [step] = self.view.steps.as_slice()
            && let (Some(method), Some(url)) = (step.method.as_deref(), step.url.as_deref())
        {
            let made: Vec<String> = tokens(&format!("{method} {url}"))
                .into_iter()
                .map(|t| t.word)
                .collect();
            if !made.is_empty() && made.iter().eq(self.id_tokens.iter().map(|t| &t.word)) {
                let last = url
                    .split('/')
                    .rev()
                    .find(|seg| !seg.is_empty() && !seg.contains(['{', '}', '$', ':']))
                    .map(|seg| tokens(seg).into_iter().map(|t| t.word).collect::<Vec<_>>());
                return (None, last.filter(|w| !w.is_empty()).map(|w| w.join(" ")));
            }
        }
        let lex = &self.rules.effect_rules.lexicon;
        let is_verb = |t: &Token| {
            lex.lookup(&t.word)
                .or_else(|| lex.lookup(&t.stem))
                .is_some_and(|(_, info)| info.is_verb())
        };
        // The word the text opens with, else the name's first verb (`sandbox_terminate`
        // over "Shuts down a sandbox": its first word taken for the verb made "the
        // terminate"), else none; a name of one word is its verb.
        let verb = toks
            .iter()
            .position(|t| opens.contains(&t.stem.as_str()))
            .or_else(|| toks.iter().position(is_verb))
            .or((toks.len() == 1).then_some(0));
        // Articles join words in a name made from a sentence; they name nothing.
        const ARTICLES: [&str; 3] = ["a", "an", "the"];
        let rest: Vec<&str> = toks
            .iter()
            .enumerate()
            .filter(|(i, t)| {
                Some(*i) != verb
                    && !BATCH.contains(&t.word.as_str())
                    && !ARTICLES.contains(&t.word.as_str())
            })
            .map(|(_, t)| t.word.as_str())
            .collect();
        let resource = (!rest.is_empty()).then(|| rest.join(" "));
        (verb.map(|i| toks[i].word.as_str()), resource)
    }

    /// What the action acts on, or a blank to fill in.
    fn resource(&self) -> String {
        self.name_parts().1.unwrap_or_else(|| "<what>".into())
    }

    /// A first sentence for this action: its name's verb, its resource and its provider
    /// ("Removes the user in Acme."), blanks where the name does not say.
    fn example(&self) -> String {
        let (verb, resource) = self.name_parts();
        let verb = verb.unwrap_or_else(|| effect_verbs(self.effects)[0]);
        let place = self.target().unwrap_or("<which system>");
        let resource = resource.map_or_else(|| "<what>".into(), |r| format!("the {r}"));
        format!(
            "{} {resource} in {place}.",
            capitalized(&third_person(verb))
        )
    }

    /// Where the verb is read from: the description's first sentence, or the label when
    /// there is no description (a vague title over a precise description hides nothing).
    fn verb_source(&self) -> [(&str, &[Token], usize); 1] {
        if self.description.is_empty() {
            let verb = skip_lead_in(&self.label_tokens, &self.rules.lead_ins);
            [(self.label, &self.label_tokens, verb)]
        } else {
            [(self.first, &self.first_tokens, self.first_verb)]
        }
    }

    /// Vague verbs count only where they act as the verb: a noun ("the process") is fine.
    fn vague_verb(&self, rule: &Rule) -> Option<Found> {
        for (text, toks, verb) in self.verb_source() {
            let to = Phrase::new("to");
            let hit = (0..toks.len()).find(|&i| {
                (i == verb || (i > 0 && phrase_at(toks, &to, i - 1)))
                    && rule.words.iter().any(|p| phrase_at(toks, p, i))
            });
            if let Some(i) = hit {
                let (start, end) = (toks[i].start, toks[i].end);
                let word = &text[start..end];
                // "Runs" would be as vague as the verb it replaces: without a plain change
                // among the effects, offer the usual ones to choose from.
                let plain =
                    Effects::from_iter(self.effects.iter().filter(|e| *e != Effect::Execute));
                let verbs = verbs_like(word, &effect_verbs(plain));
                return Some(Found {
                    message: format!("\"{word}\" hides which change the call makes"),
                    hint: format!(
                        "say what changes, e.g. \"{}\"",
                        sentence(&replaced(text, start, end, &verbs))
                    ),
                    text: word.to_owned(),
                });
            }
        }
        None
    }

    fn euphemism(&self, rule: &Rule) -> Option<Found> {
        if self.effects.is_read_only() {
            return None;
        }
        for (in_body, text, toks) in [
            (true, self.body.as_str(), &self.body_tokens),
            (false, self.label, &self.label_tokens),
        ] {
            let scoped = find_any(toks, &rule.scope).is_some();
            let plain = find_any(toks, &rule.words);
            let hit = plain.or_else(|| {
                if scoped {
                    None
                } else {
                    find_any(toks, &rule.needs_scope)
                }
            });
            let Some((s, e)) = hit else { continue };
            let word = span(text, toks, s, e);
            let message = if plain.is_some() {
                format!("\"{word}\" hides that data is removed")
            } else {
                format!("\"{word}\" without a scope hides how much is removed")
            };
            // As the verb of the first sentence, the word can be replaced in place (the
            // body starts with that sentence, so their tokens line up).
            let in_first = in_body && s == self.first_verb && toks[e - 1].end <= self.first.len();
            let example = if in_first {
                let (start, end) = (toks[s].start, toks[e - 1].end);
                sentence(&replaced(
                    self.first,
                    start,
                    end,
                    &verbs_like(word, &["delete"]),
                ))
            } else {
                self.example()
            };
            return Some(Found {
                message,
                hint: format!(
                    "say what is removed and how much, e.g. \"{example}\", and whether it can be undone"
                ),
                text: word.to_owned(),
            });
        }
        None
    }

    /// A destructive action whose text says something is removed but not the rule's words.
    fn destructive_lacks(&self, rule: &Rule) -> Option<()> {
        if !self.effects.contains(Effect::Delete) || self.description.is_empty() {
            return None;
        }
        // Servers disagree on destructiveHint (some mark every click or update), so the
        // finding needs the text itself to say something is removed.
        let removes = [&self.id_tokens, &self.label_tokens, &self.body_tokens]
            .iter()
            .any(|toks| {
                (0..toks.len()).any(|i| {
                    rule.removal.iter().any(|p| phrase_at(toks, p, i))
                        && !rule.not_preceded_by.iter().any(|q| ends_at(toks, q, i))
                })
            });
        if !removes {
            return None;
        }
        find_any(&self.body_tokens, &rule.words)
            .is_none()
            .then_some(())
    }

    /// A read-only claim (in the words, or `readOnlyHint: true`) contradicted by the
    /// effects, or by what the rules read from the description's own words or from the
    /// method and path.
    fn read_only_claim(&self, rule: &Rule) -> Option<Found> {
        // A claim in words is the description contradicting itself; a bare readOnlyHint
        // is often a server's considered label for a borderline tool (hover, screenshot),
        // so only strong evidence contradicts it.
        let (claim, quoted, needed) = match self.claim_words(rule) {
            Some(words) => (words.to_owned(), format!("\"{words}\""), Confidence::Medium),
            None if self.view.annotations.as_ref().and_then(|h| h.read_only) == Some(true) => (
                "readOnlyHint: true".to_owned(),
                "readOnlyHint: true".to_owned(),
                Confidence::High,
            ),
            None => return None,
        };
        let found = |contradiction: String, fix: &str| Found {
            message: format!("claims {quoted}, but {contradiction}"),
            hint: format!("remove the read-only claim and any readOnlyHint, or {fix}"),
            text: claim.clone(),
        };
        if self.changes_state() {
            let effects = self.effects.joined(", ");
            return Some(found(
                format!("its effects are {effects}"),
                "correct the effects if the call really changes nothing",
            ));
        }
        let evidence = self.evidence_of_change(needed)?;
        Some(found(evidence, "make sure the call really changes nothing"))
    }

    /// Read-only words of the rule, not negated and not about something else.
    fn claim_words(&self, rule: &Rule) -> Option<&str> {
        for (text, toks) in [
            (self.body.as_str(), &self.body_tokens),
            (self.label, &self.label_tokens),
        ] {
            for p in &rule.words {
                for i in 0..toks.len() {
                    if !phrase_at(toks, p, i) {
                        continue;
                    }
                    let end = i + p.stems.len();
                    let negated = rule.not_preceded_by.iter().any(|q| ends_at(toks, q, i));
                    let other = rule.not_followed_by.iter().any(|q| phrase_at(toks, q, end));
                    if !negated && !other {
                        return Some(span(text, toks, i, end));
                    }
                }
            }
        }
        None
    }

    /// What says the call changes state, at `needed` confidence or more: the description's
    /// own words (name, label and description, read by the effect rules), or its method and
    /// path (its steps alone). The rules are asked, never second-guessed.
    fn evidence_of_change(&self, needed: Confidence) -> Option<String> {
        // One decision: what backfill proposes for the whole action is what lint holds a
        // claim against, so the two never disagree on the same action. The parts only say
        // where the change shows.
        let whole = match self.decided {
            Some(d) => std::borrow::Cow::Borrowed(d),
            None => {
                std::borrow::Cow::Owned(infer_in(self.view, self.group, &self.rules.effect_rules))
            }
        };
        // Evidence that agrees adds up: a change the name and the description both say
        // (`repo_cleanup`, "Permanently deletes ...") is sure enough to contradict a bare hint
        // at medium.
        let agreed = whole.confident(Confidence::Medium)
            && whole.decision.as_ref().is_some_and(|d| d.support > 0);
        if !(whole.confident(needed) || agreed)
            || whole.effects.is_empty()
            || whole.effects.is_read_only()
        {
            // A claim in words beside a change its own request names (POST
            // `.../recalculate`, "Read-only tool that recalculates ...") is the contradiction
            // the check exists for, however unsure the whole action's proposal is: the doubt
            // the claim itself casts is what held it low.
            return (needed == Confidence::Medium)
                .then(|| self.request_names_change())
                .flatten();
        }
        let said = format!(
            "{} ({} confidence)",
            whole.effects.joined(", "),
            whole.confidence.map_or("", |c| c.name())
        );
        let changes = |view: &ActionView| {
            let inf = infer_in(view, self.group, &self.rules.effect_rules);
            !inf.effects.is_empty() && !inf.effects.is_read_only()
        };
        let words = ActionView {
            steps: Vec::new(),
            inputs: Vec::new(),
            annotations: None,
            ..self.view.clone()
        };
        if self.view.steps.is_empty() || changes(&words) {
            return Some(format!(
                "its own words (\"{}\") say {said}",
                if self.first.is_empty() {
                    self.label
                } else {
                    self.first
                }
            ));
        }
        Some(format!("its request ({}) says {said}", self.calls()))
    }

    /// The action's calls as written (`POST /invoices/{id}/recalculate`).
    fn calls(&self) -> String {
        let calls: Vec<String> = self
            .view
            .steps
            .iter()
            .map(|s| {
                format!(
                    "{} {}",
                    s.method.as_deref().unwrap_or("").to_ascii_uppercase(),
                    s.url.as_deref().unwrap_or("")
                )
                .trim()
                .to_owned()
            })
            .collect();
        calls.join(", ")
    }

    /// What the action's requests alone say, when a verb of their URLs names a change (the
    /// path's last segment, an RPC method): the name and the words around it left out.
    fn request_names_change(&self) -> Option<String> {
        use crate::classify::terms::Field as Source;
        let requests = ActionView {
            id: String::new(),
            steps: self.view.steps.clone(),
            source: self.view.source,
            ..ActionView::default()
        };
        let inf = infer_in(&requests, self.group, &self.rules.effect_rules);
        let d = inf.decision.as_ref()?;
        let (Source::Path | Source::Operation, verb) = d.verb? else {
            return None;
        };
        if inf.effects.is_empty() || inf.effects.is_read_only() {
            return None;
        }
        let word = self.rules.effect_rules.lexicon.word(verb.sym);
        Some(format!(
            "its request ({}) names a change: `{word}` ({})",
            self.calls(),
            inf.effects.joined(", ")
        ))
    }

    fn mutating_verb_on_read(&self, rule: &Rule) -> Option<Found> {
        if !self.effects.is_read_only() {
            return None;
        }
        for (text, toks, verb) in self.verb_source() {
            if let Some(p) = rule.words.iter().find(|p| phrase_at(toks, p, verb)) {
                let (start, end) = (toks[verb].start, toks[verb + p.stems.len() - 1].end);
                let word = &text[start..end];
                let effects = self.effects.joined(", ");
                let example = replaced(
                    text,
                    start,
                    end,
                    &verbs_like(word, &effect_verbs(self.effects)),
                );
                return Some(Found {
                    message: format!(
                        "\"{word}\" is a verb of change, but the effects are {effects}"
                    ),
                    hint: format!(
                        "describe what the call returns, e.g. \"{}\", or correct the effects if it changes state",
                        sentence(&example)
                    ),
                    text: word.to_owned(),
                });
            }
        }
        None
    }

    /// The first input the rule names that is of the given kind.
    fn input(&self, rule: &Rule, kind: fn(&Input) -> bool) -> Option<String> {
        self.view
            .inputs
            .iter()
            .find(|i| rule.inputs.contains(&normalize_name(&i.name)) && kind(i))
            .map(|i| i.name.clone())
    }

    /// A free-string input that picks an environment: named like one (`environment`, `env`),
    /// or described with environment names (`stage`: "dev, staging or prod"). A CRM
    /// opportunity's `stage` is a pipeline stage, not an environment.
    fn freeform_environment(&self, rule: &Rule) -> Option<Found> {
        let input = self
            .view
            .inputs
            .iter()
            .filter(|i| is_free_string(i))
            .find(|i| {
                // An id (`site_id`: "the production site's id") names one object, whatever
                // its description mentions; it picks no environment.
                let id = tokens(&i.name)
                    .last()
                    .is_some_and(|t| t.word == "id" || t.word == "ids");
                rule.inputs.contains(&normalize_name(&i.name))
                    || !id
                        && i.description
                            .as_deref()
                            .is_some_and(|d| find_any(&tokens(d), &rule.words).is_some())
            })?;
        let name = &input.name;
        Some(Found {
            message: format!(
                "the free-string input `{name}` picks the environment: a typo or a default can point the call at production"
            ),
            hint: format!(
                "make `{name}` an enum of the real environments (e.g. staging, production), with no default"
            ),
            text: name.clone(),
        })
    }

    fn hidden_batch_scope(&self, rule: &Rule) -> Option<Found> {
        if !self.changes_state() || self.description.is_empty() {
            return None;
        }
        let paths: Vec<String> = self.view.urls().map(str::to_owned).collect();
        let path_tokens = tokens(&paths.join(" "));
        let name: Vec<&Token> = self
            .id_tokens
            .iter()
            .chain(&self.label_tokens)
            .chain(&path_tokens)
            .collect();
        let batch = name
            .iter()
            .find(|t| rule.words.iter().any(|p| p.stems == [t.stem.clone()]))?;
        if find_any(&self.body_tokens, &rule.scope).is_some() {
            return None;
        }
        // A plural of a name word ("Deletes contacts") states the scope too; the verb's own
        // -s ("Deletes") does not count.
        let name_stems: BTreeSet<&str> = name.iter().map(|t| t.stem.as_str()).collect();
        let plural =
            self.body_tokens.iter().enumerate().any(|(i, t)| {
                i != self.first_verb && t.plural && name_stems.contains(t.stem.as_str())
            });
        if plural {
            return None;
        }
        Some(Found {
            message: format!(
                "the name says \"{}\", but \"{}\" does not say how many objects one call changes",
                batch.word, self.first
            ),
            hint: format!(
                "state the scope: which {} (all those matched by the filter? the ids given?) and up to how many per call",
                self.resource()
            ),
            text: self.first.to_owned(),
        })
    }

    /// Every content word of the description is already in the id. (Not the label: MCP
    /// titles are often the description itself.)
    fn repeats_name(&self) -> Option<Found> {
        let name: BTreeSet<&str> = self.id_tokens.iter().map(|t| t.stem.as_str()).collect();
        let content: Vec<&Token> = self
            .body_tokens
            .iter()
            .filter(|t| !self.rules.stopwords.contains(&t.stem))
            .collect();
        if content.is_empty() || !content.iter().all(|t| name.contains(t.stem.as_str())) {
            return None;
        }
        let place = self
            .target()
            .map(|t| format!(" in {t}"))
            .unwrap_or_default();
        let resource = self.resource();
        let hint = if self.effects.is_empty() {
            format!("say what the call returns or changes{place}, and for which {resource}")
        } else if self.effects.is_read_only() {
            format!(
                "say what comes back: which {resource}{place}, with which fields, how many per page"
            )
        } else {
            format!(
                "say what changes{place}: which {resource}, what else changes with it, and what the call returns"
            )
        };
        Some(Found {
            message: format!(
                "\"{}\" only repeats the name `{}`",
                self.description, self.view.id
            ),
            hint,
            text: self.description.to_owned(),
        })
    }

    /// After its verb, the first sentence holds only generic words ("Deletes the record by
    /// its ID."). Any specific noun counts as naming the target: synonyms ("repository" for
    /// git, "tab" for page) cannot be told from a wrong target, and precision comes first.
    fn missing_target(&self, rule: &Rule) -> Option<Found> {
        if !self.changes_state() || self.description.is_empty() {
            return None;
        }
        let specific = self.first_tokens.iter().skip(self.first_verb + 1).any(|t| {
            !self.rules.stopwords.contains(&t.stem)
                && !rule.words.iter().any(|p| p.stems == [t.stem.clone()])
        });
        if specific {
            return None;
        }
        let place = self.target().unwrap_or("the provider");
        Some(Found {
            message: format!(
                "\"{}\" names neither the provider nor the resource it changes",
                self.first
            ),
            hint: format!(
                "name both in the first sentence: which {} in {place}",
                self.resource()
            ),
            text: self.first.to_owned(),
        })
    }
}

/// What a rule found: the message, the offending text as written, and the hint written
/// for this action.
struct Found {
    message: String,
    text: String,
    hint: String,
}

fn is_free_string(i: &Input) -> bool {
    i.enum_values.is_empty()
        && i.ty
            .as_deref()
            .is_none_or(|t| t.eq_ignore_ascii_case("string"))
}

fn is_boolean(i: &Input) -> bool {
    i.ty.as_deref()
        .is_some_and(|t| t.eq_ignore_ascii_case("boolean") || t.eq_ignore_ascii_case("bool"))
}

/// `dry_run`, `dryRun` and `dry-run` are one name.
fn normalize_name(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

// ---- words --------------------------------------------------------------------------------

/// A word of a text: its byte span, lower-case form and stem.
#[derive(Debug, Clone)]
struct Token {
    start: usize,
    end: usize,
    word: String,
    stem: String,
    /// Ends in a plural-looking `s` ("contacts", not "access").
    plural: bool,
}

/// The words of a text with their spans ([`words::spans`]), so a finding can quote them.
fn tokens(text: &str) -> Vec<Token> {
    words::spans(text)
        .map(|(start, end)| {
            let word = text[start..end].to_lowercase();
            let plural = word.len() > 3 && word.ends_with('s') && !word.ends_with("ss");
            Token {
                start,
                end,
                stem: words::stem(&word),
                word,
                plural,
            }
        })
        .collect()
}

fn phrase_at(toks: &[Token], p: &Phrase, i: usize) -> bool {
    i + p.stems.len() <= toks.len() && p.stems.iter().zip(&toks[i..]).all(|(s, t)| *s == t.stem)
}

/// The phrase ends right before token `i`.
fn ends_at(toks: &[Token], p: &Phrase, i: usize) -> bool {
    i >= p.stems.len() && phrase_at(toks, p, i - p.stems.len())
}

/// The earliest match of any phrase, as a token range.
fn find_any(toks: &[Token], list: &[Phrase]) -> Option<(usize, usize)> {
    (0..toks.len()).find_map(|i| {
        list.iter()
            .find(|p| phrase_at(toks, p, i))
            .map(|p| (i, i + p.stems.len()))
    })
}

fn span<'t>(text: &'t str, toks: &[Token], start: usize, end: usize) -> &'t str {
    &text[toks[start].start..toks[end - 1].end]
}

/// Index of the first word after a lead-in ("This tool will ..."), longest lead-in first.
fn skip_lead_in(toks: &[Token], lead_ins: &[Phrase]) -> usize {
    lead_ins
        .iter()
        .filter(|p| phrase_at(toks, p, 0))
        .map(|p| p.stems.len())
        .max()
        .unwrap_or(0)
}

/// Up to the first `.`, `!` or `?` followed by whitespace, or the first blank line.
fn first_sentence(text: &str) -> &str {
    let mut end = text.len();
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let next = bytes.get(i + 1).copied();
        let stop = matches!(b, b'.' | b'!' | b'?') && next.is_none_or(|n| n.is_ascii_whitespace());
        if stop {
            end = i + 1;
            break;
        }
        if b == b'\n' && next == Some(b'\n') {
            end = i;
            break;
        }
    }
    text[..end].trim()
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

    /// The registry lists lint's codes: what `check` reads to leave their silences to lint.
    #[test]
    fn the_registry_lists_every_code_lint_checks() {
        let specs: Vec<&str> = SPECS.iter().map(|s| s.0).collect();
        assert_eq!(specs, crate::model::codes::LINT_CODES);
    }

    #[test]
    fn builtin_has_every_code() {
        let rules = LintRules::builtin().unwrap();
        let codes: Vec<&str> = rules.codes().collect();
        for spec in SPECS {
            assert!(codes.contains(&spec.0), "missing {}", spec.0);
        }
    }

    #[test]
    fn tokens_split_camel_and_snake() {
        let words: Vec<String> = tokens("dryRun dry_run read-only")
            .into_iter()
            .map(|t| t.word)
            .collect();
        assert_eq!(words, ["dry", "run", "dry", "run", "read", "only"]);
    }

    #[test]
    fn silences_parse() {
        let s = crate::text::silences(Some(
            " catalog-effects: ignore[vague-verb, euphemism] other",
        ));
        assert_eq!(
            s.into_iter().collect::<Vec<_>>(),
            ["euphemism", "vague-verb"]
        );
        assert!(crate::text::silences(Some("catalog-effects: ignore[")).is_empty());
        assert!(crate::text::silences(None).is_empty());
    }

    #[test]
    fn first_sentence_stops_at_period_space() {
        assert_eq!(
            first_sentence("Checks Traefik.me domains. More."),
            "Checks Traefik.me domains."
        );
        assert_eq!(first_sentence("No stop"), "No stop");
    }
}
