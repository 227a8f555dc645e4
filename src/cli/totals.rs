//! The line a catalog command ends with, and the exit code it chooses.

use catalog_effects::model::finding::Level;
use catalog_effects::text::plural;

use super::config::FailOn;
use super::out::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};

/// The line a catalog command ends with, and all `--quiet` prints besides errors: findings
/// by severity, what the baseline says of them, what fails the run, and what could not be
/// read (which makes the exit code 2 whatever fails).
#[derive(Debug, Default)]
pub struct Totals {
    pub errors: usize,
    pub warnings: usize,
    pub notes: usize,
    /// Findings silenced by `# catalog-effects: ignore[code]` comments (`check`).
    pub silenced: usize,
    /// With a baseline: new findings, findings in the baseline, and actions gone.
    pub baseline: Option<(usize, usize, usize)>,
    pub failing: usize,
    pub fail_on: FailOn,
    /// Files, folders or items the tool could not read (`parse-error`).
    pub unreadable: usize,
}

impl Totals {
    pub fn count(&mut self, level: Level) {
        match level {
            Level::Error => self.errors += 1,
            Level::Warning => self.warnings += 1,
            Level::Note => self.notes += 1,
        }
    }

    pub fn line(&self, command: &str) -> String {
        let mut s = format!(
            "{command}: {}, {}",
            plural(self.errors, "error"),
            plural(self.warnings, "warning")
        );
        if self.notes > 0 {
            s.push_str(&format!(", {}", plural(self.notes, "note")));
        }
        if self.silenced > 0 {
            s.push_str(&format!(", {} silenced", self.silenced));
        }
        if let Some((new, old, gone)) = self.baseline {
            s.push_str(&format!(
                "; {new} new, {old} in the baseline, {} gone",
                plural(gone, "action")
            ));
        }
        s.push_str(&format!(
            "; {} failing (--fail-on {})",
            self.failing,
            self.fail_on.name()
        ));
        if self.unreadable > 0 {
            s.push_str(&format!("; {}", plural(self.unreadable, "parse error")));
        }
        s
    }

    /// 2 when something could not be read, else 1 when findings fail the run, else 0.
    pub fn exit_code(&self) -> u8 {
        if self.unreadable > 0 {
            EXIT_ERROR
        } else if self.failing > 0 {
            EXIT_FINDINGS
        } else {
            EXIT_OK
        }
    }
}
