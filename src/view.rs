//! The normalized view of an action: the only thing rules and lints ever see.
//!
//! Catalog YAML and MCP `tools/list` JSON are both mapped into this one shape, so the same
//! heuristics serve `backfill`, `check`, `audit` and `lint`.

use crate::effects::{Effect, Effects, Hints};

/// One step of an action, reduced to what says something about its effect.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Step {
    /// `stepFunction.functionName` (`request`, `soap_request`, `download_file`, ...).
    pub function: Option<String>,
    /// Lower-case HTTP method (`get`, `post`, ...), when the step makes a call.
    pub method: Option<String>,
    /// The URL or path as written (templated, relative).
    pub url: Option<String>,
    /// `parameters.soapOperation` (`Get_Workers_Request`).
    pub soap_operation: Option<String>,
}

/// An input (catalog `inputs:` item or an MCP `inputSchema` property).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Input {
    pub name: String,
    /// `string`, `boolean`, `number`, `object`, `array`, ... as written.
    pub ty: Option<String>,
    /// Allowed values when the input is an enum.
    pub enum_values: Vec<String>,
    pub description: Option<String>,
}

/// What the action declares under `effects:`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Declared {
    /// No `effects` key.
    #[default]
    None,
    /// A list whose every value is in the vocabulary.
    Valid(Effects),
    /// Present but not a list of known effects; the text says what is wrong.
    Invalid(String),
}

impl Declared {
    pub fn valid(&self) -> Option<Effects> {
        match self {
            Declared::Valid(e) => Some(*e),
            _ => None,
        }
    }
}

/// The kind of source the view was read from, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SourceKind {
    #[default]
    Catalog,
    McpTool,
    /// An operation of an OpenAPI document.
    OpenApi,
    /// A tool registered in an MCP server's source.
    Server,
}

/// One action, normalized.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ActionView {
    /// `actionId`, or the MCP tool name.
    pub id: String,
    /// `label`, or the MCP `title`.
    pub label: Option<String>,
    pub description: Option<String>,
    pub details: Option<String>,
    /// `actionType` as written (`custom`, `get`, `list`, ...).
    pub action_type: Option<String>,
    pub steps: Vec<Step>,
    pub inputs: Vec<Input>,
    /// The names of the inputs the action says it requires (a connector input's
    /// `required: true`; an OpenAPI parameter's `required`, a body schema's `required`
    /// list), in the order read. Only the `annotations` export reads it (its `inputSchema`), so
    /// it sits beside `inputs` rather than in every [`Input`] the rules read.
    pub required: Vec<String>,
    /// The OAuth scopes the action can be called with, as written: each entry one way to
    /// call it, whose scopes are needed together (an OpenAPI `security` requirement; a
    /// connector's `requiredScopes` is one). A way that needs no scope (an API key) is left
    /// out.
    pub scopes: Vec<Vec<String>>,
    pub declared: Declared,
    /// The `annotations:` override (catalog) or the declared annotations (MCP).
    pub annotations: Option<Hints>,
    /// 1-based line of the `actionId` key (0 for MCP tools).
    pub line: usize,
    /// The trailing comment on the `actionId` line, without `#` (catalog only). Carries
    /// `catalog-effects: ignore[code, ...]` silences for `lint`.
    pub id_comment: Option<String>,
    /// The connector's `info.title` (catalog) when known: a description naming it names the target.
    pub connector_title: Option<String>,
    pub source: SourceKind,
    /// Where an OpenAPI operation is written when it is not `paths`, its path, its method (a
    /// path item named by a `$ref`: `components`, `pathItems`, `Pet`, `get`): the keys
    /// from the root, by which a reviewer finds it. Boxed and rare.
    pub written_at: Option<Box<[String]>>,
}

impl ActionView {
    /// Distinct lower-case methods in step order.
    pub fn methods(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for m in self.steps.iter().filter_map(|s| s.method.as_deref()) {
            if !out.contains(&m) {
                out.push(m);
            }
        }
        out
    }

    /// Step URLs in order.
    pub fn urls(&self) -> impl Iterator<Item = &str> {
        self.steps.iter().filter_map(|s| s.url.as_deref())
    }

    pub fn declared_effect(&self, e: Effect) -> bool {
        self.declared.valid().is_some_and(|d| d.contains(e))
    }
}
