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
    let fresh = labelled::measure(outcomes).to_tsv(set);
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
/// level, leave-one-provider-out, as counts: the targets where met, else the figures
/// reached (tighten them as inference improves, never loosen them).
const HOLD: [(Set, Route, usize, usize, f64); 5] = [
    // Met since 2 December (a label that echoes a GET's object and a title that opens with
    // a gerund no longer say change); what is left is Jira's, Square's and EVE's POST reads
    // by ids. No unsafe row since an RPC API's GET no longer hides an inflected change
    // (Slack's `/workflows.stepCompleted`).
    (Set::Openapi, Route::Backfill, 0, 42, 0.97),
    // Unsafe and coverage met; friction held: 24 IAM reads share their names with 20 that
    // Google puts behind a write scope, so either side pays.
    (Set::Google, Route::Backfill, 6, 58, 0.96),
    // Met: at most 0.2% unsafe, 5% friction, 97% coverage.
    (Set::Graph, Route::Backfill, 2, 106, 0.97),
    // Coverage and friction met (since a read that is also a state, `read`, gave way to a
    // change before it: the record of `read` later in a name no longer held `mark_read`);
    // unsafe held: list-keys and secrets reads that Azure's RBAC counts as actions.
    (Set::Azure, Route::Audit, 25, 27, 0.95),
    // Unsafe met; friction and coverage held: the contradictions between servers. One row
    // more than before a read word was judged by its position's record alone
    // (`query_heapsnapshot_objects`), for nine fewer on openapi-scopes-dev and google-dev;
    // three fewer since a plural past a name's first word yields to its label
    // (`browser_console_messages`, "Get console messages"), two since `read` later in a
    // name stands when no change comes before it (`application-readAppMonitoring`).
    (Set::Mcp, Route::Audit, 1, 43, 0.930),
];

/// The same at the default patch level with each whole set held out (a naming culture the
/// counts have never seen): the figures reached, as counts.
const HOLD_SETS: [(Set, Route, usize, usize, f64); 5] = [
    // Coverage two rows lower since Slack's `workflows.stepCompleted` and `stepFailed` (GETs
    // of an RPC API) are changes, proposed `low` with this set out: they were its two unsafe
    // rows.
    (Set::Openapi, Route::Backfill, 0, 42, 0.996),
    // Google's IAM reads behind write scopes: every other set labels such reads read-only.
    // Two more since `acquire` became a change verb (2 December): Graph's two token
    // acquisitions no longer count against reads over POST, which then reach medium on
    // Google's getVerificationCode and getByDataFilter (and three reads, right).
    (Set::Google, Route::Backfill, 26, 33, 0.999),
    // Friction 284 -> 197 since those two Slack rows no longer sink the record of a GET
    // without a verb (Graph's `…_delta` functions).
    (Set::Graph, Route::Backfill, 0, 197, 0.984),
    // Azure's run-like verbs are actions; elsewhere they are read-only 39 times in 40.
    (Set::Azure, Route::Audit, 47, 16, 0.973),
    (Set::Mcp, Route::Audit, 1, 45, 0.921),
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

/// Issue 22, item 5: half of every provider's rows declared, the other half scored with and
/// without the catalog's own evidence (`examples/labelled/half.rs`). The catalog's evidence
/// never raises the unsafe count of any set and route; with it, each holds at least what was
/// measured when it was built: (set, route, unsafe at most, friction at most, rows covered at
/// least), at the default patch level, leave-one-provider-out. Tighten, never loosen. (Loosened
/// once, by design, on 2 December: since the engine's own proposals no longer vote, the gains
/// that rested on them went, 9 rows of coverage and 3 of friction at most per set, graph-dev's
/// one unsafe row fewer among them; docs/evaluation.md.)
const HALF: [(Set, Route, usize, usize, usize); 9] = [
    // Both unsafe rows gone: Slack's RPC GETs that report a step completed or failed are
    // changes.
    (Set::Openapi, Route::Backfill, 0, 24, 1594),
    (Set::Openapi, Route::Audit, 0, 49, 1540),
    (Set::Google, Route::Backfill, 1, 25, 770),
    (Set::Google, Route::Audit, 4, 50, 718),
    (Set::Graph, Route::Backfill, 2, 50, 2698),
    // Coverage loosened by six on 2 December (`store` became a word as often a noun: six
    // term-store reads proposed as writes fell to low), and gained them back when a change
    // word ending a path-made name overruled a read as often a noun (`…_filter_clear`) and
    // `acquire` became a change verb.
    (Set::Graph, Route::Audit, 7, 115, 2545),
    (Set::Azure, Route::Audit, 10, 12, 834),
    (Set::Mcp, Route::Backfill, 0, 0, 86),
    (Set::Mcp, Route::Audit, 1, 20, 214),
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
