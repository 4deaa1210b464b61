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

impl Diagnostic {
    /// Renders the diagnostic as plain text in the style of rustc:
    ///
    /// ```text
    /// error: expected `;`
    ///   --> Calc.pas:12:5
    ///    |
    /// 12 |     function Scale(Value: Double): Double
    ///    |     ^^^^^^^^ here
    ///    = expected: `;`, `of`
    ///    = help: ...
    /// ```
    pub fn render(&self, db: &crate::SourceDb) -> String {
        use std::fmt::Write as _;
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        let mut out = format!("{severity}: {}\n", self.message);
        if let Some(span) = self.span {
            render_snippet(&mut out, db, span, "");
        }
        for label in &self.labels {
            render_snippet(&mut out, db, label.span, &label.message);
        }
        if !self.expected.is_empty() {
            let _ = writeln!(out, "   = expected: {}", self.expected.join(", "));
        }
        if let Some(help) = &self.help {
            let _ = writeln!(out, "   = help: {help}");
        }
        out
    }

    /// `path:line:col` of the primary span, if any.
    pub fn location(&self, db: &crate::SourceDb) -> Option<String> {
        let span = self.span?;
        let file = db.get(span.file);
        let at = file.line_col(span.start);
        Some(format!("{}:{}:{}", file.path.display(), at.line, at.column))
    }
}

fn render_snippet(out: &mut String, db: &crate::SourceDb, span: Span, message: &str) {
    use std::fmt::Write as _;
    let file = db.get(span.file);
    let start = file.line_col(span.start);
    let end = file.line_col(span.end.max(span.start));
    let line = file.line_text(start.line);
    let number = start.line.to_string();
    let gutter = " ".repeat(number.len());
    let _ = writeln!(
        out,
        "{gutter}--> {}:{}:{}",
        file.path.display(),
        start.line,
        start.column
    );
    let _ = writeln!(out, "{gutter} |");
    let _ = writeln!(out, "{number} | {}", line.replace('\t', " "));
    let line_chars = line.chars().count() as u32;
    let width = if end.line == start.line {
        end.column.saturating_sub(start.column).max(1)
    } else {
        line_chars.saturating_sub(start.column - 1).max(1)
    };
    let pad = " ".repeat(start.column.saturating_sub(1) as usize);
    let carets = "^".repeat(width as usize);
    let suffix = if message.is_empty() {
        String::new()
    } else {
        format!(" {message}")
    };
    let _ = writeln!(out, "{gutter} | {pad}{carets}{suffix}");
}
