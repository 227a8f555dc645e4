//! The lint rules file: its examples, its validation errors, silences and code filters.

use catalog_effects::effects::{Effect, Effects};
use catalog_effects::lint::{CodeFilter, LintRules, lint};
use catalog_effects::model::finding::Level;
use catalog_effects::view::{ActionView, Input};

const MINIMAL: &str = r#"
rules:
  - code: empty-description
    severity: error
    why: w
    suggestion: s
    examples:
      match: [{id: a}]
      no_match: [{id: a, description: "Gets a user."}]
"#;

#[test]
fn builtin_examples_match_once_and_no_match_never() {
    let rules = LintRules::builtin().expect("built-in rules load");
    let problems = rules.verify_examples();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // Every code documents itself.
    for rule in rules.rules() {
        assert!(
            !rule.why.is_empty() && !rule.suggestion.is_empty(),
            "{}",
            rule.code
        );
    }
    assert!(rules.explain("vague-verb").is_some());
    assert!(rules.explain("nope").is_none());
}

#[test]
fn user_file_loads_and_a_wrong_example_is_reported() {
    assert!(LintRules::from_yaml(MINIMAL, "mine.yaml").is_ok());
    let wrong = MINIMAL.replace("description: \"Gets a user.\"", "description: \" \"");
    let rules = LintRules::from_yaml(&wrong, "mine.yaml").unwrap();
    let problems = rules.verify_examples();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("mine.yaml: rule `empty-description`: no_match example #1"));
}

fn load_err(text: &str) -> String {
    LintRules::from_yaml(text, "mine.yaml")
        .unwrap_err()
        .to_string()
}

#[test]
fn errors_name_file_code_and_field() {
    let e = load_err(&MINIMAL.replace("suggestion: s", "suggestion: s\n    colour: red"));
    assert!(
        e.starts_with("mine.yaml: rule `empty-description`: unknown field `colour`"),
        "{e}"
    );
    let e = load_err(&MINIMAL.replace("code: empty-description", "code: shouting"));
    assert!(
        e.starts_with("mine.yaml: rule `shouting`: field `code`: unknown code"),
        "{e}"
    );
    let e = load_err(&MINIMAL.replace("suggestion: s", "suggestion: s\n    words: [x]"));
    assert_eq!(
        e,
        "mine.yaml: rule `empty-description`: field `words`: not used by this code"
    );
    let no_examples = MINIMAL.split("    examples:").next().unwrap();
    let e = load_err(no_examples);
    assert!(
        e.starts_with("mine.yaml: rule `empty-description`: field `examples`"),
        "{e}"
    );
    let e = load_err(&MINIMAL.replace("no_match: [{id: a,", "no_match: [{id: a, shape: 1,"));
    assert!(
        e.contains("rule `empty-description`") && e.contains("unknown field `shape`"),
        "{e}"
    );
    let vague = "rules:\n  - code: vague-verb\n    severity: warning\n    why: w\n    suggestion: s\n    examples: {match: [{id: a}], no_match: [{id: a}]}\n";
    assert_eq!(
        load_err(vague),
        "mine.yaml: rule `vague-verb`: field `words`: required by this code and empty or missing"
    );
}

/// A lint rules file is read as the effect rules' files are: an error names the rule and
/// what was expected, and quotes no value of the file (which may be anything a path names).
#[test]
fn errors_quote_no_value_of_the_file() {
    let e = load_err("rules:\n  - \"secret text\"\n");
    assert!(
        e.starts_with(
            "mine.yaml: rule #1: invalid type: string, expected a rule (a mapping with `code`"
        ),
        "{e}"
    );
    assert!(!e.contains("secret"), "{e}");
    // A nested type is named as a reader would name it, not by its Rust name.
    let e = load_err(&MINIMAL.replace("no_match: [{id: a,", "no_match: [\"secret\", {id: a,"));
    assert!(
        e.contains("expected an example (a mapping with `id`"),
        "{e}"
    );
    assert!(!e.contains("secret") && !e.contains("struct"), "{e}");
    let e = load_err("root:x:0:0:root:/root:/bin/bash\n");
    assert!(e.starts_with("mine.yaml: invalid lint rules file: "), "{e}");
    assert!(!e.contains("/bin/bash"), "{e}");
}

fn view(id: &str, description: &str) -> ActionView {
    ActionView {
        id: id.into(),
        description: Some(description.into()),
        ..ActionView::default()
    }
}

fn codes(v: &ActionView, effects: Effects, filter: &CodeFilter) -> Vec<String> {
    let rules = LintRules::builtin().unwrap();
    lint(v, effects, &rules, filter)
        .into_iter()
        .map(|f| f.code)
        .collect()
}

#[test]
fn silences_and_unused_silences() {
    let filter = CodeFilter::default();
    let mut v = view("manage_user", "Manages a user in Okta.");
    assert_eq!(codes(&v, Effects::EMPTY, &filter), ["vague-verb"]);
    v.id_comment = Some(" catalog-effects: ignore[vague-verb]".into());
    assert!(codes(&v, Effects::EMPTY, &filter).is_empty());
    v.id_comment = Some("catalog-effects: ignore[vague-verb, euphemism, typo-code]".into());
    let rules = LintRules::builtin().unwrap();
    let found = lint(&v, Effects::EMPTY, &rules, &filter);
    let messages: Vec<(&str, &str)> = found
        .iter()
        .map(|f| (f.code.as_str(), f.message.as_str()))
        .collect();
    let valid = rules.codes().collect::<Vec<_>>().join(", ");
    assert_eq!(
        messages,
        [
            (
                "unused-silence",
                "the silence of `euphemism` matches no finding; remove `euphemism` from `# catalog-effects: ignore[...]`"
            ),
            (
                "unused-silence",
                format!("unknown code `typo-code` in a silence; fix its spelling, or remove it; valid codes: {valid}").as_str()
            )
        ]
    );
    // A silenced check that did not run (effects unknown) is not reported as unused.
    v.id_comment = Some("catalog-effects: ignore[vague-verb, missing-target]".into());
    assert!(codes(&v, Effects::EMPTY, &filter).is_empty());
}

#[test]
fn select_and_ignore() {
    let rules = LintRules::builtin().unwrap();
    let v = ActionView {
        inputs: vec![Input {
            name: "dry_run".into(),
            ty: Some("boolean".into()),
            ..Input::default()
        }],
        ..view("manage_user", "Manages a user in Okta.")
    };
    let all = CodeFilter::default();
    assert_eq!(
        codes(&v, Effects::EMPTY, &all),
        ["dry-run-flag", "vague-verb"]
    );
    let only = CodeFilter::new(&["vague-verb".into()], &[], &rules).unwrap();
    assert_eq!(codes(&v, Effects::EMPTY, &only), ["vague-verb"]);
    let not = CodeFilter::new(&[], &["vague-verb".into()], &rules).unwrap();
    assert_eq!(codes(&v, Effects::EMPTY, &not), ["dry-run-flag"]);
    let e = CodeFilter::new(&["vage-verb".into()], &[], &rules)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown lint code `vage-verb`") && e.contains("vague-verb, euphemism"),
        "{e}"
    );
}

#[test]
fn findings_carry_severity_sorted_by_code() {
    let rules = LintRules::builtin().unwrap();
    let v = ActionView {
        label: Some("Sync".into()),
        ..view("sync_user", "Syncs a user in Okta (read-only).")
    };
    let found = lint(
        &v,
        Effects::single(Effect::Write),
        &rules,
        &CodeFilter::default(),
    );
    let got: Vec<(&str, Level)> = found.iter().map(|f| (f.code.as_str(), f.level)).collect();
    assert_eq!(
        got,
        [
            ("read-only-claim-contradicted", Level::Error),
            ("vague-verb", Level::Warning)
        ]
    );
}
