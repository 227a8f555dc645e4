//! Confidence: how sure a proposal is, measured, never chosen.
//!
//! `heuristics/measured.tsv` counts, for every piece of evidence a decision can rest on, how
//! often a proposal resting on it was right on the labelled operations of
//! `heuristics/labelled`, in rows and in providers, with the rows of the provider that has
//! the most (`examples/eval.rs --measure` regenerates it). A proposal's records ([`Chain`]):
//! the evidence's own, most specific first; the records it is pooled into (its sense, its
//! claim); the record of its support (how many other pieces agree).
//!
//! - a record **speaks** for itself when seen in at least [`PROVIDERS`] providers;
//! - the most specific own record that speaks decides: **low** when surely below the claim's
//!   [`Floor`], **high** when, without its largest provider, seen at least 10 times and right
//!   at least 98.5% of the time with 95% confidence (Wilson, z = 1.645), nothing more
//!   specific ever wrong; **medium** otherwise;
//! - an own record that does not speak is **low** when the most specific pooled record that
//!   speaks is low (unless the method takes part and agreeing evidence beside it has a
//!   record that speaks and is not low), and otherwise **medium** only beside agreeing
//!   evidence whose record is not low (a method that agrees, another verb or rule of the
//!   same claim); alone, **low**;
//! - a rule never measured (a scope, a user's rule) stays **medium**.
//!
//! 98.5% for high was measured when it was set: the high claims of the evaluation were then
//! right 99.5% of the time or more on openapi-scopes-dev and 99.4% on google-dev, where 99%
//! made a third fewer claims high for no gain; held out, high read-only claims are right
//! 99.3-100% of the time on all five sets (docs/evaluation.md).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::name::Position;
use super::plain::{Agreement, Claim};
use super::reading::{Basis, Decision, Judgement};
use super::record::{Count, Floor, Fx, Key, MEDIUM, Measured, Place};
use super::terms::{Confidence, Field, ObjectHit, Veto};

/// The pieces a decision rests on: the evidence's own records, most specific first; then
/// the records it is pooled into (its sense, its claim), which may lower it but never raise
/// it; last, the record of the support it has. At most eight keys: no allocation, since
/// every action has one.
#[derive(Debug, Clone, Copy)]
pub struct Chain {
    keys: [Key; 8],
    len: u8,
    own: u8,
}

impl std::ops::Deref for Chain {
    type Target = [Key];
    fn deref(&self) -> &[Key] {
        &self.keys[..usize::from(self.len)]
    }
}

impl Chain {
    fn new(own: &[Key], pooled: &[Key], support: Key) -> Chain {
        let mut c = Chain {
            keys: [support; 8],
            len: (own.len() + pooled.len() + 1) as u8,
            own: own.len() as u8,
        };
        c.keys[..own.len()].copy_from_slice(own);
        c.keys[own.len()..own.len() + pooled.len()].copy_from_slice(pooled);
        c
    }

    /// The evidence's own records, most specific first.
    pub fn own(&self) -> &[Key] {
        &self.keys[..usize::from(self.own)]
    }

    /// The records it is pooled into.
    pub fn pooled(&self) -> &[Key] {
        &self.keys[usize::from(self.own)..usize::from(self.len) - 1]
    }

    /// The record of its support.
    pub fn support(&self) -> Key {
        self.keys[usize::from(self.len) - 1]
    }

    /// The claim it rests on.
    pub fn claim(&self) -> Claim {
        match self.support() {
            Key::Support { claim, .. } => claim,
            _ => Claim::Change,
        }
    }
}

impl IntoIterator for Chain {
    type Item = Key;
    type IntoIter = std::iter::Take<std::array::IntoIter<Key, 8>>;
    fn into_iter(self) -> Self::IntoIter {
        let len = usize::from(self.len);
        self.keys.into_iter().take(len)
    }
}

/// The pieces a decision rests on, as [`Chain`] orders them.
pub fn chain(d: &Decision) -> Chain {
    let (claim, agreement) = (d.claim, d.agreement);
    let any = Key::Context {
        claim,
        sense: None,
        place: None,
        first: None,
        agreement,
    };
    let support = Key::Support {
        claim,
        agreement,
        others: d.support.min(2),
    };
    match d.basis {
        Basis::Verb(source) => verb_keys(d, source, any, support),
        Basis::Veto(Veto::Object) => match d.object {
            Some(o) => object_keys(o, true, support),
            None => Chain::new(&[], &[any], support),
        },
        Basis::Veto(veto) => Chain::new(
            &[Key::Veto {
                claim,
                veto,
                agreement,
            }],
            &[any],
            support,
        ),
        Basis::Declared => Chain::new(&[Key::Declared], &[], support),
        Basis::Plain(line, word) => {
            let key = |word| Key::Plain {
                claim,
                line,
                word,
                agreement,
            };
            match word {
                Some(_) => Chain::new(&[key(word), key(None)], &[], support),
                None => Chain::new(&[key(None)], &[], support),
            }
        }
        // A rule is its own evidence: the record of verbs says nothing about it.
        Basis::Rule(rule) => Chain::new(
            &[Key::Rule {
                claim,
                rule,
                agreement,
            }],
            &[],
            support,
        ),
    }
}

/// A verb's pieces: its own record (the word), then its sense's by place and position, widening.
fn verb_keys(d: &Decision, source: Field, any: Key, support: Key) -> Chain {
    let (claim, agreement) = (d.claim, d.agreement);
    let Some((_, v)) = d.verb else {
        return Chain::new(&[], &[any], support);
    };
    if let Some(o) = d.object {
        return object_keys(o, false, support);
    }
    let prose = matches!(source, Field::Label | Field::Description);
    let place = if v.inflected && source == Field::Name {
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
    let word = |first| Key::Word {
        prose,
        word: v.sym,
        first,
        agreement,
    };
    // A read word's own record is its position's: `read` opening a name reads
    // (128 of 128), after a change it is a state (`mark_chat_read_for_user`), and a
    // record of both would lower the first by the second. A change word is a change
    // wherever it stands (the bound), so its record is every position's too.
    let own = [word(first), word(None)];
    let own = if claim == Claim::Read {
        &own[..1]
    } else {
        &own[..]
    };
    Chain::new(
        own,
        &[
            context(Some(place), first),
            context(Some(place), None),
            context(None, None),
            any,
        ],
        support,
    )
}

/// An object is its own evidence, as a rule is: the verbs' record says nothing about it.
fn object_keys(o: ObjectHit, overruled: bool, support: Key) -> Chain {
    let key = |word| Key::Object {
        object: o.object,
        word,
        overruled,
    };
    Chain::new(&[key(Some(o.word)), key(None)], &[], support)
}

impl Measured {
    /// What a claim's evidence must clear to be patched. For a read, 98% surely right, and
    /// a single error in a record too thin to be sure of that demotes it: a wrong read runs
    /// unattended. For a change, two errors at least and the base rate of change among all
    /// labelled operations: a wrong change only asks a person to approve a read, so the
    /// evidence is worth a look only when it surely points to reads more often than any
    /// operation does. (Against the HTTP method's own precision instead, 97.5% on the dev
    /// sets, a third of the change proposals of named POSTs fell to low, and a change left
    /// unclassified costs the same friction as a change patched.)
    pub fn floor(&self, claim: Claim) -> Floor {
        let base = self.get(&Key::Base);
        match claim {
            Claim::Change => Floor {
                share: if base.of > 0 { base.bounds().0 } else { 0.5 },
                errors: 2,
            },
            Claim::Read => Floor {
                share: MEDIUM,
                errors: 1,
            },
        }
    }

    /// The confidence `chain` earns, as the module documentation says.
    pub fn judge(&self, chain: &Chain) -> Judgement {
        let floor = self.floor(chain.claim());
        let own = chain.own();
        let mut counts = [Count::default(); 8];
        for (c, k) in counts.iter_mut().zip(own) {
            *c = self.get(k);
        }
        let counts = &counts[..own.len()];
        // The most specific pooled record that speaks, where it is surely below the floor:
        // what the evidence's kind is worth.
        let pooled_low = chain
            .pooled()
            .iter()
            .copied()
            .find(|k| self.get(k).speaks())
            .filter(|k| self.get(k).demotes(floor));
        if let Some(i) = counts.iter().position(|c| c.speaks()) {
            return self.by_own(own, counts, i, pooled_low, floor);
        }
        // A rule never measured (a scope, a user's rule) is a declaration of the catalog's or
        // the user's: it stays medium.
        if matches!(own, [Key::Rule { .. }]) && counts[0].of == 0 {
            return self.at(own[0], Confidence::Medium);
        }
        self.by_support(chain.support(), pooled_low, floor)
    }

    /// The record that lets a decision call a person's explicit claim wrong (`audit`'s
    /// `unsafe` and `understated`): the first of its own records, most specific first, that
    /// [`Count::overrules`]. An own record that has been wrong and does not clear the bar
    /// ends the walk: a more general record does not vouch for evidence that has been wrong
    /// on its own (`open` of `open_nodes`: 2 of 3). The pools a piece is part of (its sense,
    /// its claim) say what a word seen too little is likely to do in a REST API, and MCP
    /// servers use such words for the state of a session (`browser_hover`, `convert_time`
    /// declared read-only, rightly): they speak for a delete only, the costliest mistake a
    /// hint can make (`drop_database` declared read-only). Measured leave-one-provider-out
    /// (`examples/eval`, "an author's read-only claim"): with every pool, 11 to 15 of
    /// mcp-dev's 215 truthful read-only claims were called unsafe; with none, none and 29% of
    /// its lies caught; with a delete's, one (`disconnect`) and 33%, and 1-5 points more lies
    /// caught on every set.
    pub fn overruling(&self, d: &Decision) -> Option<(Key, Count)> {
        let chain = chain(d);
        for k in chain.own() {
            let c = self.get(k);
            if c.overrules() {
                return Some((*k, c));
            }
            if c.errors() > 0 {
                return None;
            }
        }
        if !d.effects.contains(crate::effects::Effect::Delete) {
            return None;
        }
        let k = chain.pooled().iter().find(|k| self.get(k).speaks())?;
        let c = self.get(k);
        c.overrules().then_some((*k, c))
    }

    /// A judgement of `confidence` resting on the record of `key`.
    fn at(&self, key: Key, confidence: Confidence) -> Judgement {
        Judgement {
            confidence,
            key,
            count: self.get(&key),
            raised: false,
            held: None,
        }
    }

    /// The most specific own record that speaks (`own[i]`) decides.
    fn by_own(
        &self,
        own: &[Key],
        counts: &[Count],
        i: usize,
        pooled_low: Option<Key>,
        floor: Floor,
    ) -> Judgement {
        let c = counts[i];
        // A record of a few rows, wrong among them, that is not surely below the floor is not
        // surely above it either: where its kind is surely below, the kind speaks (`generate`
        // after the first word: 6 of 7 rows read-only, its sense's 46 of 106). One never
        // wrong stands on its own (`get_schedule` over a named POST: 15 of 15).
        let unsure = c.errors() > 0 && c.bounds().1 < floor.share;
        if let Some(k) = pooled_low.filter(|_| unsure) {
            return self.at(k, Confidence::Low);
        }
        // A general record does not vouch for evidence that has been wrong on its own.
        let contradicted = counts[..i].iter().any(|c| c.errors() > 0);
        let confidence = if c.demotes(floor) {
            Confidence::Low
        } else if c.promotes() && !contradicted {
            Confidence::High
        } else {
            Confidence::Medium
        };
        self.at(own[i], confidence)
    }

    /// Too few providers to speak for itself: what its kind was worth where it was pooled may
    /// lower it, and it reaches medium only beside other evidence that agrees. Evidence that
    /// agrees adds up where the HTTP interface takes part: a sense's pool does not lower a
    /// claim that the method and other evidence back, when that support was measured sound
    /// (Square's `search_*` POSTs, with their `/search` paths and "Searches for ..."
    /// descriptions, against a search pool two eBay `suggest_*` rows sank). Without a method
    /// the name, label and description are one author's words, and their support is no
    /// better than the floor (98.0%): it does not count.
    fn by_support(&self, support: Key, pooled_low: Option<Key>, floor: Floor) -> Judgement {
        let backed = matches!(
            support,
            Key::Support {
                agreement: Agreement::Agrees | Agreement::Named,
                others: 1..,
                ..
            }
        ) && self.get(&support).speaks()
            && !self.get(&support).demotes(floor);
        if let Some(k) = pooled_low.filter(|_| !backed) {
            return self.at(k, Confidence::Low);
        }
        let alone = matches!(
            support,
            Key::Support {
                others: 0,
                agreement: Agreement::Neutral | Agreement::Disagrees,
                ..
            }
        );
        let low = alone || self.get(&support).demotes(floor);
        let confidence = if low {
            Confidence::Low
        } else {
            Confidence::Medium
        };
        self.at(support, confidence)
    }
}

/// The counts of a [`Tally`] by key and provider.
#[derive(Debug, Default)]
pub struct ByProvider {
    by: HashMap<(Key, u32), (u32, u32), BuildHasherDefault<Fx>>,
    providers: HashMap<String, u32>,
}

impl ByProvider {
    /// The counts without `provider`'s rows (`None`: all of them): what an API the counts
    /// have never seen is judged by.
    pub fn without(&self, provider: Option<&str>) -> Measured {
        let except = provider.and_then(|p| self.providers.get(p).copied());
        Tally::gather(&self.by, |p| Some(p) == except)
    }

    /// The counts without every provider `drop` names: a whole naming culture held out at
    /// once (a labelled set), which is what a new kind of API meets.
    pub fn without_all(&self, drop: impl Fn(&str) -> bool) -> Measured {
        let mut dropped = vec![false; self.providers.len()];
        for (name, &p) in &self.providers {
            dropped[p as usize] = drop(name);
        }
        Tally::gather(&self.by, |p| dropped[p as usize])
    }
}

/// Collects decisions with their labels and providers, and counts them into a
/// [`Measured`].
#[derive(Debug, Default)]
pub struct Tally {
    rows: Vec<(Chain, bool, u32)>,
    bases: Vec<(bool, u32)>,
    providers: HashMap<String, u32>,
}

impl Tally {
    /// One labelled action of `provider`: the decision made, and whether it really is
    /// read-only.
    pub fn add(&mut self, d: &Decision, read_only: bool, provider: &str) {
        let p = self.provider(provider);
        self.rows
            .push((chain(d), (d.claim == Claim::Read) == read_only, p));
    }

    /// One labelled action's plain reading, whatever was proposed: its record is every
    /// row's, where it was patched and where a departure overruled it.
    pub fn add_plain(&mut self, p: super::plain::Plain, read_only: bool, provider: &str) {
        let pr = self.provider(provider);
        let d = Decision {
            effects: crate::effects::Effects::EMPTY,
            overwrites: false,
            claim: p.claim,
            basis: Basis::Plain(p.line, p.word),
            agreement: p.agreement,
            verb: None,
            object: None,
            deciding: Vec::new(),
            support: 0,
        };
        self.rows
            .push((chain(&d), (p.claim == Claim::Read) == read_only, pr));
    }

    /// The number `provider` is counted under.
    fn provider(&mut self, provider: &str) -> u32 {
        let n = self.providers.len() as u32;
        *self.providers.entry(provider.to_owned()).or_insert(n)
    }

    /// One labelled operation of `provider`, whatever was decided: the base rate.
    pub fn base(&mut self, read_only: bool, provider: &str) {
        let p = self.provider(provider);
        self.bases.push((!read_only, p));
    }

    /// Every key counts every row it covers. A sense's pooled record keeps its unreliable
    /// words: a verb seen too rarely to speak for itself is judged by what its sense is
    /// worth, all of it (run-like verbs pooled without their failures looked
    /// measured).
    pub fn finish(&self) -> Measured {
        self.by_provider().without(None)
    }

    /// The counts by key and provider, from which the counts without any one provider are
    /// read at the cost of one pass over the keys.
    pub fn by_provider(&self) -> ByProvider {
        let mut by: HashMap<(Key, u32), (u32, u32), BuildHasherDefault<Fx>> = HashMap::default();
        let mut add = |k: &Key, p: u32, ok: bool| {
            let c = by.entry((*k, p)).or_default();
            c.0 += u32::from(ok);
            c.1 += 1;
        };
        for (keys, ok, p) in &self.rows {
            for k in keys.iter() {
                add(k, *p, *ok);
            }
        }
        for &(ok, p) in &self.bases {
            add(&Key::Base, p, ok);
        }
        ByProvider {
            by,
            providers: self.providers.clone(),
        }
    }

    fn gather(
        by: &HashMap<(Key, u32), (u32, u32), BuildHasherDefault<Fx>>,
        except: impl Fn(u32) -> bool,
    ) -> Measured {
        let mut m = Measured::default();
        for (&(k, p), &(held, of)) in by {
            if except(p) {
                continue;
            }
            let c = m.counts.entry(k).or_default();
            c.held += held;
            c.of += of;
            c.providers += 1;
            c.providers_held += u32::from(2 * held > of);
            // Ties go to the fewer held, so the count does not depend on the map's order.
            if (of, std::cmp::Reverse(held)) > (c.top_of, std::cmp::Reverse(c.top_held)) {
                c.top_held = held;
                c.top_of = of;
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn surely_below_is_the_exact_binomial_test_over_few_rows() {
        use super::super::record::surely_below;
        // One error in four: a 98% rule does that 7.8% of the time, not surely below.
        assert!(!surely_below(3, 4, 0.98));
        // Two in four: 0.2% of the time.
        assert!(surely_below(2, 4, 0.98));
        assert!(!surely_below(4, 4, 0.98));
        // 29 of 37 (`check`): surely below.
        assert!(surely_below(29, 37, 0.98));
        // Past the exact range Wilson's bound decides: 95 of 101 is surely below 98%.
        assert!(surely_below(95, 101, 0.98));
        assert!(!surely_below(100, 101, 0.98));
    }

    use super::*;
    use crate::classify::index::Sym;
    use crate::classify::known::RuleSet;

    const READ: Claim = Claim::Read;

    fn word(first: Option<bool>) -> Key {
        Key::Word {
            prose: false,
            word: Sym::default(),
            first,
            agreement: Agreement::Neutral,
        }
    }

    fn pooled() -> Key {
        Key::Context {
            claim: READ,
            sense: Some(0),
            place: None,
            first: None,
            agreement: Agreement::Neutral,
        }
    }

    fn support(agreement: Agreement, others: u8) -> Key {
        Key::Support {
            claim: READ,
            agreement,
            others,
        }
    }

    fn count(held: u32, of: u32, providers: u32, top: (u32, u32)) -> Count {
        Count {
            held,
            of,
            providers,
            providers_held: providers,
            top_held: top.0,
            top_of: top.1,
        }
    }

    fn judge(counts: &[(Key, Count)], s: Key) -> Judgement {
        let mut m = Measured::default();
        m.counts.extend(counts.iter().copied());
        m.judge(&Chain::new(&[word(Some(true)), word(None)], &[pooled()], s))
    }

    #[test]
    fn a_word_of_one_or_two_providers_reaches_medium_only_beside_agreeing_evidence() {
        let thin = [(word(None), count(40, 40, 2, (30, 30)))];
        let alone = judge(&thin, support(Agreement::Neutral, 0));
        assert_eq!(alone.confidence, Confidence::Low);
        let beside = judge(&thin, support(Agreement::Neutral, 1));
        assert_eq!(beside.confidence, Confidence::Medium);
        assert_eq!(beside.key, support(Agreement::Neutral, 1));
        let with_method = judge(&thin, support(Agreement::Agrees, 0));
        assert_eq!(with_method.confidence, Confidence::Medium);
    }

    #[test]
    fn one_provider_cannot_make_a_word_high() {
        // 400 of 400, but 390 of them from one provider: the other ten do not clear 98.5%.
        let one = [(word(None), count(400, 400, 3, (390, 390)))];
        assert_eq!(
            judge(&one, support(Agreement::Neutral, 0)).confidence,
            Confidence::Medium
        );
        let broad = [(word(None), count(400, 400, 12, (40, 40)))];
        assert_eq!(
            judge(&broad, support(Agreement::Neutral, 0)).confidence,
            Confidence::High
        );
    }

    #[test]
    fn a_pooled_record_lowers_a_thin_word_but_never_raises_one() {
        let poor_sense = [
            (word(None), count(3, 3, 1, (3, 3))),
            (pooled(), count(60, 100, 9, (20, 30))),
        ];
        let j = judge(&poor_sense, support(Agreement::Neutral, 2));
        assert_eq!(j.confidence, Confidence::Low);
        assert_eq!(j.key, pooled());
        // A good sense does not lift a word of too few providers past what agrees with it:
        // alone, it stays low.
        let poor_word = [
            (word(None), count(8, 10, 2, (6, 7))),
            (pooled(), count(1000, 1000, 40, (50, 50))),
        ];
        assert_eq!(
            judge(&poor_word, support(Agreement::Neutral, 0)).confidence,
            Confidence::Low
        );
    }

    #[test]
    fn a_poor_sense_yields_to_sound_support_only_where_the_method_takes_part() {
        let with = |s: Key, c: Count| {
            let counts = [
                (word(None), count(3, 3, 1, (3, 3))),
                (pooled(), count(6, 8, 6, (2, 2))),
                (s, c),
            ];
            judge(&counts, s)
        };
        let named = support(Agreement::Named, 2);
        let j = with(named, count(21, 21, 6, (7, 7)));
        assert_eq!((j.confidence, j.key), (Confidence::Medium, named));
        // Name, label and description alone are one author's words: the pool still lowers.
        let neutral = support(Agreement::Neutral, 2);
        let j = with(neutral, count(21, 21, 6, (7, 7)));
        assert_eq!((j.confidence, j.key), (Confidence::Low, pooled()));
        // Support seen in too few providers, or wrong too often, does not outweigh it.
        assert_eq!(
            with(named, count(21, 21, 2, (19, 19))).confidence,
            Confidence::Low
        );
        assert_eq!(
            with(named, count(80, 100, 9, (20, 30))).confidence,
            Confidence::Low
        );
    }

    #[test]
    fn a_thin_read_record_with_one_error_is_low_where_its_kind_is_and_a_change_is_judged_against_the_base_rate()
     {
        // One error in three: a 98% rule does that 5.9% of the time, so the word alone is
        // not surely below the floor; its kind, surely below, makes it low.
        let thin = [(word(None), count(2, 3, 3, (1, 1)))];
        assert_eq!(
            judge(&thin, support(Agreement::Neutral, 0)).confidence,
            Confidence::Medium
        );
        let poor_kind = [thin[0], (pooled(), count(60, 100, 9, (20, 30)))];
        let j = judge(&poor_kind, support(Agreement::Neutral, 0));
        assert_eq!((j.confidence, j.key), (Confidence::Low, pooled()));
        // Never wrong, the word stands on its own whatever its kind.
        let right = [
            (word(None), count(15, 15, 3, (5, 5))),
            (pooled(), count(60, 100, 9, (20, 30))),
        ];
        assert_eq!(
            judge(&right, support(Agreement::Neutral, 0)).confidence,
            Confidence::Medium
        );
        // Two errors in four are surely below.
        let wrong = [(word(None), count(2, 4, 3, (1, 1)))];
        assert_eq!(
            judge(&wrong, support(Agreement::Neutral, 0)).confidence,
            Confidence::Low
        );
        let mut m = Measured::default();
        m.counts.insert(Key::Base, count(55, 100, 10, (10, 10)));
        assert!((m.floor(Claim::Change).share - 0.55).abs() < 1e-9);
        assert_eq!(m.floor(READ).share, MEDIUM);
    }

    #[test]
    fn counts_say_in_how_many_providers_evidence_held_and_which_has_most() {
        let mut by = HashMap::default();
        by.insert((word(None), 0), (9, 10));
        by.insert((word(None), 1), (0, 2));
        by.insert((word(None), 2), (3, 3));
        let m = Tally::gather(&by, |_| false);
        let c = m.get(&word(None));
        assert_eq!((c.held, c.of), (12, 15));
        assert_eq!((c.providers_held, c.providers), (2, 3));
        assert_eq!((c.top_held, c.top_of), (9, 10));
        let text = {
            let set = RuleSet::builtin().unwrap();
            m.to_tsv(&set.lexicon, &set.rules)
        };
        assert!(text.contains("\t12\t15\t2\t3\t9\t10\n"), "{text}");
    }
}
