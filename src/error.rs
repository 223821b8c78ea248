//! Errors that stop a run: an LGR that cannot be read or compiled.
//!
//! Findings about labels (invalid, colliding, malformed input lines) are data,
//! not errors; see [`crate::lgr::Verdict`].

use std::fmt;
use std::path::PathBuf;

/// Where in an input an error was found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Position {
    /// The file, when the input came from one.
    pub path: Option<PathBuf>,
    /// 1-based line, 0 when unknown.
    pub line: u32,
    /// 1-based column (in characters), 0 when unknown.
    pub column: u32,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}", p.display())?,
            None => f.write_str("<input>")?,
        }
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.column > 0 {
                write!(f, ":{}", self.column)?;
            }
        }
        Ok(())
    }
}

/// An error reading or compiling Label Generation Rules (RFC 7940).
///
/// Displays as `file:line:column: <element>: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LgrError {
    /// Where the problem is.
    pub position: Position,
    /// The XML element (or table construct) concerned, if any.
    pub element: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl LgrError {
    pub(crate) fn new(message: impl Into<String>) -> LgrError {
        LgrError { position: Position::default(), element: None, message: message.into() }
    }

    pub(crate) fn at(mut self, line: u32, column: u32) -> LgrError {
        self.position.line = line;
        self.position.column = column;
        self
    }

    pub(crate) fn element(mut self, element: impl Into<String>) -> LgrError {
        self.element = Some(element.into());
        self
    }

    /// Sets the file name, for errors found while reading a file.
    pub fn with_path(mut self, path: impl Into<PathBuf>) -> LgrError {
        self.position.path = Some(path.into());
        self
    }
}

impl fmt::Display for LgrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.position)?;
        if let Some(e) = &self.element {
            write!(f, "<{e}>: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for LgrError {}
