//! The driver: one declaration at a time, the direct path first, then the grammar.

use crate::ast::{self, Decl, SectionKind, UnitKind};
use crate::diagnostic::Diagnostic;
use crate::direct::Direct;
use crate::grammar::{DelphiParser, Rule};
use crate::lower::Lower;
use crate::preprocess::Preprocessed;
use crate::scan::{self, StmtEnd, Tok, TokKind};
use crate::span::Span;
use crate::tokens::codes::*;
use crate::tokens::{self, Tokens, CODE_WIDTH};
use crate::tree::ItemSource;
use pest::iterators::Pair;
use pest::Parser as _;
use std::cell::Cell;
use std::sync::{PoisonError, RwLock};

use super::errors::shorten;
use super::INLINE_NESTING;

/// Held to read while the grammar runs, and to write while a failed item is run again with
/// pest's error detail: that switch is process-wide, and parses on other threads (files are
/// parsed in parallel) must not see it on (their expected tokens would differ from run to run)
/// or switch it off under the re-run. Recording the detail on every run instead halves the
/// speed of files the grammar reads much of.
pub(super) static GRAMMAR: RwLock<()> = RwLock::new(());

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

/// Deepest nesting of routines the driver follows.
pub(super) const MAX_NESTING: u32 = 64;

/// What the driver knows of the stack the grammar needs: the nesting it may recurse on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Stack {
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
pub(super) type ItemResult<'i> = Result<(Pair<'i, Rule>, usize, usize), ()>;

pub(super) struct Driver<'a> {
    pub(super) pp: &'a Preprocessed,
    pub(super) toks: &'a Tokens,
    pub(super) text: &'a str,
    pub(super) diags: Vec<Diagnostic>,
    pub(super) nesting: u32,
    /// Whether declarations are read by the direct path before the grammar is tried.
    pub(super) direct: bool,
    /// Whether the grammar may run on this thread's stack.
    pub(super) stack: Stack,
    /// The token index of the last lookup or read: where the next lookup most likely lands.
    pub(super) cursor: Cell<usize>,
}

impl<'a> Driver<'a> {
    pub(super) fn new(pp: &'a Preprocessed, toks: &'a Tokens, direct: bool) -> Self {
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
    pub(super) fn index_starting_at(&self, pos: usize) -> Option<usize> {
        let index = self.index_at(pos);
        self.toks.starts_at(index, pos).then_some(index)
    }

    pub(super) fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    pub(super) fn span(&self, start: usize, end: usize) -> Span {
        self.pp.span(start, end)
    }

    pub(super) fn tok(&self, pos: usize) -> Tok {
        scan::next_token(self.bytes(), pos)
    }

    /// A lowering context for an item whose input starts at `base` of the token string.
    pub(super) fn lower(&self, base: usize) -> Lower<'a> {
        Lower::new(self.source(base))
    }

    /// The item whose input starts at `base` of the token string.
    fn source(&self, base: usize) -> ItemSource<'a> {
        ItemSource {
            pp: self.pp,
            toks: self.toks,
            base,
        }
    }

    /// Reads the item at `pos` of the text with the direct path: the tree and the end of its
    /// last token in the text, or `None` when the item is left to the grammar.
    pub(super) fn direct<T>(
        &self,
        pos: usize,
        read: impl FnOnce(&mut Direct) -> Option<T>,
    ) -> Option<(T, usize)> {
        if !self.direct {
            return None;
        }
        let base = self.index_at(pos) * CODE_WIDTH;
        let input = self.toks.code.get(base..)?;
        let source = self.source(base);
        let mut reader = Direct::new(&source, input);
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
    pub(super) fn item(&mut self, rule: Rule, pos: usize) -> ItemResult<'a> {
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

    pub(super) fn error_at(&mut self, pos: usize, end: usize, message: impl Into<String>) {
        let d = Diagnostic::error(message, Some(self.span(pos, end)));
        self.diags.push(d);
    }

    // -------------------------------------------------------------------- unit

    pub(super) fn unit(&mut self) -> ast::Unit {
        let len = self.text.len();
        let mut pos = scan::skip_trivia(self.bytes(), 0);
        let first = self.tok(pos);
        let first_code = code_of_word(first.text(self.text));
        let head_word = first.kind == TokKind::Word && is_unit_kind(first_code);
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
                    kind = match first_code {
                        K_UNIT => UnitKind::Unit,
                        K_LIBRARY => UnitKind::Library,
                        K_PACKAGE => UnitKind::Package,
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

    pub(super) fn finish(
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
                if n.kind == TokKind::Word && is_routine_start(code_of_word(n.text(self.text))) {
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
        // told by the token's code where a token of the lexer starts here, else by the word
        let code = match self.index_starting_at(pos) {
            Some(i) => self.toks.code_of(i),
            None if t.kind == TokKind::Word => code_of_word(t.text(self.text)),
            None => return SectionWord::Other,
        };
        match code {
            K_BEGIN | K_END => SectionWord::Ends,
            _ if is_unit_part(code) => SectionWord::Ends,
            // a whole `begin` or `asm` block
            C_BLOCK if self.bytes()[pos] | 0x20 == b'b' => SectionWord::Ends,
            K_USES | K_REQUIRES | K_CONTAINS => SectionWord::Uses,
            _ => SectionWord::Other,
        }
    }

    /// What declaration the token `t` at `pos` starts.
    fn decl_word(&self, pos: usize, t: &Tok) -> DeclWord {
        // told by the token's code where a token of the lexer starts here, else by the word
        let code = match self.index_starting_at(pos) {
            Some(i) => self.toks.code_of(i),
            None => match t.kind {
                TokKind::Punct if t.text(self.text) == "[" => LB,
                TokKind::Word => code_of_word(t.text(self.text)),
                _ => return DeclWord::None,
            },
        };
        match code {
            LB if t.is_punct(self.text, "[") => DeclWord::Attributes,
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
            K_PROCEDURE | K_FUNCTION | K_CONSTRUCTOR | K_DESTRUCTOR | K_CLASS => DeclWord::Routine,
            K_OPERATOR => DeclWord::Operator,
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
    pub(super) fn starts_item(&self, pos: usize) -> bool {
        // Most items start with a plain name: told by its token's code. Attributes, the
        // `operator` name and positions inside a statement block are read from the text.
        if let Some(i) = self.index_starting_at(pos) {
            let code = self.toks.code_of(i);
            if code != K_OPERATOR && code != LB {
                return is_name(code);
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
        let code = code_of_word(w);
        if is_reserved(code) {
            return false;
        }
        if code == K_OPERATOR {
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
}
