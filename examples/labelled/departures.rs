//! The engine against the plain reading: where it says something other than what
//! the name's leading verb and the method plainly say, is it right? Per set and route, at
//! the default patch level: the departures' wins and losses, and the patch errors (wrong
//! proposals over patched) beside the plain reading's and the peers'; then every departure
//! with its record.
//!
//! A win is a row where the plain reading is wrong and the engine right, or where the engine
//! holds a wrong read-only claim for a human; a loss is one where the plain reading is right
//! and the engine wrong or holding it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use catalog_effects::classify::departure::{self, Departure};
use catalog_effects::classify::{Confidence, RuleSet};

use super::{Outcome, Peer, Route, Set, engine_claim};

/// Which way a departure moved the plain reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Toward {
    /// The plain reading said change; the engine proposes a read.
    Read,
    /// The plain reading said read; the engine proposes a change.
    Change,
    /// The plain reading said read; the engine holds it.
    HoldRead,
    /// The plain reading said change; the engine holds it.
    HoldChange,
}

impl Toward {
    /// The direction's id in `heuristics/departures.tsv`.
    pub fn id(self) -> &'static str {
        match self {
            Toward::Read => "read",
            Toward::Change => "change",
            Toward::HoldRead => "hold-read",
            Toward::HoldChange => "hold-change",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Toward::Read => "to read",
            Toward::Change => "to change",
            Toward::HoldRead => "holds a read",
            Toward::HoldChange => "holds a change",
        }
    }
}

/// Fires, wins and losses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Record {
    pub fires: usize,
    pub wins: usize,
    pub losses: usize,
    /// Rows where it fired and its own claim was right (for a hold: the plain claim was
    /// wrong).
    pub right: usize,
}

impl Record {
    fn add(&mut self, win: bool, loss: bool, right: bool) {
        self.fires += 1;
        self.wins += usize::from(win);
        self.losses += usize::from(loss);
        self.right += usize::from(right);
    }

    pub fn cell(&self) -> String {
        format!("{}/{}/{}", self.fires, self.wins, self.losses)
    }
}

/// Per set and route: the engine's patch beside the plain reading's.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Patch {
    pub rows: usize,
    pub patched: usize,
    pub wrong: usize,
    /// The same at `--min-confidence high`.
    pub patched_high: usize,
    pub wrong_high: usize,
    pub plain_wrong: usize,
    pub anywhere_wrong: usize,
    pub method_covered: usize,
    pub method_wrong: usize,
    pub wins: usize,
    pub losses: usize,
}

fn rate(n: usize, d: usize) -> f64 {
    if d == 0 { 0.0 } else { n as f64 / d as f64 }
}

impl Patch {
    pub fn error_rate(&self) -> f64 {
        rate(self.wrong, self.patched)
    }
    pub fn plain_rate(&self) -> f64 {
        rate(self.plain_wrong, self.rows)
    }
    pub fn anywhere_rate(&self) -> f64 {
        rate(self.anywhere_wrong, self.rows)
    }
}

/// The whole comparison.
#[derive(Debug, Default)]
pub struct Table {
    pub patch: BTreeMap<(Set, Route), Patch>,
    /// By departure id and direction, then set and route.
    pub departures: BTreeMap<(String, Toward), BTreeMap<(Set, Route), Record>>,
    /// The same by the departures' own ids (every hold one `hold`), as
    /// `heuristics/departures.tsv` keeps them.
    pub records: BTreeMap<(String, Toward), BTreeMap<(Set, Route), Record>>,
    /// Rows whose plain reading the library and the peer rule disagree on (there should be
    /// none: the peer is the plain reading).
    pub plain_mismatch: usize,
}

impl Table {
    pub fn of(outcomes: &[Outcome<'_>], rules: &RuleSet) -> Table {
        let mut t = Table::default();
        for o in outcomes {
            let Some(truth) = o.row.truth else { continue };
            let key = (o.row.set, o.route);
            let plain = Peer::LeadingVerb.claim(o.row, o.route) == Some(true);
            if let Some(p) = o.inference.plain
                && (p.claim == catalog_effects::classify::Claim::Read) != plain
            {
                t.plain_mismatch += 1;
            }
            let engine = engine_claim(&o.inference, Confidence::Medium);
            let win = plain != truth && (engine == Some(truth) || (engine.is_none() && plain));
            let loss = plain == truth && engine != Some(truth);
            let p = t.patch.entry(key).or_default();
            p.rows += 1;
            p.plain_wrong += usize::from(plain != truth);
            p.anywhere_wrong +=
                usize::from(Peer::VerbAnywhere.claim(o.row, o.route) != Some(truth));
            if let Some(m) = Peer::MethodTable.claim(o.row, o.route) {
                p.method_covered += 1;
                p.method_wrong += usize::from(m != truth);
            }
            if let Some(e) = engine {
                p.patched += 1;
                p.wrong += usize::from(e != truth);
            }
            if let Some(e) = engine_claim(&o.inference, Confidence::High) {
                p.patched_high += 1;
                p.wrong_high += usize::from(e != truth);
            }
            p.wins += usize::from(win);
            p.losses += usize::from(loss);
            let Some(d) = departure::standing(&o.inference, None, Confidence::Medium) else {
                continue;
            };
            let toward = match (plain, engine) {
                (true, None) => Toward::HoldRead,
                (false, None) => Toward::HoldChange,
                (true, Some(_)) => Toward::Change,
                (false, Some(_)) => Toward::Read,
            };
            // A departure that only holds the plain claim where the engine agrees with it
            // is a hold; one that moved the claim names what moved it.
            let id = if d == Departure::Hold(None) {
                format!("hold ({})", held_by(&o.inference, rules))
            } else {
                d.id(rules)
            };
            t.records
                .entry((d.id(rules), toward))
                .or_default()
                .entry(key)
                .or_default()
                .add(win, loss, engine.map_or(plain != truth, |e| e == truth));
            let right = match engine {
                Some(e) => e == truth,
                None => plain != truth,
            };
            t.departures
                .entry((id, toward))
                .or_default()
                .entry(key)
                .or_default()
                .add(win, loss, right);
        }
        t
    }

    /// All departures together, by set and route.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "  {:34} {:>9} {:>9} {:>18} {:>18} {:>18} {:>18} {:>22}",
            "set, route",
            "wins",
            "losses",
            "patch errors",
            "plain reading",
            "verb anywhere",
            "method table",
            "patch errors at high"
        );
        for ((set, route), p) in &self.patch {
            let pct = |n: usize, d: usize| format!("{n}/{d} {:.2}%", 100.0 * rate(n, d));
            let _ = writeln!(
                s,
                "  {:34} {:>9} {:>9} {:>18} {:>18} {:>18} {:>18} {:>22}",
                format!("{}, {}", set.name(), route.name()),
                p.wins,
                p.losses,
                pct(p.wrong, p.patched),
                pct(p.plain_wrong, p.rows),
                pct(p.anywhere_wrong, p.rows),
                pct(p.method_wrong, p.method_covered),
                pct(p.wrong_high, p.patched_high),
            );
        }
        let _ = writeln!(
            s,
            "\ndepartures (fires/wins/losses by set and route; right: the share of its rows where what it proposed was right)"
        );
        for ((id, toward), by) in &self.departures {
            let total = by.values().fold(Record::default(), |mut a, r| {
                a.fires += r.fires;
                a.wins += r.wins;
                a.losses += r.losses;
                a.right += r.right;
                a
            });
            let cells: Vec<String> = by
                .iter()
                .map(|((set, route), r)| format!("{} {}: {}", short(*set), route.name(), r.cell()))
                .collect();
            let _ = writeln!(
                s,
                "  {:44} {:15} {:>14}  right {:>6.1}%  {}",
                id,
                toward.name(),
                total.cell(),
                100.0 * rate(total.right, total.fires),
                cells.join(", ")
            );
        }
        if self.plain_mismatch > 0 {
            let _ = writeln!(
                s,
                "NOTE: the library's plain reading and the peer rule differ on {} rows",
                self.plain_mismatch
            );
        }
        s
    }
}

fn short(set: Set) -> &'static str {
    match set {
        Set::Openapi => "openapi",
        Set::Google => "google",
        Set::Graph => "graph",
        Set::Azure => "azure",
        Set::Mcp => "mcp",
    }
}

/// What a held proposal's confidence was set by, in a phrase.
fn held_by(inf: &catalog_effects::classify::Inference, rules: &RuleSet) -> String {
    match (&inf.decision, &inf.judgement) {
        (Some(d), Some(_)) => match d.basis {
            catalog_effects::classify::Basis::Verb(s) => {
                format!("{} verb, {}", s.name(), d.claim.name())
            }
            catalog_effects::classify::Basis::Veto(v) => format!("veto {}", v.name()),
            catalog_effects::classify::Basis::Rule(i) => {
                format!("rule {}", rules.rules[i].id)
            }
            catalog_effects::classify::Basis::Declared => "declared".into(),
            catalog_effects::classify::Basis::Plain(line, _) => {
                format!("plain reading, {}", line.id())
            }
        },
        _ => "unclassified".into(),
    }
}

/// One target of the plain reading on one set and route, and whether it is met.
#[derive(Debug, Clone)]
pub struct Target {
    pub set: Set,
    pub route: Route,
    pub what: &'static str,
    pub figure: String,
    pub met: bool,
}

/// The targets at the default patch level: departures win at least as often as they
/// lose; patch errors at most the plain reading's and verb anywhere's; unsafe at most every
/// simple rule's that covers the set; coverage at least 95%.
pub fn targets(table: &Table, report: &super::Report) -> Vec<Target> {
    let mut out = Vec::new();
    for (&(set, route), p) in &table.patch {
        let f = &report.engine[&(set, route, Confidence::Medium)];
        let mut add = |what, figure: String, met| {
            out.push(Target {
                set,
                route,
                what,
                figure,
                met,
            })
        };
        add(
            "departures win at least as often as they lose",
            format!("{} wins, {} losses", p.wins, p.losses),
            p.wins >= p.losses,
        );
        add(
            "patch errors at most the plain reading's and verb anywhere's",
            format!(
                "{:.2}% (plain {:.2}%, verb anywhere {:.2}%)",
                100.0 * p.error_rate(),
                100.0 * p.plain_rate(),
                100.0 * p.anywhere_rate()
            ),
            p.error_rate() <= p.plain_rate() + 1e-12 && p.error_rate() <= p.anywhere_rate() + 1e-12,
        );
        let peers: Vec<(Peer, usize)> = Peer::ALL
            .into_iter()
            .map(|peer| (peer, report.peers[&(set, route, peer)]))
            .filter(|(_, g)| g.covered > 0)
            .map(|(peer, g)| (peer, g.unsafe_))
            .collect();
        let least = peers.iter().map(|p| p.1).min().unwrap_or(usize::MAX);
        add(
            "unsafe at most every simple rule's",
            format!(
                "{} rows ({})",
                f.unsafe_,
                peers
                    .iter()
                    .map(|(peer, n)| format!("{} {n}", peer.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            f.unsafe_ <= least,
        );
        add(
            "coverage at least 95%",
            format!("{:.2}%", 100.0 * f.coverage()),
            f.coverage() >= 0.95,
        );
    }
    out
}

/// Each departure against the rule. One toward read-only: right at least 97% of the
/// time where it fires. One toward caution (a change where the plain reading said read):
/// winning at least as often as it loses on every set and route where it fires five times or
/// more, and over all of them, so that one firing a few times on each set cannot lose
/// everywhere. A hold is the floor's, not a guess of its own: it stands where the claim it holds
/// is too unsure to patch, so it does not pay where, on a set and route it fires five times or
/// more on, the held claim was right at least 95% of the time (the floor for medium).
/// `(id, direction, why it fails)` for each that does not pay.
pub fn unpaid(table: &Table) -> Vec<(String, Toward, String)> {
    let mut out = Vec::new();
    for ((id, toward), by) in &table.departures {
        let mut fail = |why: String| out.push((id.clone(), *toward, why));
        let total = by.values().fold(Record::default(), |mut a, r| {
            a.fires += r.fires;
            a.wins += r.wins;
            a.losses += r.losses;
            a.right += r.right;
            a
        });
        match toward {
            Toward::Read => {
                if (total.right as f64) < 0.97 * total.fires as f64 {
                    fail(format!(
                        "right {} of {} ({:.1}%)",
                        total.right,
                        total.fires,
                        100.0 * rate(total.right, total.fires)
                    ));
                }
            }
            Toward::Change => {
                for ((set, route), r) in by {
                    if r.fires >= 5 && r.wins < r.losses {
                        fail(format!(
                            "{} {}: {} wins, {} losses",
                            set.name(),
                            route.name(),
                            r.wins,
                            r.losses
                        ));
                    }
                }
                if total.wins < total.losses {
                    fail(format!(
                        "all sets: {} wins, {} losses",
                        total.wins, total.losses
                    ));
                }
            }
            // A loss of a hold is a row whose held claim was right. A hold is the floor's: a
            // claim too unsure to patch (its record below 95%) is held. So it is judged as
            // that record is, over every set together: unpaid where the claims it held were
            // right at least 95% of the time. (Per set, six reads of one API can all be
            // right where the record they share is 75%: Jira's `get_*` over POST.)
            Toward::HoldRead | Toward::HoldChange => {
                if total.fires >= 5 && total.losses * 100 >= 95 * total.fires {
                    fail(format!(
                        "all sets: the held claim right {} of {}",
                        total.losses, total.fires
                    ));
                }
            }
        }
    }
    out
}

/// The targets and the departures that do not pay, as text.
pub fn render_targets(table: &Table, report: &super::Report) -> String {
    let mut s = String::new();
    for t in targets(table, report) {
        let _ = writeln!(
            s,
            "  {:34} {:62} {:44} {}",
            format!("{}, {}", t.set.name(), t.route.name()),
            t.what,
            t.figure,
            if t.met { "met" } else { "NOT MET" }
        );
    }
    let unpaid = unpaid(table);
    let _ = writeln!(
        s,
        "departures that do not pay for themselves ({}):",
        unpaid.len()
    );
    for (id, toward, why) in unpaid {
        let _ = writeln!(s, "  {id:44} {:15} {why}", toward.name());
    }
    s
}

/// The departures' records as `heuristics/departures.tsv`.
pub fn records_tsv(table: &Table) -> String {
    use catalog_effects::classify::record::{Record as Row, records_tsv};
    let mut by: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for ((id, toward), sets) in &table.records {
        for ((set, route), r) in sets {
            by.entry(id.clone()).or_default().push(Row {
                toward: toward.id().to_owned(),
                set: set.name().to_owned(),
                route: route.name().to_owned(),
                fires: r.fires as u32,
                wins: r.wins as u32,
                losses: r.losses as u32,
                right: r.right as u32,
            });
        }
    }
    records_tsv(&by)
}
