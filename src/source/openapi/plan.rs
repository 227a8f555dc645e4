//! An OpenAPI document planned operation by operation: each decided, then given what it
//! gains: `x-effects` (inserted, or a conflicting flow list rewritten), and with `--hints`
//! the derived hints where each generator reads them, in a map the operation has or in
//! new keys beside `x-effects`.

use crate::classify::{Group, Inference, Vote};
use crate::effects::{Effects, Hints, derive_hints};
use crate::error::Error;
use crate::fix::options::Options;
use crate::fix::plan::{HintRole, Planned, decide, status};
use crate::model::edit::{Edit, Status};
use crate::model::openapi::{EFFECTS_KEY, HINT_KEYS, HintFormat, Inserted, NewValue};
use crate::model::site::{ActionSite, Insert};
use crate::view::ActionView;
use crate::yaml::tree::{Kind, NodeId, Tree, opener};

use super::read::{self as doc, Operation};
use super::write::{Style, inline, insertion};

/// The hints an operation's effects derive, as a generator's map holds them: the three the
/// published rule sets (idempotentHint only from an override, never written here).
/// Keys as written here, owned only for what is inserted: a second plan inserts nothing.
fn hint_entries(hints: &Hints) -> [(&'static str, Option<bool>); 3] {
    [
        ("readOnlyHint", hints.read_only),
        ("destructiveHint", hints.destructive),
        ("openWorldHint", hints.open_world),
    ]
}

/// An operation planned: the shared [`Planned`] (decision, status, the `x-effects` edit in
/// `edit`, other insertions in `more`) and what each edit inserts where.
pub(super) struct OpPlan {
    pub planned: Planned,
    pub inserted: Vec<Inserted>,
    /// The operation's mapping in the tree it was planned on (how many keys lead there
    /// is each inserted entry's [`Inserted::operation`]).
    pub map: NodeId,
}

/// Classifies and plans every operation of a parsed document. (The check plans an edited
/// text again operation by operation, given the decisions: see [`super::check`].)
pub(super) fn plan_ops(
    tree: &Tree,
    json: bool,
    operations: Vec<Operation>,
    opts: &Options,
    notes: &mut Vec<Error>,
) -> (Vec<OpPlan>, Group) {
    let style = Style::detect(tree, json);
    let group = Group::learn_calls(
        operations.iter().map(|o| {
            (
                o.view.id.as_str(),
                o.view.steps.last().and_then(|s| s.method.as_deref()),
            )
        }),
        &opts.rules.lexicon,
    );
    let mut out = Vec::with_capacity(operations.len());
    for op in operations {
        // A generator's hints are what the server advertises, which `audit` judges: not
        // evidence, as a person's `annotations:` in a connector file are.
        let decided = decide(&op.view, &group, opts, HintRole::Advertised);
        out.push(plan_op(tree, style, op, decided, opts, true, notes));
    }
    (out, group)
}

/// What an operation gains, gathered before anything is written into its own mapping: the
/// entries that mapping gets (`x-effects`, and hints under keys it does not have yet), a
/// rewritten `x-effects`, and insertions into maps it already has, with what each inserts
/// where.
#[derive(Default)]
struct Gains {
    entries: Vec<(String, NewValue)>,
    rewrite: Option<Edit>,
    more: Vec<Edit>,
    inserted: Vec<Inserted>,
}

/// The operation being planned, and where it is written.
struct At<'a, 't> {
    tree: &'a Tree<'t>,
    style: Style,
    op: &'a Operation,
    view: &'a ActionView,
    /// Of its key, for the notes; 0 in a second plan, whose notes are never shown.
    column: usize,
    /// Where its mapping starts: every edit of the operation names it.
    map_start: usize,
}

impl At<'_, '_> {
    fn note(&self, line: usize, column: usize, message: String) -> Error {
        Error::new(message).at(line, column)
    }

    /// `x-effects` as the patch leaves it, and what it gains to get there: inserted for a
    /// proposal, rewritten for a conflict `--fix-conflicts` settles (only a flow list
    /// written here can be).
    fn effects(
        &self,
        status: Status,
        inference: &Inference,
        opts: &Options,
        gains: &mut Gains,
        notes: &mut Vec<Error>,
    ) -> Option<Effects> {
        let (tree, view) = (self.tree, self.view);
        match status {
            Status::Added => {
                gains
                    .entries
                    .push((EFFECTS_KEY.to_owned(), effects_value(inference.effects)));
                Some(inference.effects)
            }
            Status::Conflict if opts.fix_conflicts => match self.op.effects {
                Some(v) if tree.node(v).flow() && !tree.node(v).anchored() => {
                    let n = tree.node(v);
                    let text = tree.text();
                    let start = opener(text, n.start()).map_or(n.start(), |(at, _)| at);
                    gains.rewrite = Some(Edit {
                        start,
                        end: n.end(),
                        text: inline(self.style, &effects_value(inference.effects)),
                        effects: inference.effects,
                        map: self.map_start,
                        old: text[start..n.end()].to_owned(),
                        removes: 0,
                    });
                    Some(inference.effects)
                }
                _ => {
                    notes.push(self.note(
                        view.line,
                        self.column,
                        format!(
                            "`{}` not rewritten: its {EFFECTS_KEY} is not a flow list (`[..]`) written here; rewrite it by hand",
                            view.id
                        ),
                    ));
                    view.declared.valid()
                }
            },
            _ => view.declared.valid(),
        }
    }

    /// The hints `effects` derive, for every format asked for: merged into the format's map
    /// where the operation has it, else added to its own entries.
    fn hints(
        &self,
        effects: Effects,
        inference: &Inference,
        opts: &Options,
        gains: &mut Gains,
        notes: &mut Vec<Error>,
    ) {
        let view = self.view;
        let hints = derive_hints(
            effects,
            view.label.as_deref(),
            view.annotations.as_ref(),
            opts.policy,
            inference.overwrites,
        );
        let wanted = hint_entries(&hints);
        for &format in &opts.hint_formats {
            if let Some((at, parent_key, depth)) = self.hint_map(format, notes) {
                self.hints_into(
                    format,
                    effects,
                    &wanted,
                    (at, parent_key, depth),
                    gains,
                    notes,
                );
            }
        }
    }

    /// The deepest mapping of `format`'s path that the operation has, the key that holds
    /// it and how many of the path's keys lead there; none where that map is shared (a
    /// merge or an alias) or not a mapping, and the note says why.
    fn hint_map(
        &self,
        format: HintFormat,
        notes: &mut Vec<Error>,
    ) -> Option<(NodeId, NodeId, usize)> {
        let (tree, view) = (self.tree, self.view);
        let (mut at, mut parent_key, mut depth) = (self.op.map, self.op.key, 0);
        for k in format.path() {
            match tree.entry(at, k) {
                Some((kn, v)) if tree.is_map(v) => {
                    // A map that comes through a `<<` merge or an alias is shared: hints
                    // written into it would be every sharer's. The operation still gets its
                    // `x-effects`.
                    let merged = !tree
                        .own_entries(at)
                        .is_some_and(|mut e| e.any(|(o, _)| o == kn));
                    let aliased = tree.node(v).kind() == Kind::Alias;
                    if merged || aliased {
                        let how = if merged {
                            "comes through a `<<` merge"
                        } else {
                            "is an alias (`*name`)"
                        };
                        // Named where the operation writes it: a merged key is written in
                        // the mapping merged.
                        let (line, col) = if merged {
                            (view.line, self.column)
                        } else {
                            (tree.line(kn), tree.column(tree.node(kn).start()) + 1)
                        };
                        notes.push(self.note(
                            line,
                            col,
                            format!(
                                "`{}`: `{k}` {how} of a mapping other places may share: {} hints not written; write them into this operation by hand",
                                view.id,
                                format.name()
                            ),
                        ));
                        return None;
                    }
                    at = v;
                    parent_key = kn;
                    depth += 1;
                }
                Some((kn, _)) => {
                    notes.push(self.note(
                        tree.line(kn),
                        tree.column(tree.node(kn).start()) + 1,
                        format!(
                            "`{}`: `{k}` is not a mapping: {} hints not written",
                            view.id,
                            format.name()
                        ),
                    ));
                    return None;
                }
                None => break,
            }
        }
        Some((at, parent_key, depth))
    }

    /// The hints of `wanted` that `format`'s map lacks, wrapped in the keys of its path
    /// that do not exist yet, inserted into the deepest one that does (`found`: see
    /// [`At::hint_map`]).
    fn hints_into(
        &self,
        format: HintFormat,
        effects: Effects,
        wanted: &[(&'static str, Option<bool>); 3],
        (at, parent_key, depth): (NodeId, NodeId, usize),
        gains: &mut Gains,
        notes: &mut Vec<Error>,
    ) {
        let tree = self.tree;
        let path = format.path();
        // A hint written there that is not a boolean is an error of the read (its line and
        // column); hints written beside it would read as settled when one is not.
        if depth == path.len()
            && tree
                .fields(at, HINT_KEYS)
                .into_iter()
                .flatten()
                .any(|v| doc::boolean(tree, v).is_none())
        {
            return;
        }
        let missing: Vec<(String, NewValue)> = wanted
            .iter()
            .filter_map(|&(k, v)| Some((k, v?)))
            .filter(|(k, _)| depth < path.len() || tree.get(at, k).is_none())
            .map(|(k, v)| (k.to_owned(), NewValue::Bool(v)))
            .collect();
        if missing.is_empty() {
            return;
        }
        let mut value = NewValue::Map(missing);
        for k in path[depth..].iter().skip(1).rev() {
            value = NewValue::Map(vec![((*k).to_owned(), value)]);
        }
        let entries: Vec<(String, NewValue)> = if depth < path.len() {
            vec![(path[depth].to_owned(), value)]
        } else {
            match value {
                NewValue::Map(e) => e,
                _ => Vec::new(),
            }
        };
        if at == self.op.map {
            gains.entries.extend(entries);
            return;
        }
        match insertion(tree, self.style, at, parent_key, &entries) {
            Ok((pos, new)) => {
                let mut target = self.op.location.clone();
                target.extend(path[..depth].iter().map(|s| (*s).to_owned()));
                gains.more.push(self.insert(pos, new, effects));
                gains.inserted.push(Inserted {
                    map: self.map_start,
                    target,
                    operation: self.op.location.len(),
                    entries,
                    replaces: false,
                });
            }
            Err(why) => notes.push(self.note(
                tree.line(parent_key),
                tree.column(tree.node(parent_key).start()) + 1,
                format!(
                    "`{}`: {} hints not written: `{}`: {why}; write them by hand",
                    self.view.id,
                    format.name(),
                    path[depth - 1],
                ),
            )),
        }
    }

    fn insert(&self, at: usize, text: String, effects: Effects) -> Edit {
        Edit {
            start: at,
            end: at,
            text,
            effects,
            map: self.map_start,
            old: String::new(),
            removes: 0,
        }
    }

    /// The gains as edits: the entries inserted into the operation's own mapping first
    /// (the `x-effects` edit of a proposal; else one more), the rewrite, the insertions
    /// elsewhere. Where the mapping cannot take a key, nothing of it is edited and the
    /// note says why; a proposal is then listed for a human.
    fn edits(
        &self,
        status: &mut Status,
        after: Option<Effects>,
        mut gains: Gains,
        notes: &mut Vec<Error>,
    ) -> (Option<Edit>, Vec<Edit>, Vec<Inserted>) {
        let mut edit = gains.rewrite;
        if let Some(r) = &edit {
            gains.inserted.push(Inserted {
                map: self.map_start,
                target: self.op.location.clone(),
                operation: self.op.location.len(),
                entries: vec![(EFFECTS_KEY.to_owned(), effects_value(r.effects))],
                replaces: true,
            });
        }
        if !gains.entries.is_empty() {
            match insertion(
                self.tree,
                self.style,
                self.op.map,
                self.op.key,
                &gains.entries,
            ) {
                Ok((pos, new)) => {
                    let e = self.insert(pos, new, after.unwrap_or(Effects::EMPTY));
                    if *status == Status::Added {
                        edit = Some(e);
                    } else {
                        gains.more.push(e);
                    }
                    gains.inserted.insert(
                        0,
                        Inserted {
                            map: self.map_start,
                            target: self.op.location.clone(),
                            operation: self.op.location.len(),
                            entries: gains.entries,
                            replaces: false,
                        },
                    );
                }
                Err(why) => {
                    notes.push(self.note(
                        self.view.line,
                        self.column,
                        format!(
                            "`{}` not edited: {why}; declare its effects by hand",
                            self.view.id
                        ),
                    ));
                    if *status == Status::Added {
                        *status = Status::Unclassified;
                    }
                    return (None, Vec::new(), Vec::new());
                }
            }
        }
        gains.more.sort_by_key(Edit::order);
        (edit, gains.more, gains.inserted)
    }
}

/// `x-effects`' value for `effects`.
fn effects_value(e: Effects) -> NewValue {
    NewValue::List(e.iter().map(|x| x.name().to_owned()).collect())
}

/// Plans one operation given its decision. `first` is false for the check's second plan of
/// an edited text, which is compared by its edits, id and declaration only: no column is
/// counted and the hints are not judged.
pub(super) fn plan_op(
    tree: &Tree,
    style: Style,
    mut op: Operation,
    (inference, vote): (Inference, Option<Box<Vote>>),
    opts: &Options,
    first: bool,
    notes: &mut Vec<Error>,
) -> OpPlan {
    let mut view = std::mem::take(&mut op.view);
    // Decided: the text only rules read goes, unless a caller keeps the view (a large
    // document's parameter and property descriptions are most of its plan).
    if !opts.keep_views {
        view.description = None;
        view.details = None;
        view.inputs = Vec::new();
        view.required = Vec::new();
    }
    // A second plan's sites and notes are compared by what they plan, never shown: on a
    // one-line document each column is a search back through the line.
    let column = if first {
        tree.column(tree.node(op.key).start()) + 1
    } else {
        0
    };
    let at = At {
        tree,
        style,
        op: &op,
        view: &view,
        column,
        map_start: tree.node(op.map).start(),
    };
    let mut status = status(&view.declared, false, &inference, opts.min_confidence);
    let mut gains = Gains::default();
    let after = at.effects(status, &inference, opts, &mut gains, notes);
    if let Some(effects) = after.filter(|_| !opts.hint_formats.is_empty()) {
        at.hints(effects, &inference, opts, &mut gains, notes);
    }
    let (edit, more, inserted) = at.edits(&mut status, after, gains, notes);
    let map_start = at.map_start;
    let site = ActionSite {
        view,
        column,
        map_start,
        nested: false,
        insert: Insert::Unsafe("an OpenAPI operation is planned by its own source"),
        effects: None,
        seq_offset: None,
        annotations: None,
    };
    let mut planned = Planned {
        site,
        inference,
        vote,
        status,
        edit,
        hints: None,
        more,
    };
    // A second plan is compared by its edits, id and declaration, which judging the hints
    // leaves as they are: judged in the first plan only.
    if first {
        planned.judge_hints(opts);
    }
    if let Some(h) = &mut planned.hints {
        // Hints in a generator's extension are what the generator reads, not a restatement
        // to clean up: one equal to what the effects derive is what `--hints` writes. They
        // are never removed; only one that differs (an override) is kept for the findings.
        h.migrate = false;
        h.notes
            .retain(|n| n.verdict != crate::model::hints::Verdict::Redundant);
        if h.notes.is_empty() {
            planned.hints = None;
        }
    }
    OpPlan {
        planned,
        inserted,
        map: op.map,
    }
}

/// Every edit the operations' plans make, in the order they apply.
pub(super) fn edits_of(actions: &[Planned]) -> Vec<Edit> {
    let mut edits: Vec<Edit> = actions
        .iter()
        .flat_map(|p| p.edit.iter().chain(&p.more))
        .cloned()
        .collect();
    edits.sort_by_key(Edit::order);
    edits
}
