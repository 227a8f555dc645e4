//! Why an action got its effects, as data: what was read, the plain reading and the departure
//! from it (with the reader that settled it and the departure's record), the records the
//! confidence rests on, and the catalog's vote. Built only when asked (`classify::explain`),
//! from what the run keeps and a second reading of the action; `emit/explain.rs` puts it in
//! words.

use super::confidence;
use super::departure::{self, Departure};
use super::evidence::{self, Evidence};
use super::known::RuleSet;
use super::name::Verb;
use super::plain::{Agreement, Plain};
use super::reading::{Basis, Inference};
use super::record::{Count, Key, Record};
use super::rules::{ScopeGrant, scope_grant};
use super::terms::{Confidence, Field, Ref};
use super::vote::Vote;
use crate::view::ActionView;

/// Everything `explain` says of one action's proposal.
#[derive(Debug, Clone)]
pub struct Explanation {
    /// What was read from the action, its rules included.
    pub evidence: Evidence,
    /// Each verb read, where, and how often its word was what its sense says.
    pub verbs: Vec<(Field, Verb, Count)>,
    /// The steps left out as signing in (indices into the view's steps).
    pub sign_in: Vec<usize>,
    /// What the action's scopes say, where it has any.
    pub scopes: Option<Option<ScopeGrant>>,
    /// What the name and method plainly say.
    pub plain: Option<Plain>,
    /// The departure from the plain reading the engine considered, if any.
    pub departure: Option<Considered>,
    /// The reader of `departure::settle` that spoke (`None`: there was nothing to settle).
    pub reader: Option<&'static str>,
    /// The records behind the confidence: `None` for a hint taken at a person's word.
    pub records: Option<Records>,
    /// What the catalog's declarations said and did.
    pub vote: Option<Vote>,
}

/// A departure the engine considered, and what became of it.
#[derive(Debug, Clone)]
pub struct Considered {
    pub departure: Departure,
    pub id: String,
    pub verdict: Verdict,
    /// Its record against the plain reading on each labelled set and route.
    pub records: Vec<Record>,
}

/// What became of a departure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Its record did not pay for it: the engine does not make it.
    NotMade,
    Stands,
    /// Its record was too weak: the plain reading was proposed.
    TooWeak,
}

/// The measured counts behind a judgement.
#[derive(Debug, Clone)]
pub struct Records {
    /// The evidence's own records, most specific first, the records it is pooled into, and
    /// what agreeing evidence is worth; the one that set the level first where the chain
    /// does not hold it (the plain reading's, for an engine's reading that agrees).
    pub chain: Vec<(Key, Count)>,
    /// The key that set the level.
    pub set_by: Key,
    /// The other reading it was weighed against: its level and what decided it.
    pub weighed: Option<(Confidence, Vec<Ref>)>,
}

/// The explanation of `inf`, the inference the run made for `view` of `group`.
pub(super) fn build(
    view: &ActionView,
    set: &RuleSet,
    inf: &Inference,
    vote: Option<&Vote>,
    mut evidence: Evidence,
    reader: Option<&'static str>,
) -> Explanation {
    evidence.fired.clone_from(&inf.fired);
    let verbs = Field::ALL
        .into_iter()
        .filter_map(|at| {
            let verb = evidence.verb(at)?;
            let prose = matches!(at, Field::Label | Field::Description);
            Some((at, verb, word_count(set, verb, prose)))
        })
        .collect();
    let sign_in = if evidence.sign_in_steps > 0 {
        evidence::sign_in_calls(view, set)
    } else {
        Vec::new()
    };
    let scopes = (!view.scopes.is_empty()).then(|| scope_grant(&view.scopes, &set.lexicon));
    Explanation {
        evidence,
        verbs,
        sign_in,
        scopes,
        plain: inf.plain,
        departure: considered(inf, vote, set),
        reader,
        records: records(inf, set),
        vote: vote.copied(),
    }
}

fn considered(inf: &Inference, vote: Option<&Vote>, set: &RuleSet) -> Option<Considered> {
    let d = departure::considered(inf)?;
    let id = d.id(set);
    let verdict = if !departure::kept(d, set) {
        Verdict::NotMade
    } else if departure::standing(inf, vote, Confidence::Medium) == Some(d) {
        Verdict::Stands
    } else {
        Verdict::TooWeak
    };
    let records = set.departures.records.get(&id).cloned().unwrap_or_default();
    Some(Considered {
        departure: d,
        id,
        verdict,
        records,
    })
}

fn records(inf: &Inference, set: &RuleSet) -> Option<Records> {
    let (Some(d), Some(j)) = (&inf.decision, &inf.judgement) else {
        return None;
    };
    if d.basis == Basis::Declared {
        return None;
    }
    let weighed = inf.overruled.as_deref().map(|r| {
        let level = set.measured.judge(&confidence::chain(r)).confidence;
        (level, r.deciding.clone())
    });
    let mut keys: Vec<Key> = confidence::chain(d).into_iter().collect();
    if !keys.contains(&j.key) {
        keys.insert(0, j.key);
    }
    Some(Records {
        chain: keys
            .into_iter()
            .map(|k| (k, set.measured.get(&k)))
            .collect(),
        set_by: j.key,
        weighed,
    })
}

/// How often a verb's word held wherever it was a verb, whatever the method. A read word
/// has no record of every position (its own is its position's): its two are summed, and a
/// provider seen under two methods or positions counts twice (an upper bound, said so).
fn word_count(set: &RuleSet, verb: Verb, prose: bool) -> Count {
    let mut c = Count::default();
    let mut add = |n: Count| {
        c.held += n.held;
        c.of += n.of;
        c.providers += n.providers;
        c.providers_held += n.providers_held;
    };
    for agreement in Agreement::ALL {
        let key = |first| Key::Word {
            prose,
            word: verb.sym,
            first,
            agreement,
        };
        let every = set.measured.get(&key(None));
        if every.of > 0 {
            add(every);
        } else {
            add(set.measured.get(&key(Some(true))));
            add(set.measured.get(&key(Some(false))));
        }
    }
    c
}
