//! A server source file planned: each tool decided on its name, title, description and
//! inputs (the evidence an MCP tool carries), then given the hints it lacks. A server has
//! no `effects` to declare: its declaration is its `readOnlyHint` and `destructiveHint`,
//! and what the patch writes is the two of them, the ones missing only.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::classify::{Group, Inference};
use crate::effects::{Effect, Hints, derive_hints};
use crate::error::Error;
use crate::fix::options::Options;
use crate::fix::plan::{HintRole, Plan, Planned, decide};
use crate::model::edit::{Edit, Status};
use crate::model::site::{ActionSite, Insert, Shape};
use crate::view::{ActionView, Input, SourceKind};

use super::reader::{Annotations, Found, Language, Tool, Value};

/// The hints the patch writes, in this order: the two clients act on. `idempotentHint` is
/// never derived, and `openWorldHint` is left to the author: no evidence here says a tool
/// stays inside a closed world.
const WRITTEN: [&str; 2] = ["readOnlyHint", "destructiveHint"];

/// The value a tool declares for a hint, read or not.
fn declared<'a>(tool: &'a Tool, key: &str) -> Option<&'a Value> {
    match &tool.annotations {
        Annotations::Literal(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

fn declared_bool(tool: &Tool, key: &str) -> Option<bool> {
    match declared(tool, key) {
        Some(Value::Bool(b)) => Some(*b),
        _ => None,
    }
}

/// The tool as the engine reads an MCP tool: its name, title, description and inputs, with
/// the hints it declares as what it advertises.
pub fn view(tool: &Tool) -> ActionView {
    let annotations = match &tool.annotations {
        Annotations::Literal(_) => Some(Hints {
            title: None,
            read_only: declared_bool(tool, "readOnlyHint"),
            destructive: declared_bool(tool, "destructiveHint"),
            idempotent: declared_bool(tool, "idempotentHint"),
            open_world: declared_bool(tool, "openWorldHint"),
        }),
        _ => None,
    };
    ActionView {
        id: tool.name.clone().unwrap_or_else(|expr| expr),
        label: tool.title.clone(),
        description: tool.description.clone(),
        inputs: tool
            .inputs
            .iter()
            .map(|name| Input {
                name: name.clone(),
                ..Input::default()
            })
            .collect(),
        annotations,
        line: tool.line,
        source: SourceKind::Server,
        ..ActionView::default()
    }
}

/// Whether a confident inference contradicts what the tool declares, on evidence whose own
/// record may overrule a person (as `audit` judges a server's hints): a read-only claim on a
/// change, a delete declared not destructive.
fn contradicted(tool: &Tool, inference: &Inference, opts: &Options) -> bool {
    if !inference.confident(opts.min_confidence) || inference.effects.is_empty() {
        return false;
    }
    let overrules = inference
        .decision
        .as_ref()
        .is_some_and(|d| opts.rules.measured.overruling(d).is_some());
    let read_only = inference.effects.is_read_only();
    let claims = |key, value| declared_bool(tool, key) == Some(value);
    // Only the claims that let a client run a change unattended: a read declared not
    // read-only is an author's caution (a tool that may save a file), never overruled.
    overrules
        && ((claims("readOnlyHint", true) && !read_only)
            || (claims("destructiveHint", false) && inference.effects.contains(Effect::Delete)))
}

/// The hints a tool lacks and their values, or none when it lacks none or the evidence
/// cannot say: a declared hint decides what it implies (read-only is never destructive; a
/// destructive tool is never read-only), the confident inference the rest.
fn missing(
    tool: &Tool,
    inference: &Inference,
    opts: &Options,
) -> Option<Vec<(&'static str, bool)>> {
    let has = |key| declared(tool, key).is_some();
    if WRITTEN.iter().all(|k| has(k)) {
        return None;
    }
    let implied = match (
        declared_bool(tool, "readOnlyHint"),
        declared_bool(tool, "destructiveHint"),
    ) {
        (Some(true), _) => Some(Hints {
            read_only: Some(true),
            destructive: Some(false),
            ..Hints::default()
        }),
        (_, Some(true)) => Some(Hints {
            read_only: Some(false),
            destructive: Some(true),
            ..Hints::default()
        }),
        _ => None,
    };
    let inferred = (inference.confident(opts.min_confidence) && !inference.effects.is_empty())
        .then(|| {
            derive_hints(
                inference.effects,
                None,
                None,
                opts.policy,
                inference.overwrites,
            )
        });
    // A declared hint the confident evidence doubts (too weakly to overrule it) is the
    // author's claim: completed, it would say more than the author did, on evidence that
    // disagrees. It is left as written, and `audit` calls it unconfirmed.
    if let (Some(i), Some(d)) = (&implied, &inferred)
        && i.read_only != d.read_only
    {
        return None;
    }
    let hints = implied.or(inferred)?;
    let value = |key| match key {
        "readOnlyHint" => hints.read_only,
        _ => hints.destructive,
    };
    let keys: Vec<(&'static str, bool)> = WRITTEN
        .into_iter()
        .filter(|k| !has(k))
        .filter_map(|k| Some((k, value(k)?)))
        .collect();
    (!keys.is_empty()).then_some(keys)
}

/// An insertion that opens a new line at the end of one, moved past that line's end: the
/// same bytes result, but the patch shows whole added lines, not the line before changed.
fn whole_lines(text: &str, at: usize, inserted: String) -> (usize, String) {
    for nl in ["\r\n", "\n"] {
        if let Some(rest) = inserted.strip_prefix(nl)
            && text[at..].starts_with(nl)
        {
            return (at + nl.len(), format!("{rest}{nl}"));
        }
    }
    (at, inserted)
}

/// One tool planned: its status and the edit inserting its missing hints, if any.
fn plan_tool(
    text: &str,
    tool: &Tool,
    group: &Group,
    opts: &Options,
    notes: &mut Vec<Error>,
) -> (Planned, Option<Vec<(&'static str, bool)>>) {
    let view = view(tool);
    let (inference, vote) = decide(&view, group, opts, HintRole::Advertised);
    let mut keys = None;
    let status = match &tool.annotations {
        Annotations::Unread(expr) => {
            notes.push(
                Error::new(format!(
                    "`{}`: its annotations `{expr}` are not a literal the tool can read; counted as declared, never patched",
                    view.id
                ))
                .at(tool.line, tool.column),
            );
            Status::Agrees
        }
        _ if contradicted(tool, &inference, opts) => Status::Conflict,
        _ => match missing(tool, &inference, opts) {
            Some(k) => {
                keys = Some(k);
                Status::Added
            }
            // Declared in full, or in part where the evidence doubts the part: the
            // author's, as written.
            None if WRITTEN.iter().any(|k| declared(tool, k).is_some()) => Status::Agrees,
            None => Status::Unclassified,
        },
    };
    let mut edit = None;
    let mut why = None;
    if let Some(k) = &keys {
        match &tool.slot {
            Ok(slot) => {
                let (at, text) = whole_lines(text, slot.at, slot.render(k));
                edit = Some(Edit {
                    start: at,
                    end: at,
                    text,
                    effects: inference.effects,
                    map: tool.start,
                    old: String::new(),
                    removes: 0,
                });
            }
            Err(e) => why = Some(e.clone()),
        }
    }
    let mut planned = Planned {
        site: ActionSite {
            view,
            column: tool.column,
            map_start: tool.start,
            nested: false,
            insert: Insert::Unsafe("a server's hints go where its reader found room"),
            effects: None,
            seq_offset: None,
            annotations: None,
        },
        inference,
        vote,
        status,
        edit,
        hints: None,
        more: Vec::new(),
    };
    if let Some(why) = why {
        notes.push(planned.refuse(&format!("{why}; add its hints by hand")));
        keys = None;
    }
    (planned, keys)
}

/// Plans one server source file: reads its tools with `lang`, decides each, and checks the
/// edits by reading the edited text again.
pub fn plan(
    lang: &dyn Language,
    name: &str,
    text: String,
    opts: &Options,
    left_alone: Option<&str>,
    render: &mut dyn FnMut(&str, &[Edit]),
) -> Result<Plan, Error> {
    let Found { tools, problems } = lang.read(&text, name)?;
    let group = Group::learn_calls(
        tools
            .iter()
            .filter_map(|t| Some((t.name.as_deref().ok()?, None::<&str>))),
        &opts.rules.lexicon,
    );
    let mut notes = Vec::new();
    let mut actions = Vec::with_capacity(tools.len());
    let mut inserted = HashMap::new();
    for tool in &tools {
        if let Err(expr) = &tool.name {
            // A name computed at run time (a loop over a list, a class's field) registers
            // tools the source does not spell: how many, and which, only the running
            // server says (`audit -- COMMAND`).
            notes.push(
                Error::new(format!(
                    "registers tools under a name not read here (`{expr}`: computed, or not one the MCP specification allows); `audit` the running server for them"
                ))
                .at(tool.line, tool.column),
            );
            continue;
        }
        let (planned, keys) = plan_tool(&text, tool, &group, opts, &mut notes);
        if let Some(keys) = keys {
            inserted.insert(tool.start, keys);
        }
        actions.push(planned);
    }
    let mut edits: Vec<Edit> = actions.iter().flat_map(|p| p.edits()).cloned().collect();
    edits.sort_unstable_by_key(Edit::order);
    let mut plan = Plan {
        shape: Shape::Server,
        group,
        info_key: None,
        key_written: false,
        info_title: None,
        problems,
        notes,
        actions,
        edits,
        new_text: None,
        refs: Vec::new(),
        repeats: Vec::new(),
        silences: Vec::new(),
        inserted: Vec::new(),
    };
    crate::fix::leave_alone(&mut plan, left_alone);
    if !crate::fix::checks(&plan, opts) {
        return crate::fix::finish(Cow::Owned(text), plan, opts, None, render);
    }
    let mut checker = ReadBack {
        lang,
        name,
        tools: &tools,
        inserted: &inserted,
    };
    crate::fix::finish(Cow::Borrowed(&text), plan, opts, Some(&mut checker), render)
}

/// The check of a server file's edits: the edited text, read again by the same reader,
/// holds the same tools in the same order, each the same in everything but its
/// annotations, and the edited tools' annotations are what they declared plus exactly the
/// inserted hints.
struct ReadBack<'a> {
    lang: &'a dyn Language,
    name: &'a str,
    tools: &'a [Tool],
    /// The hints inserted for each tool, by where its registration starts.
    inserted: &'a HashMap<usize, Vec<(&'static str, bool)>>,
}

impl ReadBack<'_> {
    fn verify(&self, new: &str, edits: &[Edit]) -> Result<(), String> {
        let found = self
            .lang
            .read(new, self.name)
            .map_err(|e| format!("the edited text does not parse: {e}"))?;
        if found.tools.len() != self.tools.len() {
            return Err(format!(
                "the edited text holds {} tools, not {}",
                found.tools.len(),
                self.tools.len()
            ));
        }
        for (old, new) in self.tools.iter().zip(&found.tools) {
            let same = old.name == new.name
                && old.title == new.title
                && old.description == new.description
                && old.inputs == new.inputs;
            if !same {
                return Err(format!(
                    "`{}` reads back differently",
                    old.name.as_deref().unwrap_or_else(|e| e.as_str())
                ));
            }
            let edited = edits.iter().any(|e| e.map == old.start);
            let expected = match (edited, self.inserted.get(&old.start)) {
                (true, Some(keys)) => with_keys(&old.annotations, keys),
                _ => old.annotations.clone(),
            };
            if !same_annotations(&expected, &new.annotations) {
                return Err(format!(
                    "`{}` reads back with other annotations than planned",
                    old.name.as_deref().unwrap_or_else(|e| e.as_str())
                ));
            }
        }
        Ok(())
    }
}

/// What a tool's annotations are once `keys` are inserted into them.
fn with_keys(annotations: &Annotations, keys: &[(&str, bool)]) -> Annotations {
    let mut entries = match annotations {
        Annotations::Literal(entries) => entries.clone(),
        _ => Vec::new(),
    };
    entries.extend(keys.iter().map(|&(k, v)| (k.to_owned(), Value::Bool(v))));
    Annotations::Literal(entries)
}

/// Equal as maps: the order entries are written in says nothing.
fn same_annotations(a: &Annotations, b: &Annotations) -> bool {
    match (a, b) {
        (Annotations::Literal(x), Annotations::Literal(y)) => {
            let mut x = x.clone();
            let mut y = y.clone();
            x.sort_by(|p, q| p.0.cmp(&q.0));
            y.sort_by(|p, q| p.0.cmp(&q.0));
            x == y
        }
        _ => a == b,
    }
}

impl crate::fix::EditCheck for ReadBack<'_> {
    fn all<'t>(
        &mut self,
        text: Cow<'t, str>,
        plan: &Plan,
    ) -> (Cow<'t, str>, Result<Option<String>, String>) {
        let new = crate::fix::apply::apply(&text, &plan.edits);
        let checked = self.verify(&new, &plan.edits).map(|()| Some(new));
        (text, checked)
    }

    fn each<'a>(
        &'a self,
        text: &'a str,
        _plan: &'a Plan,
    ) -> Result<crate::fix::EachCheck<'a>, Error> {
        Ok(Box::new(move |edits: &[Edit]| {
            let new = crate::fix::apply::apply(text, edits);
            self.verify(&new, edits).map(|()| new)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::reader::{Entry, Slot};
    use super::*;
    use crate::classify::{Confidence, RuleSet};

    /// A language of one tool a line, `NAME` then its annotations: nothing, `{k=v, ...}`
    /// (`true`/`false`, else unread) or `=EXPR` (unread as a whole). Enough to plan with
    /// and to read an edit back.
    struct Lines;

    impl Language for Lines {
        fn name(&self) -> &'static str {
            "lines"
        }
        fn is_server(&self, _: &str) -> bool {
            true
        }
        fn read(&self, text: &str, _: &str) -> Result<Found, Error> {
            let mut tools = Vec::new();
            let mut start = 0;
            for (i, line) in text.split_inclusive('\n').enumerate() {
                let body = line.trim_end();
                let (name, rest) = body.split_once(' ').unwrap_or((body, ""));
                let (annotations, slot) = if let Some(expr) = rest.strip_prefix('=') {
                    (Annotations::Unread(expr.into()), Err("unread".into()))
                } else if let Some(inner) = rest.strip_prefix('{').and_then(|r| r.strip_suffix('}'))
                {
                    let entries = inner
                        .split(", ")
                        .filter(|e| !e.is_empty())
                        .map(|e| {
                            let (k, v) =
                                e.split_once('=').ok_or_else(|| Error::new("bad entry"))?;
                            let v = match v {
                                "true" => Value::Bool(true),
                                "false" => Value::Bool(false),
                                v => Value::Unread(v.into()),
                            };
                            Ok((k.to_owned(), v))
                        })
                        .collect::<Result<Vec<_>, Error>>()?;
                    let slot = Slot {
                        at: start + body.len() - 1,
                        before: if entries.is_empty() { "" } else { ", " }.into(),
                        sep: ", ".into(),
                        after: String::new(),
                        entry: Entry::Keyword { snake: false },
                    };
                    (Annotations::Literal(entries), Ok(slot))
                } else {
                    let slot = Slot {
                        at: start + body.len(),
                        before: " {".into(),
                        sep: ", ".into(),
                        after: "}".into(),
                        entry: Entry::Keyword { snake: false },
                    };
                    (Annotations::Absent, Ok(slot))
                };
                tools.push(Tool {
                    name: if name.starts_with('$') {
                        Err(name.to_owned())
                    } else {
                        Ok(name.to_owned())
                    },
                    title: None,
                    description: None,
                    inputs: Vec::new(),
                    annotations,
                    start,
                    line: i + 1,
                    column: 1,
                    slot,
                });
                start += line.len();
            }
            // The keyword entries render Python's booleans: read them as this language's.
            for t in &mut tools {
                if let Annotations::Literal(entries) = &mut t.annotations {
                    for (_, v) in entries.iter_mut() {
                        if let Value::Unread(x) = v {
                            match x.as_str() {
                                "True" => *v = Value::Bool(true),
                                "False" => *v = Value::Bool(false),
                                _ => {}
                            }
                        }
                    }
                }
            }
            Ok(Found {
                tools,
                problems: Vec::new(),
            })
        }
    }

    fn run(text: &str) -> (Plan, String) {
        let mut opts = Options::new(RuleSet::builtin().unwrap());
        opts.keep_texts = true;
        let plan = plan(&Lines, "x", text.to_owned(), &opts, None, &mut |_, _| {}).unwrap();
        let new = plan.new_text.clone().unwrap_or_else(|| text.to_owned());
        (plan, new)
    }

    fn statuses(plan: &Plan) -> Vec<(&str, Status)> {
        plan.actions
            .iter()
            .map(|a| (a.site.view.id.as_str(), a.status))
            .collect()
    }

    #[test]
    fn missing_hints_are_inserted_and_declared_ones_left_alone() {
        let text = "delete_user\nlist_users {readOnlyHint=true}\nget_user =READ_ONLY\ndelete_account {readOnlyHint=true, destructiveHint=false}\n";
        let (plan, new) = run(text);
        assert_eq!(
            statuses(&plan),
            [
                ("delete_user", Status::Added),
                ("list_users", Status::Added),
                ("get_user", Status::Agrees),
                ("delete_account", Status::Conflict),
            ]
        );
        assert_eq!(
            new,
            "delete_user {readOnlyHint=False, destructiveHint=True}\nlist_users {readOnlyHint=true, destructiveHint=False}\nget_user =READ_ONLY\ndelete_account {readOnlyHint=true, destructiveHint=false}\n"
        );
        // The unread annotations are named, never patched over.
        assert!(plan.notes.iter().any(|n| n.message.contains("`READ_ONLY`")));
        // A rerun proposes nothing.
        let (again, same) = run(&new);
        assert!(again.edits.is_empty(), "{:?}", again.edits);
        assert_eq!(same, new);
    }

    #[test]
    fn a_declared_hint_the_evidence_doubts_is_left_as_written() {
        // `log` reads as a write here, at medium, on a record too thin to overrule a
        // person: the author's read-only claim is neither called a conflict nor completed.
        let (plan, new) = run("git_log {readOnlyHint=true}\n");
        assert_eq!(statuses(&plan), [("git_log", Status::Agrees)]);
        assert_eq!(new, "git_log {readOnlyHint=true}\n");
        assert!(plan.actions[0].inference.confident(Confidence::Medium));
    }

    #[test]
    fn a_computed_name_is_named_not_counted() {
        let (plan, new) = run("$tool.name\ndelete_user\n");
        assert_eq!(statuses(&plan), [("delete_user", Status::Added)]);
        assert!(
            plan.notes[0]
                .message
                .contains("a name not read here (`$tool.name`")
        );
        assert_eq!(
            new,
            "$tool.name\ndelete_user {readOnlyHint=False, destructiveHint=True}\n"
        );
    }

    #[test]
    fn a_tool_the_evidence_cannot_classify_gets_nothing() {
        let (plan, new) = run("frobnicate\n");
        assert_eq!(statuses(&plan), [("frobnicate", Status::Unclassified)]);
        assert_eq!(new, "frobnicate\n");
    }

    #[test]
    fn an_edit_that_reads_back_wrong_is_dropped_and_named() {
        struct Broken;
        impl Language for Broken {
            fn name(&self) -> &'static str {
                "broken"
            }
            fn is_server(&self, _: &str) -> bool {
                true
            }
            fn read(&self, text: &str, name: &str) -> Result<Found, Error> {
                let mut found = Lines.read(text, name)?;
                // A slot one byte off: the inserted text lands inside the name.
                for t in &mut found.tools {
                    if let Ok(slot) = &mut t.slot {
                        slot.at = t.start + 1;
                    }
                }
                Ok(found)
            }
        }
        let mut opts = Options::new(RuleSet::builtin().unwrap());
        opts.keep_texts = true;
        let plan = plan(
            &Broken,
            "x",
            "delete_user\n".into(),
            &opts,
            None,
            &mut |_, _| {},
        )
        .unwrap();
        assert!(plan.edits.is_empty());
        assert_eq!(plan.actions[0].status, Status::Unclassified);
        assert!(
            plan.problems[0].message.contains("failed the check"),
            "{:?}",
            plan.problems
        );
    }
}
