//! The connectors' names, read before the run so results can be streamed in path order: the
//! `info.key` of the main file beside each folder's partials, and the names of all of a
//! connector's files, read alike however it is split into files.

use std::collections::BTreeMap;

use rayon::prelude::*;

use crate::classify::Group;
use crate::error::Error;
use crate::outcome::{Catalog, FileResult};
use crate::source::connector::is_connector_file;
use crate::source::connector::read::{info_key, scan_calls};

use super::walk::CatalogFile;
use super::walk::Work;
use crate::source::read_text;

/// The connector of each folder in `folders`: `info.key` of the main file that sits beside
/// its partials (`*.connector.s1.yaml` first, then any other non-partial file with an
/// `info`), read before the run so results can be streamed in path order.
pub(super) fn connector_names(
    catalogs: &[Catalog],
    work: &[Work],
    folders: &std::collections::BTreeSet<(usize, &str)>,
    lexicon: &crate::classify::Lexicon,
) -> Names {
    let candidates: Vec<(usize, &CatalogFile)> = work
        .iter()
        .filter(|w| {
            !w.file.rel.ends_with(".s1.partial.yaml")
                && folders.contains(&(w.catalog, w.file.folder.as_str()))
        })
        .map(|w| (w.catalog, &w.file))
        .collect();
    let found: Vec<(usize, &CatalogFile, String)> = candidates
        .par_iter()
        .filter_map(|(i, f)| {
            let text = read_text(&f.path).ok()?;
            let key = info_key(&text)?;
            Some((*i, *f, key))
        })
        .collect();
    let mut mains: BTreeMap<(usize, String), (String, String)> = BTreeMap::new();
    let mut every: BTreeMap<(usize, String), Vec<String>> = BTreeMap::new();
    for (i, f, key) in found {
        let slot = (i, f.folder.clone());
        every.entry(slot.clone()).or_default().push(f.rel.clone());
        if f.rel.ends_with(".connector.s1.yaml") || !mains.contains_key(&slot) {
            mains.insert(slot, (key, f.rel.clone()));
        }
    }
    // Two main files beside one partial: which connector it belongs to is a guess.
    every.retain(|_, files| files.len() > 1);
    let groups = connector_groups(work, folders, &every, &mains, lexicon);
    let roots = catalogs
        .iter()
        .map(|c| {
            c.root
                .canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "catalog".to_owned())
        })
        .collect();
    Names {
        mains,
        roots,
        ambiguous: every,
        groups,
    }
}

/// An action's name and the method of its last call, as written.
type Call = (String, Option<String>);

/// The group of each connector split into a main file and partials: the names of all its
/// files, read before the run, so its actions are read alike however they are split
/// (a partial whose names all open with `get_` took it for a service prefix).
/// A folder with two main files is left to each file's own names.
fn connector_groups(
    work: &[Work],
    folders: &std::collections::BTreeSet<(usize, &str)>,
    ambiguous: &BTreeMap<(usize, String), Vec<String>>,
    mains: &BTreeMap<(usize, String), (String, String)>,
    lexicon: &crate::classify::Lexicon,
) -> BTreeMap<(usize, String), Group> {
    let files: Vec<&Work> = work
        .iter()
        .filter(|w| {
            is_connector_file(&w.file.rel)
                && folders.contains(&(w.catalog, w.file.folder.as_str()))
                && !ambiguous.contains_key(&(w.catalog, w.file.folder.clone()))
        })
        .collect();
    let read: Vec<(usize, &str, Vec<Call>)> = files
        .par_iter()
        .map(|w| {
            let calls = read_text(&w.file.path)
                .map(|text| {
                    scan_calls(&text)
                        .into_iter()
                        .map(|(n, m)| (n.to_owned(), m.map(str::to_owned)))
                        .collect()
                })
                .unwrap_or_default();
            (w.catalog, w.file.folder.as_str(), calls)
        })
        .collect();
    let mut by: BTreeMap<(usize, String), Vec<Call>> = BTreeMap::new();
    for (catalog, folder, calls) in read {
        by.entry((catalog, folder.to_owned()))
            .or_default()
            .extend(calls);
    }
    by.into_iter()
        .map(|(k, calls)| {
            let key = mains.get(&k).map(|(key, _)| key.as_str());
            let g = Group::learn_connector(
                calls.iter().map(|(n, m)| (n.as_str(), m.as_deref())),
                key,
                lexicon,
            );
            (k, g)
        })
        .collect()
}

/// Connector names known before the run.
pub(super) struct Names {
    /// (catalog, folder) to the main file's `info.key` and path.
    pub(super) mains: BTreeMap<(usize, String), (String, String)>,
    /// The name of each catalog directory, for files at its root.
    pub(super) roots: Vec<String>,
    /// (catalog, folder) to its main files, where a partial's folder holds more than one.
    pub(super) ambiguous: BTreeMap<(usize, String), Vec<String>>,
    /// (catalog, folder) to the group of a connector split into files.
    pub(super) groups: BTreeMap<(usize, String), Group>,
}

impl Names {
    fn folder_name(&self, catalog: usize, folder: &str) -> String {
        match folder.rsplit('/').next() {
            Some(last) if !last.is_empty() => last.to_owned(),
            _ => self.roots[catalog].clone(),
        }
    }

    /// The main file of a folder, relative to its catalog.
    pub(super) fn main_of(&self, catalog: usize, folder: &str) -> Option<&str> {
        self.mains
            .get(&(catalog, folder.to_owned()))
            .map(|(_, rel)| rel.as_str())
    }
}

impl Names {
    /// A partial belongs to the connector whose main file sits in the same folder; a file with
    /// its own `info.key` names itself; without either, the folder name.
    pub(super) fn resolve_connector(&self, f: &mut FileResult) {
        let main = self
            .mains
            .get(&(f.catalog, f.folder.clone()))
            .map(|(key, _)| key.clone());
        let fallback = || self.folder_name(f.catalog, &f.folder);
        if f.info_key.is_none()
            && main.is_none()
            && f.rel.ends_with(".s1.partial.yaml")
            && !f.actions.is_empty()
        {
            f.problems.push(
                Error::new(format!(
                    "partial has no main file (with `info.key`) in its folder; its actions are filed under `{}`",
                    fallback()
                ))
                .in_file(&f.shown),
            );
        }
        if f.info_key.is_none()
            && f.rel.ends_with(".s1.partial.yaml")
            && let Some(mains) = self.ambiguous.get(&(f.catalog, f.folder.clone()))
        {
            let chosen = main.as_deref().unwrap_or_default();
            f.problems.push(
                Error::new(format!(
                    "partial beside {} main files ({}): which connector it belongs to is ambiguous (its actions are filed under `{chosen}`); keep one main file per folder",
                    mains.len(),
                    mains.join(", ")
                ))
                .in_file(&f.shown)
                .at(1, 1),
            );
        }
        let connector = f.info_key.clone().or(main).unwrap_or_else(fallback);
        for a in &mut f.actions {
            a.connector.clone_from(&connector);
        }
    }
}
