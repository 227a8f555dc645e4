//! Generated catalogs through `--migrate-hints`, against an oracle that shares
//! no code with the planner: the original and the edited text are loaded with `yaml_serde`,
//! and the edited document must equal the original with each planned `effects` added and
//! exactly the planned hint keys (or `annotations` mappings) taken out. Then a second plan of
//! the edited text must plan nothing. Files mix block and flow actions and mappings, every
//! key order, comments beside and between keys, anchors that other actions alias, CRLF and
//! a missing final newline; from fixed seeds, so every run sees the same files.

mod common;

use catalog_effects::classify::RuleSet;
use catalog_effects::fix::options::Options;
use catalog_effects::model::hints::{ANNOTATIONS, HintKey};
use catalog_effects::run::plan;
use common::Rng;
use yaml_serde::Value;

const KEYS: [&str; 5] = [
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];

/// One action's `annotations:` value, block or flow, and whether it is written block.
fn annotations(rng: &mut Rng, label: &str, indent: &str, eol: &str) -> (String, bool) {
    let mut keys: Vec<&str> = KEYS.iter().copied().filter(|_| rng.chance(50)).collect();
    if keys.is_empty() {
        keys.push(*rng.pick(&KEYS[1..]));
    }
    // Any order.
    for i in (1..keys.len()).rev() {
        keys.swap(i, rng.below(i + 1));
    }
    let value = |rng: &mut Rng, k: &str| match k {
        "title" if rng.chance(60) => label.to_owned(),
        "title" => format!("\"{label} (old)\""),
        _ => rng.pick(&["true", "false"]).to_string(),
    };
    if rng.chance(50) {
        let sep = if rng.chance(25) {
            format!(",{eol}{indent}  ")
        } else {
            ", ".to_owned()
        };
        let body: Vec<String> = keys
            .iter()
            .map(|k| format!("{k}: {}", value(rng, k)))
            .collect();
        (format!("{{{}}}", body.join(&sep)), false)
    } else {
        let mut s = String::new();
        for k in keys {
            if rng.chance(15) {
                s.push_str(&format!("{eol}{indent}  # a note"));
            }
            s.push_str(&format!("{eol}{indent}  {k}: {}", value(rng, k)));
            if rng.chance(20) {
                s.push_str("   # why");
            }
        }
        (s, true)
    }
}

fn generate(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let eol = if rng.chance(20) { "\r\n" } else { "\n" };
    let mut out = String::new();
    let mut anchors = 0;
    for i in 0..1 + rng.below(6) {
        let (verb, method) = *rng.pick(&[
            ("list", "get"),
            ("get", "get"),
            ("delete", "delete"),
            ("create", "post"),
            ("update", "patch"),
        ]);
        let id = format!("{verb}_things_{i}");
        let label = format!("Thing {i}");
        let declared = match rng.below(4) {
            0 => Some(if method == "get" { "[read]" } else { "[write]" }),
            _ => None,
        };
        let step = format!(
            "{{stepId: s, stepFunction: {{functionName: request, parameters: {{url: /things/{i}, method: {method}}}}}}}"
        );
        let has_hints = rng.chance(80);
        if rng.chance(20) {
            // A flow action.
            let mut entries = vec![format!("actionId: {id}"), format!("label: {label}")];
            if let Some(d) = declared {
                entries.push(format!("effects: {d}"));
            }
            entries.push(format!("steps: [{step}]"));
            if has_hints {
                let (value, _) = annotations(&mut rng, &label, "  ", eol);
                let value = if value.starts_with('{') {
                    value
                } else {
                    "{readOnlyHint: true}".to_owned()
                };
                let at = 1 + rng.below(entries.len());
                entries.insert(at, format!("annotations: {value}"));
            }
            out.push_str(&format!("- {{{}}}{eol}", entries.join(", ")));
            continue;
        }
        let comment = if rng.chance(15) { " # id" } else { "" };
        let mut keys = vec![format!("label: {label}")];
        if let Some(d) = declared {
            keys.push(format!("effects: {d}"));
        }
        keys.push(format!(
            "steps:{eol}    - stepId: s{eol}      stepFunction:{eol}        functionName: request{eol}        parameters: {{url: /things/{i}, method: {method}}}"
        ));
        if has_hints {
            let alias = anchors > 0 && rng.chance(15);
            let entry = if alias {
                format!("annotations: *a{}", rng.below(anchors))
            } else {
                let (value, block) = annotations(&mut rng, &label, "  ", eol);
                let anchor = if rng.chance(15) {
                    anchors += 1;
                    format!(" &a{}", anchors - 1)
                } else {
                    String::new()
                };
                let gap = if block { "" } else { " " };
                format!("annotations:{anchor}{gap}{value}")
            };
            let at = rng.below(keys.len() + 1);
            keys.insert(at, entry);
        }
        out.push_str(&format!("- actionId: {id}{comment}{eol}"));
        for k in keys {
            out.push_str(&format!("  {k}{eol}"));
        }
        if rng.chance(10) {
            out.push_str(&format!("  # after the action{eol}"));
        }
    }
    if rng.chance(15) {
        out.truncate(out.len() - eol.len());
    }
    out
}

/// The mapping of each action in a document of actions (shape A), in order.
fn action_maps(doc: &mut Value) -> Vec<&mut yaml_serde::Mapping> {
    match doc {
        Value::Sequence(items) => items.iter_mut().filter_map(Value::as_mapping_mut).collect(),
        _ => Vec::new(),
    }
}

fn opts() -> Options {
    let mut opts = Options::new(RuleSet::builtin().unwrap());
    opts.migrate_hints = true;
    opts.keep_texts = true;
    opts
}

#[test]
fn generated_catalogs_migrate_exactly_what_was_planned_and_converge() {
    let opts = opts();
    let (mut files, mut removed, mut refused, mut edited_files) = (0, 0, 0, 0);
    // `PROPS_SEEDS=N` generates N files instead of 400, for a longer local search.
    let seeds: u64 = std::env::var("PROPS_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    for seed in 1..=seeds {
        let text = generate(seed);
        let Ok(p) = plan(&text, &opts) else {
            panic!("seed {seed}: the generated file does not plan:\n{text}");
        };
        files += 1;
        assert!(
            p.problems.is_empty(),
            "seed {seed}: {:?}\n{text}",
            p.problems
        );
        refused += p
            .actions
            .iter()
            .filter(|a| a.hints.as_ref().is_some_and(|h| h.refused.is_some()))
            .count();
        let Some(new) = p.new_text.clone() else {
            continue;
        };
        edited_files += 1;
        let mut want: Value =
            yaml_serde::from_str(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        let got: Value = yaml_serde::from_str(&new)
            .unwrap_or_else(|e| panic!("seed {seed}: the edited text does not load: {e}\n{new}"));
        // The original, edited as planned, by a loader that shares no code with the plan.
        for (m, a) in action_maps(&mut want).into_iter().zip(&p.actions) {
            assert_eq!(
                m.get("actionId").and_then(Value::as_str),
                Some(a.site.view.id.as_str())
            );
            if let Some(e) = a.edit.as_ref().filter(|e| e.start == e.end) {
                let list = e.effects.iter().map(|x| Value::from(x.name())).collect();
                m.insert(Value::from("effects"), Value::Sequence(list));
            }
            let Some(h) = &a.hints else { continue };
            let bits = h.edits.iter().fold(0, |b, e| b | e.removes);
            removed += h.edits.len();
            if bits & ANNOTATIONS != 0 {
                m.remove("annotations");
            } else if let Some(Value::Mapping(hints)) = m.get_mut("annotations") {
                for k in HintKey::ALL.iter().filter(|k| bits & k.bit() != 0) {
                    assert!(
                        hints.remove(k.name()).is_some(),
                        "seed {seed}: {}",
                        k.name()
                    );
                }
            }
        }
        assert_eq!(
            got, want,
            "seed {seed}: the edited document is not the original with the planned edits\n--- original\n{text}\n--- edited\n{new}"
        );
        // Converged: nothing more to plan on the edited text.
        let again = plan(&new, &opts).unwrap();
        assert!(
            again.edits.is_empty(),
            "seed {seed}: a second plan edits again: {:?}\n{new}",
            again.edits
        );
    }
    eprintln!("{files} files, {edited_files} edited, {removed} removals, {refused} refused");
    // The generator must exercise both paths.
    assert!(removed > 200, "only {removed} removals");
    assert!(refused > 10, "only {refused} refusals");
}
