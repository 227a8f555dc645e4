//! What every heuristics file's entries share: an id in kebab-case, and examples, each a
//! small action written as in the file (`{id: x, method: post, path: /a}`), run as a test
//! and named when it fails. Below the rules, the lexicon and the departures that carry them.

use std::fmt;

use serde::Deserialize;

use crate::view::{ActionView, Input, Step};

/// A small action written inline in a rule or sense, for its examples.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an example action (a mapping with `id`, `method`, `path`, ...)"
)]
pub struct Example {
    pub id: Option<String>,
    pub label: Option<String>,
    pub description: Option<String>,
    #[serde(default)]
    pub method: OneOrMany,
    #[serde(default)]
    pub path: OneOrMany,
    #[serde(default)]
    pub function: OneOrMany,
    #[serde(default)]
    pub soap: OneOrMany,
    pub action_type: Option<String>,
    #[serde(default)]
    pub inputs: Vec<String>,
    /// Descriptions of `inputs`, by position.
    #[serde(default)]
    pub input_descriptions: Vec<String>,
    /// The scopes of one way to call it, all needed (`requiredScopes`).
    #[serde(default)]
    pub scopes: Vec<String>,
}

/// Written as in a heuristics file (`{id: x, method: post, path: /a}`), so a failing example
/// can be found there.
impl fmt::Display for Example {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let one = |v: &Option<String>| v.iter().cloned().collect::<Vec<_>>();
        let fields = [
            ("id", one(&self.id)),
            ("label", one(&self.label)),
            ("description", one(&self.description)),
            ("method", self.method.list()),
            ("path", self.path.list()),
            ("function", self.function.list()),
            ("soap", self.soap.list()),
            ("action_type", one(&self.action_type)),
            ("inputs", self.inputs.clone()),
            ("scopes", self.scopes.clone()),
        ];
        let mut sep = "{";
        for (name, values) in fields.iter().filter(|(_, v)| !v.is_empty()) {
            match values.as_slice() {
                [v] if *name != "inputs" && *name != "scopes" => write!(f, "{sep}{name}: {v}")?,
                vs => write!(f, "{sep}{name}: [{}]", vs.join(", "))?,
            }
            sep = ", ";
        }
        f.write_str(if sep == "{" { "{}" } else { "}" })
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn list(&self) -> Vec<String> {
        match self {
            OneOrMany::None => Vec::new(),
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

impl Example {
    /// The example as an action view: steps are zipped from methods, paths, functions and
    /// SOAP operations.
    pub fn view(&self) -> ActionView {
        let (m, p, f, s) = (
            self.method.list(),
            self.path.list(),
            self.function.list(),
            self.soap.list(),
        );
        let n = m.len().max(p.len()).max(f.len()).max(s.len());
        let steps = (0..n)
            .map(|i| Step {
                method: m.get(i).map(|x| x.to_ascii_lowercase()),
                url: p.get(i).cloned(),
                function: f
                    .get(i)
                    .cloned()
                    .or_else(|| m.get(i).map(|_| "request".to_owned())),
                soap_operation: s.get(i).cloned(),
            })
            .collect();
        ActionView {
            id: self.id.clone().unwrap_or_default(),
            label: self.label.clone(),
            description: self.description.clone(),
            action_type: self.action_type.clone(),
            steps,
            inputs: self
                .inputs
                .iter()
                .enumerate()
                .map(|(i, n)| Input {
                    name: n.clone(),
                    description: self.input_descriptions.get(i).cloned(),
                    ..Input::default()
                })
                .collect(),
            scopes: (!self.scopes.is_empty())
                .then(|| self.scopes.clone())
                .into_iter()
                .collect(),
            ..ActionView::default()
        }
    }
}

/// The examples of an entry, in the form every heuristics file uses (`lint.yaml`'s too, of
/// its own kind of example): each `match` example must do what the entry says, each
/// `no_match` example must not. A list left out is empty, which each file's loader refuses
/// with the same message.
#[derive(Debug, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "examples (a mapping with `match` and `no_match`)",
    bound(deserialize = "T: Deserialize<'de>")
)]
pub struct Examples<T = Example> {
    #[serde(rename = "match", default = "Vec::new")]
    pub matches: Vec<T>,
    #[serde(default = "Vec::new")]
    pub no_match: Vec<T>,
}

impl<T> Default for Examples<T> {
    fn default() -> Self {
        Examples {
            matches: Vec::new(),
            no_match: Vec::new(),
        }
    }
}

impl<T> Examples<T> {
    /// The one runner of every heuristics file's examples: those that do not behave.
    /// `behaves(want, example)` is asked of each, `want` true for a `match` example and
    /// false for a `no_match` one; each that fails comes back with `want` and its place in
    /// its list (from 0), `match` examples first.
    pub fn misbehaving(&self, mut behaves: impl FnMut(bool, &T) -> bool) -> Vec<(bool, usize, &T)> {
        let mut out = Vec::new();
        for (want, list) in [(true, &self.matches), (false, &self.no_match)] {
            for (i, e) in list.iter().enumerate() {
                if !behaves(want, e) {
                    out.push((want, i, e));
                }
            }
        }
        out
    }
}

/// Adds `entry` to `list`, in place of the one that has its id: a later heuristics file's
/// rule, sense or object replaces the built-in one it names.
pub(crate) fn replace_by_id<T>(list: &mut Vec<T>, entry: T, id: impl Fn(&T) -> &str) {
    match list.iter_mut().find(|e| id(e) == id(&entry)) {
        Some(slot) => *slot = entry,
        None => list.push(entry),
    }
}

/// An id as every heuristics file writes it: `lower-kebab-case`.
pub(crate) fn is_kebab(id: &str) -> bool {
    !id.is_empty()
        && id.starts_with(|c: char| c.is_ascii_lowercase())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !id.ends_with('-')
        && !id.contains("--")
}
