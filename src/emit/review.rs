//! `backfill --review FILE.md`: the page a reviewer reads beside the diff, ready to paste as
//! a pull-request description, and its short form for the `--branch` commit message.
//!
//! It is built from what the CSV report holds per action (status, proposal, confidence, the
//! rules that decided, methods, step URLs), ranked so that the proposals most likely to be
//! wrong, or costliest when wrong, come first. A backfill of a real catalog inserts thousands
//! of lines; the page stays within GitHub's comment size and points at the CSV for the rest.

use std::fmt::Write as _;

use crate::classify::plain::Agreement;
use crate::classify::reading::Basis;
use crate::classify::vote::Did;
use crate::classify::{Confidence, Ref, RuleSet, Weight};
use crate::effects::{Effect, Effects};
use crate::emit::Summary;
use crate::emit::sink::{End, Guide, Sink};
use crate::error::Error;
use crate::model::edit::Status;
use crate::outcome::{ActionResult, FileResult};
use crate::outcome::{Place, by_operation, inserted_of};
use crate::view::Declared;

/// GitHub refuses a pull-request description or comment longer than this many characters.
pub const GITHUB_LIMIT: usize = 65_536;

/// The page's length when a document's operations share a line (a minified document): the
/// Overlay is then what to review, every operation's change in it, and the page only
/// points into it, its lists ranked; well under 20 KB (a list item's arrow and ellipsis are
/// three bytes each).
pub const ONE_LINE_LIMIT: usize = 18_000;

/// Connectors the table shows at most.
const MAX_CONNECTORS: usize = 25;

/// Items kept per list. The page shows a few hundred at most, so the run keeps only the
/// best-ranked ones instead of one per action of the catalog.
const KEEP: usize = 1_000;

/// Why a patched proposal deserves a human look, in rank order: a read that is really a
/// write runs unattended, so doubts about reads weigh most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Flag {
    /// Something said read, and change evidence overruled it (a change verb where the name
    /// puts its verb, in the operation, path or label; an object; a POST beside a read too
    /// poor to stand): the contradiction is the reviewer's to settle.
    Contradicted,
    /// Proposed read-only, but a step calls a method that usually changes something.
    ReadOverPost,
    /// Rules pointed both ways (a read and a change); the stronger side won.
    ConflictingEvidence,
    /// Medium confidence, and no HTTP method that agrees (GET for a read, POST, PUT, PATCH or
    /// DELETE for a change) backs it: the proposal rests on words alone.
    MediumConfidence,
    /// Proposes delete: clients will ask before every call.
    Destructive,
    /// Several steps: one of them may do what the name does not say.
    MultiStep,
}

impl Flag {
    fn weight(self) -> u32 {
        match self {
            Flag::Contradicted => 10,
            Flag::ReadOverPost => 8,
            Flag::ConflictingEvidence => 6,
            Flag::MediumConfidence => 4,
            Flag::Destructive => 3,
            Flag::MultiStep => 2,
        }
    }
}

/// One action as the guide shows it.
#[derive(Debug, Clone)]
struct Item {
    score: u32,
    flags: Vec<Flag>,
    catalog: usize,
    file: String,
    line: usize,
    tool: String,
    status: Status,
    proposed: Effects,
    confidence: Option<Confidence>,
    /// What the catalog declares, as written in the report.
    declared: String,
    /// The deciding evidence in a phrase.
    evidence: String,
    /// The first step method that is not a read, for "read over POST".
    method: Option<String>,
    steps: usize,
    /// An OpenAPI operation: its method and path, JSON pointer and the keys it gains.
    place: Option<Box<Place>>,
    /// Its file's actions share lines: its line number names nothing.
    one_line: bool,
}

/// A list that keeps at most [`KEEP`] items and counts the rest.
#[derive(Debug, Default)]
struct Kept {
    items: Vec<Item>,
    total: usize,
    /// Keep the best-ranked rather than the first.
    ranked: bool,
}

impl Kept {
    fn ranked() -> Kept {
        Kept {
            ranked: true,
            ..Kept::default()
        }
    }

    fn push(&mut self, item: Item) {
        self.total += 1;
        if !self.ranked {
            if self.items.len() < KEEP {
                self.items.push(item);
            }
            return;
        }
        self.items.push(item);
        if self.items.len() >= 2 * KEEP {
            self.sort();
            self.items.truncate(KEEP);
        }
    }

    fn sort(&mut self) {
        self.items.sort_by(rank);
    }

    /// The items in rank order, without reordering a guide that two outputs read.
    fn in_order(&self) -> Vec<&Item> {
        let mut items: Vec<&Item> = self.items.iter().collect();
        if self.ranked {
            items.sort_by(|a, b| rank(a, b));
        }
        items
    }
}

/// Highest score first; ties in file order, so the page is the same on every run.
fn rank(a: &Item, b: &Item) -> std::cmp::Ordering {
    (b.score, &a.file, a.line, &a.tool).cmp(&(a.score, &b.file, b.line, &b.tool))
}

/// Where the run's inputs and outputs are, for the commands and pointers the page prints.
#[derive(Debug, Clone)]
pub struct Context {
    /// The catalog paths as printed: relative to the current directory when below it.
    pub catalogs: Vec<String>,
    pub patch: String,
    pub report: String,
    pub version: String,
    pub heuristics: String,
    pub min_confidence: Confidence,
    /// `--overlay`'s file, as printed.
    pub overlay: Option<String>,
}

/// `--review`: the guide, written once the run is done.
pub struct GuideFile(pub std::path::PathBuf);

impl Sink for GuideFile {
    fn finish(&mut self, end: &End) -> Result<(), Error> {
        match end.guide {
            Some(guide) => (end.write)(&self.0, &guide.markdown(end.summary)),
            None => Ok(()),
        }
    }
}

/// The guide and the paths it prints, as the outputs made from it read it.
impl Guide for (&Review, &Context) {
    fn markdown(&self, summary: &Summary) -> String {
        self.0.markdown(summary, self.1)
    }

    fn commit_message(&self, summary: &Summary) -> String {
        self.0.commit_message(summary, self.1)
    }
}

/// The guide, filled file by file as the run streams its results.
#[derive(Debug)]
pub struct Review {
    look: Kept,
    conflicts: Kept,
    /// Unclassified and invalid actions.
    not_patched: Kept,
    errors: Vec<String>,
    error_count: usize,
    /// Patched proposals per effect, in [`Effect::ALL`] order.
    per_effect: [usize; 5],
    /// Patched actions that rewrite a conflicting declaration (`--fix-conflicts`).
    rewritten: usize,
    /// `--migrate-hints`: one line per action whose hints were looked at (removed, kept,
    /// or left alone), the first [`KEEP`], and how many in all.
    hints: Vec<String>,
    hints_total: usize,
    hints_removed: usize,
    /// Files whose actions share lines: (file, actions, bytes of its patch section).
    one_line: Vec<(String, usize, usize)>,
    /// Files with actions that are MCP servers' source, and the others: a run of servers
    /// alone gives hints, not effects, and its guide says so.
    server_files: usize,
    other_files: usize,
}

impl Default for Review {
    fn default() -> Review {
        Review {
            look: Kept::ranked(),
            conflicts: Kept::default(),
            not_patched: Kept::default(),
            errors: Vec::new(),
            error_count: 0,
            per_effect: [0; 5],
            rewritten: 0,
            hints: Vec::new(),
            hints_total: 0,
            hints_removed: 0,
            one_line: Vec::new(),
            server_files: 0,
            other_files: 0,
        }
    }
}

impl Review {
    /// Takes one file's results.
    pub fn add_file(&mut self, f: &FileResult, rules: &RuleSet) {
        if !f.actions.is_empty() {
            if f.shape == Some(crate::model::site::Shape::Server) {
                self.server_files += 1;
            } else {
                self.other_files += 1;
            }
        }
        let one_line = f.shape == Some(crate::model::site::Shape::OpenApi) && f.shares_lines();
        if one_line && !f.patch.is_empty() {
            self.one_line
                .push((f.ci_path().to_owned(), f.actions.len(), f.patch.len()));
        }
        for e in f.error.iter().chain(&f.problems) {
            self.error_count += 1;
            if self.errors.len() < KEEP {
                self.errors.push(e.to_string());
            }
        }
        // Built once the first item needs it.
        let mut by = None;
        for a in &f.actions {
            if let Some(line) = hint_line(f, a) {
                self.hints_total += 1;
                if self.hints.len() < KEEP {
                    self.hints.push(line);
                }
            }
            self.hints_removed += a
                .hint_review
                .as_ref()
                .filter(|h| !h.edits.is_empty())
                .map_or(0, |h| h.redundant().count());
            let patched = a.edit.is_some();
            if patched {
                for (n, e) in self.per_effect.iter_mut().zip(Effect::ALL) {
                    *n += usize::from(a.inference.effects.contains(e));
                }
                self.rewritten += usize::from(a.status == Status::Conflict);
            }
            let list = match a.status {
                _ if patched => &mut self.look,
                Status::Conflict => &mut self.conflicts,
                Status::Unclassified | Status::Invalid => &mut self.not_patched,
                _ => continue,
            };
            let mut item = item(f, a, rules);
            if !patched || item.score > 0 {
                item.one_line = one_line;
                let by = by.get_or_insert_with(|| by_operation(f));
                item.place = Place::locate(f, a, inserted_of(by, a)).map(Box::new);
                list.push(item);
            }
        }
    }

    /// The Markdown page, at most [`GITHUB_LIMIT`] characters.
    pub fn markdown(&self, summary: &Summary, ctx: &Context) -> String {
        let t = &summary.total;
        let tools = t.actions - t.skipped;
        let mut head = String::new();
        // A run of servers' source alone: what the patch gives, and what coverage counts,
        // is the hints a tool declares.
        let servers = self.server_files > 0 && self.other_files == 0;
        let (given, declare) = if servers {
            (
                "Hints backfill: {} tools given hints",
                "declare readOnlyHint and destructiveHint",
            )
        } else {
            (
                "Effects backfill: {} actions given effects",
                "declare effects",
            )
        };
        let _ = writeln!(head, "## {}\n", given.replace("{}", &t.added.to_string()));
        match (current_coverage(summary), t.coverage()) {
            (Some(now), Some(after)) => {
                let _ = writeln!(
                    head,
                    "Read this beside the patch (`{}`). Coverage, the share of the {tools} tools that \
                     {declare}: **{now:.1}% now, {after:.1}% once the patch is applied**.\n",
                    ctx.patch,
                );
            }
            _ => {
                let _ = writeln!(
                    head,
                    "Read this beside the patch (`{}`). Coverage: **none to measure**, no tool \
                     could be read.\n",
                    ctx.patch,
                );
            }
        }
        if summary.hints_added > 0 {
            let _ = writeln!(
                head,
                "The patch also gives {} the hints an MCP generator reads (`--hints`).\n",
                crate::text::plural(summary.hints_added, "operation")
            );
        }
        connector_table(&mut head, summary);
        effect_line(&mut head, &self.per_effect);
        self.one_line_note(&mut head, ctx);
        let limit = if self.one_line.is_empty() {
            GITHUB_LIMIT
        } else {
            ONE_LINE_LIMIT
        };

        let mut tail = String::new();
        let _ = writeln!(
            tail,
            "\n---\nEvery action, one row each: `{}` (columns `status`, `confidence`, `rules`). \
             Produced by catalog-effects {} (heuristics {}, `--min-confidence {}`).",
            ctx.report, ctx.version, ctx.heuristics, ctx.min_confidence
        );

        // What is left is shared by the three lists; a list that needs less leaves the rest
        // to the next one.
        let reserve = 600;
        let mut budget = limit
            .saturating_sub(chars(&head) + chars(&tail) + reserve)
            .max(1_000);
        let mut body = String::new();
        let look = self.look_section(ctx, budget * 3 / 5);
        budget = budget.saturating_sub(chars(&look));
        body.push_str(&look);
        let conflicts = self.conflict_section(ctx, budget / 2);
        budget = budget.saturating_sub(chars(&conflicts));
        body.push_str(&conflicts);
        let not_patched = self.not_patched_section(summary, ctx, budget * 2 / 3);
        budget = budget.saturating_sub(chars(&not_patched));
        body.push_str(&not_patched);
        body.push_str(&self.hints_section(ctx, budget));
        let mut page = head + &body + &tail;
        if chars(&page) > limit {
            // Only the fixed parts can get here (a catalog with thousands of connectors).
            page = page.chars().take(limit - 80).collect();
            let what = if limit == GITHUB_LIMIT {
                "GitHub's size limit"
            } else {
                "the page's size limit"
            };
            let _ = write!(page, "\n\n(cut at {what}; see {})\n", self.rest(ctx));
        }
        page
    }

    /// Where the items a list leaves out are: the report, and for a document whose
    /// operations share a line the Overlay, which holds each one's change.
    fn rest(&self, ctx: &Context) -> String {
        match (&ctx.overlay, self.one_line.is_empty()) {
            (Some(o), false) => format!(
                "`{}` (each operation's change) and `{}`",
                code(o),
                ctx.report
            ),
            _ => format!("`{}`", ctx.report),
        }
    }

    /// For documents whose operations share a line (a minified document): the patch repeats
    /// that line whole, before and after, for every change, so the Overlay is what to read.
    fn one_line_note(&self, s: &mut String, ctx: &Context) {
        const SHOWN: usize = 5;
        if self.one_line.is_empty() {
            return;
        }
        let files: Vec<String> = self
            .one_line
            .iter()
            .take(SHOWN)
            .map(|(f, n, bytes)| {
                format!(
                    "`{}` ({n} operations sharing lines, {:.1} MB of patch)",
                    code(f),
                    *bytes as f64 / 1e6
                )
            })
            .collect();
        let more = match self.one_line.len() {
            n if n > SHOWN => format!(" and {} more", n - SHOWN),
            _ => String::new(),
        };
        let overlay = match &ctx.overlay {
            Some(o) => format!("the Overlay, `{}`,", code(o)),
            None => "the Overlay (rerun with `--overlay FILE`)".to_owned(),
        };
        let _ = writeln!(
            s,
            "\n**For {}{more}, review {overlay} rather than the patch**: the patch shows a \
             line whole, before and after, for every change on it. The Overlay gives each \
             operation's change as that operation (its JSONPath, the keys it gains); below, each \
             is named by method, path and JSON pointer. The patch applies as it is.",
            files.join(", ")
        );
    }

    fn look_section(&self, ctx: &Context, budget: usize) -> String {
        let mut s = String::new();
        let list = &self.look;
        let _ = writeln!(
            s,
            "\n### Worth a look first ({})\n\nPatched proposals ranked by what makes them doubtful \
             or costly: a read over POST, conflicting evidence, medium confidence with no HTTP \
             method to back it, a delete, several steps.\n",
            list.total
        );
        if list.total == 0 {
            s.push_str("None: every patched proposal is a single-step read or write whose HTTP method agrees with it, or one of high confidence, with evidence one way.\n");
            return s;
        }
        let lines = list.in_order().into_iter().enumerate().map(|(i, it)| {
            let mut l = format!(
                "{}. `{}` → **{}** ({}): {}\n",
                i + 1,
                code(&it.tool),
                it.proposed.joined(", "),
                confidence(it.confidence),
                flag_phrases(it)
            );
            let _ = writeln!(l, "   - {}, {}", location(it), it.evidence);
            if let Some(p) = it.place.as_deref().filter(|p| !p.change.is_empty()) {
                let _ = writeln!(l, "   - inserts {}", change(p));
            }
            let _ = writeln!(l, "   - {}", explain_command(ctx, it));
            l
        });
        push_within(&mut s, lines, list.total, budget, &self.rest(ctx));
        s
    }

    fn conflict_section(&self, ctx: &Context, budget: usize) -> String {
        let mut s = String::new();
        let list = &self.conflicts;
        if list.total == 0 && self.rewritten == 0 {
            return s;
        }
        if self.rewritten > 0 {
            let _ = writeln!(
                s,
                "\n{} conflicting declarations are rewritten with the proposal (`--fix-conflicts`); they are ranked above.",
                self.rewritten
            );
        }
        if list.total == 0 {
            return s;
        }
        let _ = writeln!(
            s,
            "\n### Conflicts left alone ({})\n\nThe catalog declares effects that a confident \
             proposal contradicts. The patch does not touch them; fix the declaration by hand, \
             or rerun with `--fix-conflicts`.\n",
            list.total
        );
        let lines = list.items.iter().map(|it| {
            format!(
                "- `{}` declares **{}**, proposal **{}** ({}): {}, {}; {}\n",
                code(&it.tool),
                md(&it.declared),
                it.proposed.joined(", "),
                confidence(it.confidence),
                location(it),
                it.evidence,
                explain_command(ctx, it)
            )
        });
        push_within(&mut s, lines, list.total, budget, &self.rest(ctx));
        s
    }

    fn not_patched_section(&self, summary: &Summary, ctx: &Context, budget: usize) -> String {
        let mut s = String::new();
        let t = &summary.total;
        let count = self.not_patched.total + self.error_count + t.skipped;
        if count == 0 {
            return s;
        }
        let _ = writeln!(s, "\n### Not patched\n");
        if t.unclassified > 0 {
            let _ = writeln!(
                s,
                "- **{}**: no proposal reached `--min-confidence {}`; they need a human (a low proposal is shown where there is one).",
                crate::text::plural(t.unclassified, "unclassified action"),
                ctx.min_confidence
            );
        }
        if t.invalid > 0 {
            let _ = writeln!(
                s,
                "- **{}**: `effects` is not a list of known effects; never fixed silently.",
                crate::text::plural(t.invalid, "invalid declaration")
            );
        }
        if self.error_count > 0 {
            let _ = writeln!(
                s,
                "- **{}**: files or items that could not be read; their actions are not in the patch.",
                crate::text::plural(self.error_count, "error")
            );
        }
        if t.skipped > 0 {
            let _ = writeln!(
                s,
                "- {}: not tools, never patched.",
                crate::text::plural(t.skipped, "nested refresh action")
            );
        }
        s.push('\n');
        let items = self.not_patched.items.iter().map(|it| {
            if it.status == Status::Invalid {
                format!(
                    "- `{}` (invalid: {}): {}\n",
                    code(&it.tool), md(&it.declared), location(it)
                )
            } else if it.confidence.is_some_and(|c| c >= ctx.min_confidence) {
                format!(
                    "- `{}` (held back, sure enough to patch but not edited: the warning on its file says why, such as a file git does not track, or another action that merges it with `<<`; proposal **{}**): {}\n",
                    code(&it.tool),
                    it.proposed.joined(", "),
                    location(it)
                )
            } else if it.proposed.is_empty() {
                format!(
                    "- `{}` (unclassified: {}): {}; {}\n",
                    code(&it.tool),
                    it.evidence,
                    location(it),
                    explain_command(ctx, it)
                )
            } else {
                format!(
                    "- `{}` (unclassified; low proposal **{}**, {}): {}; {}\n",
                    code(&it.tool),
                    it.proposed.joined(", "),
                    it.evidence,
                    location(it),
                    explain_command(ctx, it)
                )
            }
        });
        let errors = self
            .errors
            .iter()
            .map(|e| format!("- error: `{}`\n", code(e)));
        push_within(
            &mut s,
            items.chain(errors),
            self.not_patched.total + self.error_count,
            budget,
            &self.rest(ctx),
        );
        s
    }

    /// `--migrate-hints`: each hint removed and each override kept, with why.
    fn hints_section(&self, ctx: &Context, budget: usize) -> String {
        let mut s = String::new();
        if self.hints_total == 0 {
            return s;
        }
        let _ = writeln!(
            s,
            "\n### Hints migrated ({} removed)\n\nHand-written `annotations:` beside the effects \
             each action has once the patch is applied (declared, or proposed in it). A hint \
             they derive to the same value is removed; one that differs is an override and is \
             kept, and so is `idempotentHint`, which effects never derive.\n",
            self.hints_removed
        );
        push_within(
            &mut s,
            self.hints.iter().cloned(),
            self.hints_total,
            budget,
            &self.rest(ctx),
        );
        s
    }

    /// The commit message of `--branch`: the guide's counts and its first few items, as
    /// plain text.
    pub fn commit_message(&self, summary: &Summary, ctx: &Context) -> String {
        const SHOWN: usize = 10;
        let t = &summary.total;
        let mut msg = format!(
            "Backfill effects on {} actions\n\nActions given effects, per connector:\n",
            t.added
        );
        // Names and paths are the catalog's text: a line break in one would start a line
        // of the message, a trailer git reads (`Signed-off-by:`) included.
        for (c, n) in summary.connectors.iter().filter(|(_, n)| n.added > 0) {
            let _ = writeln!(msg, "  {}: {}", crate::text::safe::line(c), n.added);
        }
        if self.look.total > 0 {
            let _ = writeln!(
                msg,
                "\nWorth a look first ({} of {}; `backfill --review FILE.md` lists them all):",
                self.look.total.min(SHOWN),
                self.look.total
            );
            for it in self.look.in_order().into_iter().take(SHOWN) {
                let _ = writeln!(
                    msg,
                    "  {}  {}  {} ({}): {}",
                    plain_location(it),
                    crate::text::safe::line(&it.tool),
                    it.proposed.joined(", "),
                    confidence(it.confidence),
                    crate::text::safe::line(&flag_phrases(it))
                );
            }
        }
        if self.rewritten > 0 {
            let _ = writeln!(
                msg,
                "\nConflicts rewritten with the proposal: {}",
                self.rewritten
            );
        }
        let _ = writeln!(msg, "\nConflicts left alone: {}", self.conflicts.total);
        for it in self.conflicts.items.iter().take(SHOWN) {
            let _ = writeln!(
                msg,
                "  {}  {}  declares {}, proposal {} ({})",
                plain_location(it),
                crate::text::safe::line(&it.tool),
                crate::text::safe::line(&it.declared),
                it.proposed.joined(", "),
                confidence(it.confidence)
            );
        }
        if self.hints_total > 0 {
            let _ = writeln!(
                msg,
                "Hints removed (--migrate-hints): {}; the guide lists each, and each override kept",
                self.hints_removed
            );
        }
        let _ = writeln!(msg, "Unclassified (need a human): {}", t.unclassified);
        if t.invalid > 0 {
            let _ = writeln!(msg, "Invalid declarations (not fixed): {}", t.invalid);
        }
        let _ = write!(
            msg,
            "\nExplain any of them: catalog-effects explain {} <tool>\n\nProduced by catalog-effects {} (heuristics {}, --min-confidence {}).\n",
            crate::text::safe::line(ctx.catalogs.first().map_or(".", String::as_str)),
            ctx.version,
            ctx.heuristics,
            ctx.min_confidence
        );
        msg
    }
}

/// An action's hints as the guide lists them, when the run migrates hints and it has any.
fn hint_line(f: &FileResult, a: &ActionResult) -> Option<String> {
    let h = a.hint_review.as_deref().filter(|h| h.migrate)?;
    let phrase = |n: &crate::model::hints::HintNote| match n.key {
        crate::model::hints::HintKey::Title => format!("`title: {}`", n.value),
        k => format!("`{}: {}`", k.name(), n.value),
    };
    let mut parts = Vec::new();
    if !h.edits.is_empty() {
        let removed: Vec<String> = h
            .redundant()
            .map(|n| format!("{} ({})", phrase(n), h.why(n)))
            .collect();
        parts.push(format!("removed {}", removed.join(", ")));
    }
    let kept: Vec<String> = h
        .notes
        .iter()
        .filter(|n| n.verdict != crate::model::hints::Verdict::Redundant || h.edits.is_empty())
        .map(|n| format!("{} ({})", phrase(n), h.why(n)))
        .collect();
    if !kept.is_empty() {
        parts.push(format!("kept {}", kept.join(", ")));
    }
    if let Some(why) = &h.refused {
        parts.push(format!("**left alone**: {why}"));
    }
    Some(format!(
        "- `{}` (`{}:{}`): {}\n",
        a.tool_name(),
        f.shown,
        a.line,
        parts.join("; ")
    ))
}

/// The share of actions that declare valid effects before the patch.
fn current_coverage(s: &Summary) -> Option<f64> {
    let mut now = s.total.clone();
    now.with_effects = now.agrees + now.conflict;
    now.coverage()
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Appends lines while they fit in `budget` characters, then says how many were left out
/// and where they are (`rest`).
fn push_within(
    s: &mut String,
    lines: impl Iterator<Item = String>,
    total: usize,
    budget: usize,
    rest: &str,
) {
    let mut used = 0;
    let mut shown = 0;
    for line in lines {
        let n = chars(&line);
        if used + n > budget {
            break;
        }
        s.push_str(&line);
        used += n;
        shown += 1;
    }
    if shown < total {
        let _ = writeln!(s, "- … and {} more: see {rest}.", total - shown);
    }
}

/// Where an item is, as code spans: `file:line`, and for an OpenAPI operation its method
/// and path and its JSON pointer. The line is left out where the file's actions share
/// lines (every operation of a minified document reads `:1`).
fn location(it: &Item) -> String {
    let file = if it.one_line && it.place.is_some() {
        format!("`{}`", code(&it.file))
    } else {
        format!("`{}:{}`", code(&it.file), it.line)
    };
    match it.place.as_deref() {
        Some(p) => format!("{file} `{}` at `{}`", code(&p.operation), code(&p.pointer)),
        None => file,
    }
}

/// [`location`] as plain text, for the commit message.
fn plain_location(it: &Item) -> String {
    match it.place.as_deref() {
        Some(p) if it.one_line => format!(
            "{} {}",
            crate::text::safe::line(&it.file),
            crate::text::safe::line(&p.operation)
        ),
        _ => format!("{}:{}", crate::text::safe::line(&it.file), it.line),
    }
}

/// The keys an operation gains, each a code span.
fn change(p: &Place) -> String {
    let parts: Vec<String> = p.change.iter().map(|c| format!("`{}`", code(c))).collect();
    parts.join(", ")
}

fn confidence(c: Option<Confidence>) -> &'static str {
    c.map_or("no confidence", Confidence::name)
}

fn flag_phrases(it: &Item) -> String {
    let words: Vec<String> = it
        .flags
        .iter()
        .map(|f| match f {
            Flag::Contradicted => "overrules another reading".into(),
            Flag::ReadOverPost => format!("read over {}", it.method.as_deref().unwrap_or("POST")),
            Flag::ConflictingEvidence => "conflicting evidence".into(),
            Flag::MediumConfidence => "medium confidence, no method to back it".into(),
            Flag::Destructive => "destructive".into(),
            Flag::MultiStep => format!("{} steps", it.steps),
        })
        .collect();
    words.join(", ")
}

/// The `explain` command for the item, as a whole code span: copied, it is the command.
fn explain_command(ctx: &Context, it: &Item) -> String {
    let catalog = ctx.catalogs.get(it.catalog).map_or(".", String::as_str);
    crate::text::safe::markdown_code_span(&format!(
        "catalog-effects explain {} {}",
        shell_word(catalog),
        shell_word(&it.tool)
    ))
}

/// A word a POSIX shell reads back as itself.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:@%+=,".contains(&b));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

fn item(f: &FileResult, a: &ActionResult, rules: &RuleSet) -> Item {
    let inf = &a.inference;
    let read_only = inf.effects.is_read_only();
    let mut flags = Vec::new();
    let method = a
        .methods
        .iter()
        .find(|m| !matches!(m.as_str(), "GET" | "HEAD" | "OPTIONS"))
        .cloned();
    if read_only && method.is_some() {
        flags.push(Flag::ReadOverPost);
    }
    let against: Vec<usize> = inf
        .fired
        .iter()
        .copied()
        .filter(|&i| rules.rules[i].effect.is_read_only() != read_only)
        .collect();
    // A read verb overruled by a change beside it is a contradiction, ranked first. A weak
    // sign the other way (a POST under a search verb) is common and says little; a medium
    // or strong one means the rules really disagreed.
    let overruled = inf
        .decision
        .as_ref()
        .is_some_and(|d| matches!(d.basis, Basis::Veto(_)));
    let outvoted = a.vote.as_ref().is_some_and(|v| v.did == Did::Overruled);
    if !inf.effects.is_empty() && (overruled || outvoted || inf.overruled.is_some()) {
        flags.push(Flag::Contradicted);
    }
    if !inf.effects.is_empty()
        && against
            .iter()
            .any(|&i| rules.rules[i].weight >= Weight::Medium)
    {
        flags.push(Flag::ConflictingEvidence);
    }
    let backed = inf
        .decision
        .as_ref()
        .is_some_and(|d| d.agreement == Agreement::Agrees);
    if inf.confidence == Some(Confidence::Medium) && !backed {
        flags.push(Flag::MediumConfidence);
    }
    if inf.effects.contains(Effect::Delete) {
        flags.push(Flag::Destructive);
    }
    let steps = a.paths.len().max(a.methods.len());
    if steps > 1 {
        flags.push(Flag::MultiStep);
    }
    let mut evidence = if inf.deciding().is_empty() {
        inf.reason(a.vote.as_deref(), rules)
    } else {
        let mut e = format!("decided by {}", ref_list(inf.deciding(), rules));
        if !against.is_empty() {
            let _ = write!(e, " against {}", rule_list(&against, rules));
        }
        e
    };
    // What the rest of the catalog declares changed it: the reviewer sees whose habit.
    if let Some(v) = a.vote.as_deref().filter(|v| v.did != Did::Nothing) {
        let _ = write!(evidence, "; {} ({})", v.sentence(rules), v.did.name());
    }
    let declared = match &a.declared {
        Declared::Valid(d) => d.joined(", "),
        Declared::Invalid(why) => why.clone(),
        Declared::None => String::new(),
    };
    Item {
        score: flags.iter().map(|f| f.weight()).sum(),
        flags,
        catalog: f.catalog,
        // Read on GitHub beside the diff: from the repository root, as GitHub output is (from
        // the current directory outside git).
        file: f.ci_path().to_owned(),
        line: a.line,
        tool: a.tool_name(),
        status: a.status,
        proposed: inf.effects,
        confidence: inf.confidence,
        evidence,
        declared,
        method,
        steps,
        place: None,
        one_line: false,
    }
}

/// At most three of `items`, then how many more.
fn at_most_three(items: impl Iterator<Item = String>) -> String {
    let all: Vec<String> = items.collect();
    let mut parts: Vec<String> = all.iter().take(3).cloned().collect();
    if all.len() > 3 {
        parts.push(format!("{} more", all.len() - 3));
    }
    parts.join(", ")
}

/// `` `http-delete` (strong delete), `input-dry-run` (strong write) ``, at most three.
fn rule_list(fired: &[usize], rules: &RuleSet) -> String {
    at_most_three(fired.iter().map(|&i| {
        let r = &rules.rules[i];
        format!("`{}` ({} {})", r.id, r.weight.name(), r.effect)
    }))
}

/// `` `verb-delete` (delete), `http-delete` (strong delete) ``: what decided, at most three.
fn ref_list(deciding: &[Ref], rules: &RuleSet) -> String {
    at_most_three(deciding.iter().map(|&r| match r {
        Ref::Rule(i) => {
            let r = &rules.rules[i];
            format!("`{}` ({} {})", r.id, r.weight.name(), r.effect)
        }
        Ref::Sense(s) => {
            let sense = rules.lexicon.sense(s);
            format!("`{}` ({})", sense.id, sense.effect)
        }
        Ref::Object(o) => {
            let o = &rules.lexicon.objects[o];
            format!("`{}` ({})", o.id, o.implies)
        }
        Ref::Hint => "the hint declared in the catalog".to_owned(),
        Ref::Plain => "the plain reading of the name and method".to_owned(),
    }))
}

fn connector_table(s: &mut String, summary: &Summary) {
    s.push_str("| connector | tools | patched | agree | conflicts | not patched | coverage now → after |\n|---|--:|--:|--:|--:|--:|--:|\n");
    let mut row = |name: &str, c: &crate::emit::Counts| {
        let mut now = c.clone();
        now.with_effects = c.agrees + c.conflict;
        let _ = writeln!(
            s,
            "| {name} | {} | {} | {} | {} | {} | {} → {} |",
            c.actions - c.skipped,
            c.added,
            c.agrees,
            c.conflict,
            c.unclassified + c.invalid,
            now.coverage_shown(),
            c.coverage_shown()
        );
    };
    // A catalog of thousands of connectors would fill the page with this table alone: past
    // a screenful, the connectors that will be least covered are the ones shown.
    let mut list: Vec<(&String, &crate::emit::Counts)> = summary.connectors.iter().collect();
    if list.len() > MAX_CONNECTORS {
        let least = |c: &crate::emit::Counts| c.coverage().unwrap_or(f64::INFINITY);
        list.sort_by(|a, b| least(a.1).total_cmp(&least(b.1)).then(a.0.cmp(b.0)));
    }
    for (name, c) in list.iter().take(MAX_CONNECTORS) {
        row(&markdown_cell(name), c);
    }
    row("**total**", &summary.total);
    if list.len() > MAX_CONNECTORS {
        let _ = writeln!(
            s,
            "\nThe {MAX_CONNECTORS} connectors least covered after the patch; {} more are in the CSV report.",
            list.len() - MAX_CONNECTORS
        );
    }
    s.push('\n');
}

/// A connector name inside a table cell: pipes would split the cell, and HTML or a
/// control character in a key must show as text.
fn markdown_cell(s: &str) -> String {
    crate::text::safe::markdown(s).replace('|', "\\|")
}

/// Catalog text inside a code span.
fn code(s: &str) -> String {
    crate::text::safe::markdown_code(s)
}

/// Catalog text outside a code span.
fn md(s: &str) -> String {
    crate::text::safe::markdown(s)
}

fn effect_line(s: &mut String, per_effect: &[usize; 5]) {
    let parts: Vec<String> = Effect::ALL
        .iter()
        .zip(per_effect)
        .map(|(e, n)| format!("{e} {n}"))
        .collect();
    let _ = writeln!(
        s,
        "Effects the patch adds: {} (an action may have several).",
        parts.join(" · ")
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_read_back_as_themselves() {
        assert_eq!(shell_word("catalogs/demo"), "catalogs/demo");
        assert_eq!(shell_word("my catalog"), "'my catalog'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn ranked_lists_keep_the_best_and_count_all() {
        let mut k = Kept::ranked();
        for i in 0..(3 * KEEP) {
            k.push(Item {
                score: (i % 7) as u32,
                flags: Vec::new(),
                catalog: 0,
                file: format!("f{i:05}"),
                line: 1,
                tool: String::new(),
                status: Status::Added,
                proposed: Effects::EMPTY,
                confidence: None,
                declared: String::new(),
                evidence: String::new(),
                method: None,
                steps: 1,
                place: None,
                one_line: false,
            });
        }
        k.sort();
        assert_eq!(k.total, 3 * KEEP);
        assert!(k.items.len() <= 2 * KEEP);
        assert_eq!(k.items[0].score, 6);
        assert_eq!(k.items[0].file, "f00006");
    }
}
