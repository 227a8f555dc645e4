//! The interface every output of a run implements: the pipeline hands every [`FileResult`]
//! to each sink in catalog then path order, and each sink is finished once the run is
//! done, with what only the end knows. A new output is one implementation; the CLI only
//! wires it to the run, prints what the sinks return as errors, and counts them.

use std::path::Path;

use crate::emit::Summary;
use crate::emit::review::{Context, Review};
use crate::error::Error;
use crate::outcome::{FileResult, RunMeta};

pub trait Sink {
    /// One file's results. A sink copies the little it renders later; one that keeps the
    /// whole file takes it, and is fed after the others. An error is this file's alone:
    /// the run goes on.
    fn file(&mut self, _f: &mut FileResult) -> Result<(), Error> {
        Ok(())
    }

    /// Renders or commits the output once every file was seen.
    fn finish(&mut self, end: &End) -> Result<(), Error>;
}

/// What the end of a run knows, for the sinks that render then.
pub struct End<'a> {
    /// Counted from every file, with the errors of the walk (not yet the outputs').
    pub summary: &'a Summary,
    /// The review guide and the paths it prints, when an output needs it: the `--review`
    /// page and the `--branch` commit message are both made from it, so it is filled once,
    /// beside the summary.
    pub guide: Option<(&'a Review, &'a Context)>,
    pub meta: &'a RunMeta,
    /// Writes a whole document where it was asked for. The caller's: a path may be `-`,
    /// and only the caller prints.
    pub write: &'a dyn Fn(&Path, &str) -> Result<(), Error>,
}

/// An output that was not asked for: it takes every file and writes nothing.
impl<S: Sink> Sink for Option<S> {
    fn file(&mut self, f: &mut FileResult) -> Result<(), Error> {
        self.as_mut().map_or(Ok(()), |s| s.file(f))
    }

    fn finish(&mut self, end: &End) -> Result<(), Error> {
        self.as_mut().map_or(Ok(()), |s| s.finish(end))
    }
}
