//! The direct path: declarations read from the token string straight into the tree.
//!
//! Running the grammar and lowering its pairs was most of the cost of a parse. This reader
//! follows the grammar's rules for `unit_head`, `uses_clause`, `const_decl`, `var_decl`,
//! `type_decl`, `routine_decl`, `exports_decl` and `label_decl`, with their backtracking, and
//! builds the tree lowering would build, with the same helpers for texts, spans and doc
//! comments. Where it does not follow the grammar it gives up (`None`) and the driver runs the
//! grammar on the item as before: the grammar stays the definition of what parses and of every
//! diagnostic, and this reader never decides alone that something is an error. It gives up on
//! anything the grammar would reject, and on forms rare enough to leave to the grammar:
//! program parameters and `in 'file'` in a unit heading, linkage of variables (`cvar`,
//! `external`), `specialize`, `generic` types, type helpers, FPC's operators named by a symbol
//! and results named before the `:`, parameters named `out` or `constref`, a member block
//! (`const`, `var`, `type`) followed by a declaration its own rule starts to read, and
//! expressions nested deeper than lowering keeps them.
//!
//! One module per construct: declarations and names ([`decls`]), expressions ([`expr`]), type
//! references and type declarations ([`types`]), routine headings ([`routines`]), structured
//! types and their members ([`structured`]); this module holds the reader's cursor.
//!
//! Each reader names the grammar rule it follows; where the rule has a choice, it takes
//! the branch the grammar would take or gives up. The crate documentation says how the two
//! paths are kept equal.

mod decls;
mod expr;
mod routines;
mod structured;
mod types;

use crate::ast::*;
use crate::span::Span;
use crate::tokens::codes::*;
use crate::tokens::{self, CODE_WIDTH};
use crate::tree::{normalize, ItemSource};

/// The text of one name or number token as lowering has it (`normalize`d): an ASCII one has
/// no blank to collapse; a non-ASCII name may hold a Unicode blank (a no-break space).
fn one_token_text(raw: &str) -> Text {
    if raw.is_ascii() {
        Text::from(raw)
    } else {
        normalize(raw)
    }
}

/// The kind of routine a kind keyword starts (`routine_kind` without `operator`).
fn routine_kind(c: u32) -> Option<RoutineKind> {
    match c {
        K_PROCEDURE => Some(RoutineKind::Procedure),
        K_FUNCTION => Some(RoutineKind::Function),
        K_CONSTRUCTOR => Some(RoutineKind::Constructor),
        K_DESTRUCTOR => Some(RoutineKind::Destructor),
        _ => None,
    }
}

/// How deep type arguments and prefix operators may nest before the reader leaves the item to
/// the grammar (which bounds nesting itself).
const MAX_DEPTH: u32 = 32;

/// A reader of one item: `at` is a byte offset in the item's token string, as the pairs'
/// positions are for lowering.
pub(crate) struct Direct<'l, 'a> {
    src: &'l ItemSource<'a>,
    input: &'a [u8],
    at: usize,
    depth: u32,
    /// How deep `expression` has recursed.
    nesting: u32,
    /// Set when the reader gives the item up (rather than finding that the grammar would not
    /// match): a failed alternative is then not followed by the next one.
    gave_up: bool,
}

impl<'l, 'a> Direct<'l, 'a> {
    /// A reader of `input`, the token string from the item on, for the item `src`.
    pub(crate) fn new(src: &'l ItemSource<'a>, input: &'a [u8]) -> Self {
        Self {
            src,
            input,
            at: 0,
            depth: 0,
            nesting: 0,
            gave_up: false,
        }
    }

    /// Gives the item up to the grammar.
    pub(super) fn give_up<T>(&mut self) -> Option<T> {
        self.gave_up = true;
        None
    }

    /// Where the reader is: the end of what it has read.
    pub(crate) fn pos(&self) -> usize {
        self.at
    }

    /// The code at byte `at` (0 at the end of the input).
    pub(super) fn code_at(&self, at: usize) -> u32 {
        tokens::code_at(self.input, at)
    }

    pub(super) fn peek(&self) -> u32 {
        self.code_at(self.at)
    }

    /// The code `n` tokens ahead.
    pub(super) fn peek_at(&self, n: usize) -> u32 {
        self.code_at(self.at + n * CODE_WIDTH)
    }

    pub(super) fn bump(&mut self) {
        self.at += CODE_WIDTH;
    }

    pub(super) fn eat(&mut self, c: u32) -> bool {
        let here = self.peek() == c;
        if here {
            self.bump();
        }
        here
    }

    pub(super) fn expect(&mut self, c: u32) -> Option<()> {
        self.eat(c).then_some(())
    }

    pub(super) fn text(&self, start: usize, end: usize) -> &'a str {
        self.src.text_of(start, end)
    }

    pub(super) fn span(&self, start: usize, end: usize) -> Span {
        self.src.span_of(start, end)
    }

    /// The text of the one token at `at`.
    pub(super) fn token_text(&self, at: usize) -> &'a str {
        self.text(at, at + CODE_WIDTH)
    }

    /// Runs `read` one level deeper: the reader gives up past `MAX_DEPTH` levels of types,
    /// headings and prefix operators, so it needs little stack however deep the input nests.
    pub(super) fn deeper<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        if self.depth >= MAX_DEPTH {
            return self.give_up();
        }
        self.depth += 1;
        let value = read(self);
        self.depth -= 1;
        value
    }

    /// Tokens up to one that `stops` outside brackets (or the end of the input), brackets
    /// matched as the grammar's groups match them; gives up when they do not match.
    pub(super) fn balanced(&mut self, stops: impl Fn(u32) -> bool) -> Option<()> {
        // the open brackets, innermost in the lowest bit (1 for `(`)
        let (mut open, mut depth) = (0u64, 0u32);
        loop {
            let c = self.peek();
            match c {
                0 if depth > 0 => return self.give_up(),
                0 => return Some(()),
                RP | RB if depth == 0 => return Some(()),
                _ if depth == 0 && stops(c) => return Some(()),
                LP | LB if depth == u64::BITS => return self.give_up(),
                LP | LB => {
                    open = (open << 1) | u64::from(c == LP);
                    depth += 1;
                }
                RP | RB => {
                    // a bracket closed by the other kind: the grammar's group fails
                    if (open & 1 == 1) != (c == RP) {
                        return self.give_up();
                    }
                    open >>= 1;
                    depth -= 1;
                }
                _ => {}
            }
            self.bump();
        }
    }
}
