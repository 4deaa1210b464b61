//! Classes, records, interfaces, objects and helpers: heads, members, fields and properties.

use super::routine_kind;
use super::Direct;
use crate::ast::*;
use crate::tokens::codes::*;
use crate::tokens::CODE_WIDTH;
use crate::tree::{compact, lowercase, normalize, strip_amp, var_decls, visibility_of, Members};

impl<'l, 'a> Direct<'l, 'a> {
    /// `class_type`, `record_type`, `interface_type`, `object_type` and helpers from their
    /// keyword on (after any packing).
    pub(super) fn structured(&mut self, kind: StructuredKind) -> Option<StructuredType> {
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
            let doc = self.src.doc_at(m.member_start(start));
            let mut r = self.routine_heading(m.take_pending(), doc)?;
            r.forward = true;
            m.push(Member::Method(r));
        } else if is_vis_word(c) && !matches!(next, COLON | COMMA) {
            self.bump();
            m.member_start(start);
            m.visibility(visibility_of(c, false));
        } else if c == K_STRICT && is_vis_word(next) {
            if matches!(self.peek_at(2), COLON | COMMA) {
                return None;
            }
            self.at += 2 * CODE_WIDTH;
            m.member_start(start);
            m.visibility(visibility_of(next, true));
        } else if is_name(c) {
            let member_start = m.member_start(start);
            let fields = self.field_decl()?;
            // the field's own comment, else the one before its attributes (looked up only
            // when there are attributes between)
            let before_attributes = match fields.first() {
                Some(f) if f.doc.is_none() && member_start != start => {
                    self.src.doc_at(member_start)
                }
                _ => None,
            };
            m.fields(fields, before_attributes, false);
        } else if c == K_PROPERTY || (c == K_CLASS && next == K_PROPERTY) {
            let doc = self.src.doc_at(m.member_start(start));
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
    pub(super) fn names_and_type(&mut self) -> Option<(Vec<Attribute>, (usize, usize), TypeRef)> {
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
        let doc = self.src.doc_at(start);
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
            if c == K_IMPLEMENTS {
                arg = self.implemented_types()?;
            }
            if arg.is_none() && next != SEMI && !is_prop_spec_name(next) && !is_hint_name(next) {
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

    /// `prop_spec_types ~ &(SEMI | prop_spec_name | hint_name | kw_end)` after `implements`:
    /// the types' text, `Some(None)` when the grammar's alternative does not match here (the
    /// position is then unchanged), `None` when the reader gives up.
    fn implemented_types(&mut self) -> Option<Option<Text>> {
        let start = self.at;
        let mut end = start;
        loop {
            if self.peek() == K_SPECIALIZE {
                return self.give_up();
            }
            if self.named_type().is_none() {
                if self.gave_up {
                    return None;
                }
                break;
            }
            end = self.at;
            if !self.eat(COMMA) {
                break;
            }
        }
        self.at = end;
        let c = self.peek();
        if end == start || !(c == SEMI || c == K_END || is_prop_spec_name(c) || is_hint_name(c)) {
            self.at = start;
            return Some(None);
        }
        Some(Some(normalize(self.text(start, end))))
    }
}
