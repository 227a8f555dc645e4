//! `--write`: each changed file replaced in place as the run goes, so memory does not
//! grow with the catalog.

use std::collections::BTreeSet;

use crate::emit::sink::{End, Sink};
use crate::emit::write::replace_if_unchanged;
use crate::error::Error;
use crate::outcome::FileResult;

#[derive(Debug, Default)]
pub struct InPlace {
    /// Files with uncommitted changes, as (catalog index, path in the patch): a person's
    /// work in progress is not written over.
    dirty: BTreeSet<(usize, String)>,
    pub written: usize,
    pub failed: usize,
}

impl InPlace {
    pub fn new(dirty: BTreeSet<(usize, String)>) -> InPlace {
        InPlace {
            dirty,
            ..InPlace::default()
        }
    }

    /// Only a clean file whose content did not change since it was read; the edit itself
    /// was checked by the pipeline.
    fn write(&self, f: &FileResult) -> Result<(), Error> {
        if self.dirty.contains(&(f.catalog, f.patch_path.clone())) {
            return Err(Error::new(
                "has uncommitted changes: not written (commit first, or pass --allow-dirty)",
            )
            .in_file(&f.shown));
        }
        let (Some(old), Some(new)) = (f.old_pieces(), &f.new_text) else {
            return Ok(());
        };
        replace_if_unchanged(&f.abs, &old, new)
    }
}

impl Sink for InPlace {
    fn file(&mut self, f: &FileResult) -> Result<(), Error> {
        if f.new_text.is_none() {
            return Ok(());
        }
        let written = self.write(f);
        match written {
            Ok(()) => self.written += 1,
            Err(_) => self.failed += 1,
        }
        written
    }

    fn finish(&mut self, _end: &End) -> Result<(), Error> {
        Ok(())
    }
}
