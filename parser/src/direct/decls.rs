//! Unit heads, uses clauses, constants, variables, `exports` and `label`; names, attributes
//! and hints.

use super::Direct;
use crate::ast::*;
use crate::span::Span;
use crate::tokens::codes::*;
use crate::tokens::CODE_WIDTH;
use crate::tree::{compact, lowercase, normalize, strip_amp, var_decls};

impl<'l, 'a> Direct<'l, 'a> {
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
        let doc = self.src.doc_at(start);
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
        let doc = self.src.doc_at(start);
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
    pub(super) fn ident_list(&mut self) -> Option<()> {
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
    pub(super) fn list_names(
        &self,
        start: usize,
        end: usize,
    ) -> impl Iterator<Item = (Text, Span)> + 'l {
        self.src.names_at(start, end)
    }

    /// `string_lit`: its value (`None` when no string is here).
    pub(super) fn string_lit(&mut self) -> Option<Text> {
        let start = self.at;
        while self.peek() == C_STRING {
            self.bump();
        }
        (self.at > start).then(|| self.src.string_value_of(start, self.at))
    }

    /// `qualified_ident`.
    pub(super) fn qualified_ident(&mut self) -> Option<()> {
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
    pub(super) fn attributes(&mut self) -> Option<Vec<Attribute>> {
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

    /// `hint`: `deprecated`, `deprecated 'why'`, `platform`, `experimental`, `library`.
    pub(super) fn hint(&mut self) -> Directive {
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
    pub(super) fn hints(&mut self) -> Vec<Directive> {
        let mut out = Vec::new();
        while is_hint_name(self.peek()) {
            out.push(self.hint());
        }
        out
    }
}
