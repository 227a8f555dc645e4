//! The SARIF output validates against the official SARIF 2.1.0 JSON schema.
//!
//! `tests/data/sarif-schema-2.1.0.json` is the OASIS Committee Specification schema (draft-07),
//! copied byte for byte from the public repository oasis-tcs/sarif-spec, path
//! `Documents/CommitteeSpecifications/2.1.0/sarif-schema-2.1.0.json`, commit
//! 3682e9ee648f2f3e11ba1fcd47fc390a0b8f9dab (112 318 characters). It is read from disk and
//! compiled by `boon` with format assertions on, so `uri`, `uri-reference` and the like are
//! checked too; nothing is fetched.

use catalog_effects::emit::sarif::{SarifRule, render};
use catalog_effects::lint::LintRules;
use catalog_effects::model::finding::{Finding, Level};
use serde_json::Value;

const SCHEMA: &str = include_str!("data/sarif-schema-2.1.0.json");

mod common;

/// The SARIF schema, with format assertions.
struct Validator(common::SchemaValidator);

impl Validator {
    fn new() -> Validator {
        Validator(common::SchemaValidator::new(
            SCHEMA,
            "sarif-schema-2.1.0.json",
            true,
        ))
    }

    fn check(&self, sarif: &str) -> Result<(), String> {
        let v: Value = serde_json::from_str(sarif).map_err(|e| format!("not JSON: {e}"))?;
        self.0.validate(&v)
    }
}

fn finding(
    file: Option<&str>,
    line: Option<usize>,
    column: Option<usize>,
    code: &str,
    level: Level,
    tool: Option<&str>,
) -> Finding {
    Finding {
        file: file.map(str::to_owned),
        line,
        column,
        code: code.to_owned(),
        level,
        message: format!("{code} found \"here\" <&> with\nnew lines"),
        tool: tool.map(str::to_owned),
        ..Finding::default()
    }
}

fn findings() -> Vec<Finding> {
    vec![
        finding(
            Some("crmly/crmly.connector.s1.yaml"),
            Some(12),
            Some(5),
            "missing-effects",
            Level::Warning,
            Some("crmly_listContacts"),
        ),
        finding(
            Some("drive box/files #1.s1.partial.yaml"),
            Some(3),
            None,
            "invalid-effects",
            Level::Error,
            None,
        ),
        finding(
            Some("paywave/paywave.connector.s1.yaml"),
            None,
            None,
            "parse-error",
            Level::Error,
            None,
        ),
        // Tool lists (MCP) have no file: a logical location only.
        finding(
            None,
            None,
            None,
            "destructive-without-confirmation",
            Level::Warning,
            Some("delete_repository"),
        ),
        finding(None, None, None, "unused-heuristic", Level::Note, None),
        // A code outside the rule table still makes a valid result.
        finding(
            Some("a.yaml"),
            Some(1),
            Some(1),
            "some-future-code",
            Level::Note,
            None,
        ),
    ]
}

fn all_rules() -> Vec<SarifRule> {
    let lint = LintRules::builtin().expect("built-in lint rules load");
    let mut rules = SarifRule::check_rules();
    rules.extend(SarifRule::lint_rules(&lint));
    rules
}

#[test]
fn findings_with_and_without_locations_validate() {
    let v = Validator::new();
    let out = render(&findings(), &all_rules(), env!("CARGO_PKG_VERSION"));
    if let Err(e) = v.check(&out) {
        panic!("{e}\n{out}");
    }
}

#[test]
fn rules_only_and_help_uri_validate() {
    let v = Validator::new();
    let mut rules = SarifRule::check_rules();
    rules[0].help_uri = Some("https://example.org/docs/missing-effects".into());
    let out = render(&[], &rules, "0.1.0");
    v.check(&out).expect("a log without results is valid");
}

#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    // Proves the schema is really applied, not merely parsed.
    let v = Validator::new();
    let good = render(&findings(), &all_rules(), "0.1.0");
    v.check(&good).expect("baseline is valid");

    let mut doc: Value = serde_json::from_str(&good).expect("JSON");
    doc["version"] = Value::from("2.0.0");
    assert!(v.check(&doc.to_string()).is_err(), "wrong version accepted");

    let mut doc: Value = serde_json::from_str(&good).expect("JSON");
    doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] =
        Value::from(0);
    assert!(v.check(&doc.to_string()).is_err(), "line 0 accepted");

    let mut doc: Value = serde_json::from_str(&good).expect("JSON");
    doc["runs"][0]["results"][0]["level"] = Value::from("fatal");
    assert!(v.check(&doc.to_string()).is_err(), "unknown level accepted");

    let mut doc: Value = serde_json::from_str(&good).expect("JSON");
    doc["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] = Value::from("not a uri");
    assert!(v.check(&doc.to_string()).is_err(), "bad helpUri accepted");
}

#[test]
fn every_result_references_its_rule() {
    let rules = all_rules();
    let out = render(&findings(), &rules, "0.1.0");
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    let results = doc["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), findings().len());
    for r in results {
        let id = r["ruleId"].as_str().expect("ruleId");
        match rules.iter().position(|x| x.id == id) {
            Some(i) => assert_eq!(r["ruleIndex"], i),
            None => assert!(r.get("ruleIndex").is_none()),
        }
    }
    // The finding with neither file nor tool has no location at all.
    assert_eq!(results[4]["locations"], Value::Array(vec![]));
}

#[test]
fn baseline_states_and_fingerprints_validate() {
    use catalog_effects::emit::sarif::{BaselineState, render_with_states};
    let v = Validator::new();
    let states = [
        Some(BaselineState::New),
        Some(BaselineState::Unchanged),
        Some(BaselineState::Absent),
        None,
    ];
    let results: Vec<(Finding, Option<BaselineState>)> = findings()
        .into_iter()
        .zip(states.into_iter().cycle())
        .collect();
    let out = render_with_states(&results, &all_rules(), "0.1.0");
    if let Err(e) = v.check(&out) {
        panic!("{e}\n{out}");
    }
    let doc: Value = serde_json::from_str(&out).expect("JSON");
    let first = &doc["runs"][0]["results"][0];
    assert_eq!(first["baselineState"], "new");
    assert!(
        first["partialFingerprints"]["catalogEffectsIdentity/v1"]
            .as_str()
            .is_some_and(|p| p.len() == 16)
    );
    // An unknown state is what the schema forbids.
    let mut bad = doc.clone();
    bad["runs"][0]["results"][0]["baselineState"] = Value::from("moved");
    assert!(
        v.check(&bad.to_string()).is_err(),
        "unknown baselineState accepted"
    );
}
