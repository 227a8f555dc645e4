//! The patch and the CSV report: streamed file by file, so memory does not grow with the
//! catalog, and put in place together or not at all, so a patch never sits beside the
//! report of another run (issue 7).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::emit::csv_header;
use crate::emit::sink::{End, Sink};
use crate::error::Error;
use crate::outcome::FileResult;

/// An output written as the run goes and put in place once whole. Dropped instead, it
/// leaves the previous one as it was.
pub trait Streamed: Write {
    fn commit(self, path: &Path) -> Result<(), Error>;
}

pub struct PatchAndReport<W> {
    /// The patch, then the report, until they are committed.
    outputs: Option<[(PathBuf, W); 2]>,
    /// The first write that failed: nothing more is written, and neither is committed.
    failed: Option<Error>,
}

impl<W: Streamed> PatchAndReport<W> {
    pub fn new(patch: (PathBuf, W), report: (PathBuf, W)) -> PatchAndReport<W> {
        let mut s = PatchAndReport {
            outputs: Some([patch, report]),
            failed: None,
        };
        s.write(1, &csv_header());
        s
    }

    fn write(&mut self, i: usize, text: &str) {
        let Some(outputs) = self.outputs.as_mut().filter(|_| self.failed.is_none()) else {
            return;
        };
        let (path, out) = &mut outputs[i];
        if let Err(e) = out.write_all(text.as_bytes()) {
            self.failed = Some(Error::new(format!("cannot write: {e}")).in_file(&*path));
        }
    }
}

impl<W: Streamed> Sink for PatchAndReport<W> {
    /// A failed write is not this file's error but the run's, said once at the end, after
    /// every file was still edited and counted (issue 13: `--write --patch /dev/full`
    /// reported the patch only).
    fn file(&mut self, f: &mut FileResult) -> Result<(), Error> {
        self.write(0, &f.patch);
        self.write(1, &f.csv);
        Ok(())
    }

    fn finish(&mut self, _end: &End) -> Result<(), Error> {
        let outputs = self.outputs.take();
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let Some([(patch_path, patch), (report_path, report)]) = outputs else {
            return Ok(());
        };
        patch.commit(&patch_path)?;
        report.commit(&report_path)
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
        let mut sink = PatchAndReport::new(
            ("p.patch".into(), fake("patch", usize::MAX)),
            ("r.csv".into(), fake("report", report_room)),
        );
        for _ in 0..2 {
            let mut f = FileResult {
                patch: "--- a\n+++ b\n".into(),
                csv: "row\n".into(),
                ..FileResult::default()
            };
            assert!(
                sink.file(&mut f).is_ok(),
                "a failed write is the run's error"
            );
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
