//! The one error type of the library: every error says where it happened.

use std::fmt;
use std::path::PathBuf;

/// An error with enough context to act on it: the file and, where known, line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub path: Option<PathBuf>,
    /// 1-based line and column, when the error has a position.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error {
            path: None,
            line: None,
            column: None,
            message: message.into(),
        }
    }

    pub fn at(mut self, line: usize, column: usize) -> Self {
        self.line = Some(line);
        self.column = Some(column);
        self
    }

    pub fn in_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{}", path.display())?;
            if let (Some(line), Some(col)) = (self.line, self.column) {
                write!(f, ":{line}:{col}")?;
            }
            write!(f, ": ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T, E = Error> = std::result::Result<T, E>;
