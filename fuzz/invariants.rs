//! The invariants of the locate-and-edit path, shared by the cargo-fuzz target
//! (`fuzz/fuzz_targets/locate_and_edit.rs`) and the seeded property test
//! (`tests/fuzz_props.rs`), so both check exactly the same thing.
//!
//! For any text: planning never panics. For any text that plans (parses):
//! 1. every edit is an insertion (no `--fix-conflicts` here), in bounds, on a character
//!    boundary, sorted and not overlapping;
//! 2. removing the inserted byte ranges from the edited text gives back the original, byte
//!    for byte;
//! 3. the edited text parses, and its YAML event stream is the original's with, at each
//!    insertion, exactly `effects: [<the planned effects>]` (key, sequence, one plain scalar
//!    per effect) and nothing else: the data equals the original plus the `effects` keys;
//! 4. planning the edited text again yields no edits, the same actions in the same order,
//!    each edited action now declaring what was planned and every other declaration
//!    unchanged, and the same number of problems and notes;
//! 5. every route gets those bytes: the edited text the plan hands to `--write` and
//!    `--branch` is exactly the original with the edits applied, and the patch rendered
//!    from the plan, applied strictly line by line, gives it too (the patch and
//!    branch routes used to go unchecked). `tests/edit_properties.rs` commits generated
//!    files with `--branch` and compares the tree with what `git apply` and `git add`
//!    make, which covers git's filters.
//!
//! The options must keep texts (`keep_texts`), so the plan carries the edited text.

// The size rule is the library's: each invariant is checked in one place, top to bottom.
#![allow(clippy::too_many_lines)]

use catalog_effects::fix::apply;
use catalog_effects::fix::options::Options;
use catalog_effects::model::edit::Status;
use catalog_effects::run;
use catalog_effects::view::Declared;
use saphyr_parser::{Event, Parser, ScalarStyle};

// The includer provides the oracle at its root (`fuzz/unified.rs`).
use crate::unified;

/// What one check found: whether the input planned, and how many edits it had.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outcome {
    pub parsed: bool,
    pub edits: usize,
}

/// Checks every invariant on `text`; `Err` describes the first one violated.
pub fn check(text: &str, opts: &Options) -> Result<Outcome, String> {
    let Ok(plan) = run::plan(text, opts) else {
        return Ok(Outcome::default());
    };
    // An edit the planner made and its own check refused is a planner bug: safe (nothing is
    // emitted) but a finding all the same.
    if let Some(p) = plan
        .problems
        .iter()
        .find(|p| p.message.contains("failed the check"))
    {
        return Err(format!("the planner made an edit its check refused: {p}"));
    }

    // 1. Insertions only, in order, in bounds.
    let mut prev = 0;
    for e in &plan.edits {
        if e.start != e.end {
            return Err(format!("edit {}..{} replaces text", e.start, e.end));
        }
        if e.start < prev || e.start > text.len() || !text.is_char_boundary(e.start) {
            return Err(format!("edit at {} is out of order or bounds", e.start));
        }
        prev = e.start;
    }
    let new = apply::apply(text, &plan.edits);

    // 5. Every route gets these bytes.
    let handed = plan.new_text.as_deref().unwrap_or(text);
    if handed != new {
        return Err(
            "the edited text handed to --write and --branch is not the planned edit".into(),
        );
    }
    if !plan.edits.is_empty() {
        let mut patch = String::new();
        catalog_effects::fix::patch::render_patch("f.yaml", text, &plan.edits, &mut patch);
        match unified::apply_unified(text, &patch) {
            Ok(applied) if applied == new => {}
            Ok(_) => return Err(format!("the patch gives another text:\n{patch}")),
            Err(e) => return Err(format!("the patch does not apply ({e}):\n{patch}")),
        }
    }

    // 2. Removing the inserted ranges restores the original.
    let mut inserted = Vec::with_capacity(plan.edits.len());
    let mut restored = String::with_capacity(text.len());
    let (mut pos, mut shift) = (0, 0);
    for e in &plan.edits {
        let at = e.start + shift;
        restored.push_str(&new[pos..at]);
        inserted.push(at..at + e.text.len());
        pos = at + e.text.len();
        shift += e.text.len();
    }
    restored.push_str(&new[pos..]);
    if restored != text {
        return Err("removing the inserted text does not restore the original".into());
    }

    // 3. Same data plus the `effects` keys.
    let planned: Vec<_> = {
        let mut p: Vec<_> = plan
            .actions
            .iter()
            .filter_map(|a| a.edit.as_ref().map(|e| (e.start, a.inference.effects)))
            .collect();
        p.sort_by_key(|(at, _)| *at);
        p.into_iter().map(|(_, e)| e).collect::<Vec<_>>()
    };
    let old_events =
        events(text).map_err(|e| format!("the original plans but does not scan: {e}"))?;
    let new_events = events(&new).map_err(|e| format!("the edited text does not parse: {e}"))?;
    let mut kept = Vec::with_capacity(old_events.len());
    let mut added: Vec<Vec<Event>> = Vec::new();
    let mut depth = 0usize;
    for (ev, start) in new_events {
        let in_insert = inserted.iter().position(|r| r.contains(&start));
        if depth > 0 {
            // Inside an inserted sequence: its end may sit past the range (block lists end
            // at the next token).
            match &ev {
                Event::SequenceStart(..) | Event::MappingStart(..) => depth += 1,
                Event::SequenceEnd | Event::MappingEnd => depth -= 1,
                _ => {}
            }
            if let Some(last) = added.last_mut() {
                last.push(ev);
            }
            continue;
        }
        match in_insert {
            Some(_) => {
                if matches!(ev, Event::Scalar(..)) {
                    added.push(vec![ev]);
                } else if let Event::SequenceStart(..) = ev {
                    depth = 1;
                    match added.last_mut() {
                        Some(last) => last.push(ev),
                        None => return Err("inserted text starts with a sequence".into()),
                    }
                } else {
                    return Err(format!("unexpected event {ev:?} inside an insertion"));
                }
            }
            None => kept.push(ev),
        }
    }
    let old_only: Vec<Event> = old_events.into_iter().map(|(e, _)| e).collect();
    if kept != old_only {
        let at = kept
            .iter()
            .zip(&old_only)
            .position(|(a, b)| a != b)
            .unwrap_or(kept.len().min(old_only.len()));
        return Err(format!(
            "the edited text's data differs from the original's outside the insertions (event {at}: {:?} vs {:?})",
            kept.get(at),
            old_only.get(at)
        ));
    }
    if added.len() != planned.len() {
        return Err(format!(
            "{} insertion(s) parse as {} key(s)",
            planned.len(),
            added.len()
        ));
    }
    for (evs, effects) in added.iter().zip(&planned) {
        let mut want = vec![plain("effects"), Event::SequenceStart(0, None)];
        want.extend(effects.iter().map(|e| plain(&e.to_string())));
        want.push(Event::SequenceEnd);
        if *evs != want {
            return Err(format!(
                "an insertion parses as {evs:?}, not effects: [{}]",
                effects.joined(", ")
            ));
        }
    }

    // 4. A second plan is silent and sees the same actions.
    let again = run::plan(&new, opts).map_err(|e| format!("the edited text does not plan: {e}"))?;
    if !again.edits.is_empty() {
        return Err(format!(
            "planning again gives {} edit(s)",
            again.edits.len()
        ));
    }
    if again.actions.len() != plan.actions.len() {
        return Err(format!(
            "{} action(s) before, {} after",
            plan.actions.len(),
            again.actions.len()
        ));
    }
    for (before, after) in plan.actions.iter().zip(&again.actions) {
        let (b, a) = (&before.site, &after.site);
        if b.view.id != a.view.id || b.nested != a.nested {
            return Err(format!("action `{}` became `{}`", b.view.id, a.view.id));
        }
        let want = match &before.edit {
            Some(_) => Declared::Valid(before.inference.effects),
            None => b.view.declared.clone(),
        };
        if a.view.declared != want {
            // Fuzzer crash c498ff32 was this: an action merging (`<<: *base`) an edited
            // action inherited the inserted effects. `run::plan` now holds such edits
            // back, so any inheritance here is a violation like any other.
            return Err(format!(
                "action `{}` declares {:?} after the edit, expected {want:?}",
                a.view.id, a.view.declared
            ));
        }
        if before.edit.is_some() && after.status != Status::Agrees {
            return Err(format!(
                "action `{}` is {} after the edit",
                a.view.id,
                after.status.name()
            ));
        }
    }
    if again.problems.len() != plan.problems.len() || again.notes.len() != plan.notes.len() {
        return Err("the edit changed the problems or notes of the file".into());
    }
    Ok(Outcome {
        parsed: true,
        edits: plan.edits.len(),
    })
}

fn plain(s: &str) -> Event<'static> {
    Event::Scalar(s.to_owned().into(), ScalarStyle::Plain, 0, None)
}

/// The event stream of `text`, each event with the byte offset where it starts.
fn events(text: &str) -> Result<Vec<(Event<'static>, usize)>, String> {
    // saphyr counts characters: convert to bytes.
    let starts: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
    let byte = |c: usize| starts.get(c).copied().unwrap_or(text.len());
    let mut out = Vec::new();
    for item in Parser::new_from_str(text) {
        let (ev, span) = item.map_err(|e| e.to_string())?;
        let owned = match ev {
            Event::Scalar(v, s, a, t) => Event::Scalar(
                v.into_owned().into(),
                s,
                a,
                t.map(|t| std::borrow::Cow::Owned(t.into_owned())),
            ),
            Event::SequenceStart(a, t) => {
                Event::SequenceStart(a, t.map(|t| std::borrow::Cow::Owned(t.into_owned())))
            }
            Event::MappingStart(a, t) => {
                Event::MappingStart(a, t.map(|t| std::borrow::Cow::Owned(t.into_owned())))
            }
            Event::Nothing => Event::Nothing,
            Event::StreamStart => Event::StreamStart,
            Event::StreamEnd => Event::StreamEnd,
            Event::DocumentStart(b) => Event::DocumentStart(b),
            Event::DocumentEnd => Event::DocumentEnd,
            Event::Alias(a) => Event::Alias(a),
            Event::SequenceEnd => Event::SequenceEnd,
            Event::MappingEnd => Event::MappingEnd,
        };
        out.push((owned, byte(span.start.index())));
    }
    Ok(out)
}
