//! Lowering of type declarations, type references and the members of structured types.

use super::{codes_of, first_code, Lower, P};
use crate::ast::*;
use crate::grammar::Rule;
use crate::span::Span;
use crate::tokens::codes::*;
use crate::tree::{
    compact, empty_routine, lowercase, normalize, strip_amp, visibility_of, Members,
};
use pest::iterators::Pairs;

impl<'a> Lower<'a> {
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

    pub(super) fn generic_params(&self, p: P) -> Vec<GenericParam> {
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
        let reference_to = first_code(&p) == K_REFERENCE;
        // `procedure` or `function` comes first, or after `reference to`
        let kind_code = codes_of(&p).nth(if reference_to { 2 } else { 0 });
        heading.kind = if kind_code == Some(K_FUNCTION) {
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
            None if first_code(&p) == K_STRING => TypeRefKind::Named {
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
                let of_const = codes_of(&p).last() == Some(K_CONST);
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
                    if first_code(&p) == K_DISPINTERFACE {
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
            forward: !(codes_of(&p).any(|c| c == K_END)
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
                let strict = first_code(&c) == K_STRICT;
                let word = codes_of(&c).last().unwrap_or_default();
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
                m.take_pending();
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
                m.take_pending();
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
            is_class: first_code(&p) == K_CLASS,
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
                Rule::prop_spec_arg | Rule::prop_spec_types => {
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
}
