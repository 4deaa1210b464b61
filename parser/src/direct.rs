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
//! Each reader below names the grammar rule it follows; where the rule has a choice, it takes
//! the branch the grammar would take or gives up. `parser/tests/direct_path.rs` and a property
//! test over mutated fixtures check that both paths give the same tree.

use crate::ast::*;
use crate::lower::{
    compact, empty_routine, lowercase, normalize, number_kind, push_params, strip_amp, var_decls,
    visibility_of, Lower, Members,
};
use crate::span::Span;
use crate::tokens::{self, kw, ASSIGN, CODE_WIDTH, DOTDOT, IDENT, NUMBER, STRING};

/// The code of a punctuation mark (`tokens::punct_code`).
const fn punct(c: u8) -> u32 {
    0x100 + c as u32
}

/// The code of a keyword.
const fn word(w: &str) -> u32 {
    kw(w) as u32
}

/// The text of one name or number token as lowering has it (`normalize`d): an ASCII one has
/// no blank to collapse; a non-ASCII name may hold a Unicode blank (a no-break space).
fn one_token_text(raw: &str) -> Text {
    if raw.is_ascii() {
        Text::from(raw)
    } else {
        normalize(raw)
    }
}

const LP: u32 = punct(b'(');
const RP: u32 = punct(b')');
const STAR: u32 = punct(b'*');
const PLUS: u32 = punct(b'+');
const COMMA: u32 = punct(b',');
const MINUS: u32 = punct(b'-');
const DOT: u32 = punct(b'.');
const SLASH: u32 = punct(b'/');
const COLON: u32 = punct(b':');
const SEMI: u32 = punct(b';');
const LT: u32 = punct(b'<');
const EQ: u32 = punct(b'=');
const GT: u32 = punct(b'>');
const AT: u32 = punct(b'@');
const LB: u32 = punct(b'[');
const RB: u32 = punct(b']');
const CARET: u32 = punct(b'^');
const C_IDENT: u32 = IDENT as u32;
const C_NUMBER: u32 = NUMBER as u32;
const C_STRING: u32 = STRING as u32;
const C_ASSIGN: u32 = ASSIGN as u32;
const C_DOTDOT: u32 = DOTDOT as u32;

const K_ABSTRACT: u32 = word("abstract");
const K_ABSOLUTE: u32 = word("absolute");
const K_CONTAINS: u32 = word("contains");
const K_CVAR: u32 = word("cvar");
const K_EXPORT: u32 = word("export");
const K_EXTERNAL: u32 = word("external");
const K_PACKAGE: u32 = word("package");
const K_PACKED: u32 = word("packed");
const K_PROGRAM: u32 = word("program");
const K_REQUIRES: u32 = word("requires");
const K_SET: u32 = word("set");
const K_TO: u32 = word("to");
const K_UNIT: u32 = word("unit");
const K_FOR: u32 = word("for");
const K_USES: u32 = word("uses");
const K_ALIAS: u32 = word("alias");
const K_ALIGN: u32 = word("align");
const K_AND: u32 = word("and");
const K_ARRAY: u32 = word("array");
const K_AS: u32 = word("as");
const K_BITPACKED: u32 = word("bitpacked");
const K_CLASS: u32 = word("class");
const K_CONST: u32 = word("const");
const K_CONSTREF: u32 = word("constref");
const K_CONSTRUCTOR: u32 = word("constructor");
const K_DEFAULT: u32 = word("default");
const K_DEPENDENCY: u32 = word("dependency");
const K_DESTRUCTOR: u32 = word("destructor");
const K_DISPINTERFACE: u32 = word("dispinterface");
const K_DIV: u32 = word("div");
const K_END: u32 = word("end");
const K_FRAMEWORK: u32 = word("framework");
const K_FUNCTION: u32 = word("function");
const K_GENERIC: u32 = word("generic");
const K_HELPER: u32 = word("helper");
const K_IN: u32 = word("in");
const K_INHERITED: u32 = word("inherited");
const K_INTERFACE: u32 = word("interface");
const K_IS: u32 = word("is");
const K_LIBRARY: u32 = word("library");
const K_MOD: u32 = word("mod");
const K_NAME: u32 = word("name");
const K_NIL: u32 = word("nil");
const K_NOT: u32 = word("not");
const K_OF: u32 = word("of");
const K_OBJECT: u32 = word("object");
const K_OPERATOR: u32 = word("operator");
const K_OR: u32 = word("or");
const K_OUT: u32 = word("out");
const K_PROCEDURE: u32 = word("procedure");
const K_PROPERTY: u32 = word("property");
const K_PUBLIC: u32 = word("public");
const K_RECORD: u32 = word("record");
const K_REFERENCE: u32 = word("reference");
const K_SEALED: u32 = word("sealed");
const K_SHL: u32 = word("shl");
const K_SHR: u32 = word("shr");
const K_SPECIALIZE: u32 = word("specialize");
const K_STRICT: u32 = word("strict");
const K_STRING: u32 = word("string");
const K_TYPE: u32 = word("type");
const K_VAR: u32 = word("var");
const K_XOR: u32 = word("xor");
const K_CASE: u32 = word("case");
const K_FILE: u32 = word("file");
const K_NESTED: u32 = word("nested");
const K_THREADVAR: u32 = word("threadvar");
const K_EXPORTS: u32 = word("exports");
const K_LABEL: u32 = word("label");

/// `ident`, `list_name`: a plain name or a soft keyword.
fn is_name(c: u32) -> bool {
    c == C_IDENT || (0x280..=0x2FF).contains(&c)
}

/// `dot_name`: after a dot reserved words are names too.
fn is_dot_name(c: u32) -> bool {
    c == C_IDENT || (0x200..=0x2FF).contains(&c)
}

// The word classes are ranges of codes (see SOFT in tokens.rs).
const DIRECTIVE_NAMES: (u32, u32) = (word("dispid"), word("platform"));
const HINT_NAMES: (u32, u32) = (word("deprecated"), word("platform"));
const PROP_SPEC_NAMES: (u32, u32) = (word("add"), word("index"));
const VIS_WORDS: (u32, u32) = (word("private"), word("automated"));
const CALL_CONVS: (u32, u32) = (word("cdecl"), word("winapi"));

/// `directive_name`.
fn is_directive_name(c: u32) -> bool {
    (DIRECTIVE_NAMES.0..=DIRECTIVE_NAMES.1).contains(&c) || c == K_LIBRARY
}

/// `directive_start`.
fn is_directive_start(c: u32) -> bool {
    is_directive_name(c) || c == K_PUBLIC || is_linker_word(c)
}

/// `linker_word`.
fn is_linker_word(c: u32) -> bool {
    c == K_DEPENDENCY || c == K_FRAMEWORK
}

/// `hint_start`, `hint_name`.
fn is_hint_name(c: u32) -> bool {
    (HINT_NAMES.0..=HINT_NAMES.1).contains(&c) || c == K_LIBRARY
}

/// `prop_spec_name`.
fn is_prop_spec_name(c: u32) -> bool {
    (PROP_SPEC_NAMES.0..=PROP_SPEC_NAMES.1).contains(&c)
}

/// `call_conv`.
fn is_call_conv(c: u32) -> bool {
    (CALL_CONVS.0..=CALL_CONVS.1).contains(&c)
}

/// `vis_word`.
fn is_vis_word(c: u32) -> bool {
    (VIS_WORDS.0..=VIS_WORDS.1).contains(&c)
}

/// `struct_start`: class, record, interface, dispinterface, object, packed, type; bitpacked.
fn is_struct_start(c: u32) -> bool {
    (K_CLASS..=K_TYPE).contains(&c) || c == K_BITPACKED
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

/// Binding strength of the binary operator `c` (relational 0, additive 1, multiplicative 2).
fn binary_precedence(c: u32) -> Option<u8> {
    match c {
        LT | EQ | GT | K_IN | K_IS => Some(0),
        PLUS | MINUS | K_OR | K_XOR => Some(1),
        STAR | SLASH | K_AND | K_AS | K_DIV | K_MOD | K_SHL | K_SHR => Some(2),
        _ => None,
    }
}

/// How deep type arguments and prefix operators may nest before the reader leaves the item to
/// the grammar (which bounds nesting itself).
const MAX_DEPTH: u32 = 32;

/// How deep expressions may nest (parentheses, calls, sets) before the reader leaves the item
/// to the grammar: lowering keeps the expressions below twelve levels as text only.
const MAX_EXPR_NESTING: u32 = 10;

/// An operand of an expression with where it starts and ends in the item's input.
struct Operand {
    expr: Expr,
    start: usize,
    end: usize,
}

/// A reader of one item: `at` is a byte offset in the item's token string, as the pairs'
/// positions are for lowering.
pub(crate) struct Direct<'l, 'a> {
    lower: &'l Lower<'a>,
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
    /// A reader of `input`, the token string from the item on, for `lower`'s item.
    pub(crate) fn new(lower: &'l Lower<'a>, input: &'a [u8]) -> Self {
        Self {
            lower,
            input,
            at: 0,
            depth: 0,
            nesting: 0,
            gave_up: false,
        }
    }

    /// Gives the item up to the grammar.
    fn give_up<T>(&mut self) -> Option<T> {
        self.gave_up = true;
        None
    }

    /// Where the reader is: the end of what it has read.
    pub(crate) fn pos(&self) -> usize {
        self.at
    }

    /// The code at byte `at` (0 at the end of the input).
    fn code_at(&self, at: usize) -> u32 {
        tokens::code_at(self.input, at)
    }

    fn peek(&self) -> u32 {
        self.code_at(self.at)
    }

    /// The code `n` tokens ahead.
    fn peek_at(&self, n: usize) -> u32 {
        self.code_at(self.at + n * CODE_WIDTH)
    }

    fn bump(&mut self) {
        self.at += CODE_WIDTH;
    }

    fn eat(&mut self, c: u32) -> bool {
        let here = self.peek() == c;
        if here {
            self.bump();
        }
        here
    }

    fn expect(&mut self, c: u32) -> Option<()> {
        self.eat(c).then_some(())
    }

    fn text(&self, start: usize, end: usize) -> &'a str {
        self.lower.text_of(start, end)
    }

    fn span(&self, start: usize, end: usize) -> Span {
        self.lower.span_of(start, end)
    }

    /// The text of the one token at `at`.
    fn token_text(&self, at: usize) -> &'a str {
        self.text(at, at + CODE_WIDTH)
    }

    // ------------------------------------------------------------ unit head, uses, constants, variables

    /// `unit_head` without program parameters and `in 'file'`: the kind, the name, its span
    /// and the hints.
    pub(crate) fn unit_head(&mut self) -> Option<(UnitKind, Text, Span, Vec<Directive>)> {
        let kind = match self.peek() {
            K_UNIT => UnitKind::Unit,
            K_PROGRAM => UnitKind::Program,
            K_LIBRARY => UnitKind::Library,
            K_PACKAGE => UnitKind::Package,
            _ => return None,
        };
        self.bump();
        let start = self.at;
        self.qualified_ident()?;
        let end = self.at;
        let hints = self.hints();
        self.expect(SEMI)?;
        Some((
            kind,
            compact(self.text(start, end)),
            self.span(start, end),
            hints,
        ))
    }

    /// `uses_clause`.
    pub(crate) fn uses_clause(&mut self) -> Option<UsesClause> {
        if !matches!(self.peek(), K_USES | K_REQUIRES | K_CONTAINS) {
            return None;
        }
        let keyword = lowercase(self.token_text(self.at));
        self.bump();
        let mut units = Vec::new();
        loop {
            let start = self.at;
            self.qualified_ident()?;
            let name = compact(self.text(start, self.at));
            let mut in_file = None;
            if self.eat(K_IN) {
                in_file = Some(self.string_lit()?);
            }
            units.push(UsedUnit {
                name,
                in_file,
                span: self.span(start, self.at),
            });
            if self.eat(COMMA) {
                if self.peek() == SEMI {
                    break;
                }
                continue;
            }
            break;
        }
        self.expect(SEMI)?;
        Some(UsesClause {
            keyword,
            units,
            span: self.span(0, self.at),
        })
    }

    /// `const_decl` whose value is an expression this reader takes.
    pub(crate) fn const_decl(&mut self, out: &mut Vec<ConstDecl>) -> Option<()> {
        let start = self.at;
        let doc = self.lower.doc_at(start);
        let attributes = self.attributes()?;
        if !is_name(self.peek()) {
            return None;
        }
        let name_at = self.at;
        self.bump();
        let ty = if self.eat(COLON) {
            Some(self.type_ref()?)
        } else {
            None
        };
        self.expect(EQ)?;
        let value = self.const_value()?;
        let hints = self.hints();
        self.expect(SEMI)?;
        out.push(ConstDecl {
            name: strip_amp(self.token_text(name_at)),
            name_span: self.span(name_at, name_at + CODE_WIDTH),
            ty,
            value,
            attributes,
            doc,
            hints,
            span: self.span(start, self.at),
        });
        Some(())
    }

    /// `var_decl` without linkage (`external`, `cvar`, ...).
    pub(crate) fn var_decl(&mut self, out: &mut Vec<VarDecl>) -> Option<()> {
        let start = self.at;
        let doc = self.lower.doc_at(start);
        // `hints ~ var_init? ~ hints`
        let (attributes, names, ty) = self.names_and_type()?;
        let value = match self.peek() {
            K_ABSOLUTE => {
                self.bump();
                Some(self.expr()?)
            }
            EQ => {
                self.bump();
                Some(self.const_value()?)
            }
            _ => None,
        };
        self.hints();
        self.expect(SEMI)?;
        // `var_linkage`: a linkage word not followed by what makes it a name
        if matches!(self.peek(), K_CVAR | K_EXTERNAL | K_PUBLIC | K_EXPORT)
            && !matches!(self.peek_at(1), COLON | COMMA | EQ)
        {
            return None;
        }
        let span = self.span(start, self.at);
        let names = self.list_names(names.0, names.1);
        out.extend(var_decls(names, ty, value, attributes, doc, span));
        Some(())
    }

    /// `exports_decl` (`exports` and balanced tokens up to `;`) or `label_decl`, kept as its
    /// keyword and extent.
    pub(crate) fn other_decl(&mut self) -> Option<OtherDecl> {
        let keyword = match self.peek() {
            K_EXPORTS => {
                self.bump();
                self.balanced(|c| c == SEMI)?;
                "exports"
            }
            K_LABEL => {
                self.bump();
                loop {
                    if !is_name(self.peek()) && self.peek() != C_NUMBER {
                        return None;
                    }
                    self.bump();
                    if !self.eat(COMMA) {
                        break;
                    }
                }
                "label"
            }
            _ => return None,
        };
        self.expect(SEMI)?;
        Some(OtherDecl {
            keyword: Text::const_new(keyword),
            span: self.span(0, self.at),
        })
    }

    // ------------------------------------------------------------ names and attributes

    /// `ident_list`: its names are every other token.
    fn ident_list(&mut self) -> Option<()> {
        if !is_name(self.peek()) {
            return None;
        }
        self.bump();
        while self.peek() == COMMA && is_name(self.peek_at(1)) {
            self.at += 2 * CODE_WIDTH;
        }
        Some(())
    }

    /// The names of the `ident_list` at `start..end`, with their spans.
    fn list_names(&self, start: usize, end: usize) -> impl Iterator<Item = (Text, Span)> + 'l {
        self.lower.names_at(start, end)
    }

    /// `string_lit`: its value (`None` when no string is here).
    fn string_lit(&mut self) -> Option<Text> {
        let start = self.at;
        while self.peek() == C_STRING {
            self.bump();
        }
        (self.at > start).then(|| self.lower.string_value_of(start, self.at))
    }

    /// `qualified_ident`.
    fn qualified_ident(&mut self) -> Option<()> {
        if !is_name(self.peek()) {
            return None;
        }
        self.bump();
        while self.peek() == DOT {
            if !is_dot_name(self.peek_at(1)) {
                return None;
            }
            self.at += 2 * CODE_WIDTH;
        }
        Some(())
    }

    /// `opt_attributes`.
    fn attributes(&mut self) -> Option<Vec<Attribute>> {
        let mut out = Vec::new();
        while self.eat(LB) {
            loop {
                out.push(self.attribute()?);
                if self.eat(COMMA) {
                    if self.eat(RB) {
                        break;
                    }
                    continue;
                }
                self.expect(RB)?;
                break;
            }
        }
        Some(out)
    }

    /// `attribute`: a target (`[Result: Foo]`), a name and arguments, named (`Name = value`)
    /// or not.
    fn attribute(&mut self) -> Option<Attribute> {
        let start = self.at;
        if is_name(self.peek()) && self.peek_at(1) == COLON && self.peek_at(2) != EQ {
            self.at += 2 * CODE_WIDTH;
        }
        let name_start = self.at;
        self.qualified_ident()?;
        let name = compact(self.text(name_start, self.at));
        let mut args = Vec::new();
        if self.eat(LP) && !self.eat(RP) {
            loop {
                // `attr_named`: a name, `=` or `:=` (not `==`), an expression
                let named = is_name(self.peek())
                    && match self.peek_at(1) {
                        C_ASSIGN => true,
                        EQ => self.peek_at(2) != EQ,
                        _ => false,
                    };
                let name = named.then(|| {
                    let name = strip_amp(self.token_text(self.at));
                    self.at += 2 * CODE_WIDTH;
                    name
                });
                args.push(AttributeArg {
                    name,
                    value: self.expr()?,
                });
                if !self.eat(COMMA) {
                    self.expect(RP)?;
                    break;
                }
            }
        }
        Some(Attribute {
            name,
            args,
            span: self.span(start, self.at),
        })
    }

    // ------------------------------------------------------------ expressions
    //
    // Expressions follow the grammar completely, with its backtracking: a postfix or an
    // operator whose operand does not match ends the expression before it, and `None` means
    // the grammar would not match here either, unless the reader gave up (`gave_up`), which
    // every caller that tries an alternative after a failed expression checks.

    /// `expr`.
    fn expr(&mut self) -> Option<Expr> {
        self.expression(false)
    }

    /// `expr`, or `simple_expr` (no relational operators) when `simple`.
    fn expression(&mut self, simple: bool) -> Option<Expr> {
        // lowering keeps expressions nested deeper than a dozen levels as text only
        if self.nesting >= MAX_EXPR_NESTING {
            return self.give_up();
        }
        self.nesting += 1;
        let start = self.at;
        let value = self
            .operand()
            .and_then(|first| self.climb(first, 0, simple));
        self.nesting -= 1;
        if value.is_none() {
            self.at = start;
        }
        Some(value?.expr)
    }

    /// The binary operator here, if any: its precedence and how many tokens it takes.
    fn binary_operator(&self, simple: bool) -> Option<(u8, usize)> {
        let c = self.peek();
        let prec = binary_precedence(c)?;
        if prec == 0 && simple {
            return None;
        }
        // `rel_op`: `<>`, `<=`, `>=` are two tokens
        let two =
            (c == LT && matches!(self.peek_at(1), GT | EQ)) || (c == GT && self.peek_at(1) == EQ);
        Some((prec, if two { 2 } else { 1 }))
    }

    /// Precedence climbing, as lowering builds the tree of a flat expression row.
    fn climb(&mut self, mut lhs: Operand, min: u8, simple: bool) -> Option<Operand> {
        while let Some((prec, width)) = self.binary_operator(simple).filter(|&(p, _)| p >= min) {
            let op_start = self.at;
            self.at += width * CODE_WIDTH;
            let op = compact(self.text(op_start, self.at)).to_ascii_lowercase();
            let Some(mut rhs) = self.operand() else {
                if self.gave_up {
                    return None;
                }
                // the grammar's row ends before an operator without an operand
                self.at = op_start;
                break;
            };
            while let Some((next, _)) = self.binary_operator(simple).filter(|&(n, _)| n > prec) {
                rhs = self.climb(rhs, next, simple)?;
            }
            let (start, end) = (lhs.start, rhs.end);
            lhs = Operand {
                expr: Expr {
                    text: normalize(self.text(start, end)),
                    kind: ExprKind::Binary {
                        op,
                        lhs: Box::new(lhs.expr),
                        rhs: Box::new(rhs.expr),
                    },
                    span: self.span(start, end),
                },
                start,
                end,
            };
        }
        Some(lhs)
    }

    /// An operand: prefix operators, a primary and its postfixes.
    fn operand(&mut self) -> Option<Operand> {
        let start = self.at;
        if matches!(self.peek(), MINUS | PLUS | K_NOT | AT) {
            // `unary_op`: `@@` before `@`
            let width = if self.peek() == AT && self.peek_at(1) == AT {
                2
            } else {
                1
            };
            self.at += width * CODE_WIDTH;
            let op = lowercase(self.text(start, self.at));
            let Some(inner) = self.deeper(Self::operand) else {
                self.at = start;
                return None;
            };
            let end = inner.end;
            return Some(Operand {
                expr: Expr {
                    text: normalize(self.text(start, end)),
                    kind: ExprKind::Unary {
                        op,
                        operand: Box::new(inner.expr),
                    },
                    span: self.span(start, end),
                },
                start,
                end,
            });
        }
        let mut expr = self.primary()?;
        loop {
            let here = self.at;
            let kind = match self.peek() {
                DOT if is_dot_name(self.peek_at(1)) => {
                    let member = strip_amp(self.token_text(self.at + CODE_WIDTH));
                    self.at += 2 * CODE_WIDTH;
                    match expr.kind {
                        ExprKind::Ident { name } => ExprKind::Ident {
                            name: compact_str::format_compact!("{name}.{member}"),
                        },
                        _ => ExprKind::Other,
                    }
                }
                LP => match self.delimited((LP, RP), true, true, Self::expr) {
                    Some(args) => ExprKind::Call {
                        callee: Box::new(expr),
                        args,
                    },
                    None if self.gave_up => return None,
                    None => {
                        self.at = here;
                        break;
                    }
                },
                LB => match self.delimited((LB, RB), false, false, Self::expr) {
                    Some(_) => ExprKind::Other,
                    None if self.gave_up => return None,
                    None => {
                        self.at = here;
                        break;
                    }
                },
                CARET => {
                    self.bump();
                    ExprKind::Other
                }
                _ => break,
            };
            expr = Expr {
                text: normalize(self.text(start, self.at)),
                kind,
                span: self.span(start, self.at),
            };
        }
        Some(Operand {
            expr,
            start,
            end: self.at,
        })
    }

    /// A bracketed list: `open`, items read by `item` and separated by `,` (or `:` when
    /// `widths`: `call_args`' width arguments), `close`; empty only when `empty` allows. The
    /// position is restored when the list does not match.
    fn delimited(
        &mut self,
        (open, close): (u32, u32),
        empty: bool,
        widths: bool,
        mut item: impl FnMut(&mut Self) -> Option<Expr>,
    ) -> Option<Vec<Expr>> {
        let start = self.at;
        self.expect(open)?;
        let mut out = Vec::new();
        if !(empty && self.eat(close)) {
            loop {
                let Some(e) = item(self) else {
                    self.at = start;
                    return None;
                };
                out.push(e);
                if widths && self.eat(COLON) {
                    continue;
                }
                if !self.eat(COMMA) {
                    break;
                }
            }
            if !self.eat(close) {
                self.at = start;
                return None;
            }
        }
        Some(out)
    }

    /// `primary`: a name, number, string, set, parenthesized expression, `nil`, `string` or
    /// `inherited`.
    fn primary(&mut self) -> Option<Expr> {
        let start = self.at;
        let c = self.peek();
        if is_name(c) || c == C_NUMBER {
            // one token: its text is the expression's (`one_token_text`)
            self.bump();
            let raw = self.text(start, self.at);
            let text = one_token_text(raw);
            let kind = if c == C_NUMBER {
                number_kind(raw)
            } else if raw.starts_with('&') {
                ExprKind::Ident {
                    name: strip_amp(raw),
                }
            } else {
                ExprKind::Ident { name: text.clone() }
            };
            return Some(Expr {
                text,
                kind,
                span: self.span(start, self.at),
            });
        }
        let kind = if c == C_STRING {
            ExprKind::Str {
                value: self.string_lit()?,
            }
        } else if c == LB {
            ExprKind::Set {
                elements: self.delimited((LB, RB), true, false, Self::set_element)?,
            }
        } else if c == LP {
            self.bump();
            let inner = self.expr();
            if inner.is_none() || !self.eat(RP) {
                self.at = start;
                return None;
            }
            inner?.kind
        } else if c == K_NIL || c == K_STRING {
            self.bump();
            ExprKind::Ident {
                name: normalize(self.text(start, self.at)),
            }
        } else if c == K_INHERITED {
            // `inherited Name`: the name is not the value
            self.bump();
            if is_name(self.peek()) {
                self.bump();
            }
            ExprKind::Other
        } else {
            return None;
        };
        Some(Expr {
            text: normalize(self.text(start, self.at)),
            kind,
            span: self.span(start, self.at),
        })
    }

    /// `set_elem`: an expression, or a range `A..B` as a binary `..` expression.
    fn set_element(&mut self) -> Option<Expr> {
        let start = self.at;
        let low = self.expr()?;
        if !self.eat(C_DOTDOT) {
            return Some(low);
        }
        let high = self.expr()?;
        Some(Expr {
            text: normalize(self.text(start, self.at)),
            kind: ExprKind::Binary {
                op: Text::const_new(".."),
                lhs: Box::new(low),
                rhs: Box::new(high),
            },
            span: self.span(start, self.at),
        })
    }

    /// `blob`: balanced tokens up to a `;`, `)` or `]` outside brackets (typed constants,
    /// tables); `None` when it is empty or its brackets do not match.
    fn blob(&mut self) -> Option<()> {
        let start = self.at;
        self.balanced(|c| c == SEMI)?;
        (self.at > start).then_some(())
    }

    /// `const_value`: an expression followed by `;` or a hint, else a blob kept as text.
    fn const_value(&mut self) -> Option<Expr> {
        let start = self.at;
        if let Some(value) = self.expr() {
            if self.peek() == SEMI || is_hint_name(self.peek()) {
                return Some(value);
            }
        }
        if self.gave_up {
            return None;
        }
        self.at = start;
        self.blob()?;
        Some(Expr {
            text: normalize(self.text(start, self.at)),
            kind: ExprKind::Other,
            span: self.span(start, self.at),
        })
    }

    // ------------------------------------------------------------ type references

    /// `type_ref`: names (dotted, with generic arguments), `string`, `string[N]`, arrays,
    /// pointers, sets and subranges.
    fn type_ref(&mut self) -> Option<TypeRef> {
        let c = self.peek();
        if is_name(c)
            && !matches!(c, K_BITPACKED | K_REFERENCE | K_SPECIALIZE)
            && !matches!(self.peek_at(1), LT | DOT | LP | C_DOTDOT)
        {
            return Some(self.short_type_ref());
        }
        self.type_ref_with_bounds(&mut None)
    }

    /// The grammar's short form of `type_ref`: a single name.
    fn short_type_ref(&mut self) -> TypeRef {
        let start = self.at;
        self.bump();
        let text = one_token_text(self.text(start, self.at));
        let name = match text.strip_prefix('&') {
            Some(name) => Text::from(name),
            None => text.clone(),
        };
        TypeRef {
            kind: TypeRefKind::Named {
                name,
                generic_args: Vec::new(),
            },
            text,
            span: self.span(start, self.at),
        }
    }

    /// `type_ref`; a subrange's bounds go to `bounds`. The grammar's alternatives in their
    /// order: a single name, `string`, a named type (not before `..`), a procedural type,
    /// `string[N]`, an array, a set, a file, a pointer, a record, a class reference, a
    /// subrange, an enumeration.
    fn type_ref_with_bounds(&mut self, bounds: &mut Option<(Expr, Expr)>) -> Option<TypeRef> {
        let start = self.at;
        let mut c = self.peek();
        // `packing?` before `array`, `set` and `record`
        let packed = matches!(c, K_PACKED | K_BITPACKED)
            && matches!(self.peek_at(1), K_ARRAY | K_SET | K_RECORD);
        if packed {
            self.bump();
            c = self.peek();
        }
        let kind = match c {
            K_SPECIALIZE | K_BITPACKED => return None,
            K_REFERENCE if self.peek_at(1) == K_TO => {
                self.proc_type()?;
                TypeRefKind::Other
            }
            _ if is_name(c) => {
                if !matches!(self.peek_at(1), LT | DOT | LP | C_DOTDOT) {
                    return Some(self.short_type_ref());
                }
                let kind = self.named_type()?;
                if self.peek() == C_DOTDOT {
                    // `Low..High`, `TEnum.A..TEnum.B`: a subrange, read again as one
                    return self.subrange(start, bounds);
                }
                kind
            }
            K_STRING if self.peek_at(1) == LB => {
                self.at += 2 * CODE_WIDTH;
                let length = self.expr()?;
                self.expect(RB)?;
                TypeRefKind::ShortString {
                    length: Box::new(length),
                }
            }
            K_STRING => {
                self.bump();
                TypeRefKind::Named {
                    name: Text::const_new("string"),
                    generic_args: Vec::new(),
                }
            }
            K_ARRAY => self.array_type()?,
            K_SET if self.peek_at(1) == K_OF => {
                self.at += 2 * CODE_WIDTH;
                self.nested_type_ref()?;
                TypeRefKind::Other
            }
            K_PROCEDURE | K_FUNCTION => {
                self.proc_type()?;
                TypeRefKind::Other
            }
            K_FILE => {
                self.bump();
                if self.eat(K_OF) {
                    self.nested_type_ref()?;
                }
                TypeRefKind::Other
            }
            CARET => {
                self.bump();
                TypeRefKind::Pointer {
                    target: Box::new(self.nested_type_ref()?),
                }
            }
            K_RECORD => {
                self.structured(StructuredKind::Record)?;
                TypeRefKind::Other
            }
            K_CLASS if self.peek_at(1) == K_OF => {
                self.at += 2 * CODE_WIDTH;
                self.nested_type_ref()?;
                TypeRefKind::Other
            }
            C_NUMBER | C_STRING | MINUS | PLUS | LP | LB | AT | K_NOT | K_NIL | K_INHERITED => {
                if let Some(subrange) = self.subrange(start, bounds) {
                    return Some(subrange);
                }
                if self.gave_up || c != LP {
                    return None;
                }
                self.enum_members()?;
                TypeRefKind::Other
            }
            _ => return None,
        };
        let text = normalize(self.text(start, self.at));
        let span = self.span(start, self.at);
        Some(TypeRef { kind, text, span })
    }

    /// `array_type` from `array` on, as lowering reads it: its type references are the
    /// indexes and the element; it is `of const` when its last token is `const` (also the
    /// last token of an element `array of const`), and then has no element.
    fn array_type(&mut self) -> Option<TypeRefKind> {
        self.expect(K_ARRAY)?;
        let mut indexes = 0;
        if self.eat(LB) {
            loop {
                self.nested_type_ref()?;
                indexes += 1;
                if !self.eat(COMMA) {
                    break;
                }
            }
            self.expect(RB)?;
        }
        self.expect(K_OF)?;
        let element = if self.eat(K_CONST) {
            None
        } else {
            Some(self.nested_type_ref()?)
        };
        let refs = indexes + usize::from(element.is_some());
        let of_const = self.code_at(self.at - CODE_WIDTH) == K_CONST;
        let has_index = refs >= if of_const { 1 } else { 2 };
        let element = element.filter(|_| !of_const).map(Box::new);
        Some(match (has_index, element) {
            (true, Some(element)) => TypeRefKind::StaticArray { element },
            (true, None) => TypeRefKind::Other,
            (false, element) => TypeRefKind::ArrayOf { element },
        })
    }

    /// `subrange_type` from `start`: two expressions around `..`, which go to `bounds`.
    /// `None` (with `gave_up` unset) when the grammar's rule does not match.
    fn subrange(&mut self, start: usize, bounds: &mut Option<(Expr, Expr)>) -> Option<TypeRef> {
        self.at = start;
        let low = self.expression(true)?;
        if !self.eat(C_DOTDOT) {
            self.at = start;
            return None;
        }
        let Some(high) = self.expression(true) else {
            self.at = start;
            return None;
        };
        *bounds = Some((low, high));
        Some(TypeRef {
            kind: TypeRefKind::Other,
            text: normalize(self.text(start, self.at)),
            span: self.span(start, self.at),
        })
    }

    /// A type reference inside another one.
    fn nested_type_ref(&mut self) -> Option<TypeRef> {
        self.deeper(Self::type_ref)
    }

    /// Runs `read` one level deeper: the reader gives up past `MAX_DEPTH` levels of types,
    /// headings and prefix operators, so it needs little stack however deep the input nests.
    fn deeper<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        if self.depth >= MAX_DEPTH {
            return self.give_up();
        }
        self.depth += 1;
        let value = read(self);
        self.depth -= 1;
        value
    }

    /// `named_type` without `specialize`: name parts, each with optional generic arguments,
    /// of which the last part's are kept, and a code page (`AnsiString(1252)`). Like the
    /// grammar it stops before a `.` without a name and a `(` without a code page.
    fn named_type(&mut self) -> Option<TypeRefKind> {
        if !is_name(self.peek()) || self.peek() == K_SPECIALIZE {
            return None;
        }
        let mut name = Text::default();
        let mut generic_args;
        loop {
            let part = self.token_text(self.at);
            self.bump();
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(part.strip_prefix('&').unwrap_or(part));
            generic_args = if self.peek() == LT {
                self.generic_args()?
            } else {
                Vec::new()
            };
            if self.peek() != DOT || !is_dot_name(self.peek_at(1)) {
                break;
            }
            self.bump();
        }
        if self.peek() == LP {
            let before = self.at;
            self.bump();
            match self.expr() {
                Some(code_page) if self.eat(RP) => {
                    return Some(TypeRefKind::CodePageString {
                        name,
                        code_page: Box::new(code_page),
                    })
                }
                _ if self.gave_up => return None,
                _ => self.at = before,
            }
        }
        Some(TypeRefKind::Named { name, generic_args })
    }

    /// `generic_args`.
    fn generic_args(&mut self) -> Option<Vec<TypeRef>> {
        self.expect(LT)?;
        let mut args = vec![self.nested_type_ref()?];
        while self.eat(COMMA) {
            args.push(self.nested_type_ref()?);
        }
        self.expect(GT)?;
        Some(args)
    }

    /// `generic_params`.
    fn generic_params(&mut self) -> Option<Vec<GenericParam>> {
        self.expect(LT)?;
        let mut out = Vec::new();
        loop {
            let names_start = self.at;
            self.ident_list()?;
            let names_end = self.at;
            let mut constraints = Vec::new();
            if self.eat(COLON) {
                loop {
                    let start = self.at;
                    if matches!(
                        self.peek(),
                        K_CLASS | K_RECORD | K_CONSTRUCTOR | K_INTERFACE
                    ) {
                        self.bump();
                    } else {
                        self.named_type()?;
                    }
                    constraints.push(normalize(self.text(start, self.at)));
                    if !self.eat(COMMA) {
                        break;
                    }
                }
            }
            out.extend(
                self.list_names(names_start, names_end)
                    .map(|(name, span)| GenericParam {
                        name,
                        constraints: constraints.clone(),
                        span,
                    }),
            );
            if !self.eat(SEMI) {
                self.expect(GT)?;
                return Some(out);
            }
        }
    }

    // ------------------------------------------------------------ routines

    /// `routine_decl`: attributes and a heading.
    pub(crate) fn routine_decl(&mut self) -> Option<Routine> {
        let doc = self.lower.doc_at(self.at);
        let attributes = self.attributes()?;
        self.routine_heading(attributes, doc)
    }

    /// `routine_heading`, but for FPC's operators named by a symbol and results named before
    /// the `:`.
    fn routine_heading(
        &mut self,
        attributes: Vec<Attribute>,
        doc: Option<Box<DocComment>>,
    ) -> Option<Routine> {
        let start = self.at;
        let is_class = self.eat(K_CLASS);
        if self.peek() == K_GENERIC && routine_kind(self.peek_at(1)).is_some() {
            self.bump();
        }
        let kind = match self.peek() {
            K_OPERATOR => RoutineKind::Operator,
            c => routine_kind(c)?,
        };
        self.bump();
        // name parts: all but the last qualify the routine
        if !is_dot_name(self.peek()) {
            return None;
        }
        let mut part = self.at;
        self.bump();
        let mut generic_params = self.name_generics()?;
        let mut qualifier: Option<Text> = None;
        loop {
            match self.peek() {
                DOT if is_dot_name(self.peek_at(1)) => {
                    let q = compact(self.text(part, self.at));
                    match qualifier.as_mut() {
                        Some(qualifier) => {
                            qualifier.push('.');
                            qualifier.push_str(&q);
                        }
                        None => qualifier = Some(q),
                    }
                    part = self.at + CODE_WIDTH;
                    self.at += 2 * CODE_WIDTH;
                    generic_params = self.name_generics()?;
                }
                DOT => return None,
                _ => break,
            }
        }
        let mut params = Vec::new();
        if self.peek() == LP {
            self.formal_params(&mut params)?;
        }
        let mut result = None;
        let mut attributes = attributes;
        if self.eat(COLON) {
            // attributes of the result are kept with the routine's
            attributes.extend(self.attributes()?);
            result = Some(self.type_ref()?);
        }
        // `method_resolution`: `function IFoo.Bar = DoBar;`
        let mut resolution = None;
        if self.eat(EQ) {
            let target = self.at;
            self.qualified_ident()?;
            resolution = Some(Directive {
                name: Text::const_new("="),
                arg: Some(compact(self.text(target, self.at))),
                span: self.span(0, 0),
            });
        }
        let mut directives = self.heading_end()?;
        if let Some(resolution) = resolution {
            directives.insert(0, resolution);
        }
        let span = self.span(start, self.at);
        Some(Routine {
            kind,
            is_class,
            name: strip_amp(self.token_text(part)),
            qualifier,
            name_span: self.span(part, part + CODE_WIDTH),
            generic_params,
            params,
            result,
            directives,
            attributes,
            doc,
            forward: false,
            body_span: None,
            nested: Vec::new(),
            span,
        })
    }

    /// The generic parameters after a routine's name part (`name_part`), if any; `None` for
    /// generic arguments (`IEnumerable<TPair<K, V>>.GetEnumerator`), left to the grammar.
    fn name_generics(&mut self) -> Option<Vec<GenericParam>> {
        if self.peek() == LT {
            self.generic_params()
        } else {
            Some(Vec::new())
        }
    }

    /// `formal_params`.
    fn formal_params(&mut self, params: &mut Vec<Param>) -> Option<()> {
        self.expect(LP)?;
        if self.eat(RP) {
            return Some(());
        }
        loop {
            self.param_group(params)?;
            if self.eat(SEMI) {
                if self.eat(RP) {
                    return Some(());
                }
                continue;
            }
            return self.expect(RP);
        }
    }

    /// `param_group`: attributes, a mode, attributes, names, a type and a default value.
    fn param_group(&mut self, params: &mut Vec<Param>) -> Option<()> {
        let start = self.at;
        let mut attributes = self.attributes()?;
        if matches!(self.peek(), K_CONST | K_VAR | K_OUT | K_CONSTREF) {
            // `out`, `constref` before these are a parameter's name
            if matches!(self.peek_at(1), COLON | COMMA | RP | EQ) {
                return None;
            }
            self.bump();
            if self.peek() == LB {
                attributes.extend(self.attributes()?);
            }
        }
        let names_start = self.at;
        self.ident_list()?;
        let names_end = self.at;
        // as lowering reads it: the first mode keyword before the names, `const` with a `[ref]`
        // attribute is `constref`
        let mode = (start..names_start)
            .step_by(CODE_WIDTH)
            .find_map(|at| match self.code_at(at) {
                K_CONST => Some(ParamMode::Const),
                K_VAR => Some(ParamMode::Var),
                K_OUT => Some(ParamMode::Out),
                K_CONSTREF => Some(ParamMode::ConstRef),
                _ => None,
            });
        let mode = match mode {
            Some(ParamMode::Const)
                if attributes
                    .iter()
                    .any(|a| a.name.eq_ignore_ascii_case("ref")) =>
            {
                ParamMode::ConstRef
            }
            mode => mode.unwrap_or(ParamMode::Value),
        };
        let ty = if self.eat(COLON) {
            Some(self.type_ref()?)
        } else {
            None
        };
        let default = if self.eat(EQ) {
            Some(self.expr()?)
        } else {
            None
        };
        let span = self.span(start, self.at);
        let names = self.list_names(names_start, names_end);
        push_params(params, names, mode, ty, default, attributes, span);
        Some(())
    }

    /// The end of a heading: `(&(SEMI? ~ directive_start) ~ directives | SEMI)`, where
    /// `directives` is `SEMI? ~ directive_list ~ (SEMI ~ directive_list)* ~ SEMI?`.
    fn heading_end(&mut self) -> Option<Vec<Directive>> {
        let at = self.at;
        let mut out = Vec::new();
        let semi = self.peek() == SEMI;
        if is_directive_start(self.peek_at(usize::from(semi))) {
            self.eat(SEMI);
            if self.directive_list(&mut out)? {
                while self.eat(SEMI) && self.directive_list(&mut out)? {}
                return Some(out);
            }
            self.at = at;
        }
        self.expect(SEMI)?;
        Some(out)
    }

    /// `directive_list`: directives not separated by `;` (`virtual abstract`); `false` when
    /// there is none.
    fn directive_list(&mut self, out: &mut Vec<Directive>) -> Option<bool> {
        let before = out.len();
        while is_directive_start(self.peek()) {
            match self.directive()? {
                Some(d) => out.push(d),
                None => break,
            }
        }
        Some(out.len() > before)
    }

    /// The `directive` here; `Some(None)` when the grammar's rule does not match.
    fn directive(&mut self) -> Option<Option<Directive>> {
        let start = self.at;
        let c = self.peek();
        let next = self.peek_at(1);
        let (name, arg) = if is_directive_name(c) && !matches!(next, COLON | COMMA | EQ) {
            self.bump();
            // `(!SEMI ~ directive_arg)?`: an expression, unless a directive follows
            let arg = if next == SEMI || is_directive_name(next) || is_linker_word(next) {
                None
            } else {
                let arg_start = self.at;
                match self.expr() {
                    Some(_) => Some(normalize(self.text(arg_start, self.at))),
                    None if self.gave_up => return None,
                    None => None,
                }
            };
            (lowercase(self.token_text(start)), arg)
        } else if (c == K_PUBLIC
            && next == K_NAME
            && !matches!(self.peek_at(2), COLON | COMMA | EQ))
            || (c == K_ALIAS && next == COLON)
        {
            // `public name 'symbol'` (the argument is `name 'symbol'`), `alias: 'symbol'`
            self.at += 2 * CODE_WIDTH;
            let arg_start = if c == K_ALIAS {
                self.at
            } else {
                start + CODE_WIDTH
            };
            self.expr()?;
            let arg = normalize(self.text(arg_start, self.at));
            (lowercase(self.token_text(start)), Some(arg))
        } else if is_linker_word(c) {
            // `linker_clause`: `framework 'UIKit'`, `dependency 'c++', 'z'`
            self.bump();
            self.expr()?;
            while self.eat(COMMA) {
                self.expr()?;
            }
            let rest = normalize(self.text(start + CODE_WIDTH, self.at));
            (lowercase(self.token_text(start)), Some(rest))
        } else {
            return Some(None);
        };
        Some(Some(Directive {
            name,
            arg,
            span: self.span(start, self.at),
        }))
    }

    /// `hint`: `deprecated`, `deprecated 'why'`, `platform`, `experimental`, `library`.
    fn hint(&mut self) -> Directive {
        let start = self.at;
        self.bump();
        let name = lowercase(self.token_text(start));
        let arg_start = self.at;
        while self.peek() == C_STRING {
            self.bump();
        }
        let arg = (self.at > arg_start).then(|| normalize(self.text(arg_start, self.at)));
        Directive {
            name,
            arg,
            span: self.span(start, self.at),
        }
    }

    /// `hints`.
    fn hints(&mut self) -> Vec<Directive> {
        let mut out = Vec::new();
        while is_hint_name(self.peek()) {
            out.push(self.hint());
        }
        out
    }

    // ------------------------------------------------------------ types

    /// `type_decl` of a class, record, interface, helper, enumeration, subrange, procedural
    /// type or a type reference.
    pub(crate) fn type_decl(&mut self) -> Option<TypeDecl> {
        let start = self.at;
        let doc = self.lower.doc_at(start);
        let attributes = self.attributes()?;
        if !is_name(self.peek()) || self.peek() == K_GENERIC {
            return None;
        }
        let name_at = self.at;
        self.bump();
        let generic_params = if self.peek() == LT {
            self.generic_params()?
        } else {
            Vec::new()
        };
        self.expect(EQ)?;
        let def = self.type_def()?;
        let hints = self.hints();
        self.expect(SEMI)?;
        Some(TypeDecl {
            name: strip_amp(self.token_text(name_at)),
            name_span: self.span(name_at, name_at + CODE_WIDTH),
            generic_params,
            def,
            attributes,
            doc,
            hints,
            span: self.span(start, self.at),
        })
    }

    /// `type_def`.
    fn type_def(&mut self) -> Option<TypeDef> {
        let c = self.peek();
        let next = self.peek_at(1);
        if matches!(c, K_PACKED | K_BITPACKED) {
            // `packing?` before a class, record or object (not a helper or class reference),
            // an array or a set
            let kind = match next {
                K_CLASS if !matches!(self.peek_at(2), K_OF | K_HELPER) => StructuredKind::Class,
                K_RECORD if self.peek_at(2) != K_HELPER => StructuredKind::Record,
                K_OBJECT => StructuredKind::Object,
                K_SET if self.peek_at(2) == K_OF => {
                    self.at += 3 * CODE_WIDTH;
                    let element = self.type_ref()?;
                    return Some(TypeDef::Set { element });
                }
                K_ARRAY => return self.type_def_ref(),
                _ => return None,
            };
            let packing = lowercase(self.token_text(self.at));
            self.bump();
            let mut st = self.structured(kind)?;
            st.modifiers.insert(0, packing);
            return Some(TypeDef::Structured(st));
        }
        let kind = match c {
            K_CLASS if next == K_OF => {
                self.at += 2 * CODE_WIDTH;
                let class = self.type_ref()?;
                return Some(TypeDef::ClassRef { class });
            }
            K_CLASS if next == K_HELPER => StructuredKind::ClassHelper,
            K_CLASS => StructuredKind::Class,
            K_RECORD if next == K_HELPER => StructuredKind::RecordHelper,
            K_RECORD => StructuredKind::Record,
            K_OBJECT => StructuredKind::Object,
            K_INTERFACE => StructuredKind::Interface,
            K_DISPINTERFACE => StructuredKind::DispInterface,
            // `type X` (a distinct type), not `type helper`
            K_TYPE if next != K_HELPER => {
                self.bump();
                let target = self.type_ref()?;
                return Some(TypeDef::Alias {
                    target,
                    distinct: true,
                });
            }
            _ if is_struct_start(c) => return None,
            // a subrange (`(A)..(B)`) is tried before an enumeration
            LP => {
                let start = self.at;
                let mut bounds = None;
                if self.subrange(start, &mut bounds).is_some() {
                    let (low, high) = bounds?;
                    return Some(TypeDef::Subrange { low, high });
                }
                if self.gave_up {
                    return None;
                }
                let members = self.enum_members()?;
                return Some(TypeDef::Enum(EnumType { members }));
            }
            K_SET if next == K_OF => {
                self.at += 2 * CODE_WIDTH;
                let element = self.type_ref()?;
                return Some(TypeDef::Set { element });
            }
            K_PROCEDURE | K_FUNCTION => return self.proc_type().map(TypeDef::Procedural),
            K_REFERENCE if next == K_TO => return self.proc_type().map(TypeDef::Procedural),
            _ => return self.type_def_ref(),
        };
        Some(TypeDef::Structured(self.structured(kind)?))
    }

    /// A `type_def` that is a `type_ref`: an alias, a pointer, a subrange or another type.
    fn type_def_ref(&mut self) -> Option<TypeDef> {
        let mut bounds = None;
        let target = self.type_ref_with_bounds(&mut bounds)?;
        if let Some((low, high)) = bounds {
            return Some(TypeDef::Subrange { low, high });
        }
        Some(match target.kind {
            TypeRefKind::Pointer { target } => TypeDef::Pointer { target: *target },
            TypeRefKind::Named { .. }
            | TypeRefKind::ShortString { .. }
            | TypeRefKind::CodePageString { .. } => TypeDef::Alias {
                target,
                distinct: false,
            },
            _ => TypeDef::Other { target },
        })
    }

    /// `proc_type`: `reference to`, the kind, parameters, result, `of object` or `is nested`,
    /// then calling conventions (kept as directives) and hints, each maybe after a `;`.
    fn proc_type(&mut self) -> Option<ProceduralType> {
        self.deeper(Self::proc_type_body)
    }

    fn proc_type_body(&mut self) -> Option<ProceduralType> {
        let start = self.at;
        let reference_to = self.peek() == K_REFERENCE;
        if reference_to {
            if self.peek_at(1) != K_TO {
                return None;
            }
            self.at += 2 * CODE_WIDTH;
        }
        let kind = match self.peek() {
            K_PROCEDURE => RoutineKind::Procedure,
            K_FUNCTION => RoutineKind::Function,
            _ => return None,
        };
        self.bump();
        let mut params = Vec::new();
        if self.peek() == LP {
            self.formal_params(&mut params)?;
        }
        let result = if self.eat(COLON) {
            Some(self.type_ref()?)
        } else {
            None
        };
        let of_object = self.peek() == K_OF;
        if of_object {
            if self.peek_at(1) != K_OBJECT {
                return None;
            }
            self.at += 2 * CODE_WIDTH;
        } else if self.peek() == K_IS && self.peek_at(1) == K_NESTED {
            self.at += 2 * CODE_WIDTH;
        }
        // `(SEMI? ~ call_conv | SEMI ~ hint ~ &SEMI)*`
        let mut directives = Vec::new();
        loop {
            let semi = usize::from(self.peek() == SEMI);
            let at = self.at + semi * CODE_WIDTH;
            let c = self.code_at(at);
            if is_call_conv(c) {
                self.at = at + CODE_WIDTH;
                directives.push(Directive {
                    name: lowercase(self.token_text(at)),
                    arg: None,
                    span: self.span(at, self.at),
                });
            } else if semi == 1 && is_hint_name(c) {
                let before = self.at;
                self.at = at;
                self.hint();
                if self.peek() != SEMI {
                    self.at = before;
                    break;
                }
            } else {
                break;
            }
        }
        let mut heading = empty_routine(self.span(start, self.at));
        heading.kind = kind;
        heading.params = params;
        heading.result = result;
        heading.directives = directives;
        heading.forward = true;
        Some(ProceduralType {
            reference_to,
            of_object,
            heading,
        })
    }

    /// `enum_type`: its members, with their values.
    fn enum_members(&mut self) -> Option<Vec<EnumMember>> {
        self.expect(LP)?;
        let mut members = Vec::new();
        loop {
            if !is_name(self.peek()) {
                return None;
            }
            let at = self.at;
            self.bump();
            let value = if matches!(self.peek(), EQ | C_ASSIGN) {
                self.bump();
                Some(self.expr()?)
            } else {
                None
            };
            members.push(EnumMember {
                name: strip_amp(self.token_text(at)),
                value,
                span: self.span(at, self.at),
            });
            if !self.eat(COMMA) {
                self.expect(RP)?;
                return Some(members);
            }
        }
    }

    /// `class_type`, `record_type`, `interface_type`, `object_type` and helpers from their
    /// keyword on (after any packing).
    fn structured(&mut self, kind: StructuredKind) -> Option<StructuredType> {
        self.deeper(|d| d.structured_body(kind))
    }

    fn structured_body(&mut self, kind: StructuredKind) -> Option<StructuredType> {
        self.bump();
        let mut st = StructuredType {
            kind,
            modifiers: Vec::new(),
            ancestors: Vec::new(),
            helper_for: None,
            forward: false,
            sections: Vec::new(),
            guid: None,
        };
        if kind == StructuredKind::Class {
            while matches!(self.peek(), K_ABSTRACT | K_SEALED) {
                st.modifiers.push(lowercase(self.token_text(self.at)));
                self.bump();
            }
        }
        if matches!(
            kind,
            StructuredKind::ClassHelper | StructuredKind::RecordHelper
        ) {
            self.bump();
        }
        if kind != StructuredKind::Record && kind != StructuredKind::RecordHelper {
            if self.peek() == LP {
                self.heritage(&mut st.ancestors)?;
            }
            // `TFoo = class;`, `IFoo = interface(IBar);`: forward declarations
            if self.peek() == SEMI
                && matches!(
                    kind,
                    StructuredKind::Class
                        | StructuredKind::Interface
                        | StructuredKind::DispInterface
                )
            {
                st.forward = true;
                return Some(st);
            }
        }
        if matches!(
            kind,
            StructuredKind::ClassHelper | StructuredKind::RecordHelper
        ) {
            self.expect(K_FOR)?;
            let start = self.at;
            let kind = if kind == StructuredKind::RecordHelper && self.peek() == K_STRING {
                if self.peek_at(1) == LB {
                    return None;
                }
                self.bump();
                TypeRefKind::Named {
                    name: Text::const_new("string"),
                    generic_args: Vec::new(),
                }
            } else {
                self.named_type()?
            };
            st.helper_for = Some(TypeRef {
                kind,
                text: normalize(self.text(start, self.at)),
                span: self.span(start, self.at),
            });
        }
        if matches!(
            kind,
            StructuredKind::Interface | StructuredKind::DispInterface
        ) && self.peek() == LB
        {
            st.guid = Some(self.guid()?);
        }
        let mut members = Members::default();
        loop {
            match self.peek() {
                K_END => break,
                SEMI => self.bump(),
                _ => self.member(&mut members)?,
            }
        }
        self.bump();
        // `record_align`
        if kind == StructuredKind::Record && self.eat(K_ALIGN) {
            self.expr()?;
        }
        st.sections = members.finish();
        Some(st)
    }

    /// `heritage`.
    fn heritage(&mut self, ancestors: &mut Vec<TypeRef>) -> Option<()> {
        self.expect(LP)?;
        loop {
            let start = self.at;
            let kind = self.named_type()?;
            ancestors.push(TypeRef {
                kind,
                text: normalize(self.text(start, self.at)),
                span: self.span(start, self.at),
            });
            if !self.eat(COMMA) {
                return self.expect(RP);
            }
        }
    }

    /// `guid`.
    fn guid(&mut self) -> Option<Text> {
        self.expect(LB)?;
        let start = self.at;
        let value = match self.string_lit() {
            Some(value) => value,
            None => {
                self.qualified_ident()?;
                compact(self.text(start, self.at))
            }
        };
        self.expect(RB)?;
        Some(value)
    }

    /// `member`: attributes, then the grammar's `member_body` alternatives in their order: a
    /// method, a visibility word, a field, a property, a `class var`, `var`, `const` or `type`
    /// block, a variant part.
    fn member(&mut self, m: &mut Members) -> Option<()> {
        if self.peek() == LB {
            let start = self.at;
            let attributes = self.attributes()?;
            m.attributes(start, attributes);
        }
        let start = self.at;
        let c = self.peek();
        let next = self.peek_at(1);
        let method = match c {
            K_CLASS => routine_kind(next).is_some() || next == K_OPERATOR,
            K_GENERIC => routine_kind(next).is_some(),
            // an operator's name follows; `Operator: string` is a field
            K_OPERATOR if !matches!(next, COLON | COMMA) => {
                if !is_dot_name(next) {
                    return None;
                }
                true
            }
            _ => routine_kind(c).is_some(),
        };
        if method {
            let doc = self.lower.doc_at(m.member_start(start));
            let mut r = self.routine_heading(m.take_pending(), doc)?;
            r.forward = true;
            m.push(Member::Method(r));
        } else if is_vis_word(c) && !matches!(next, COLON | COMMA) {
            self.bump();
            m.member_start(start);
            m.visibility(visibility_of(char::from_u32(c)?, false));
        } else if c == K_STRICT && is_vis_word(next) {
            if matches!(self.peek_at(2), COLON | COMMA) {
                return None;
            }
            self.at += 2 * CODE_WIDTH;
            m.member_start(start);
            m.visibility(visibility_of(char::from_u32(next)?, true));
        } else if is_name(c) {
            let member_start = m.member_start(start);
            let fields = self.field_decl()?;
            // the field's own comment, else the one before its attributes (looked up only
            // when there are attributes between)
            let before_attributes = match fields.first() {
                Some(f) if f.doc.is_none() && member_start != start => {
                    self.lower.doc_at(member_start)
                }
                _ => None,
            };
            m.fields(fields, before_attributes, false);
        } else if c == K_PROPERTY || (c == K_CLASS && next == K_PROPERTY) {
            let doc = self.lower.doc_at(m.member_start(start));
            let prop = self.property(m.take_pending(), doc)?;
            m.push(Member::Property(prop));
        } else {
            m.member_start(start);
            self.member_block(m)?;
        }
        Some(())
    }

    /// The members that are blocks: `class var`, `var`, `threadvar` (fields), `const`, `type`,
    /// and a variant part (`case`), kept as its extent.
    fn member_block(&mut self, m: &mut Members) -> Option<()> {
        let start = self.at;
        match self.peek() {
            K_CLASS | K_VAR | K_THREADVAR => {
                let is_class = self.eat(K_CLASS);
                if !matches!(self.peek(), K_VAR | K_THREADVAR) {
                    return None;
                }
                self.bump();
                // `field_decl*`: a field starts with a name and `:` or `,`
                while self.block_item_at(|c, n| is_name(c) && matches!(n, COLON | COMMA))? {
                    let fields = self.field_decl()?;
                    m.fields(fields, None, is_class);
                }
            }
            K_CONST => {
                self.bump();
                let mut items = Vec::new();
                while self.block_item_at(|c, n| is_name(c) && matches!(n, EQ | COLON))? {
                    self.const_decl(&mut items)?;
                }
                m.take_pending();
                m.push(Member::Const(ConstSection {
                    resourcestring: false,
                    items,
                    span: self.span(start, self.at),
                }));
            }
            K_TYPE => {
                self.bump();
                let mut items = Vec::new();
                while self.block_item_at(|c, n| is_name(c) && matches!(n, EQ | LT))? {
                    items.push(self.type_decl()?);
                }
                m.take_pending();
                m.push(Member::Type(TypeSection {
                    items,
                    span: self.span(start, self.at),
                }));
            }
            K_CASE => {
                self.bump();
                self.balanced(|c| c == K_END)?;
                m.push(Member::Variant {
                    span: self.span(start, self.at),
                });
            }
            _ => return None,
        }
        Some(())
    }

    /// Whether the next item of a block starts here: after any attributes, its first two
    /// tokens pass `starts`.
    fn block_item_at(&mut self, starts: fn(u32, u32) -> bool) -> Option<bool> {
        let here = self.at;
        if self.peek() == LB {
            self.attributes()?;
        }
        let yes = starts(self.peek(), self.peek_at(1));
        self.at = here;
        Some(yes)
    }

    /// The start of `var_decl` and `field_decl`: attributes, names (where they start and
    /// end), `:`, a type and hints (which the tree keeps for neither).
    fn names_and_type(&mut self) -> Option<(Vec<Attribute>, (usize, usize), TypeRef)> {
        let attributes = self.attributes()?;
        let names_start = self.at;
        self.ident_list()?;
        let names_end = self.at;
        self.expect(COLON)?;
        let ty = self.type_ref()?;
        self.hints();
        Some((attributes, (names_start, names_end), ty))
    }

    /// `field_decl`: one field per name, each with the declaration's attributes and doc
    /// comment; it ends with `;` or before `end`.
    fn field_decl(&mut self) -> Option<Vec<VarDecl>> {
        let start = self.at;
        let (attributes, names, ty) = self.names_and_type()?;
        if !self.eat(SEMI) && !matches!(self.peek(), K_END | RP) {
            return None;
        }
        let span = self.span(start, self.at);
        let doc = self.lower.doc_at(start);
        let names = self.list_names(names.0, names.1);
        Some(var_decls(names, ty, None, attributes, doc, span).collect())
    }

    /// `property_decl`.
    fn property(
        &mut self,
        attributes: Vec<Attribute>,
        doc: Option<Box<DocComment>>,
    ) -> Option<Property> {
        let start = self.at;
        let is_class = self.eat(K_CLASS);
        self.expect(K_PROPERTY)?;
        if !is_name(self.peek()) {
            return None;
        }
        let name_at = self.at;
        self.bump();
        // `property_params`
        let mut params = Vec::new();
        if self.eat(LB) {
            loop {
                self.param_group(&mut params)?;
                if !self.eat(SEMI) {
                    break;
                }
            }
            self.expect(RB)?;
        }
        let ty = if self.eat(COLON) {
            Some(self.type_ref()?)
        } else {
            None
        };
        // `prop_spec*`: hints, and specifier names each maybe with an argument
        let mut specifiers = Vec::new();
        loop {
            let c = self.peek();
            if is_hint_name(c) {
                specifiers.push(self.hint());
                continue;
            }
            if !is_prop_spec_name(c) {
                break;
            }
            let spec_start = self.at;
            self.bump();
            let name = lowercase(self.token_text(spec_start));
            let next = self.peek();
            let mut arg = None;
            if next != SEMI && !is_prop_spec_name(next) && !is_hint_name(next) {
                // `prop_spec_arg`: expressions separated by `,`
                let arg_start = self.at;
                if self.expr().is_some() {
                    loop {
                        let comma = self.at;
                        if !self.eat(COMMA) {
                            break;
                        }
                        if self.expr().is_none() {
                            if self.gave_up {
                                return None;
                            }
                            self.at = comma;
                            break;
                        }
                    }
                    arg = Some(normalize(self.text(arg_start, self.at)));
                } else if self.gave_up {
                    return None;
                }
            }
            specifiers.push(Directive {
                name,
                arg,
                span: self.span(spec_start, self.at),
            });
        }
        if !self.eat(SEMI) && self.peek() != K_END {
            return None;
        }
        // `(prop_default ~ SEMI)?`
        if self.peek() == K_DEFAULT && self.peek_at(1) == SEMI {
            specifiers.push(Directive {
                name: Text::const_new("default"),
                arg: None,
                span: self.span(self.at, self.at + CODE_WIDTH),
            });
            self.at += 2 * CODE_WIDTH;
        }
        // `(hint ~ SEMI)*`
        while is_hint_name(self.peek()) {
            let before = self.at;
            let hint = self.hint();
            if !self.eat(SEMI) {
                self.at = before;
                break;
            }
            specifiers.push(hint);
        }
        Some(Property {
            name: strip_amp(self.token_text(name_at)),
            name_span: self.span(name_at, name_at + CODE_WIDTH),
            is_class,
            params,
            ty,
            specifiers,
            attributes,
            doc,
            span: self.span(start, self.at),
        })
    }

    /// Tokens up to one that `stops` outside brackets (or the end of the input), brackets
    /// matched as the grammar's groups match them; gives up when they do not match.
    fn balanced(&mut self, stops: impl Fn(u32) -> bool) -> Option<()> {
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
