//! Half-declared: what the catalog's own declarations are worth. In each
//! set, every provider's rows are split in two by a fixed hash of each row; one half is
//! declared (`[read]` where the row is read-only, else `[write]`: the sets only say which)
//! in a catalog of the set's servers, one connector each, and the other half is scored at the
//! default patch level, each provider with the counts measured without it, as
//! [`super::cross_validated`] does, without and with the catalog's evidence. Both go through
//! the function the commands use for catalog actions, `classify::classify`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use catalog_effects::classify::catalog::{Counter, Origin, Thresholds};
use catalog_effects::classify::confidence::Tally;
use catalog_effects::classify::vote::{Did, Vote};
use catalog_effects::classify::{self, Confidence, Group, Inference, RuleSet};
use catalog_effects::effects::{Effect, Effects};
use catalog_effects::source::connector::read::parse_file;
use catalog_effects::source::mcp::parse_tools;
use catalog_effects::view::ActionView;

use super::{Figures, Outcome, Route, Row, Set, by_server, connector_yaml, engine_claim};
use super::{slug, snake, tools_json};

/// Mixed into every row's hash: change it and another half is declared.
const SEED: u64 = 22;

/// Whether `row` is in the declared half: FNV-1a of its key, finished with splitmix64 so
/// that neighbouring keys do not share their low bit.
pub fn declared(row: &Row) -> bool {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ SEED;
    for part in [
        row.set.name(),
        &row.server,
        &row.name,
        &row.method,
        &row.path,
    ] {
        for &b in part.as_bytes().iter().chain(b"\t") {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h = h.wrapping_add(0x9e37_79b9_7f4a_7c15);
    h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    h & 1 == 0
}

/// A set of thresholds the run is measured with, beside the built-in ones: what each
/// threshold buys is printed, so none is chosen silently.
pub fn variants() -> Vec<(&'static str, Thresholds)> {
    let t = Thresholds::builtin();
    vec![
        ("built-in (heuristics/catalog.tsv)", t),
        (
            "medium from one connector",
            Thresholds {
                medium_connectors: 1,
                ..t
            },
        ),
        (
            "medium from two connectors",
            Thresholds {
                medium_connectors: 2,
                ..t
            },
        ),
        (
            "reads that 90% agree on",
            Thresholds {
                read_share: 0.9,
                ..t
            },
        ),
        (
            "reads lowered by 10% of changes",
            Thresholds {
                lower_share: 0.1,
                ..t
            },
        ),
        (
            "reads lowered by half of changes",
            Thresholds {
                lower_share: 0.5,
                ..t
            },
        ),
        (
            "reads never lowered",
            Thresholds {
                lower_share: 2.0,
                ..t
            },
        ),
        (
            "no change votes at all",
            Thresholds {
                change_share: 2.0,
                ..t
            },
        ),
    ]
}

/// The figures of the scored half, per set and route.
#[derive(Debug, Default)]
pub struct Half {
    /// Without the catalog's evidence, and with it under each of [`variants`].
    pub without: BTreeMap<(Set, Route), Figures>,
    pub with: BTreeMap<(Set, Route, usize), Figures>,
    /// What the built-in votes did, per set and route.
    pub did: BTreeMap<(Set, Route, &'static str), usize>,
    /// Rows declared, per set and route.
    pub declared: BTreeMap<(Set, Route), usize>,
}

/// One server's actions on one route, read as the commands read them.
struct Server<'a> {
    rows: Vec<&'a Row>,
    views: Vec<ActionView>,
    group: Group,
}

fn servers<'a>(
    server: &str,
    list: &[&'a Row],
    set: &RuleSet,
) -> Result<Vec<(Route, Server<'a>)>, String> {
    let mut out = Vec::new();
    let http: Vec<&Row> = list.iter().copied().filter(|r| r.has_http()).collect();
    if !http.is_empty() {
        let text = connector_yaml(&snake(&slug(server)), server, &http);
        let parsed = parse_file(&text).map_err(|e| format!("{server}: {e}"))?;
        let views: Vec<ActionView> = parsed.actions.into_iter().map(|a| a.view).collect();
        out.push((Route::Backfill, server_of(http, views, set)));
    }
    let tools = parse_tools(&tools_json(list), server).map_err(|e| e.to_string())?;
    out.push((Route::Audit, server_of(list.to_vec(), tools, set)));
    Ok(out)
}

fn server_of<'a>(rows: Vec<&'a Row>, mut views: Vec<ActionView>, set: &RuleSet) -> Server<'a> {
    // A tool's annotations are its label here: never evidence.
    for v in &mut views {
        v.annotations = None;
    }
    let group = Group::learn(views.iter().map(|v| v.id.as_str()), &set.lexicon);
    Server { rows, views, group }
}

/// A server's actions, their inferences without the catalog's evidence and with it (each
/// with the vote cast, if any).
type Scored<'a> = (
    Server<'a>,
    Vec<Inference>,
    Vec<(Inference, Option<Box<Vote>>)>,
);

/// The half-declared measurement over every set and route; `outcomes` are
/// [`super::classify_all`]'s, from which the counts without each provider are made.
pub fn measure(rows: &[Row], set: &RuleSet, outcomes: &[Outcome<'_>]) -> Result<Half, String> {
    let mut tally = Tally::default();
    for o in outcomes {
        super::add(&mut tally, o);
    }
    let counts = tally.by_provider();
    let mut held_out = set.clone();
    let variants = variants();
    let mut half = Half::default();
    for s in Set::ALL {
        // Per route: every server, and each row's engine inference with the counts
        // measured without its provider.
        let mut read: BTreeMap<Route, Vec<Scored<'_>>> = BTreeMap::new();
        for (server, list) in by_server(rows, s) {
            held_out.measured = counts.without(Some(&list[0].provider()));
            for (route, srv) in servers(server, &list, set)? {
                let base: Vec<Inference> = srv
                    .views
                    .iter()
                    .map(|v| classify::classify(v, &srv.group, &held_out, None).0)
                    .collect();
                read.entry(route).or_default().push((srv, base, Vec::new()));
            }
        }
        for (route, servers) in &mut read {
            let mut counter = Counter::default();
            let mut n = 0;
            for (srv, base, _) in servers.iter() {
                for (row, inf) in srv.rows.iter().zip(base) {
                    if !declared(row) {
                        // What the patch would add counts as the commands count it.
                        if engine_claim(inf, Confidence::Medium).is_some() {
                            counter.add(inf, inf.effects, &row.server, Origin::Proposed);
                        }
                        continue;
                    }
                    let Some(truth) = row.truth else { continue };
                    let e = Effects::single(if truth { Effect::Read } else { Effect::Write });
                    let origin = Origin::from_declaration(inf, e, Confidence::Medium);
                    counter.add(inf, e, &row.server, origin);
                    n += 1;
                }
            }
            half.declared.insert((s, *route), n);
            for (i, (_, t)) in variants.iter().enumerate() {
                let votes = counter.finish(*t);
                for (srv, base, with) in servers.iter_mut() {
                    if i == 0 {
                        // The built-in thresholds, through the commands' own function.
                        held_out.measured = counts.without(Some(&srv.rows[0].provider()));
                        *with = srv
                            .views
                            .iter()
                            .map(|v| classify::classify(v, &srv.group, &held_out, Some(&votes)))
                            .collect();
                    } else {
                        *with = srv
                            .views
                            .iter()
                            .zip(base.iter())
                            .map(|(v, b)| votes.apply(v, b.clone()))
                            .collect();
                    }
                    for ((row, b), w) in srv.rows.iter().zip(base.iter()).zip(with.iter()) {
                        if declared(row) {
                            continue;
                        }
                        if i == 0 {
                            half.without
                                .entry((s, *route))
                                .or_default()
                                .add(row.truth, engine_claim(b, Confidence::Medium));
                            if let Some(v) = w.1.as_deref() {
                                *half.did.entry((s, *route, v.did.name())).or_default() += 1;
                            }
                        }
                        half.with
                            .entry((s, *route, i))
                            .or_default()
                            .add(row.truth, engine_claim(&w.0, Confidence::Medium));
                    }
                }
            }
        }
    }
    Ok(half)
}

impl Half {
    /// The figures as text: per set and route, the scored half without and with the
    /// catalog's evidence, then what each variant of the thresholds does.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let t = Thresholds::builtin();
        let _ = writeln!(
            s,
            "\nhalf-declared: in each set, a fixed half of every provider's rows declared ([read] or [write]) in a catalog of the set's servers, one connector each; the other half scored at the default patch level (medium+), leave-one-provider-out, without -> with the catalog's evidence"
        );
        let _ = writeln!(
            s,
            "thresholds (heuristics/catalog.tsv): medium from {} connector{} and {} declarations, high from {} connectors and {} declarations without the largest, reads {:.0}% agreed, changes {:.0}%, a read lowered by {:.0}% of changes",
            t.medium_connectors,
            if t.medium_connectors == 1 { "" } else { "s" },
            t.medium_rows,
            t.high_connectors,
            t.high_rows,
            100.0 * t.read_share,
            100.0 * t.change_share,
            100.0 * t.lower_share
        );
        let _ = writeln!(
            s,
            "  {:30} {:>8} {:>8} {:>26} {:>26} {:>26}  what the votes did",
            "set, route", "declared", "scored", "coverage", "unsafe", "friction"
        );
        let pct = |n: usize, d: usize| {
            if d == 0 {
                0.0
            } else {
                100.0 * n as f64 / d as f64
            }
        };
        for (&(set, route), a) in &self.without {
            let b = &self.with[&(set, route, 0)];
            let cell = |an: usize, bn: usize, d: usize| {
                format!("{an}->{bn}/{d} {:+.2}pt", pct(bn, d) - pct(an, d))
            };
            let did: Vec<String> = self
                .did
                .iter()
                .filter(|((s2, r2, k), _)| *s2 == set && *r2 == route && *k != Did::Nothing.name())
                .map(|((_, _, k), n)| format!("{k} {n}"))
                .collect();
            let _ = writeln!(
                s,
                "  {:30} {:>8} {:>8} {:>26} {:>26} {:>26}  {}",
                format!("{}, {}", set.name(), route.name()),
                self.declared[&(set, route)],
                a.rows,
                cell(a.covered, b.covered, a.rows),
                cell(a.unsafe_, b.unsafe_, a.not_read_only),
                cell(a.friction, b.friction, a.read_only),
                did.join(", ")
            );
        }
        let _ = writeln!(
            s,
            "thresholds tried (unsafe, friction and coverage with the catalog's evidence, in rows; the built-in ones first):"
        );
        for (i, (name, _)) in variants().iter().enumerate() {
            let cells: Vec<String> = self
                .without
                .keys()
                .map(|&(set, route)| cell(set, route, &self.with[&(set, route, i)]))
                .collect();
            let _ = writeln!(s, "  {name:36} {}", cells.join("  "));
        }
        let cells: Vec<String> = self
            .without
            .iter()
            .map(|(&(set, route), f)| cell(set, route, f))
            .collect();
        let _ = writeln!(s, "  {:36} {}", "no catalog evidence", cells.join("  "));
        s
    }
}

/// One set and route's figures in a row of the thresholds table: unsafe/friction/covered.
fn cell(set: Set, route: Route, f: &Figures) -> String {
    format!(
        "{} {}: {}/{}/{}",
        set.name().trim_end_matches("-dev"),
        route.name(),
        f.unsafe_,
        f.friction,
        f.covered
    )
}
