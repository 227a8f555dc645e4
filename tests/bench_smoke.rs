//! A CI-sized benchmark: the full backfill must keep at least 40% of the throughput of the
//! YAML event parse alone run twice over each file, measured side by side in one run (a
//! ratio, not a time, so a busy machine slows both sides alike). Twice, because every
//! edited text is parsed again before it is used, and nearly every generated
//! file is edited. The full benchmark is `examples/bench.rs`.

#[path = "../examples/gen_catalog.rs"]
#[allow(dead_code)]
mod gen_catalog;

use std::time::{Duration, Instant};

use catalog_effects::classify::RuleSet;
use catalog_effects::fix::options::Options;
use catalog_effects::run;
use rayon::prelude::*;

/// The allocator the binary ships with (src/main.rs), so both sides measure what users run.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

#[test]
fn backfill_keeps_at_least_two_fifths_of_two_parses() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("catalog");
    gen_catalog::generate(3000, &catalog, 7).unwrap();
    let files = catalog_effects::run::walk::walk(&catalog, catalog_effects::source::claims)
        .unwrap()
        .files;
    let texts: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(&f.path).unwrap())
        .collect();
    let mut opts = Options::new(RuleSet::builtin().unwrap());
    opts.render_csv = true;

    let floor = || {
        texts.par_iter().for_each(|t| {
            for _ in 0..2 {
                for event in saphyr_parser::Parser::new_from_str(t) {
                    std::hint::black_box(event.unwrap());
                }
            }
        });
    };
    let full = || {
        let (mut patch, mut csv) = (0usize, 0usize);
        run::run_each(std::slice::from_ref(&catalog), &opts, |f| {
            patch += f.patch.len();
            csv += f.csv.len();
        });
        assert!(patch > 0 && csv > 0);
    };
    // Interleaved, best of several: what a noisy neighbour does to one side it does to both.
    let (mut floor_best, mut full_best) = (Duration::MAX, Duration::MAX);
    for _ in 0..3 {
        floor_best = floor_best.min(best_of(1, floor));
        full_best = full_best.min(best_of(1, full));
    }
    let ratio = floor_best.as_secs_f64() / full_best.as_secs_f64();
    println!(
        "two parses {:.3}s, full backfill {:.3}s: {:.0}% of their throughput",
        floor_best.as_secs_f64(),
        full_best.as_secs_f64(),
        ratio * 100.0
    );
    assert!(
        ratio >= 0.4,
        "full backfill at {:.0}% of two parses (needs >= 40%)",
        ratio * 100.0
    );
}
