//! The interface every output of a run implements: the run hands every [`FileResult`] to
//! each sink in catalog then path order, and each sink is finished once the run is done,
//! with what only the end knows. A sink reads a shared result and keeps what it needs, so
//! no sink sees what another did and the order they are fed in changes nothing they
//! write. A new output is one implementation; the CLI only wires it to the run, prints what
//! the sinks return as errors, and counts them.

use std::path::Path;

use crate::emit::Summary;
use crate::error::Error;
use crate::outcome::{FileResult, RunMeta};

pub trait Sink {
    /// One file's results. An error is this file's alone: the run goes on.
    fn file(&mut self, _f: &FileResult) -> Result<(), Error> {
        Ok(())
    }

    /// Renders or commits the output once every file was seen.
    fn finish(&mut self, end: &End) -> Result<(), Error>;
}

/// The review guide, for the outputs made from it: the `--review` page and the
/// `--branch` commit message. It is filled once, beside the summary.
pub trait Guide {
    /// The guide as Markdown, ready to paste as a pull-request description.
    fn markdown(&self, summary: &Summary) -> String;

    /// The guide in a commit message's few lines.
    fn commit_message(&self, summary: &Summary) -> String;
}

/// What the end of a run knows, for the sinks that render then.
pub struct End<'a> {
    /// Counted from every file, with the errors of the walk (not yet the outputs').
    pub summary: &'a Summary,
    /// The review guide, when an output needs it.
    pub guide: Option<&'a dyn Guide>,
    pub meta: &'a RunMeta,
    /// Writes a whole document where it was asked for. The caller's: a path may be `-`,
    /// and only the caller prints.
    pub write: &'a dyn Fn(&Path, &str) -> Result<(), Error>,
}

/// An output that was not asked for: it takes every file and writes nothing.
impl<S: Sink> Sink for Option<S> {
    fn file(&mut self, f: &FileResult) -> Result<(), Error> {
        self.as_mut().map_or(Ok(()), |s| s.file(f))
    }

    fn finish(&mut self, end: &End) -> Result<(), Error> {
        self.as_mut().map_or(Ok(()), |s| s.finish(end))
    }
}
