//! The top-level parser: preprocessing, the item-by-item drive of the grammar, error recovery.
//!
//! pest has no error recovery, so the driver parses one declaration at a time: it looks at the
//! next keyword with the token scanner of `scan.rs`, calls the grammar rule for that item
//! (`type_decl`, `routine_decl`, ...) on the text from there, and skips routine bodies by block
//! structure. A syntax error becomes a diagnostic and the driver resumes at the next line that
//! starts a declaration, so every error of a file is reported and the rest of the unit is kept.
//!
//! Before the grammar, each item is offered to the direct path (`direct.rs`), which reads
//! declarations straight into the tree by the grammar's rules and leaves errors and a few rare
//! forms to the grammar.

use crate::ast::{self, Decl, SectionKind, UnitKind};
use crate::diagnostic::Diagnostic;
use crate::direct::Direct;
use crate::grammar::{DelphiParser, Rule};
use crate::lower::{Lower, Members};
use crate::options::ParseOptions;
use crate::preprocess::{preprocess, Preprocessed};
use crate::scan::{self, StmtEnd, Tok, TokKind};
use crate::source;
use crate::span::{FileId, SourceDb, Span};
use crate::tokens::{self, Tokens, CODE_WIDTH};
use pest::iterators::Pair;
use pest::Parser as _;
use std::cell::Cell;
use std::path::Path;
use std::sync::{PoisonError, RwLock};

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
/// declarations without pest (`direct.rs`): for tests that compare the two.
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
const INLINE_NESTING: usize = 200;
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

/// Held to read while the grammar runs, and to write while a failed item is run again with
/// pest's error detail: that switch is process-wide, and parses on other threads (files are
/// parsed in parallel) must not see it on (their expected tokens would differ from run to run)
/// or switch it off under the re-run. Recording the detail on every run instead halves the
/// speed of files the grammar reads much of.
static GRAMMAR: RwLock<()> = RwLock::new(());

/// Token codes the driver looks at (`tokens::punct_code`, `tokens::kw`).
const OPEN_BRACKET: u32 = 0x100 + b'[' as u32;
const OPERATOR: u32 = tokens::kw("operator") as u32;
const BLOCK: u32 = tokens::BLOCK as u32;
const K_BEGIN: u32 = tokens::kw("begin") as u32;
const K_CLASS: u32 = tokens::kw("class") as u32;
const K_CONST: u32 = tokens::kw("const") as u32;
const K_CONSTRUCTOR: u32 = tokens::kw("constructor") as u32;
const K_CONTAINS: u32 = tokens::kw("contains") as u32;
const K_DESTRUCTOR: u32 = tokens::kw("destructor") as u32;
const K_END: u32 = tokens::kw("end") as u32;
const K_EXPORTS: u32 = tokens::kw("exports") as u32;
const K_FINALIZATION: u32 = tokens::kw("finalization") as u32;
const K_FUNCTION: u32 = tokens::kw("function") as u32;
const K_IMPLEMENTATION: u32 = tokens::kw("implementation") as u32;
const K_INITIALIZATION: u32 = tokens::kw("initialization") as u32;
const K_LABEL: u32 = tokens::kw("label") as u32;
const K_PROCEDURE: u32 = tokens::kw("procedure") as u32;
const K_PROPERTY: u32 = tokens::kw("property") as u32;
const K_REQUIRES: u32 = tokens::kw("requires") as u32;
const K_RESOURCESTRING: u32 = tokens::kw("resourcestring") as u32;
const K_THREADVAR: u32 = tokens::kw("threadvar") as u32;
const K_TYPE: u32 = tokens::kw("type") as u32;
const K_USES: u32 = tokens::kw("uses") as u32;
const K_VAR: u32 = tokens::kw("var") as u32;

/// What a word does in a section's loop.
enum SectionWord {
    /// Ends the section (`implementation`, `begin`, `end`, ...).
    Ends,
    /// Starts a uses clause (`uses`, and a package's `requires` / `contains`).
    Uses,
    /// Anything else: a declaration or an error.
    Other,
}

/// What declaration a token starts.
enum DeclWord {
    /// `[`: attributes before a routine, or standing alone.
    Attributes,
    /// `const` or `resourcestring`.
    Const { resourcestring: bool },
    /// `type`.
    Type,
    /// `var` or `threadvar`.
    Var { threadvar: bool },
    /// `label`.
    Label,
    /// `property` (FPC's unit-level properties).
    Property,
    /// `exports`.
    Exports,
    /// `procedure`, `function`, `constructor`, `destructor`, `class`.
    Routine,
    /// `operator`: a routine unless a `:` follows (then a name).
    Operator,
    /// No declaration starts here.
    None,
}

/// Bounds the work of one grammar call, so no input can make pest run away.
fn init_limits() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| pest::set_call_limit(std::num::NonZeroUsize::new(50_000_000)));
}

/// Deepest nesting of routines the driver follows.
const MAX_NESTING: u32 = 64;

/// What the driver knows of the stack the grammar needs: the nesting it may recurse on.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stack {
    /// Not computed yet: the grammar has not been needed.
    Unknown,
    /// Shallow enough for the caller's stack.
    Shallow,
    /// Too deep for the caller's stack (the bound): the grammar is not called.
    Deep(usize),
    /// Running on a thread with a large stack.
    LargeThread,
}

/// Where parsing an item left off.
type ItemResult<'i> = Result<(Pair<'i, Rule>, usize, usize), ()>;

struct Driver<'a> {
    pp: &'a Preprocessed,
    toks: &'a Tokens,
    text: &'a str,
    diags: Vec<Diagnostic>,
    nesting: u32,
    /// Whether declarations are read by the direct path before the grammar is tried.
    direct: bool,
    /// Whether the grammar may run on this thread's stack.
    stack: Stack,
    /// The token index of the last lookup or read: where the next lookup most likely lands.
    cursor: Cell<usize>,
}

fn is_routine_word(w: &str) -> bool {
    [
        "procedure",
        "function",
        "constructor",
        "destructor",
        "class",
        "operator",
    ]
    .iter()
    .any(|k| w.eq_ignore_ascii_case(k))
}

/// `word` in ASCII lower case in `buf`, without an allocation; empty for words longer than
/// any keyword or not ASCII (which no keyword comparison matches).
fn lower_word<'b>(word: &str, buf: &'b mut [u8; 16]) -> &'b str {
    let Some(out) = buf.get_mut(..word.len()).filter(|_| word.is_ascii()) else {
        return "";
    };
    out.copy_from_slice(word.as_bytes());
    out.make_ascii_lowercase();
    std::str::from_utf8(out).unwrap_or("")
}

impl<'a> Driver<'a> {
    fn new(pp: &'a Preprocessed, toks: &'a Tokens, direct: bool) -> Self {
        Self {
            pp,
            toks,
            text: &pp.text,
            diags: Vec::new(),
            nesting: 0,
            direct,
            stack: Stack::Unknown,
            cursor: Cell::new(0),
        }
    }

    /// Index of the first token at or after `pos` of the text.
    fn index_at(&self, pos: usize) -> usize {
        let index = self.toks.index_near(pos, self.cursor.get());
        self.cursor.set(index);
        index
    }

    /// Index of the token that starts exactly at `pos` of the text.
    fn index_starting_at(&self, pos: usize) -> Option<usize> {
        let index = self.index_at(pos);
        self.toks.starts_at(index, pos).then_some(index)
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    fn span(&self, start: usize, end: usize) -> Span {
        self.pp.span(start, end)
    }

    fn tok(&self, pos: usize) -> Tok {
        scan::next_token(self.bytes(), pos)
    }

    /// A lowering context for an item whose input starts at `base` of the token string.
    fn lower(&self, base: usize) -> Lower<'a> {
        Lower {
            pp: self.pp,
            toks: self.toks,
            base,
            expr_depth: Default::default(),
        }
    }

    /// Reads the item at `pos` of the text with the direct path: the tree and the end of its
    /// last token in the text, or `None` when the item is left to the grammar.
    fn direct<T>(
        &self,
        pos: usize,
        read: impl FnOnce(&mut Direct) -> Option<T>,
    ) -> Option<(T, usize)> {
        if !self.direct {
            return None;
        }
        let base = self.index_at(pos) * CODE_WIDTH;
        let input = self.toks.code.get(base..)?;
        let lower = self.lower(base);
        let mut reader = Direct::new(&lower, input);
        let value = read(&mut reader)?;
        self.cursor.set((base + reader.pos()) / CODE_WIDTH);
        let (_, end) = self.toks.text_range(base, base + reader.pos());
        Some((value, end.max(pos)))
    }

    /// Whether the grammar may run here: the nesting bound is computed the first time.
    fn grammar_fits_stack(&mut self) -> bool {
        if self.stack == Stack::Unknown {
            let bound = tokens::nesting_bound(self.toks);
            self.stack = if bound <= INLINE_NESTING {
                Stack::Shallow
            } else {
                Stack::Deep(bound)
            };
        }
        !matches!(self.stack, Stack::Deep(_))
    }

    /// Runs `rule` on the tokens from `pos` of the text; on failure records a diagnostic.
    /// Returns the pair, the token-string offset its input starts at (for [`Self::lower`]),
    /// and the end of its last token in the text.
    fn item(&mut self, rule: Rule, pos: usize) -> ItemResult<'a> {
        if !self.grammar_fits_stack() {
            return Err(());
        }
        let code: &'a str = self.toks.code_str();
        let base = self.index_at(pos) * CODE_WIDTH;
        let Some(input) = code.get(base..) else {
            return Err(());
        };
        let parsed = {
            let _shared = GRAMMAR.read().unwrap_or_else(PoisonError::into_inner);
            DelphiParser::parse(rule, input)
        };
        match parsed {
            Ok(mut pairs) => match pairs.next() {
                Some(pair) => {
                    let s = pair.as_span();
                    let (_, end) = self.toks.text_range(base + s.start(), base + s.end());
                    Ok((pair, base, end.max(pos)))
                }
                None => Err(()),
            },
            Err(err) => {
                self.syntax_error(rule, base, input, err);
                Err(())
            }
        }
    }

    fn syntax_error(
        &mut self,
        rule: Rule,
        base: usize,
        input: &str,
        err: pest::error::Error<Rule>,
    ) {
        // Re-run with detailed attempts to name the expected tokens (only on this error path).
        let detailed = {
            let _alone = GRAMMAR.write().unwrap_or_else(PoisonError::into_inner);
            pest::set_error_detail(true);
            let detailed = DelphiParser::parse(rule, input).err();
            pest::set_error_detail(false);
            detailed
        };
        let err = detailed.unwrap_or(err);
        let attempts = err.parse_attempts();
        // pest places the error at the farthest failed rule; keywords (silent rules) and the
        // tokens behind look-aheads are only among the token attempts, which can reach
        // farther: the error is where the parse got stuck, at the farther of the two.
        let rule_at = match err.location {
            pest::error::InputLocation::Pos(p) => p,
            pest::error::InputLocation::Span((s, _)) => s,
        };
        let token_at = attempts.as_ref().map_or(0, |a| a.max_position);
        let at = rule_at.max(token_at);
        let pos = self.toks.text_start(base + at);
        let found = scan::token_at(self.bytes(), scan::skip_trivia(self.bytes(), pos));
        let found_text = found.text(self.text);
        let mut expected: Vec<String> = Vec::new();
        let message = match &err.variant {
            pest::error::ErrorVariant::CustomError { message } => {
                format!("syntax error: {message}")
            }
            pest::error::ErrorVariant::ParsingError { positives, .. } => {
                // The rule labels name what was expected at `rule_at`.
                let rules_named = rule_at >= token_at;
                if rules_named {
                    expected.extend(positives.iter().filter_map(|r| rule_label(*r)));
                }
                if let Some(attempts) = &attempts {
                    // Structural punctuation is worth naming; keywords and character classes
                    // are covered by the rule labels when those are about the same place.
                    const PUNCT: &[&str] =
                        &[";", ":", "=", ",", "(", ")", "[", "]", ".", "..", "<", ">"];
                    // Operators could follow almost any operand: naming them is noise.
                    const OPERATORS: &[&str] = &[
                        "and", "as", "div", "in", "is", "mod", "not", "or", "shl", "shr", "xor",
                    ];
                    for t in attempts.expected_tokens() {
                        let t = t.to_string();
                        if let Some(label) = range_label(&t) {
                            expected.push(label.to_string());
                        }
                        if let Some(word) = tokens::keyword_text(&t)
                            .filter(|w| !rules_named && !OPERATORS.contains(w))
                        {
                            expected.push(format!("`{word}`"));
                        }
                        let Some(t) = tokens::punct_text(&t) else {
                            continue;
                        };
                        if PUNCT.contains(&t.as_str()) {
                            expected.push(format!("`{t}`"));
                        }
                    }
                }
                if found.kind == TokKind::Eof {
                    "syntax error: unexpected end of file".to_string()
                } else {
                    format!("syntax error: unexpected `{}`", shorten(found_text))
                }
            }
        };
        // Reserved words that can start a directive (`library` also a hint) are covered by
        // those labels.
        let covered: &[&str] = if expected.iter().any(|e| e == "directive") {
            &["`dependency`", "`framework`", "`library`", "`public`"]
        } else if expected.iter().any(|e| e == "hint directive") {
            &["`library`"]
        } else {
            &[]
        };
        expected.retain(|e| !covered.contains(&e.as_str()));
        // A member declaration covers the ways one can start.
        if expected.iter().any(|e| e == "member declaration") {
            expected.retain(|e| e != "routine heading" && e != "visibility");
        }
        expected.sort();
        expected.dedup();
        expected.truncate(16);
        let start = found.start.min(self.text.len());
        let mut d = Diagnostic::error(
            message,
            Some(self.span(start, found.end.max(start).min(self.text.len()))),
        );
        d.expected = expected;
        self.diags.push(d);
    }

    fn error_at(&mut self, pos: usize, end: usize, message: impl Into<String>) {
        let d = Diagnostic::error(message, Some(self.span(pos, end)));
        self.diags.push(d);
    }

    /// Where to continue after an error in the item that starts at `item_start`: the next
    /// token first on its line that starts a declaration at the item's indentation or less.
    fn recover(&self, item_start: usize, after: usize, in_section: bool) -> usize {
        let b = self.bytes();
        let (item_col, _) = scan::column(b, item_start);
        let mut i = after.max(item_start + 1).min(b.len());
        loop {
            let t = self.tok(i);
            if t.kind == TokKind::Eof {
                return b.len();
            }
            i = t.end.max(i + 1);
            if t.kind != TokKind::Word {
                continue;
            }
            let Some(col) = scan::column_if_first(b, t.start) else {
                continue;
            };
            let w = t.text(self.text);
            let lw = w.to_ascii_lowercase();
            match lw.as_str() {
                "implementation" | "initialization" | "finalization" => return t.start,
                "end" if self.tok(t.end).is_punct(self.text, ".") => return t.start,
                "type" | "const" | "var" | "threadvar" | "resourcestring" | "procedure"
                | "function" | "constructor" | "destructor" | "class" | "label" | "exports"
                | "uses"
                    if col <= item_col =>
                {
                    return t.start
                }
                _ if in_section && col == item_col && !tokens::is_reserved_word(w) => {
                    let next = self.tok(t.end);
                    let nt = next.text(self.text);
                    if matches!(nt, "=" | ":" | "<" | ",") {
                        return t.start;
                    }
                }
                _ => {}
            }
        }
    }

    // -------------------------------------------------------------------- unit

    fn unit(&mut self) -> ast::Unit {
        let len = self.text.len();
        let mut pos = scan::skip_trivia(self.bytes(), 0);
        let first = self.tok(pos);
        let head_word = first.kind == TokKind::Word
            && ["unit", "program", "library", "package"]
                .iter()
                .any(|k| first.is(self.text, k));
        let mut kind = UnitKind::Program;
        let mut name = ast::Text::default();
        let mut name_span = self.span(pos, pos);
        let mut hints = Vec::new();
        if head_word {
            let head = match self.direct(pos, |d| d.unit_head()) {
                Some(read) => Ok(read),
                None => self
                    .item(Rule::unit_head, pos)
                    .map(|(pair, base, end)| (self.lower(base).unit_head(pair), end)),
            };
            match head {
                Ok(((k, n, s, h), end)) => {
                    (kind, name, name_span, hints) = (k, n, s, h);
                    pos = end;
                }
                Err(()) => {
                    kind = match first.text(self.text).to_ascii_lowercase().as_str() {
                        "unit" => UnitKind::Unit,
                        "library" => UnitKind::Library,
                        "package" => UnitKind::Package,
                        _ => UnitKind::Program,
                    };
                    pos = self.skip_past_semicolon(first.end);
                }
            }
        }
        let mut sections = Vec::new();
        if kind == UnitKind::Unit {
            let t = self.tok(pos);
            if t.is(self.text, "interface") {
                pos = t.end;
            } else {
                self.error_at(t.start, t.end, "expected `interface`");
            }
            let (s, p) = self.section(SectionKind::Interface, pos);
            sections.push(s);
            pos = p;
            let t = self.tok(pos);
            if t.is(self.text, "implementation") {
                let (s, p) = self.section(SectionKind::Implementation, t.end);
                sections.push(s);
                pos = p;
            } else {
                self.error_at(t.start, t.end, "expected `implementation`");
            }
        } else {
            let (s, p) = self.section(SectionKind::Main, pos);
            sections.push(s);
            pos = p;
        }
        // initialization / finalization / main block, then `end.`
        let t = self.tok(pos);
        let mut init_span = None;
        if t.is(self.text, "initialization") || t.is(self.text, "finalization") {
            let mut at = t.end;
            loop {
                match scan::skip_statements(self.text, at, 0) {
                    StmtEnd::Stop(stop) if stop.is(self.text, "finalization") => at = stop.end,
                    StmtEnd::Stop(stop) => {
                        init_span = Some(self.span(t.start, stop.end));
                        pos = stop.end;
                        break;
                    }
                    StmtEnd::Eof => {
                        self.error_at(t.start, t.end, "missing `end.` after this section");
                        return self.finish(kind, name, name_span, hints, sections, None);
                    }
                }
            }
            self.expect_final_dot(pos);
        } else if t.is(self.text, "begin") {
            match scan::skip_statements(self.text, t.end, 1) {
                StmtEnd::Stop(stop) => {
                    init_span = Some(self.span(t.start, stop.end));
                    self.expect_final_dot(stop.end);
                }
                StmtEnd::Eof => {
                    self.error_at(t.start, t.end, "this `begin` has no matching `end.`");
                }
            }
        } else if t.is(self.text, "end") {
            self.expect_final_dot(t.end);
        } else if t.kind == TokKind::Eof {
            self.error_at(len, len, "missing `end.` at the end of the file");
        } else {
            self.error_at(
                t.start,
                t.end,
                format!("syntax error: unexpected `{}`", shorten(t.text(self.text))),
            );
        }
        self.finish(kind, name, name_span, hints, sections, init_span)
    }

    fn finish(
        &self,
        kind: UnitKind,
        name: ast::Text,
        name_span: Span,
        hints: Vec<ast::Directive>,
        sections: Vec<ast::Section>,
        init_span: Option<Span>,
    ) -> ast::Unit {
        ast::Unit {
            kind,
            name,
            name_span,
            hints,
            sections,
            init_span,
            span: self.span(0, self.text.len()),
        }
    }

    fn expect_final_dot(&mut self, pos: usize) {
        let t = self.tok(pos);
        if !t.is_punct(self.text, ".") {
            self.error_at(t.start, t.end, "expected `.` after the final `end`");
        }
    }

    fn skip_past_semicolon(&self, mut pos: usize) -> usize {
        loop {
            let t = self.tok(pos);
            if t.kind == TokKind::Eof {
                return t.start;
            }
            if t.is_punct(self.text, ";") {
                return t.end;
            }
            pos = t.end;
        }
    }

    // -------------------------------------------------------------------- sections

    fn section(&mut self, kind: SectionKind, mut pos: usize) -> (ast::Section, usize) {
        let start = scan::skip_trivia(self.bytes(), pos);
        let mut uses = Vec::new();
        let mut decls = Vec::new();
        let mut last_end = start;
        loop {
            pos = scan::skip_trivia(self.bytes(), pos);
            let t = scan::token_at(self.bytes(), pos);
            if t.kind == TokKind::Eof {
                break;
            }
            let next = match self.section_word(pos, &t) {
                SectionWord::Ends => break,
                SectionWord::Uses => {
                    if let Some((clause, end)) = self.direct(pos, |d| d.uses_clause()) {
                        uses.push(clause);
                        end
                    } else {
                        match self.item(Rule::uses_clause, pos) {
                            Ok((pair, base, end)) => {
                                uses.push(self.lower(base).uses_clause(pair));
                                end
                            }
                            Err(()) => self.recover(pos, pos, false),
                        }
                    }
                }
                _ => match self.decl(kind != SectionKind::Interface, pos, t) {
                    Some((decl, end)) => {
                        if let Some(decl) = decl {
                            decls.push(decl);
                        }
                        end
                    }
                    None => {
                        let msg = format!(
                            "syntax error: unexpected `{}`, expected a declaration",
                            shorten(t.text(self.text))
                        );
                        self.error_at(t.start, t.end, msg);
                        self.recover(pos, t.end, false)
                    }
                },
            };
            last_end = next.max(last_end);
            pos = next.max(pos + 1).min(self.text.len());
        }
        let section = ast::Section {
            kind,
            uses,
            decls,
            span: self.span(start, last_end.max(start)),
        };
        (section, pos)
    }

    /// One declaration at `pos` (`t` is its first token). `None` when `pos` does not start a
    /// declaration; `Some((None, end))` when the item was consumed with errors.
    fn decl(&mut self, with_bodies: bool, pos: usize, t: Tok) -> Option<(Option<Decl>, usize)> {
        let head = self.decl_word(pos, &t);
        Some(match head {
            DeclWord::Attributes => {
                // attributes before a routine
                let after = scan::skip_brackets(self.text, pos);
                let n = scan::token_at(self.bytes(), after);
                if n.kind == TokKind::Word && is_routine_word(n.text(self.text)) {
                    return Some(self.routine(with_bodies, pos));
                }
                // Attributes that stand alone (`[assembly: Foo]`) or precede a section keyword.
                match self.item(Rule::attributes, pos) {
                    Ok((_, _, end)) => (None, end),
                    Err(()) => (None, self.recover(pos, pos, false)),
                }
            }
            DeclWord::Const { resourcestring } => self.const_section(pos, t.end, resourcestring),
            DeclWord::Type => self.type_section(pos, t.end),
            DeclWord::Var { threadvar } => self.var_section(pos, t.end, threadvar),
            DeclWord::Label => self.simple_item(Rule::label_decl, pos, "label"),
            // FPC's unit-level properties.
            DeclWord::Property => self.simple_item(Rule::property_decl, pos, "property"),
            DeclWord::Exports => self.simple_item(Rule::exports_decl, pos, "exports"),
            DeclWord::Routine => self.routine(with_bodies, pos),
            DeclWord::Operator if !self.tok(t.end).is_punct(self.text, ":") => {
                self.routine(with_bodies, pos)
            }
            DeclWord::Operator | DeclWord::None => return None,
        })
    }

    /// What the word at `pos` (past trivia; `t` is its token) does in a section loop.
    fn section_word(&self, pos: usize, t: &Tok) -> SectionWord {
        // told by the token's code where a token of the lexer starts here
        if let Some(i) = self.index_starting_at(pos) {
            return match self.toks.code_of(i) {
                K_IMPLEMENTATION | K_INITIALIZATION | K_FINALIZATION | K_BEGIN | K_END => {
                    SectionWord::Ends
                }
                // a whole `begin` or `asm` block
                BLOCK if self.bytes()[pos] | 0x20 == b'b' => SectionWord::Ends,
                K_USES | K_REQUIRES | K_CONTAINS => SectionWord::Uses,
                _ => SectionWord::Other,
            };
        }
        let mut buf = [0; 16];
        match lower_word(t.text(self.text), &mut buf) {
            "implementation" | "initialization" | "finalization" | "begin" | "end"
                if t.kind == TokKind::Word =>
            {
                SectionWord::Ends
            }
            "uses" | "requires" | "contains" if t.kind == TokKind::Word => SectionWord::Uses,
            _ => SectionWord::Other,
        }
    }

    /// What declaration the token `t` at `pos` starts.
    fn decl_word(&self, pos: usize, t: &Tok) -> DeclWord {
        if let Some(i) = self.index_starting_at(pos) {
            return match self.toks.code_of(i) {
                OPEN_BRACKET if t.is_punct(self.text, "[") => DeclWord::Attributes,
                K_CONST => DeclWord::Const {
                    resourcestring: false,
                },
                K_RESOURCESTRING => DeclWord::Const {
                    resourcestring: true,
                },
                K_TYPE => DeclWord::Type,
                K_VAR => DeclWord::Var { threadvar: false },
                K_THREADVAR => DeclWord::Var { threadvar: true },
                K_LABEL => DeclWord::Label,
                K_PROPERTY => DeclWord::Property,
                K_EXPORTS => DeclWord::Exports,
                K_PROCEDURE | K_FUNCTION | K_CONSTRUCTOR | K_DESTRUCTOR | K_CLASS => {
                    DeclWord::Routine
                }
                OPERATOR => DeclWord::Operator,
                _ => DeclWord::None,
            };
        }
        if t.kind == TokKind::Punct && t.text(self.text) == "[" {
            return DeclWord::Attributes;
        }
        if t.kind != TokKind::Word {
            return DeclWord::None;
        }
        let mut buf = [0; 16];
        match lower_word(t.text(self.text), &mut buf) {
            "const" => DeclWord::Const {
                resourcestring: false,
            },
            "resourcestring" => DeclWord::Const {
                resourcestring: true,
            },
            "type" => DeclWord::Type,
            "var" => DeclWord::Var { threadvar: false },
            "threadvar" => DeclWord::Var { threadvar: true },
            "label" => DeclWord::Label,
            "property" => DeclWord::Property,
            "exports" => DeclWord::Exports,
            "procedure" | "function" | "constructor" | "destructor" | "class" => DeclWord::Routine,
            "operator" => DeclWord::Operator,
            _ => DeclWord::None,
        }
    }

    fn simple_item(&mut self, rule: Rule, pos: usize, keyword: &str) -> (Option<Decl>, usize) {
        if let Some((decl, end)) = self.direct(pos, |d| d.other_decl()) {
            return (Some(Decl::Other(decl)), end);
        }
        match self.item(rule, pos) {
            Ok((pair, base, end)) => (
                Some(Decl::Other(self.lower(base).other_decl(pair, keyword))),
                end,
            ),
            Err(()) => (None, self.recover(pos, pos, false)),
        }
    }

    /// True when `pos` starts an item of a const/type/var section (an identifier, possibly
    /// after attributes).
    fn starts_item(&self, pos: usize) -> bool {
        // Most items start with a plain name: told by its token's code. Attributes, the
        // `operator` name and positions inside a statement block are read from the text.
        if let Some(i) = self.index_starting_at(pos) {
            let code = self.toks.code_of(i);
            if code != OPERATOR && code != OPEN_BRACKET {
                return tokens::is_name_code(code);
            }
        }
        let after = scan::skip_brackets(self.text, pos);
        let t = scan::token_at(self.bytes(), after);
        if t.kind != TokKind::Word {
            return false;
        }
        let w = t.text(self.text);
        if w.starts_with('&') {
            return true;
        }
        if tokens::is_reserved_word(w) {
            return false;
        }
        if w.eq_ignore_ascii_case("operator") {
            let n = self.tok(t.end);
            // `Operator = (A, B: TPoint): Boolean` is FPC's equality operator, not a constant.
            let fpc_equality =
                n.is_punct(self.text, "=") && self.tok(n.end).is_punct(self.text, "(");
            return n.is_punct(self.text, ":")
                || n.is_punct(self.text, ",")
                || (n.is_punct(self.text, "=") && !fpc_equality);
        }
        true
    }

    /// Items of a section started by the keyword at `kw_start..kw_end`.
    /// `fallback` gets a second chance at an item that failed as a whole (with the failure's
    /// diagnostics dropped when it takes the item).
    /// `direct` reads an item without the grammar when it can (adding to the items only then).
    fn section_items<T>(
        &mut self,
        kw_end: usize,
        rule: Rule,
        direct: fn(&mut Direct, &mut Vec<T>) -> Option<()>,
        mut lower: impl FnMut(&Lower<'a>, Pair<'a, Rule>, &mut Vec<T>),
        fallback: fn(&mut Self, usize) -> Option<(T, usize)>,
    ) -> (Vec<T>, usize, usize) {
        let mut items = Vec::new();
        let mut pos = kw_end;
        let mut last_end = kw_end;
        loop {
            pos = scan::skip_trivia(self.bytes(), pos);
            if !self.starts_item(pos) {
                break;
            }
            if let Some(((), end)) = self.direct(pos, |d| direct(d, &mut items)) {
                pos = end;
                last_end = end;
                continue;
            }
            let errors_before = self.diags.len();
            match self.item(rule, pos) {
                Ok((pair, base, end)) => {
                    let l = self.lower(base);
                    lower(&l, pair, &mut items);
                    pos = end;
                    last_end = end;
                }
                Err(()) => {
                    let whole_failure = self.diags.split_off(errors_before);
                    if let Some((item, end)) = fallback(self, pos) {
                        items.push(item);
                        pos = end;
                        last_end = end;
                        continue;
                    }
                    self.diags.extend(whole_failure);
                    let next = self.recover(pos, pos, true);
                    last_end = next;
                    pos = next;
                }
            }
        }
        (items, pos, last_end)
    }

    fn const_section(&mut self, start: usize, kw_end: usize, rs: bool) -> (Option<Decl>, usize) {
        let (items, pos, last) = self.section_items(
            kw_end,
            Rule::const_decl,
            |d, out| d.const_decl(out),
            |l, p, out| out.push(l.const_decl(p)),
            |_, _| None,
        );
        let span = self.span(start, last);
        (
            Some(Decl::Const(ast::ConstSection {
                resourcestring: rs,
                items,
                span,
            })),
            pos,
        )
    }

    fn type_section(&mut self, start: usize, kw_end: usize) -> (Option<Decl>, usize) {
        let (items, pos, last) = self.section_items(
            kw_end,
            Rule::type_decl,
            |d, out| d.type_decl().map(|t| out.push(t)),
            |l, p, out| out.push(l.type_decl(p)),
            Self::structured_by_members,
        );
        let span = self.span(start, last);
        (Some(Decl::Type(ast::TypeSection { items, span })), pos)
    }

    /// Reads a class, record, interface or helper declaration piece by piece after it failed
    /// as a whole: its head, then one member at a time (a bad member is reported and skipped),
    /// then its `end`. `None` when even the head does not parse.
    fn structured_by_members(&mut self, pos: usize) -> Option<(ast::TypeDecl, usize)> {
        let errors_before = self.diags.len();
        let Ok((head, base, mut at)) = self.item(Rule::struct_head, pos) else {
            self.diags.truncate(errors_before);
            return None;
        };
        let mut decl = self.lower(base).type_decl(head);
        let ast::TypeDef::Structured(st) = &mut decl.def else {
            return None;
        };
        let mut members = Members::after(std::mem::take(&mut st.sections));
        loop {
            let t = self.tok(at);
            if t.kind == TokKind::Eof {
                self.error_at(t.start, t.end, "unexpected end of file, expected `end`");
                break;
            }
            if t.is(self.text, "end") {
                at = match self.item(Rule::struct_tail, at) {
                    Ok((_, _, end)) => end,
                    Err(()) => self.recover(pos, t.end, true),
                };
                break;
            }
            match self.item(Rule::member_item, at) {
                Ok((pair, base, end)) => {
                    self.lower(base).members(pair.into_inner(), &mut members);
                    at = end.max(t.end);
                }
                Err(()) => at = self.skip_member(at),
            }
        }
        if let ast::TypeDef::Structured(st) = &mut decl.def {
            st.sections = members.finish();
        }
        decl.span = self.span(pos, at);
        Some((decl, at))
    }

    /// Where the member after a bad one at `pos` starts: after the next `;` outside brackets,
    /// or at a word that starts a line and can only start a member or end the type.
    fn skip_member(&self, pos: usize) -> usize {
        const MEMBER_START: &[&str] = &[
            "end",
            "procedure",
            "function",
            "constructor",
            "destructor",
            "property",
            "class",
            "private",
            "protected",
            "public",
            "published",
            "strict",
            "var",
            "const",
            "type",
        ];
        let b = self.bytes();
        let first = self.tok(pos);
        let mut depth = 0usize;
        let mut at = first.end;
        loop {
            let t = self.tok(at);
            if t.kind == TokKind::Eof {
                return t.start;
            }
            match t.text(self.text) {
                "(" | "[" => depth += 1,
                ")" | "]" => depth = depth.saturating_sub(1),
                ";" if depth == 0 => return t.end,
                w if t.kind == TokKind::Word
                    && scan::column_if_first(b, t.start).is_some()
                    && MEMBER_START.iter().any(|k| w.eq_ignore_ascii_case(k)) =>
                {
                    return t.start
                }
                _ => {}
            }
            at = t.end.max(at + 1);
        }
    }

    fn var_section(&mut self, start: usize, kw_end: usize, tv: bool) -> (Option<Decl>, usize) {
        let (items, pos, last) = self.section_items(
            kw_end,
            Rule::var_decl,
            |d, out| d.var_decl(out),
            |l, p, out| out.extend(l.var_decl(p)),
            |_, _| None,
        );
        let span = self.span(start, last);
        (
            Some(Decl::Var(ast::VarSection {
                threadvar: tv,
                items,
                span,
            })),
            pos,
        )
    }

    // -------------------------------------------------------------------- routines

    fn routine(&mut self, with_body: bool, pos: usize) -> (Option<Decl>, usize) {
        let (mut r, end) = match self.direct(pos, |d| d.routine_decl()) {
            Some(read) => read,
            None => match self.item(Rule::routine_decl, pos) {
                Ok((pair, base, end)) => (self.lower(base).routine_decl(pair), end),
                Err(()) => return (None, self.recover(pos, pos, false)),
            },
        };
        let no_body = r.has_directive("forward") || r.has_directive("external");
        if !with_body || no_body {
            r.forward = true;
            return (Some(Decl::Routine(r)), end);
        }
        let body = self.body(end);
        r.nested = body.nested;
        match body.extent {
            Ok((body_start, body_end)) => {
                r.body_span = Some(self.span(body_start, body_end));
                (Some(Decl::Routine(r)), body_end)
            }
            Err(resume) => (Some(Decl::Routine(r)), resume.max(end)),
        }
    }

    /// Reads a routine body from `pos` (after the heading): local sections are skipped,
    /// nested routines are parsed like any routine, and the `begin`/`asm` block is skipped.
    fn body(&mut self, pos: usize) -> Body {
        let body_start = scan::skip_trivia(self.bytes(), pos);
        if self.nesting >= MAX_NESTING {
            self.error_at(body_start, body_start, "routines nested too deeply");
            return Body {
                extent: Err(self.text.len()),
                nested: Vec::new(),
            };
        }
        self.nesting += 1;
        let mut nested = Vec::new();
        let end = self.body_inner(body_start, &mut nested);
        self.nesting -= 1;
        Body {
            extent: end.map(|end| (body_start, end)),
            nested,
        }
    }

    fn body_inner(&mut self, start: usize, nested: &mut Vec<ast::Routine>) -> Result<usize, usize> {
        let mut pos = start;
        loop {
            let t = self.tok(pos);
            let failure = match scan::body_part(self.text, &t) {
                scan::BodyPart::Block => {
                    if let Some(end) = self
                        .index_starting_at(t.start)
                        .and_then(|i| self.toks.block_end(i))
                    {
                        return Ok(end);
                    }
                    match scan::skip_block(self.text, &t) {
                        Ok(end) => return Ok(end),
                        Err(e) => e,
                    }
                }
                scan::BodyPart::Section => {
                    pos = scan::skip_local_section(self.text, t.end);
                    continue;
                }
                scan::BodyPart::Attributes
                    if !is_routine_word(
                        self.tok(scan::skip_brackets(self.text, t.start))
                            .text(self.text),
                    ) =>
                {
                    pos = scan::skip_brackets(self.text, t.start);
                    continue;
                }
                scan::BodyPart::Routine | scan::BodyPart::Attributes => {
                    let (decl, end) = self.routine(true, t.start);
                    if let Some(Decl::Routine(r)) = decl {
                        nested.push(r);
                    }
                    pos = end.max(t.end);
                    continue;
                }
                scan::BodyPart::Unexpected => scan::unexpected_in_body(self.text, &t),
            };
            let (err_start, err_end, message) = failure;
            self.error_at(err_start, err_end, message);
            return Err(self.recover(start, err_end, false));
        }
    }
}

/// What reading a routine body found.
struct Body {
    /// Start and end of the body, or where to resume after an error.
    extent: Result<(usize, usize), usize>,
    /// Routines declared in the body.
    nested: Vec<ast::Routine>,
}

/// First line of a token, at most 40 characters.
fn shorten(text: &str) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() > 40 {
        let cut: String = line.chars().take(40).collect();
        format!("{cut}…")
    } else {
        line.to_string()
    }
}

/// The label of a word class the grammar matches as a range of codes (`U+028A..U+02BB`), by
/// its first and last word (see SOFT in tokens.rs); the grammar looks ahead for these before
/// trying the rules, so the rules' own labels are not among the attempts.
fn range_label(token: &str) -> Option<&'static str> {
    let (first, last) = token.split_once("..")?;
    let range = (first.chars().next()?, last.chars().next()?);
    let class = |from: &str, to: &str| range == (tokens::kw(from), tokens::kw(to));
    if class("dispid", "platform") {
        Some("directive")
    } else if class("deprecated", "platform") {
        Some("hint directive")
    } else if class("cdecl", "winapi") {
        Some("calling convention")
    } else if class("add", "index") {
        Some("property specifier")
    } else if class("procedure", "class") || class("generic", "operator") {
        Some("routine heading")
    } else if class("strict", "automated") {
        Some("visibility")
    } else {
        None
    }
}

/// A readable name for a grammar rule in "expected" lists (`None` for internal rules).
fn rule_label(rule: Rule) -> Option<String> {
    let name = format!("{rule:?}");
    if let Some(kw) = name.strip_prefix("kw_") {
        return Some(format!("`{kw}`"));
    }
    let label = match rule {
        Rule::ident | Rule::ident_list | Rule::qualified_ident | Rule::dot_name => "identifier",
        Rule::string_lit | Rule::string_piece => "string",
        Rule::number => "number",
        Rule::expr | Rule::simple_expr | Rule::primary => "expression",
        Rule::type_ref | Rule::named_type | Rule::type_def => "type",
        Rule::directive | Rule::directive_name => "directive",
        Rule::attributes | Rule::attr_list => "attribute",
        Rule::hint | Rule::hint_name => "hint directive",
        Rule::member_item => "member declaration",
        Rule::visibility => "visibility",
        Rule::generic_params => "generic parameters",
        Rule::prop_spec_name => "property specifier",
        Rule::call_conv => "calling convention",
        Rule::param_group => "parameter",
        Rule::const_value => "value",
        Rule::generic_args => "generic arguments",
        Rule::type_decl => "type declaration",
        Rule::const_decl => "constant declaration",
        Rule::var_decl | Rule::field_decl => "field or variable declaration",
        Rule::routine_heading | Rule::routine_decl => "routine heading",
        Rule::property_decl => "property",
        Rule::uses_clause | Rule::used_unit => "unit name",
        Rule::enum_member => "enumeration member",
        Rule::heritage => "ancestor list",
        Rule::result_type => "result type",
        _ => return None,
    };
    Some(label.to_string())
}
