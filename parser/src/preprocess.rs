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
mod directives;
mod env;
pub mod expr;
mod include;
mod lexer;

use crate::diagnostic::Diagnostic;
use crate::options::ParseOptions;
use crate::scan::string_end;
use crate::span::{FileId, SourceDb, Span};
use crate::target::{self, Compiler, ConstValue, Target};
use declared::DeclScan;
use env::UnitNames;
use expr::Value;
use lexer::{brace_end, first_ident, first_symbol, line_end, paren_star_end};
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
    pub(super) fn run_file(&mut self, file: FileId, depth: usize) {
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
                b'\'' => i = string_end(b, i),
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
}

/// Appends `bytes` with every byte but CR and LF replaced by a space.
fn blank(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend(
        bytes
            .iter()
            .map(|&c| if c == b'\r' || c == b'\n' { c } else { b' ' }),
    );
}
