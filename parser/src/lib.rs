//! Declaration-level parser for Delphi / Object Pascal source files.
//!
//! The pipeline is: read and decode the file ([`source`]), run the preprocessor
//! ([`preprocess`]: conditional directives, includes) for a compiler target, lex the active text
//! into a token string (one character per token), then parse declarations with the pest grammar
//! in `delphi.pest` over those tokens into the syntax tree of [`ast`], skipping routine bodies by
//! block structure. Plain declarations (most of real code) are read from the tokens directly,
//! into the same tree the grammar would give; the grammar takes every other item. Syntax errors
//! become [`Diagnostic`]s with spans into the original files; parsing recovers at the next
//! declaration (or the next member of a class).

#![warn(missing_docs)]

#[cfg(feature = "mimalloc")]
pub mod alloc;
pub mod ast;
pub mod diagnostic;
mod direct;
pub mod doc;
pub mod eval;
mod grammar;
mod lower;
pub mod options;
pub mod parse;
pub mod preprocess;
mod scan;
pub mod source;
pub mod span;
pub mod target;
mod tokens;
mod tree;

pub use diagnostic::{Diagnostic, Label, Severity};
pub use eval::{ConstEnv, ConstLookup};
pub use options::ParseOptions;
pub use parse::{parse_file, parse_loaded, parse_text, parse_text_grammar_only, ParseResult};
pub use span::{FileId, SourceDb, SourceFile, Span};
