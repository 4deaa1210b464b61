//! Diagnostics shared by the parser and the code generator.

use crate::span::Span;
use serde::Serialize;

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Informational.
    Note,
    /// Something the user should look at; output is still produced.
    Warning,
    /// The input is wrong; the run fails.
    Error,
}

/// A message about the input, pointing at source text.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnostic {
    /// Error, warning or note.
    pub severity: Severity,
    /// One-line description of the problem.
    pub message: String,
    /// Where the problem is (absent only for problems with no source location, e.g. an unreadable file).
    pub span: Option<Span>,
    /// Further places that explain the problem (e.g. the first declaration of a duplicate name).
    pub labels: Vec<Label>,
    /// What the parser expected at this point, for syntax errors.
    pub expected: Vec<String>,
    /// A hint on how to fix it.
    pub help: Option<String>,
}

/// A secondary location of a diagnostic.
#[derive(Debug, Clone, Serialize)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What is there.
    pub message: String,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(message: impl Into<String>, span: Option<Span>) -> Self {
        Self::new(Severity::Error, message, span)
    }

    /// A warning at `span`.
    pub fn warning(message: impl Into<String>, span: Option<Span>) -> Self {
        Self::new(Severity::Warning, message, span)
    }

    /// A diagnostic of the given severity.
    pub fn new(severity: Severity, message: impl Into<String>, span: Option<Span>) -> Self {
        Self {
            severity,
            message: message.into(),
            span,
            labels: Vec::new(),
            expected: Vec::new(),
            help: None,
        }
    }

    /// Adds a secondary label.
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    /// Sets the help text.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
