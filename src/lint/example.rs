//! The examples of a lint code: small actions written inline in the rules file, in the
//! `match` / `no_match` form every heuristics file uses. A `match` example must yield
//! exactly one finding of its code, a `no_match` example none.

use serde::Deserialize;

use crate::classify::Examples;

use crate::effects::{Effect, Effects, Hints};
use crate::view::{ActionView, Input, Step};

/// A lint code's examples, in the form and with the runner every heuristics file uses.
pub type LintExamples = Examples<LintExample>;

/// A small action written inline in the rules file. Beside what the effect rules'
/// examples say of an action, a lint example says what lint reads: its effects, details,
/// typed inputs, provider, `actionId` line comment and read-only hint.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an example (a mapping with `id`, `description`, ...)"
)]
pub struct LintExample {
    pub id: String,
    label: Option<String>,
    description: Option<String>,
    details: Option<String>,
    #[serde(default)]
    pub effects: Vec<String>,
    #[serde(default)]
    inputs: Vec<ExampleInput>,
    path: Option<String>,
    method: Option<String>,
    connector_title: Option<String>,
    /// The `actionId` line comment (for silences).
    comment: Option<String>,
    read_only_hint: Option<bool>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an input (a mapping with `name`, `type`, ...)"
)]
struct ExampleInput {
    name: String,
    #[serde(rename = "type")]
    ty: Option<String>,
    #[serde(rename = "enum", default)]
    enum_values: Vec<String>,
    description: Option<String>,
}

impl LintExample {
    /// The effects written, `None` when one is not an effect.
    pub fn effects(&self) -> Option<Effects> {
        self.effects.iter().map(|e| Effect::parse(e)).collect()
    }

    pub fn view(&self) -> ActionView {
        let steps = if self.path.is_some() || self.method.is_some() {
            vec![Step {
                function: Some("request".into()),
                method: self.method.as_ref().map(|m| m.to_lowercase()),
                url: self.path.clone(),
                soap_operation: None,
            }]
        } else {
            Vec::new()
        };
        ActionView {
            id: self.id.clone(),
            label: self.label.clone(),
            description: self.description.clone(),
            details: self.details.clone(),
            steps,
            inputs: self
                .inputs
                .iter()
                .map(|i| Input {
                    name: i.name.clone(),
                    ty: i.ty.clone(),
                    enum_values: i.enum_values.clone(),
                    description: i.description.clone(),
                })
                .collect(),
            annotations: self.read_only_hint.map(|r| Hints {
                read_only: Some(r),
                ..Hints::default()
            }),
            line: 1,
            id_comment: self.comment.clone(),
            connector_title: self.connector_title.clone(),
            ..ActionView::default()
        }
    }
}
