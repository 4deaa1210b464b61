//! Lowering of expressions: flat rows of operands and operators built into a tree by
//! precedence.

use super::{first_code, Lower, P};
use crate::ast::*;
use crate::grammar::Rule;
use crate::tokens::codes::*;
use crate::tree::{compact, lowercase, normalize, number_kind, strip_amp};
use pest::iterators::Pairs;

/// An operand of a flat expression row, lowered, with where it starts and ends in the item's
/// input.
struct Operand {
    expr: Expr,
    start: usize,
    end: usize,
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

impl<'a> Lower<'a> {
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
            _ if keyword == K_INHERITED => ExprKind::Other,
            None if matches!(keyword, K_NIL | K_STRING) => ExprKind::Ident { name: text.clone() },
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
