//! A finding: one problem `check` or `lint` reports, located by file and line or by tool, with
//! its level and its stable kebab-case code (the codes are [`super::codes`]).

use serde::Serialize;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    #[default]
    Warning,
    Note,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }
}

/// One problem found, located by file and line (catalogs) or by tool name (tool lists).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Finding {
    /// Path as printed: relative to the current directory.
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub code: String,
    pub level: Level,
    pub message: String,
    /// The tool (`<connector>_<actionId>` or MCP tool name) the finding is about.
    pub tool: Option<String>,
    /// Path relative to the repository root (the current directory outside git): where
    /// SARIF and GitHub annotations point. `file` when not set.
    #[serde(skip)]
    pub ci_file: Option<String>,
    /// `(connector, actionId)` of the action, when it is about one: with the code, what a
    /// baseline matches on, so a finding keeps its identity when lines move.
    #[serde(skip)]
    pub action: Option<(String, String)>,
    /// Silenced by a `# catalog-effects: ignore[code]` comment: counted, never listed,
    /// never failing, still matched against the baseline.
    #[serde(skip)]
    pub silenced: bool,
}

impl Finding {
    /// The finding as one line of a terminal (`mark` after its code): what came from the
    /// catalog cannot move the cursor or start a line of its own.
    pub fn human(&self, mark: &str) -> String {
        use crate::text::safe::line;
        format!(
            "{}: {} [{}]{mark}: {}\n",
            line(&self.location()),
            self.level.name(),
            self.code,
            line(&self.message)
        )
    }

    /// Where it is, as printed: `file:line:col`, what of it is known, else the tool.
    pub fn location(&self) -> String {
        match (&self.file, self.line, self.column) {
            (Some(file), Some(line), Some(col)) => format!("{file}:{line}:{col}"),
            (Some(file), Some(line), None) => format!("{file}:{line}"),
            (Some(file), None, _) => file.clone(),
            _ => self.tool.clone().unwrap_or_default(),
        }
    }
}

impl Finding {
    /// The path SARIF and GitHub annotations use.
    pub fn ci_file(&self) -> Option<&str> {
        self.ci_file.as_deref().or(self.file.as_deref())
    }

    /// What identifies the finding across runs: connector, action id and code for an action;
    /// else file, code and message (a parse error has no action).
    pub fn identity(&self) -> (String, String, String) {
        match &self.action {
            Some((connector, id)) => (connector.clone(), id.clone(), self.code.clone()),
            None => (
                self.ci_file().unwrap_or_default().to_owned(),
                self.message.clone(),
                self.code.clone(),
            ),
        }
    }

    /// A stable fingerprint of [`Finding::identity`], for SARIF's `partialFingerprints`.
    pub fn fingerprint(&self) -> String {
        let (a, b, c) = self.identity();
        format!("{:016x}", fnv1a([a, b, c].join("\0").as_bytes()))
    }
}

/// FNV-1a, 64 bits: stable across builds and platforms, unlike the standard hasher.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}
