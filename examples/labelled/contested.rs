//! Whose miss is it, the engine's or the labels'? For each row the default patch level gets
//! wrong on a target it does not meet (leave-one-provider-out), the same piece of evidence
//! is looked up in every other provider, with their labels: where most of them label it the
//! other way, any rule that follows the evidence is wrong here, and the rows count toward
//! the floor the labels set; where they label it the same way, the miss is the engine's,
//! unless the floors forbid the read it needed: evidence seen in fewer than three
//! other providers, or surely right less than 98% of the time, patches no read on its own.
//! This judges the evidence the engine read, by the floors the engine keeps: it says what
//! no rule that follows that evidence can do, not what other evidence might.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use catalog_effects::classify::confidence::{self, Chain};
use catalog_effects::classify::record::{Key, MEDIUM, PROVIDERS, wilson};
use catalog_effects::classify::{Confidence, RuleSet};

use super::departures::Table;
use super::{Outcome, Peer, Report, Route, Set, TARGETS, engine_claim};

/// The records a row rests on: of the engine's reading of it (what its names and words
/// said), whether or not it departed from the plain reading.
pub fn evidence(o: &Outcome<'_>) -> Option<Chain> {
    o.inference.reading().map(confidence::chain)
}

/// The records looked up elsewhere, most specific first, each with whether it is the record
/// of the evidence's kind rather than its own: its own, then its sense's (in that place,
/// anywhere), not the record of every claim alike.
fn looked_up(chain: &Chain) -> impl Iterator<Item = (bool, Key)> + '_ {
    let kind = chain
        .pooled()
        .iter()
        .filter(|k| !matches!(k, Key::Context { sense: None, .. }));
    chain
        .own()
        .iter()
        .map(|&k| (false, k))
        .chain(kind.map(|&k| (true, k)))
}

/// Labelled rows by route, evidence and provider: (read-only rows, other rows).
#[derive(Default)]
pub struct Index {
    by: HashMap<(Route, Key), BTreeMap<String, (usize, usize)>>,
}

impl Index {
    /// From the decisions made with every provider's counts (`classify_all`'s): what the
    /// held-out counts were made of.
    pub fn of(outcomes: &[Outcome<'_>]) -> Index {
        let mut ix = Index::default();
        for o in outcomes {
            let Some(truth) = o.row.truth else {
                continue;
            };
            for (_, key) in evidence(o).iter().flat_map(looked_up) {
                let c = ix
                    .by
                    .entry((o.route, key))
                    .or_default()
                    .entry(o.row.provider())
                    .or_default();
                if truth {
                    c.0 += 1;
                } else {
                    c.1 += 1;
                }
            }
        }
        ix
    }

    /// What providers other than `provider` say of `key`.
    pub fn elsewhere(&self, route: Route, key: Key, provider: &str) -> Elsewhere {
        let mut e = Elsewhere::default();
        for (p, &(ro, other)) in self.by.get(&(route, key)).into_iter().flatten() {
            if p == provider {
                continue;
            }
            e.read_only += ro;
            e.other += other;
            e.providers += 1;
            // A provider speaks for the label most of its rows carry.
            if ro > other {
                e.providers_read_only += 1;
            } else if other > ro {
                e.providers_other += 1;
            }
        }
        e
    }
}

/// The same evidence in other providers: rows and providers by label.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Elsewhere {
    pub read_only: usize,
    pub other: usize,
    /// Providers that have the evidence at all.
    pub providers: usize,
    pub providers_read_only: usize,
    pub providers_other: usize,
}

/// Whose a miss is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Most other rows with the same evidence carry the other label.
    Labels,
    /// Most carry this row's label: the engine had the evidence and missed.
    Engine,
    /// A read-only row: most other rows with its evidence are read-only too, but in fewer
    /// than three providers, or surely less than 98% of them (the upper end of the 95%
    /// Wilson interval under 98%, as `Count::demotes` has it); or no other provider has the
    /// evidence itself, only its kind. The issue's floors keep such evidence from patching a
    /// read on its own. (An unsafe row never is: lowering a read needs one contrary row.)
    Thin,
    /// No other provider has the evidence, nor its kind (or the row has none).
    Unseen,
}

impl Verdict {
    pub fn of(truth: bool, e: Elsewhere) -> Verdict {
        let (same, other) = if truth {
            (e.read_only, e.other)
        } else {
            (e.other, e.read_only)
        };
        match (same, other) {
            (0, 0) => Verdict::Unseen,
            (s, o) if o > s => Verdict::Labels,
            (s, o)
                if truth
                    && ((e.providers as u32) < PROVIDERS
                        || (o > 0 && wilson(s as u32, (s + o) as u32).2 < MEDIUM)) =>
            {
                Verdict::Thin
            }
            _ => Verdict::Engine,
        }
    }
}

/// One miss of a target.
pub struct Miss<'a> {
    pub outcome: &'a Outcome<'a>,
    pub key: Option<Key>,
    /// No other provider has the row's own evidence: `key` is the record of its kind.
    pub pooled: bool,
    pub elsewhere: Elsewhere,
    pub verdict: Verdict,
}

/// The misses of one kind (unsafe: `truth` false; friction: `truth` true) of a set and
/// route, each with its verdict.
pub fn misses<'a>(
    held_out: &'a [Outcome<'a>],
    ix: &Index,
    set: Set,
    route: Route,
    truth: bool,
) -> Vec<Miss<'a>> {
    held_out
        .iter()
        .filter(|o| o.row.set == set && o.route == route && o.row.truth == Some(truth))
        .filter(|o| {
            let claim = engine_claim(&o.inference, Confidence::Medium);
            if truth {
                claim != Some(true)
            } else {
                claim == Some(true)
            }
        })
        .map(|o| {
            // The most specific evidence other providers have: the row's own, else the
            // record of its kind (a verb no other provider uses is judged as its sense is).
            let chain = evidence(o);
            let (pooled, key, elsewhere) = chain
                .iter()
                .flat_map(looked_up)
                .map(|(pooled, k)| (pooled, Some(k), ix.elsewhere(route, k, &o.row.provider())))
                .find(|(.., e)| e.read_only + e.other > 0)
                .unwrap_or_else(|| {
                    let own = chain.and_then(|c| c.own().first().copied());
                    (false, own, Elsewhere::default())
                });
            // Evidence no other provider has never reaches a medium read on its own, however
            // its kind is labelled.
            let verdict = match Verdict::of(truth, elsewhere) {
                Verdict::Engine | Verdict::Labels if pooled && truth => Verdict::Thin,
                v => v,
            };
            Miss {
                outcome: o,
                key,
                pooled,
                elsewhere,
                verdict,
            }
        })
        .collect()
}

/// For every target figure not met (unsafe, friction), its misses split by verdict, the
/// floor the labels set (the misses on evidence labelled the other way elsewhere, over the
/// figure's denominator), the floor the labels and the confidence floors set together (those
/// and the thin ones), and the evidence that most misses rest on.
pub fn render(held_out: &[Outcome<'_>], lib: &[Outcome<'_>], rules: &RuleSet) -> String {
    let ix = Index::of(lib);
    let mut s = String::new();
    for (set, route, max_unsafe, max_friction, _) in TARGETS {
        for (truth, kind, max) in [
            (false, "unsafe", max_unsafe),
            (true, "friction", max_friction),
        ] {
            let of = held_out
                .iter()
                .filter(|o| o.row.set == set && o.route == route && o.row.truth == Some(truth))
                .count();
            let ms = misses(held_out, &ix, set, route, truth);
            if of == 0 || (ms.len() as f64) <= max * of as f64 {
                continue;
            }
            let n = |v: Verdict| ms.iter().filter(|m| m.verdict == v).count();
            let floor = n(Verdict::Labels) as f64 / of as f64;
            let floors = (n(Verdict::Labels) + n(Verdict::Thin)) as f64 / of as f64;
            let _ = write!(
                s,
                "  {} through {}, {kind} {} of {of} ({:.2}%, target {:.1}%): {} on evidence other providers mostly label the other way, {} on evidence they label this way",
                set.name(),
                route.name(),
                ms.len(),
                100.0 * ms.len() as f64 / of as f64,
                100.0 * max,
                n(Verdict::Labels),
                n(Verdict::Engine),
            );
            if truth {
                let _ = write!(
                    s,
                    ", {} the floors keep (labelled this way too thinly, or only their kind seen elsewhere)",
                    n(Verdict::Thin)
                );
            }
            let _ = write!(
                s,
                ", {} on evidence no other provider has, even as its kind; {} judged by their kind's record; labels alone leave {:.2}%",
                n(Verdict::Unseen),
                ms.iter().filter(|m| m.pooled).count(),
                100.0 * floor,
            );
            if truth {
                let _ = write!(s, ", with the issue's floors {:.2}%", 100.0 * floors);
            }
            let reach = if floor > max {
                ": out of reach for any rule that follows this evidence"
            } else if floors > max {
                ": out of reach for any rule that follows this evidence and keeps the floors"
            } else {
                ""
            };
            let _ = writeln!(s, "{reach}");
            for (verdict, whose, top) in [
                (Verdict::Labels, "labels'", 5),
                (Verdict::Thin, "floors'", 3),
                (Verdict::Engine, "engine's", 3),
            ] {
                top_keys(&mut s, &ms, verdict, whose, top, rules);
            }
        }
    }
    s
}

/// The plain reading's targets not met on a set and route, each with its wrong rows split by whose
/// miss each is: unsafe at most every simple rule's that covers the set (the rows labelled a
/// change and proposed read-only), and patch errors at most the plain reading's and verb
/// anywhere's (those and the read-only rows proposed as a change). Out of reach where the
/// rows the labels alone leave wrong are more than the rule's.
pub fn render_issue31(
    held_out: &[Outcome<'_>],
    lib: &[Outcome<'_>],
    rules: &RuleSet,
    table: &Table,
    report: &Report,
) -> String {
    let ix = Index::of(lib);
    let mut s = String::new();
    for (&(set, route), p) in &table.patch {
        let unsafe_ = misses(held_out, &ix, set, route, false);
        let best = Peer::ALL
            .into_iter()
            .map(|peer| (peer, &report.peers[&(set, route, peer)]))
            .filter(|(_, f)| f.covered > 0)
            .min_by_key(|(_, f)| f.unsafe_);
        if let Some((peer, f)) = best.filter(|(_, f)| unsafe_.len() > f.unsafe_) {
            let rule = format!("{}'s {} rows", peer.name(), f.unsafe_);
            issue31_figure(
                &mut s, set, route, "unsafe", &unsafe_, f.unsafe_, &rule, rules,
            );
        }
        let least = p.plain_rate().min(p.anywhere_rate());
        if p.error_rate() > least + 1e-12 {
            let mut wrong = unsafe_;
            wrong.extend(
                misses(held_out, &ix, set, route, true)
                    .into_iter()
                    .filter(|m| engine_claim(&m.outcome.inference, Confidence::Medium).is_some()),
            );
            let allowed = (least * p.patched as f64).floor() as usize;
            let rule = format!(
                "{allowed} of {} patched, the rate of the better of the plain reading ({:.2}%) and verb anywhere ({:.2}%)",
                p.patched,
                100.0 * p.plain_rate(),
                100.0 * p.anywhere_rate()
            );
            issue31_figure(
                &mut s,
                set,
                route,
                "patch errors",
                &wrong,
                allowed,
                &rule,
                rules,
            );
        }
    }
    s
}

/// One of the figures the labelled sets must meet, not met: its wrong rows by verdict, and
/// the evidence they rest on.
#[allow(clippy::too_many_arguments)]
fn issue31_figure(
    s: &mut String,
    set: Set,
    route: Route,
    what: &str,
    ms: &[Miss<'_>],
    allowed: usize,
    rule: &str,
    rules: &RuleSet,
) {
    let n = |v: Verdict| ms.iter().filter(|m| m.verdict == v).count();
    let _ = writeln!(
        s,
        "  {} through {}, {what} {} rows (at most {rule}): {} on evidence other providers mostly label the other way, {} on evidence they label this way, {} the floors keep from a read, {} on evidence no other provider has, even as its kind{}",
        set.name(),
        route.name(),
        ms.len(),
        n(Verdict::Labels),
        n(Verdict::Engine),
        n(Verdict::Thin),
        n(Verdict::Unseen),
        if n(Verdict::Labels) > allowed {
            "; the labels alone leave more: out of reach for any rule that follows this evidence"
        } else {
            ""
        },
    );
    for (verdict, whose, top) in [
        (Verdict::Labels, "labels'", 5),
        (Verdict::Thin, "floors'", 3),
        (Verdict::Engine, "engine's", 3),
        (Verdict::Unseen, "unseen", 3),
    ] {
        top_keys(s, ms, verdict, whose, top, rules);
    }
}

/// The evidence most misses of `verdict` rest on, with the rows and what other providers say.
fn top_keys(
    s: &mut String,
    ms: &[Miss<'_>],
    verdict: Verdict,
    whose: &str,
    top: usize,
    rules: &RuleSet,
) {
    let mut by_key: BTreeMap<String, Vec<&Miss<'_>>> = BTreeMap::new();
    for m in ms.iter().filter(|m| m.verdict == verdict) {
        if let Some(k) = m.key {
            by_key
                .entry(k.text(&rules.lexicon, &rules.rules))
                .or_default()
                .push(m);
        }
    }
    let mut keys: Vec<_> = by_key.into_iter().collect();
    keys.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    for (key, group) in keys.iter().take(top) {
        let e = group[0].elsewhere;
        let mut names: Vec<String> = group
            .iter()
            .map(|m| format!("{} {}", m.outcome.row.server, m.outcome.row.name))
            .collect();
        names.dedup();
        let more = names.len().saturating_sub(3);
        names.truncate(3);
        let _ = writeln!(
            s,
            "    {whose} `{key}`: {} here ({}{}); elsewhere read-only in {} rows of {} providers, not in {} rows of {} providers",
            group.len(),
            names.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            },
            e.read_only,
            e.providers_read_only,
            e.other,
            e.providers_other,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_miss_belongs_to_the_labels_when_most_other_rows_say_otherwise() {
        let e = |read_only, other| Elsewhere {
            read_only,
            other,
            ..Elsewhere::default()
        };
        // A read-only row proposed as a change, on evidence others label a change.
        assert_eq!(Verdict::of(true, e(2, 9)), Verdict::Labels);
        // ... on evidence others label read-only, in enough providers: the engine's miss.
        assert_eq!(
            Verdict::of(
                true,
                Elsewhere {
                    providers: 9,
                    ..e(90, 0)
                }
            ),
            Verdict::Engine
        );
        assert_eq!(Verdict::of(false, e(9, 2)), Verdict::Labels);
        // A tie is no reason to blame the labels.
        assert_eq!(Verdict::of(false, e(3, 3)), Verdict::Engine);
        // Read-only elsewhere, but too few providers, or too often not, to patch a read.
        let wide = |read_only, other, providers| Elsewhere {
            providers,
            ..e(read_only, other)
        };
        assert_eq!(Verdict::of(true, wide(9, 2, 5)), Verdict::Thin);
        assert_eq!(Verdict::of(true, wide(40, 0, 2)), Verdict::Thin);
        assert_eq!(Verdict::of(true, wide(40, 0, 3)), Verdict::Engine);
        assert_eq!(Verdict::of(true, wide(400, 1, 30)), Verdict::Engine);
        // A read proposed for a change needs no more than one contrary row to be lowered.
        assert_eq!(Verdict::of(false, wide(1, 2, 1)), Verdict::Engine);
        assert_eq!(Verdict::of(false, e(0, 0)), Verdict::Unseen);
    }
}
