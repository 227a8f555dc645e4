//! Files planned in parallel chunks and handed to the outputs in order while the next chunk
//! is planned: memory stays bounded by a few chunks whatever the catalog size.

use rayon::prelude::*;

use crate::fix::options::Options;
use crate::outcome::{FileResult, RunMeta};

use super::file::process_file;
use super::names::Names;
use super::spill::Spill;
use super::walk::Work;

/// Files handed to the workers at a time. Small enough that memory does not grow with the
/// catalog, large enough that the workers rarely wait for the writer. The unit tests take
/// a few files at a time, so the demo's run crosses chunks (and the held results' budget).
pub(super) const CHUNK: usize = if cfg!(test) { 3 } else { 512 };

/// The files `selected` planned in parallel chunks and handed to `sink` in order, while the
/// next chunk is planned (see [`super::Walked::run`]); their trees are had back from
/// `spill` where an earlier plan kept them.
pub(super) fn stream(
    work: &[Work],
    selected: &[bool],
    names: &Names,
    opts: &Options,
    mut meta: RunMeta,
    mut sink: impl FnMut(&mut FileResult),
    spill: Option<&Spill>,
) -> RunMeta {
    let work: Vec<&Work> = work
        .iter()
        .zip(selected)
        .filter(|(_, keep)| **keep)
        .map(|(w, _)| w)
        .collect();
    meta.files += work.len();
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<(usize, FileResult)>>(2);
    // What each worker is to free, handed back by the caller's thread.
    let spent: Vec<std::sync::Mutex<Vec<FileResult>>> = (0..rayon::current_num_threads())
        .map(|_| std::sync::Mutex::default())
        .collect();
    std::thread::scope(|scope| {
        let (work, spent) = (&work, &spent);
        scope.spawn(move || {
            for chunk in work.chunks(CHUNK) {
                let results: Vec<(usize, FileResult)> = chunk
                    .par_iter()
                    .map(|w| {
                        let worker = rayon::current_thread_index().unwrap_or(0) % spent.len();
                        let freed = std::mem::take(&mut *lock(&spent[worker]));
                        drop(freed);
                        let r = process_file(w, names, opts, spill);
                        if let Some(p) = &opts.progress {
                            (p.tick)();
                        }
                        (worker, r)
                    })
                    .collect();
                // The receiver only goes away when the caller stopped: nothing left to do.
                if tx.send(results).is_err() {
                    break;
                }
            }
        });
        for results in rx {
            for (worker, mut f) in results {
                for fired in f.actions.iter().flat_map(|a| &a.inference.fired) {
                    meta.rules_used[*fired] = true;
                }
                sink(&mut f);
                lock(&spent[worker]).push(f);
            }
        }
    });
    meta
}

/// A poisoned lock only means a worker panicked, which ends the run anyway.
pub(super) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
