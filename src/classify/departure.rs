//! Departures: the named ways a proposal differs from the plain reading ([`super::plain`]).
//! A departure moves the claim (read-only or not) off the plain reading's, or holds the
//! action for a human where the plain reading would have been patched. Each has its record
//! against the plain reading on the labelled sets, where it fired, leave-one-provider-out:
//! how often the plain reading was wrong and the departure right (wins), and the other way
//! round (losses) (`heuristics/departures.tsv`, written by `examples/eval.rs --measure`).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::confidence::Held;
use super::decide::{Basis, Claim, Decision, Veto};
use super::evidence::Source;
use super::plain::{Line, Plain};
use super::rules::Examples;
use super::{Confidence, Inference, RuleSet};
use crate::error::{Error, Result};

const DATA: &str = include_str!("../../heuristics/departures.yaml");
const RECORDS: &str = include_str!("../../heuristics/departures.tsv");

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
    /// Its examples are read as actions of an API that sends its reads as POST too
    /// ([`super::Group::posts_reads`]), where the holds of such APIs show.
    #[serde(default)]
    pub posts_reads: bool,
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

    /// The entry a departure is described by.
    pub fn entry(&self, d: Departure, set: &RuleSet) -> Option<&Entry> {
        let id = match d {
            Departure::Rule(_) => "rule".to_owned(),
            d => d.id(set),
        };
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

/// The departure the engine's reading of `inf` is from its plain reading, whether or not
/// it stood: what an example of `heuristics/departures.yaml` is read as.
pub fn considered(inf: &Inference) -> Option<Departure> {
    let plain = inf.plain?;
    if let Some(h) = held(inf) {
        return Some(Departure::Hold(Some(h)));
    }
    let Some(d) = inf.decision.as_ref() else {
        return Some(Departure::Hold(None));
    };
    let reading = match (&d.basis, inf.overruled.as_deref()) {
        (Basis::Plain(..), Some(e)) => e,
        _ => d,
    };
    reading_of(plain, reading, inf.prefixed)
        .or_else(|| (!inf.confident(Confidence::Low)).then_some(Departure::Hold(None)))
}

/// Why `inf` was held for a person whatever its record said, if it was.
fn held(inf: &Inference) -> Option<Held> {
    inf.judgement.and_then(|j| j.held)
}

fn reading_of(plain: Plain, d: &Decision, prefixed: bool) -> Option<Departure> {
    reading(plain, d, prefixed)
}

/// What moved a proposal off the plain reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Departure {
    /// Held for a human: the proposal is below the patch level, for a reason of its own
    /// where it is one of [`Held`] (else its record is too poor, or nothing was read).
    Hold(Option<Held>),
    /// A word of the lexicon opening the name that the plain reading's short list does not
    /// know (`expand_attachment`, `gets_dns_record_set`, `whoami`), by its sense (index).
    Word(u8),
    /// The name's verb read where its naming culture puts it, not as its first word: after a
    /// shared prefix, last in a verb-last name, after the resource (`candidate_list`,
    /// `users_mail_folders_list_messages`).
    Culture,
    /// A GET whose name's verb is a change (`sync_users`, `employees_export`).
    GetChanges,
    /// The verb of the operation a URL or SOAP call names, of the label, of the path's last
    /// segment, of the description.
    Verb(Source),
    /// A read verb overruled by a change beside it.
    Veto(Veto),
    /// A rule of `heuristics/effects.yaml` (index).
    Rule(usize),
    /// A hint a person declared on the action.
    Declared,
    /// The catalog's own declarations.
    Catalog,
}

impl Departure {
    /// The departure's id, as `heuristics/departures.tsv` and `explain` name it.
    pub fn id(self, set: &RuleSet) -> String {
        match self {
            Departure::Hold(None) => "hold".into(),
            Departure::Hold(Some(h)) => h.id().into(),
            Departure::Word(sense) => format!("lexicon-word ({})", set.lexicon.sense(sense).id),
            Departure::Culture => "culture-verb".into(),
            Departure::GetChanges => "get-changes".into(),
            Departure::Verb(s) => format!("verb-of-{}", s.name()),
            Departure::Veto(v) => format!("veto-{}", v.name()),
            Departure::Rule(i) => format!("rule-{}", set.rules[i].id),
            Departure::Declared => "declared-hint".into(),
            Departure::Catalog => "catalog-vote".into(),
        }
    }
}

/// The departure that moved `inf` off its plain reading at the patch level `min`, if any:
/// a hold where the proposal is below `min`, else what decided a claim that differs.
pub fn of(inf: &Inference, min: Confidence) -> Option<Departure> {
    let plain = inf.plain?;
    if !inf.confident(min) || inf.effects.is_empty() {
        return Some(Departure::Hold(held(inf)));
    }
    if Claim::of(inf.effects) == plain.claim {
        return None;
    }
    if inf
        .catalog
        .as_ref()
        .is_some_and(|v| v.did == super::catalog::Did::Overruled)
    {
        return Some(Departure::Catalog);
    }
    reading(plain, inf.decision.as_ref()?, inf.prefixed)
}

/// The departure a reading `d` of the engine's is from `plain`, if its claim differs.
/// `prefixed`: the name's first words were skipped as its group's prefix.
pub fn reading(plain: Plain, d: &Decision, prefixed: bool) -> Option<Departure> {
    if d.claim == plain.claim {
        return None;
    }
    Some(match d.basis {
        // The plain reading of the name past its prefix.
        Basis::Plain(..) if prefixed => Departure::Culture,
        Basis::Plain(..) => return None,
        Basis::Declared => Departure::Declared,
        Basis::Rule(i) => Departure::Rule(i),
        Basis::Veto(v) => Departure::Veto(v),
        Basis::Verb(Source::Name) => match d.verb {
            _ if plain.line == Line::Get && d.claim == Claim::Change => Departure::GetChanges,
            Some((_, v)) if v.index == 0 && !prefixed => Departure::Word(v.sense),
            _ => Departure::Culture,
        },
        Basis::Verb(s) => Departure::Verb(s),
    })
}

/// Whether the departure is one the engine makes, as `heuristics/departures.yaml` says:
/// those whose record against the plain reading did not pay for them are not. A word of a
/// user's own sense is the user's declaration, and always speaks.
pub fn kept(d: Departure, set: &RuleSet) -> bool {
    if let Departure::Word(sense) = d {
        let s = set.lexicon.sense(sense);
        if !super::BUILTIN.iter().any(|(file, _)| *file == s.file) {
            return true;
        }
    }
    set.departures.entry(d, set).is_none_or(|e| e.kept)
}

/// Runs the examples of every departure; one message per example that does not behave.
pub fn check_examples(set: &RuleSet) -> Vec<String> {
    let mut failures = Vec::new();
    for e in &set.departures.entries {
        for (want, list) in [(true, &e.examples.matches), (false, &e.examples.no_match)] {
            for ex in list {
                let group = super::Group {
                    posts_reads: e.posts_reads,
                    ..super::Group::single()
                };
                let inf = super::infer_in(&ex.view(), &group, set);
                let got = considered(&inf).map(|d| match d {
                    Departure::Rule(_) => "rule".to_owned(),
                    d => d.id(set),
                });
                if (got.as_deref() == Some(e.id.as_str())) != want {
                    let how = if want { "should be" } else { "should not be" };
                    failures.push(format!(
                        "heuristics/departures.yaml: `{}`: example {how} read as it: {ex} (read as {})",
                        e.id,
                        got.as_deref().unwrap_or("the plain reading")
                    ));
                }
            }
        }
    }
    failures
}
