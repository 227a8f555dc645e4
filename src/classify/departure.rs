//! Departures: the named ways a proposal differs from the plain reading ([`super::plain`]).
//! A departure moves the claim (read-only or not) off the plain reading's, or holds the
//! action for a human where the plain reading would have been patched. Each has its record
//! against the plain reading on the labelled sets, where it fired, leave-one-provider-out:
//! how often the plain reading was wrong and the departure right (wins), and the other way
//! round (losses) (`heuristics/departures.tsv`, written by `examples/eval.rs --measure`).

use super::decide::{Basis, Claim, Decision, Veto};
use super::evidence::Source;
use super::plain::{Line, Plain};
use super::{Confidence, Inference, RuleSet};

/// What moved a proposal off the plain reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Departure {
    /// Held for a human: the proposal is below the patch level.
    Hold,
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
            Departure::Hold => "hold".into(),
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
        return Some(Departure::Hold);
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

/// Whether the departure is one the engine makes: those whose record against the plain
/// reading did not pay for them are not (docs/evaluation.md has their records). A word of a
/// user's own sense is the user's declaration, and always speaks.
pub fn kept(d: Departure, set: &RuleSet) -> bool {
    match d {
        // Read words beyond the plain list were right 24 times of 24; computing and
        // searching words 7 of 12 (Azure's validate, evaluate and discover are actions).
        Departure::Word(sense) => {
            let s = set.lexicon.sense(sense);
            s.id == "verb-read" || !super::BUILTIN.iter().any(|(file, _)| *file == s.file)
        }
        _ => true,
    }
}
