//! Turns pest pairs into the syntax tree of [`crate::ast`].

use crate::ast::*;
use crate::doc;
use crate::grammar::Rule;
use crate::preprocess::Preprocessed;
use crate::span::Span;
use crate::tokens::{kw, Tokens, CODE_WIDTH};
use pest::iterators::{Pair, Pairs};

type P<'i> = Pair<'i, Rule>;

/// Lowers pairs parsed from `pp.text[base..]`.
pub(crate) struct Lower<'a> {
    pub pp: &'a Preprocessed,
    /// The preprocessed text's tokens, which the grammar ran over.
    pub toks: &'a Tokens,
    /// Byte offset in the token string where the item's input starts.
    pub base: usize,
    /// How deep `expr` has recursed: deeper expressions are kept as text only, so absurd
    /// nesting cannot exhaust the stack here after the grammar accepted it.
    pub expr_depth: std::cell::Cell<u32>,
}

/// An operand of a flat expression row, lowered, with where it starts and ends in the item's
/// input.
struct Operand {
    expr: Expr,
    start: usize,
    end: usize,
}

/// The members of a structured type as they are lowered, part by part.
pub(crate) struct Members {
    /// Finished visibility sections.
    sections: Vec<MemberSection>,
    /// The section being filled.
    current: MemberSection,
    /// Attributes waiting for the member they belong to.
    pending: Vec<Attribute>,
    /// Where the latest attributes start, until the member part after them takes it (its doc
    /// comment is before them).
    attr_start: Option<usize>,
}

impl Default for Members {
    fn default() -> Self {
        Self {
            sections: Vec::new(),
            current: MemberSection {
                visibility: Visibility::Default,
                members: Vec::new(),
            },
            pending: Vec::new(),
            attr_start: None,
        }
    }
}

impl Members {
    /// Members that continue `sections`.
    pub(crate) fn after(sections: Vec<MemberSection>) -> Self {
        Self {
            sections,
            ..Self::default()
        }
    }

    /// The sections, the last one included when it has members or a visibility word.
    pub(crate) fn finish(mut self) -> Vec<MemberSection> {
        if !self.current.members.is_empty() || self.current.visibility != Visibility::Default {
            self.sections.push(self.current);
        }
        self.sections
    }

    /// Attributes at `start` of the item's input, waiting for the member after them.
    pub(crate) fn attributes(&mut self, start: usize, attributes: Vec<Attribute>) {
        self.attr_start = Some(start);
        self.pending.extend(attributes);
    }

    /// Where the member part at `start` begins: at its attributes, when it has some (its doc
    /// comment is before them).
    pub(crate) fn member_start(&mut self, start: usize) -> usize {
        self.attr_start.take().unwrap_or(start)
    }

    /// The attributes waiting for a member, for the member that takes them.
    pub(crate) fn take_pending(&mut self) -> Vec<Attribute> {
        std::mem::take(&mut self.pending)
    }

    /// Adds a member to the current section.
    pub(crate) fn push(&mut self, member: Member) {
        self.current.members.push(member);
    }

    /// Starts a section of visibility `vis` (a visibility word).
    pub(crate) fn visibility(&mut self, vis: Visibility) {
        let old = std::mem::replace(
            &mut self.current,
            MemberSection {
                visibility: vis,
                members: Vec::new(),
            },
        );
        if !old.members.is_empty() || old.visibility != Visibility::Default {
            self.sections.push(old);
        }
    }

    /// Adds the fields of one field declaration: the waiting attributes go to its first name,
    /// `doc` (the comment before the member's attributes) to the names that have none.
    pub(crate) fn fields(
        &mut self,
        fields: Vec<VarDecl>,
        doc: Option<Box<DocComment>>,
        is_class: bool,
    ) {
        for mut field in fields {
            if !self.pending.is_empty() {
                let mut attrs = std::mem::take(&mut self.pending);
                attrs.append(&mut field.attributes);
                field.attributes = attrs;
            }
            if field.doc.is_none() {
                field.doc = doc.clone();
            }
            self.push(Member::Field { field, is_class });
        }
    }
}

/// One variable (or field) per name of a declaration, each with the declaration's type, value,
/// attributes, doc comment and span.
pub(crate) fn var_decls(
    names: impl Iterator<Item = (Text, Span)>,
    ty: TypeRef,
    value: Option<Expr>,
    attributes: Vec<Attribute>,
    doc: Option<Box<DocComment>>,
    span: Span,
) -> impl Iterator<Item = VarDecl> {
    names.map(move |(name, name_span)| VarDecl {
        name,
        name_span,
        ty: ty.clone(),
        value: value.clone(),
        attributes: attributes.clone(),
        doc: doc.clone(),
        span,
    })
}

/// Adds one parameter per name of a group (`A, B: T`), sharing the group's mode, type, default
/// and attributes: clones for all names but the last, which takes them.
pub(crate) fn push_params(
    params: &mut Vec<Param>,
    names: impl Iterator<Item = (Text, Span)>,
    mode: ParamMode,
    ty: Option<TypeRef>,
    default: Option<Expr>,
    attributes: Vec<Attribute>,
    span: Span,
) {
    let mut names = names.peekable();
    while let Some((name, name_span)) = names.next() {
        if names.peek().is_some() {
            params.push(Param {
                name,
                name_span,
                mode,
                ty: ty.clone(),
                default: default.clone(),
                attributes: attributes.clone(),
                span,
            });
        } else {
            params.push(Param {
                name,
                name_span,
                mode,
                ty,
                default,
                attributes,
                span,
            });
            break;
        }
    }
}

/// The visibility a visibility word's code stands for (`strict` before it or not).
pub(crate) fn visibility_of(word: char, strict: bool) -> Visibility {
    match word {
        KW_PRIVATE if strict => Visibility::StrictPrivate,
        KW_PRIVATE => Visibility::Private,
        KW_PROTECTED if strict => Visibility::StrictProtected,
        KW_PROTECTED => Visibility::Protected,
        KW_PUBLIC => Visibility::Public,
        KW_PUBLISHED => Visibility::Published,
        KW_AUTOMATED => Visibility::Automated,
        _ => Visibility::Default,
    }
}

/// The children of a flat expression pair.
type Row<'a> = std::iter::Peekable<Pairs<'a, Rule>>;

/// Binding strength of a binary operator pair: multiplicative over additive over relational.
fn precedence(p: &P) -> Option<u8> {
    match p.as_rule() {
        Rule::rel_op => Some(0),
        Rule::add_op => Some(1),
        Rule::mul_op => Some(2),
        _ => None,
    }
}

/// Expression nesting beyond which the tree keeps only the text.
const MAX_EXPR_DEPTH: u32 = 48;

/// Collapses runs of whitespace to one space and trims.
pub(crate) fn normalize(text: &str) -> Text {
    // Most texts are one token or have single blanks only: copy those as they are.
    if !needs_normalizing(text) {
        return Text::from(text);
    }
    let mut out = Text::with_capacity(text.len());
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

// The grammar's keyword rules are silent (no pairs, which keeps failed attempts cheap), so a
// keyword is told by its code in the pair's token string.
const KW_AUTOMATED: char = kw("automated");
const KW_CLASS: char = kw("class");
const KW_CONST: char = kw("const");
const KW_CONSTREF: char = kw("constref");
const KW_CONSTRUCTOR: char = kw("constructor");
const KW_DESTRUCTOR: char = kw("destructor");
const KW_DISPINTERFACE: char = kw("dispinterface");
const KW_END: char = kw("end");
const KW_FUNCTION: char = kw("function");
const KW_INHERITED: char = kw("inherited");
const KW_LIBRARY: char = kw("library");
const KW_NIL: char = kw("nil");
const KW_OPERATOR: char = kw("operator");
const KW_OUT: char = kw("out");
const KW_PACKAGE: char = kw("package");
const KW_PRIVATE: char = kw("private");
const KW_PROGRAM: char = kw("program");
const KW_PROTECTED: char = kw("protected");
const KW_PUBLIC: char = kw("public");
const KW_PUBLISHED: char = kw("published");
const KW_REFERENCE: char = kw("reference");
const KW_STRICT: char = kw("strict");
const KW_STRING: char = kw("string");
const KW_VAR: char = kw("var");
const PARAM_MODES: [char; 4] = [KW_CONST, KW_VAR, KW_OUT, KW_CONSTREF];
const KW_PROCEDURE: char = kw("procedure");
const ROUTINE_KINDS: [char; 5] = [
    KW_PROCEDURE,
    KW_FUNCTION,
    KW_CONSTRUCTOR,
    KW_DESTRUCTOR,
    KW_OPERATOR,
];

/// The code of a pair's first token.
fn first_code(p: &P) -> Option<char> {
    p.as_str().chars().next()
}

/// True when a pair's last token is `code`.
fn ends_with_code(p: &P, code: char) -> bool {
    p.as_str().ends_with(code)
}

/// True when `text` has blanks other than single spaces between words (or non-ASCII
/// characters, which may be Unicode blanks).
fn needs_normalizing(text: &str) -> bool {
    let b = text.as_bytes();
    let (Some(first), Some(last)) = (b.first(), b.last()) else {
        return false;
    };
    if first.is_ascii_whitespace() || last.is_ascii_whitespace() {
        return true;
    }
    // one pass: a blank other than a single space, or a non-ASCII byte
    let mut after_space = false;
    for &c in b {
        if c >= 0x80 || (c.is_ascii_whitespace() && (c != b' ' || after_space)) {
            return true;
        }
        after_space = c == b' ';
    }
    false
}

pub(crate) fn strip_amp(name: &str) -> Text {
    Text::from(name.strip_prefix('&').unwrap_or(name))
}

/// A name with inner whitespace removed (`System . SysUtils` → `System.SysUtils`).
pub(crate) fn compact(text: &str) -> Text {
    if !text.bytes().any(|c| c >= 0x80 || c.is_ascii_whitespace()) {
        return Text::from(text);
    }
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

impl<'a> Lower<'a> {
    fn span(&self, p: &P) -> Span {
        let s = p.as_span();
        self.span_of(s.start(), s.end())
    }

    /// The source span of the tokens at `start..end` of the item's input.
    pub(crate) fn span_of(&self, start: usize, end: usize) -> Span {
        let (from, to) = self.toks.text_range(self.base + start, self.base + end);
        self.pp.span(from, to)
    }

    /// The source text of a pair (from its first token's start to its last token's end).
    fn text(&self, p: &P) -> &'a str {
        let s = p.as_span();
        self.text_of(s.start(), s.end())
    }

    /// The source text of the tokens at `start..end` of the item's input.
    pub(crate) fn text_of(&self, start: usize, end: usize) -> &'a str {
        let (from, to) = self.toks.text_range(self.base + start, self.base + end);
        self.pp.text.get(from..to).unwrap_or("")
    }

    /// The value of a `string_lit` pair.
    fn string_value(&self, p: P) -> Text {
        let span = p.as_span();
        self.string_value_of(span.start(), span.end())
    }

    /// The value of the string literal at `start..end` of the item's input.
    pub(crate) fn string_value_of(&self, start: usize, end: usize) -> Text {
        // the pieces are the string literal's tokens (one code each)
        let pieces = (start..end)
            .step_by(CODE_WIDTH)
            .map(|at| self.text_of(at, at + CODE_WIDTH));
        string_pieces_value(pieces)
    }

    fn doc(&self, p: &P) -> Option<Box<DocComment>> {
        self.doc_at(p.as_span().start())
    }

    /// The `///` comment before the token at `start` of the item's input.
    pub(crate) fn doc_at(&self, start: usize) -> Option<Box<DocComment>> {
        if !self.toks.may_be_documented(self.base + start) {
            return None;
        }
        doc::doc_before(self.pp, self.toks.text_start(self.base + start)).map(Box::new)
    }

    // ------------------------------------------------------------ unit head, uses

    /// `unit_head` → kind, name, name span, hints.
    pub fn unit_head(&self, p: P) -> (UnitKind, Text, Span, Vec<Directive>) {
        let mut kind = UnitKind::Unit;
        let mut name = Text::default();
        let mut name_span = self.span(&p);
        let mut hints = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::unit_kind => {
                    kind = match first_code(&c) {
                        Some(KW_PROGRAM) => UnitKind::Program,
                        Some(KW_LIBRARY) => UnitKind::Library,
                        Some(KW_PACKAGE) => UnitKind::Package,
                        _ => UnitKind::Unit,
                    }
                }
                Rule::unit_name => {
                    if let Some(q) = c.into_inner().next() {
                        name = compact(self.text(&q));
                        name_span = self.span(&q);
                    }
                }
                Rule::hint => hints.push(self.hint(c)),
                _ => {}
            }
        }
        (kind, name, name_span, hints)
    }

    pub fn uses_clause(&self, p: P) -> UsesClause {
        let span = self.span(&p);
        let mut keyword = Text::default();
        let mut units = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::uses_kw => keyword = lowercase(self.text(&c)),
                Rule::used_unit => {
                    let uspan = self.span(&c);
                    let mut name = Text::default();
                    let mut in_file = None;
                    for u in c.into_inner() {
                        match u.as_rule() {
                            Rule::qualified_ident => name = compact(self.text(&u)),
                            Rule::string_lit => in_file = Some(self.string_value(u)),
                            _ => {}
                        }
                    }
                    units.push(UsedUnit {
                        name,
                        in_file,
                        span: uspan,
                    });
                }
                _ => {}
            }
        }
        UsesClause {
            keyword,
            units,
            span,
        }
    }

    pub fn other_decl(&self, p: P, keyword: &str) -> OtherDecl {
        OtherDecl {
            keyword: Text::from(keyword),
            span: self.span(&p),
        }
    }

    // ------------------------------------------------------------ hints, directives, attributes

    fn hint(&self, p: P) -> Directive {
        let span = self.span(&p);
        let mut name = Text::default();
        let mut arg = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::hint_name => name = lowercase(self.text(&c)),
                Rule::string_lit => arg = Some(normalize(self.text(&c))),
                _ => {}
            }
        }
        Directive { name, arg, span }
    }

    pub fn attributes(&self, p: P) -> Vec<Attribute> {
        let mut out = Vec::new();
        for list in p.into_inner() {
            for a in list.into_inner() {
                if a.as_rule() != Rule::attribute {
                    continue;
                }
                let span = self.span(&a);
                let mut name = Text::default();
                let mut args = Vec::new();
                for c in a.into_inner() {
                    match c.as_rule() {
                        Rule::qualified_ident => name = compact(self.text(&c)),
                        Rule::attr_arg => {
                            if let Some(inner) = c.into_inner().next() {
                                if inner.as_rule() == Rule::attr_named {
                                    let mut it = inner.into_inner();
                                    let n = it.next().map(|n| strip_amp(self.text(&n)));
                                    if let Some(e) = it.next() {
                                        args.push(AttributeArg {
                                            name: n,
                                            value: self.expr(e),
                                        });
                                    }
                                } else {
                                    args.push(AttributeArg {
                                        name: None,
                                        value: self.expr(inner),
                                    });
                                }
                            }
                        }
                        _ => {}
                    }
                }
                out.push(Attribute { name, args, span });
            }
        }
        out
    }

    // ------------------------------------------------------------ constants and variables

    pub fn const_decl(&self, p: P) -> ConstDecl {
        let span = self.span(&p);
        let doc = self.doc(&p);
        let mut d = ConstDecl {
            name: Text::default(),
            name_span: span,
            ty: None,
            value: Expr {
                text: Text::default(),
                kind: ExprKind::Other,
                span,
            },
            attributes: Vec::new(),
            doc,
            hints: Vec::new(),
            span,
        };
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::attributes => d.attributes.extend(self.attributes(c)),
                Rule::ident => {
                    d.name = strip_amp(self.text(&c));
                    d.name_span = self.span(&c);
                }
                Rule::type_ref => d.ty = Some(self.type_ref(c)),
                Rule::const_value => d.value = self.const_value(c),
                Rule::hint => d.hints.push(self.hint(c)),
                _ => {}
            }
        }
        d
    }

    fn const_value(&self, p: P) -> Expr {
        let span = self.span(&p);
        match p.clone().into_inner().next() {
            Some(e) if e.as_rule() == Rule::expr => self.expr(e),
            _ => Expr {
                text: normalize(self.text(&p)),
                kind: ExprKind::Other,
                span,
            },
        }
    }

    /// `var_decl` / `field_decl` → one entry per name.
    pub fn var_decl(&self, p: P) -> Vec<VarDecl> {
        let span = self.span(&p);
        let doc = self.doc(&p);
        let mut names = Vec::new();
        let mut ty = None;
        let mut value = None;
        let mut attributes = Vec::new();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::attributes => attributes.extend(self.attributes(c)),
                Rule::ident_list => self.list_names(&c, &mut names),
                Rule::type_ref => ty = Some(self.type_ref(c)),
                Rule::var_init => {
                    if let Some(v) = c
                        .into_inner()
                        .find(|v| matches!(v.as_rule(), Rule::expr | Rule::const_value))
                    {
                        value = Some(if v.as_rule() == Rule::expr {
                            self.expr(v)
                        } else {
                            self.const_value(v)
                        });
                    }
                }
                _ => {}
            }
        }
        let ty = ty.unwrap_or_else(|| TypeRef {
            kind: TypeRefKind::Other,
            text: Text::default(),
            span,
        });
        var_decls(names.into_iter(), ty, value, attributes, doc, span).collect()
    }

    // ------------------------------------------------------------ types

    pub fn type_decl(&self, p: P) -> TypeDecl {
        let span = self.span(&p);
        let doc = self.doc(&p);
        let mut d = TypeDecl {
            name: Text::default(),
            name_span: span,
            generic_params: Vec::new(),
            def: TypeDef::Other {
                target: TypeRef {
                    kind: TypeRefKind::Other,
                    text: Text::default(),
                    span,
                },
            },
            attributes: Vec::new(),
            doc,
            hints: Vec::new(),
            span,
        };
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::attributes => d.attributes.extend(self.attributes(c)),
                Rule::ident => {
                    d.name = strip_amp(self.text(&c));
                    d.name_span = self.span(&c);
                }
                Rule::generic_params => d.generic_params = self.generic_params(c),
                Rule::type_def => d.def = self.type_def(c),
                Rule::type_def_head => {
                    if let Some(head) = c.into_inner().next() {
                        let mut st = self.structured(head);
                        st.forward = false;
                        d.def = TypeDef::Structured(st);
                    }
                }
                Rule::hint => d.hints.push(self.hint(c)),
                _ => {}
            }
        }
        d
    }

    fn generic_params(&self, p: P) -> Vec<GenericParam> {
        let mut out = Vec::new();
        for group in p.into_inner() {
            if group.as_rule() != Rule::generic_group {
                continue;
            }
            let mut names = Vec::new();
            let mut constraints = Vec::new();
            for c in group.into_inner() {
                match c.as_rule() {
                    Rule::ident_list => self.list_names(&c, &mut names),
                    Rule::constraint => constraints.push(normalize(self.text(&c))),
                    _ => {}
                }
            }
            for (name, span) in names {
                out.push(GenericParam {
                    name,
                    constraints: constraints.clone(),
                    span,
                });
            }
        }
        out
    }

    fn type_def(&self, p: P) -> TypeDef {
        let span = self.span(&p);
        let Some(c) = p.clone().into_inner().next() else {
            return TypeDef::Other {
                target: self.other_type(&p),
            };
        };
        match c.as_rule() {
            Rule::class_of_type => TypeDef::ClassRef {
                class: self.first_type_ref(c, span),
            },
            Rule::class_helper
            | Rule::class_type
            | Rule::record_helper
            | Rule::type_helper
            | Rule::interface_type
            | Rule::object_type
            | Rule::record_type => TypeDef::Structured(self.structured(c)),
            Rule::distinct_type => TypeDef::Alias {
                target: self.first_type_ref(c, span),
                distinct: true,
            },
            Rule::type_ref => {
                let tr = self.type_ref(c.clone());
                let Some(inner) = c.into_inner().next() else {
                    // a single name or `string`
                    return TypeDef::Alias {
                        target: tr,
                        distinct: false,
                    };
                };
                match inner.as_rule() {
                    Rule::enum_type => TypeDef::Enum(self.enum_type(inner)),
                    Rule::subrange_type => {
                        let mut it = inner.into_inner();
                        match (it.next(), it.next()) {
                            (Some(lo), Some(hi)) => TypeDef::Subrange {
                                low: self.expr(lo),
                                high: self.expr(hi),
                            },
                            _ => TypeDef::Other { target: tr },
                        }
                    }
                    Rule::set_type => TypeDef::Set {
                        element: self.first_type_ref(inner, span),
                    },
                    Rule::pointer_type => TypeDef::Pointer {
                        target: self.first_type_ref(inner, span),
                    },
                    Rule::class_of_type => TypeDef::ClassRef {
                        class: self.first_type_ref(inner, span),
                    },
                    Rule::proc_type => TypeDef::Procedural(self.proc_type(inner)),
                    Rule::record_type => TypeDef::Structured(self.structured(inner)),
                    Rule::named_type | Rule::string_type => TypeDef::Alias {
                        target: tr,
                        distinct: false,
                    },
                    _ => TypeDef::Other { target: tr },
                }
            }
            _ => TypeDef::Other {
                target: self.other_type(&c),
            },
        }
    }

    fn other_type(&self, p: &P) -> TypeRef {
        TypeRef {
            kind: TypeRefKind::Other,
            text: normalize(self.text(p)),
            span: self.span(p),
        }
    }

    /// The first `type_ref` child of `p`.
    fn first_type_ref(&self, p: P, span: Span) -> TypeRef {
        match p.into_inner().find(|c| c.as_rule() == Rule::type_ref) {
            Some(t) => self.type_ref(t),
            None => TypeRef {
                kind: TypeRefKind::Other,
                text: Text::default(),
                span,
            },
        }
    }

    fn enum_type(&self, p: P) -> EnumType {
        let members = p
            .into_inner()
            .filter(|m| m.as_rule() == Rule::enum_member)
            .map(|m| {
                let span = self.span(&m);
                let mut it = m.into_inner();
                let name = it
                    .next()
                    .map(|n| strip_amp(self.text(&n)))
                    .unwrap_or_default();
                let value = it.next().map(|e| self.expr(e));
                EnumMember { name, value, span }
            })
            .collect();
        EnumType { members }
    }

    fn proc_type(&self, p: P) -> ProceduralType {
        let span = self.span(&p);
        let mut heading = empty_routine(span);
        let reference_to = first_code(&p) == Some(KW_REFERENCE);
        // `procedure` or `function` comes first, or after `reference to`
        let kind_code = p.as_str().chars().nth(if reference_to { 2 } else { 0 });
        heading.kind = if kind_code == Some(KW_FUNCTION) {
            RoutineKind::Function
        } else {
            RoutineKind::Procedure
        };
        let mut of_object = false;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::param_group => self.param_group(c, &mut heading.params),
                Rule::type_ref => heading.result = Some(self.type_ref(c)),
                Rule::of_object => of_object = true,
                Rule::call_conv => heading.directives.push(Directive {
                    name: lowercase(self.text(&c)),
                    arg: None,
                    span: self.span(&c),
                }),
                _ => {}
            }
        }
        heading.forward = true;
        ProceduralType {
            reference_to,
            of_object,
            heading,
        }
    }

    pub fn type_ref(&self, p: P) -> TypeRef {
        let span = self.span(&p);
        let text = normalize(self.text(&p));
        let kind = match p.clone().into_inner().next() {
            Some(inner) => self.type_ref_kind(inner),
            // the grammar's short form: a single name, or `string`
            None if first_code(&p) == Some(KW_STRING) => TypeRefKind::Named {
                name: Text::const_new("string"),
                generic_args: Vec::new(),
            },
            None => TypeRefKind::Named {
                name: strip_amp(&text),
                generic_args: Vec::new(),
            },
        };
        TypeRef { kind, text, span }
    }

    fn type_ref_kind(&self, p: P) -> TypeRefKind {
        let span = self.span(&p);
        match p.as_rule() {
            Rule::named_type => {
                let mut name = Text::default();
                let mut generic_args = Vec::new();
                let mut code_page = None;
                for c in p.into_inner() {
                    match c.as_rule() {
                        // each name part; only the last one's generic arguments are kept
                        Rule::ident | Rule::dot_name => {
                            generic_args.clear();
                            if !name.is_empty() {
                                name.push('.');
                            }
                            let part = self.text(&c);
                            name.push_str(part.strip_prefix('&').unwrap_or(part));
                        }
                        Rule::generic_args => {
                            generic_args = c
                                .into_inner()
                                .filter(|t| t.as_rule() == Rule::type_ref)
                                .map(|t| self.type_ref(t))
                                .collect();
                        }
                        Rule::code_page => {
                            code_page = c.into_inner().next().map(|e| self.expr(e));
                        }
                        _ => {}
                    }
                }
                match code_page {
                    Some(code_page) => TypeRefKind::CodePageString {
                        name,
                        code_page: Box::new(code_page),
                    },
                    None => TypeRefKind::Named { name, generic_args },
                }
            }
            Rule::string_type => match p.into_inner().find(|c| c.as_rule() == Rule::expr) {
                Some(len) => TypeRefKind::ShortString {
                    length: Box::new(self.expr(len)),
                },
                None => TypeRefKind::Named {
                    name: Text::const_new("string"),
                    generic_args: Vec::new(),
                },
            },
            Rule::array_type => {
                let of_const = ends_with_code(&p, KW_CONST);
                let children: Vec<P> = p.into_inner().collect();
                let refs: Vec<&P> = children
                    .iter()
                    .filter(|c| c.as_rule() == Rule::type_ref)
                    .collect();
                let has_index = refs.len() >= if of_const { 1 } else { 2 };
                let element = if of_const {
                    None
                } else {
                    refs.last().map(|t| Box::new(self.type_ref((*t).clone())))
                };
                if has_index {
                    match element {
                        Some(element) => TypeRefKind::StaticArray { element },
                        None => TypeRefKind::Other,
                    }
                } else {
                    TypeRefKind::ArrayOf { element }
                }
            }
            Rule::pointer_type => TypeRefKind::Pointer {
                target: Box::new(self.first_type_ref(p, span)),
            },
            _ => TypeRefKind::Other,
        }
    }

    // ------------------------------------------------------------ structured types

    fn structured(&self, p: P) -> StructuredType {
        let rule = p.as_rule();
        let mut st = StructuredType {
            kind: match rule {
                Rule::class_helper | Rule::class_helper_head => StructuredKind::ClassHelper,
                // FPC's `type helper for T` extends a simple type like a record helper.
                Rule::record_helper
                | Rule::type_helper
                | Rule::record_helper_head
                | Rule::type_helper_head => StructuredKind::RecordHelper,
                Rule::object_type | Rule::object_head => StructuredKind::Object,
                Rule::record_type | Rule::record_head => StructuredKind::Record,
                Rule::interface_type | Rule::interface_head => {
                    if first_code(&p) == Some(KW_DISPINTERFACE) {
                        StructuredKind::DispInterface
                    } else {
                        StructuredKind::Interface
                    }
                }
                _ => StructuredKind::Class,
            },
            modifiers: Vec::new(),
            ancestors: Vec::new(),
            helper_for: None,
            // A class or interface without `end` (`TFoo = class;`) is a forward declaration;
            // records and objects always have one.
            forward: !(p.as_str().contains(KW_END)
                || matches!(
                    rule,
                    Rule::record_type | Rule::record_head | Rule::object_type | Rule::object_head
                )),
            sections: Vec::new(),
            guid: None,
        };
        let mut members = Members::default();
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::packing | Rule::class_modifier => st.modifiers.push(lowercase(self.text(&c))),
                Rule::heritage => {
                    for t in c.into_inner() {
                        let span = self.span(&t);
                        let text = normalize(self.text(&t));
                        let kind = self.type_ref_kind(t);
                        st.ancestors.push(TypeRef { kind, text, span });
                    }
                }
                Rule::named_type | Rule::string_type => {
                    let span = self.span(&c);
                    let text = normalize(self.text(&c));
                    let kind = self.type_ref_kind(c);
                    st.helper_for = Some(TypeRef { kind, text, span });
                }
                Rule::guid => {
                    if let Some(g) = c.into_inner().next() {
                        st.guid = Some(if g.as_rule() == Rule::string_lit {
                            self.string_value(g)
                        } else {
                            compact(self.text(&g))
                        });
                    }
                }
                _ => self.member_part(c, &mut members),
            }
        }
        st.sections = members.finish();
        st
    }

    /// Lowers the parts of members (`member` is silent: its attributes and the declaration are
    /// children of the type, or of a `member_item`) into `m`.
    pub(crate) fn members(&self, parts: Pairs<'a, Rule>, m: &mut Members) {
        for c in parts {
            self.member_part(c, m);
        }
    }

    /// One child of a structured type that belongs to a member.
    fn member_part(&self, c: P, m: &mut Members) {
        if c.as_rule() == Rule::attributes {
            m.attributes(c.as_span().start(), self.attributes(c));
            return;
        }
        // The member starts at its attributes; only methods, properties and fields have doc
        // comments, looked up when one comes.
        let start = m.member_start(c.as_span().start());
        match c.as_rule() {
            Rule::visibility => {
                // the visibility word is the last token (after an optional `strict`)
                let strict = first_code(&c) == Some(KW_STRICT);
                let word = c.as_str().chars().last().unwrap_or_default();
                m.visibility(visibility_of(word, strict));
            }
            Rule::class_var_block | Rule::var_block => {
                let is_class = c.as_rule() == Rule::class_var_block;
                for f in c.into_inner().filter(|f| f.as_rule() == Rule::field_decl) {
                    m.fields(self.var_decl(f), None, is_class);
                }
            }
            Rule::const_block => {
                let span = self.span(&c);
                let items = c
                    .into_inner()
                    .filter(|d| d.as_rule() == Rule::const_decl)
                    .map(|d| self.const_decl(d))
                    .collect();
                m.pending.clear();
                m.push(Member::Const(ConstSection {
                    resourcestring: false,
                    items,
                    span,
                }));
            }
            Rule::type_block => {
                let span = self.span(&c);
                let items = c
                    .into_inner()
                    .filter(|d| d.as_rule() == Rule::type_decl)
                    .map(|d| self.type_decl(d))
                    .collect();
                m.pending.clear();
                m.push(Member::Type(TypeSection { items, span }));
            }
            Rule::routine_heading => {
                let mut r = self.routine_heading(c, m.take_pending(), self.doc_at(start));
                r.forward = true;
                m.push(Member::Method(r));
            }
            Rule::property_decl => {
                let prop = self.property(c, m.take_pending(), self.doc_at(start));
                m.push(Member::Property(prop));
            }
            Rule::variant_part => m.push(Member::Variant {
                span: self.span(&c),
            }),
            Rule::field_decl => {
                let doc = self.doc_at(start);
                m.fields(self.var_decl(c), doc, false);
            }
            _ => {}
        }
    }

    fn property(&self, p: P, attributes: Vec<Attribute>, doc: Option<Box<DocComment>>) -> Property {
        let span = self.span(&p);
        let mut prop = Property {
            name: Text::default(),
            name_span: span,
            is_class: first_code(&p) == Some(KW_CLASS),
            params: Vec::new(),
            ty: None,
            specifiers: Vec::new(),
            attributes,
            doc,
            span,
        };
        // where the specifier being read starts (its span runs to the end of its argument)
        let mut spec_start = 0;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::ident => {
                    prop.name = strip_amp(self.text(&c));
                    prop.name_span = self.span(&c);
                }
                Rule::property_params => {
                    for g in c.into_inner() {
                        self.param_group(g, &mut prop.params);
                    }
                }
                Rule::type_ref => prop.ty = Some(self.type_ref(c)),
                // a specifier's name, then its argument if it has one
                Rule::prop_spec_name => {
                    spec_start = c.as_span().start();
                    prop.specifiers.push(Directive {
                        name: lowercase(self.text(&c)),
                        arg: None,
                        span: self.span(&c),
                    });
                }
                Rule::prop_spec_arg => {
                    if let Some(spec) = prop.specifiers.last_mut() {
                        spec.arg = Some(normalize(self.text(&c)));
                        spec.span = self.span_of(spec_start, c.as_span().end());
                    }
                }
                Rule::prop_default => prop.specifiers.push(Directive {
                    name: Text::const_new("default"),
                    arg: None,
                    span: self.span(&c),
                }),
                Rule::hint => prop.specifiers.push(self.hint(c)),
                _ => {}
            }
        }
        prop
    }

    // ------------------------------------------------------------ routines

    /// `routine_decl` (attributes + heading).
    pub fn routine_decl(&self, p: P) -> Routine {
        let doc = self.doc(&p);
        let mut attributes = Vec::new();
        let mut routine = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::attributes => attributes.extend(self.attributes(c)),
                Rule::routine_heading => {
                    routine = Some(self.routine_heading(c, Vec::new(), None));
                }
                _ => {}
            }
        }
        let mut r = routine.unwrap_or_else(|| {
            empty_routine(Span {
                file: crate::span::FileId(0),
                start: 0,
                end: 0,
            })
        });
        attributes.append(&mut r.attributes);
        r.attributes = attributes;
        r.doc = doc;
        r
    }

    fn routine_heading(
        &self,
        p: P,
        attributes: Vec<Attribute>,
        doc: Option<Box<DocComment>>,
    ) -> Routine {
        let span = self.span(&p);
        let mut r = empty_routine(span);
        r.attributes = attributes;
        r.doc = doc;
        r.is_class = first_code(&p) == Some(KW_CLASS);
        // the kind keyword comes first (after `class` or `generic`)
        r.kind = match p.as_str().chars().find(|c| ROUTINE_KINDS.contains(c)) {
            Some(KW_FUNCTION) => RoutineKind::Function,
            Some(KW_CONSTRUCTOR) => RoutineKind::Constructor,
            Some(KW_DESTRUCTOR) => RoutineKind::Destructor,
            Some(KW_OPERATOR) => RoutineKind::Operator,
            _ => RoutineKind::Procedure,
        };
        let mut last_part: Option<(P, Option<P>)> = None;
        let mut qualifier: Option<Text> = None;
        let mut symbol = None;
        for c in p.into_inner() {
            match c.as_rule() {
                // Name parts (`TOuter.TInner<T>.Method<U>`), each a name with optional generic
                // parameters; all but the last qualify the routine. FPC's operators may end
                // with a symbol instead of a name.
                Rule::ident | Rule::dot_name => {
                    if let Some(previous) = last_part.replace((c, None)) {
                        self.qualify(&mut qualifier, previous);
                    }
                }
                Rule::generic_params_any | Rule::generic_args => {
                    if let Some(last) = last_part.as_mut() {
                        last.1 = Some(c);
                    }
                }
                Rule::operator_symbol => symbol = Some(c),
                Rule::param_group => self.param_group(c, &mut r.params),
                Rule::result_type => {
                    for x in c.into_inner() {
                        match x.as_rule() {
                            Rule::type_ref => r.result = Some(self.type_ref(x)),
                            Rule::attributes => {
                                // attributes on the result are kept with the routine's
                                r.attributes.extend(self.attributes(x));
                            }
                            _ => {}
                        }
                    }
                }
                Rule::method_resolution => r.directives.push(Directive {
                    name: Text::const_new("="),
                    arg: c.into_inner().next().map(|q| compact(self.text(&q))),
                    span: self.span_of(0, 0),
                }),
                Rule::directives => {
                    for d in c.into_inner() {
                        let dspan = self.span(&d);
                        let mut name = Text::default();
                        let mut arg = None;
                        for x in d.into_inner() {
                            match x.as_rule() {
                                Rule::directive_name => name = lowercase(self.text(&x)),
                                Rule::directive_arg => arg = Some(normalize(self.text(&x))),
                                // `public name 'symbol'`: the argument is `name 'symbol'`;
                                // `alias: 'symbol'`: the argument is the expression
                                Rule::public_name | Rule::fpc_alias => {
                                    let (start, end) = (x.as_span().start(), x.as_span().end());
                                    name = lowercase(self.text_of(start, start + CODE_WIDTH));
                                    arg = if x.as_rule() == Rule::public_name {
                                        Some(normalize(self.text_of(start + CODE_WIDTH, end)))
                                    } else {
                                        x.into_inner().next().map(|e| normalize(self.text(&e)))
                                    };
                                }
                                // `framework 'UIKit'`: the word is the name, the rest its argument
                                Rule::linker_clause => {
                                    let end = x.as_span().end();
                                    if let Some(word) = x.into_inner().next() {
                                        name = lowercase(self.text(&word));
                                        let rest = self.text_of(word.as_span().end(), end);
                                        arg = Some(normalize(rest));
                                    }
                                }
                                _ => {}
                            }
                        }
                        r.directives.push(Directive {
                            name,
                            arg,
                            span: dspan,
                        });
                    }
                }
                _ => {}
            }
        }
        match symbol {
            Some(symbol) => {
                r.name = Text::from(self.text(&symbol));
                r.name_span = self.span(&symbol);
                if let Some(previous) = last_part {
                    self.qualify(&mut qualifier, previous);
                }
            }
            None => {
                if let Some((name, generics)) = last_part {
                    r.name = strip_amp(self.text(&name));
                    r.name_span = self.span(&name);
                    if let Some(g) = generics
                        .filter(|g| g.as_rule() == Rule::generic_params_any)
                        .and_then(|g| g.into_inner().next())
                    {
                        r.generic_params = self.generic_params(g);
                    }
                }
            }
        }
        r.qualifier = qualifier;
        r
    }

    /// Adds a name part (with its generic parameters or arguments) to a routine's qualifier.
    fn qualify(&self, qualifier: &mut Option<Text>, (name, generics): (P, Option<P>)) {
        let end = generics.as_ref().unwrap_or(&name).as_span().end();
        let part = compact(self.text_of(name.as_span().start(), end));
        match qualifier {
            Some(q) => {
                q.push('.');
                q.push_str(&part);
            }
            None => *qualifier = Some(part),
        }
    }

    /// The names of an `ident_list` pair (`A, B, C`): its names are every other token.
    fn list_names(&self, p: &P, names: &mut Vec<(Text, Span)>) {
        let span = p.as_span();
        names.extend(self.names_at(span.start(), span.end()));
    }

    /// The names of the `ident_list` at `start..end` of the item's input (every other token),
    /// with their spans.
    pub(crate) fn names_at(
        &self,
        start: usize,
        end: usize,
    ) -> impl Iterator<Item = (Text, Span)> + '_ {
        (start..end).step_by(2 * CODE_WIDTH).map(|at| {
            (
                strip_amp(self.text_of(at, at + CODE_WIDTH)),
                self.span_of(at, at + CODE_WIDTH),
            )
        })
    }

    /// Adds the parameters of one group (`const A, B: Integer`) to `params`.
    fn param_group(&self, p: P, params: &mut Vec<Param>) {
        let span = self.span(&p);
        let (p_text, p_start) = (p.as_str(), p.as_span().start());
        let mut mode = ParamMode::Value;
        let mut attributes = Vec::new();
        let mut names = 0..0;
        let mut ty = None;
        let mut default = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::attributes => attributes.extend(self.attributes(c)),
                Rule::ident_list => {
                    // the mode is the keyword before the names (attributes hold none)
                    let before = &p_text[..c.as_span().start() - p_start];
                    mode = match before.chars().find(|k| PARAM_MODES.contains(k)) {
                        Some(KW_CONST) => ParamMode::Const,
                        Some(KW_VAR) => ParamMode::Var,
                        Some(KW_OUT) => ParamMode::Out,
                        Some(KW_CONSTREF) => ParamMode::ConstRef,
                        _ => ParamMode::Value,
                    };
                    names = c.as_span().start()..c.as_span().end();
                }
                Rule::type_ref => ty = Some(self.type_ref(c)),
                Rule::param_default => default = c.into_inner().next().map(|e| self.expr(e)),
                _ => {}
            }
        }
        if mode == ParamMode::Const
            && attributes
                .iter()
                .any(|a| a.name.eq_ignore_ascii_case("ref"))
        {
            mode = ParamMode::ConstRef;
        }
        let names = self.names_at(names.start, names.end);
        push_params(params, names, mode, ty, default, attributes, span);
    }

    // ------------------------------------------------------------ expressions

    /// Lowers an expression pair (`expr`, `simple_expr` or `primary`).
    pub fn expr(&self, p: P) -> Expr {
        let depth = self.expr_depth.get();
        if depth >= MAX_EXPR_DEPTH {
            return self.other_expr(&p);
        }
        // The limit counts the four precedence levels an expression once had, so deep
        // nesting is cut at the same place.
        self.expr_depth.set(depth + 4);
        let e = match p.as_rule() {
            Rule::expr | Rule::simple_expr => self.flat_expr(p),
            Rule::primary => self.primary(p),
            _ => self.other_expr(&p),
        };
        self.expr_depth.set(depth);
        e
    }

    /// An expression kept as text only.
    fn other_expr(&self, p: &P) -> Expr {
        Expr {
            text: normalize(self.text(p)),
            kind: ExprKind::Other,
            span: self.span(p),
        }
    }

    /// Builds the tree of a flat `operand (operator operand)*` row by precedence climbing.
    fn flat_expr(&self, p: P) -> Expr {
        let span = p.as_span();
        let mut row = p.into_inner().peekable();
        match self.operand(&mut row) {
            Some(first) => self.climb(first, 0, &mut row).expr,
            None => Expr {
                text: Text::default(),
                kind: ExprKind::Other,
                span: self.span_of(span.start(), span.start()),
            },
        }
    }

    /// The next operand of a row: prefix operators (binding tighter than any binary one), a
    /// primary and its postfixes.
    fn operand(&self, row: &mut Row<'a>) -> Option<Operand> {
        let c = row.next()?;
        match c.as_rule() {
            Rule::unary_op => {
                let inner = self.operand(row)?;
                let (start, end) = (c.as_span().start(), inner.end);
                Some(Operand {
                    expr: Expr {
                        text: normalize(self.text_of(start, end)),
                        kind: ExprKind::Unary {
                            op: lowercase(self.text(&c)),
                            operand: Box::new(inner.expr),
                        },
                        span: self.span_of(start, end),
                    },
                    start,
                    end,
                })
            }
            Rule::primary => {
                let (start, mut end) = (c.as_span().start(), c.as_span().end());
                let mut expr = self.primary(c);
                while let Some(post) = row.next_if(|x| x.as_rule() == Rule::postfix) {
                    end = post.as_span().end();
                    expr = self.postfix(expr, start, post);
                }
                Some(Operand { expr, start, end })
            }
            _ => None,
        }
    }

    /// Precedence climbing: folds the operators of precedence `min` or higher into `lhs`, left
    /// to right, a tighter operator on the right taking its operands first.
    fn climb(&self, mut lhs: Operand, min: u8, row: &mut Row<'a>) -> Operand {
        while let Some(prec) = row.peek().and_then(precedence).filter(|&p| p >= min) {
            let Some(op) = row.next() else {
                break;
            };
            let Some(mut rhs) = self.operand(row) else {
                break;
            };
            while let Some(next) = row.peek().and_then(precedence).filter(|&n| n > prec) {
                rhs = self.climb(rhs, next, row);
            }
            let (start, end) = (lhs.start, rhs.end);
            lhs = Operand {
                expr: Expr {
                    text: normalize(self.text_of(start, end)),
                    kind: ExprKind::Binary {
                        op: compact(self.text(&op)).to_ascii_lowercase(),
                        lhs: Box::new(lhs.expr),
                        rhs: Box::new(rhs.expr),
                    },
                    span: self.span_of(start, end),
                },
                start,
                end,
            };
        }
        lhs
    }

    /// `acc` followed by a `postfix` pair: a member access, call, index or dereference. `start`
    /// is where `acc` starts in the item's input.
    fn postfix(&self, acc: Expr, start: usize, post: P) -> Expr {
        let end = post.as_span().end();
        let Some(x) = post.into_inner().next() else {
            return acc;
        };
        let text = normalize(self.text_of(start, end));
        let span = self.span_of(start, end);
        let kind = match (x.as_rule(), acc.kind) {
            (Rule::member_access, ExprKind::Ident { name }) => ExprKind::Ident {
                name: compact_str::format_compact!(
                    "{name}.{}",
                    x.into_inner()
                        .next()
                        .map(|n| strip_amp(self.text(&n)))
                        .unwrap_or_default()
                ),
            },
            (Rule::call_args, kind) => ExprKind::Call {
                callee: Box::new(Expr {
                    text: acc.text,
                    kind,
                    span: acc.span,
                }),
                args: x
                    .into_inner()
                    .filter(|a| a.as_rule() == Rule::expr)
                    .map(|a| self.expr(a))
                    .collect(),
            },
            _ => ExprKind::Other,
        };
        Expr { text, kind, span }
    }

    fn primary(&self, p: P) -> Expr {
        let span = self.span(&p);
        let text = normalize(self.text(&p));
        let keyword = first_code(&p);
        let mut it = p.into_inner();
        let kind = match it.next() {
            // `inherited Name`: the name is not the value
            _ if keyword == Some(KW_INHERITED) => ExprKind::Other,
            None if matches!(keyword, Some(KW_NIL | KW_STRING)) => {
                ExprKind::Ident { name: text.clone() }
            }
            Some(c) => match c.as_rule() {
                Rule::number => number_kind(self.text(&c)),
                Rule::string_lit => ExprKind::Str {
                    value: self.string_value(c),
                },
                Rule::set_ctor => ExprKind::Set {
                    elements: c
                        .into_inner()
                        .map(|e| {
                            let espan = self.span(&e);
                            let etext = normalize(self.text(&e));
                            let mut parts = e.into_inner();
                            let lo = parts.next().map(|x| self.expr(x));
                            match (lo, parts.next()) {
                                (Some(lo), Some(hi)) => Expr {
                                    text: etext,
                                    kind: ExprKind::Binary {
                                        op: Text::const_new(".."),
                                        lhs: Box::new(lo),
                                        rhs: Box::new(self.expr(hi)),
                                    },
                                    span: espan,
                                },
                                (Some(lo), None) => lo,
                                _ => Expr {
                                    text: etext,
                                    kind: ExprKind::Other,
                                    span: espan,
                                },
                            }
                        })
                        .collect(),
                },
                Rule::paren_expr => match c.into_inner().next() {
                    Some(inner) => {
                        let e = self.expr(inner);
                        return Expr {
                            text,
                            kind: e.kind,
                            span,
                        };
                    }
                    None => ExprKind::Other,
                },
                Rule::ident => ExprKind::Ident {
                    name: strip_amp(self.text(&c)),
                },
                _ => ExprKind::Other,
            },
            None => ExprKind::Other,
        };
        Expr { text, kind, span }
    }
}

pub(crate) fn empty_routine(span: Span) -> Routine {
    Routine {
        kind: RoutineKind::Procedure,
        is_class: false,
        name: Text::default(),
        qualifier: None,
        name_span: span,
        generic_params: Vec::new(),
        params: Vec::new(),
        result: None,
        directives: Vec::new(),
        attributes: Vec::new(),
        doc: None,
        forward: false,
        body_span: None,
        nested: Vec::new(),
        span,
    }
}

/// Value of a numeric literal.
pub(crate) fn number_kind(text: &str) -> ExprKind {
    // digit separators (`1_000`) are rare: copy only then
    let without_separators: String;
    let clean = if text.contains('_') {
        without_separators = text.chars().filter(|&c| c != '_').collect();
        without_separators.as_str()
    } else {
        text
    };
    let parsed = if let Some(hex) = clean.strip_prefix('$') {
        i128::from_str_radix(hex, 16).ok()
    } else if let Some(bin) = clean.strip_prefix('%') {
        i128::from_str_radix(bin, 2).ok()
    } else if let Some(oct) = clean.strip_prefix('&') {
        i128::from_str_radix(oct, 8).ok()
    } else if clean.contains(['.', 'e', 'E']) {
        return match clean.parse::<f64>() {
            Ok(value) => ExprKind::Real { value },
            Err(_) => ExprKind::Other,
        };
    } else {
        clean.parse::<i128>().ok()
    };
    match parsed {
        Some(value) => ExprKind::Int { value },
        None => ExprKind::Other,
    }
}

/// `text` in ASCII lower case.
pub(crate) fn lowercase(text: &str) -> Text {
    let mut t = Text::from(text);
    t.make_ascii_lowercase();
    t
}

/// The value of a string literal: quoted pieces with `''` escapes, `#13`/`#$0D` character
/// codes and Delphi 12 multi-line strings, concatenated.
fn string_pieces_value<'t>(pieces: impl Iterator<Item = &'t str>) -> Text {
    let mut out = Text::default();
    for s in pieces {
        if let Some(digits) = s.strip_prefix('#') {
            let code = match digits.strip_prefix('$') {
                Some(hex) => u32::from_str_radix(hex, 16).ok(),
                None => digits.parse::<u32>().ok(),
            };
            out.push(code.and_then(char::from_u32).unwrap_or('\u{FFFD}'));
        } else if s.starts_with("'''") && s.contains(['\n', '\r']) {
            out.push_str(&multiline_value(s));
        } else {
            let inner = s.get(1..s.len().saturating_sub(1)).unwrap_or("");
            // a quote inside a piece is always doubled
            if inner.contains('\'') {
                out.push_str(&inner.replace("''", "'"));
            } else {
                out.push_str(inner);
            }
        }
    }
    out
}

/// Content of a Delphi 12 multi-line string: the lines between the opening and closing quote
/// runs, with the closing line's indentation removed, joined by line feeds.
fn multiline_value(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    if lines.len() < 2 {
        return String::new();
    }
    let last = lines[lines.len() - 1];
    let indent = last.len() - last.trim_start_matches([' ', '\t']).len();
    let content: Vec<&str> = lines[1..lines.len() - 1]
        .iter()
        .map(|l| {
            let strip = l.len() - l.trim_start_matches([' ', '\t']).len();
            &l[strip.min(indent)..]
        })
        .collect();
    content.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert!(matches!(number_kind("$FF"), ExprKind::Int { value: 255 }));
        assert!(matches!(number_kind("%1010"), ExprKind::Int { value: 10 }));
        assert!(matches!(number_kind("&17"), ExprKind::Int { value: 15 }));
        assert!(matches!(
            number_kind("1_000"),
            ExprKind::Int { value: 1000 }
        ));
        assert!(matches!(number_kind("1.5e3"), ExprKind::Real { value } if value == 1500.0));
    }

    #[test]
    fn normalize_and_compact_skip_work_only_when_the_result_is_the_same() {
        // the general rule: trim, and every run of blanks becomes one space
        let reference = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        for text in [
            "Integer",
            "array of Byte",
            "  padded ",
            "two  spaces",
            "tab\there",
            "line\r\nbreak",
            "non\u{00A0}breaking",
            "Ünïcode Näme",
            "",
        ] {
            assert_eq!(normalize(text), reference(text), "{text:?}");
            let compacted: String = text.chars().filter(|c| !c.is_whitespace()).collect();
            assert_eq!(compact(text), compacted, "{text:?}");
        }
    }

    #[test]
    fn multiline() {
        assert_eq!(multiline_value("'''\n    a\n      b\n    '''"), "a\n  b");
    }
}
