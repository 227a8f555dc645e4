//! The records, as plain data: how often each piece of evidence held on the labelled sets
//! (`heuristics/measured.tsv`: [`Key`], [`Count`], [`Measured`]) and each departure's record
//! against the plain reading (`heuristics/departures.yaml` and `.tsv`: [`Departures`]). A
//! record's key is read from the lexicon's words and the rules' ids alone, so the records load
//! beside them, below everything that judges by them (`confidence.rs`).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::hash::{BuildHasherDefault, Hasher};

use serde::Deserialize;

use super::example::Examples;
use super::index::Sym;
use super::lexicon::Lexicon;
use super::name::PostSays;
use super::plain::{Agreement, Claim, Line};
use super::rules::Rule;
use super::terms::{Field, Veto};
use crate::error::{Error, Result};

const DATA: &str = include_str!("../../heuristics/departures.yaml");
const RECORDS: &str = include_str!("../../heuristics/departures.tsv");

/// Where a verb was read, as the counts tell places apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    At(Field),
    /// In the name, found only through an inflection (`step_completed`).
    Inflected,
}

impl Place {
    pub(super) fn name(self) -> &'static str {
        match self {
            Place::At(s) => s.name(),
            Place::Inflected => "inflected",
        }
    }

    fn parse(s: &str) -> Option<Place> {
        if s == "inflected" {
            return Some(Place::Inflected);
        }
        Field::parse(s).map(Place::At)
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
    /// How often any labelled operation changed something: what a change claim is
    /// compared with.
    Base,
    /// A hint a person declared in the catalog: never counted, taken at their word.
    Declared,
    /// The plain reading: its line, the read verb the name opens with (`None`: any), and
    /// how the method sits with its claim.
    Plain {
        claim: Claim,
        line: Line,
        word: Option<Sym>,
        agreement: Agreement,
    },
    /// Any claim with this much agreeing evidence: how the method sits, and how many other
    /// independent pieces (verbs read elsewhere, rules) say the same (2: two or more). What a
    /// piece seen in too few providers to speak for itself is worth beside them.
    Support {
        claim: Claim,
        agreement: Agreement,
        others: u8,
    },
}

/// How often a piece of evidence held: in rows, and in providers (the servers, APIs or
/// areas of the labelled sets), since a word one provider uses a thousand times is still one
/// provider's habit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Count {
    pub held: u32,
    pub of: u32,
    /// Providers in which it was seen, and those in which it held on most of their rows.
    pub providers: u32,
    pub providers_held: u32,
    /// The rows of the provider that has the most: the record is judged without them, so no
    /// one provider can make a piece of evidence high or low.
    pub top_held: u32,
    pub top_of: u32,
}

impl Count {
    pub(super) fn errors(self) -> u32 {
        self.of - self.held
    }

    /// The rows without the provider that has the most.
    pub(super) fn broad(self) -> Count {
        Count {
            held: self.held - self.top_held,
            of: self.of - self.top_of,
            ..Count::default()
        }
    }

    /// Seen in enough providers to speak for itself.
    pub fn speaks(self) -> bool {
        self.providers >= PROVIDERS
    }

    /// Wrong often enough, and surely enough (below the floor's share with 95% confidence),
    /// to make what it is part of `low`. All its rows count: one provider that contradicts
    /// it is reason enough for a person to look.
    pub(super) fn demotes(self, floor: Floor) -> bool {
        self.errors() >= floor.errors && surely_below(self.held, self.of, floor.share)
    }

    /// Right often enough, and surely enough, to make a proposal `high`, without its largest
    /// provider too.
    pub(super) fn promotes(self) -> bool {
        let broad = self.broad();
        self.speaks() && broad.of >= JUDGES_HIGH && broad.bounds().1 >= HIGH
    }

    /// The share that held, with its one-sided 95% Wilson bounds.
    pub fn bounds(self) -> (f64, f64, f64) {
        wilson(self.held, self.of)
    }

    /// Good enough to overrule a claim a person made (an MCP server's explicit hint): seen
    /// in enough providers to speak, and right at least [`OVERRULES`] of the time with 95%
    /// confidence. No record of a handful of rows can: even 51 right of 51 stays below.
    /// Measured against the same bar on the record without its largest provider (as `high`
    /// reads it), which caught 0.4-8 points fewer lies on every labelled set and spared no
    /// truthful claim on mcp-dev (docs/evaluation.md, "An author's read-only claim").
    pub fn overrules(self) -> bool {
        self.speaks() && self.bounds().1 >= OVERRULES
    }
}

const Z: f64 = 1.645;
/// The floor a record must clear with 95% confidence to call a person's explicit claim
/// wrong (`audit`'s `unsafe` and `understated`). Measured leave-one-provider-out in
/// `examples/eval` ("an author's read-only claim"): it keeps truthful read-only claims
/// called unsafe at most 2% on every labelled set.
pub const OVERRULES: f64 = 0.95;
/// The floor for `medium`.
pub const MEDIUM: f64 = 0.98;
/// The floor a `high` piece must clear with 95% confidence.
pub const HIGH: f64 = 0.985;
/// What a claim's record must clear to be patched.
#[derive(Debug, Clone, Copy)]
pub struct Floor {
    pub share: f64,
    /// Fewer errors than this never demote.
    pub errors: u32,
}
/// Seen this often (without its largest provider), a piece can promote.
const JUDGES_HIGH: u32 = 10;
/// Seen in this many providers, a piece speaks for itself; below it, it reaches `medium` only
/// with other evidence that agrees (the floor: one or two providers are a habit, not a
/// measurement).
pub const PROVIDERS: u32 = 3;

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

/// Rows up to which "surely below" is the exact binomial test rather than Wilson's bound.
const EXACT_UP_TO: u32 = 100;

/// Whether `held` of `of` is surely (95%, one-sided) below `share`. Over a handful of rows
/// the normal approximation behind Wilson's bound is too eager near 1: it calls 3 of 4
/// surely below 98% (bound 84%), where a rule right 98% of the time errs once or more in
/// four rows 7.8% of the time. Up to [`EXACT_UP_TO`] rows the exact tail is summed
/// (a hundred terms at most); above, Wilson's bound is as good and costs nothing. Measured
/// on the labelled sets: a read verb of the plain reading's list seen in a few rows with one
/// contrary label (`retrieve` outside Square: 3 of 4) is no longer held for it.
pub(super) fn surely_below(held: u32, of: u32, share: f64) -> bool {
    if of > EXACT_UP_TO {
        return wilson(held, of).2 < share;
    }
    if of == 0 || share <= 0.0 {
        return false;
    }
    if share >= 1.0 {
        return held < of;
    }
    // P(at least `of - held` errors) where each row errs with probability `1 - share`.
    let (n, errors, q) = (of, of - held, 1.0 - share);
    let mut term = share.powi(n as i32); // P(0 errors)
    let mut below = 0.0;
    for k in 0..errors {
        below += term;
        term *= f64::from(n - k) / f64::from(k + 1) * q / share;
    }
    1.0 - below < 0.05
}

/// FxHash: keys are a few small integers; SipHash would cost more than the lookup.
#[derive(Default)]
pub(super) struct Fx(u64);

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
    pub(super) counts: HashMap<Key, Count, BuildHasherDefault<Fx>>,
}

impl Measured {
    pub fn get(&self, k: &Key) -> Count {
        self.counts.get(k).copied().unwrap_or_default()
    }

    /// Whether rule `rule` ever decided a labelled operation's change, however its method
    /// stood: a rule never seen there has a declaration behind it, not a record.
    pub fn rule_seen(&self, rule: usize) -> bool {
        Agreement::ALL.into_iter().any(|agreement| {
            self.get(&Key::Rule {
                claim: Claim::Change,
                rule,
                agreement,
            })
            .of > 0
        })
    }

    /// Reads `heuristics/measured.tsv`; rows naming words, senses or rules not in `set` are
    /// skipped (a user file may have removed them).
    pub fn parse(text: &str, lex: &Lexicon, rules: &[Rule]) -> Measured {
        let mut m = Measured::default();
        for line in text.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let mut cols = line.split('\t');
            let Some(key) = cols.next() else { continue };
            let n: Vec<u32> = cols.filter_map(|c| c.parse().ok()).collect();
            let &[held, of, providers_held, providers, top_held, top_of] = n.as_slice() else {
                continue;
            };
            if let Some(k) = Key::parse(key, lex, rules) {
                m.counts.insert(
                    k,
                    Count {
                        held,
                        of,
                        providers,
                        providers_held,
                        top_held,
                        top_of,
                    },
                );
            }
        }
        m
    }

    /// The counts as `heuristics/measured.tsv`, sorted so the file diffs well.
    pub fn to_tsv(&self, lex: &Lexicon, rules: &[Rule]) -> String {
        let mut rows: BTreeMap<String, Count> = BTreeMap::new();
        for (k, c) in &self.counts {
            rows.insert(k.text(lex, rules), *c);
        }
        let mut out = String::from(HEADER);
        for (k, c) in rows {
            let _ = writeln!(
                out,
                "{k}\t{}\t{}\t{}\t{}\t{}\t{}",
                c.held, c.of, c.providers_held, c.providers, c.top_held, c.top_of
            );
        }
        out
    }
}

const HEADER: &str = "# How often each piece of evidence held on the labelled operations of heuristics/labelled.\n\
# Generated by `cargo run --release --example eval -- --measure`; do not edit (a test compares).\n\
# key: the piece of evidence; held/of: rows where the claim resting on it was right, of the rows\n\
# where it decided; providers_held/providers: providers where it held on most of their rows, of\n\
# those where it decided; top_held/top_of: the rows of the provider with the most.\n\
# key\theld\tof\tproviders_held\tproviders\ttop_held\ttop_of\n";

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
    pub fn text(&self, lex: &Lexicon, rules: &[Rule]) -> String {
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
                rules[rule].id,
                agreement.name()
            ),
            Key::Veto {
                claim,
                veto,
                agreement,
            } => format!("veto {} {} {}", claim.name(), veto.name(), agreement.name()),
            Key::Support {
                claim,
                agreement,
                others,
            } => format!("support {} {} {others}", claim.name(), agreement.name()),
            Key::Base => "base change".to_owned(),
            Key::Declared => "declared".to_owned(),
            Key::Plain {
                claim,
                line,
                word,
                agreement,
            } => format!(
                "plain {} {} {} {}",
                claim.name(),
                line.id(),
                word.map_or("*", |w| lex.word(w)),
                agreement.name()
            ),
        }
    }

    fn parse(text: &str, lex: &Lexicon, rules: &[Rule]) -> Option<Key> {
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
                rule: rules.iter().position(|r| r.id == *id)?,
                agreement: agreement(a)?,
            },
            ["veto", c, v, a] => Key::Veto {
                claim: claim(c)?,
                veto: Veto::ALL.into_iter().find(|x| x.name() == *v)?,
                agreement: agreement(a)?,
            },
            ["base", "change"] => Key::Base,
            ["plain", c, l, w, a] => Key::Plain {
                claim: claim(c)?,
                line: Line::ALL.into_iter().find(|x| x.id() == *l)?,
                word: if *w == "*" { None } else { Some(lex.sym(w)?) },
                agreement: agreement(a)?,
            },
            ["support", c, a, n] => Key::Support {
                claim: claim(c)?,
                agreement: agreement(a)?,
                others: n.parse().ok().filter(|n| *n <= 2)?,
            },
            _ => return None,
        })
    }
}

/// One departure as `heuristics/departures.yaml` describes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub id: String,
    /// `read`, `change` or `hold`: which way it moves the plain reading.
    pub toward: String,
    /// Whether the engine makes it: one whose record did not pay for it is not.
    pub kept: bool,
    pub why: String,
    /// What its examples' POST is read to say ([`PostSays`]): `nothing` in an API that sends
    /// its reads as POST too, `unmeasured` as the one call of its API, where those holds show.
    #[serde(default)]
    pub post: PostSays,
    pub examples: Examples,
}

/// Its record against the plain reading on one labelled set and route, leave-one-provider-
/// out: where it fired, how often it was right where the plain reading was wrong (wins),
/// and the other way round (losses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub toward: String,
    pub set: String,
    pub route: String,
    pub fires: u32,
    pub wins: u32,
    pub losses: u32,
    /// Rows where what it proposed was right.
    pub right: u32,
}

/// Every departure and its records.
#[derive(Debug, Clone, Default)]
pub struct Departures {
    pub entries: Vec<Entry>,
    pub records: BTreeMap<String, Vec<Record>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    departures: Vec<Entry>,
}

impl Departures {
    /// The built-in departures and their records.
    pub fn builtin() -> Result<Departures> {
        let file: File = yaml_serde::from_str(DATA)
            .map_err(|e| Error::new(format!("heuristics/departures.yaml: {e}")))?;
        Ok(Departures {
            entries: file.departures,
            records: parse_records(RECORDS),
        })
    }

    /// The entry of id `id`.
    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == id)
    }
}

/// `id<TAB>toward<TAB>set<TAB>route<TAB>fires<TAB>wins<TAB>losses<TAB>right` lines.
fn parse_records(text: &str) -> BTreeMap<String, Vec<Record>> {
    let mut out: BTreeMap<String, Vec<Record>> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let c: Vec<&str> = line.split('\t').collect();
        let [id, toward, set, route, fires, wins, losses, right] = c.as_slice() else {
            continue;
        };
        let n = |s: &str| s.parse().unwrap_or(0);
        out.entry((*id).to_owned()).or_default().push(Record {
            toward: (*toward).to_owned(),
            set: (*set).to_owned(),
            route: (*route).to_owned(),
            fires: n(fires),
            wins: n(wins),
            losses: n(losses),
            right: n(right),
        });
    }
    out
}

/// The records as `heuristics/departures.tsv`.
pub fn records_tsv(records: &BTreeMap<String, Vec<Record>>) -> String {
    let mut out = String::from(
        "# Each departure's record against the plain reading on the labelled sets of heuristics/labelled,\n\
         # leave-one-provider-out, at the default patch level: where it fired, wins (the plain reading\n\
         # wrong and the departure right, or a wrong read-only claim held for a human), losses (the plain\n\
         # reading right and the departure wrong or holding it), and rows where what it proposed was right.\n\
         # Regenerate: cargo run --release --example eval -- --measure\n\
         # id\ttoward\tset\troute\tfires\twins\tlosses\tright\n",
    );
    for (id, rs) in records {
        for r in rs {
            out.push_str(&format!(
                "{id}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                r.toward, r.set, r.route, r.fires, r.wins, r.losses, r.right
            ));
        }
    }
    out
}
