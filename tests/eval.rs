//! The inference quality regression test: the measurement of `examples/eval.rs`, through
//! the library (no binary needed), on the five labelled sets of `heuristics/labelled` and
//! both routes, each provider scored with counts measured without it.
//!
//! Thresholds are the targets where reached, otherwise the figures reached so far:
//! tighten them as inference improves, never loosen them. `cargo test --test eval --
//! --nocapture` prints the tables; `cargo run --release --example eval -- --misses` lists
//! every miss.

#[path = "../examples/labelled/mod.rs"]
mod labelled;

use std::sync::OnceLock;

use catalog_effects::classify::{Confidence, RuleSet};
use labelled::contested::Verdict;
use labelled::{Report, Route, Set};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/heuristics/labelled");

/// The labelled rows, the built-in rules and every row classified with them: read and
/// classified once for every test of this file (the classification is most of its time).
fn run() -> (
    &'static [labelled::Row],
    &'static RuleSet,
    &'static [labelled::Outcome<'static>],
) {
    static ROWS: OnceLock<Vec<labelled::Row>> = OnceLock::new();
    static SET: OnceLock<RuleSet> = OnceLock::new();
    static OUTCOMES: OnceLock<Vec<labelled::Outcome<'static>>> = OnceLock::new();
    // CI has the files: a missing file must fail, not skip, or the regression test is void.
    let rows = ROWS.get_or_init(|| {
        labelled::read_all(std::path::Path::new(DIR))
            .unwrap_or_else(|e| panic!("the labelled sets in {DIR} are required: {e}"))
    });
    let set = SET.get_or_init(|| RuleSet::builtin().expect("built-in heuristics load"));
    let outcomes =
        OUTCOMES.get_or_init(|| labelled::classify_all(rows, set).expect("every row classifies"));
    (rows, set, outcomes)
}

#[test]
fn the_measured_counts_are_what_the_labelled_sets_give() {
    let (_rows, set, outcomes) = run();
    let fresh = labelled::measure(outcomes).to_tsv(&set.lexicon, &set.rules);
    let committed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/heuristics/measured.tsv"
    ))
    .expect("heuristics/measured.tsv");
    if committed != fresh {
        let line = committed
            .lines()
            .zip(fresh.lines())
            .position(|(a, b)| a != b)
            .map_or(committed.lines().count().min(fresh.lines().count()), |i| i);
        panic!(
            "heuristics/measured.tsv differs from what the labelled sets give (first at line {}): run `cargo run --release --example eval -- --measure` and review the diff",
            line + 1
        );
    }
}

/// (set, route, unsafe at most, friction at most, coverage at least) at the default patch
/// level, leave-one-provider-out, as counts: the figures reached (tighten them as inference
/// improves, never loosen them but for a measured reason written here).
///
/// Loosened on unsafe on 3 December, for the plain reading first: a departure
/// stands only where its record pays for it against the plain reading, and a read the
/// plain reading makes is never held where its record says it is right more often than not
/// (held, such reads lost 39 to 0 on openapi-scopes-dev's audit route). Every unsafe row
/// added is a read the plain reading makes too (unsafe stays at most the plain reading's on
/// every set), and friction fell on every row of this table: openapi-scopes-dev 42 -> 30,
/// google-dev 58 -> 48, graph-dev 106 -> 101, azure-dev 27 -> 9, mcp-dev 43 -> 41 (the last
/// two with veto-name and veto-object gone).
const HOLD: [(Set, Route, usize, usize, f64); 5] = [
    // Unsafe 0 -> 3: Reverb's `get_listings_slug_edit` (GET, "/edit"), Slack's
    // `workflows.stepFailed` (an RPC API's GET), Twitter's `list_user_pin`: reads by the
    // plain reading whose departures toward a change were too weak to stand. Friction
    // 30 -> 37 on 4 December: a read whose record is below the floor is
    // held, no longer patched because it is right more often than not (Jira's `get_*` over
    // POST: 6 of 8 elsewhere).
    (Set::Openapi, Route::Backfill, 3, 37, 0.97),
    // Unsafe 6 -> 10: IAM policy and verification-token GETs and two datalineage searches
    // over POST, which Google puts behind a write scope.
    (Set::Google, Route::Backfill, 10, 47, 0.96),
    // Friction 101 -> 103 on 4 December: two reads of a thin, once-wrong record whose kind
    // is surely below the floor (`confidence::judge`: Graph's `preview`).
    (Set::Graph, Route::Backfill, 2, 103, 0.97),
    // Unsafe 25 -> 30 (the plain reading's own 30): list-keys and secrets reads that
    // Azure's RBAC counts as actions; 30 -> 21 on 4 December, friction 9 -> 19, with reads
    // below the floor held (`check_*`: 29 of 37 elsewhere).
    (Set::Azure, Route::Audit, 21, 19, 0.95),
    (Set::Mcp, Route::Audit, 1, 41, 0.95),
];

/// The same at the default patch level with each whole set held out (a naming culture the
/// counts have never seen): the figures reached, as counts.
const HOLD_SETS: [(Set, Route, usize, usize, f64); 5] = [
    // Friction 37 -> 41 and coverage 99.9% -> 99.76% on 4 December: reads below the floor
    // held.
    (Set::Openapi, Route::Backfill, 2, 41, 0.997),
    // Unsafe 25 -> 28 on 4 December, all IAM reads Google puts behind a write scope and
    // every other set labels read-only (`…_get_iam_policy`, `…_test_iam_permissions`).
    (Set::Google, Route::Backfill, 28, 32, 0.998),
    // Friction 197 -> 126 since the plain reading starts; 128 on 4 December.
    (Set::Graph, Route::Backfill, 1, 128, 0.999),
    // Azure's run-like verbs are actions; elsewhere they are read-only. Unsafe 47 -> 34.
    // Coverage 99.5% -> 99.45% (azure-dev) and 99.77% -> 98.14% (mcp-dev) on 5 December:
    // `hold-unsure-read` holds a plain change where no method speaks and the read the engine
    // read is surely likelier (`git_status`, `db-stats`), as a read-only claim in the patch
    // must be right 95% of the time at medium.
    (Set::Azure, Route::Audit, 34, 9, 0.994),
    (Set::Mcp, Route::Audit, 1, 43, 0.98),
];

/// Fails where a figure of `table` is worse than held.
fn hold(report: &Report, table: &[(Set, Route, usize, usize, f64)], how: &str) {
    for &(s, route, max_unsafe, max_friction, min_coverage) in table {
        let f = &report.engine[&(s, route, Confidence::Medium)];
        let at = format!("{} through {}{how}", s.name(), route.name());
        held(
            f,
            &at,
            (max_unsafe, max_friction),
            f.coverage() >= min_coverage,
        );
    }
}

/// Fails where `f` has more unsafe or friction rows than `max`, or `covered` is false.
fn held(f: &labelled::Figures, at: &str, max: (usize, usize), covered: bool) {
    assert!(f.unsafe_ <= max.0, "{at}: unsafe rose to {}", f.unsafe_);
    assert!(f.friction <= max.1, "{at}: friction rose to {}", f.friction);
    assert!(covered, "{at}: coverage fell to {}", f.covered);
}

#[test]
fn the_figures_hold_on_providers_the_counts_have_not_seen() {
    let (rows, set, outcomes) = run();
    let held_out = labelled::cross_validated(rows, outcomes, set).expect("every row classifies");
    let report = Report::of(&held_out);
    println!("{}", report.render());
    hold(&report, &HOLD, "");
    // Every miss is put to the engine or the labels (`examples/eval` prints whose), and
    // Azure's unsafe rows are the labels': most are names every other provider labels
    // read-only (`get_*`, `list_*_secrets`), so no rule that follows them meets 1.5%.
    let ix = labelled::contested::Index::of(outcomes);
    for (s, route, ..) in HOLD {
        let f = &report.engine[&(s, route, Confidence::Medium)];
        for (truth, n) in [(false, f.unsafe_), (true, f.friction)] {
            let ms = labelled::contested::misses(&held_out, &ix, s, route, truth);
            assert_eq!(ms.len(), n, "{} {}: misses", s.name(), route.name());
        }
    }
    let azure = labelled::contested::misses(&held_out, &ix, Set::Azure, Route::Audit, false);
    let by_labels = azure
        .iter()
        .filter(|m| m.verdict == Verdict::Labels)
        .count();
    let not_read_only =
        report.engine[&(Set::Azure, Route::Audit, Confidence::Medium)].not_read_only;
    assert!(
        by_labels as f64 > 0.015 * not_read_only as f64,
        "azure-dev audit: {by_labels} unsafe rows on evidence labelled the other way elsewhere"
    );
    // google-dev's and mcp-dev's friction rows rest on evidence labelled the other way
    // elsewhere (IAM reads over POST, `stop` of a watch channel; `verify`, `close`), or
    // labelled read-only too thinly for the floors to patch a read (IAM again:
    // read-only in 22 of 40 rows, 4 providers, not in 3; run-like verbs, 51 of 73): with
    // those floors kept, no rule that follows this evidence meets 6% and 12%.
    for (s, route, target) in [
        (Set::Google, Route::Backfill, 0.06),
        (Set::Mcp, Route::Audit, 0.12),
    ] {
        let out_of_reach = labelled::contested::misses(&held_out, &ix, s, route, true)
            .iter()
            .filter(|m| matches!(m.verdict, Verdict::Labels | Verdict::Thin))
            .count();
        let read_only = report.engine[&(s, route, Confidence::Medium)].read_only;
        assert!(
            out_of_reach as f64 > target * read_only as f64,
            "{} {}: {out_of_reach} friction rows the labels or the floors keep",
            s.name(),
            route.name()
        );
    }
    // A whole naming culture held out: each set judged by the other four's counts. Held
    // as reached (unsafe, friction, coverage); `examples/eval` prints it beside the above.
    let by_set = labelled::set_held_out(rows, outcomes, set).expect("every row classifies");
    hold(&Report::of(&by_set), &HOLD_SETS, ", its set held out");
    // High read-only claims on APIs the counts have not seen are right at least 99.5% of
    // the time, 99% on google-dev (whose labels put some plain GETs behind a write scope).
    for (s, route, floor) in [
        (Set::Openapi, Route::Backfill, 0.995),
        (Set::Openapi, Route::Audit, 0.995),
        (Set::Google, Route::Backfill, 0.99),
        (Set::Graph, Route::Backfill, 0.995),
        (Set::Mcp, Route::Backfill, 0.995),
        (Set::Mcp, Route::Audit, 0.995),
    ] {
        let c = &report.calibration[&(s, route, Confidence::High)];
        let p = c.read_precision().unwrap_or(1.0);
        assert!(
            p >= floor,
            "{} {}: high read-only claims right {p:.4}",
            s.name(),
            route.name()
        );
    }
}

/// Half of every provider's rows declared, the other half scored with and
/// without the catalog's own evidence (`examples/labelled/half.rs`). The catalog's evidence
/// never raises the unsafe count of any set and route; with it, each holds at least what was
/// measured when it was built: (set, route, unsafe at most, friction at most, rows covered at
/// least), at the default patch level, leave-one-provider-out. Tighten, never loosen but for a
/// measured reason written here. (Loosened by design on 2 December: since the engine's own
/// proposals no longer vote, the gains that rested on them went, 9 rows of coverage and 3 of
/// friction at most per set, graph-dev's one unsafe row fewer among them; docs/evaluation.md.
/// And on coverage on 5 December, below: a hold is no proposal.)
const HALF: [(Set, Route, usize, usize, usize); 9] = [
    // On 3 December the plain reading first moved these as it moved the figures
    // above: unsafe +1 on openapi-scopes-dev's backfill (0 -> 1), friction and coverage
    // better nearly everywhere. On 4 December reads below the floor are held:
    // friction +2 and coverage -2 on openapi-scopes-dev's backfill, +5 friction on
    // azure-dev, +1 friction and -1 coverage on graph-dev's audit route; unsafe -1 on
    // openapi-scopes-dev's audit route. On 5 December `hold-unsure-read` holds, on the audit
    // routes, plain changes where no method speaks and the engine's read is surely likelier:
    // coverage -4, -20, -8, -1 and -2 rows.
    (Set::Openapi, Route::Backfill, 1, 19, 1601),
    (Set::Openapi, Route::Audit, 0, 34, 1581),
    (Set::Google, Route::Backfill, 1, 23, 773),
    (Set::Google, Route::Audit, 4, 51, 750),
    (Set::Graph, Route::Backfill, 2, 49, 2702),
    (Set::Graph, Route::Audit, 6, 113, 2621),
    (Set::Azure, Route::Audit, 8, 10, 850),
    (Set::Mcp, Route::Backfill, 0, 0, 86),
    (Set::Mcp, Route::Audit, 1, 20, 223),
];

#[test]
fn the_catalogs_own_declarations_never_make_a_proposal_less_safe() {
    let (rows, set, outcomes) = run();
    let half = labelled::half::measure(rows, set, outcomes).expect("every row classifies");
    println!("{}", half.render());
    for (&(s, route), without) in &half.without {
        let with = &half.with[&(s, route, 0)];
        assert!(
            with.unsafe_ <= without.unsafe_,
            "{} through {}: the catalog's evidence raised unsafe {} -> {}",
            s.name(),
            route.name(),
            without.unsafe_,
            with.unsafe_
        );
    }
    for (s, route, max_unsafe, max_friction, min_covered) in HALF {
        let f = &half.with[&(s, route, 0)];
        let at = format!("{} through {}", s.name(), route.name());
        held(f, &at, (max_unsafe, max_friction), f.covered >= min_covered);
    }
}

/// `heuristics/departures.tsv` is what the labelled sets give, as `measured.tsv` is.
#[test]
fn the_departures_records_are_what_the_labelled_sets_give() {
    let (rows, set, outcomes) = run();
    let held_out = labelled::cross_validated(rows, outcomes, set).expect("every row classifies");
    let table = labelled::departures::Table::of(&held_out, set);
    let fresh = labelled::departures::records_tsv(&table);
    let committed = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/heuristics/departures.tsv"
    ))
    .expect("heuristics/departures.tsv");
    assert!(
        committed == fresh,
        "heuristics/departures.tsv differs from what the labelled sets give: run `cargo run --release --example eval -- --measure` and review the diff"
    );
}

/// The plain reading's targets at the default patch level, leave-one-provider-out:
/// departures win at least as often as they lose on every set and route; coverage at least
/// 95% on every set; patch errors at most the plain reading's everywhere and at most verb
/// anywhere's where reached; unsafe at most every simple rule's that covers the set where
/// reached. The ones not met are the labels' (docs/evaluation.md shows the rows): held as
/// they are, so that a change that meets one more must say so here.
#[test]
fn departures_from_the_plain_reading_pay_for_themselves() {
    use labelled::departures::{Table, targets, unpaid};
    let (rows, set, outcomes) = run();
    let held_out = labelled::cross_validated(rows, outcomes, set).expect("every row classifies");
    let table = Table::of(&held_out, set);
    let report = Report::of(&held_out);
    assert_eq!(
        table.plain_mismatch, 0,
        "the peer and the plain reading are one rule"
    );
    let not_met: Vec<String> = targets(&table, &report)
        .into_iter()
        .filter(|t| !t.met)
        .map(|t| format!("{} {}: {}", t.set.name(), t.route.name(), t.what))
        .collect();
    let expected = [
        "google-dev backfill: unsafe at most every simple rule's",
        "google-dev audit: unsafe at most every simple rule's",
        "graph-dev backfill: unsafe at most every simple rule's",
        "graph-dev audit: unsafe at most every simple rule's",
    ];
    assert_eq!(not_met, expected, "the targets not met changed");
    // The unsafe ones are out of reach for any rule that follows the evidence: more of their
    // rows than the best simple rule's rest on evidence other providers mostly label the
    // other way (`runs_get`, `getTeamsLicensingDetails`, IAM GETs behind write scopes).
    let ix = labelled::contested::Index::of(outcomes);
    for (s, route) in [
        (Set::Google, Route::Backfill),
        (Set::Google, Route::Audit),
        (Set::Graph, Route::Backfill),
        (Set::Graph, Route::Audit),
    ] {
        let best = labelled::Peer::ALL
            .into_iter()
            .map(|p| &report.peers[&(s, route, p)])
            .filter(|f| f.covered > 0)
            .map(|f| f.unsafe_)
            .min()
            .expect("a simple rule covers every set");
        let by_labels = labelled::contested::misses(&held_out, &ix, s, route, false)
            .iter()
            .filter(|m| m.verdict == Verdict::Labels)
            .count();
        assert!(
            by_labels > best,
            "{} {}: {by_labels} unsafe rows the labels' against the best simple rule's {best}",
            s.name(),
            route.name()
        );
    }
    // Every departure the engine makes pays for itself; a hold, where the claim it holds is
    // too unsure to patch.
    let unpaid: Vec<String> = unpaid(&table)
        .into_iter()
        .map(|(id, _, why)| format!("{id}: {why}"))
        .collect();
    assert!(unpaid.is_empty(), "{unpaid:#?}");
}

/// The same actions written otherwise (split into partials, reordered,
/// in another case style, prefixed with their connector's key, every method POST) keep
/// their proposals: zero flips under every transformation (`examples/eval` lists any).
#[test]
fn proposals_do_not_depend_on_how_a_catalog_is_written() {
    use labelled::transform::{Transform, measure};
    let (rows, set, _) = run();
    let tmp = tempfile::tempdir().unwrap();
    let table = measure(rows, set, tmp.path()).expect("every rendering classifies");
    // Every method POST counts the reads that become changes: 3,353 before the plain
    // reading, 125 before 4 December, 17 before the morning of 5 December, 3 (APIs of one call, now
    // `hold-lone-post`) before its afternoon. A connector key as prefix flipped Graph's
    // `oauth2_permission_grants_delta` until the words of the names' prefix were read as
    // their resource wherever they recur.
    for t in Transform::ALL {
        let flipped: usize = table
            .flips
            .iter()
            .filter(|((x, ..), _)| *x == t)
            .map(|(_, f)| f.flipped)
            .sum();
        assert_eq!(flipped, 0, "{}:\n{}", t.name(), table.render());
    }
}

/// An author's explicit read-only claim, audited, leave-one-provider-out (every labelled
/// tool declared `readOnlyHint: true`, each provider judged by the counts measured without
/// it): truthful claims called `unsafe` at most 2% on every set and route (the target), and
/// lies caught at least the share reached (the target is 60%, met on four rows: a record must
/// clear 95% with 95% confidence, and most change words are seen in too few rows,
/// docs/evaluation.md). Tighten the floors as inference improves.
#[test]
fn an_authors_read_only_claim_is_overruled_only_on_a_sound_record() {
    let (rows, set, outcomes) = run();
    let held_out = labelled::cross_validated(rows, outcomes, set).expect("every row classifies");
    let by = labelled::declared::measure(&held_out, outcomes, set);
    println!("{}", labelled::declared::render(&by));
    // (set, route, lies caught at least): the shares reached on 6 December, rounded down.
    let floors = [
        (Set::Openapi, Route::Backfill, 0.494),
        (Set::Openapi, Route::Audit, 0.573),
        (Set::Google, Route::Backfill, 0.662),
        (Set::Google, Route::Audit, 0.591),
        (Set::Graph, Route::Backfill, 0.589),
        (Set::Graph, Route::Audit, 0.609),
        (Set::Azure, Route::Audit, 0.600),
        (Set::Mcp, Route::Backfill, 0.351),
        (Set::Mcp, Route::Audit, 0.326),
    ];
    assert_eq!(by.len(), floors.len(), "every set and route measured");
    for (s, route, caught) in floors {
        let c = &by[&(s, route)];
        assert!(
            c.false_alarm_rate() <= 0.02,
            "{} {}: {} of {} truthful read-only claims called unsafe",
            s.name(),
            route.name(),
            c.false_alarms,
            c.truthful
        );
        assert!(
            c.caught_rate() >= caught,
            "{} {}: {} of {} lies caught, below {caught}",
            s.name(),
            route.name(),
            c.caught,
            c.lies
        );
    }
}
