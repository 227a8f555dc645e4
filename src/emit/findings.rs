//! The findings formats of `check` and `lint`, one [`Emitter`] each: a format that prints as
//! the run goes (human, GitHub) prints each finding at once, so a large catalog's findings
//! are never all held; a document (JSON, SARIF) keeps them until the end. A new findings
//! format is one more implementation and one line in [`emitter`].

use serde_json::{Map, Value};

use crate::emit::github;
use crate::emit::sarif::{self, BaselineState, SarifRule};
use crate::model::finding::{Finding, Level};

/// The findings formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
    Github,
    Sarif,
}

/// How the command judged one finding, for the formats to show it by.
#[derive(Debug, Clone, Copy, Default)]
pub struct Judged {
    /// Against a baseline, whether it is new; `None` without one.
    pub new: Option<bool>,
    /// It fails the run.
    pub fails: bool,
    /// A file that could not be read: an error on stderr and exit 2 whatever fails the run,
    /// carried by the documents for the pull request.
    pub unreadable: bool,
}

impl Judged {
    /// New as the totals count it: a note is never new (one was printed `[new]`
    /// while the totals left it out).
    fn counted_new(&self, f: &Finding) -> Option<bool> {
        self.new.map(|n| n && f.level != Level::Note)
    }
}

/// How a command shows its findings, beside the format.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    /// Only the totals line (human).
    pub quiet: bool,
    /// A finding that fails the run is a GitHub error whatever its level, and the totals
    /// end the output as a notice (`check`).
    pub ci_run: bool,
    /// Only new findings are annotated on GitHub (`--fail-on new`): on a pull request the
    /// old ones could hide them, GitHub capping how many it shows.
    pub only_new: bool,
}

/// What the end of an output says besides the findings.
#[derive(Debug, Default)]
pub struct Ending<'a> {
    /// The totals line.
    pub totals: &'a str,
    /// Human: what comes between the findings and the totals line (`check`'s summary).
    pub tail: String,
    /// JSON: the document's other keys (`check`); without them the document is the
    /// findings alone (`lint`).
    pub json: Option<Vec<(&'static str, Value)>>,
    /// SARIF: the rule table, and the baseline's findings the run no longer reports.
    pub rules: Vec<SarifRule>,
    pub absent: Vec<Finding>,
}

/// A findings format.
pub trait Emitter {
    /// One finding, as the run produces it: what to print at once, if the format prints
    /// as it goes (else it is kept for the end).
    fn finding(&mut self, f: Finding, judged: &Judged) -> Option<String>;

    /// The rest of the output, once every finding is in.
    fn end(&mut self, end: Ending) -> String;
}

/// The emitter of `format`.
pub fn emitter(format: Format, style: Style) -> Box<dyn Emitter> {
    match format {
        Format::Human => Box::new(Human { style }),
        Format::Json => Box::new(Json::default()),
        Format::Github => Box::new(Github { style }),
        Format::Sarif => Box::new(Sarif::default()),
    }
}

/// One line per finding, then the summary and the totals line.
struct Human {
    style: Style,
}

impl Emitter for Human {
    fn finding(&mut self, f: Finding, judged: &Judged) -> Option<String> {
        if judged.new == Some(false) || judged.unreadable || self.style.quiet {
            return None;
        }
        let mark = if judged.counted_new(&f) == Some(true) {
            " [new]"
        } else {
            ""
        };
        Some(f.human(mark))
    }

    fn end(&mut self, end: Ending) -> String {
        if self.style.quiet {
            return format!("{}\n", end.totals);
        }
        format!("{}\n{}\n", end.tail, end.totals)
    }
}

/// Workflow commands: annotations on the pull request.
struct Github {
    style: Style,
}

impl Emitter for Github {
    fn finding(&mut self, f: Finding, judged: &Judged) -> Option<String> {
        if self.style.only_new && judged.new == Some(false) {
            return None;
        }
        let level = if self.style.ci_run && (judged.fails || judged.unreadable) {
            Level::Error
        } else {
            f.level
        };
        let title = if judged.new == Some(true) && !judged.unreadable && f.level != Level::Note {
            format!("{} (new)", f.code)
        } else {
            f.code.clone()
        };
        Some(github::command(&f, level, &title))
    }

    /// Each finding that fails the run is an error of its own; the totals are a notice, or
    /// a pull request shows two errors for one.
    fn end(&mut self, end: Ending) -> String {
        if !self.style.ci_run {
            return String::new();
        }
        format!(
            "::notice title=catalog-effects::{}\n",
            github::escape_data(end.totals)
        )
    }
}

/// One JSON document: the findings, each marked new or not against a baseline.
#[derive(Default)]
struct Json {
    kept: Vec<(Finding, Option<bool>)>,
}

impl Emitter for Json {
    fn finding(&mut self, f: Finding, judged: &Judged) -> Option<String> {
        let new = judged.counted_new(&f);
        self.kept.push((f, new));
        None
    }

    fn end(&mut self, end: Ending) -> String {
        let kept = std::mem::take(&mut self.kept);
        let Some(keys) = end.json else {
            let found: Vec<Finding> = kept.into_iter().map(|(f, _)| f).collect();
            return serde_json::to_string_pretty(&found).unwrap_or_default() + "\n";
        };
        let items: Vec<Value> = kept
            .into_iter()
            .map(|(f, new)| {
                let mut v = serde_json::to_value(&f).unwrap_or_default();
                if let Some(new) = new {
                    v["new"] = Value::Bool(new);
                }
                v
            })
            .collect();
        let mut doc = Map::new();
        doc.insert("findings".to_owned(), Value::Array(items));
        doc.extend(keys.into_iter().map(|(k, v)| (k.to_owned(), v)));
        serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or_default() + "\n"
    }
}

/// SARIF 2.1.0, each result with its state against a baseline when there is one, and the
/// baseline's findings that are gone.
#[derive(Default)]
struct Sarif {
    kept: Vec<(Finding, Option<BaselineState>)>,
}

impl Emitter for Sarif {
    fn finding(&mut self, f: Finding, judged: &Judged) -> Option<String> {
        self.kept.push((f, judged.new.map(BaselineState::from_new)));
        None
    }

    fn end(&mut self, end: Ending) -> String {
        let mut results = std::mem::take(&mut self.kept);
        results.extend(
            end.absent
                .into_iter()
                .map(|f| (f, Some(BaselineState::Absent))),
        );
        sarif::render_with_states(&results, &end.rules, env!("CARGO_PKG_VERSION"))
    }
}
