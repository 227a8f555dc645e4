//! How sure a proposal is: measured, never chosen.
//!
//! `heuristics/measured.tsv` counts, for every piece of evidence a decision can rest on, how
//! often a proposal resting on it was right on the labelled operations of `heuristics/labelled`
//! (thousands of real API operations and MCP tools, labelled by their own providers; see
//! `examples/eval.rs`, which regenerates the file with `--measure`). A proposal's confidence
//! is read from those counts, most specific first: the verb word where it was read, then the
//! verb's sense in that place, then any verb of that claim with that method; a rule's
//! proposal from that rule's own record only.
//!
//! - **low**: the most specific piece seen at least 3 times was wrong at least twice (one
//!   wrong label proves nothing) and, with 95% confidence, right less than 98% of the time;
//! - **high**: the most specific piece seen at least 10 times was, with 95% confidence, right
//!   at least 98.5% of the time, and nothing more specific was ever wrong;
//! - **medium**: anything else.
//!
//! 98% is the floor for medium; 95% is the usual one-sided bound (z = 1.645). The
//! bound for high was measured: at 98.5% the high claims of the evaluation are right 99.5% of
//! the time or more on openapi-scopes-dev and 99.4% on google-dev (the issue asks 99.5% and
//! 99%), where 99% made a third fewer claims high for no gain (`cargo run --release --example
//! eval -- --cv` prints the table, with the counts measured without each server).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::hash::{BuildHasherDefault, Hasher};

use super::decide::{Agreement, Basis, Claim, Decision, Veto};
use super::evidence::{ObjectHit, Source};
use super::index::Sym;
use super::name::Position;
use super::{Confidence, RuleSet};

/// Where a verb was read, as the counts tell places apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    At(Source),
    /// In the name, found only through an inflection (`step_completed`).
    Inflected,
}

impl Place {
    fn name(self) -> &'static str {
        match self {
            Place::At(s) => s.name(),
            Place::Inflected => "inflected",
        }
    }

    fn parse(s: &str) -> Option<Place> {
        if s == "inflected" {
            return Some(Place::Inflected);
        }
        Source::parse(s).map(Place::At)
    }
}

/// One piece of evidence a proposal can rest on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// A verb word: in prose (label, description) or not, first word of its text or not
    /// (`None`: either), and how the method sits with the claim.
    Word {
        prose: bool,
        word: Sym,
        first: Option<bool>,
        agreement: Agreement,
    },
    /// Any verb of a claim; `None` fields: any sense, any place, any position.
    Context {
        claim: Claim,
        sense: Option<u8>,
        place: Option<Place>,
        first: Option<bool>,
        agreement: Agreement,
    },
    /// An object beside the verb (one word of it, or `None`: any), and whether it overruled
    /// the verb.
    Object {
        object: usize,
        word: Option<Sym>,
        overruled: bool,
    },
    /// A claim a rule decided.
    Rule {
        claim: Claim,
        rule: usize,
        agreement: Agreement,
    },
    /// A read verb overruled by a change beside it.
    Veto {
        claim: Claim,
        veto: Veto,
        agreement: Agreement,
    },
}

/// How often a piece of evidence held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Count {
    pub held: u32,
    pub of: u32,
}

impl Count {
    fn errors(self) -> u32 {
        self.of - self.held
    }

    /// Wrong often enough, and surely enough, to make what it is part of `low`.
    fn demotes(self) -> bool {
        self.errors() >= ERRORS_LOW && self.bounds().2 < MEDIUM
    }

    /// The share that held, with its one-sided 95% Wilson bounds.
    pub fn bounds(self) -> (f64, f64, f64) {
        wilson(self.held, self.of)
    }
}

const Z: f64 = 1.645;
/// The floor for `medium`.
pub const MEDIUM: f64 = 0.98;
/// The floor a `high` piece must clear with 95% confidence.
pub const HIGH: f64 = 0.985;
/// Seen this often, a piece can demote; a single wrong label never does.
const JUDGES_LOW: u32 = 3;
const ERRORS_LOW: u32 = 2;
/// Seen this often, a piece can promote.
const JUDGES_HIGH: u32 = 10;

/// `(share, lower, upper)`: the observed share of `held` in `of` and its one-sided 95%
/// Wilson score bounds (both 0..1; an empty count is `(0, 0, 1)`).
pub fn wilson(held: u32, of: u32) -> (f64, f64, f64) {
    if of == 0 {
        return (0.0, 0.0, 1.0);
    }
    let (k, n) = (f64::from(held), f64::from(of));
    let p = k / n;
    let z2 = Z * Z;
    let d = 1.0 + z2 / n;
    let c = p + z2 / (2.0 * n);
    let r = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    (p, ((c - r) / d).max(0.0), ((c + r) / d).min(1.0))
}

/// FxHash: keys are a few small integers; SipHash would cost more than the lookup.
#[derive(Default)]
struct Fx(u64);

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.write_u64(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// The counts in force.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    counts: HashMap<Key, Count, BuildHasherDefault<Fx>>,
}

/// What the counts say of one proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judgement {
    pub confidence: Confidence,
    /// The piece of evidence that set the confidence, and its count.
    pub key: Key,
    pub count: Count,
}

/// The pieces a decision rests on, most specific first (at most six: no allocation, since
/// every action has one).
#[derive(Debug, Clone, Copy)]
pub struct Chain {
    keys: [Key; 6],
    len: usize,
}

impl std::ops::Deref for Chain {
    type Target = [Key];
    fn deref(&self) -> &[Key] {
        &self.keys[..self.len]
    }
}

impl Chain {
    fn of(keys: &[Key]) -> Chain {
        let mut c = Chain {
            keys: [keys[keys.len() - 1]; 6],
            len: keys.len(),
        };
        c.keys[..keys.len()].copy_from_slice(keys);
        c
    }
}

impl IntoIterator for Chain {
    type Item = Key;
    type IntoIter = std::iter::Take<std::array::IntoIter<Key, 6>>;
    fn into_iter(self) -> Self::IntoIter {
        self.keys.into_iter().take(self.len)
    }
}

/// The pieces a decision rests on, most specific first.
pub fn chain(d: &Decision) -> Chain {
    let (claim, agreement) = (d.claim, d.agreement);
    let any = Key::Context {
        claim,
        sense: None,
        place: None,
        first: None,
        agreement,
    };
    match d.basis {
        Basis::Verb(source) => {
            let Some((_, v)) = d.verb else {
                return Chain::of(&[any]);
            };
            if let Some(o) = d.object {
                return object_keys(o, false);
            }
            let prose = matches!(source, Source::Label | Source::Description);
            let place = if v.inflected && source == Source::Name {
                Place::Inflected
            } else {
                Place::At(source)
            };
            let first = Some(v.position == Position::First);
            let context = |place, first| Key::Context {
                claim,
                sense: Some(v.sense),
                place,
                first,
                agreement,
            };
            Chain::of(&[
                Key::Word {
                    prose,
                    word: v.sym,
                    first,
                    agreement,
                },
                Key::Word {
                    prose,
                    word: v.sym,
                    first: None,
                    agreement,
                },
                context(Some(place), first),
                context(Some(place), None),
                context(None, None),
                any,
            ])
        }
        Basis::Veto(Veto::Object) => match d.object {
            Some(o) => object_keys(o, true),
            None => Chain::of(&[any]),
        },
        Basis::Veto(veto) => Chain::of(&[
            Key::Veto {
                claim,
                veto,
                agreement,
            },
            any,
        ]),
        // A rule is its own evidence: the record of verbs says nothing about it, so a rule
        // never measured (a scope, a user's rule) stays medium.
        Basis::Rule(rule) => Chain::of(&[Key::Rule {
            claim,
            rule,
            agreement,
        }]),
    }
}

/// An object is its own evidence, as a rule is: the verbs' record says nothing about it.
fn object_keys(o: ObjectHit, overruled: bool) -> Chain {
    let key = |word| Key::Object {
        object: o.object,
        word,
        overruled,
    };
    Chain::of(&[key(Some(o.word)), key(None)])
}

impl Measured {
    pub fn get(&self, k: &Key) -> Count {
        self.counts.get(k).copied().unwrap_or_default()
    }

    /// The confidence `chain` earns, as the module documentation says.
    pub fn judge(&self, chain: &[Key]) -> Judgement {
        let mut counts = [Count::default(); 6];
        for (c, k) in counts.iter_mut().zip(chain) {
            *c = self.get(k);
        }
        let counts = &counts[..chain.len().min(6)];
        let first_seen = |n: u32| counts.iter().position(|c| c.of >= n);
        let Some(last) = counts.len().checked_sub(1) else {
            return Judgement {
                confidence: Confidence::Medium,
                key: Key::Object {
                    object: 0,
                    word: None,
                    overruled: false,
                },
                count: Count::default(),
            };
        };
        let low = first_seen(JUDGES_LOW).unwrap_or(last);
        let c = counts[low];
        if c.demotes() {
            return Judgement {
                confidence: Confidence::Low,
                key: chain[low],
                count: c,
            };
        }
        let high = first_seen(JUDGES_HIGH).unwrap_or(low);
        let c = counts[high];
        // A general record does not vouch for evidence that has been wrong on its own.
        let contradicted = counts[..high].iter().any(|c| c.errors() > 0);
        let confidence = if c.of > 0 && !contradicted && c.bounds().1 >= HIGH {
            Confidence::High
        } else {
            Confidence::Medium
        };
        Judgement {
            confidence,
            key: chain[high],
            count: c,
        }
    }

    /// Reads `heuristics/measured.tsv`; rows naming words, senses or rules not in `set` are
    /// skipped (a user file may have removed them).
    pub fn parse(text: &str, set: &RuleSet) -> Measured {
        let mut m = Measured::default();
        for line in text.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let mut cols = line.split('\t');
            let (Some(key), Some(held), Some(of)) = (cols.next(), cols.next(), cols.next()) else {
                continue;
            };
            let (Ok(held), Ok(of)) = (held.parse(), of.parse()) else {
                continue;
            };
            if let Some(k) = Key::parse(key, set) {
                m.counts.insert(k, Count { held, of });
            }
        }
        m
    }

    /// The counts as `heuristics/measured.tsv`, sorted so the file diffs well.
    pub fn to_tsv(&self, set: &RuleSet) -> String {
        let mut rows: BTreeMap<String, Count> = BTreeMap::new();
        for (k, c) in &self.counts {
            rows.insert(k.text(set), *c);
        }
        let mut out = String::from(HEADER);
        for (k, c) in rows {
            let _ = writeln!(out, "{k}\t{}\t{}", c.held, c.of);
        }
        out
    }
}

const HEADER: &str = "# How often each piece of evidence held on the labelled operations of heuristics/labelled.\n\
# Generated by `cargo run --release --example eval -- --measure`; do not edit (a test compares).\n\
# key\theld\tof\n";

fn agreement(s: &str) -> Option<Agreement> {
    Agreement::ALL.into_iter().find(|a| a.name() == s)
}

fn claim(s: &str) -> Option<Claim> {
    [Claim::Read, Claim::Change]
        .into_iter()
        .find(|c| c.name() == s)
}

fn first(s: &str) -> Option<Option<bool>> {
    match s {
        "first" => Some(Some(true)),
        "later" => Some(Some(false)),
        "*" => Some(None),
        _ => None,
    }
}

fn first_text(f: Option<bool>) -> &'static str {
    match f {
        Some(true) => "first",
        Some(false) => "later",
        None => "*",
    }
}

impl Key {
    /// The key as a `measured.tsv` key.
    pub fn text(&self, set: &RuleSet) -> String {
        let lex = &set.lexicon;
        match *self {
            Key::Word {
                prose,
                word,
                first,
                agreement,
            } => format!(
                "word {} {} {} {}",
                if prose { "prose" } else { "name" },
                lex.word(word),
                first_text(first),
                agreement.name()
            ),
            Key::Context {
                claim,
                sense,
                place,
                first,
                agreement,
            } => format!(
                "context {} {} {} {} {}",
                claim.name(),
                sense.map_or("*", |s| lex.sense(s).id.as_str()),
                place.map_or("*", Place::name),
                first_text(first),
                agreement.name()
            ),
            Key::Object {
                object,
                word,
                overruled,
            } => format!(
                "object {} {} {}",
                lex.objects[object].id,
                word.map_or("*", |w| lex.word(w)),
                if overruled { "overruled" } else { "kept" }
            ),
            Key::Rule {
                claim,
                rule,
                agreement,
            } => format!(
                "rule {} {} {}",
                claim.name(),
                set.rules[rule].id,
                agreement.name()
            ),
            Key::Veto {
                claim,
                veto,
                agreement,
            } => format!("veto {} {} {}", claim.name(), veto.name(), agreement.name()),
        }
    }

    fn parse(text: &str, set: &RuleSet) -> Option<Key> {
        let lex = &set.lexicon;
        let f: Vec<&str> = text.split(' ').collect();
        let sense = |s: &str| {
            if s == "*" {
                return Some(None);
            }
            lex.senses
                .iter()
                .position(|x| x.id == s)
                .map(|i| Some(i as u8))
        };
        Some(match f.as_slice() {
            ["word", prose, word, pos, a] => Key::Word {
                prose: *prose == "prose",
                word: lex.sym(word)?,
                first: first(pos)?,
                agreement: agreement(a)?,
            },
            ["context", c, s, place, pos, a] => Key::Context {
                claim: claim(c)?,
                sense: sense(s)?,
                place: if *place == "*" {
                    None
                } else {
                    Some(Place::parse(place)?)
                },
                first: first(pos)?,
                agreement: agreement(a)?,
            },
            ["object", id, word, how] => Key::Object {
                object: lex.objects.iter().position(|o| o.id == *id)?,
                word: if *word == "*" {
                    None
                } else {
                    Some(lex.sym(word)?)
                },
                overruled: *how == "overruled",
            },
            ["rule", c, id, a] => Key::Rule {
                claim: claim(c)?,
                rule: set.rules.iter().position(|r| r.id == *id)?,
                agreement: agreement(a)?,
            },
            ["veto", c, v, a] => Key::Veto {
                claim: claim(c)?,
                veto: Veto::ALL.into_iter().find(|x| x.name() == *v)?,
                agreement: agreement(a)?,
            },
            _ => return None,
        })
    }

    /// The piece of evidence in words, for `explain`.
    pub fn describe(&self, set: &RuleSet) -> String {
        let lex = &set.lexicon;
        let how = |a: Agreement| match a {
            Agreement::Agrees => "with a method that agrees",
            Agreement::Neutral => {
                "with no method that says anything (no HTTP call, or POST on an RPC-style API)"
            }
            Agreement::Disagrees => "with a method that disagrees",
        };
        let at = |f: Option<bool>| match f {
            Some(true) => " as the first word",
            Some(false) => " after the first word",
            None => "",
        };
        match *self {
            Key::Word {
                prose,
                word,
                first,
                agreement,
            } => format!(
                "verb `{}` in a {}{}, {}",
                lex.word(word),
                if prose {
                    "label or description"
                } else {
                    "name, URL or SOAP operation"
                },
                at(first),
                how(agreement)
            ),
            Key::Context {
                claim,
                sense: Some(s),
                place,
                first,
                agreement,
            } => format!(
                "any `{}` verb{}{}, {} ({} claims)",
                lex.sense(s).id,
                place.map_or(String::new(), |p| format!(" read from the {}", p.name())),
                at(first),
                how(agreement),
                claim.name()
            ),
            Key::Context {
                claim, agreement, ..
            } => format!("any {} claim {}", claim.name(), how(agreement)),
            Key::Object {
                object,
                word,
                overruled,
            } => format!(
                "{} `{}` beside the verb{}",
                if word.is_some() {
                    "object"
                } else {
                    "any object of"
                },
                word.map_or(lex.objects[object].id.as_str(), |w| lex.word(w)),
                if overruled { ", overruling it" } else { "" }
            ),
            Key::Rule {
                rule, agreement, ..
            } => format!("rule `{}` {}", set.rules[rule].id, how(agreement)),
            Key::Veto {
                veto, agreement, ..
            } => format!(
                "a read verb overruled by a change in the {} {}",
                veto.name(),
                how(agreement)
            ),
        }
    }
}

/// Collects decisions with their labels and counts them into a [`Measured`].
#[derive(Debug, Default)]
pub struct Tally {
    rows: Vec<(Vec<Key>, bool)>,
}

impl Tally {
    /// One labelled action: the decision made, and whether it really is read-only.
    pub fn add(&mut self, d: &Decision, read_only: bool) {
        self.rows
            .push((chain(d).to_vec(), (d.claim == Claim::Read) == read_only));
    }

    /// Every key counts every row it covers, except that a sense's or claim's context leaves
    /// out the verbs measured unreliable on their own: they are judged by their own counts,
    /// and an unseen verb should not inherit their record.
    pub fn finish(&self) -> Measured {
        let mut m = Measured::default();
        let add = |m: &mut Measured, k: &Key, ok: bool| {
            let c = m.counts.entry(*k).or_default();
            c.of += 1;
            c.held += u32::from(ok);
        };
        for (keys, ok) in &self.rows {
            for k in keys.iter().filter(|k| !matches!(k, Key::Context { .. })) {
                add(&mut m, k, *ok);
            }
        }
        let unreliable = |m: &Measured, keys: &[Key]| {
            keys.iter()
                .any(|k| matches!(k, Key::Word { first: None, .. }) && m.get(k).demotes())
        };
        let contexts: Vec<(Key, bool)> = self
            .rows
            .iter()
            .filter(|(keys, _)| !unreliable(&m, keys))
            .flat_map(|(keys, ok)| {
                keys.iter()
                    .filter(|k| matches!(k, Key::Context { .. }))
                    .map(move |k| (*k, *ok))
            })
            .collect();
        for (k, ok) in contexts {
            add(&mut m, &k, ok);
        }
        m
    }
}
