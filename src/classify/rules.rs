//! Effect rules as data: the YAML schema, its validation, and matching against signals.
//!
//! A rule names one effect, a weight, a one-line `why`, the conditions that must all hold,
//! and examples that must and must not match. The built-in files are compiled in; user
//! files given with `--heuristics` add rules or replace built-in ones by id.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::Path;

use serde::Deserialize;

use super::Fired;
use super::signals::{
    PathSink, Signals, ascii_lower, each_stem, each_token, lower, raw_words, sentence_end,
    sentence_head, walk_path,
};
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
    /// The rules turned into word numbers, so matching compares integers.
    compiled: Compiled,
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
        let mut set = RuleSet {
            rules,
            input_words,
            lexicon,
            nouns_too: nouns_too.into_iter().collect(),
            compiled: Compiled::default(),
        };
        let whens: Vec<&When> = set.rules.iter().map(|r| &r.when).collect();
        set.compiled = Compiled::new(&whens, &set);
        set.compiled.index = Index::new(&set.compiled);
        Ok(set)
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

    /// Whether every condition of `when` holds for these signals.
    pub fn matches(&self, when: &When, s: &Signals) -> bool {
        if let Some(i) = self.rules.iter().position(|r| std::ptr::eq(&r.when, when)) {
            return self
                .compiled
                .evaluate(&self.compiled.conds[i], &self.facts_of(s));
        }
        // A condition that is no rule's: its words need their own vocabulary, verbs still
        // come from the rules' lexicon.
        let mut whens: Vec<&When> = self.rules.iter().map(|r| &r.when).collect();
        whens.push(when);
        let compiled = Compiled::new(&whens, self);
        let mut facts = Facts::default();
        facts.fill_signals(s, &compiled);
        compiled.evaluate(&compiled.conds[whens.len() - 1], &facts)
    }

    fn facts_of(&self, s: &Signals) -> Facts {
        let mut facts = Facts::default();
        facts.fill_signals(s, &self.compiled);
        facts
    }

    /// The rules that match these signals: the slow route, which the test holds the fast one
    /// to.
    #[cfg(test)]
    pub(crate) fn fire_signals(&self, s: &Signals) -> Vec<Fired> {
        let mut fired = Vec::new();
        self.fire_each(&self.facts_of(s), &mut fired);
        fired
    }

    /// The rules that match this action: what `fire_signals(&self.signals(view))` gives,
    /// read straight from the view without building its signals.
    #[cfg(test)]
    pub(crate) fn fire_view(&self, view: &ActionView) -> Vec<Fired> {
        self.with_fired(view, <[Fired]>::to_vec)
    }

    /// Hands `f` the rules that match this action, as [`RuleSet::fire_view`] finds them,
    /// from buffers each thread reuses: classifying an action allocates nothing here.
    pub(crate) fn with_fired<R>(&self, view: &ActionView, f: impl FnOnce(&[Fired]) -> R) -> R {
        thread_local! {
            static SCRATCH: RefCell<(Facts, Vec<Fired>)> = RefCell::default();
        }
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => {
                let (facts, fired) = &mut *scratch;
                self.fire_view_into(view, facts, fired);
                f(fired)
            }
            Err(_) => {
                let (mut facts, mut fired) = (Facts::default(), Vec::new());
                self.fire_view_into(view, &mut facts, &mut fired);
                f(&fired)
            }
        })
    }

    fn fire_view_into(&self, view: &ActionView, facts: &mut Facts, fired: &mut Vec<Fired>) {
        facts.fill_view(view, &self.compiled);
        fired.clear();
        match &self.compiled.index {
            Some(index) => index.fire(facts, &self.rules, fired),
            None => self.fire_each(facts, fired),
        }
    }

    /// Evaluates each rule in turn: what the index does at once, when the rules are too
    /// many for it (and for signals, to check the index against).
    fn fire_each(&self, facts: &Facts, out: &mut Vec<Fired>) {
        for (i, (r, cond)) in self.rules.iter().zip(&self.compiled.conds).enumerate() {
            if let Some(ambiguous) = self.compiled.eval(cond, facts) {
                out.push(fired(i, r, ambiguous));
            }
        }
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

/// A word any rule names, numbered.
type Sym = u32;

fn fired(i: usize, r: &Rule, ambiguous: bool) -> Fired {
    let weight = r.weight as u8 - u8::from(ambiguous && r.weight as u8 > 1);
    Fired {
        rule: i,
        effect: r.effect,
        weight,
    }
}

/// Words to numbers, for lookups of short words: open addressing over a hash of a word's
/// first and last bytes, cheaper than a general map's hashing and probing on the few
/// bytes of a word.
#[derive(Debug, Clone, Default)]
struct WordMap {
    /// A power of two long, at most half full: a word's hash tag and its entry number plus
    /// one (0: empty).
    slots: Box<[(u32, u32)]>,
    /// By entry: the word's [`word_key`] and length, which are the word itself up to 16
    /// bytes, so most lookups compare no bytes.
    entries: Vec<(u64, u64, usize)>,
    keys: Vec<Box<str>>,
    values: Vec<Sym>,
    /// The shortest and longest key: other lengths need no lookup.
    shortest: usize,
    longest: usize,
}

/// The first and last (up to) 8 bytes of a word, read without a loop: up to 16 bytes, they
/// and the length are the whole word.
#[inline]
fn word_key(b: &[u8]) -> (u64, u64) {
    let n = b.len();
    let read = |at: usize, len: usize| {
        let mut v = [0u8; 8];
        v[..len].copy_from_slice(&b[at..at + len]);
        u64::from_le_bytes(v)
    };
    match n {
        8.. => (read(0, 8), read(n - 8, 8)),
        4..8 => (read(0, 4), read(n - 4, 4)),
        1..4 => (
            u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16,
            0,
        ),
        0 => (0, 0),
    }
}

#[inline]
fn key_hash((lo, hi): (u64, u64), n: usize) -> u64 {
    let m =
        u128::from(lo ^ 0x2d35_8dcc_aa6c_78a5) * u128::from(hi ^ 0x8bb8_4b93_962e_acc9 ^ n as u64);
    (m as u64) ^ (m >> 64) as u64
}

impl WordMap {
    fn len(&self) -> usize {
        self.keys.len()
    }

    #[inline]
    fn get(&self, w: &str) -> Option<Sym> {
        self.find(w).map(|e| self.values[e])
    }

    /// The entry of `w`.
    #[inline]
    fn find(&self, w: &str) -> Option<usize> {
        let n = w.len();
        if self.slots.is_empty() || n < self.shortest || n > self.longest {
            return None;
        }
        let key = word_key(w.as_bytes());
        let h = key_hash(key, n);
        let (tag, mask) = ((h >> 32) as u32, self.slots.len() - 1);
        let mut i = h as usize & mask;
        loop {
            let (t, e) = self.slots[i];
            if e == 0 {
                return None;
            }
            let e = e as usize - 1;
            if t == tag && self.entries[e] == (key.0, key.1, n) && (n <= 16 || *self.keys[e] == *w)
            {
                return Some(e);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `w` with `value` unless it is there already.
    fn insert(&mut self, w: &str, value: Sym) {
        if self.find(w).is_some() {
            return;
        }
        self.shortest = if self.keys.is_empty() {
            w.len()
        } else {
            self.shortest.min(w.len())
        };
        self.longest = self.longest.max(w.len());
        let (lo, hi) = word_key(w.as_bytes());
        self.entries.push((lo, hi, w.len()));
        self.keys.push(w.into());
        self.values.push(value);
        if self.keys.len() * 2 > self.slots.len() {
            let n = (self.keys.len() * 2).next_power_of_two().max(16);
            self.slots = vec![(0, 0); n].into();
            for e in 0..self.keys.len() {
                self.place(e);
            }
        } else {
            self.place(self.keys.len() - 1);
        }
    }

    fn place(&mut self, e: usize) {
        let (lo, hi, n) = self.entries[e];
        let h = key_hash((lo, hi), n);
        let mask = self.slots.len() - 1;
        let mut i = h as usize & mask;
        while self.slots[i].1 != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = ((h >> 32) as u32, e as u32 + 1);
    }
}

impl std::ops::Index<&str> for WordMap {
    type Output = Sym;

    /// The number of a word known to be there.
    fn index(&self, w: &str) -> &Sym {
        match self.find(w) {
            Some(i) => &self.values[i],
            None => panic!("`{w}` is not in the vocabulary"),
        }
    }
}

/// A set of words, as one bit per vocabulary word.
#[derive(Debug, Clone, Default)]
struct WordSet(Box<[u64]>);

impl WordSet {
    fn contains(&self, s: Sym) -> bool {
        self.0
            .get(s as usize / 64)
            .is_some_and(|w| w >> (s % 64) & 1 == 1)
    }

    fn any(&self, list: &[Sym]) -> bool {
        list.iter().any(|&s| self.contains(s))
    }

    /// The words of the set.
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| {
            (0..64)
                .filter(move |b| w >> b & 1 == 1)
                .map(move |b| i * 64 + b)
        })
    }
}

/// Which conds (a bit each) one condition lets through: those without it, and by word
/// number those whose list names the word.
#[derive(Debug, Clone, Default)]
struct Bits {
    free: u64,
    by_word: Box<[u64]>,
}

impl Bits {
    #[inline]
    fn of(&self, s: Sym) -> u64 {
        self.by_word.get(s as usize).copied().unwrap_or(0)
    }

    /// The conds the condition lets through when any of `list` must be named.
    #[inline]
    fn any(&self, list: &[Sym]) -> u64 {
        list.iter().fold(self.free, |m, &s| m | self.of(s))
    }

    fn add(&mut self, bit: u64, set: Option<&WordSet>, words: usize) {
        let Some(set) = set else {
            self.free |= bit;
            return;
        };
        if self.by_word.is_empty() {
            self.by_word = vec![0; words].into();
        }
        for s in set.iter() {
            self.by_word[s] |= bit;
        }
    }
}

/// A yes/no condition as bits: the conds without it, and those that want no or yes.
#[derive(Debug, Clone, Default)]
struct Flag {
    free: u64,
    want: [u64; 2],
}

impl Flag {
    fn add(&mut self, bit: u64, want: Option<bool>) {
        match want {
            None => self.free |= bit,
            Some(w) => self.want[usize::from(w)] |= bit,
        }
    }

    #[inline]
    fn at(&self, fact: bool) -> u64 {
        self.free | self.want[usize::from(fact)]
    }
}

/// Every rule's conds, and the conds of their `unless`, as one bit each: an action's facts
/// are matched against all of them at once, each fact word letting through the conds that
/// name it, rather than rule by rule.
#[derive(Debug, Clone, Default)]
struct Index {
    /// The rules' bits (the first ones).
    rules: u64,
    /// Every cond's bit.
    all: u64,
    /// `(cond, its unless)`, each `unless` after its cond.
    unless: Vec<(usize, usize)>,
    /// The conds with a `verb` condition.
    verb_conds: u64,
    /// By verb source: the conds whose `verb` reads it and names the word.
    verbs: [Bits; 7],
    method: Bits,
    only_methods: Bits,
    no_http: Flag,
    function: Bits,
    name_token: Bits,
    name_last: Bits,
    path_segment: Bits,
    path_last: Bits,
    path_item: Flag,
    action_type: Bits,
    input: Bits,
    free_input: Bits,
    input_word: Bits,
    dispatch: Flag,
}

impl Index {
    /// Nothing when there are more conds than bits in a word.
    fn new(c: &Compiled) -> Option<Index> {
        let mut conds: Vec<&Cond> = c.conds.iter().collect();
        let mut ix = Index::default();
        let mut i = 0;
        while i < conds.len() {
            if let Some(u) = conds[i].unless.as_deref() {
                ix.unless.push((i, conds.len()));
                conds.push(u);
            }
            i += 1;
        }
        if conds.len() > 64 {
            return None;
        }
        let words = c.words.len();
        ix.rules = low_bits(c.conds.len());
        ix.all = low_bits(conds.len());
        for (i, cond) in conds.iter().enumerate() {
            let bit = 1 << i;
            match &cond.verb {
                Some(v) => {
                    ix.verb_conds |= bit;
                    for &src in &v.from {
                        ix.verbs[src].add(bit, Some(&v.words), words);
                    }
                }
                None => {
                    for b in &mut ix.verbs {
                        b.free |= bit;
                    }
                }
            }
            ix.method.add(bit, cond.method.as_ref(), words);
            ix.only_methods.add(bit, cond.only_methods.as_ref(), words);
            ix.no_http.add(bit, cond.no_http);
            ix.function.add(bit, cond.function.as_ref(), words);
            ix.name_token.add(bit, cond.name_token.as_ref(), words);
            ix.name_last.add(bit, cond.name_last.as_ref(), words);
            ix.path_segment.add(bit, cond.path_segment.as_ref(), words);
            ix.path_last.add(bit, cond.path_last.as_ref(), words);
            ix.path_item.add(bit, cond.path_item);
            ix.action_type.add(bit, cond.action_type.as_ref(), words);
            ix.input.add(bit, cond.input.as_ref(), words);
            ix.free_input.add(bit, cond.free_input.as_ref(), words);
            ix.input_word.add(bit, cond.input_word.as_ref(), words);
            ix.dispatch.add(bit, cond.dispatch);
        }
        Some(ix)
    }

    /// What `Compiled::eval` concludes for every rule, in rule order.
    fn fire(&self, f: &Facts, rules: &[Rule], out: &mut Vec<Fired>) {
        // A verb condition holds through any of its sources; it is ambiguous when every
        // source it holds through has an ambiguous verb.
        let (mut verb, mut plain) = (self.verbs[0].free, 0);
        for (src, bits) in self.verbs.iter().enumerate() {
            if let Some((word, ambiguous)) = f.verbs[src] {
                let m = bits.of(word);
                verb |= m;
                if !ambiguous {
                    plain |= m;
                }
            }
        }
        let one = |b: &Bits, s: Option<Sym>| b.free | s.map_or(0, |s| b.of(s));
        let only_methods = self.only_methods.free
            | if f.has_method && !f.unknown_method {
                f.methods
                    .iter()
                    .fold(!0, |m, &s| m & self.only_methods.of(s))
            } else {
                0
            };
        let mut held = self.all
            & verb
            & self.method.any(&f.methods)
            & only_methods
            & self.no_http.at(!f.has_method)
            & self.function.any(&f.functions)
            & self.name_token.any(&f.id_tokens)
            & one(&self.name_last, f.id_last)
            & self.path_segment.any(&f.segments)
            & self.path_last.any(&f.path_lasts)
            & self.path_item.at(f.path_item)
            & one(&self.action_type, f.action_type)
            & self.input.any(&f.inputs)
            & self.free_input.any(&f.free_inputs)
            & self.input_word.any(&f.input_words)
            & self.dispatch.at(f.dispatch);
        // An `unless` excludes only when it holds itself: settle the last ones first.
        for &(cond, unless) in self.unless.iter().rev() {
            if held >> unless & 1 == 1 {
                held &= !(1 << cond);
            }
        }
        let mut rest = held & self.rules;
        while rest != 0 {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let ambiguous = (self.verb_conds & !plain) >> i & 1 == 1;
            out.push(fired(i, &rules[i], ambiguous));
        }
    }
}

/// A pair of bytes as a number, each with bit `0x20` set: ASCII letters in either case
/// give the same number.
fn opening(a: u8, b: u8) -> usize {
    usize::from(a | 0x20) << 8 | usize::from(b | 0x20)
}

/// The lowest `n` bits set.
fn low_bits(n: usize) -> u64 {
    if n >= 64 { !0 } else { (1 << n) - 1 }
}

/// A `When` with its word lists as word sets.
#[derive(Debug, Clone, Default)]
struct Cond {
    verb: Option<VerbCond>,
    method: Option<WordSet>,
    only_methods: Option<WordSet>,
    no_http: Option<bool>,
    function: Option<WordSet>,
    name_token: Option<WordSet>,
    name_last: Option<WordSet>,
    path_segment: Option<WordSet>,
    path_last: Option<WordSet>,
    path_item: Option<bool>,
    action_type: Option<WordSet>,
    input: Option<WordSet>,
    free_input: Option<WordSet>,
    input_word: Option<WordSet>,
    dispatch: Option<bool>,
    unless: Option<Box<Cond>>,
}

#[derive(Debug, Clone)]
struct VerbCond {
    words: WordSet,
    /// `from`, as source indexes and as a bit mask.
    from: Vec<usize>,
    mask: u8,
}

/// The rules in the form matching uses. A signal word that no rule names can match
/// nothing, so signals keep only the numbers of the words rules name.
#[derive(Clone, Default)]
struct Compiled {
    words: WordMap,
    /// By word number: in the verb lexicon; also a common noun.
    verb: Vec<bool>,
    noun: Vec<bool>,
    /// Every `input_word`, ASCII-lower-cased, to the word of the set that
    /// `eq_ignore_ascii_case` finds first (as `RuleSet::signals` keeps it).
    input_words: WordMap,
    /// A bit for each pair of bytes (`| 0x20`, which keeps equal what ASCII lower-casing
    /// makes equal) that opens an input word; empty when a word is shorter than a pair.
    input_openings: Box<[u64]>,
    conds: Vec<Cond>,
    /// The verb sources some rule reads: the others need not be looked at.
    sources: [bool; 7],
    /// The rules' conditions as bits, when they fit.
    index: Option<Index>,
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Compiled")
            .field("words", &self.words.len())
            .finish_non_exhaustive()
    }
}

/// A description's verb is its first word that is not a lead-in ("This tool will", "Use
/// this to") or an adverb ("Permanently deletes"); nothing when that word is not a known
/// verb, since later words describe the result or a subordinate clause, not the action.
fn is_lead_in(word: &str) -> bool {
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
    LEAD_INS.contains(&word) || word.ends_with("ly")
}

/// A verb of one source: its word, and whether it is ambiguous (also a common noun, and no
/// other verb there).
type FoundVerb = Option<(Sym, bool)>;

impl Compiled {
    /// `whens` in order; the verb lexicon, nouns and input words are those of `set`.
    fn new(whens: &[&When], set: &RuleSet) -> Compiled {
        let mut c = Compiled::default();
        let mut all = Vec::new();
        for w in whens {
            w.words(&mut all);
        }
        for w in all
            .iter()
            .copied()
            .chain(set.lexicon.iter().map(String::as_str))
        {
            c.intern(w);
        }
        for w in &set.input_words {
            c.intern(w);
        }
        let n = c.words.len();
        c.verb = vec![false; n];
        c.noun = vec![false; n];
        for w in &set.lexicon {
            let s = c.words[w.as_str()] as usize;
            c.verb[s] = true;
            c.noun[s] = set.nouns_too.contains(w);
        }
        for w in &set.input_words {
            let s = c.words[w.as_str()];
            c.input_words.insert(&w.to_ascii_lowercase(), s);
        }
        if c.input_words.shortest >= 2 {
            let mut bits = vec![0u64; 1 << 10];
            for w in &c.input_words.keys {
                let k = opening(w.as_bytes()[0], w.as_bytes()[1]);
                bits[k / 64] |= 1 << (k % 64);
            }
            c.input_openings = bits.into();
        }
        c.conds = whens.iter().map(|w| c.cond(w)).collect();
        c
    }

    /// Whether `text` could have an input word: whether a pair of its bytes opens one.
    /// Input descriptions are long, and seldom have one.
    fn may_have_input_word(&self, text: &str) -> bool {
        let bits = &self.input_openings;
        if bits.is_empty() {
            return true;
        }
        let b = text.as_bytes();
        (1..b.len()).any(|i| {
            let k = opening(b[i - 1], b[i]);
            bits[k / 64] >> (k % 64) & 1 == 1
        })
    }

    fn intern(&mut self, w: &str) {
        let n = self.words.len() as Sym;
        self.words.insert(w, n);
    }

    #[inline]
    fn sym(&self, w: &str) -> Option<Sym> {
        self.words.get(w)
    }

    fn lexicon(&self, w: &str) -> Option<Sym> {
        self.sym(w).filter(|&s| self.verb[s as usize])
    }

    fn set(&self, list: &Option<Vec<String>>) -> Option<WordSet> {
        let list = list.as_ref()?;
        let mut bits = vec![0u64; self.words.len().div_ceil(64)];
        for w in list {
            let s = self.words[w.as_str()] as usize;
            bits[s / 64] |= 1 << (s % 64);
        }
        Some(WordSet(bits.into()))
    }

    fn cond(&mut self, w: &When) -> Cond {
        let verb = self.set(&w.verb).map(|words| {
            let from = w.from.as_deref().unwrap_or(DEFAULT_SOURCES);
            for src in from {
                self.sources[*src as usize] = true;
            }
            VerbCond {
                words,
                from: from.iter().map(|s| *s as usize).collect(),
                mask: from.iter().fold(0, |m, s| m | 1 << *s as u8),
            }
        });
        Cond {
            verb,
            method: self.set(&w.method),
            only_methods: self.set(&w.only_methods),
            no_http: w.no_http,
            function: self.set(&w.function),
            name_token: self.set(&w.name_token),
            name_last: self.set(&w.name_last),
            path_segment: self.set(&w.path_segment),
            path_last: self.set(&w.path_last),
            path_item: w.path_item,
            action_type: self.set(&w.action_type),
            input: self.set(&w.input),
            free_input: self.set(&w.free_input),
            input_word: self.set(&w.input_word),
            dispatch: w.dispatch,
            unless: w.unless.as_deref().map(|u| Box::new(self.cond(u))),
        }
    }

    /// The verb of a description's opening word, in any inflection.
    fn stem_verb(&self, word: &str, form: &mut String) -> FoundVerb {
        let mut found = None;
        each_stem(word, form, |f| {
            found = self.lexicon(f);
            found.is_some()
        });
        found.map(|s| (s, false))
    }

    /// Whether `cond` holds: `None` when a condition fails; otherwise `Some(ambiguous)`,
    /// true when the `verb` condition held only through a verb that is also a common noun.
    fn eval(&self, cond: &Cond, f: &Facts) -> Option<bool> {
        let mut ambiguous = false;
        if let Some(v) = &cond.verb {
            if f.verb_sources & v.mask == 0 {
                return None;
            }
            let (mut found, mut all_ambiguous) = (false, true);
            for (word, amb) in v.from.iter().filter_map(|&src| f.verbs[src]) {
                if v.words.contains(word) {
                    found = true;
                    all_ambiguous &= amb;
                }
            }
            if !found {
                return None;
            }
            ambiguous = all_ambiguous;
        }
        let any = |set: &Option<WordSet>, list: &[Sym]| set.as_ref().is_none_or(|w| w.any(list));
        let one = |set: &Option<WordSet>, s: Option<Sym>| {
            set.as_ref()
                .is_none_or(|w| s.is_some_and(|s| w.contains(s)))
        };
        let held = any(&cond.method, &f.methods)
            && cond.only_methods.as_ref().is_none_or(|w| {
                f.has_method && !f.unknown_method && f.methods.iter().all(|&m| w.contains(m))
            })
            && cond.no_http.is_none_or(|want| f.has_method != want)
            && any(&cond.function, &f.functions)
            && any(&cond.name_token, &f.id_tokens)
            && one(&cond.name_last, f.id_last)
            && any(&cond.path_segment, &f.segments)
            && any(&cond.path_last, &f.path_lasts)
            && cond.path_item.is_none_or(|want| f.path_item == want)
            && one(&cond.action_type, f.action_type)
            && any(&cond.input, &f.inputs)
            && any(&cond.free_input, &f.free_inputs)
            && any(&cond.input_word, &f.input_words)
            && cond.dispatch.is_none_or(|want| f.dispatch == want);
        let excluded = cond
            .unless
            .as_deref()
            .is_some_and(|u| self.eval(u, f).is_some());
        (held && !excluded).then_some(ambiguous)
    }

    fn evaluate(&self, cond: &Cond, f: &Facts) -> bool {
        self.eval(cond, f).is_some()
    }
}

impl When {
    /// Every word the conditions name, `unless` included.
    fn words<'a>(&'a self, out: &mut Vec<&'a str>) {
        for list in [
            &self.method,
            &self.only_methods,
            &self.function,
            &self.verb,
            &self.name_token,
            &self.name_last,
            &self.path_segment,
            &self.path_last,
            &self.action_type,
            &self.input,
            &self.free_input,
            &self.input_word,
        ]
        .into_iter()
        .flatten()
        {
            out.extend(list.iter().map(String::as_str));
        }
        if let Some(u) = &self.unless {
            u.words(out);
        }
    }
}

/// The verb of a name, fed one word at a time: the first word that is a verb and not also
/// a common noun; failing that, the first verb that is also a noun, marked ambiguous.
/// Words match exactly: in a name, `builds` or `logs` are nouns.
#[derive(Default)]
struct NameVerb {
    seen: bool,
    first: Option<Sym>,
    plain: Option<Sym>,
    any: Option<Sym>,
}

impl NameVerb {
    fn feed(&mut self, word: Option<Sym>, c: &Compiled) {
        let opens = !std::mem::replace(&mut self.seen, true);
        let Some(s) = word.filter(|&s| c.verb[s as usize]) else {
            return;
        };
        if opens {
            self.first = Some(s);
        }
        self.any = self.any.or(Some(s));
        if self.plain.is_none() && !c.noun[s as usize] {
            self.plain = Some(s);
        }
    }

    fn of<'w>(words: impl IntoIterator<Item = &'w String>, c: &Compiled) -> FoundVerb {
        let mut v = NameVerb::default();
        for w in words {
            v.feed(c.sym(w), c);
        }
        v.verb()
    }

    fn verb(&self) -> FoundVerb {
        // Only verbs that are also nouns: one that opens the name is its verb
        // (`search_contacts`, `run_report`); one further in is probably a noun (`wql_query`).
        self.plain
            .or(self.first)
            .map(|s| (s, false))
            .or(self.any.map(|s| (s, true)))
    }
}

/// What rules look at, as word numbers; words no rule names are left out (but still count
/// where position or presence matters: the last word of the id, an unknown method).
#[derive(Debug, Default)]
struct Facts {
    has_method: bool,
    unknown_method: bool,
    methods: Vec<Sym>,
    functions: Vec<Sym>,
    id_tokens: Vec<Sym>,
    id_last: Option<Sym>,
    segments: Vec<Sym>,
    /// The last segment of each path that ends in neither a parameter nor a custom method.
    path_lasts: Vec<Sym>,
    path_item: bool,
    dispatch: bool,
    action_type: Option<Sym>,
    inputs: Vec<Sym>,
    free_inputs: Vec<Sym>,
    input_words: Vec<Sym>,
    /// By `VerbSource`.
    verbs: [FoundVerb; 7],
    /// A bit per source with a verb, so rules that read other sources fail at once.
    verb_sources: u8,
    buf: String,
    form: String,
}

/// The verb of a description, as `Signals::keeping` and `is_lead_in` find it: among the
/// first 12 words of its first sentence. Where that sentence ends only matters when the
/// verb's word could lie beyond it, so it is rarely looked for.
fn description_verb(d: &str, c: &Compiled, buf: &mut String, form: &mut String) -> FoundVerb {
    let head = sentence_head(d);
    let mut words = raw_words(head);
    for _ in 0..12 {
        let word = lower(words.next()?, buf);
        if is_lead_in(word) {
            continue;
        }
        // The sentence ends at a `.` or a line break, or at the end of the head.
        let end = words.offset();
        let before = &head.as_bytes()[..end];
        if before.iter().any(|&b| b == b'.' || b == b'\n') && sentence_end(head) < end {
            return None;
        }
        return c.stem_verb(word, form);
    }
    None
}

const ID: usize = VerbSource::Id as usize;
const LABEL: usize = VerbSource::Label as usize;
const DESCRIPTION: usize = VerbSource::Description as usize;
const RPC: usize = VerbSource::Rpc as usize;
const CUSTOM: usize = VerbSource::Custom as usize;
const SOAP: usize = VerbSource::Soap as usize;
const SELECTOR: usize = VerbSource::Selector as usize;

/// Reads one path into `Facts`.
struct PathFacts<'f> {
    facts: &'f mut Facts,
    c: &'f Compiled,
    /// The action's last path: its RPC method, custom method and selectors give verbs.
    last: bool,
    tokens: String,
    last_segment: Option<Sym>,
    item: bool,
    custom: bool,
    rpc: NameVerb,
    custom_verb: NameVerb,
    selector: NameVerb,
}

impl PathSink for PathFacts<'_> {
    fn segment(&mut self, lower: &str) {
        self.last_segment = self.c.sym(lower);
        self.facts.segments.extend(self.last_segment);
    }
    fn item(&mut self, item: bool) {
        self.item = item;
    }
    fn custom(&mut self, raw: &str) {
        let (c, verb) = (self.c, &mut self.custom_verb);
        let mut words = false;
        each_token(raw, &mut self.tokens, |t| {
            words = true;
            verb.feed(c.sym(t), c);
        });
        self.custom = words;
    }
    fn rpc(&mut self, raw: &str) {
        if self.last && self.c.sources[RPC] {
            let (c, verb) = (self.c, &mut self.rpc);
            each_token(raw, &mut self.tokens, |t| verb.feed(c.sym(t), c));
        }
    }
    fn selector(&mut self, raw: &str) {
        if self.last && self.c.sources[SELECTOR] {
            let (c, verb) = (self.c, &mut self.selector);
            each_token(raw, &mut self.tokens, |t| verb.feed(c.sym(t), c));
        }
    }
    fn dispatch(&mut self) {
        self.facts.dispatch = true;
    }
}

impl Facts {
    fn clear(&mut self) {
        self.has_method = false;
        self.unknown_method = false;
        self.methods.clear();
        self.functions.clear();
        self.id_tokens.clear();
        self.id_last = None;
        self.segments.clear();
        self.path_lasts.clear();
        self.path_item = false;
        self.dispatch = false;
        self.action_type = None;
        self.inputs.clear();
        self.free_inputs.clear();
        self.input_words.clear();
        self.verbs = [None; 7];
    }

    fn method(&mut self, m: &str, c: &Compiled) {
        self.has_method = true;
        match c.sym(m) {
            Some(s) => self.methods.push(s),
            None => self.unknown_method = true,
        }
    }

    /// What `RuleSet::signals` would give, read from the view: this is where
    /// classification spends its time, so no word is allocated.
    fn fill_view(&mut self, view: &ActionView, c: &Compiled) {
        self.clear();
        let mut buf = std::mem::take(&mut self.buf);
        let mut form = std::mem::take(&mut self.form);
        for step in &view.steps {
            if let Some(m) = &step.method {
                self.method(m, c);
            }
            if let Some(s) = step.function.as_deref().and_then(|f| c.sym(f)) {
                self.functions.push(s);
            }
        }
        let mut verb = NameVerb::default();
        let mut last = None;
        each_token(&view.id, &mut buf, |t| {
            let s = c.sym(t);
            verb.feed(s, c);
            self.id_tokens.extend(s);
            last = Some(s);
        });
        self.id_last = last.flatten();
        self.verbs[ID] = verb.verb();
        if c.sources[LABEL]
            && let Some(label) = &view.label
        {
            let mut verb = NameVerb::default();
            for w in raw_words(label) {
                verb.feed(c.sym(lower(w, &mut buf)), c);
            }
            self.verbs[LABEL] = verb.verb();
        }
        if c.sources[DESCRIPTION]
            && let Some(d) = &view.description
        {
            self.verbs[DESCRIPTION] = description_verb(d, c, &mut buf, &mut form);
        }
        let paths = view.steps.iter().filter(|s| s.url.is_some()).count();
        for (i, url) in view.urls().enumerate() {
            let mut p = PathFacts {
                facts: self,
                c,
                last: i + 1 == paths,
                tokens: std::mem::take(&mut form),
                last_segment: None,
                item: false,
                custom: false,
                rpc: NameVerb::default(),
                custom_verb: NameVerb::default(),
                selector: NameVerb::default(),
            };
            walk_path(url, &mut buf, &mut p);
            form = std::mem::take(&mut p.tokens);
            if !p.item
                && !p.custom
                && let Some(s) = p.last_segment
            {
                p.facts.path_lasts.push(s);
            }
            p.facts.path_item |= p.item;
            if p.last {
                let (rpc, custom, selector) =
                    (p.rpc.verb(), p.custom_verb.verb(), p.selector.verb());
                self.verbs[RPC] = rpc;
                self.verbs[CUSTOM] = custom;
                self.verbs[SELECTOR] = selector;
            }
        }
        if c.sources[SOAP]
            && let Some(op) = view
                .steps
                .iter()
                .rev()
                .find_map(|s| s.soap_operation.as_deref())
        {
            let mut verb = NameVerb::default();
            each_token(op, &mut buf, |t| verb.feed(c.sym(t), c));
            self.verbs[SOAP] = verb.verb();
        }
        if let Some(t) = &view.action_type {
            self.action_type = c.sym(ascii_lower(t, &mut buf));
        }
        for input in &view.inputs {
            if let Some(s) = c.sym(ascii_lower(&input.name, &mut buf)) {
                self.inputs.push(s);
                if input.enum_values.is_empty()
                    && matches!(input.ty.as_deref(), None | Some("string"))
                {
                    self.free_inputs.push(s);
                }
            }
            let Some(description) = input.description.as_deref() else {
                continue;
            };
            if c.input_words.len() == 0 || !c.may_have_input_word(description) {
                continue;
            }
            for w in raw_words(description) {
                let (shortest, longest) = (c.input_words.shortest, c.input_words.longest);
                if w.len() < shortest || w.len() > longest {
                    continue;
                }
                if let Some(s) = c.input_words.get(ascii_lower(w, &mut buf)) {
                    self.input_words.push(s);
                }
            }
        }
        self.buf = buf;
        self.form = form;
        self.seal();
    }

    fn seal(&mut self) {
        self.verb_sources = (0..7).fold(0, |m, i| m | u8::from(self.verbs[i].is_some()) << i);
    }

    fn fill_signals(&mut self, s: &Signals, c: &Compiled) {
        self.clear();
        for m in &s.methods {
            self.method(m, c);
        }
        let syms = |list: &[String]| list.iter().filter_map(|w| c.sym(w)).collect::<Vec<_>>();
        self.functions = syms(&s.functions);
        self.id_tokens = syms(&s.id_tokens);
        self.id_last = s.id_tokens.last().and_then(|w| c.sym(w));
        self.verbs[ID] = NameVerb::of(&s.id_tokens, c);
        self.verbs[LABEL] = NameVerb::of(&s.label_tokens, c);
        self.verbs[DESCRIPTION] = s
            .description_tokens
            .iter()
            .find(|w| !is_lead_in(w))
            .and_then(|w| c.stem_verb(w, &mut String::new()));
        for p in &s.paths {
            self.segments
                .extend(p.segments.iter().filter_map(|w| c.sym(w)));
            if !p.item
                && p.custom.is_empty()
                && let Some(l) = p.segments.last().and_then(|w| c.sym(w))
            {
                self.path_lasts.push(l);
            }
            self.path_item |= p.item;
            self.dispatch |= p.dispatch;
        }
        // Only the last call counts: earlier steps of a multi-step action usually read
        // what the last one needs, and a read that feeds a write is still a write.
        if let Some(p) = s.paths.last() {
            self.verbs[RPC] = NameVerb::of(&p.rpc, c);
            self.verbs[CUSTOM] = NameVerb::of(&p.custom, c);
            self.verbs[SELECTOR] = NameVerb::of(&p.selectors, c);
        }
        if let Some(op) = s.soap.last() {
            self.verbs[SOAP] = NameVerb::of(op, c);
        }
        self.action_type = s.action_type.as_deref().and_then(|t| c.sym(t));
        self.inputs = syms(&s.inputs);
        self.free_inputs = syms(&s.free_string_inputs);
        self.input_words = syms(&s.input_description_words);
        self.seal();
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

    /// Inference reads the view directly; it must fire exactly what the signals would.
    #[test]
    fn rules_fire_alike_from_view_and_signals() {
        let set = RuleSet::builtin().unwrap();
        let mut views: Vec<ActionView> = set
            .rules
            .iter()
            .flat_map(|r| r.examples.matches.iter().chain(&r.examples.no_match))
            .map(Example::view)
            .collect();
        let odd = [
            (
                "getUsersHTTPList",
                "This tool will\nquickly Deletes. it",
                "/v1/{id}:batchGet",
            ),
            (
                "Σ_delete",
                "Use this to. Fetch users",
                "https://h/rpc?Action=purge&op=${x}",
            ),
            ("wql_query", "Always ÜBER lists", "/a/_Search.json"),
            ("run", "  Permanently\n removes. ", "/files/{id}:-"),
            ("x", "Queries rows.", "/candidate.addTag"),
        ];
        for (id, description, url) in odd {
            views.push(ActionView {
                id: id.into(),
                label: Some(format!("{id} Label")),
                description: Some(description.into()),
                steps: vec![Step {
                    method: Some("post".into()),
                    url: Some(url.into()),
                    soap_operation: Some("Get_Workers".into()),
                    ..Step::default()
                }],
                inputs: vec![Input {
                    name: "Save_To".into(),
                    description: Some("Where to SAVE the file; saves é".into()),
                    ..Input::default()
                }],
                ..ActionView::default()
            });
        }
        for view in &views {
            assert_eq!(
                set.fire_view(view),
                set.fire_signals(&set.signals(view)),
                "{view:?}"
            );
        }
    }

    #[test]
    fn the_word_map_finds_its_words_and_no_others() {
        let words = [
            "a",
            "ab",
            "abc",
            "abcd",
            "abcde",
            "abcdefgh",
            "abcdefghi",
            "abcdefghijklmnop",
            "abcdefghijklmnopq",
            "abcdefghXjklmnopq",
            "bulk-delete",
            "save",
            "saves",
        ];
        let mut map = WordMap::default();
        assert_eq!(map.get(""), None, "an empty map has no slots to probe");
        assert_eq!(map.get("save"), None);
        for (i, w) in words.iter().enumerate() {
            map.insert(w, i as Sym);
        }
        map.insert("save", 99);
        for (i, w) in words.iter().enumerate() {
            assert_eq!(map.get(w), Some(i as Sym), "{w}");
        }
        for w in [
            "",
            "b",
            "ba",
            "abd",
            "abcdefghijklmnoq",
            "abcdefghYjklmnopq",
            "Save",
            "sav",
        ] {
            assert_eq!(map.get(w), None, "{w}");
        }
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
