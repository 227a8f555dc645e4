//! Fix: one path for the edits of any source. A source reads its file, decides each action
//! ([`plan::decide`]) and plans its edits in its own syntax; from there every file goes the
//! same way: left alone when no route may edit it ([`leave_alone`]), every edit checked by
//! the source that planned it ([`EditCheck`]), the edits that fail found and dropped by one
//! salvage, then the patch rendered ([`patch`]) and the edited text kept where a route
//! writes it ([`finish`]).

pub mod apply;
pub mod options;
pub mod patch;
pub mod plan;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use crate::error::Error;
use crate::model::edit::Edit;
use options::Options;
use plan::Plan;

/// How a source checks the edits it planned: the edited text must read back as the
/// original's data plus exactly the planned edits, and plan nothing more.
pub trait EditCheck {
    /// Checks every edit of `plan` on `text`, which it may take to edit in place: gives the
    /// text back as it was, with the edited text when the check built one worth keeping,
    /// or why the edits fail together.
    fn all<'t>(
        &mut self,
        text: Cow<'t, str>,
        plan: &Plan,
    ) -> (Cow<'t, str>, Result<Option<String>, String>);

    /// A check of some of `plan`'s edits at a time (sorted, whole actions), for the slow
    /// path: what it needs of `text` is read once, then each call checks one set and
    /// returns the edited text.
    fn each<'a>(&'a self, text: &'a str, plan: &'a Plan) -> Result<EachCheck<'a>, Error>;
}

/// One set of edits checked at a time ([`EditCheck::each`]).
pub type EachCheck<'a> = Box<dyn Fn(&[Edit]) -> Result<String, String> + 'a>;

/// Whether [`finish`] checks the plan's edits: only edits that may leave the run are
/// checked (`check`, `lint` and `annotations` only count and read the actions).
pub fn checks(plan: &Plan, opts: &Options) -> bool {
    !plan.edits.is_empty() && opts.check_edits
}

/// Leaves every edit of a file out when no route may edit it (`why`, when none may: a file
/// with uncommitted changes that `--write` must not touch): its proposals are listed for
/// a human instead.
pub fn leave_alone(plan: &mut Plan, why: Option<&str>) {
    let Some(why) = why.filter(|_| !plan.edits.is_empty()) else {
        return;
    };
    let mut refused = 0;
    for a in plan
        .actions
        .iter_mut()
        .filter(|a| a.edit.is_some() || !a.more.is_empty())
    {
        a.refuse(why);
        refused += 1;
    }
    plan.edits.clear();
    plan.inserted.clear();
    plan.notes.push(Error::new(format!(
        "not edited: {why}; its {} listed for a human instead",
        crate::text::plural(refused, "proposal")
    )));
}

/// The rest of a file's path once its source planned it: every edit checked (`check`, given
/// whenever [`checks`] says so), the failing ones dropped with why, the patch rendered
/// (`render` sees the original with the edits that passed) and, with `keep_texts`, the
/// edited text kept. An owned `text` becomes the edited text in place while a source's
/// check reads it: one large file is not held twice.
pub fn finish(
    text: Cow<'_, str>,
    mut plan: Plan,
    opts: &Options,
    check: Option<&mut dyn EditCheck>,
    render: &mut dyn FnMut(&str, &[Edit]),
) -> Result<Plan, Error> {
    let Some(check) = check.filter(|_| checks(&plan, opts)) else {
        render(&text, &plan.edits);
        plan.new_text =
            (opts.keep_texts && !plan.edits.is_empty()).then(|| apply::apply(&text, &plan.edits));
        return Ok(plan);
    };
    let (old, checked) = check.all(text, &plan);
    match checked {
        Ok(new) => plan.new_text = new.filter(|_| opts.keep_texts),
        Err(why) => salvage(&old, &mut plan, opts, &why, check)?,
    }
    render(&old, &plan.edits);
    // Edited again in the same buffer rather than kept beside the original: one large
    // file is not held twice (a rewrite by --fix-conflicts still copies it).
    if plan.new_text.is_none() && opts.keep_texts && !plan.edits.is_empty() {
        plan.new_text = Some(match old {
            Cow::Owned(old) => apply::apply_owned(old, &plan.edits),
            Cow::Borrowed(old) => apply::apply(old, &plan.edits),
        });
    }
    Ok(plan)
}

/// Checks at most this many subsets of a file's edits to find those that fail: a file
/// whose every edit fails would otherwise be parsed once per edit.
const MAX_CHECKS: usize = 64;

/// The slow path, taken only when the file's edits failed their check together: finds the
/// edits that fail (halving the set), drops them, and reports each of their actions with
/// why. The others are checked once more together and kept.
fn salvage(
    text: &str,
    plan: &mut Plan,
    opts: &Options,
    why: &str,
    check: &dyn EditCheck,
) -> Result<(), Error> {
    let checks = std::cell::Cell::new(0);
    let each = check.each(text, plan)?;
    let check = |edits: &[Edit]| -> Result<String, String> {
        checks.set(checks.get() + 1);
        if checks.get() > MAX_CHECKS {
            return Err("too many of the file's edits failed their check".into());
        }
        each(edits)
    };
    // An action's edits go together: its hints are removed only beside the effects that
    // make them redundant, and an operation's hints beside its `x-effects`.
    let mut units: BTreeMap<usize, Vec<Edit>> = BTreeMap::new();
    for e in &plan.edits {
        units.entry(e.map).or_default().push(e.clone());
    }
    let flat = |set: &[Vec<Edit>]| -> Vec<Edit> {
        let mut edits: Vec<Edit> = set.iter().flatten().cloned().collect();
        edits.sort_unstable_by_key(Edit::order);
        edits
    };
    let mut failed: Vec<(usize, String)> = Vec::new();
    let mut pending = vec![units.into_values().collect::<Vec<_>>()];
    while let Some(set) = pending.pop() {
        match check(&flat(&set)) {
            Ok(_) => {}
            Err(e) if set.len() == 1 || checks.get() >= MAX_CHECKS => {
                failed.extend(set.iter().map(|unit| (unit[0].map, e.clone())));
            }
            Err(_) => {
                let (a, b) = set.split_at(set.len() / 2);
                pending.push(b.to_vec());
                pending.push(a.to_vec());
            }
        }
    }
    if failed.is_empty() {
        // Each part passes alone, not all together.
        failed = plan.edits.iter().map(|e| (e.map, why.to_owned())).collect();
    }
    let failing: BTreeSet<usize> = failed.iter().map(|(m, _)| *m).collect();
    let mut kept: Vec<Edit> = plan
        .edits
        .iter()
        .filter(|e| !failing.contains(&e.map))
        .cloned()
        .collect();
    let together = if kept.is_empty() {
        Ok(None)
    } else {
        check(&kept).map(Some)
    };
    drop(each);
    let new = match together {
        Ok(new) => new,
        Err(e) => {
            failed.extend(kept.drain(..).map(|edit| (edit.map, e.clone())));
            None
        }
    };
    let why_at: BTreeMap<usize, String> = failed.into_iter().collect();
    for p in &mut plan.actions {
        let Some(why) = why_at
            .get(&p.site.map_start)
            .filter(|_| p.edits().next().is_some())
        else {
            continue;
        };
        let why = if p.edit.is_some() || !p.more.is_empty() {
            format!("its edit failed the check before writing ({why}); declare its effects by hand")
        } else {
            format!("their removal failed the check before writing ({why}); remove them by hand")
        };
        plan.problems.push(p.refuse(&why));
    }
    plan.inserted.retain(|i| !why_at.contains_key(&i.map));
    plan.edits = kept;
    plan.new_text = new.filter(|_| opts.keep_texts);
    Ok(())
}
