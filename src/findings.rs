//! Findings: what `check` and `lint` report, with stable kebab-case codes, and the
//! explanation of each `check` code.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Note,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }
}

/// One problem found, located by file and line (catalogs) or by tool name (tool lists).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Finding {
    /// Path as written in patches (relative to the git work tree or the catalog).
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub code: String,
    pub level: Level,
    pub message: String,
    /// The tool (`<connector>_<actionId>` or MCP tool name) the finding is about.
    pub tool: Option<String>,
}

/// The codes `check` reports, with the one-paragraph explanation `explain-code` prints.
pub const CHECK_CODES: &[(&str, Level, &str, &str)] = &[
    (
        "missing-effects",
        Level::Warning,
        "An action declares no `effects`.",
        "The action declares no `effects`, so an MCP server built from the catalog cannot derive readOnlyHint or destructiveHint for it, and clients fall back to the specification's defaults: not read-only and destructive, which means a human approves every call. Run `catalog-effects backfill` to propose effects (the patch shows each one; `explain` says why), or add an `effects:` list by hand.",
    ),
    (
        "unclassified-action",
        Level::Warning,
        "No heuristic could classify an action with confidence.",
        "No rule matched the action with enough confidence (see `--min-confidence`), so no effects were proposed. The tool never guesses a read: declare the effects by hand, or add a rule under your `--heuristics` directory if the action follows a pattern the built-in rules miss. `catalog-effects explain CATALOG ACTION` lists the signals that were found.",
    ),
    (
        "conflicting-effects",
        Level::Warning,
        "Declared effects differ from a confident inference.",
        "The action declares effects that differ from what the heuristics infer with at least the minimum confidence. Either the declaration is wrong (a write declared as a read runs unattended) or the heuristics are; `catalog-effects explain CATALOG ACTION` shows the evidence. Fix the declaration, or rerun `backfill --fix-conflicts` to rewrite it with the proposal.",
    ),
    (
        "invalid-effects",
        Level::Error,
        "The `effects` value is not a list of known effects.",
        "The `effects` key must be a non-empty list drawn from read, search, write, delete and execute. A string, a number, a mapping, an empty list or an unknown value (a typo such as `reed`) cannot be used to derive hints, and the tool never fixes it silently. Correct the value by hand.",
    ),
    (
        "duplicate-action-id",
        Level::Error,
        "Two actions of one connector share an `actionId`.",
        "Two actions of the same connector have the same `actionId`, so they would become MCP tools with the same name (`<connector>_<actionId>`) and one would shadow the other. Rename one of them.",
    ),
    (
        "parse-error",
        Level::Error,
        "A connector file or one of its items could not be read.",
        "The file is not valid YAML, not UTF-8 text, cannot be read, or holds an item the tool cannot use (an `actionId` that is not a string, a bad `annotations:` mapping, a partial without its main file). The message names the file, line and column. The rest of the catalog is still processed, and the run exits with code 2.",
    ),
    (
        "unused-heuristic",
        Level::Note,
        "A heuristic rule matched no action in the catalog.",
        "A rule (built in or from `--heuristics`) matched no action in this run. For a user rule this usually means a typo in its conditions or a pattern the catalog no longer uses; for a built-in rule it only says the catalog has no action of that kind. Reported as a note, never as a failure.",
    ),
];

/// The explanation of a `check` code.
pub fn explain_check_code(code: &str) -> Option<&'static str> {
    CHECK_CODES.iter().find(|c| c.0 == code).map(|c| c.3)
}

pub fn check_code_level(code: &str) -> Level {
    CHECK_CODES.iter().find(|c| c.0 == code).map_or(Level::Warning, |c| c.1)
}
