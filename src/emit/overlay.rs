//! `--overlay`: an OpenAPI document's edits as an OpenAPI Overlay 1.0 document, so the
//! source stays untouched and the build applies the overlay. One action per edited mapping
//! (one per operation, plus one per generator map that already existed and takes new
//! hints: an update merges into its target, and a map given whole would replace the keys
//! it already has), each targeting its mapping by a JSONPath of name selectors and saying
//! in its `description` which operation it changes and why, so that a reviewer can read it
//! where the patch cannot be read (a minified document's patch is its one line twice). A
//! value that replaces one (a rewritten `x-effects`) is removed first by an action of its
//! own: an update merges a list into the list there, so `[write]` updated with `[read]` is
//! `[write, read]` in the implementations, as the standard's merge says.

use std::path::PathBuf;

use serde_json::Value;

use crate::emit::sink::{End, Sink};
use crate::error::Error;
use crate::model::openapi::{Inserted, NewValue};
use crate::outcome::Place;
use crate::outcome::{ActionResult, FileResult};

/// The JSONPath (RFC 9535) of a mapping given by its keys from the root.
pub fn json_path(keys: &[String]) -> String {
    let mut out = String::from("$");
    for k in keys {
        let short = k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if short {
            out.push('.');
            out.push_str(k);
        } else {
            out.push_str("['");
            // RFC 9535 allows no control character in a quoted name: each goes escaped,
            // as the grammar spells it (`\t`, else `\u00XX`).
            for c in k.chars() {
                match c {
                    '\'' | '\\' => {
                        out.push('\\');
                        out.push(c);
                    }
                    '\u{8}' => out.push_str("\\b"),
                    '\t' => out.push_str("\\t"),
                    '\n' => out.push_str("\\n"),
                    '\u{c}' => out.push_str("\\f"),
                    '\r' => out.push_str("\\r"),
                    c if u32::from(c) < 0x20 => {
                        out.push_str(&format!("\\u{:04x}", u32::from(c)));
                    }
                    c => out.push(c),
                }
            }
            out.push_str("']");
        }
    }
    out
}

/// Collects the documents' insertions; writes them to `path` as YAML, or JSON for a
/// `.json` name.
#[derive(Debug)]
pub struct Overlay {
    path: PathBuf,
    /// (file as printed, document title, insertions) of each document with edits.
    docs: Vec<(String, Option<String>, Vec<Said>)>,
}

/// An insertion, and what its actions' descriptions say of its operation.
type Said = (Inserted, String);

impl Overlay {
    pub fn new(path: PathBuf) -> Overlay {
        Overlay {
            path,
            docs: Vec::new(),
        }
    }
}

fn yaml_value(v: &NewValue, indent: usize, out: &mut String) {
    match v {
        NewValue::Bool(b) => {
            out.push(' ');
            out.push_str(&b.to_string());
            out.push('\n');
        }
        NewValue::List(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|i| Value::from(i.as_str()).to_string())
                .collect();
            out.push_str(&format!(" [{}]\n", items.join(", ")));
        }
        NewValue::Map(entries) => {
            out.push('\n');
            yaml_entries(entries, indent, out);
        }
    }
}

fn yaml_entries(entries: &[(String, NewValue)], indent: usize, out: &mut String) {
    for (k, v) in entries {
        out.push_str(&" ".repeat(indent));
        let plain = k.starts_with(|c: char| c.is_ascii_alphabetic())
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if plain {
            out.push_str(k);
        } else {
            out.push_str(&Value::from(k.as_str()).to_string());
        }
        out.push(':');
        yaml_value(v, indent + 2, out);
    }
}

fn json_value(v: &NewValue) -> Value {
    match v {
        NewValue::Bool(b) => Value::Bool(*b),
        NewValue::List(items) => {
            Value::Array(items.iter().map(|i| Value::from(i.as_str())).collect())
        }
        NewValue::Map(entries) => {
            let mut m = serde_json::Map::new();
            for (k, v) in entries {
                m.insert(k.clone(), json_value(v));
            }
            Value::Object(m)
        }
    }
}

impl Sink for Overlay {
    fn file(&mut self, f: &FileResult) -> Result<(), Error> {
        if f.inserted.is_empty() {
            return Ok(());
        }
        let of_map: std::collections::HashMap<usize, &ActionResult> = f
            .actions
            .iter()
            .flat_map(|a| a.edits().map(move |e| (e.map, a)))
            .collect();
        let inserted = f
            .inserted
            .iter()
            .map(|i| {
                let said = of_map
                    .get(&i.map)
                    .map_or_else(String::new, |a| operation(f, a));
                (i.clone(), said)
            })
            .collect();
        self.docs
            .push((f.shown.clone(), f.info_title.clone(), inserted));
        Ok(())
    }

    fn finish(&mut self, end: &End) -> Result<(), Error> {
        (end.write)(&self.path, &self.render()?)
    }
}

/// An operation as its actions' descriptions name it: `GET /pets (listPets): [read], high
/// confidence`.
fn operation(f: &FileResult, a: &ActionResult) -> String {
    let name = Place::locate(f, a, &[])
        .map_or_else(|| a.id.clone(), |p| format!("{} ({})", p.operation, a.id));
    let why = if a.declared_source {
        "as declared".to_owned()
    } else {
        format!(
            "{} confidence",
            a.inference.confidence.map_or("no", |c| c.name())
        )
    };
    format!("{name}: [{}], {why}", a.effects.joined(", "))
}

/// One action of the Overlay: its target, its description, and its update (none: a removal).
struct Action<'a> {
    target: String,
    description: String,
    update: Option<&'a [(String, NewValue)]>,
}

/// The actions that give the document its insertions, in order: a replaced key's removal
/// right before the update that writes it again.
fn actions(inserted: &[Said]) -> Vec<Action<'_>> {
    let mut out = Vec::new();
    for (i, said) in inserted {
        // A generator's map that exists takes its hints by an action of its own.
        let inside = i
            .target
            .get(i.operation..)
            .filter(|k| !k.is_empty())
            .map(|k| format!("; the hints, in its {}", k.join(".")))
            .unwrap_or_default();
        if i.replaces {
            for (k, _) in &i.entries {
                let mut keys = i.target.clone();
                keys.push(k.clone());
                out.push(Action {
                    target: json_path(&keys),
                    description: format!(
                        "{said}; removes the {k} it declares, which the next action replaces"
                    ),
                    update: None,
                });
            }
        }
        out.push(Action {
            target: json_path(&i.target),
            description: format!("{said}{inside}"),
            update: Some(&i.entries),
        });
    }
    out
}

impl Overlay {
    fn render(&self) -> Result<String, Error> {
        if self.docs.len() > 1 {
            // `backfill` refuses this before anything is written, from the documents it
            // walked; any other caller still gets the refusal rather than a wrong overlay.
            let names: Vec<&str> = self.docs.iter().map(|d| d.0.as_str()).collect();
            return Err(many(&names));
        }
        let (title, inserted) = match self.docs.first() {
            Some((_, title, ins)) => (title.clone(), ins.as_slice()),
            None => (None, &[][..]),
        };
        let title = format!(
            "catalog-effects: x-effects{}",
            title.map(|t| format!(" for {t}")).unwrap_or_default()
        );
        let actions = actions(inserted);
        if self.path.extension().is_some_and(|x| x == "json") {
            let actions: Vec<Value> = actions
                .iter()
                .map(|a| match a.update {
                    None => serde_json::json!({
                        "target": a.target,
                        "description": a.description,
                        "remove": true
                    }),
                    Some(entries) => {
                        let update: serde_json::Map<String, Value> = entries
                            .iter()
                            .map(|(k, v)| (k.clone(), json_value(v)))
                            .collect();
                        serde_json::json!({
                            "target": a.target,
                            "description": a.description,
                            "update": update
                        })
                    }
                })
                .collect();
            let doc = serde_json::json!({
                "overlay": "1.0.0",
                "info": {"title": title, "version": "1.0.0"},
                "actions": actions,
            });
            return Ok(serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n");
        }
        let mut out = format!(
            "overlay: 1.0.0\ninfo:\n  title: {}\n  version: 1.0.0\n",
            Value::from(title)
        );
        if actions.is_empty() {
            out.push_str("actions: []\n");
            return Ok(out);
        }
        out.push_str("actions:\n");
        for a in &actions {
            out.push_str(&format!(
                "  - target: {}\n    description: {}\n",
                Value::from(a.target.as_str()),
                Value::from(a.description.as_str())
            ));
            match a.update {
                None => out.push_str("    remove: true\n"),
                Some(entries) => {
                    out.push_str("    update:\n");
                    yaml_entries(entries, 6, &mut out);
                }
            }
        }
        Ok(out)
    }
}

/// The refusal of an overlay over several documents: an Overlay describes one.
pub fn many(names: &[&str]) -> Error {
    Error::new(format!(
        "--overlay describes one document, and this run reads {} OpenAPI documents ({}): run once per document, naming it (`backfill {} --overlay FILE`)",
        names.len(),
        names.join(", "),
        names.first().copied().unwrap_or("api/openapi.yaml")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_quote_what_a_shorthand_cannot_hold() {
        let keys = |k: &[&str]| k.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            json_path(&keys(&["paths", "/pets/{id}", "get", "x-zuplo-route"])),
            "$.paths['/pets/{id}'].get['x-zuplo-route']"
        );
        assert_eq!(json_path(&keys(&["paths", "/it's"])), "$.paths['/it\\'s']");
    }
}
