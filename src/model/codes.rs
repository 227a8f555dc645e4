//! The one registry of finding codes: `check`'s, with their level and explanation, and
//! `lint`'s (explained by its rules file), so a silence or a `--select` is judged against
//! every command's codes from one place.

use super::finding::Level;

/// The codes `check` reports, with the one-paragraph explanation `explain-code` prints.
pub const CHECK_CODES: &[(&str, Level, &str, &str)] = &[
    (
        "missing-effects",
        Level::Warning,
        "An action declares no `effects`.",
        "The action declares no `effects`, so an MCP server built from the catalog cannot derive readOnlyHint or destructiveHint for it, and clients fall back to the specification's defaults: not read-only and destructive, which means a human approves every call. Run `catalog-effects backfill` to propose effects (the patch shows each one; `explain` says why), or add an `effects:` list by hand. For a tool in an MCP server's source the same holds of its hints: it lacks `readOnlyHint` or `destructiveHint`, and `backfill` proposes both in the file's own syntax.",
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
        Level::Warning,
        "The `effects` value is not a list of known effects.",
        "The `effects` key must be a non-empty list drawn from read, search, write, delete and execute. A string, a number, a mapping, an empty list or an unknown value (a typo such as `reed`) cannot be used to derive hints, and the tool never fixes it silently. Correct the value by hand.",
    ),
    (
        "duplicate-action-id",
        Level::Warning,
        "Two actions of one connector share an `actionId`.",
        "Two actions of the same connector have the same `actionId`, so they would become MCP tools with the same name (`<connector>_<actionId>`) and one would shadow the other. Rename one of them.",
    ),
    (
        "parse-error",
        Level::Error,
        "A connector file or one of its items could not be read.",
        "The file is not valid YAML, not UTF-8 text, cannot be read, or holds an item the tool cannot use (an `actionId` that is not a string, a bad `annotations:` mapping, a partial without its main file). A connector file (found by its name) with no readable action list is one too: a misspelled `actions:`, an `actions:` that is a number, a string or null, a list with no item that is a mapping with an `actionId`, a Git LFS pointer instead of the file; so is a `$ref:` that names no file, and a partial beside two main files (which connector it belongs to is a guess). Passed over, such a connector would leave the counts while the check passed. The message names the file, line and column. The rest of the catalog is still processed, and the run exits with code 2.",
    ),
    (
        "redundant-hint",
        Level::Note,
        "A hint in `annotations:` restates what the action's effects derive.",
        "A key of the action's `annotations:` (readOnlyHint, destructiveHint, openWorldHint, or a title equal to the label) holds the value its effects (declared, or proposed in the patch) derive anyway. It changes nothing today and goes stale the day the effects change. `catalog-effects backfill --migrate-hints` removes it in the reviewable patch (and an `annotations:` left empty); a key that differs is an override and is kept, and so is idempotentHint, which effects never derive.",
    ),
    (
        "read-only-override",
        Level::Error,
        "`readOnlyHint: true` on an action whose effects change something.",
        "The action's `annotations:` says readOnlyHint: true, but its effects (declared, or proposed in the patch) hold write, delete or execute. The override wins, so clients run a change unattended. It is usually stale: written before the effects, or copied from a read. Remove the key (the effects then derive the hint), or correct the effects if the action really changes nothing. To keep it on purpose, add `# catalog-effects: ignore[read-only-override]` to the `actionId` line, where reviewers see it.",
    ),
    (
        "unused-silence",
        Level::Warning,
        "A `# catalog-effects: ignore[code]` comment silences nothing.",
        "A silence on an `actionId` line (that action) or in a file's leading comment lines (every action of the file) names a code that reports nothing there, or a code no command knows, or is not written `ignore[code, ...]` (an `ignore[` with no `]`, an `ignore[]` that names no code: read as no silence at all). It hides nothing today and would hide the next finding of that code unseen. Remove the code from the comment, fix its spelling, or close its brackets. `check` reports its own codes and unknown ones; `lint` reports its own.",
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
    CHECK_CODES
        .iter()
        .find(|c| c.0 == code)
        .map_or(Level::Warning, |c| c.1)
}

/// `lint`'s built-in codes, in the order its rules file documents them (`lint` maps each to
/// its check; a test there keeps the two lists equal).
pub const LINT_CODES: &[&str] = &[
    "vague-verb",
    "euphemism",
    "destructive-without-permanence",
    "destructive-without-confirmation",
    "read-only-claim-contradicted",
    "mutating-verb-on-read",
    "broad-operation-input",
    "dry-run-flag",
    "freeform-environment",
    "hidden-batch-scope",
    "empty-description",
    "description-repeats-name",
    "missing-target",
    "unused-silence",
];

/// Whether `code` is one of `lint`'s built-in codes (`check` leaves their silences to it).
pub fn is_lint_code(code: &str) -> bool {
    LINT_CODES.contains(&code)
}
