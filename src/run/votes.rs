//! The catalog's evidence: what its actions declare, counted before the votes are taken
//! into the proposals of the actions that declare nothing. A catalog of one chunk is held
//! while the run counts and takes the votes in place; a larger one is planned quietly to be
//! counted, its trees spilled, then planned again with the votes from the spilled trees
//! (docs/performance.md, "Catalog evidence in bounded memory").

use rayon::prelude::*;

use crate::classify::{Inference, catalog};
use crate::effects::Effects;
use crate::fix::options::Options;
use crate::model::edit::Status;
use crate::outcome::{FileResult, RunMeta};
use crate::source::kind::Input;
use crate::source::read_text;
use crate::view::Declared;
use crate::yaml::Reuse;

use super::file::process_file;
use super::names::Names;
use super::schedule::{CHUNK, stream};
use super::spill::Spill;
use super::walk::Work;

/// [`super::Walked::run`] with the catalog's evidence. Every walked file is planned once
/// without it (whatever `only` selects, so each proposal sees the whole catalog) and its
/// declarations counted. A catalog of one chunk, and the first files of a larger one up to
/// `held_actions` ([`crate::fix::options::HELD_ACTIONS`]), have their results held: once
/// the votes are counted, only those a vote changes are planned again. Any other file is
/// planned quietly (nothing rendered, checked or kept), counted and its tree spilled, then
/// planned again with the votes from that tree and streamed as a run without them. Either
/// way the outputs are the same bytes.
pub(super) fn run_voting(
    work: &[Work],
    selected: &[bool],
    names: &Names,
    opts: &Options,
    mut meta: RunMeta,
    mut sink: impl FnMut(&mut FileResult),
) -> RunMeta {
    if let Some(p) = &opts.progress {
        (p.start)(work.len());
    }
    let quiet = quiet(opts);
    let spill = Spill::new();
    let mut counter = catalog::Counter::default();
    // Results of the files before `held_to`; a `--since` run counts every file but holds
    // only the changed ones.
    let mut held: Vec<Option<FileResult>> = Vec::new();
    let (mut held_to, mut actions) = (0, 0);
    for (n, chunk) in work.chunks(CHUNK).enumerate() {
        let base = n * CHUNK;
        let hold = actions < opts.held_actions || work.len() <= CHUNK;
        if !hold && held_to == base {
            // The files from here on are planned twice: the bar takes their second plan in
            // before its first, while it is still drawn.
            if let Some(p) = &opts.progress {
                (p.start)(work.len() + selected[base..].iter().filter(|s| **s).count());
            }
        }
        let planned: Vec<(Counted, Option<FileResult>)> = chunk
            .par_iter()
            .zip(&selected[base..base + chunk.len()])
            .map(|(w, keep)| {
                // A file only counted (past the budget, or not reported) is planned quietly.
                let held = if hold && *keep {
                    let f = process_file(w, names, opts, None);
                    let rows = counted(
                        f.actions
                            .iter()
                            .map(|a| (a.nested, a.status, &a.inference, a.declared.valid())),
                        opts,
                    );
                    (rows, Some(f))
                } else {
                    // Its tree is kept for its second plan, unless it is only counted.
                    let spill = spill.as_ref().filter(|_| *keep);
                    (count_file(w, names, &quiet, spill), None)
                };
                if let Some(p) = &opts.progress {
                    (p.tick)();
                }
                held
            })
            .collect();
        for (w, (counted, f)) in chunk.iter().zip(planned) {
            let connector = format!("{}/{}", w.catalog, w.file.folder);
            for (key, effects, origin) in counted {
                counter.add_key(key, effects, &connector, origin);
            }
            if hold {
                actions += f.as_ref().map_or(0, |f| f.actions.len());
                held.push(f);
            }
        }
        if hold {
            held_to = base + chunk.len();
        }
    }
    let votes = std::sync::Arc::new(counter.finish(catalog::Thresholds::builtin()));
    // A row an action: let go before the files are planned again, not kept through it.
    drop(counter);
    let with = Options {
        votes: Some(votes.clone()),
        ..opts.clone()
    };
    let rest = &selected[held_to..];
    take_votes(&mut held, &work[..held_to], names, &votes, &with);
    for f in held.iter_mut().flatten() {
        meta.files += 1;
        for fired in f.actions.iter().flat_map(|a| &a.inference.fired) {
            meta.rules_used[*fired] = true;
        }
        sink(f);
    }
    drop(held);
    stream(
        &work[held_to..],
        rest,
        names,
        &with,
        meta,
        sink,
        spill.as_ref(),
    )
}

/// The votes taken into results planned without them. A vote that changes what an action
/// will declare (its effects, or whether they are sure enough to patch) changes the file's
/// edits: the file is planned again. One that only changes how sure a proposal is, or
/// nothing, is taken in place, with the file's CSV rows rendered again (the confidence and
/// the reason are in them).
fn take_votes(
    results: &mut [Option<FileResult>],
    work: &[Work],
    names: &Names,
    votes: &catalog::Votes,
    with: &Options,
) {
    let min = with.min_confidence;
    let mut replan = Vec::new();
    for (i, f) in results
        .iter_mut()
        .enumerate()
        .filter_map(|(i, f)| Some((i, f.as_mut()?)))
    {
        let mut changed = false;
        for a in f.actions.iter_mut() {
            if a.declared != Declared::None || !votes.speaks_to(&a.inference) {
                continue;
            }
            let (voted, vote) = votes.apply_to(&a.declared, a.inference.clone());
            if voted.effects != a.inference.effects
                || voted.confident(min) != a.inference.confident(min)
            {
                // Planned again whole: nothing of this plan is kept.
                replan.push(i);
                changed = false;
                break;
            }
            changed |= voted != a.inference || vote != a.vote;
            a.inference = voted;
            a.vote = vote;
        }
        if changed && with.render_csv {
            f.csv = crate::emit::csv_rows(f, &with.rules);
        }
    }
    let again: Vec<(usize, FileResult)> = replan
        .par_iter()
        .map(|&i| (i, process_file(&work[i], names, with, None)))
        .collect();
    for (i, f) in again {
        results[i] = Some(f);
    }
}

/// A file's declarations by key, as the catalog's evidence counts them.
pub(super) type Counted = Vec<(crate::classify::vote::Word, Effects, catalog::Origin)>;

/// What each action (nested, status, the engine's inference, its valid declaration) will
/// declare once this run's patch is applied, by the key of its verb, and where that comes
/// from: the patch adds it (a proposal, or a conflict `--fix-conflicts` rewrites), or it is
/// declared, echoing the engine or not. Nested actions are not tools, and an action with no
/// verb, or that will declare nothing valid, teaches nothing.
pub(super) fn counted<'a>(
    actions: impl Iterator<Item = (bool, Status, &'a Inference, Option<Effects>)>,
    opts: &Options,
) -> Counted {
    actions
        .filter(|(nested, ..)| !nested)
        .filter_map(|(_, status, inf, declared)| {
            let proposed = match status {
                Status::Added => true,
                Status::Conflict => opts.fix_conflicts,
                _ => false,
            };
            // A plain reading the engine doubts is no proposal to vote with: the catalog's
            // declarations settle the doubt (`sync_ledger` over GET beside `sync_*` declared
            // [execute]).
            if proposed && inf.doubt().is_some() {
                return None;
            }
            let (effects, origin) = if proposed {
                (inf.effects, catalog::Origin::Proposed)
            } else {
                let e = declared?;
                (
                    e,
                    catalog::Origin::from_declaration(inf, e, opts.min_confidence),
                )
            };
            Some((catalog::key_of(inf.reading()?)?, effects, origin))
        })
        .collect()
}

/// `opts` for counting: only the decisions are read; nothing is rendered, checked or kept.
pub(super) fn quiet(opts: &Options) -> Options {
    Options {
        check_edits: false,
        render_patch: false,
        render_csv: false,
        keep_views: false,
        keep_texts: false,
        migrate_hints: false,
        progress: None,
        only: None,
        // Kept: a file `--write` leaves alone has its proposals refused, and a refused
        // proposal is not counted, however the file is planned.
        hint_formats: Vec::new(),
        catalog_evidence: false,
        votes: None,
        ..opts.clone()
    }
}

/// The rows a file adds to the catalog's counts, planned quietly: nothing rendered, checked
/// or kept, its results not even made (the actions' plans are all a count reads). Its tree
/// goes to `spill`, for its plan with the votes.
fn count_file(w: &Work, names: &Names, quiet: &Options, spill: Option<&Spill>) -> Counted {
    let Ok(text) = read_text(&w.file.path) else {
        return Counted::new();
    };
    // The text goes to the plan, which may edit it in place: the spill keeps its digest.
    let kept = spill.map(|_| (text.len(), super::spill::digest(&text)));
    let plan = super::spill::with_room(|tree| {
        let input = Input {
            name: &w.file.rel,
            left_alone: quiet
                .untouchable
                .get(w.catalog)
                .and_then(|m| crate::git::left_alone(m, &w.patch_path)),
            group: names.groups.get(&(w.catalog, w.file.folder.clone())),
            tree: match spill {
                Some(_) => Reuse::Spill(tree),
                None => Reuse::Parse,
            },
        };
        let plan = crate::source::of_file(&w.file.rel).plan(input, text, quiet, &mut |_, _| {});
        if let (Ok(_), Some(spill), Some(text)) = (&plan, spill, kept) {
            spill.put(w.place, text, tree);
        }
        plan
    });
    let Ok(plan) = plan else {
        return Counted::new();
    };
    counted(
        plan.actions.iter().map(|a| {
            let declared = a.site.view.declared.valid();
            (a.site.nested, a.status, &a.inference, declared)
        }),
        quiet,
    )
}
