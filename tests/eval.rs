//! The inference quality regression test: the measurement of `examples/eval.rs`, through
//! the library (no binary needed), on every labelled set of `heuristics/labelled` and both routes.
//!
//! Thresholds are the targets where reached, otherwise the figures reached so far:
//! tighten them as inference improves, never loosen them. `cargo test --test eval --
//! --nocapture` prints the tables; `cargo run --release --example eval -- --misses` lists
//! every miss.

#[path = "../examples/labelled/mod.rs"]
mod labelled;

use catalog_effects::classify::{Confidence, RuleSet};
use labelled::{Report, Route, Set};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/heuristics/labelled");

fn run() -> (Vec<labelled::Row>, RuleSet) {
    // CI has the files: a missing file must fail, not skip, or the regression test is void.
    let rows = labelled::read_all(std::path::Path::new(DIR))
        .unwrap_or_else(|e| panic!("the labelled sets in {DIR} are required: {e}"));
    (rows, RuleSet::builtin().expect("built-in heuristics load"))
}

#[test]
fn the_measured_counts_are_what_the_labelled_sets_give() {
    let (rows, set) = run();
    let outcomes = labelled::classify_all(&rows, &set).expect("every row classifies");
    let fresh = labelled::measure(&outcomes).to_tsv(&set);
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
/// level, as counts: the targets where met, else the figures reached.
const HOLD: [(Set, Route, usize, usize, f64); 4] = [
    // Targets met: unsafe <= 0.3%, friction <= 2%, coverage >= 97%.
    (Set::Openapi, Route::Backfill, 4, 32, 0.97),
    (Set::Openapi, Route::Audit, 2, 52, 0.97),
    // Unsafe met (<= 0.9%); friction and coverage are held: 24 read-only IAM reads share their
    // names with 20 that Google puts behind a write scope, so either side pays.
    (Set::Google, Route::Backfill, 7, 53, 0.95),
    // Held: the contradictions between servers (docs/evaluation.md).
    (Set::Mcp, Route::Audit, 2, 34, 0.925),
];

#[test]
fn the_figures_hold() {
    let (rows, set) = run();
    let outcomes = labelled::classify_all(&rows, &set).expect("every row classifies");
    let report = Report::of(&outcomes);
    println!("{}", report.render());
    for (s, route, max_unsafe, max_friction, min_coverage) in HOLD {
        let f = &report.engine[&(s, route, Confidence::Medium)];
        let at = format!("{} through {}", s.name(), route.name());
        assert!(
            f.unsafe_ <= max_unsafe,
            "{at}: unsafe rose to {}",
            f.unsafe_
        );
        assert!(
            f.friction <= max_friction,
            "{at}: friction rose to {}",
            f.friction
        );
        assert!(
            f.coverage() >= min_coverage,
            "{at}: coverage fell to {:.3}",
            f.coverage()
        );
    }
    // High is right at least 99.5% of the time on openapi-scopes-dev, 99% on google-dev.
    for (s, route, floor) in [
        (Set::Openapi, Route::Backfill, 0.995),
        (Set::Openapi, Route::Audit, 0.995),
        (Set::Google, Route::Backfill, 0.99),
        (Set::Mcp, Route::Backfill, 0.995),
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
