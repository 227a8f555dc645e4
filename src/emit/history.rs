//! `--history FILE`: one CSV row per run, so coverage can be followed over time.

use std::fs::OpenOptions;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::emit::Summary;
use crate::error::{Error, Result};

/// The header line, in column order.
pub const HEADER: [&str; 10] = [
    "date",
    "commit",
    "actions",
    "with_effects",
    "added",
    "agrees",
    "conflict",
    "unclassified",
    "invalid",
    "coverage_percent",
];

/// One run as the history file records it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryRow {
    /// UTC, `YYYY-MM-DD`.
    pub date: String,
    /// Short commit id of HEAD, empty outside a git work tree.
    pub commit: String,
    pub actions: usize,
    pub with_effects: usize,
    pub added: usize,
    pub agrees: usize,
    pub conflict: usize,
    pub unclassified: usize,
    pub invalid: usize,
    /// Rounded to one decimal, as written.
    pub coverage_percent: f64,
}

impl HistoryRow {
    pub fn from_summary(s: &Summary, date: &str, commit: &str) -> HistoryRow {
        let t = &s.total;
        HistoryRow {
            date: date.to_owned(),
            commit: commit.to_owned(),
            actions: t.actions,
            with_effects: t.with_effects,
            added: t.added,
            agrees: t.agrees,
            conflict: t.conflict,
            unclassified: t.unclassified,
            invalid: t.invalid,
            // Rounded here so that a row read back equals the row written. A run that read
            // no tool covers nothing: 0, beside its 0 actions, not a 100 in the trend.
            coverage_percent: (t.coverage().unwrap_or(0.0) * 10.0).round() / 10.0,
        }
    }

    fn record(&self) -> [String; 10] {
        [
            self.date.clone(),
            self.commit.clone(),
            self.actions.to_string(),
            self.with_effects.to_string(),
            self.added.to_string(),
            self.agrees.to_string(),
            self.conflict.to_string(),
            self.unclassified.to_string(),
            self.invalid.to_string(),
            format!("{:.1}", self.coverage_percent),
        ]
    }
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> Error {
    Error::new(format!("cannot {what} the history file: {e}")).in_file(path)
}

/// Appends `row`, creating the file (and its folder) with the header when missing. A file
/// with another header is refused rather than mixed with rows it cannot describe.
pub fn append(path: &Path, row: &HistoryRow) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| io_error(path, "create the folder of", e))?;
    }
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| io_error(path, "open", e))?;
    let mut existing = String::new();
    file.read_to_string(&mut existing)
        .map_err(|e| io_error(path, "read", e))?;
    let mut out = Vec::new();
    if existing.trim().is_empty() {
        out.extend_from_slice(HEADER.join(",").as_bytes());
        out.push(b'\n');
    } else {
        // Every row is read first: a row appended after a truncated one (a run killed while
        // it wrote) made the file unreadable, and every `--html` after it failed.
        parse(&existing).map_err(|e| {
            let message = format!("{}; not appended: mend or remove that row", e.message);
            Error { message, ..e }.in_file(path)
        })?;
        // A last line without its newline would otherwise swallow the new row.
        if !existing.ends_with('\n') {
            out.push(b'\n');
        }
    }
    {
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(&mut out);
        w.write_record(row.record())
            .and_then(|()| w.flush().map_err(csv::Error::from))
            .map_err(|e| Error::new(format!("cannot encode the history row: {e}")).in_file(path))?;
    }
    file.seek(SeekFrom::End(0))
        .and_then(|_| file.write_all(&out))
        .and_then(|()| file.flush())
        .map_err(|e| io_error(path, "write", e))
}

/// Every row, oldest first. A missing file is an empty history: the first run has none yet.
pub fn read(path: &Path) -> Result<Vec<HistoryRow>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error(path, "read", e)),
    };
    parse(&text).map_err(|e| e.in_file(path))
}

/// Parses the text of a history file; errors carry the line.
pub fn parse(text: &str) -> Result<Vec<HistoryRow>> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(text.as_bytes());
    let headers = r
        .headers()
        .map_err(|e| Error::new(format!("unreadable header: {e}")).at(1, 1))?
        .clone();
    let names: Vec<&str> = headers.iter().collect();
    if names != HEADER {
        return Err(Error::new(format!(
            "not a history file: its header is `{}`, expected `{}`",
            names.join(","),
            HEADER.join(",")
        ))
        .at(1, 1));
    }
    let mut rows = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line() as usize);
            Error::new(format!("unreadable row: {e}")).at(line, 1)
        })?;
        let line = rec.position().map_or(0, |p| p.line() as usize);
        let field = |i: usize| rec.get(i).unwrap_or_default();
        let count = |i: usize| -> Result<usize> {
            field(i).trim().parse().map_err(|_| {
                Error::new(format!(
                    "column `{}`: `{}` is not a count",
                    HEADER[i],
                    field(i)
                ))
                .at(line, 1)
            })
        };
        let coverage: f64 = field(9).trim().parse().map_err(|_| {
            Error::new(format!(
                "column `coverage_percent`: `{}` is not a number",
                field(9)
            ))
            .at(line, 1)
        })?;
        rows.push(HistoryRow {
            date: field(0).to_owned(),
            commit: field(1).to_owned(),
            actions: count(2)?,
            with_effects: count(3)?,
            added: count(4)?,
            agrees: count(5)?,
            conflict: count(6)?,
            unclassified: count(7)?,
            invalid: count(8)?,
            coverage_percent: coverage,
        });
    }
    Ok(rows)
}

/// Today's date in UTC, `YYYY-MM-DD`. A clock before 1970 reads as 1970-01-01.
pub fn today_utc() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    date_from_unix_days((secs / 86_400) as i64)
}

/// The proleptic Gregorian date `days` after 1970-01-01, `YYYY-MM-DD`.
pub fn date_from_unix_days(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Howard Hinnant's `civil_from_days`: counts in 400-year eras of 146 097 days, starting
/// each year on March 1 so that the leap day falls at the end.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::Counts;

    fn summary() -> Summary {
        Summary {
            total: Counts {
                actions: 7,
                added: 2,
                agrees: 1,
                conflict: 1,
                unclassified: 1,
                invalid: 1,
                skipped: 1,
                with_effects: 4,
            },
            ..Summary::default()
        }
    }

    #[test]
    fn civil_dates() {
        assert_eq!(date_from_unix_days(0), "1970-01-01");
        assert_eq!(date_from_unix_days(-1), "1969-12-31");
        assert_eq!(date_from_unix_days(11_016), "2000-02-29");
        assert_eq!(date_from_unix_days(11_017), "2000-03-01");
        assert_eq!(date_from_unix_days(19_782), "2024-02-29");
        assert_eq!(date_from_unix_days(20_454), "2026-01-01");
        assert_eq!(civil_from_days(47_541), (2100, 3, 1));
    }

    #[test]
    fn today_is_a_date() {
        let t = today_utc();
        assert_eq!(t.len(), 10);
        assert!(t.as_str() >= "2024-01-01", "{t}");
    }

    #[test]
    fn from_summary_rounds_coverage() {
        let row = HistoryRow::from_summary(&summary(), "2026-05-01", "abc1234");
        assert_eq!(row.actions, 7);
        assert_eq!(row.with_effects, 4);
        assert_eq!(row.coverage_percent, 66.7);
    }

    #[test]
    fn append_creates_then_appends_and_reads_back() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("reports/history.csv");
        assert_eq!(read(&path).expect("missing file is empty"), vec![]);
        let a = HistoryRow::from_summary(&summary(), "2026-05-01", "abc1234");
        let mut b = a.clone();
        b.date = "2026-05-02".into();
        b.commit = String::new();
        b.coverage_percent = 100.0;
        append(&path, &a).expect("first append");
        append(&path, &b).expect("second append");
        let text = std::fs::read_to_string(&path).expect("written");
        assert_eq!(
            text,
            "date,commit,actions,with_effects,added,agrees,conflict,unclassified,invalid,coverage_percent\n\
             2026-05-01,abc1234,7,4,2,1,1,1,1,66.7\n\
             2026-05-02,,7,4,2,1,1,1,1,100.0\n"
        );
        assert_eq!(read(&path).expect("reads"), vec![a, b]);
    }

    #[test]
    fn append_completes_a_last_line_without_newline() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("h.csv");
        std::fs::write(
            &path,
            format!("{}\n2026-01-01,x,1,1,1,0,0,0,0,100.0", HEADER.join(",")),
        )
        .expect("seed");
        let row = HistoryRow::from_summary(&summary(), "2026-01-02", "y");
        append(&path, &row).expect("append");
        assert_eq!(read(&path).expect("reads").len(), 2);
    }

    #[test]
    fn refuses_a_foreign_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("other.csv");
        std::fs::write(&path, "a,b\n1,2\n").expect("seed");
        let row = HistoryRow::from_summary(&summary(), "2026-01-02", "y");
        let err = append(&path, &row).expect_err("foreign header");
        assert!(err.message.contains("not a history file"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).expect("kept"), "a,b\n1,2\n");
        assert!(read(&path).is_err());
    }

    #[test]
    fn bad_numbers_name_line_and_column() {
        let text = format!(
            "{}\n2026-01-01,x,seven,1,1,0,0,0,0,100.0\n",
            HEADER.join(",")
        );
        let err = parse(&text).expect_err("bad count");
        assert_eq!(err.line, Some(2));
        assert!(err.message.contains("`actions`"), "{err}");
    }
}
