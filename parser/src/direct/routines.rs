//! Routine headings: names, parameters, results and directives.

use super::routine_kind;
use super::Direct;
use crate::ast::*;
use crate::span::Span;
use crate::tokens::codes::*;
use crate::tokens::CODE_WIDTH;
use crate::tree::{
    compact, lowercase, normalize, push_params, push_params_with_own, strip_amp, ParamGroup,
};

impl<'l, 'a> Direct<'l, 'a> {
    // ------------------------------------------------------------ routines

    /// `routine_decl`: attributes and a heading.
    pub(crate) fn routine_decl(&mut self) -> Option<Routine> {
        let doc = self.src.doc_at(self.at);
        let attributes = self.attributes()?;
        self.routine_heading(attributes, doc)
    }

    /// `routine_heading`, but for FPC's operators named by a symbol and results named before
    /// the `:`.
    pub(super) fn routine_heading(
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
    pub(super) fn formal_params(&mut self, params: &mut Vec<Param>) -> Option<()> {
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
    pub(super) fn param_group(&mut self, params: &mut Vec<Param>) -> Option<()> {
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
        // `(COMMA ~ &LB ~ attributes ~ ident_list)*`: names with attributes of their own
        let more = if self.peek() == COMMA && self.peek_at(1) == LB {
            Some(self.names_with_attributes()?)
        } else {
            None
        };
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
        let group = ParamGroup {
            mode,
            ty,
            default,
            attributes,
            span: self.span(start, self.at),
        };
        let Some(more) = more else {
            let names = self.list_names(names_start, names_end);
            push_params(params, names, group);
            return Some(());
        };
        let (names, own) = self.names_and_own_attributes((names_start, names_end), more);
        push_params_with_own(params, names, own, group);
        Some(())
    }

    /// The names of a group's lists, and the attributes before each list after the first with
    /// the index of the name they belong to.
    #[cold]
    #[allow(clippy::type_complexity)]
    fn names_and_own_attributes(
        &self,
        (start, end): (usize, usize),
        more: Vec<(Vec<Attribute>, usize, usize)>,
    ) -> (Vec<(Text, Span)>, Vec<(usize, Vec<Attribute>)>) {
        let mut names: Vec<(Text, Span)> = self.list_names(start, end).collect();
        let mut own = Vec::new();
        for (attributes, start, end) in more {
            own.push((names.len(), attributes));
            names.extend(self.list_names(start, end));
        }
        (names, own)
    }

    /// `(COMMA ~ &LB ~ attributes ~ ident_list)*` after a group's first names: each attribute
    /// list and where the names after it start and end.
    #[cold]
    fn names_with_attributes(&mut self) -> Option<Vec<(Vec<Attribute>, usize, usize)>> {
        let mut lists = Vec::new();
        while self.peek() == COMMA && self.peek_at(1) == LB {
            let before = self.at;
            self.bump();
            let own = match self.attributes() {
                Some(own) => own,
                None if self.gave_up => return None,
                None => {
                    self.at = before;
                    break;
                }
            };
            let start = self.at;
            if self.ident_list().is_none() {
                self.at = before;
                break;
            }
            lists.push((own, start, self.at));
        }
        Some(lists)
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
}
