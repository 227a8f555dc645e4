//! One file of the run: read, planned by the source that claimed it, and made a result
//! (with its patch and, for the streaming outputs, its CSV rows rendered by the worker).

use std::path::Path;

use crate::error::Error;
use crate::fix::options::Options;
use crate::fix::patch::render_patch;
use crate::outcome::FileResult;

use crate::source::kind::Input;
use crate::source::read_text;
use crate::yaml::Reuse;

use super::names::Names;
use super::spill::{self, Spill};
use super::walk::Work;

/// The `$ref:` values of the file at `path` that name no file beside it: the actions of a
/// partial that is gone were reported "gone" and nothing failed. A reference
/// names a partial by its stem (`$ref: hr.employees` is `hr.employees.s1.partial.yaml`).
/// One that leaves the connector's folder (`../../etc/passwd`, `/etc/hostname`) is refused
/// before anything is looked up: whether such a file exists says nothing of the connector,
/// and the run never reads outside the catalog because a file it reads says so.
fn dangling_refs(path: &Path, refs: &[(String, usize, usize)]) -> Vec<Error> {
    let folder = path.parent().unwrap_or(Path::new("."));
    refs.iter()
        .filter_map(|(name, line, column)| {
            let outside = Path::new(name).is_absolute()
                || name.starts_with(['/', '\\'])
                || name.get(1..2) == Some(":")
                || name.split(['/', '\\']).any(|part| part == "..");
            if outside {
                return Some(
                    Error::new(format!(
                        "`$ref: {name}` leaves the connector's folder: a `$ref` names a partial beside its main file by its stem (`$ref: hr.employees`); move the partial into the folder and name it so"
                    ))
                    .at(*line, *column),
                );
            }
            let candidates = [
                format!("{name}.s1.partial.yaml"),
                format!("{name}.s1.yaml"),
                name.clone(),
            ];
            let found = candidates.iter().any(|c| {
                !c.contains('\0') && folder.join(c).symlink_metadata().is_ok_and(|m| m.is_file())
            });
            (!found).then(|| {
                Error::new(format!(
                    "`$ref: {name}` names no file: {name}.s1.partial.yaml is not in this folder, so its actions are not read"
                ))
                .at(*line, *column)
            })
        })
        .collect()
}

/// Reads, plans and makes the result of one file; its tree is had back from `spill` when
/// an earlier plan of its text kept it there.
pub(super) fn process_file(
    w: &Work,
    names: &Names,
    opts: &Options,
    spill: Option<&Spill>,
) -> FileResult {
    let file = &w.file;
    let mut out = FileResult {
        patch_path: w.patch_path.clone(),
        shown: w.shown.clone(),
        in_repo: w.in_repo,
        ..FileResult::at(w.catalog, &file.rel, &file.folder, &file.path)
    };
    let text = match read_text(&file.path) {
        Ok(t) => t,
        Err(e) => {
            out.error = Some(e.in_file(&w.shown));
            return out;
        }
    };
    let (path, patch) = (&out.patch_path, &mut out.patch);
    let left_alone = opts
        .untouchable
        .get(w.catalog)
        .and_then(|m| crate::git::left_alone(m, &w.patch_path));
    let source = crate::source::of_file(&file.rel);
    let group = names.groups.get(&(w.catalog, file.folder.clone()));
    let plan = spill::with_room(|room| {
        let spilled = spill.is_some_and(|s| s.get(w.place, &text, room));
        let input = Input {
            name: &file.rel,
            left_alone,
            group,
            tree: match spilled {
                true => Reuse::Spilled(room),
                false => Reuse::Parse,
            },
        };
        source.plan(input, text, opts, &mut |old, edits| {
            if opts.render_patch {
                render_patch(path, old, edits, patch);
            }
        })
    });
    let plan = match plan {
        Ok(p) => p,
        Err(e) => {
            out.error = Some(e.in_file(&w.shown));
            return out;
        }
    };
    let refs = dangling_refs(&file.path, &plan.refs);
    out.take_plan(plan, refs, opts);
    names.resolve_connector(&mut out);
    if opts.render_csv {
        out.csv = crate::emit::csv_rows(&out, &opts.rules);
    }
    out
}
