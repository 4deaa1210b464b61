//! The preprocessor: evaluates conditional directives for a target and splices include files.
//!
//! PLACEHOLDER: passes the text through unchanged. The real one blanks directives and inactive
//! branches with spaces (keeping line breaks and byte offsets) and splices `{$I}` files.

use crate::diagnostic::Diagnostic;
use crate::options::ParseOptions;
use crate::span::{FileId, SourceDb, Span};

/// The active text of a file, ready for the grammar.
#[derive(Debug, Clone)]
pub struct Preprocessed {
    /// Active source: directives and inactive branches replaced by spaces (line breaks kept),
    /// include files spliced in place of their `{$I}` directive.
    pub text: String,
    /// Where each stretch of `text` comes from, in order, covering all of `text`.
    pub segments: Vec<Segment>,
    /// Problems found (unterminated `{$IF}`, missing include, bad expression, ...).
    pub diagnostics: Vec<Diagnostic>,
}

/// A stretch of preprocessed text copied from one file.
#[derive(Debug, Clone, Copy)]
pub struct Segment {
    /// Start of the stretch in [`Preprocessed::text`].
    pub out_start: usize,
    /// End (exclusive) of the stretch in [`Preprocessed::text`].
    pub out_end: usize,
    /// The file it comes from.
    pub file: FileId,
    /// Byte offset in that file's text that `out_start` corresponds to.
    pub file_start: usize,
}

impl Preprocessed {
    /// Maps a range of the preprocessed text back to a span of an original file (the file of
    /// the segment holding `start`; the end is clamped to that segment).
    pub fn span(&self, start: usize, end: usize) -> Span {
        let index = self
            .segments
            .partition_point(|s| s.out_end <= start)
            .min(self.segments.len().saturating_sub(1));
        let seg = self.segments[index];
        let end = end.clamp(start, seg.out_end.max(start));
        Span {
            file: seg.file,
            start: (seg.file_start + start.saturating_sub(seg.out_start)) as u32,
            end: (seg.file_start + end.saturating_sub(seg.out_start)) as u32,
        }
    }
}

/// Preprocesses `file` for `options`.
pub fn preprocess(db: &SourceDb, file: FileId, options: &ParseOptions) -> Preprocessed {
    let _ = options;
    let text = db.get(file).text.clone();
    let len = text.len();
    Preprocessed {
        text,
        segments: vec![Segment {
            out_start: 0,
            out_end: len,
            file,
            file_start: 0,
        }],
        diagnostics: Vec::new(),
    }
}
