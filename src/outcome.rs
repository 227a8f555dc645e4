//! The outcome: each file's and each action's results, built from the file's plan in one
//! place ([`FileResult::take_plan`]), and the run's; what every output reads.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::classify::{Group, Inference, Vote};
use crate::effects::{Effects, Hints, derive_hints};
use crate::error::Error;
use crate::fix::apply::unapplied;
use crate::fix::options::Options;
use crate::fix::plan::{Plan, Planned};
use crate::git::Repo;
use crate::model::edit::{Edit, EffectsFrom, Status, effects_after};
use crate::model::hints::HintReview;
use crate::model::openapi::{Inserted, NewValue, json_pointer};
use crate::model::site::Shape;
use crate::view::{ActionView, Declared};

/// One action's outcome.
#[derive(Debug, Clone)]
pub struct ActionResult {
    pub id: String,
    pub label: Option<String>,
    pub line: usize,
    pub column: usize,
    pub nested: bool,
    /// Distinct upper-case methods in step order, and the step URLs.
    pub methods: Vec<String>,
    pub paths: Vec<String>,
    pub declared: Declared,
    pub annotations: Option<Hints>,
    pub inference: Inference,
    /// What the catalog's declarations said of the action and did to its inference.
    pub vote: Option<Box<Vote>>,
    pub status: Status,
    /// What the action declares once the patch is applied: declared when valid (or the
    /// proposal for a fixed conflict), else a confident proposal, else nothing.
    pub effects: Effects,
    /// Whether `effects` came from the declaration.
    pub declared_source: bool,
    pub hints: Hints,
    /// `info.key` of the file, else of the main file in its folder (read before the run),
    /// else the folder name.
    pub connector: String,
    /// A tool of an MCP server's source: the server lists it under its own name, not
    /// `<connector>_<id>`.
    pub server_tool: bool,
    /// Boxed: most runs keep no view, and an empty one inline made every result 280 bytes
    /// larger.
    pub view: Option<Box<ActionView>>,
    /// The edit planned for this action's `effects`, if any.
    pub edit: Option<Edit>,
    /// Its `annotations:` judged against its effects, and the removals planned; boxed,
    /// since most actions have none.
    pub hint_review: Option<Box<HintReview>>,
    /// The comment on its `actionId` line, when it holds `catalog-effects:` (a silence).
    pub comment: Option<Box<str>>,
    /// Edits besides `edit` that add keys (an OpenAPI operation's hints merged into a
    /// generator's existing map); kept or dropped with the action's others.
    pub more: Vec<Edit>,
    /// An OpenAPI operation written elsewhere than under `paths` (see
    /// [`ActionView::written_at`]).
    pub written_at: Option<Box<[String]>>,
}

impl FileResult {
    /// Where SARIF and GitHub annotations point: relative to the repository root, as those
    /// consumers resolve paths, or to the current directory outside git.
    pub fn ci_path(&self) -> &str {
        if self.in_repo {
            &self.patch_path
        } else {
            &self.shown
        }
    }
}

impl ActionResult {
    /// Every edit planned for the action: its `effects`, then its hint removals.
    pub fn edits(&self) -> impl Iterator<Item = &Edit> {
        self.edit
            .iter()
            .chain(&self.more)
            .chain(self.hint_review.iter().flat_map(|h| &h.edits))
    }

    pub fn tool_name(&self) -> String {
        if self.server_tool {
            return self.id.clone();
        }
        format!("{}_{}", self.connector, self.id)
    }

    /// The declared effects, `|`-free and comma-joined, or nothing.
    pub fn effects_declared(&self) -> String {
        self.declared
            .valid()
            .map(|e| e.joined(", "))
            .unwrap_or_default()
    }
}

/// One file's outcome.
#[derive(Debug, Clone, Default)]
pub struct FileResult {
    /// Index of the catalog in the run.
    pub catalog: usize,
    pub rel: String,
    pub folder: String,
    /// The path used in patches: relative to the git work tree when there is one.
    pub patch_path: String,
    /// The path as printed: relative to the current directory (as the catalog was given,
    /// when it is not below it).
    pub shown: String,
    /// Whether the file is in a git work tree (`patch_path` is then relative to its root).
    pub in_repo: bool,
    pub abs: PathBuf,
    pub shape: Option<Shape>,
    pub info_key: Option<String>,
    /// Whether `info_key` is written in the file: false for an OpenAPI document without
    /// `info.x-effects-key`, whose key is made from its title.
    pub key_written: bool,
    pub info_title: Option<String>,
    pub actions: Vec<ActionResult>,
    /// Problems with single items; the file's other actions are still reported.
    pub problems: Vec<Error>,
    /// Reported but not errors: items left alone on purpose (a merge-only action).
    pub notes: Vec<Error>,
    /// The whole file could not be read or parsed.
    pub error: Option<Error>,
    /// The unified diff section for this file (empty when nothing changes).
    pub patch: String,
    /// This file's rows of the CSV report, rendered by the worker with `render_csv`.
    pub csv: String,
    /// What the file's action names say about where their verbs are.
    pub group: Group,
    /// The edited text, with `keep_texts`, when there are edits.
    pub new_text: Option<String>,
    /// Actions listed again through an alias item: id, line, column.
    pub repeats: Vec<(String, usize, usize)>,
    /// `# catalog-effects: ignore[...]` in the file's leading comment lines: (line, code).
    pub silences: Vec<(usize, String)>,
    /// What an OpenAPI document's edits insert where (for `--overlay`).
    pub inserted: Vec<Inserted>,
}

impl FileResult {
    /// A copy of the results without the texts (the edited text, the patch, the report
    /// rows), for an output that holds every file until the end.
    pub fn without_texts(&self) -> FileResult {
        FileResult {
            catalog: self.catalog,
            rel: self.rel.clone(),
            folder: self.folder.clone(),
            patch_path: self.patch_path.clone(),
            shown: self.shown.clone(),
            in_repo: self.in_repo,
            abs: self.abs.clone(),
            shape: self.shape,
            info_key: self.info_key.clone(),
            key_written: self.key_written,
            info_title: self.info_title.clone(),
            actions: self.actions.clone(),
            problems: self.problems.clone(),
            notes: self.notes.clone(),
            error: self.error.clone(),
            patch: String::new(),
            csv: String::new(),
            group: self.group.clone(),
            new_text: None,
            repeats: self.repeats.clone(),
            silences: self.silences.clone(),
            inserted: self.inserted.clone(),
        }
    }

    /// Whether two of its actions share a line (every operation of a minified document is
    /// on line 1): the patch then repeats that line whole for each change there, and a line
    /// number names no action.
    pub fn shares_lines(&self) -> bool {
        let mut lines: Vec<usize> = self.actions.iter().map(|a| a.line).collect();
        lines.sort_unstable();
        lines.windows(2).any(|w| w[0] == w[1])
    }

    /// The text the edits were planned on, had back from the edited one: it is not kept
    /// beside it, so one large file is not held twice.
    pub fn old_text(&self) -> Option<String> {
        Some(self.old_pieces()?.concat())
    }

    /// [`FileResult::old_text`] as pieces of the edited text and of the rewritten lists,
    /// for comparing without building it.
    pub fn old_pieces(&self) -> Option<Vec<&str>> {
        let new = self.new_text.as_deref()?;
        let mut edits: Vec<&Edit> = self.actions.iter().flat_map(|a| a.edits()).collect();
        edits.sort_by_key(|e| e.order());
        Some(unapplied(new, edits))
    }
}

/// A catalog directory as the run saw it.
#[derive(Debug)]
pub struct Catalog {
    pub root: PathBuf,
    pub repo: Option<Repo>,
    pub skipped_links: Vec<String>,
    /// Server source left out (generated, or a test's), relative to the catalog, and why.
    pub left_out: Vec<(String, &'static str)>,
}

#[derive(Debug, Default)]
pub struct Run {
    pub catalogs: Vec<Catalog>,
    /// Sorted by catalog, then file.
    pub files: Vec<FileResult>,
    /// Catalogs or directories that could not be read.
    pub errors: Vec<Error>,
    /// Rule ids that matched at least one action.
    pub rules_used: Vec<bool>,
}

impl Run {
    pub fn actions(&self) -> impl Iterator<Item = (&FileResult, &ActionResult)> {
        self.files
            .iter()
            .flat_map(|f| f.actions.iter().map(move |a| (f, a)))
    }

    /// Every error of the run: catalogs, unreadable or unparsable files, bad items.
    pub fn all_errors(&self) -> Vec<&Error> {
        self.errors
            .iter()
            .chain(
                self.files
                    .iter()
                    .flat_map(|f| f.error.iter().chain(f.problems.iter())),
            )
            .collect()
    }
}

/// What a streaming run knows besides the files it handed over.
#[derive(Debug, Default)]
pub struct RunMeta {
    pub catalogs: Vec<Catalog>,
    /// Catalogs or directories that could not be read.
    pub errors: Vec<Error>,
    /// Rule ids that matched at least one action.
    pub rules_used: Vec<bool>,
    /// Files processed.
    pub files: usize,
    /// Connector files the walk found, processed or not (`only` restricts the run).
    pub walked: usize,
}

impl RunMeta {
    /// A [`Run`] holding the files a streaming caller chose to keep.
    pub fn with_files(self, files: Vec<FileResult>) -> Run {
        Run {
            catalogs: self.catalogs,
            files,
            errors: self.errors,
            rules_used: self.rules_used,
        }
    }
}

impl ActionResult {
    /// An action's result, from its plan: what it declares once the patch is applied, the
    /// hints that derives, and the view's fields moved, not copied, unless the caller keeps
    /// the view too.
    fn from_planned(p: Planned, opts: &Options) -> ActionResult {
        let (mut site, inference, vote, status, edit, hint_review, more) = (
            p.site,
            p.inference,
            p.vote,
            p.status,
            p.edit,
            p.hints,
            p.more,
        );
        let (effects, declared_source) =
            match effects_after(&site.view.declared, status, edit.as_ref()) {
                Some((e, from)) => (e, from == EffectsFrom::Declared),
                None => (Effects::EMPTY, false),
            };
        let comment = site
            .view
            .id_comment
            .as_deref()
            .filter(|c| c.contains("catalog-effects:"))
            .map(Box::from);
        if !opts.keep_views {
            site.view.id_comment = None;
        }
        let hints = derive_hints(
            effects,
            site.view.label.as_deref(),
            site.view.annotations.as_ref(),
            opts.policy,
            inference.overwrites,
        );
        let view_line = site.view.line;
        let view = site.view;
        let methods = view
            .methods()
            .iter()
            .map(|m| m.to_ascii_uppercase())
            .collect();
        let paths = view.urls().map(str::to_owned).collect();
        let written_at = view.written_at.clone();
        // The view's fields are moved, not copied, unless the caller keeps the view too.
        let server_tool = view.source == crate::view::SourceKind::Server;
        let (id, label, declared, annotations, view) = if opts.keep_views {
            (
                view.id.clone(),
                view.label.clone(),
                view.declared.clone(),
                view.annotations.clone(),
                Some(Box::new(view)),
            )
        } else {
            (view.id, view.label, view.declared, view.annotations, None)
        };
        ActionResult {
            id,
            label,
            line: view_line,
            column: site.column,
            nested: site.nested,
            methods,
            paths,
            declared,
            annotations,
            inference,
            vote,
            status,
            effects,
            declared_source,
            hints,
            connector: String::new(),
            server_tool,
            edit,
            hint_review,
            comment,
            view,
            more,
            written_at,
        }
    }
}

impl FileResult {
    /// The result of a file about to be read: where it is, nothing found yet.
    pub fn at(catalog: usize, rel: &str, folder: &str, abs: &Path) -> FileResult {
        FileResult {
            catalog,
            rel: rel.to_owned(),
            folder: folder.to_owned(),
            patch_path: String::new(),
            shown: String::new(),
            in_repo: false,
            abs: abs.to_owned(),
            shape: None,
            info_key: None,
            key_written: false,
            info_title: None,
            actions: Vec::new(),
            problems: Vec::new(),
            notes: Vec::new(),
            error: None,
            patch: String::new(),
            csv: String::new(),
            group: Group::single(),
            new_text: None,
            repeats: Vec::new(),
            silences: Vec::new(),
            inserted: Vec::new(),
        }
    }

    /// The file's results, from its plan: the one place an action's outcome is built.
    /// `problems` are the run's own about the file (a `$ref:` that names no file).
    pub fn take_plan(&mut self, plan: Plan, problems: Vec<Error>, opts: &Options) {
        let out = self;
        out.shape = Some(plan.shape);
        out.group = plan.group;
        out.repeats = plan.repeats;
        out.info_key = plan.info_key;
        out.key_written = plan.key_written;
        out.info_title = plan.info_title;
        out.silences = plan.silences;
        out.inserted = plan.inserted;
        out.problems = plan
            .problems
            .into_iter()
            .chain(problems)
            .map(|e| e.in_file(&out.shown))
            .collect();
        out.notes = plan
            .notes
            .into_iter()
            .map(|e| e.in_file(&out.shown))
            .collect();
        let new_text = plan.new_text;
        // Mapped in place: the results take the plan's buffer (shrunk where it lies), which on
        // one large file is the biggest allocation after the text and the tree.
        out.actions = plan
            .actions
            .into_iter()
            .map(|p| ActionResult::from_planned(p, opts))
            .collect();
        // (line, column) tells actions apart; two results share it only when an alias reads
        // one nested action twice, and then they are the same. So the unstable sort gives the
        // stable order, without the stable sort's scratch buffer.
        out.actions.sort_unstable_by_key(|a| (a.line, a.column));
        out.new_text = new_text;
    }
}

/// An operation of a document, named as a reviewer looks it up where line numbers say
/// nothing (every operation of a minified document is on line 1), and what it gains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// `GET /pets/{petId}`.
    pub operation: String,
    /// `/paths/~1pets~1{petId}/get`.
    pub pointer: String,
    /// Each key it gains, by its path below the operation, with its value
    /// (`x-effects: [read]`; a rewritten one `x-effects: [read] (was [write])`).
    pub change: Vec<String>,
}

impl Place {
    /// The place of an OpenAPI operation's result, with the change `inserted` holds for it
    /// (see [`by_operation`]); none for an action of a connector file.
    pub fn locate(f: &FileResult, a: &ActionResult, inserted: &[&Inserted]) -> Option<Place> {
        if f.shape != Some(Shape::OpenApi) {
            return None;
        }
        let method = a.methods.first()?;
        let path = a.paths.first()?;
        let lower = method.to_ascii_lowercase();
        // Under `paths`, or where a path item named by a `$ref` is written
        // (`components/pathItems/Pet/get`).
        let keys: Vec<&str> = match &a.written_at {
            Some(at) => at.iter().map(String::as_str).collect(),
            None => vec!["paths", path.as_str(), &lower],
        };
        let mut change = Vec::new();
        for i in inserted {
            // A generator map that exists gains its hints beside the keys it has (`…`).
            let below: Vec<&str> = i
                .target
                .iter()
                .skip(keys.len())
                .map(String::as_str)
                .collect();
            if !below.is_empty() {
                let value = NewValue::Map(i.entries.clone()).flow();
                change.push(format!("{}: {{…, {}", below.join("."), &value[1..]));
                continue;
            }
            for (k, v) in &i.entries {
                let mut line = format!("{k}: {}", v.flow());
                let old = a
                    .edit
                    .as_ref()
                    .map(|e| e.old.trim())
                    .filter(|o| !o.is_empty());
                if let (true, Some(old)) = (i.replaces, old) {
                    line.push_str(&format!(" (was {old})"));
                }
                change.push(line);
            }
        }
        Some(Place {
            operation: format!("{} {path}", method.to_ascii_uppercase()),
            pointer: json_pointer(&keys),
            change,
        })
    }
}

/// A file's insertions by the operation they belong to (the start of its mapping, the `map`
/// of its edits), so that each action finds its own without a search through all of them.
pub fn by_operation(f: &FileResult) -> HashMap<usize, Vec<&Inserted>> {
    let mut out: HashMap<usize, Vec<&Inserted>> = Default::default();
    for i in &f.inserted {
        out.entry(i.map).or_default().push(i);
    }
    out
}

/// The insertions of one action, from [`by_operation`].
pub fn inserted_of<'a>(
    by: &'a HashMap<usize, Vec<&'a Inserted>>,
    a: &ActionResult,
) -> &'a [&'a Inserted] {
    a.edits()
        .next()
        .and_then(|e| by.get(&e.map))
        .map_or(&[], Vec::as_slice)
}
