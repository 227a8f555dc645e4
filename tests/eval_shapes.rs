//! The labelled rows of openapi-scopes-dev and graph-dev judged as connectors and as
//! OpenAPI documents through the library: both sources map an operation to the same view,
//! so every row must get the same effects and confidence. `examples/eval.rs` measures the
//! same through the binary on every row.

#[path = "../examples/labelled/mod.rs"]
mod labelled;

use catalog_effects::classify::RuleSet;
use labelled::openapi_shape::{self, SETS};
use labelled::{Row, by_server};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/heuristics/labelled");

/// The rows of both sets: a few seconds in a debug build.
fn sample() -> Vec<Row> {
    let rows = labelled::read_all(std::path::Path::new(DIR))
        .unwrap_or_else(|e| panic!("the labelled sets in {DIR} are required: {e}"));
    let mut out = Vec::new();
    for set in SETS {
        for (_, list) in by_server(&rows, set) {
            out.extend(list.into_iter().cloned());
        }
    }
    out
}

#[test]
fn connectors_and_documents_are_judged_alike() {
    let rows = sample();
    let rules = RuleSet::builtin().expect("built-in heuristics load");
    let lib = labelled::classify_all(&rows, &rules).expect("every row classifies");
    let connector = openapi_shape::connector_rows(&lib, &SETS);
    let document = openapi_shape::classify_all(&rows, &SETS, &rules).expect("every document reads");
    assert_eq!(connector.len(), document.len());
    assert!(document.len() > 8000, "{} rows", document.len());
    let diff = openapi_shape::differences(&connector, &document);
    assert!(
        diff.is_empty(),
        "{}",
        openapi_shape::side_by_side(&connector, &document, 20)
    );
}

#[test]
fn a_document_holds_every_row_as_an_operation() {
    let rows = sample();
    let set = SETS[1];
    let (server, list) = by_server(&rows, set).into_iter().next().expect("a server");
    let text = openapi_shape::document_yaml(server, &list);
    let tree = catalog_effects::yaml::parse_tree(&text).expect("the document parses");
    let doc = catalog_effects::source::openapi::read::read(&tree).expect("it is a document");
    assert!(doc.problems.is_empty(), "{:?}", doc.problems);
    assert_eq!(doc.operations.len(), list.len());
}
