//! The direct path: plain declarations read from the token string straight into the tree.
//!
//! Most declarations of real code are plain: a class of fields, methods and properties, a
//! routine heading with simple parameters and directive words. For those, running the grammar
//! and lowering its pairs is most of the cost of a parse. This reader follows the grammar's
//! rules for a subset of the language and builds the tree lowering would build, with the same
//! helpers for texts, spans and doc comments. At the first token outside the subset it gives
//! up (`None`) and the driver runs the grammar on the item as before: the grammar stays the
//! definition of what parses and of every diagnostic, and this reader never decides alone that
//! something is an error.
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
use crate::tokens::{kw, ASSIGN, CODE_WIDTH, DOTDOT, IDENT, NUMBER, STRING};

/// The code of a punctuation mark (`tokens::punct_code`).
const fn punct(c: u8) -> u32 {
    0x100 + c as u32
}

/// The code of a keyword.
const fn word(w: &str) -> u32 {
    kw(w) as u32
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

/// True when the token `c` can start an expression (`unary_start` or a `primary`).
fn starts_operand(c: u32) -> bool {
    is_name(c)
        || matches!(
            c,
            MINUS
                | PLUS
                | K_NOT
                | AT
                | C_NUMBER
                | C_STRING
                | LB
                | LP
                | K_NIL
                | K_STRING
                | K_INHERITED
        )
}

/// Binding strength of the binary operator `c`: `Ok(None)` when `c` is none, `Err` for a
/// relational operator (`<>`, `<=`, `in`, ... are left to the grammar).
fn binary_precedence(c: u32) -> Result<Option<u8>, ()> {
    match c {
        PLUS | MINUS | K_OR | K_XOR => Ok(Some(1)),
        STAR | SLASH | K_AND | K_AS | K_DIV | K_MOD | K_SHL | K_SHR => Ok(Some(2)),
        LT | EQ | GT | K_IN | K_IS => Err(()),
        _ => Ok(None),
    }
}

/// How deep type arguments and prefix operators may nest before the reader leaves the item to
/// the grammar (which bounds nesting itself).
const MAX_DEPTH: u32 = 32;

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
}

impl<'l, 'a> Direct<'l, 'a> {
    /// A reader of `input`, the token string from the item on, for `lower`'s item.
    pub(crate) fn new(lower: &'l Lower<'a>, input: &'a str) -> Self {
        Self {
            lower,
            input: input.as_bytes(),
            at: 0,
            depth: 0,
        }
    }

    /// Where the reader is: the end of what it has read.
    pub(crate) fn pos(&self) -> usize {
        self.at
    }

    /// The code at byte `at` (0 at the end of the input).
    fn code_at(&self, at: usize) -> u32 {
        match self.input.get(at..at + CODE_WIDTH) {
            Some(&[a, b]) => (u32::from(a & 0x1F) << 6) | u32::from(b & 0x3F),
            _ => 0,
        }
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
        let value = self.expr()?;
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
        let attributes = self.attributes()?;
        let names_start = self.at;
        self.ident_list()?;
        let names_end = self.at;
        self.expect(COLON)?;
        let ty = self.type_ref()?;
        // `hints ~ var_init? ~ hints`: the tree keeps no hints of variables
        self.hints();
        let value = match self.peek() {
            K_ABSOLUTE => {
                self.bump();
                Some(self.expr()?)
            }
            EQ => {
                self.bump();
                let value = self.expr()?;
                // `const_value`: an expression ends at `;` or a hint
                if self.peek() != SEMI && !is_hint_name(self.peek()) {
                    return None;
                }
                Some(value)
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
        let names = self.list_names(names_start, names_end);
        out.extend(var_decls(names, ty, value, attributes, doc, span));
        Some(())
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

    /// `opt_attributes`, without attribute targets (`[Result: Foo]`) and named arguments.
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

    /// `attribute`.
    fn attribute(&mut self) -> Option<Attribute> {
        let start = self.at;
        if self.peek_at(1) == COLON {
            return None;
        }
        self.qualified_ident()?;
        let name = compact(self.text(start, self.at));
        let mut args = Vec::new();
        if self.eat(LP) && !self.eat(RP) {
            loop {
                if is_name(self.peek()) && matches!(self.peek_at(1), C_ASSIGN | EQ) {
                    return None;
                }
                args.push(AttributeArg {
                    name: None,
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

    /// `expr` without relational operators, `@`, brackets, calls and indexes.
    fn expr(&mut self) -> Option<Expr> {
        let first = self.operand()?;
        Some(self.climb(first, 0)?.expr)
    }

    /// The precedence of the operator here, if any (`None`: one the reader leaves alone).
    fn operator(&self) -> Option<Option<u8>> {
        binary_precedence(self.peek()).ok()
    }

    /// Precedence climbing, as lowering builds the tree of a flat expression row.
    fn climb(&mut self, mut lhs: Operand, min: u8) -> Option<Operand> {
        while let Some(prec) = self.operator()?.filter(|&p| p >= min) {
            let op_start = self.at;
            self.bump();
            let op = compact(self.text(op_start, self.at)).to_ascii_lowercase();
            let mut rhs = self.operand()?;
            while let Some(next) = self.operator()?.filter(|&n| n > prec) {
                rhs = self.climb(rhs, next)?;
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

    /// An operand: prefix `-`, `+`, `not`, a primary and member accesses.
    fn operand(&mut self) -> Option<Operand> {
        let start = self.at;
        if matches!(self.peek(), MINUS | PLUS | K_NOT) {
            if self.depth >= MAX_DEPTH {
                return None;
            }
            self.bump();
            let op = lowercase(self.text(start, self.at));
            self.depth += 1;
            let inner = self.operand();
            self.depth -= 1;
            let inner = inner?;
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
            match self.peek() {
                DOT if is_dot_name(self.peek_at(1)) => {
                    let member = strip_amp(self.token_text(self.at + CODE_WIDTH));
                    self.at += 2 * CODE_WIDTH;
                    let kind = match expr.kind {
                        ExprKind::Ident { name } => ExprKind::Ident {
                            name: compact_str::format_compact!("{name}.{member}"),
                        },
                        _ => ExprKind::Other,
                    };
                    expr = Expr {
                        text: normalize(self.text(start, self.at)),
                        kind,
                        span: self.span(start, self.at),
                    };
                }
                DOT | LP | LB | CARET => return None,
                _ => break,
            }
        }
        Some(Operand {
            expr,
            start,
            end: self.at,
        })
    }

    /// `primary`: a name, number, string, `nil` or `string`.
    fn primary(&mut self) -> Option<Expr> {
        let start = self.at;
        let c = self.peek();
        self.bump();
        let kind = if is_name(c) {
            ExprKind::Ident {
                name: strip_amp(self.text(start, self.at)),
            }
        } else if c == C_NUMBER {
            number_kind(self.text(start, self.at))
        } else if c == C_STRING {
            self.at = start;
            ExprKind::Str {
                value: self.string_lit()?,
            }
        } else if c == K_NIL || c == K_STRING {
            ExprKind::Ident {
                name: normalize(self.text(start, self.at)),
            }
        } else {
            return None;
        };
        Some(Expr {
            text: normalize(self.text(start, self.at)),
            kind,
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
        let text = normalize(self.text(start, self.at));
        TypeRef {
            kind: TypeRefKind::Named {
                name: strip_amp(&text),
                generic_args: Vec::new(),
            },
            text,
            span: self.span(start, self.at),
        }
    }

    /// `type_ref`; a subrange's bounds go to `bounds`.
    fn type_ref_with_bounds(&mut self, bounds: &mut Option<(Expr, Expr)>) -> Option<TypeRef> {
        let start = self.at;
        let c = self.peek();
        let kind = if is_name(c) {
            if matches!(c, K_BITPACKED | K_REFERENCE | K_SPECIALIZE) {
                return None;
            }
            if !matches!(self.peek_at(1), LT | DOT | LP | C_DOTDOT) {
                return Some(self.short_type_ref());
            }
            match self.named_type() {
                Some(kind) if self.peek() != C_DOTDOT => kind,
                // `Low..High`, `TEnum.A..TEnum.B`: a subrange, read again as one
                _ => return self.subrange(start, bounds),
            }
        } else if c == K_STRING {
            self.bump();
            if self.eat(LB) {
                let length = self.expr()?;
                self.expect(RB)?;
                TypeRefKind::ShortString {
                    length: Box::new(length),
                }
            } else {
                TypeRefKind::Named {
                    name: Text::const_new("string"),
                    generic_args: Vec::new(),
                }
            }
        } else if c == K_ARRAY {
            self.bump();
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
            // As lowering reads `array_type`: its type references are the indexes and the
            // element; it is `of const` when its last token is `const` (also the last token of
            // an element `array of const`), and then has no element.
            let element = if self.eat(K_CONST) {
                None
            } else {
                Some(self.nested_type_ref()?)
            };
            let refs = indexes + usize::from(element.is_some());
            let of_const = self.code_at(self.at - CODE_WIDTH) == K_CONST;
            let has_index = refs >= if of_const { 1 } else { 2 };
            let element = element.filter(|_| !of_const).map(Box::new);
            match (has_index, element) {
                (true, Some(element)) => TypeRefKind::StaticArray { element },
                (true, None) => TypeRefKind::Other,
                (false, element) => TypeRefKind::ArrayOf { element },
            }
        } else if c == CARET {
            self.bump();
            TypeRefKind::Pointer {
                target: Box::new(self.nested_type_ref()?),
            }
        } else if c == K_SET && self.peek_at(1) == K_OF {
            self.at += 2 * CODE_WIDTH;
            self.nested_type_ref()?;
            TypeRefKind::Other
        } else if matches!(c, C_NUMBER | C_STRING | MINUS | PLUS) {
            return self.subrange(start, bounds);
        } else {
            return None;
        };
        let text = normalize(self.text(start, self.at));
        let span = self.span(start, self.at);
        Some(TypeRef { kind, text, span })
    }

    /// `subrange_type` from `start`: two expressions around `..`, which go to `bounds`.
    fn subrange(&mut self, start: usize, bounds: &mut Option<(Expr, Expr)>) -> Option<TypeRef> {
        self.at = start;
        let low = self.expr()?;
        self.expect(C_DOTDOT)?;
        let high = self.expr()?;
        *bounds = Some((low, high));
        Some(TypeRef {
            kind: TypeRefKind::Other,
            text: normalize(self.text(start, self.at)),
            span: self.span(start, self.at),
        })
    }

    /// A type reference inside another one.
    fn nested_type_ref(&mut self) -> Option<TypeRef> {
        if self.depth >= MAX_DEPTH {
            return None;
        }
        self.depth += 1;
        let t = self.type_ref();
        self.depth -= 1;
        t
    }

    /// `named_type` without `specialize` and code pages: name parts, each with optional generic
    /// arguments, of which the last part's are kept.
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
            if self.peek() != DOT {
                break;
            }
            if !is_dot_name(self.peek_at(1)) {
                return None;
            }
            self.bump();
        }
        if self.peek() == LP {
            return None;
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

    /// `routine_heading` of a procedure, function, constructor or destructor, also a class
    /// method; no generic parameters, method resolution, operator or parameter attributes.
    fn routine_heading(
        &mut self,
        attributes: Vec<Attribute>,
        doc: Option<Box<DocComment>>,
    ) -> Option<Routine> {
        let start = self.at;
        let is_class = self.eat(K_CLASS);
        let kind = routine_kind(self.peek())?;
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
        if self.eat(COLON) {
            if self.peek() == LB {
                return None;
            }
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
        // directives without a `;` before them are left to the grammar
        if self.peek() != SEMI {
            return None;
        }
        let mut directives = self.directives()?;
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

    /// `param_group` without attributes: a mode, names, a type and a default value.
    fn param_group(&mut self, params: &mut Vec<Param>) -> Option<()> {
        let start = self.at;
        let mode = match self.peek() {
            K_CONST => ParamMode::Const,
            K_VAR => ParamMode::Var,
            K_OUT => ParamMode::Out,
            K_CONSTREF => ParamMode::ConstRef,
            _ => ParamMode::Value,
        };
        if mode != ParamMode::Value {
            // `out`, `constref` before these are a parameter's name
            if matches!(self.peek_at(1), COLON | COMMA | RP | EQ) {
                return None;
            }
            self.bump();
        }
        let names_start = self.at;
        self.ident_list()?;
        let names_end = self.at;
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
        push_params(params, names, mode, ty, default, Vec::new(), span);
        Some(())
    }

    /// What the token at `at` starts after a heading's `;` (or after a directive): `true` a
    /// directive (`directive_name` not followed by `:`, `,` or `=`), `false` no directive,
    /// `None` one this reader leaves to the grammar (`public name`, `alias:`, linker clauses).
    fn directive_at(&self, at: usize) -> Option<bool> {
        let c = self.code_at(at);
        if is_directive_name(c) {
            if matches!(self.code_at(at + CODE_WIDTH), COLON | COMMA | EQ) {
                return (c != K_ALIAS).then_some(false);
            }
            return Some(true);
        }
        if c == K_PUBLIC {
            return (self.code_at(at + CODE_WIDTH) != K_NAME).then_some(false);
        }
        if c == K_DEPENDENCY || c == K_FRAMEWORK {
            return None;
        }
        Some(false)
    }

    /// From a heading's `;`: `(&(SEMI? ~ directive_start) ~ directives | SEMI)` for directives
    /// without arguments, each list ended by a `;`.
    fn directives(&mut self) -> Option<Vec<Directive>> {
        let mut out = Vec::new();
        let any = self.directive_at(self.at + CODE_WIDTH)?;
        self.bump();
        if !any {
            return Some(out);
        }
        loop {
            // one `directive_list`: directives not separated by `;` (`virtual abstract`)
            loop {
                let at = self.at;
                self.bump();
                let name = lowercase(self.token_text(at));
                // `(!SEMI ~ directive_arg)?`: an expression, unless a directive follows
                let next = self.peek();
                let arg = if next == SEMI
                    || is_directive_name(next)
                    || matches!(next, K_DEPENDENCY | K_FRAMEWORK)
                    || !starts_operand(next)
                {
                    None
                } else {
                    let arg_start = self.at;
                    self.expr()?;
                    Some(normalize(self.text(arg_start, self.at)))
                };
                out.push(Directive {
                    name,
                    arg,
                    span: self.span(at, self.at),
                });
                if !self.directive_at(self.at)? {
                    break;
                }
            }
            // `(SEMI ~ directive_list)* ~ SEMI?`; a last directive without `;` is left to the
            // grammar
            if self.peek() != SEMI {
                return None;
            }
            let more = self.directive_at(self.at + CODE_WIDTH)?;
            self.bump();
            if !more {
                return Some(out);
            }
        }
    }

    /// `hints`: `deprecated`, `deprecated 'why'`, `platform`, `experimental`, `library`.
    fn hints(&mut self) -> Vec<Directive> {
        let mut out = Vec::new();
        while is_hint_name(self.peek()) {
            let start = self.at;
            self.bump();
            let name = lowercase(self.token_text(start));
            let arg_start = self.at;
            while self.peek() == C_STRING {
                self.bump();
            }
            let arg = (self.at > arg_start).then(|| normalize(self.text(arg_start, self.at)));
            out.push(Directive {
                name,
                arg,
                span: self.span(start, self.at),
            });
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
        let mut packing = None;
        if self.peek() == K_PACKED && matches!(self.peek_at(1), K_CLASS | K_RECORD | K_OBJECT) {
            packing = Some(lowercase(self.token_text(self.at)));
            self.bump();
        }
        let c = self.peek();
        let kind = match c {
            K_CLASS if self.peek_at(1) == K_OF && packing.is_none() => {
                self.at += 2 * CODE_WIDTH;
                let class = self.type_ref()?;
                return Some(TypeDef::ClassRef { class });
            }
            K_CLASS if self.peek_at(1) == K_HELPER => StructuredKind::ClassHelper,
            K_CLASS => StructuredKind::Class,
            K_RECORD if self.peek_at(1) == K_HELPER => StructuredKind::RecordHelper,
            K_RECORD => StructuredKind::Record,
            K_OBJECT => StructuredKind::Object,
            K_INTERFACE => StructuredKind::Interface,
            K_DISPINTERFACE => StructuredKind::DispInterface,
            // `type X` (a distinct type), not `type helper`
            K_TYPE if self.peek_at(1) != K_HELPER && packing.is_none() => {
                self.bump();
                let target = self.type_ref()?;
                return Some(TypeDef::Alias {
                    target,
                    distinct: true,
                });
            }
            _ if is_struct_start(c) || packing.is_some() => return None,
            LP => return self.enum_type(),
            K_SET if self.peek_at(1) == K_OF => {
                self.at += 2 * CODE_WIDTH;
                let element = self.type_ref()?;
                return Some(TypeDef::Set { element });
            }
            K_PROCEDURE | K_FUNCTION | K_REFERENCE => return self.proc_type(),
            _ => {
                let mut bounds = None;
                let target = self.type_ref_with_bounds(&mut bounds)?;
                if let Some((low, high)) = bounds {
                    return Some(TypeDef::Subrange { low, high });
                }
                return Some(match target.kind {
                    TypeRefKind::Pointer { target } => TypeDef::Pointer { target: *target },
                    TypeRefKind::Named { .. }
                    | TypeRefKind::ShortString { .. }
                    | TypeRefKind::CodePageString { .. } => TypeDef::Alias {
                        target,
                        distinct: false,
                    },
                    _ => TypeDef::Other { target },
                });
            }
        };
        let mut st = self.structured(kind)?;
        if let Some(packing) = packing {
            st.modifiers.insert(0, packing);
        }
        Some(TypeDef::Structured(st))
    }

    /// `proc_type` without calling conventions and hints, as the whole type definition.
    fn proc_type(&mut self) -> Option<TypeDef> {
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
        }
        // `is nested`, calling conventions and hints are left to the grammar
        if self.peek() != SEMI || is_call_conv(self.peek_at(1)) || is_hint_name(self.peek_at(1)) {
            return None;
        }
        let span = self.span(start, self.at);
        let mut heading = empty_routine(span);
        heading.kind = kind;
        heading.params = params;
        heading.result = result;
        heading.forward = true;
        Some(TypeDef::Procedural(ProceduralType {
            reference_to,
            of_object,
            heading,
        }))
    }

    /// `enum_type` without values, as the whole type definition.
    fn enum_type(&mut self) -> Option<TypeDef> {
        self.expect(LP)?;
        let mut members = Vec::new();
        loop {
            if !is_name(self.peek()) || matches!(self.peek_at(1), EQ | C_ASSIGN) {
                return None;
            }
            let at = self.at;
            self.bump();
            members.push(EnumMember {
                name: strip_amp(self.token_text(at)),
                value: None,
                span: self.span(at, self.at),
            });
            if !self.eat(COMMA) {
                self.expect(RP)?;
                break;
            }
        }
        // `(A)..(B)` and `(A) + 1..9` are subranges
        (self.peek() == SEMI || is_hint_name(self.peek()))
            .then_some(TypeDef::Enum(EnumType { members }))
    }

    /// `class_type`, `record_type`, `interface_type` (not packed).
    fn structured(&mut self, kind: StructuredKind) -> Option<StructuredType> {
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
        if kind == StructuredKind::Record && self.peek() == K_ALIGN {
            return None;
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

    /// `member`: attributes, then a method, a visibility word, a field or a property.
    fn member(&mut self, m: &mut Members) -> Option<()> {
        if self.peek() == LB {
            let start = self.at;
            let attributes = self.attributes()?;
            m.attributes(start, attributes);
        }
        let start = self.at;
        let c = self.peek();
        if c == K_CLASS || c == K_GENERIC || c == K_OPERATOR || routine_kind(c).is_some() {
            // `class var`, `class property`, `class operator`: left to the grammar
            if c == K_CLASS && routine_kind(self.peek_at(1)).is_none() {
                return None;
            }
            let doc = self.lower.doc_at(m.member_start(start));
            let mut r = self.routine_heading(m.take_pending(), doc)?;
            r.forward = true;
            m.push(Member::Method(r));
        } else if c == K_STRICT || is_vis_word(c) {
            let strict = self.eat(K_STRICT);
            let vis = self.peek();
            if !is_vis_word(vis) || matches!(self.peek_at(1), COLON | COMMA) {
                return None;
            }
            self.bump();
            m.member_start(start);
            let word = char::from_u32(vis).unwrap_or_default();
            m.visibility(visibility_of(word, strict));
        } else if is_name(c) {
            let member_start = m.member_start(start);
            self.ident_list()?;
            let names_end = self.at;
            self.expect(COLON)?;
            let ty = self.type_ref()?;
            // the tree keeps no hints of fields
            self.hints();
            self.expect(SEMI)?;
            let span = self.span(start, self.at);
            // the field's own comment, else the one before its attributes (looked up only
            // when there are attributes between)
            let doc = self.lower.doc_at(start);
            let before_attributes = match doc {
                None if member_start != start => self.lower.doc_at(member_start),
                _ => None,
            };
            let names = self.list_names(start, names_end);
            let fields = var_decls(names, ty, None, Vec::new(), doc, span).collect();
            m.fields(fields, before_attributes, false);
        } else if c == K_PROPERTY {
            let doc = self.lower.doc_at(m.member_start(start));
            let prop = self.property(m.take_pending(), doc)?;
            m.push(Member::Property(prop));
        } else {
            return None;
        }
        Some(())
    }

    /// `property_decl` without parameters, hints and a `default;` after it.
    fn property(
        &mut self,
        attributes: Vec<Attribute>,
        doc: Option<Box<DocComment>>,
    ) -> Option<Property> {
        let start = self.at;
        self.bump();
        if !is_name(self.peek()) {
            return None;
        }
        let name_at = self.at;
        self.bump();
        if self.peek() == LB {
            return None;
        }
        let ty = if self.eat(COLON) {
            Some(self.type_ref()?)
        } else {
            None
        };
        let mut specifiers = Vec::new();
        loop {
            let c = self.peek();
            if is_hint_name(c) {
                return None;
            }
            if !is_prop_spec_name(c) {
                break;
            }
            let spec_start = self.at;
            self.bump();
            let name = lowercase(self.token_text(spec_start));
            let next = self.peek();
            if next == SEMI || is_prop_spec_name(next) || is_hint_name(next) {
                specifiers.push(Directive {
                    name,
                    arg: None,
                    span: self.span(spec_start, self.at),
                });
                continue;
            }
            let arg_start = self.at;
            self.expr()?;
            if self.peek() == COMMA {
                return None;
            }
            specifiers.push(Directive {
                name,
                arg: Some(normalize(self.text(arg_start, self.at))),
                span: self.span(spec_start, self.at),
            });
        }
        self.expect(SEMI)?;
        if self.peek() == K_DEFAULT || is_hint_name(self.peek()) {
            return None;
        }
        Some(Property {
            name: strip_amp(self.token_text(name_at)),
            name_span: self.span(name_at, name_at + CODE_WIDTH),
            is_class: false,
            params: Vec::new(),
            ty,
            specifiers,
            attributes,
            doc,
            span: self.span(start, self.at),
        })
    }
}
