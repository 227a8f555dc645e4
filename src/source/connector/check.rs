//! The check of a connector file's edits: the edited text must parse, hold the
//! original's data plus exactly the planned `effects` and hint removals (by digest), and
//! planning it again must find the same actions and problems, each edited action declaring
//! what was planned, and propose nothing but the edits left out.

use std::borrow::Cow;

use crate::fix::apply::{apply, apply_owned, unapply_owned};
use crate::fix::options::Options;
use crate::fix::plan::{Plan, Planned};
use crate::fix::{EachCheck, EditCheck};
use crate::model::edit::{Edit, Status};
use crate::view::Declared;
use crate::yaml::tree::Storage;
use crate::yaml::{parse_tree, parse_tree_in};

use super::plan::{Decide, held_back, plan_actions};
use super::verify::{Digest, edited, original};

/// What the check of every edit needs of the original once its tree is gone: the digest
/// (or why there is none) and the tree's storage, for the edited text's tree.
pub(super) struct Checker<'o> {
    pub digest: Result<Digest, String>,
    pub storage: Option<Storage>,
    pub opts: &'o Options,
}

impl EditCheck for Checker<'_> {
    /// The text becomes the edited text in place, is checked, and becomes the original
    /// again: the patch is rendered from it, and a kept edited text made again in the same
    /// buffer.
    fn all<'t>(
        &mut self,
        text: Cow<'t, str>,
        plan: &Plan,
    ) -> (Cow<'t, str>, Result<Option<String>, String>) {
        let new = apply_owned(text.into_owned(), &plan.edits);
        let storage = self.storage.take().unwrap_or_default();
        let checked = self
            .digest
            .clone()
            .and_then(|d| check_new(&new, d, &plan.edits, plan, self.opts, storage));
        let old = unapply_owned(new, &plan.edits);
        (Cow::Owned(old), checked.map(|()| None))
    }

    fn each<'a>(
        &'a self,
        text: &'a str,
        plan: &'a Plan,
    ) -> Result<EachCheck<'a>, crate::error::Error> {
        let tree = parse_tree(text)?;
        let opts = self.opts;
        Ok(Box::new(move |edits: &[Edit]| {
            let digest = original(&tree, edits)?;
            check_edited(text, digest, edits, plan, opts)
        }))
    }
}

/// Checks `edits` (a subset of what `planned` planned, sorted) applied to `text`: the
/// edited text parses, its digest equals the original's `digest` (same data, in the same
/// places, plus exactly the planned `effects`), and planning it again finds the same
/// actions and problems, each edited action declaring what was planned, and proposes
/// nothing but the edits left out. Returns the edited text.
pub(super) fn check_edited(
    text: &str,
    digest: Digest,
    edits: &[Edit],
    planned: &Plan,
    opts: &Options,
) -> Result<String, String> {
    let new = apply(text, edits);
    check_new(&new, digest, edits, planned, opts, Default::default())?;
    Ok(new)
}

/// [`check_edited`] on the edited text itself. The second plan is checked action by action
/// as it is read and kept no further: one large file does not hold two plans.
pub(super) fn check_new(
    new: &str,
    digest: Digest,
    edits: &[Edit],
    planned: &Plan,
    opts: &Options,
    storage: Storage,
) -> Result<(), String> {
    let tree =
        parse_tree_in(new, storage).map_err(|e| format!("the edited text does not parse: {e}"))?;
    if edited(&tree, edits)? != digest {
        return Err("the edited text's data differs from the original's".into());
    }
    let actions = &planned.actions;
    let has = |e: &Edit| {
        edits
            .binary_search_by_key(&e.order(), Edit::order)
            .is_ok_and(|i| edits[i] == *e)
    };
    fn applied(before: &Planned, has: impl Fn(&Edit) -> bool) -> Option<&Edit> {
        before.edit.as_ref().filter(|e| has(e))
    }
    let (mut edited, mut own) = (
        Vec::with_capacity(actions.len()),
        Vec::with_capacity(actions.len()),
    );
    let mut failure = None;
    // The digests are equal: the actions hold the same data, so each keeps the decision
    // the first plan made; what is planned again is where and what to edit.
    let (facts, _) = plan_actions(&tree, opts, Decide::Known(actions), &mut |after, _| {
        let Some(before) = actions.get(edited.len()) else {
            failure.get_or_insert_with(|| "the edited text holds more actions".to_owned());
            return;
        };
        let id = &before.site.view.id;
        let want = match applied(before, has) {
            Some(e) => Declared::Valid(e.effects),
            None => before.site.view.declared.clone(),
        };
        if *id != after.site.view.id || before.site.nested != after.site.nested {
            failure.get_or_insert_with(|| format!("action `{id}` moved or changed its id"));
        } else if after.site.view.declared != want {
            failure.get_or_insert_with(|| {
                format!("action `{id}` does not declare the planned effects after the edit")
            });
        } else if let Some(why) = hints_after(before, &after, has) {
            failure.get_or_insert_with(|| format!("action `{id}`: {why}"));
        }
        edited.push(after.edit.is_some());
        own.push(after.edit.is_some() && after.status == Status::Added);
    })
    .map_err(|e| format!("the edited text does not plan: {e}"))?;
    if let Some(f) = failure {
        return Err(f);
    }
    if edited.len() != actions.len() {
        return Err("the edited text holds fewer actions".into());
    }
    let held: std::collections::BTreeSet<usize> = held_back(&edited, &own, &facts.inheritance)
        .into_iter()
        .map(|(source, _)| source)
        .collect();
    for (i, before) in actions.iter().enumerate() {
        // What the second plan proposes must be exactly what was left out.
        let proposes = edited[i] && !held.contains(&i);
        if proposes != (before.edit.is_some() && applied(before, has).is_none()) {
            return Err(format!(
                "planning the edited text again gives another edit for `{}`",
                before.site.view.id
            ));
        }
    }
    if facts.problems.len() != planned.problems.len() {
        return Err("the edit changed the problems of the file".into());
    }
    Ok(())
}

/// What is wrong with an action's annotations in the edited text, if anything: with its
/// removals applied, they must hold exactly what was left and plan no further removal;
/// without them, what they held and the same removals again.
fn hints_after(before: &Planned, after: &Planned, has: impl Fn(&Edit) -> bool) -> Option<String> {
    let planned: &[Edit] = before.hints.as_ref().map_or(&[], |h| &h.edits);
    let again: &[Edit] = after.hints.as_ref().map_or(&[], |h| &h.edits);
    let removes = |edits: &[Edit]| edits.iter().fold(0, |m, e| m | e.removes);
    let (want, again_ok) = if !planned.is_empty() && planned.iter().all(&has) {
        let h = before.hints.as_ref()?;
        let left = before
            .site
            .view
            .annotations
            .as_ref()
            .and_then(|a| h.remainder(a));
        (left, again.is_empty())
    } else {
        (
            before.site.view.annotations.clone(),
            removes(again) == removes(planned),
        )
    };
    if after.site.view.annotations != want {
        return Some("its annotations after the edit are not what was planned".into());
    }
    (!again_ok).then(|| "planning the edited text again removes other hints".into())
}
