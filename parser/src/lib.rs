//! Declaration-level parser for Delphi / Object Pascal source files.
//!
//! The pipeline is: read and decode the file ([`source`]), run the preprocessor
//! ([`preprocess`]: conditional directives, includes) for a compiler target, lex the active text
//! into a token string (one character per token), then parse declarations with the pest grammar
//! in `delphi.pest` over those tokens into the syntax tree of [`ast`], skipping routine bodies by
//! block structure. Syntax errors become [`Diagnostic`]s with spans into the original files;
//! parsing recovers at the next declaration (or the next member of a class).
//!
//! # Two readers, one reference
//!
//! Declarations are read in one of two ways, into the same tree:
//!
//! - the **grammar** (`delphi.pest`, its pairs lowered into the tree by the `lower` module) is
//!   the reference: it defines what parses, what each construct becomes and every diagnostic;
//! - the **direct reader** (the `direct` module) reads the same rules from the token string
//!   without pest, because running the grammar was most of the cost of a parse. It is tried
//!   first on every item; it follows the grammar's rules and their backtracking, and wherever it
//!   would differ (an error, a rare form) it gives the item up and the driver runs the grammar.
//!   It never decides alone that something is an error.
//!
//! Both build their nodes with the same builders (the `tree` module). They are kept equal by
//! tests that parse each input both ways, with [`parse_text`] and with
//! [`parse_text_grammar_only`], and require the same tree and the same diagnostics:
//! `tests/direct_path.rs` (every fixture, a large synthetic unit, shapes at the edges of what the
//! direct reader takes), `tests/differential.rs` (generated declarations of every kind, and the
//! same mutated by deleted, duplicated, swapped and inserted tokens) and `tests/grammar_props.rs`
//! (random bytes, token soup, mutated fixtures). A change to the grammar needs the same change
//! in the direct reader; these tests fail until both agree. The differential test runs a few
//! dozen cases in `cargo test`; a longer run:
//!
//! ```sh
//! PROPTEST_CASES=20000 cargo test --release -p delphi-mcp-parser --test differential
//! ```

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
