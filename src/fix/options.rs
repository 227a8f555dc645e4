//! What a run should do: the options the CLI builds once, then every worker reads (they
//! are never changed while files are planned).

use crate::classify::{Confidence, RuleSet, catalog};
use crate::effects::DestructivePolicy;
use crate::model::openapi::HintFormat;

/// Called with the number of files once the walk is done, then once per file processed.
/// The library never draws anything; the binary turns this into a progress bar.
#[derive(Clone)]
pub struct Progress {
    pub start: std::sync::Arc<dyn Fn(usize) + Send + Sync>,
    pub tick: std::sync::Arc<dyn Fn() + Send + Sync>,
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

/// What a run should do.
#[derive(Debug, Clone)]
pub struct Options {
    pub rules: RuleSet,
    pub min_confidence: Confidence,
    pub policy: DestructivePolicy,
    /// Rewrite conflicting declarations with the proposal.
    pub fix_conflicts: bool,
    /// Keep each action's normalized view (for `explain`, `lint`, `annotations`).
    pub keep_views: bool,
    /// Keep the edited text of changed files (for `--write` and `--branch`).
    pub keep_texts: bool,
    /// Check every edited text before it is used (on unless no edit leaves the run:
    /// `check`, `lint` and `annotations` only count and read the actions).
    pub check_edits: bool,
    /// Only these files, as (catalog index, path relative to that catalog), and the main
    /// file of each of their partials' folders (found by content, as a full run finds it),
    /// so a partial's connector is known.
    pub only: Option<std::collections::BTreeSet<(usize, String)>>,
    pub progress: Option<Progress>,
    /// Render each file's CSV rows in the workers (for streaming writers).
    pub render_csv: bool,
    /// Render each file's patch (off where no patch leaves the run: on a one-line file it
    /// holds the whole file twice).
    pub render_patch: bool,
    /// Per catalog: files no route may edit (by their path in the patch), and why
    /// ([`crate::git::Repo::untouchable`]). Their proposals are listed for a human instead.
    pub untouchable: Vec<std::collections::BTreeMap<String, &'static str>>,
    /// Remove the hints an action's effects derive to the same value (`--migrate-hints`).
    pub migrate_hints: bool,
    /// Where an OpenAPI operation's derived hints are also written (`--hints`).
    pub hint_formats: Vec<HintFormat>,
    /// Count the effects the catalog declares as evidence for the actions that declare none
    /// (on unless `--no-catalog-evidence`).
    pub catalog_evidence: bool,
    /// Those counts, once made (a run makes them from its first plan of every file it walked).
    pub votes: Option<std::sync::Arc<catalog::Votes>>,
    /// How many actions' results a run with the catalog's evidence holds while it counts
    /// ([`HELD_ACTIONS`]; the outputs do not depend on it, only the time and the memory).
    pub held_actions: usize,
}

impl Options {
    pub fn new(rules: RuleSet) -> Options {
        Options {
            rules,
            min_confidence: Confidence::Medium,
            policy: DestructivePolicy::Delete,
            fix_conflicts: false,
            keep_views: false,
            keep_texts: false,
            check_edits: true,
            only: None,
            progress: None,
            render_csv: false,
            render_patch: true,
            untouchable: Vec::new(),
            migrate_hints: false,
            hint_formats: Vec::new(),
            catalog_evidence: false,
            votes: None,
            held_actions: HELD_ACTIONS,
        }
    }
}

/// The actions whose results a run with the catalog's evidence holds until the votes are
/// counted, a chunk of files at a time: chunks are held until this many actions are. A
/// catalog of one chunk (up to 512 files) is held whole whatever the budget, and takes the
/// votes in place; past the budget a file's tree is spilled when it is counted and read
/// back when it is planned with the votes, which costs less than the 2.7 KB an action a
/// held result does (docs/performance.md, "Catalog evidence in bounded memory").
pub const HELD_ACTIONS: usize = 0;
