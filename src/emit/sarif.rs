//! `--format sarif`: SARIF 2.1.0 for code-scanning dashboards, one rule per finding code.
//!
//! The log is built from private structs rather than a `serde_json::Value` so that the key
//! order is the field order: the same findings always give the same bytes.

use serde::Serialize;

use crate::lint::LintRules;
use crate::model::codes::CHECK_CODES;
use crate::model::finding::{Finding, Level};

const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
const TOOL_NAME: &str = "catalog-effects";
/// Consumers (GitHub code scanning among them) resolve this against the checkout root.
const URI_BASE: &str = "SRCROOT";

/// How a result compares with the baseline (SARIF's `baselineState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaselineState {
    New,
    Unchanged,
    /// In the baseline, no longer found.
    Absent,
}

impl BaselineState {
    pub fn from_new(new: bool) -> BaselineState {
        if new {
            BaselineState::New
        } else {
            BaselineState::Unchanged
        }
    }

    fn name(self) -> &'static str {
        match self {
            BaselineState::New => "new",
            BaselineState::Unchanged => "unchanged",
            BaselineState::Absent => "absent",
        }
    }
}

/// The `partialFingerprints` key: versioned, so a change of what is hashed is a new key
/// rather than different values under the old one.
const FINGERPRINT_KEY: &str = "catalogEffectsIdentity/v1";

/// One reporting descriptor: a finding code and what it means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SarifRule {
    pub id: String,
    pub short: String,
    pub full: String,
    pub level: Level,
    pub help_uri: Option<String>,
}

impl SarifRule {
    /// Every code `check` can report, in the documented order.
    pub fn check_rules() -> Vec<SarifRule> {
        CHECK_CODES
            .iter()
            .map(|&(code, level, short, full)| SarifRule {
                id: code.to_owned(),
                short: short.to_owned(),
                full: full.to_owned(),
                level,
                help_uri: None,
            })
            .collect()
    }

    /// Every code the lint rule set can report, in file order.
    pub fn lint_rules(rules: &LintRules) -> Vec<SarifRule> {
        rules
            .rules()
            .iter()
            .map(|r| SarifRule {
                id: r.code.clone(),
                short: r.why.clone(),
                full: format!("{} {}", r.why, r.suggestion),
                level: r.severity.level(),
                help_uri: None,
            })
            .collect()
    }
}

#[derive(Serialize)]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [RunObj<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunObj<'a> {
    tool: Tool<'a>,
    results: Vec<ResultObj<'a>>,
}

#[derive(Serialize)]
struct Tool<'a> {
    driver: Driver<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver<'a> {
    name: &'static str,
    version: &'a str,
    rules: Vec<ReportingDescriptor<'a>>,
}

/// A rule as SARIF describes it: its `reportingDescriptor`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportingDescriptor<'a> {
    id: &'a str,
    short_description: Text<'a>,
    full_description: Text<'a>,
    default_configuration: Configuration,
    #[serde(skip_serializing_if = "Option::is_none")]
    help_uri: Option<&'a str>,
}

#[derive(Serialize)]
struct Text<'a> {
    text: &'a str,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultObj<'a> {
    rule_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_index: Option<usize>,
    level: &'static str,
    message: Text<'a>,
    locations: Vec<Location<'a>>,
    /// Connector, action and code (or file, code and message): stable when lines move, so
    /// code scanning can follow a result from run to run.
    partial_fingerprints: std::collections::BTreeMap<&'static str, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline_state: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    physical_location: Option<Physical>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    logical_locations: Vec<Logical<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Physical {
    artifact_location: Artifact,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Artifact {
    uri: String,
    uri_base_id: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_column: Option<usize>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Logical<'a> {
    name: &'a str,
    kind: &'static str,
}

/// SARIF's levels happen to share our names.
fn level(l: Level) -> &'static str {
    l.name()
}

/// The log for `findings`, in the order given, with `rules` as the driver's rule table (all
/// of them, so dashboards can show rules that found nothing).
pub fn render(findings: &[Finding], rules: &[SarifRule], tool_version: &str) -> String {
    let results: Vec<(Finding, Option<BaselineState>)> =
        findings.iter().map(|f| (f.clone(), None)).collect();
    render_with_states(&results, rules, tool_version)
}

/// [`render`], each result with its state against a baseline when there is one.
pub fn render_with_states(
    findings: &[(Finding, Option<BaselineState>)],
    rules: &[SarifRule],
    tool_version: &str,
) -> String {
    let results = findings
        .iter()
        .map(|(f, state)| ResultObj {
            rule_id: &f.code,
            rule_index: rules.iter().position(|r| r.id == f.code),
            level: level(f.level),
            message: Text { text: &f.message },
            locations: location(f).into_iter().collect(),
            partial_fingerprints: [(FINGERPRINT_KEY, f.fingerprint())].into(),
            baseline_state: state.map(BaselineState::name),
        })
        .collect();
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [RunObj {
            tool: Tool {
                driver: Driver {
                    name: TOOL_NAME,
                    version: tool_version,
                    rules: rules
                        .iter()
                        .map(|r| ReportingDescriptor {
                            id: &r.id,
                            short_description: Text { text: &r.short },
                            full_description: Text { text: &r.full },
                            default_configuration: Configuration {
                                level: level(r.level),
                            },
                            help_uri: r.help_uri.as_deref(),
                        })
                        .collect(),
                },
            },
            results,
        }],
    };
    // Plain structs of strings and integers cannot fail to serialize.
    let mut out = serde_json::to_string_pretty(&log).unwrap_or_default();
    out.push('\n');
    out
}

/// Where a finding is: the file and position, the tool, or both; nothing when neither is
/// known (a location with no content is valid but tells a dashboard nothing).
fn location(f: &Finding) -> Option<Location<'_>> {
    let physical = f.ci_file().map(|file| Physical {
        artifact_location: Artifact {
            uri: uri_path(file),
            uri_base_id: URI_BASE,
        },
        // SARIF lines and columns start at 1; a column alone locates nothing.
        region: f.line.filter(|&l| l >= 1).map(|start_line| Region {
            start_line,
            start_column: f.column.filter(|&c| c >= 1),
        }),
    });
    let logical = f
        .tool
        .as_deref()
        .map(|name| Logical {
            name,
            kind: "function",
        })
        .into_iter()
        .collect();
    let loc = Location {
        physical_location: physical,
        logical_locations: logical,
    };
    (loc.physical_location.is_some() || !loc.logical_locations.is_empty()).then_some(loc)
}

/// A relative path as a URI reference: `/`-separated, and percent-encoded so that spaces,
/// `#`, `?` or a `:` in the first segment cannot change what the reference means.
pub fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(file: Option<&str>, code: &str) -> Finding {
        Finding {
            file: file.map(str::to_owned),
            line: file.map(|_| 7),
            column: file.map(|_| 5),
            code: code.into(),
            level: Level::Warning,
            message: "m".into(),
            tool: Some("crmly_listContacts".into()),
            ..Finding::default()
        }
    }

    fn parse(s: &str) -> serde_json::Value {
        serde_json::from_str(s).expect("valid JSON")
    }

    #[test]
    fn check_rules_cover_every_code() {
        let rules = SarifRule::check_rules();
        assert_eq!(rules.len(), CHECK_CODES.len());
        assert_eq!(rules[0].id, CHECK_CODES[0].0);
        assert!(
            rules
                .iter()
                .all(|r| !r.short.is_empty() && !r.full.is_empty())
        );
    }

    #[test]
    fn lint_rules_cover_every_code() {
        let lint = LintRules::builtin().expect("built-in lint rules load");
        let rules = SarifRule::lint_rules(&lint);
        let codes: Vec<&str> = lint.codes().collect();
        let ids: Vec<&str> = rules.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, codes);
    }

    #[test]
    fn results_point_at_rules_and_locations() {
        let rules = SarifRule::check_rules();
        let out = render(
            &[
                finding(Some("crmly/a b#.yaml"), "unclassified-action"),
                finding(None, "missing-effects"),
                finding(None, "not-a-known-code"),
            ],
            &rules,
            "1.2.3",
        );
        let v = parse(&out);
        assert_eq!(v["version"], "2.1.0");
        let run = &v["runs"][0];
        assert_eq!(run["tool"]["driver"]["name"], "catalog-effects");
        assert_eq!(run["tool"]["driver"]["version"], "1.2.3");
        assert_eq!(
            run["tool"]["driver"]["rules"].as_array().map(Vec::len),
            Some(CHECK_CODES.len())
        );
        let r0 = &run["results"][0];
        assert_eq!(r0["ruleId"], "unclassified-action");
        assert_eq!(r0["ruleIndex"], 1);
        let phys = &r0["locations"][0]["physicalLocation"];
        assert_eq!(phys["artifactLocation"]["uri"], "crmly/a%20b%23.yaml");
        assert_eq!(phys["artifactLocation"]["uriBaseId"], "SRCROOT");
        assert_eq!(phys["region"]["startLine"], 7);
        assert_eq!(phys["region"]["startColumn"], 5);
        let r1 = &run["results"][1];
        assert!(r1["locations"][0].get("physicalLocation").is_none());
        assert_eq!(
            r1["locations"][0]["logicalLocations"][0]["name"],
            "crmly_listContacts"
        );
        // An unknown code keeps its id but claims no index.
        assert!(run["results"][2].get("ruleIndex").is_none());
    }

    #[test]
    fn output_is_deterministic_and_ordered() {
        let rules = SarifRule::check_rules();
        let fs = [finding(Some("a.yaml"), "missing-effects")];
        let a = render(&fs, &rules, "0.1.0");
        assert_eq!(a, render(&fs, &rules, "0.1.0"));
        let schema = a.find("\"$schema\"").unwrap_or(usize::MAX);
        let version = a.find("\"version\"").unwrap_or(usize::MAX);
        let runs = a.find("\"runs\"").unwrap_or(usize::MAX);
        assert!(schema < version && version < runs);
    }

    #[test]
    fn uri_path_encodes_only_what_it_must() {
        assert_eq!(
            uri_path("crmly/x.connector.s1.yaml"),
            "crmly/x.connector.s1.yaml"
        );
        assert_eq!(uri_path("a:b\\c d"), "a%3Ab/c%20d");
        assert_eq!(uri_path("é"), "%C3%A9");
    }
}
