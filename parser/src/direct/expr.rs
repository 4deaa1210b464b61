//! Expressions, with the grammar's backtracking, built into the tree lowering builds.

use super::one_token_text;
use super::Direct;
use crate::ast::*;
use crate::tokens::codes::*;
use crate::tokens::CODE_WIDTH;
use crate::tree::{compact, lowercase, normalize, number_kind, strip_amp};

/// How deep expressions may nest (parentheses, calls, sets) before the reader leaves the item
/// to the grammar: lowering keeps the expressions below twelve levels as text only.
const MAX_EXPR_NESTING: u32 = 10;

/// An operand of an expression with where it starts and ends in the item's input.
struct Operand {
    expr: Expr,
    start: usize,
    end: usize,
}

/// Binding strength of the binary operator `c` (relational 0, additive 1, multiplicative 2).
pub(super) fn binary_precedence(c: u32) -> Option<u8> {
    match c {
        LT | EQ | GT | K_IN | K_IS => Some(0),
        PLUS | MINUS | K_OR | K_XOR => Some(1),
        STAR | SLASH | K_AND | K_AS | K_DIV | K_MOD | K_SHL | K_SHR => Some(2),
        _ => None,
    }
}

impl<'l, 'a> Direct<'l, 'a> {
    // ------------------------------------------------------------ expressions
    //
    // Expressions follow the grammar completely, with its backtracking: a postfix or an
    // operator whose operand does not match ends the expression before it, and `None` means
    // the grammar would not match here either, unless the reader gave up (`gave_up`), which
    // every caller that tries an alternative after a failed expression checks.

    /// `expr`.
    pub(super) fn expr(&mut self) -> Option<Expr> {
        self.expression(false)
    }

    /// `expr`, or `simple_expr` (no relational operators) when `simple`.
    pub(super) fn expression(&mut self, simple: bool) -> Option<Expr> {
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
                let before = self.at;
                rhs = self.climb(rhs, next, simple)?;
                if self.at == before {
                    // that operator has no operand: the grammar's row ends before it
                    break;
                }
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
    pub(super) fn const_value(&mut self) -> Option<Expr> {
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
}
