//! Fuzz target for the locate-and-edit path: `run::plan` -> `fix::apply::apply` -> parse and
//! plan again. The invariants live in `../invariants.rs`, shared with `tests/fuzz_props.rs`
//! so `cargo test` checks the same ones on every run.
#![no_main]

use std::sync::OnceLock;

use catalog_effects::classify::RuleSet;
use catalog_effects::fix::options::Options;
use libfuzzer_sys::fuzz_target;

#[path = "../invariants.rs"]
mod invariants;
#[path = "../unified.rs"]
mod unified;

fn options() -> &'static Options {
    static OPTS: OnceLock<Options> = OnceLock::new();
    OPTS.get_or_init(|| {
        let mut opts = Options::new(RuleSet::builtin().expect("built-in rules load"));
        opts.keep_texts = true;
        opts
    })
}

fuzz_target!(|data: &[u8]| {
    // Files that are not UTF-8 are refused before parsing (`source::read_text`); the
    // lossy conversion still lets byte-level mutations reach the parser.
    let text = String::from_utf8_lossy(data);
    if let Err(violation) = invariants::check(&text, options()) {
        panic!("invariant violated: {violation}\ninput: {text:?}");
    }
});
