//! The catalog votes for itself: the effects its actions already declare (`effects:`, an
//! OpenAPI operation's `x-effects`) are counted the way `heuristics/measured.tsv` counts the
//! labelled sets, by the verb word the engine read, its place (first word or later, in a
//! name or in prose) and how the HTTP method sits (GET, another method, none or RPC, a POST
//! that names its operation), in rows and in connectors; and they become evidence for the
//! actions that declare none.
//!
//! What they may do is bounded by the engine's own caution, so that the catalog's evidence
//! can lower the unsafe rate but never raise it through anything but a read it confirms:
//!
//! - a vote that agrees with the engine's claim raises its confidence (medium from
//!   [`Thresholds::medium_connectors`], high only from [`Thresholds::high_connectors`] and
//!   [`Thresholds::high_rows`] without the connector that has the most), and its effects
//!   become the ones the catalog declares (`[execute]` where the engine said `[write]`), unless
//!   a strong rule decided them (a DELETE stays a delete);
//! - a vote of change against the engine's read proposes the change, at most medium;
//! - a vote of read never turns a change into a read (HTTP DELETE, PUT or PATCH, a change
//!   verb, a change beside a read verb, a POST that overruled a read: the engine's
//!   conservative bound), it only takes a high change down to medium;
//! - declarations that disagree ([`Thresholds::read_share`], [`Thresholds::change_share`])
//!   make no vote, and a read the catalog's declarations contradict often enough goes down
//!   one level.
//!
//! The thresholds are data (`heuristics/catalog.tsv`), measured by the half-declared run of
//! `examples/eval.rs`.
//!
//! Only what the engine did not know sets a vote's level ([`Origin`]): a declaration that
//! echoes the engine's own patched proposal counts toward the share that agrees, never toward
//! the level, so the engine's proposals (this run's, or an earlier run's read back) never vote
//! for themselves, and a catalog that declares nothing new gets no vote at all.

use std::collections::HashMap;

use super::name::Position;
use super::plain::Claim;
use super::reading::{Basis, Decision, Inference};
use super::terms::{Confidence, Field};
use super::vote::{Did, MethodClass, Side, Vote, Word};
use crate::effects::Effects;
use crate::view::{ActionView, Declared};

const THRESHOLDS: &str = include_str!("../../heuristics/catalog.tsv");

/// What the catalog's declarations need before they count (`heuristics/catalog.tsv`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// Connectors that must declare a claim for it to reach medium.
    pub medium_connectors: u32,
    /// Declarations of it needed for medium.
    pub medium_rows: u32,
    /// Connectors needed for high.
    pub high_connectors: u32,
    /// Declarations needed for high without the connector that has the most.
    pub high_rows: u32,
    /// The share of a key's declarations that must say read-only for a read vote.
    pub read_share: f64,
    /// The share that must say change for a change vote.
    pub change_share: f64,
    /// Short of a vote, the share of a key's declarations that say change at which a read
    /// the engine proposes goes down one level (above 1: never).
    pub lower_share: f64,
}

impl Thresholds {
    /// The built-in thresholds.
    pub fn builtin() -> Thresholds {
        Thresholds::parse(THRESHOLDS).expect("heuristics/catalog.tsv names every threshold")
    }

    /// Reads `name<TAB>value<TAB>why` lines; every threshold must be there.
    pub fn parse(text: &str) -> Option<Thresholds> {
        let values: HashMap<&str, &str> = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .filter_map(|l| {
                let mut c = l.split('\t');
                Some((c.next()?, c.next()?))
            })
            .collect();
        let n = |k: &str| values.get(k)?.parse::<u32>().ok();
        let f = |k: &str| values.get(k)?.parse::<f64>().ok();
        Some(Thresholds {
            medium_connectors: n("medium_connectors")?,
            medium_rows: n("medium_rows")?,
            high_connectors: n("high_connectors")?,
            high_rows: n("high_rows")?,
            read_share: f("read_share")?,
            change_share: f("change_share")?,
            lower_share: f("lower_share")?,
        })
    }
}

/// Everything the catalog declares for one key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Declarations {
    read: Side,
    change: Side,
    /// Of those, the declarations the engine would not have patched itself (other effects,
    /// or a proposal too unsure to patch): what the catalog teaches.
    read_taught: Side,
    change_taught: Side,
    /// Each effects list declared, with its rows, connectors and the rows this run's patch
    /// adds, most rows first.
    effects: Vec<(Effects, u32, u32, u32)>,
}

impl Declarations {
    fn side(&self, claim: Claim) -> Side {
        match claim {
            Claim::Read => self.read,
            Claim::Change => self.change,
        }
    }

    fn taught(&self, claim: Claim) -> Side {
        match claim {
            Claim::Read => self.read_taught,
            Claim::Change => self.change_taught,
        }
    }

    /// The claim most of the declarations make (a tie is a change).
    fn majority(&self) -> Claim {
        if self.read.rows > self.change.rows {
            Claim::Read
        } else {
            Claim::Change
        }
    }

    /// The effects list of `claim` declared most, with its rows, connectors and the rows
    /// this run's patch adds.
    fn most_declared(&self, claim: Claim) -> (Effects, u32, u32, u32) {
        self.effects
            .iter()
            .copied()
            .find(|(e, ..)| Claim::from_effects(*e) == claim)
            .unwrap_or_default()
    }

    /// Whether any declaration is one the engine would not have patched itself: all
    /// echoes teach it nothing it does not know.
    fn teaches(&self) -> bool {
        self.read_taught.rows + self.change_taught.rows > 0
    }
}

/// The key of the verb a decision rests on, if it rests on one.
pub fn key_of(d: &Decision) -> Option<Word> {
    let (source, v) = d.verb?;
    Some(Word {
        word: v.sym,
        prose: matches!(source, Field::Label | Field::Description),
        first: v.position == Position::First,
        method: MethodClass::from_claim(d.claim, d.agreement),
        object: d.object.map(|o| o.object),
    })
}

/// Where a counted declaration comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// This run's patch adds it: the engine's own proposal.
    Proposed,
    /// Declared, and just what the engine proposes for the action at a level it patches:
    /// a person's or an earlier run's, the counts cannot tell, and it teaches nothing.
    Echo,
    /// Declared where the engine proposes other effects, or is too unsure to patch them.
    New,
}

impl Origin {
    /// What a declaration of `declared` is, beside the engine's own `inf` for its action
    /// and the level from which a run patches (`--min-confidence`).
    pub fn from_declaration(inf: &Inference, declared: Effects, min: Confidence) -> Origin {
        if inf.effects == declared && inf.confidence.is_some_and(|c| c >= min) {
            Origin::Echo
        } else {
            Origin::New
        }
    }
}

/// Counts declarations: [`Counter::add`] each declared action, then [`Counter::finish`].
#[derive(Debug, Default)]
pub struct Counter {
    rows: Vec<(Word, Effects, u32, Origin)>,
    connectors: HashMap<String, u32>,
}

impl Counter {
    /// One action of `connector` that declares `declared` (or will, once this run's patch
    /// is applied), with the engine's inference for it (which says what its verb is). An
    /// action with no verb teaches nothing.
    pub fn add(&mut self, inf: &Inference, declared: Effects, connector: &str, origin: Origin) {
        if let Some(key) = inf.reading().and_then(key_of) {
            self.add_key(key, declared, connector, origin);
        }
    }

    pub fn add_key(&mut self, key: Word, declared: Effects, connector: &str, origin: Origin) {
        if declared.is_empty() {
            return;
        }
        let n = self.connectors.len() as u32;
        let c = *self.connectors.entry(connector.to_owned()).or_insert(n);
        self.rows.push((key, declared, c, origin));
    }

    pub fn finish(&self, thresholds: Thresholds) -> Votes {
        // Rows by key, then by (claim or effects, connector); the new ones apart.
        let mut claims: HashMap<(Word, Claim, u32), (u32, u32)> = HashMap::new();
        let mut effects: HashMap<(Word, Effects, u32), (u32, u32)> = HashMap::new();
        for &(key, e, c, origin) in &self.rows {
            let n = claims.entry((key, Claim::from_effects(e), c)).or_default();
            n.0 += 1;
            n.1 += u32::from(origin == Origin::New);
            let n = effects.entry((key, e, c)).or_default();
            n.0 += 1;
            n.1 += u32::from(origin == Origin::Proposed);
        }
        let mut by: HashMap<Word, Declarations> = HashMap::new();
        for ((key, claim, _), (rows, new)) in claims {
            let s = by.entry(key).or_default();
            let (side, taught) = match claim {
                Claim::Read => (&mut s.read, &mut s.read_taught),
                Claim::Change => (&mut s.change, &mut s.change_taught),
            };
            side.add(rows);
            if new > 0 {
                taught.add(new);
            }
        }
        for ((key, e, _), (rows, proposed)) in effects {
            let s = by.entry(key).or_default();
            match s.effects.iter_mut().find(|x| x.0 == e) {
                Some(x) => {
                    x.1 += rows;
                    x.2 += 1;
                    x.3 += proposed;
                }
                None => s.effects.push((e, rows, 1, proposed)),
            }
        }
        for s in by.values_mut() {
            // Most rows first; ties by the list's own order, so the run does not depend on
            // the map's.
            s.effects
                .sort_by_key(|&(e, rows, ..)| (std::cmp::Reverse(rows), e.joined(",")));
        }
        Votes {
            by,
            thresholds: Some(thresholds),
        }
    }
}

/// The catalog's declarations, counted.
#[derive(Debug, Clone, Default)]
pub struct Votes {
    by: HashMap<Word, Declarations>,
    thresholds: Option<Thresholds>,
}

impl Votes {
    pub fn is_empty(&self) -> bool {
        self.by.is_empty()
    }

    /// Keys counted.
    pub fn len(&self) -> usize {
        self.by.len()
    }

    fn thresholds(&self) -> Thresholds {
        self.thresholds.unwrap_or_else(Thresholds::builtin)
    }

    /// The level one claim's declarations reach for a key, on their own: every declaration
    /// counts toward the share that agrees, only the new ones toward the level, so the
    /// engine's own proposals, patched and read back, never vote for themselves.
    fn level(&self, s: &Declarations, claim: Claim) -> Option<Confidence> {
        let t = self.thresholds();
        let all = s.side(claim);
        let side = s.taught(claim);
        let of = s.read.rows + s.change.rows;
        let need = match claim {
            Claim::Read => t.read_share,
            Claim::Change => t.change_share,
        };
        if of == 0 || f64::from(all.rows) < need * f64::from(of) - 1e-9 {
            return None;
        }
        if side.connectors >= t.high_connectors && side.rows - side.top >= t.high_rows {
            Some(Confidence::High)
        } else if side.connectors >= t.medium_connectors && side.rows >= t.medium_rows {
            Some(Confidence::Medium)
        } else {
            None
        }
    }

    /// Whether the catalog has anything to say to the engine's inference `inf` for an action
    /// that declares nothing: its verb's declarations hold some the engine would not patch
    /// itself. Otherwise [`Votes::apply`] leaves it as it is.
    pub fn speaks_to(&self, inf: &Inference) -> bool {
        inf.reading()
            .filter(|d| d.basis != Basis::Declared)
            .and_then(key_of)
            .and_then(|k| self.by.get(&k))
            .is_some_and(Declarations::teaches)
    }

    /// The engine's inference for an action that declares nothing, with the catalog's
    /// vote taken as the module documentation says.
    pub fn apply(&self, view: &ActionView, inf: Inference) -> (Inference, Option<Box<Vote>>) {
        self.apply_to(&view.declared, inf)
    }

    /// [`Votes::apply`] for an action that declares `declared`.
    pub fn apply_to(
        &self,
        declared: &Declared,
        mut inf: Inference,
    ) -> (Inference, Option<Box<Vote>>) {
        if !matches!(declared, Declared::None) {
            return (inf, None);
        }
        let Some((key, s)) = inf
            .reading()
            // A person's hint on the action itself outranks what its neighbours declare.
            .filter(|d| d.basis != Basis::Declared)
            .and_then(key_of)
            .and_then(|k| Some((k, self.by.get(&k)?)))
            .filter(|(_, s)| s.teaches())
        else {
            return (inf, None);
        };
        let Some(mut d) = inf.decision.take() else {
            return (inf, None);
        };
        let t = self.thresholds();
        let claim = s.majority();
        let (effects, effects_rows, effects_connectors, effects_proposed) = s.most_declared(claim);
        let level = self.level(s, claim);
        let before = (d.effects, inf.confidence);
        let c = inf.confidence.unwrap_or(Confidence::Low);
        let lower = |c: Confidence| match c {
            Confidence::High => Confidence::Medium,
            _ => Confidence::Low,
        };
        let of = s.read.rows + s.change.rows;
        let did = match level {
            Some(l) if claim == d.claim => {
                // A strong rule's effects stand (a DELETE stays a delete); a verb's are
                // what the catalog says the verb does.
                let adopt = !matches!(d.basis, Basis::Rule(_)) && effects != d.effects;
                if adopt {
                    inf.overwrites = false;
                    d.effects = effects;
                }
                inf.confidence = Some(c.max(l));
                if adopt {
                    Did::Adopted
                } else if l > c {
                    Did::Raised
                } else {
                    Did::Nothing
                }
            }
            Some(_) if claim == Claim::Change => {
                d.effects = effects;
                d.claim = Claim::Change;
                d.agreement = key.method.agreement(Claim::Change);
                inf.overwrites = false;
                inf.confidence = Some(Confidence::Medium);
                Did::Overruled
            }
            // A read vote against a change: never a read where the engine saw change.
            Some(_) if c == Confidence::High => {
                inf.confidence = Some(Confidence::Medium);
                Did::Lowered
            }
            Some(_) => Did::Nothing,
            // Declarations that disagree: a read they contradict often enough goes down.
            None if d.claim == Claim::Read
                && s.change_taught.rows > 0
                && f64::from(s.change.rows) >= t.lower_share * f64::from(of) - 1e-9 =>
            {
                inf.confidence = Some(lower(c));
                Did::Lowered
            }
            None => Did::Nothing,
        };
        inf.effects = d.effects;
        inf.decision = Some(d);
        let vote = Box::new(Vote {
            key,
            claim,
            effects,
            effects_rows,
            effects_connectors,
            effects_proposed,
            side: s.side(claim),
            of,
            taught: s.taught(claim),
            level,
            did,
            before: before.0,
            before_confidence: before.1,
        });
        (inf, Some(vote))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::known::RuleSet;
    use crate::effects::Effect;
    use crate::view::Step;

    fn set() -> RuleSet {
        RuleSet::builtin().unwrap()
    }

    fn call(id: &str, method: &str, url: &str) -> ActionView {
        ActionView {
            id: id.into(),
            steps: vec![Step {
                method: Some(method.into()),
                url: Some(url.into()),
                ..Step::default()
            }],
            ..ActionView::default()
        }
    }

    /// `id` called by `method` on `/<id without sync_>/sync`, declared `e` in `connector`.
    fn sync(
        id: &str,
        method: &str,
        connector: &'static str,
        e: Effect,
    ) -> (ActionView, &'static str, Effect) {
        let path = format!("/{}/sync", id.trim_start_matches("sync_"));
        (call(id, method, &path), connector, e)
    }

    /// Votes from `declared`: (action, connector, effects).
    fn votes(set: &RuleSet, declared: &[(ActionView, &str, Effect)], t: Thresholds) -> Votes {
        let mut c = Counter::default();
        for (view, connector, e) in declared {
            c.add(
                &super::super::infer(view, set),
                Effects::single(*e),
                connector,
                Origin::New,
            );
        }
        c.finish(t)
    }

    fn vote(set: &RuleSet, v: &Votes, view: &ActionView) -> (Inference, Option<Box<Vote>>) {
        super::super::classify(view, &super::super::Group::single(), set, Some(v))
    }

    #[test]
    fn the_built_in_thresholds_load() {
        let t = Thresholds::builtin();
        assert!(t.high_connectors >= 3 && t.read_share >= 1.0, "{t:?}");
        assert!(Thresholds::parse("medium_rows\t3\n").is_none());
    }

    #[test]
    fn the_engines_own_proposals_never_vote_for_themselves() {
        let set = set();
        let t = Thresholds::builtin();
        // A fresh catalog's proposals, and the same read back once the patch is applied
        // (declared, and just what the engine proposes at a level it patches).
        let lists: Vec<ActionView> = (0..12)
            .map(|i| call(&format!("list_things_{i}"), "get", &format!("/things{i}")))
            .collect();
        let doubtful = call("sync_ledger", "get", "/ledger/sync");
        for origin in [Origin::Proposed, Origin::Echo] {
            let mut c = Counter::default();
            for (i, v) in lists.iter().enumerate() {
                let inf = super::super::infer(v, &set);
                assert_eq!(
                    Origin::from_declaration(&inf, inf.effects, Confidence::Medium),
                    Origin::Echo
                );
                c.add(&inf, inf.effects, &format!("c{}", i % 4), origin);
            }
            let v = c.finish(t);
            let fresh = call("list_widgets", "get", "/widgets");
            let alone = super::super::infer(&fresh, &set);
            assert!(!v.speaks_to(&alone));
            assert_eq!(vote(&set, &v, &fresh), (alone, None));
            let alone = super::super::infer(&doubtful, &set);
            assert_eq!(vote(&set, &v, &doubtful), (alone, None));
        }
        // A declaration the engine doubts is new: it may vote.
        let inf = super::super::infer(&doubtful, &set);
        assert_eq!(
            Origin::from_declaration(&inf, Effects::single(Effect::Execute), Confidence::Medium),
            Origin::New
        );
    }

    #[test]
    fn echoes_count_toward_the_share_but_never_toward_the_level() {
        let set = set();
        let t = Thresholds::builtin();
        let get = |i: usize| call(&format!("get_thing_{i}"), "get", &format!("/t/{i}"));
        let mut c = Counter::default();
        // Ten reads the engine proposes itself, three changes a person declared: the
        // three are a tenth of what the catalog says of the verb, not a unanimous vote.
        for i in 0..10 {
            let inf = super::super::infer(&get(i), &set);
            c.add(&inf, inf.effects, &format!("c{}", i % 3), Origin::Echo);
        }
        for i in 10..13 {
            let inf = super::super::infer(&get(i), &set);
            c.add(
                &inf,
                Effects::single(Effect::Write),
                &format!("c{}", i % 3),
                Origin::New,
            );
        }
        let v = c.finish(t);
        let next = get(99);
        let alone = super::super::infer(&next, &set);
        let (with, cast) = vote(&set, &v, &next);
        assert_eq!(
            (with.effects, with.confidence),
            (alone.effects, alone.confidence)
        );
        assert_eq!(cast.as_deref().map(|v| v.did), Some(Did::Nothing));
    }

    #[test]
    fn a_family_of_declared_neighbours_lifts_a_sibling_and_one_connector_never_makes_it_high() {
        let set = set();
        let t = Thresholds::builtin();
        // Alone, the GET reads plainly: `sync` is a departure too weak to stand, a doubt
        // that keeps the read at medium.
        let alone = super::super::infer(&call("sync_ledger", "get", "/ledger/sync"), &set);
        assert_eq!(alone.effects.joined("|"), "read", "{alone:?}");
        assert_eq!(alone.confidence, Some(Confidence::Medium), "{alone:?}");
        let family = [
            sync("sync_users", "get", "a", Effect::Execute),
            sync("sync_macros", "get", "a", Effect::Execute),
            sync("sync_contacts", "get", "b", Effect::Execute),
        ];
        let v = votes(&set, &family, t);
        let (inf, cast) = vote(&set, &v, &call("sync_ledger", "get", "/ledger/sync"));
        assert_eq!(inf.effects.joined("|"), "execute");
        assert_eq!(inf.confidence, Some(Confidence::Medium));
        let cast = cast.as_deref().unwrap();
        assert_eq!(cast.did, Did::Overruled);
        assert!(
            cast.sentence(&set).contains(
                "`sync` (over GET) is declared [execute] on 3 of 3 actions in 2 connectors"
            ),
            "{}",
            cast.sentence(&set)
        );
        // Twelve declarations of one connector: still not high.
        let many: Vec<_> = (0..12)
            .map(|i| {
                (
                    call(&format!("sync_x{i}"), "get", "/x/sync"),
                    "a",
                    Effect::Execute,
                )
            })
            .collect();
        let (inf, _) = vote(
            &set,
            &votes(&set, &many, t),
            &call("sync_ledger", "get", "/l/sync"),
        );
        assert_eq!(inf.confidence, Some(Confidence::Medium));
        // Two declarations are an anecdote, no vote: but they contradict the plain read,
        // which goes down to be held for a human.
        let (inf, _) = vote(
            &set,
            &votes(&set, &family[..2], t),
            &call("sync_ledger", "get", "/l"),
        );
        assert_eq!(inf.effects.joined("|"), "read");
        assert_eq!(inf.confidence, Some(Confidence::Low));
        // An action that declares effects is not voted on.
        let mut declared = call("sync_ledger", "get", "/ledger/sync");
        declared.declared = Declared::Valid(Effects::single(Effect::Write));
        assert!(vote(&set, &v, &declared).1.is_none());
    }

    #[test]
    fn a_reviewers_corrections_are_followed_and_a_read_never_overrules_a_change() {
        let set = set();
        let t = Thresholds::builtin();
        // Reviewers corrected `sync` over POST to a plain write.
        let corrected = [
            sync("sync_users", "post", "a", Effect::Write),
            sync("sync_teams", "post", "a", Effect::Write),
            sync("sync_roles", "post", "b", Effect::Write),
        ];
        let (inf, cast) = vote(
            &set,
            &votes(&set, &corrected, t),
            &call("sync_groups", "post", "/g/sync"),
        );
        assert_eq!(inf.effects.joined("|"), "write", "{inf:?}");
        assert_eq!(cast.as_deref().unwrap().did, Did::Adopted);
        // Declared read-only everywhere, a change verb over POST stays a change.
        let reads = [
            (call("sync_a", "post", "/a/sync"), "a", Effect::Read),
            (call("sync_b", "post", "/b/sync"), "b", Effect::Read),
            (call("sync_c", "post", "/c/sync"), "c", Effect::Read),
            (call("sync_d", "post", "/d/sync"), "d", Effect::Read),
        ];
        let (inf, _) = vote(
            &set,
            &votes(&set, &reads, t),
            &call("sync_e", "post", "/e/sync"),
        );
        assert!(!inf.effects.is_read_only(), "{inf:?}");
        // And a DELETE stays a delete whatever its verb's neighbours declare.
        let (inf, _) = vote(
            &set,
            &votes(&set, &reads, t),
            &call("sync_e", "delete", "/e"),
        );
        assert!(inf.effects.contains(Effect::Delete), "{inf:?}");
    }

    #[test]
    fn declarations_of_change_overrule_a_read_and_disagreeing_ones_lower_it() {
        let set = set();
        let t = Thresholds::builtin();
        let get = |id: &str| call(id, "get", &format!("/{id}"));
        let before = super::super::infer(&get("fetch_report"), &set);
        assert!(before.effects.is_read_only(), "{before:?}");
        let changes = [
            (get("fetch_a"), "a", Effect::Write),
            (get("fetch_b"), "a", Effect::Write),
            (get("fetch_c"), "b", Effect::Write),
        ];
        let (inf, cast) = vote(&set, &votes(&set, &changes, t), &get("fetch_report"));
        assert_eq!(inf.effects.joined("|"), "write", "{inf:?}");
        assert_eq!(inf.confidence, Some(Confidence::Medium));
        assert_eq!(cast.as_deref().unwrap().did, Did::Overruled);
        // Half read, half change: no vote, and the read goes down a level.
        let mixed = [
            (get("fetch_a"), "a", Effect::Read),
            (get("fetch_b"), "a", Effect::Write),
        ];
        let (inf, cast) = vote(&set, &votes(&set, &mixed, t), &get("fetch_report"));
        assert!(inf.effects.is_read_only());
        assert!(inf.confidence < before.confidence, "{inf:?}");
        assert_eq!(cast.as_deref().unwrap().did, Did::Lowered);
    }
}
