//! The interface an output implements to consume a run file by file: the pipeline hands
//! every [`FileResult`] to each sink in catalog then path order, and the sink renders what
//! it needs once the run is done. A new output is one implementation; the CLI only wires
//! it to the run.

use crate::error::Error;
use crate::pipeline::FileResult;

pub trait Sink {
    /// One file's results, in order; the sink keeps only what it renders.
    fn file(&mut self, f: &FileResult);

    /// The output's text, or why it cannot be made from what the run found.
    fn finish(&mut self) -> Result<String, Error>;
}
