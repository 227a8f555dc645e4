//! The vocabulary of a reading, what every stage hands the next: a [`Decision`] and its
//! [`Basis`], the [`Judgement`] of its records (and why it was [`Held`]), and the
//! [`Inference`] they make for one action. Plain data, filled in by the stages.

use super::index::Sym;
use super::known::RuleSet;
use super::name::Verb;
use super::plain::{self, Agreement, Claim, Line};
use super::record::{Count, Key};
use super::terms::{Confidence, Field, ObjectHit, Ref, Veto};
use crate::effects::Effects;

/// What decided a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The verb read from this source.
    Verb(Field),
    /// A change beside a read verb.
    Veto(Veto),
    /// A rule (index).
    Rule(usize),
    /// A hint a person declared in the catalog (`annotations: {readOnlyHint: true}`).
    Declared,
    /// The plain reading (its line, and the read verb the name opens with): nothing departed
    /// from it, or what did was too weak to stand.
    Plain(Line, Option<Sym>),
}

/// A proposal and what it rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub effects: Effects,
    /// The write replaces or modifies existing data.
    pub overwrites: bool,
    pub claim: Claim,
    pub basis: Basis,
    pub agreement: Agreement,
    /// The verb the proposal rests on, if any, and where it was read.
    pub verb: Option<(Field, Verb)>,
    /// An object beside that verb (whether it overruled it or not).
    pub object: Option<ObjectHit>,
    /// What a report lists as deciding, most important first.
    pub deciding: Vec<Ref>,
    /// How many other independent pieces of evidence say the same claim: verbs read in other
    /// places, rules that are not the method restated.
    pub support: u8,
}

/// What the counts say of one proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Judgement {
    pub confidence: Confidence,
    /// The piece of evidence that set the confidence, and its count.
    pub key: Key,
    pub count: Count,
    /// The level was raised to what the patch takes, not earned by the record: a change the
    /// plain reading makes too, where holding it would win nothing (`departure::settle`).
    /// What holds a declared hint to account (`audit`'s `unsafe`) reads the record's own.
    pub raised: bool,
    /// Held for a person whatever the record says, and why (`departure::settle`).
    pub held: Option<Held>,
}

/// Why a proposal is held for a person although a record would have let it be patched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Held {
    /// The API sends its reads as POST, so the POST says nothing, and the plain reading's
    /// last line ("otherwise, a change") rests on nothing else.
    SilentPost,
    /// The API sends its reads as POST, and the name holds a read verb beside what says
    /// change: the method that would have arbitrated says nothing.
    QuietConflict,
    /// The API sends its reads as POST, and the word that says change changed something no
    /// more often than any operation does.
    BaseRate,
    /// No method speaks, and the engine read a read likelier than the plain reading's change
    /// but too weak to patch.
    UnsureRead,
    /// The API makes one call, so nothing shows that its POST says change, and no more than
    /// the POST says what the call does.
    LoneCall,
}

impl Held {
    /// The hold's id, as `heuristics/departures.yaml` and the records name it.
    pub fn id(self) -> &'static str {
        match self {
            Held::SilentPost | Held::BaseRate => "hold-silent-post",
            Held::LoneCall => "hold-lone-post",
            Held::QuietConflict => "hold-quiet-conflict",
            Held::UnsureRead => "hold-unsure-read",
        }
    }
}

/// What inference concluded for one action, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inference {
    /// Empty when unclassified.
    pub effects: Effects,
    pub confidence: Option<Confidence>,
    /// The write replaces or modifies existing data (for the overwrite destructive policy).
    pub overwrites: bool,
    /// The rules that held, by index: for the `unused-heuristic` note.
    pub fired: Vec<usize>,
    /// The decision and what it rests on; `None` when unclassified.
    pub decision: Option<Decision>,
    /// What the measured counts said of it.
    pub judgement: Option<Judgement>,
    /// A read proposal too poor to stand against the POST that says change, which this
    /// inference's change overruled: kept so the counts measure the read as it was made.
    pub overruled: Option<Box<Decision>>,
    /// What the name and method plainly say, which every departure is measured against.
    pub plain: Option<plain::Plain>,
    /// The name's first words were skipped as its group's shared prefix.
    pub prefixed: bool,
}

impl Inference {
    /// What decided, most important first (kept in the decision alone).
    pub fn deciding(&self) -> &[Ref] {
        self.decision.as_ref().map_or(&[], |d| &d.deciding)
    }

    /// The reading a verb was read for: the proposal, or, where the proposal is the plain
    /// reading and the engine read a verb it did not take, the engine's (what the catalog's
    /// declarations are counted and voted by).
    pub fn reading(&self) -> Option<&Decision> {
        match (&self.decision, &self.overruled) {
            (Some(d), Some(e)) if d.verb.is_none() && matches!(d.basis, Basis::Plain(..)) => {
                Some(e)
            }
            (d, _) => d.as_ref(),
        }
    }

    /// The engine's reading beside a plain proposal that it was too weak to depart from:
    /// a doubt.
    pub fn doubt(&self) -> Option<&Decision> {
        match (&self.decision, &self.overruled) {
            (Some(d), Some(e)) if matches!(d.basis, Basis::Plain(..)) && e.claim != d.claim => {
                Some(e)
            }
            _ => None,
        }
    }

    /// Whether a declaration of `effects` says what the doubt says (it settles it).
    pub fn doubted_by(&self, effects: Effects) -> bool {
        self.doubt()
            .is_some_and(|e| Claim::from_effects(effects) == e.claim)
    }

    /// Whether the proposal is at least as sure as `min`: below it, a proposal is listed
    /// for a human, not used.
    pub fn confident(&self, min: Confidence) -> bool {
        self.confidence.is_some_and(|c| c >= min)
    }

    /// Ids of what decided, most important first.
    pub fn deciding_ids<'a>(&self, set: &'a RuleSet) -> Vec<&'a str> {
        self.deciding().iter().map(|&r| set.ref_id(r)).collect()
    }
}
