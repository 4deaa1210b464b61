//! Turns pest pairs into the syntax tree of [`crate::ast`], with the builders of
//! [`crate::tree`] that the direct reader uses too.
//!
//! One module per construct: this one holds the item context, unit heads, uses clauses,
//! attributes, constants and variables; [`types`] types and members of structured types,
//! [`routines`] routine headings and parameters, [`expr`] expressions.

mod expr;
mod routines;
mod types;

use crate::ast::*;
use crate::grammar::Rule;
use crate::span::Span;
use crate::tokens::codes::*;
use crate::tree::{compact, lowercase, normalize, strip_amp, var_decls, ItemSource};
use pest::iterators::Pair;

type P<'i> = Pair<'i, Rule>;

/// Lowers pairs parsed from the token string of one item.
pub(crate) struct Lower<'a> {
    /// The item's text and tokens.
    pub src: ItemSource<'a>,
    /// How deep `expr` has recursed: deeper expressions are kept as text only, so absurd
    /// nesting cannot exhaust the stack here after the grammar accepted it.
    pub expr_depth: std::cell::Cell<u32>,
}

impl<'a> std::ops::Deref for Lower<'a> {
    type Target = ItemSource<'a>;

    fn deref(&self) -> &ItemSource<'a> {
        &self.src
    }
}

/// The code of a pair's first token (0 for an empty pair).
fn first_code(p: &P) -> u32 {
    crate::tokens::code_at(p.as_str().as_bytes(), 0)
}

/// The codes of a pair's tokens.
fn codes_of<'p>(p: &P<'p>) -> impl Iterator<Item = u32> + 'p {
    p.as_str().chars().map(u32::from)
}

impl<'a> Lower<'a> {
    /// A lowering of the pairs of the item `src`.
    pub(crate) fn new(src: ItemSource<'a>) -> Self {
        Self {
            src,
            expr_depth: Default::default(),
        }
    }

    fn span(&self, p: &P) -> Span {
        let s = p.as_span();
        self.span_of(s.start(), s.end())
    }

    /// The source text of a pair (from its first token's start to its last token's end).
    fn text(&self, p: &P) -> &'a str {
        let s = p.as_span();
        self.text_of(s.start(), s.end())
    }

    /// The value of a `string_lit` pair.
    fn string_value(&self, p: P) -> Text {
        let span = p.as_span();
        self.string_value_of(span.start(), span.end())
    }

    fn doc(&self, p: &P) -> Option<Box<DocComment>> {
        self.doc_at(p.as_span().start())
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
                        K_PROGRAM => UnitKind::Program,
                        K_LIBRARY => UnitKind::Library,
                        K_PACKAGE => UnitKind::Package,
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

    /// The names of an `ident_list` pair (`A, B, C`): its names are every other token.
    fn list_names(&self, p: &P, names: &mut Vec<(Text, Span)>) {
        let span = p.as_span();
        names.extend(self.names_at(span.start(), span.end()));
    }
}
