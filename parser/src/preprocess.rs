//! The preprocessor: evaluates conditional directives for a target and splices include files.
//!
//! One linear scan over each file, which only looks closer at quotes and comment openers:
//! a directive is a `{$...}` or `(*$...*)` outside strings and comments. The output
//! ([`Preprocessed::text`]) is the file's bytes with every directive and every inactive branch
//! replaced by spaces byte for byte (line breaks kept), so offsets into the main file do not
//! move, except that `{$I file}` is replaced by the preprocessed text of the included file;
//! [`Preprocessed::segments`] maps every stretch back to its file.
//!
//! Conditionals: `{$IFDEF}`, `{$IFNDEF}`, `{$IFOPT}`, `{$IF}`, `{$ELSEIF}`, `{$ELSE}`,
//! `{$ENDIF}`/`{$IFEND}` (either closes either), nested to any depth and placed anywhere;
//! `{$DEFINE}`/`{$UNDEF}` count only in active text. The symbols and constants come from the
//! target ([`crate::target`]), then `ParseOptions::defines`/`undefines`. `{$IF}` expressions are
//! described in [`expr`]; `Declared()` and constant look-ups in [`declared`].
//!
//! `{$IFOPT X+}` tests the switch state, which starts at the compiler defaults
//! (see [`default_switches`]) and follows `{$X+}`, `{$X-}` and the long forms
//! (`{$RANGECHECKS ON}`) in active text.
//!
//! Problems never stop the scan: an unterminated `{$IF}`, a stray `{$ELSE}`/`{$ENDIF}`, a
//! malformed expression, an include cycle or include depth over [`MAX_INCLUDE_DEPTH`] are
//! errors, and so is going over [`MAX_INCLUDE_EXPANSIONS`]; a missing include file is a
//! warning (real projects often lack their `.inc` files).

pub mod declared;
pub mod expr;
mod include;
mod lexer;

use crate::diagnostic::Diagnostic;
use crate::options::ParseOptions;
use crate::span::{FileId, SourceDb, Span};
use crate::target::{self, Compiler, ConstValue, Target};
use declared::DeclScan;
use expr::Value;
use lexer::{brace_end, first_ident, first_symbol, line_end, paren_star_end, skip_string};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;

/// Where the next `(*` at or after `from` starts (`b.len()` when there is none). `cache` holds
/// the answer for an earlier `from` (the callers' positions only grow); `*` is rare in code, so
/// it is searched for rather than `(`.
fn next_paren_star(b: &[u8], from: usize, cache: &mut Option<usize>) -> usize {
    if let Some(at) = *cache {
        if at >= from {
            return at;
        }
    }
    let mut j = from + 1;
    let at = loop {
        match b.get(j..).and_then(|rest| memchr::memchr(b'*', rest)) {
            Some(p) if b[j + p - 1] == b'(' => break j + p - 1,
            Some(p) => j += p + 1,
            None => break b.len(),
        }
    };
    *cache = Some(at);
    at
}

/// Deepest include nesting accepted (Delphi's own limit is similar).
pub const MAX_INCLUDE_DEPTH: usize = 32;

/// Most include expansions in one preprocessed unit. Files that include others several times
/// each could otherwise expand exponentially; real units stay far below this.
pub const MAX_INCLUDE_EXPANSIONS: usize = 10_000;

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
    /// The directives in active text other than conditionals, defines and includes
    /// (`{$R *.res}`, `{$MODE DELPHI}`, `{$SCOPEDENUMS ON}`, ...), in text order.
    pub directives: Vec<Directive>,
}

/// A stretch of preprocessed text copied from one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// A directive the preprocessor kept a note of and otherwise skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// The directive's name in upper case (`R`, `MODE`, `SCOPEDENUMS`, `M` for `{$M+}`).
    pub name: String,
    /// The text after the name, trimmed (`*.res`, `DELPHI`, `ON`, `+`).
    pub argument: String,
    /// Where the whole directive is, braces included.
    pub span: Span,
}

impl Preprocessed {
    /// Maps a range of the preprocessed text back to a span of an original file (the file of
    /// the segment holding `start`; the end is clamped to that segment).
    pub fn span(&self, start: usize, end: usize) -> Span {
        let Some(seg) = self.segment_at(start) else {
            return Span {
                file: FileId(0),
                start: start as u32,
                end: end.max(start) as u32,
            };
        };
        // (`clamp` would check its bounds on each of the many calls; they hold by construction)
        let start = start.max(seg.out_start).min(seg.out_end);
        let end = end.max(start).min(seg.out_end);
        Span {
            file: seg.file,
            start: (seg.file_start + (start - seg.out_start)) as u32,
            end: (seg.file_start + (end - seg.out_start)) as u32,
        }
    }

    /// The segment holding output offset `offset` (the last one for offsets at or past the end).
    pub fn segment_at(&self, offset: usize) -> Option<Segment> {
        // most files include nothing: one segment
        if let [only] = self.segments.as_slice() {
            return Some(*only);
        }
        let index = self
            .segments
            .partition_point(|s| s.out_end <= offset)
            .min(self.segments.len().checked_sub(1)?);
        self.segments.get(index).copied()
    }

    /// True when some diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Preprocesses `file` for `options`.
///
/// An unknown `options.target` gives an error diagnostic (listing the known targets) and the
/// default target is used, so the rest of the file is still read.
pub fn preprocess(db: &SourceDb, file: FileId, options: &ParseOptions) -> Preprocessed {
    let setup = Setup::for_options(options);
    let mut diagnostics = Vec::new();
    if let Some(error) = &setup.target_error {
        diagnostics.push(Diagnostic::error(error.clone(), None));
    }
    let switches = default_switches(setup.target.compiler);
    let source_len = db.get(file).text.len();
    let mut pp = Pp {
        db,
        options,
        defines: Defines {
            predefined: Rc::clone(&setup),
            defined: HashSet::new(),
            undefined: HashSet::new(),
        },
        setup,
        switches,
        out: Vec::with_capacity(source_len + 16),
        segments: Vec::new(),
        diagnostics,
        directives: Vec::new(),
        include_stack: Vec::new(),
        decls: None,
        used_unit_names: HashMap::new(),
        main: file,
        expansions: 0,
        nested_comments: false,
    };
    pp.run_file(file, 0);
    if pp.segments.is_empty() {
        pp.segments.push(Segment {
            out_start: 0,
            out_end: 0,
            file,
            file_start: 0,
        });
    }
    // Every byte copied is either a whole UTF-8 sequence or a space replacing one byte of a
    // blanked stretch that starts and ends at ASCII delimiters, so this never fails; the
    // fallback only keeps a programming error from panicking.
    let text = String::from_utf8(pp.out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Preprocessed {
        text,
        segments: pp.segments,
        diagnostics: pp.diagnostics,
        directives: pp.directives,
    }
}

/// The `{$IFOPT}` switch state a compiler starts with, indexed by letter (`A` = 0).
///
/// Delphi: `A+ B- C+ D+ E- F- G+ H+ I+ J- K- L+ M- N+ O+ P+ Q- R- S- T- U- V+ W- X+ Y+ Z-`
/// (the command-line compiler's defaults; a project's Debug configuration may differ).
/// Free Pascal: the same except `H-` (short strings unless `{$H+}` or `{$MODE DELPHI}`),
/// `C-` and `O-`.
pub fn default_switches(compiler: Compiler) -> [bool; 26] {
    let on = b"ACDGHILNOPVXY";
    let mut switches = [false; 26];
    for &letter in on {
        switches[(letter - b'A') as usize] = true;
    }
    if compiler == Compiler::Fpc {
        for letter in [b'H', b'C', b'O'] {
            switches[(letter - b'A') as usize] = false;
        }
    }
    switches
}

/// Long names of switch directives and their letters.
const LONG_SWITCHES: &[(&str, u8)] = &[
    ("ALIGN", b'A'),
    ("BOOLEVAL", b'B'),
    ("ASSERTIONS", b'C'),
    ("DEBUGINFO", b'D'),
    ("IMPORTEDDATA", b'G'),
    ("LONGSTRINGS", b'H'),
    ("IOCHECKS", b'I'),
    ("WRITEABLECONST", b'J'),
    ("LOCALSYMBOLS", b'L'),
    ("TYPEINFO", b'M'),
    ("OPTIMIZATION", b'O'),
    ("OPENSTRINGS", b'P'),
    ("OVERFLOWCHECKS", b'Q'),
    ("RANGECHECKS", b'R'),
    ("TYPEDADDRESS", b'T'),
    ("SAFEDIVIDE", b'U'),
    ("VARSTRINGCHECKS", b'V'),
    ("STACKFRAMES", b'W'),
    ("EXTENDEDSYNTAX", b'X'),
    ("REFERENCEINFO", b'Y'),
];

/// One open conditional block.
#[derive(Debug)]
struct Cond {
    /// Whether the text around the block is active.
    parent_active: bool,
    /// Whether some branch has been taken (later `{$ELSEIF}`/`{$ELSE}` branches are then off).
    taken: bool,
    /// Whether the current branch is active.
    active: bool,
    /// Whether `{$ELSE}` was seen.
    else_seen: bool,
    /// The opening directive.
    span: Span,
    /// Its name, for messages (`IFDEF`, `IF`, ...).
    opener: &'static str,
}

/// What every file preprocessed with the same options starts from: the target and the symbols
/// defined before the first line. Built once per thread for a set of options.
struct Setup {
    target: Target,
    /// Why the options' target was not found (the default target is used instead).
    target_error: Option<String>,
    /// The target's symbols with `-D` and `-U` applied, upper case.
    symbols: HashSet<String>,
}

impl Setup {
    /// The setup for `options`: the one made last on this thread when the options' target
    /// and symbols are the same.
    fn for_options(options: &ParseOptions) -> Rc<Setup> {
        type Key = (String, Vec<String>, Vec<String>);
        thread_local! {
            static LAST: std::cell::RefCell<Option<(Key, Rc<Setup>)>> = const { std::cell::RefCell::new(None) };
        }
        LAST.with_borrow_mut(|last| {
            if let Some(((target, defines, undefines), setup)) = last.as_ref() {
                if *target == options.target
                    && *defines == options.defines
                    && *undefines == options.undefines
                {
                    return Rc::clone(setup);
                }
            }
            let setup = Rc::new(Setup::new(options));
            let key = (
                options.target.clone(),
                options.defines.clone(),
                options.undefines.clone(),
            );
            *last = Some((key, Rc::clone(&setup)));
            setup
        })
    }

    fn new(options: &ParseOptions) -> Setup {
        let (target, target_error) = match target::lookup(&options.target) {
            Ok(target) => (target, None),
            Err(err) => (Target::default(), Some(err.to_string())),
        };
        let mut symbols: HashSet<String> = target
            .symbols
            .iter()
            .map(|s| s.to_ascii_uppercase())
            .collect();
        for symbol in &options.defines {
            let name = symbol.split(['=', ':']).next().unwrap_or("").trim();
            if !name.is_empty() {
                symbols.insert(name.to_ascii_uppercase());
            }
        }
        for symbol in &options.undefines {
            symbols.remove(&symbol.trim().to_ascii_uppercase());
        }
        Setup {
            target,
            target_error,
            symbols,
        }
    }
}

/// The symbols defined at a point of a file: the setup's, and the file's own `{$DEFINE}`s and
/// `{$UNDEF}`s so far (upper case).
struct Defines {
    predefined: Rc<Setup>,
    defined: HashSet<String>,
    undefined: HashSet<String>,
}

impl Defines {
    fn contains(&self, symbol: &str) -> bool {
        !self.undefined.contains(symbol)
            && (self.defined.contains(symbol) || self.predefined.symbols.contains(symbol))
    }

    fn insert(&mut self, symbol: String) {
        self.undefined.remove(&symbol);
        self.defined.insert(symbol);
    }

    fn remove(&mut self, symbol: &str) {
        self.defined.remove(symbol);
        if self.predefined.symbols.contains(symbol) {
            self.undefined.insert(symbol.to_string());
        }
    }
}

struct Pp<'a> {
    db: &'a SourceDb,
    options: &'a ParseOptions,
    /// The target and predefined symbols.
    setup: Rc<Setup>,
    /// Defined symbols.
    defines: Defines,
    switches: [bool; 26],
    out: Vec<u8>,
    segments: Vec<Segment>,
    diagnostics: Vec<Diagnostic>,
    directives: Vec<Directive>,
    /// Canonical paths of the files being processed, outermost first.
    include_stack: Vec<PathBuf>,
    /// Built on first use by `Declared()` or an unknown constant.
    decls: Option<DeclScan>,
    /// What the interface of each used unit declares (lower-case unit name; `None` when the
    /// unit's file was not found), read on first use.
    used_unit_names: HashMap<String, Option<UnitNames>>,
    /// The unit being preprocessed.
    main: FileId,
    /// Include files spliced so far.
    expansions: usize,
    /// Whether `{ }` comments nest: after Free Pascal's `{$MODE OBJFPC}` or `{$MODE FPC}`. Not
    /// before one: a unit without `{$MODE}` takes its mode from the build (`-Mdelphi` is common),
    /// and code written for Delphi has `{` inside comments.
    nested_comments: bool,
}

/// A directive as the scan found it.
struct RawDirective<'t> {
    /// The text of the file it is in.
    b: &'t [u8],
    /// Where it starts (`{` or `(`) in the file.
    start: usize,
    /// Just past its closing `}` / `*)` (the end of the file when unterminated).
    end: usize,
    /// The text between `{$` / `(*$` and the closing delimiter; `None` when unterminated.
    body: Option<&'t str>,
}

/// Where the bytes of the current file go next.
struct Cursor {
    file: FileId,
    /// Output offset where the current segment starts.
    seg_out: usize,
    /// File offset matching `seg_out`.
    seg_file: usize,
    /// File bytes before this are already in the output.
    emitted: usize,
}

impl Pp<'_> {
    fn run_file(&mut self, file: FileId, depth: usize) {
        let source = self.db.get(file);
        let text = source.text.as_str();
        let b = text.as_bytes();
        let n = b.len();
        let mut conds: Vec<Cond> = Vec::new();
        let mut cursor = Cursor {
            file,
            seg_out: self.out.len(),
            seg_file: 0,
            emitted: 0,
        };
        let mut i = 0;
        let mut paren_star = None;
        while i < n {
            // Jump to the next byte that can start a string, a comment or a directive.
            let next = memchr::memchr3(b'\'', b'/', b'{', &b[i..]).map_or(n, |p| i + p);
            i = next.min(next_paren_star(b, i, &mut paren_star));
            let Some(&c) = b.get(i) else {
                break;
            };
            match c {
                b'\'' => i = skip_string(b, i),
                b'/' if b.get(i + 1) == Some(&b'/') => i = line_end(b, i),
                b'{' if b.get(i + 1) == Some(&b'$') => {
                    let (end, body) = match brace_end(b, i + 2) {
                        Some(end) => (end, Some(&text[i + 2..end - 1])),
                        None => (n, None),
                    };
                    let raw = RawDirective {
                        b,
                        start: i,
                        end,
                        body,
                    };
                    self.directive(&mut cursor, &mut conds, depth, raw);
                    i = end;
                }
                b'{' if self.nested_comments => {
                    i = self.nested_comment(b, i, &mut cursor, &conds);
                }
                b'{' => i = brace_end(b, i + 1).unwrap_or(n),
                b'(' if b.get(i + 1) == Some(&b'*') => {
                    if b.get(i + 2) == Some(&b'$') {
                        let (end, body) = match paren_star_end(b, i + 3) {
                            Some(end) => (end, Some(&text[i + 3..end - 2])),
                            None => (n, None),
                        };
                        let raw = RawDirective {
                            b,
                            start: i,
                            end,
                            body,
                        };
                        self.directive(&mut cursor, &mut conds, depth, raw);
                        i = end;
                    } else {
                        i = paren_star_end(b, i + 2).unwrap_or(n);
                    }
                }
                _ => i += 1,
            }
        }
        let active = conds.last().is_none_or(|c| c.active);
        self.emit(b, cursor.emitted, n, active);
        self.close_segment(&cursor);
        for cond in conds {
            self.diagnostics.push(
                Diagnostic::error(
                    format!(
                        "unterminated `{{${}}}`: no `{{$ENDIF}}` before the end of the file",
                        cond.opener
                    ),
                    Some(cond.span),
                )
                .with_help("close the block with `{$ENDIF}` in the same file"),
            );
        }
    }

    /// Skips the `{ }` comment at `start` where comments nest, returning its end. In active
    /// text the braces inside it become blanks in the output, so that everything after the
    /// preprocessor reads one ordinary comment.
    fn nested_comment(
        &mut self,
        b: &[u8],
        start: usize,
        cursor: &mut Cursor,
        conds: &[Cond],
    ) -> usize {
        let mut depth = 0usize;
        let mut end = b.len();
        let mut inner = false;
        for (j, &c) in b.iter().enumerate().skip(start) {
            match c {
                b'{' => {
                    depth += 1;
                    inner |= depth > 1;
                }
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        let active = conds.last().is_none_or(|c| c.active);
        if inner && active && end <= b.len() {
            self.emit(b, cursor.emitted, start, true);
            let from = self.out.len();
            self.out.extend_from_slice(&b[start..end]);
            let closing = end - 1;
            for k in from + 1..self.out.len() {
                let at = start + (k - from);
                if matches!(self.out[k], b'{' | b'}') && at != closing {
                    self.out[k] = b' ';
                }
            }
            cursor.emitted = end;
        }
        end
    }

    /// Copies (active) or blanks (inactive) `b[from..to]` into the output.
    fn emit(&mut self, b: &[u8], from: usize, to: usize, active: bool) {
        if from >= to {
            return;
        }
        if active {
            self.out.extend_from_slice(&b[from..to]);
        } else {
            blank(&mut self.out, &b[from..to]);
        }
    }

    fn close_segment(&mut self, cursor: &Cursor) {
        if self.out.len() > cursor.seg_out {
            self.segments.push(Segment {
                out_start: cursor.seg_out,
                out_end: self.out.len(),
                file: cursor.file,
                file_start: cursor.seg_file,
            });
        }
    }

    /// Handles one directive of the current file.
    fn directive(
        &mut self,
        cursor: &mut Cursor,
        conds: &mut Vec<Cond>,
        depth: usize,
        raw: RawDirective<'_>,
    ) {
        let RawDirective {
            b,
            start,
            end,
            body,
        } = raw;
        let active = conds.last().is_none_or(|c| c.active);
        self.emit(b, cursor.emitted, start, active);
        cursor.emitted = end;
        let span = Span {
            file: cursor.file,
            start: start as u32,
            end: end as u32,
        };
        let Some(body) = body else {
            blank(&mut self.out, &b[start..end]);
            self.diagnostics.push(
                Diagnostic::error("unterminated directive: no closing brace", Some(span))
                    .with_help("close the directive with `}` (or `*)` after `(*$`)"),
            );
            return;
        };
        let name_len = body
            .bytes()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == b'_')
            .count();
        let name = body[..name_len].to_ascii_uppercase();
        let argument = &body[name_len..];

        // Include directives splice text instead of blanking; everything else is blanked.
        let is_include = (name == "I" || name == "INCLUDE")
            && active
            && !argument.starts_with(['+', '-'])
            && !argument.trim().is_empty();
        if is_include && self.include(cursor, depth, span, argument.trim()) {
            return;
        }
        if is_include {
            // Not spliced: `{$I %DATE%}` and friends become a string literal in place, other
            // failures (already reported) leave blanks.
            let written = self.out.len();
            blank(&mut self.out, &b[start..end]);
            if let Some(literal) = fpc_insert_literal(argument.trim(), end - start) {
                let place = &mut self.out[written..written + literal.len()];
                // Only over blanks, so line breaks inside the directive stay where they were.
                if place.iter().all(|&c| c == b' ') {
                    place.copy_from_slice(literal.as_bytes());
                }
            }
            return;
        }
        blank(&mut self.out, &b[start..end]);

        match name.as_str() {
            "IFDEF" | "IFNDEF" => {
                let opener = if name == "IFDEF" { "IFDEF" } else { "IFNDEF" };
                let value = active && {
                    match first_symbol(argument) {
                        Some(symbol) => self.is_defined(symbol) == (opener == "IFDEF"),
                        None => {
                            self.diagnostics.push(Diagnostic::error(
                                format!("expected a symbol name after `{{${opener}}}`"),
                                Some(span),
                            ));
                            false
                        }
                    }
                };
                conds.push(Cond::new(active, value, span, opener));
            }
            "IFOPT" => {
                let value = active && self.ifopt(argument, span);
                conds.push(Cond::new(active, value, span, "IFOPT"));
            }
            "IF" => {
                let value = active && self.evaluate(argument, span, "IF");
                conds.push(Cond::new(active, value, span, "IF"));
            }
            "ELSEIF" => {
                let Some(cond) = conds.last_mut() else {
                    return self.stray(span, "ELSEIF");
                };
                if cond.else_seen {
                    self.diagnostics.push(
                        Diagnostic::error("`{$ELSEIF}` after `{$ELSE}`", Some(span))
                            .with_label(cond.span, "in the block opened here"),
                    );
                }
                if cond.taken || !cond.parent_active {
                    cond.active = false;
                } else {
                    let value = self.evaluate(argument, span, "ELSEIF");
                    if let Some(cond) = conds.last_mut() {
                        cond.active = value;
                        cond.taken = value;
                    }
                }
            }
            "ELSE" => {
                let Some(cond) = conds.last_mut() else {
                    return self.stray(span, "ELSE");
                };
                if cond.else_seen {
                    let opened = cond.span;
                    self.diagnostics.push(
                        Diagnostic::error("second `{$ELSE}` in one block", Some(span))
                            .with_label(opened, "block opened here"),
                    );
                }
                cond.else_seen = true;
                cond.active = cond.parent_active && !cond.taken;
                cond.taken = true;
            }
            "ENDIF" | "IFEND" => {
                if conds.pop().is_none() {
                    self.stray(span, if name == "ENDIF" { "ENDIF" } else { "IFEND" });
                }
            }
            _ if !active => {}
            "DEFINE" => match first_symbol(argument) {
                Some(symbol) => {
                    self.defines.insert(symbol.to_ascii_uppercase());
                }
                None => self.diagnostics.push(Diagnostic::error(
                    "expected a symbol name after `{$DEFINE}`",
                    Some(span),
                )),
            },
            "UNDEF" => match first_symbol(argument) {
                Some(symbol) => {
                    self.defines.remove(&symbol.to_ascii_uppercase());
                }
                None => self.diagnostics.push(Diagnostic::error(
                    "expected a symbol name after `{$UNDEF}`",
                    Some(span),
                )),
            },
            _ => self.other_directive(name, argument, span),
        }
    }

    fn stray(&mut self, span: Span, name: &str) {
        self.diagnostics.push(
            Diagnostic::error(
                format!("`{{${name}}}` without `{{$IF}}`"),
                Some(span),
            )
            .with_help("every `{$ELSE}`/`{$ELSEIF}`/`{$ENDIF}` needs an open `{$IF}`, `{$IFDEF}`, `{$IFNDEF}` or `{$IFOPT}` in the same file"),
        );
    }

    fn is_defined(&self, symbol: &str) -> bool {
        if symbol.bytes().any(|c| c.is_ascii_lowercase()) {
            self.defines.contains(&symbol.to_ascii_uppercase())
        } else {
            self.defines.contains(symbol)
        }
    }

    /// `{$IFOPT X+}` / `{$IFOPT X-}`.
    fn ifopt(&mut self, argument: &str, span: Span) -> bool {
        let arg = argument.trim().as_bytes();
        match arg {
            [letter, sign, ..] if letter.is_ascii_alphabetic() && matches!(sign, b'+' | b'-') => {
                let index = (letter.to_ascii_uppercase() - b'A') as usize;
                self.switches[index] == (*sign == b'+')
            }
            _ => {
                self.diagnostics.push(
                    Diagnostic::error("expected a switch like `R+` after `{$IFOPT}`", Some(span))
                        .with_help("`{$IFOPT}` tests one switch letter followed by `+` or `-`"),
                );
                false
            }
        }
    }

    fn evaluate(&mut self, argument: &str, span: Span, name: &str) -> bool {
        let mut env = EvalEnv { pp: self };
        match expr::evaluate_lenient(argument, &mut env) {
            Ok((value, None)) => value.truthy(),
            Ok((value, Some(message))) => {
                self.diagnostics.push(
                    Diagnostic::warning(
                        format!("`{{${name}}}` expression has extra text: {message}"),
                        Some(span),
                    )
                    .with_help("the compilers ignore it; the condition is evaluated without it"),
                );
                value.truthy()
            }
            Err(message) => {
                self.diagnostics.push(
                    Diagnostic::error(
                        format!("malformed `{{${name}}}` expression: {message}"),
                        Some(span),
                    )
                    .with_help(
                        "conditions use Defined(X), Declared(X), constants, numbers, strings, \
                         comparisons, and/or/not and parentheses",
                    ),
                );
                false
            }
        }
    }

    /// A directive without effect on the text: switches are tracked for `{$IFOPT}`, FPC's
    /// `{$MODE}` defines its `FPC_<MODE>` symbol, and the directive is noted.
    fn other_directive(&mut self, name: String, argument: &str, span: Span) {
        let arg = argument.trim();
        if name.len() == 1 && arg.starts_with(['+', '-']) {
            // `{$R+}` or a list `{$R+,Q-}`: the name is the first letter.
            let list = format!("{name}{arg}");
            for item in list.split(',') {
                let item = item.trim().as_bytes();
                if let [letter, sign, ..] = item {
                    if letter.is_ascii_alphabetic() && matches!(sign, b'+' | b'-') {
                        self.switches[(letter.to_ascii_uppercase() - b'A') as usize] =
                            *sign == b'+';
                    }
                }
            }
        } else if let Some(&(_, letter)) = LONG_SWITCHES.iter().find(|(long, _)| *long == name) {
            let value = first_ident(arg).map(str::to_ascii_uppercase);
            match value.as_deref() {
                Some("ON") => self.switches[(letter - b'A') as usize] = true,
                Some("OFF") => self.switches[(letter - b'A') as usize] = false,
                _ => {}
            }
        } else if name == "MODE" && self.setup.target.compiler == Compiler::Fpc {
            if let Some(mode) = first_ident(arg) {
                let mode = mode.to_ascii_uppercase();
                self.nested_comments = matches!(mode.as_str(), "FPC" | "OBJFPC");
                if mode == "DELPHI" || mode == "DELPHIUNICODE" {
                    self.switches[(b'H' - b'A') as usize] = true;
                }
                self.defines.insert(format!("FPC_{mode}"));
            }
        }
        self.directives.push(Directive {
            name,
            argument: arg.to_string(),
            span,
        });
    }

    /// Splices the include file named by `argument`; false when it was not spliced.
    fn include(&mut self, cursor: &mut Cursor, depth: usize, span: Span, argument: &str) -> bool {
        let name = include::file_name(argument);
        if name.is_empty() || name.starts_with('%') {
            return false;
        }
        let including = self.db.get(cursor.file).path.clone();
        let main = self.db.get(self.main).path.clone();
        let mut key = format!(
            "{}|{}|{}",
            folder_key(&including),
            folder_key(&main),
            name.to_ascii_lowercase()
        );
        for dir in &self.options.include_dirs {
            key.push('|');
            key.push_str(&dir.to_string_lossy());
        }
        let search = include::Search {
            including: &including,
            main: &main,
            include_dirs: &self.options.include_dirs,
            db: self.db,
        };
        let found = self.db.memo_path(&key, || include::resolve(&search, name));
        let Some(path) = found else {
            self.diagnostics.push(
                Diagnostic::warning(format!("include file `{name}` not found"), Some(span))
                    .with_help(
                        "searched next to the including file and the unit, in the include \
                         folders (-I) and in nearby folders; the directive is skipped",
                    ),
            );
            return false;
        };
        if self.include_stack.contains(&path) {
            self.diagnostics.push(
                Diagnostic::error(
                    format!("include cycle: `{name}` is already being included"),
                    Some(span),
                )
                .with_help("remove the `{$I}` that closes the cycle or guard it with `{$IFNDEF}`"),
            );
            return false;
        }
        if depth + 1 > MAX_INCLUDE_DEPTH {
            self.diagnostics.push(
                Diagnostic::error(
                    format!("includes nested deeper than {MAX_INCLUDE_DEPTH} levels at `{name}`"),
                    Some(span),
                )
                .with_help("an include file probably includes itself through a chain"),
            );
            return false;
        }
        if self.expansions >= MAX_INCLUDE_EXPANSIONS {
            // Reported once; the includes after it are skipped silently.
            if self.expansions > MAX_INCLUDE_EXPANSIONS {
                return false;
            }
            self.expansions += 1;
            self.diagnostics.push(
                Diagnostic::error(
                    format!("more than {MAX_INCLUDE_EXPANSIONS} include expansions at `{name}`"),
                    Some(span),
                )
                .with_help("include files that include each other several times multiply"),
            );
            return false;
        }
        self.expansions += 1;
        let codepage = self.options.codepage;
        let loaded = self
            .db
            .load_once(&path, || crate::source::read(&path, codepage));
        let included = match loaded {
            Ok(id) => id,
            Err(err) => {
                self.diagnostics.push(Diagnostic::warning(
                    format!("include file `{name}` cannot be read: {err}"),
                    Some(span),
                ));
                return false;
            }
        };
        // End the including file's segment before the directive, splice, start a new one.
        self.close_segment(cursor);
        if self.include_stack.is_empty() {
            // The main file's own path, for cycles back to it.
            let main = self.db.get(cursor.file).path.clone();
            self.include_stack
                .push(std::fs::canonicalize(&main).unwrap_or(main));
        }
        self.include_stack.push(path);
        self.run_file(included, depth + 1);
        self.include_stack.pop();
        cursor.seg_out = self.out.len();
        cursor.seg_file = span.end as usize;
        true
    }
}

impl Cond {
    fn new(parent_active: bool, value: bool, span: Span, opener: &'static str) -> Self {
        Self {
            parent_active,
            taken: value,
            active: value,
            else_seen: false,
            span,
            opener,
        }
    }
}

/// The folder of `file` as a memo key part.
fn folder_key(file: &std::path::Path) -> String {
    file.parent()
        .map(|dir| dir.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Appends `bytes` with every byte but CR and LF replaced by a space.
fn blank(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend(
        bytes
            .iter()
            .map(|&c| if c == b'\r' || c == b'\n' { c } else { b' ' }),
    );
}

/// FPC's `{$I %NAME%}` inserts a string: a quoted literal of at most `room` bytes standing for
/// it (the name itself, since the value depends on the build machine).
fn fpc_insert_literal(argument: &str, room: usize) -> Option<String> {
    let inner = argument.strip_prefix('%')?.strip_suffix('%')?;
    if inner.is_empty()
        || !inner
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_')
    {
        return None;
    }
    let literal = format!("'{inner}'");
    (literal.len() <= room).then_some(literal)
}

/// The environment of `{$IF}` expressions.
/// Names (lower case) a used unit's interface declares, with simple constants' values.
type UnitNames = Rc<HashMap<String, Option<Value>>>;

impl Pp<'_> {
    /// The names the interface of used unit `unit` declares, when its file is found: the
    /// unit's folder, the include folders and nearby folders are searched as for `{$I}`.
    fn used_unit_names(&mut self, unit: &str) -> Option<UnitNames> {
        let key = unit.to_ascii_lowercase();
        if let Some(found) = self.used_unit_names.get(&key) {
            return found.clone();
        }
        let main = self.db.get(self.main).path.clone();
        let search = include::Search {
            including: &main,
            main: &main,
            include_dirs: &self.options.include_dirs,
            db: self.db,
        };
        let file_name = format!("{unit}.pas");
        let memo_key = format!("unit|{}|{}", folder_key(&main), key);
        let names = self
            .db
            .memo_path(&memo_key, || include::resolve(&search, &file_name))
            .and_then(|path| {
                let codepage = self.options.codepage;
                self.db
                    .load_once(&path, || crate::source::read(&path, codepage))
                    .ok()
            })
            .map(|id| Rc::new(DeclScan::interface_names(self.db.get(id).text.as_bytes())));
        self.used_unit_names.insert(key, names.clone());
        names
    }
}

struct EvalEnv<'p, 'a> {
    pp: &'p mut Pp<'a>,
}

impl EvalEnv<'_, '_> {
    /// The target's constant `name`; FireMonkey's only once an `FMX.*` unit is used.
    fn target_constant(&mut self, name: &str) -> Option<ConstValue> {
        let value = self.pp.setup.target.constant(name)?;
        if name.eq_ignore_ascii_case("FireMonkeyVersion") {
            let decls = self.pp.decls.get_or_insert_with(DeclScan::new);
            if !decls.uses_fmx(&self.pp.out) {
                return None;
            }
        }
        Some(value)
    }

    /// Looks `name` up among the declarations of the active text so far, then in the
    /// interfaces of the units it uses (the last used unit first, as in Delphi's scope).
    fn scanned(&mut self, name: &str) -> Option<Option<Value>> {
        let lower = name.to_ascii_lowercase();
        let decls = self.pp.decls.get_or_insert_with(DeclScan::new);
        if let Some(found) = decls.lookup(&self.pp.out, &lower) {
            return Some(found.clone());
        }
        let units = decls.used_units(&self.pp.out).to_vec();
        units.iter().rev().find_map(|unit| {
            self.pp
                .used_unit_names(unit)
                .and_then(|names| names.get(&lower).cloned())
        })
    }
}

fn last_part(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

impl expr::Env for EvalEnv<'_, '_> {
    fn defined(&mut self, name: &str) -> bool {
        self.pp.is_defined(name)
    }

    fn declared(&mut self, name: &str) -> bool {
        let name = last_part(name);
        self.target_constant(name).is_some()
            || target::WELL_KNOWN_DECLARED
                .iter()
                .any(|known| known.eq_ignore_ascii_case(name))
            || self.scanned(name).is_some()
    }

    fn constant(&mut self, name: &str) -> Value {
        let name = last_part(name);
        if let Some(value) = self.target_constant(name) {
            return match value {
                ConstValue::Int(v) => Value::Int(v),
                ConstValue::Real(v) => Value::Real(v),
                ConstValue::Bool(v) => Value::Bool(v),
            };
        }
        self.scanned(name).flatten().unwrap_or(Value::Unknown)
    }

    fn size_of(&mut self, name: &str) -> Option<i64> {
        self.pp.setup.target.size_of(last_part(name)).map(i64::from)
    }
}
