//! `--history` and `--html`: the run appended to the coverage history, then the coverage
//! page, which shows that history and every file of the run.

use std::path::PathBuf;

use crate::classify::RuleSet;
use crate::emit::history::{self, HistoryRow};
use crate::emit::html::{self, Coverage, PageInfo};
use crate::emit::sink::{End, Sink};
use crate::error::Error;
use crate::outcome::{FileResult, Run};

pub struct Page<'a> {
    history: Option<PathBuf>,
    html: Option<PathBuf>,
    coverage: Coverage,
    /// A `--since` run, not appended to the history: its counts cover only the changed
    /// files.
    pub partial: bool,
    rules: &'a RuleSet,
    /// Every file, for the page: the only output that holds the whole run.
    kept: Vec<FileResult>,
}

impl Page<'_> {
    pub fn new(
        history: Option<PathBuf>,
        html: Option<PathBuf>,
        coverage: Coverage,
        rules: &RuleSet,
    ) -> Page<'_> {
        Page {
            history,
            html,
            coverage,
            partial: false,
            rules,
            kept: Vec::new(),
        }
    }
}

impl Sink for Page<'_> {
    /// Keeps the file's actions. The page shows actions, not texts: the edited text, the
    /// patch and the report rows would keep the catalog in memory until the end.
    fn file(&mut self, f: &FileResult) -> Result<(), Error> {
        if self.html.is_some() {
            self.kept.push(f.without_texts());
        }
        Ok(())
    }

    fn finish(&mut self, end: &End) -> Result<(), Error> {
        let commit = || {
            end.meta
                .catalogs
                .first()
                .and_then(|c| c.repo.as_ref())
                .and_then(|r| r.head())
                .map(|(short, _)| short)
                .unwrap_or_default()
        };
        if let Some(path) = self.history.as_ref().filter(|_| !self.partial) {
            let row = HistoryRow::from_summary(end.summary, &history::today_utc(), &commit());
            history::append(path, &row)?;
        }
        let Some(path) = &self.html else {
            return Ok(());
        };
        let rows = match &self.history {
            Some(h) if h.exists() => history::read(h)?,
            _ => Vec::new(),
        };
        let info = PageInfo {
            coverage: self.coverage,
            date: history::today_utc(),
            commit: commit(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            catalogs: end
                .meta
                .catalogs
                .iter()
                .map(|c| c.root.display().to_string())
                .collect(),
        };
        // The page reads the run's files and errors; the catalogs come in `info`.
        let run = Run {
            files: std::mem::take(&mut self.kept),
            errors: end.meta.errors.clone(),
            ..Run::default()
        };
        let page = html::render(end.summary, &run, &rows, &info, self.rules);
        (end.write)(path, &page)
    }
}
