//! Type references, generics and type declarations (enumerations, subranges, procedural
//! types and what leads to structured types).

use super::expr::binary_precedence;
use super::one_token_text;
use super::Direct;
use crate::ast::*;
use crate::tokens::codes::*;
use crate::tokens::CODE_WIDTH;
use crate::tree::{empty_routine, lowercase, normalize, strip_amp};

/// `bound_more`: after a name, what makes it the start of a subrange's lower bound (`..` or an
/// additive or multiplicative operator).
fn is_bound_more(c: u32) -> bool {
    c == C_DOTDOT || matches!(binary_precedence(c), Some(1 | 2))
}

impl<'l, 'a> Direct<'l, 'a> {
    // ------------------------------------------------------------ type references

    /// `type_ref`: names (dotted, with generic arguments), `string`, `string[N]`, arrays,
    /// pointers, sets and subranges.
    pub(super) fn type_ref(&mut self) -> Option<TypeRef> {
        let c = self.peek();
        let next = self.peek_at(1);
        if is_name(c)
            && !matches!(c, K_BITPACKED | K_REFERENCE | K_SPECIALIZE)
            && !matches!(next, LT | DOT | LP)
            && !is_bound_more(next)
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
                let next = self.peek_at(1);
                if !matches!(next, LT | DOT | LP) && !is_bound_more(next) {
                    return Some(self.short_type_ref());
                }
                let kind = self.named_type()?;
                if is_bound_more(self.peek()) {
                    // `Low..High`, `TEnum.A..TEnum.B`, `SizeOf(A) + 1..8`: a subrange, read
                    // again as one
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
    /// `named_type` without `specialize`: name parts, each with optional generic arguments,
    /// of which the last part's are kept, and a code page (`AnsiString(1252)`). Like the
    /// grammar it stops before a `.` without a name and a `(` without a code page.
    pub(super) fn named_type(&mut self) -> Option<TypeRefKind> {
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
    pub(super) fn generic_params(&mut self) -> Option<Vec<GenericParam>> {
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

    // ------------------------------------------------------------ types

    /// `type_decl` of a class, record, interface, helper, enumeration, subrange, procedural
    /// type or a type reference.
    pub(crate) fn type_decl(&mut self) -> Option<TypeDecl> {
        let start = self.at;
        let doc = self.src.doc_at(start);
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
}
