//! The patch and the CSV reports: streamed file by file, so memory does not grow with the
//! catalog, and put in place together or not at all, so a patch never sits beside the
//! report of another run.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::emit::csv_header;
use crate::emit::sink::{End, Sink};
use crate::error::Error;
use crate::outcome::FileResult;
use crate::text::plural;

/// An output written as the run goes and put in place once whole. Dropped instead, it
/// leaves the previous one as it was.
pub trait Streamed: Write {
    fn commit(self, path: &Path) -> Result<(), Error>;
}

/// What a streamed output holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// The patch: each file's diff section.
    Patch,
    /// The CSV report: its header, then each file's rows.
    Report,
    /// The report as `check --write-baseline` writes it: put in place only when every file
    /// was read, since a baseline must cover the whole catalog.
    Baseline,
}

/// The patch and the reports a run streams, committed together at its end.
pub struct Streams<W> {
    /// Each output and what it holds, until they are committed.
    outputs: Option<Vec<(PathBuf, W, Content)>>,
    /// The first write that failed: nothing more is written, and nothing is committed.
    failed: Option<Error>,
    /// The baseline, once it is in place.
    pub baseline: Option<PathBuf>,
}

impl<W: Streamed> Streams<W> {
    pub fn new(outputs: Vec<(PathBuf, W, Content)>) -> Streams<W> {
        let mut s = Streams {
            outputs: Some(outputs),
            failed: None,
            baseline: None,
        };
        s.write(|c| c != Content::Patch, &csv_header());
        s
    }

    /// Writes `text` to every output `to` selects, until a write fails.
    fn write(&mut self, to: impl Fn(Content) -> bool, text: &str) {
        let Some(outputs) = self.outputs.as_mut() else {
            return;
        };
        for (path, out, _) in outputs.iter_mut().filter(|o| to(o.2)) {
            if self.failed.is_some() {
                return;
            }
            if let Err(e) = out.write_all(text.as_bytes()) {
                self.failed = Some(Error::new(format!("cannot write: {e}")).in_file(&*path));
            }
        }
    }
}

impl<W: Streamed> Sink for Streams<W> {
    /// A failed write is not this file's error but the run's, said once at the end, after
    /// every file was still edited and counted (`--write --patch /dev/full`
    /// reported the patch only).
    fn file(&mut self, f: &FileResult) -> Result<(), Error> {
        self.write(|c| c == Content::Patch, &f.patch);
        self.write(|c| c != Content::Patch, &f.csv);
        Ok(())
    }

    /// Commits each output in turn. A baseline of a run that could not read every file is
    /// dropped unfinished: its staged file goes and the old baseline stays.
    fn finish(&mut self, end: &End) -> Result<(), Error> {
        let outputs = self.outputs.take();
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let mut refused = None;
        for (path, out, content) in outputs.into_iter().flatten() {
            if content != Content::Baseline {
                out.commit(&path)?;
            } else if end.summary.errors > 0 {
                refused = Some(
                    Error::new(format!(
                        "baseline not written: {} (files or items that could not be read), and a baseline must cover the whole catalog",
                        plural(end.summary.errors, "parse error")
                    ))
                    .in_file(path),
                );
            } else {
                out.commit(&path)?;
                self.baseline = Some(path);
            }
        }
        refused.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use super::*;
    use crate::emit::Summary;
    use crate::outcome::RunMeta;

    /// Records what was committed; fails writes once `room` bytes are used.
    struct Fake {
        name: &'static str,
        room: usize,
        committed: Rc<RefCell<Vec<&'static str>>>,
    }

    impl Write for Fake {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if buf.len() > self.room {
                return Err(std::io::Error::other("no space left"));
            }
            self.room -= buf.len();
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Streamed for Fake {
        fn commit(self, _path: &Path) -> Result<(), Error> {
            self.committed.borrow_mut().push(self.name);
            Ok(())
        }
    }

    /// Runs two files through the sink, with `room` bytes for the report.
    fn run(report_room: usize) -> (Result<(), Error>, Vec<&'static str>) {
        let committed = Rc::default();
        let fake = |name, room| Fake {
            name,
            room,
            committed: Rc::clone(&committed),
        };
        let mut sink = Streams::new(vec![
            ("p.patch".into(), fake("patch", usize::MAX), Content::Patch),
            ("r.csv".into(), fake("report", report_room), Content::Report),
        ]);
        for _ in 0..2 {
            let f = FileResult {
                patch: "--- a\n+++ b\n".into(),
                csv: "row\n".into(),
                ..FileResult::default()
            };
            assert!(sink.file(&f).is_ok(), "a failed write is the run's error");
        }
        let end = End {
            summary: &Summary::default(),
            guide: None,
            meta: &RunMeta::default(),
            write: &|_, _| Ok(()),
        };
        let result = sink.finish(&end);
        let committed = committed.borrow().clone();
        (result, committed)
    }

    #[test]
    fn both_are_committed_when_every_write_went_through() {
        let (result, committed) = run(usize::MAX);
        assert!(result.is_ok());
        assert_eq!(committed, ["patch", "report"]);
    }

    #[test]
    fn neither_is_committed_when_one_write_failed() {
        let header = csv_header().len();
        for room in [0, header, header + 4] {
            let (result, committed) = run(room);
            let e = result.expect_err("the failed write is said at the end");
            assert!(
                e.to_string().contains("r.csv: cannot write: no space left"),
                "{e}"
            );
            assert!(committed.is_empty(), "room {room}: {committed:?}");
        }
    }
}
