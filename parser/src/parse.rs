//! The top-level parser: preprocessing, the item-by-item drive of the grammar, error recovery.
//!
//! pest has no error recovery, so the driver parses one declaration at a time: it looks at the
//! next keyword with the token scanner (`scan.rs`), calls the grammar rule for that item
//! (`type_decl`, `routine_decl`, ...) on the text from there, and skips routine bodies by block
//! structure. A syntax error becomes a diagnostic and the driver resumes at the next line that
//! starts a declaration, so every error of a file is reported and the rest of the unit is kept.
//!
//! Before the grammar, each item is offered to the direct path (the `direct` module), which
//! reads declarations straight into the tree by the grammar's rules and leaves errors and a few
//! rare forms to the grammar.
//!
//! `driver` holds the driver and its loop over sections and declarations, `items` the items of
//! sections, structured types read member by member, routines and their bodies, and recovery
//! after an error; `errors` turns the grammar's errors into diagnostics.

mod driver;
mod errors;
mod items;

use crate::ast;
use crate::diagnostic::Diagnostic;
use crate::options::ParseOptions;
use crate::preprocess::{preprocess, Preprocessed};
use crate::source;
use crate::span::{FileId, SourceDb};
use crate::tokens::{self, Tokens};
use driver::{Driver, Stack};
use std::path::Path;

/// What parsing one file produced.
#[derive(Debug)]
pub struct ParseResult {
    /// The loaded file (absent when it could not be read).
    pub file: Option<FileId>,
    /// The syntax tree; produced even when some declarations had errors.
    pub unit: Option<ast::Unit>,
    /// Preprocessor and syntax diagnostics, in source order.
    pub diagnostics: Vec<Diagnostic>,
}

impl ParseResult {
    /// True when any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Loads, preprocesses and parses the file at `path`.
pub fn parse_file(db: &SourceDb, path: &Path, opts: &ParseOptions) -> ParseResult {
    match source::load(db, path, opts.codepage) {
        Ok(file) => parse_loaded(db, file, opts),
        Err(err) => ParseResult {
            file: None,
            unit: None,
            diagnostics: vec![Diagnostic::error(
                format!("cannot read `{}`: {err}", path.display()),
                None,
            )],
        },
    }
}

/// Parses in-memory source text registered under `virtual_path`.
pub fn parse_text(
    db: &SourceDb,
    virtual_path: &Path,
    text: &str,
    opts: &ParseOptions,
) -> ParseResult {
    parse_text_with(db, virtual_path, text, opts, true)
}

/// Parses a file already loaded into `db`.
pub fn parse_loaded(db: &SourceDb, file: FileId, opts: &ParseOptions) -> ParseResult {
    parse_loaded_with(db, file, opts, true)
}

/// Parses in-memory source text with the grammar alone, without the direct path that reads
/// declarations without pest: for tests that compare the two.
#[doc(hidden)]
pub fn parse_text_grammar_only(
    db: &SourceDb,
    virtual_path: &Path,
    text: &str,
    opts: &ParseOptions,
) -> ParseResult {
    parse_text_with(db, virtual_path, text, opts, false)
}

fn parse_text_with(
    db: &SourceDb,
    virtual_path: &Path,
    text: &str,
    opts: &ParseOptions,
    direct: bool,
) -> ParseResult {
    let file = source::add_text(db, virtual_path, text.to_string());
    parse_loaded_with(db, file, opts, direct)
}

fn parse_loaded_with(
    db: &SourceDb,
    file: FileId,
    opts: &ParseOptions,
    direct: bool,
) -> ParseResult {
    init_limits();
    let pp = preprocess(db, file, opts);
    let toks = tokens::lex(&pp.text);
    let mut diagnostics = pp.diagnostics.clone();
    let unit = match run_driver(&pp, &toks, direct) {
        Ok((unit, mut diags)) => {
            diagnostics.append(&mut diags);
            Some(unit)
        }
        Err(message) => {
            diagnostics.push(Diagnostic::error(message, Some(pp.span(0, 0))));
            None
        }
    };
    diagnostics.sort_by_key(|d| d.span.map(|s| (s.file, s.start)));
    ParseResult {
        file: Some(file),
        unit,
        diagnostics,
    }
}

/// Nesting the grammar may reach on the caller's stack (a thread's stack is 2 MB at least;
/// a level takes up to about 3 KB of it in pest and the lowering).
pub(super) const INLINE_NESTING: usize = 200;
/// Nesting beyond which a file is refused rather than parsed on a large stack.
const MAX_NESTING_BOUND: usize = 40_000;
/// Stack of the thread that parses deeply nested files (reserved, not committed, up front).
const DEEP_STACK: usize = 256 << 20;

/// Runs the driver over the tokens, on this thread when their nesting is shallow (all real
/// code) and on a thread with a large stack otherwise, so deep nesting cannot overflow a stack.
///
/// Only the grammar and the lowering of its pairs recurse as deep as the input nests (the
/// direct path and the driver have limits of their own), so the bound is computed when the
/// grammar is first needed: a file the direct path reads whole needs none. When the bound is
/// too deep for this thread, the driver stops calling the grammar and its result is dropped
/// for a run on a large stack.
fn run_driver(
    pp: &Preprocessed,
    toks: &Tokens,
    direct: bool,
) -> Result<(ast::Unit, Vec<Diagnostic>), String> {
    let mut driver = Driver::new(pp, toks, direct);
    let unit = driver.unit();
    let Stack::Deep(bound) = driver.stack else {
        return Ok((unit, driver.diags));
    };
    let drive = || {
        let mut driver = Driver::new(pp, toks, direct);
        driver.stack = Stack::LargeThread;
        let unit = driver.unit();
        (unit, driver.diags)
    };
    if bound > MAX_NESTING_BOUND {
        return Err(format!(
            "declarations nested deeper than {MAX_NESTING_BOUND} levels (brackets, records and \
             type prefixes); the file is not parsed"
        ));
    }
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("delphi-mcp-deep-parse".into())
            .stack_size(DEEP_STACK)
            .spawn_scoped(scope, drive)
            .map_err(|e| format!("cannot start a thread to parse deeply nested code: {e}"))?
            .join()
            .map_err(|_| "the parser failed on deeply nested code".to_string())
    })
}

/// Bounds the work of one grammar call, so no input can make pest run away.
fn init_limits() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| pest::set_call_limit(std::num::NonZeroUsize::new(50_000_000)));
}
