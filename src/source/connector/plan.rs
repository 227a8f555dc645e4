//! A connector file planned: its actions read from the tree and decided as they come, each
//! one's `effects` edit and hint removals planned, and an edit held back where another
//! action would inherit it through a merge.

use std::collections::BTreeMap;

use crate::classify::{Group, Inference};
use crate::error::Error;
use crate::fix::options::Options;
use crate::fix::plan::{HintRole, Plan, Planned, decide, status};
use crate::model::edit::{Edit, Status};
use crate::yaml::tree::Tree;

use super::edit::{plan_insert, plan_rewrite};
use super::hints::plan_migration;
use super::read::{Layout, ParsedFile, read_actions, tree_key};

/// Plans a parsed file: reads its actions, classifies each as it is read (letting go of
/// the text only rules read, unless `keep_views`), and plans the edits.
pub(super) fn plan_tree(
    tree: &Tree,
    opts: &Options,
    keep_views: bool,
    connector: Option<&Group>,
) -> Result<Plan, Error> {
    let mut group = connector.cloned();
    let mut actions = Vec::new();
    let (facts, mut notes) = plan_actions(
        tree,
        opts,
        Decide::Classify(&mut group),
        &mut |mut p, layout| {
            // Sized once: a plan grown by doubling leaves its outgrown buffers with the
            // allocator, resident, for the rest of a large file's run.
            if actions.is_empty() {
                actions.reserve_exact(layout.items + 1);
            }
            if !keep_views {
                p.site.view.description = None;
                p.site.view.details = None;
                p.site.view.inputs = Vec::new();
                p.site.view.required = Vec::new();
            }
            actions.push(p);
        },
    )?;
    let edited: Vec<bool> = actions.iter().map(|p| p.edit.is_some()).collect();
    let own: Vec<bool> = actions
        .iter()
        .map(|p| p.edit.is_some() && p.status == Status::Added)
        .collect();
    for (source, heir) in held_back(&edited, &own, &facts.inheritance) {
        let heir_id = actions[heir].site.view.id.clone();
        notes.push(actions[source].refuse(&format!(
            "`{heir_id}` merges it (`<<`) and would inherit its effects; declare both by hand"
        )));
    }
    let mut edits: Vec<Edit> = actions.iter().flat_map(|p| p.edits()).cloned().collect();
    // Each action's edits lie in its own mapping and never overlap: (start, end, mapping)
    // orders them fully, so the unstable sort is exact, without the stable one's scratch
    // copy.
    edits.sort_unstable_by_key(Edit::order);
    Ok(Plan {
        shape: facts.shape,
        group: group.unwrap_or_default(),
        key_written: facts.info_key.is_some(),
        info_key: facts.info_key,
        info_title: facts.info_title,
        problems: facts.problems,
        notes,
        actions,
        edits,
        new_text: None,
        refs: facts.refs,
        repeats: facts.repeats,
        silences: crate::text::file_silences(tree.text()),
        inserted: Vec::new(),
    })
}

/// How [`plan_actions`] decides each action's effects.
pub(super) enum Decide<'a> {
    /// Classify it, its name read among the file's names (their group, set from the
    /// first action's [`Layout`]).
    Classify(&'a mut Option<Group>),
    /// Take the decision of a plan of the same data: only what the edits need is read.
    Known(&'a [Planned]),
}

/// Reads, decides and plans each action of a parsed file, handing it to `each` at once;
/// returns what the file says besides its actions, and the notes on edits not made.
pub(super) fn plan_actions(
    tree: &Tree,
    opts: &Options,
    mut how: Decide,
    each: &mut dyn FnMut(Planned, Layout<'_>),
) -> Result<(ParsedFile, Vec<Error>), Error> {
    let text = tree.text();
    let mut notes = Vec::new();
    let mut k = 0;
    let full = matches!(how, Decide::Classify(_));
    let mut facts = read_actions(tree, full, &mut |site, layout| {
        let (inference, vote) = match &mut how {
            // A doubt settled by a declaration decides the status too (it agrees, no
            // conflict): without it, the action declaring what the doubt said would be a
            // conflict in the edited text alone, and `--fix-conflicts` would plan a rewrite
            // there that the first plan never made.
            Decide::Known(plan) => {
                let inference = plan.get(k).map_or_else(Inference::default, |p| {
                    let doubt = p.inference.doubt().is_some();
                    Inference {
                        effects: p.inference.effects,
                        confidence: p.inference.confidence,
                        overwrites: p.inference.overwrites,
                        decision: doubt.then(|| p.inference.decision.clone()).flatten(),
                        overruled: doubt.then(|| p.inference.overruled.clone()).flatten(),
                        ..Inference::default()
                    }
                });
                (inference, None)
            }
            Decide::Classify(group) => {
                let group = group.get_or_insert_with(|| {
                    Group::learn_connector(
                        layout
                            .names
                            .iter()
                            .copied()
                            .zip(layout.methods.iter().copied()),
                        tree_key(tree),
                        &opts.rules.lexicon,
                    )
                });
                decide(&site.view, group, opts, HintRole::Evidence)
            }
        };
        k += 1;
        let status = status(
            &site.view.declared,
            site.nested,
            &inference,
            opts.min_confidence,
        );
        let planned = match status {
            Status::Added => Some(plan_insert(
                text,
                &site,
                site.seq_offset.unwrap_or(layout.seq_offset),
                inference.effects,
            )),
            Status::Conflict if opts.fix_conflicts => site
                .effects
                .as_ref()
                .map(|e| plan_rewrite(text, e, site.map_start, inference.effects)),
            _ => None,
        };
        let (edit, why) = match planned {
            Some(Ok(edit)) => (Some(edit), None),
            Some(Err(why)) => (None, Some(why)),
            None => (None, None),
        };
        let mut p = Planned {
            site,
            inference,
            vote,
            status,
            edit,
            hints: None,
            more: Vec::new(),
        };
        if let Some(why) = why {
            notes.push(p.refuse(&format!("{why}; declare its effects by hand")));
        }
        p.judge_hints(opts);
        plan_migration(&mut p, text, opts, &mut notes);
        each(p, layout);
    })?;
    let mut all = std::mem::take(&mut facts.notes);
    all.extend(notes);
    Ok((facts, all))
}

/// An action whose mapping another action merges (`<<: *it`) passes its `effects` on: an
/// edit there would make the inheritor declare effects nobody proposed for it. So the edit
/// is held back (and the action listed for a human) unless every inheritor gets its own.
/// Returns the (action, inheritor) pairs to hold back, given which actions have an edit and
/// which have an added one of their own.
pub(super) fn held_back(
    edited: &[bool],
    own: &[bool],
    inheritance: &[(usize, usize)],
) -> Vec<(usize, usize)> {
    let mut first = BTreeMap::new();
    for &(source, heir) in inheritance {
        if edited[source] && !own[heir] {
            first.entry(source).or_insert(heir);
        }
    }
    first.into_iter().collect()
}
