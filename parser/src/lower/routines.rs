//! Lowering of routine headings and their parameters.

use super::{codes_of, first_code, Lower, P};
use crate::ast::*;
use crate::grammar::Rule;
use crate::span::Span;
use crate::tokens::codes::*;
use crate::tokens::CODE_WIDTH;
use crate::tree::{
    compact, empty_routine, lowercase, normalize, push_params_with_own, strip_amp, ParamGroup,
};

/// The parameter modes, as the first mode keyword before a group's names.
const PARAM_MODES: [u32; 4] = [K_CONST, K_VAR, K_OUT, K_CONSTREF];
/// The keywords that give a routine its kind (after `class` or `generic`).
const ROUTINE_KINDS: [u32; 5] = [
    K_PROCEDURE,
    K_FUNCTION,
    K_CONSTRUCTOR,
    K_DESTRUCTOR,
    K_OPERATOR,
];

impl<'a> Lower<'a> {
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

    pub(super) fn routine_heading(
        &self,
        p: P,
        attributes: Vec<Attribute>,
        doc: Option<Box<DocComment>>,
    ) -> Routine {
        let span = self.span(&p);
        let mut r = empty_routine(span);
        r.attributes = attributes;
        r.doc = doc;
        r.is_class = first_code(&p) == K_CLASS;
        // the kind keyword comes first (after `class` or `generic`)
        r.kind = match codes_of(&p).find(|c| ROUTINE_KINDS.contains(c)) {
            Some(K_FUNCTION) => RoutineKind::Function,
            Some(K_CONSTRUCTOR) => RoutineKind::Constructor,
            Some(K_DESTRUCTOR) => RoutineKind::Destructor,
            Some(K_OPERATOR) => RoutineKind::Operator,
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

    /// Adds the parameters of one group (`const A, B: Integer`) to `params`.
    pub(super) fn param_group(&self, p: P, params: &mut Vec<Param>) {
        let span = self.span(&p);
        let (p_text, p_start) = (p.as_str(), p.as_span().start());
        let mut mode = ParamMode::Value;
        let mut attributes = Vec::new();
        // the names (every other token of each list), and after the first list the
        // attributes written before a list with the index of its first name
        let mut names = Vec::new();
        let mut own = Vec::new();
        let mut ty = None;
        let mut default = None;
        for c in p.into_inner() {
            match c.as_rule() {
                Rule::attributes if !names.is_empty() => {
                    own.push((names.len(), self.attributes(c)))
                }
                Rule::attributes => attributes.extend(self.attributes(c)),
                Rule::ident_list if !names.is_empty() => {
                    names.extend(self.names_at(c.as_span().start(), c.as_span().end()));
                }
                Rule::ident_list => {
                    // the mode is the keyword before the names (attributes hold none)
                    let before = &p_text[..c.as_span().start() - p_start];
                    mode = match before
                        .chars()
                        .map(u32::from)
                        .find(|k| PARAM_MODES.contains(k))
                    {
                        Some(K_CONST) => ParamMode::Const,
                        Some(K_VAR) => ParamMode::Var,
                        Some(K_OUT) => ParamMode::Out,
                        Some(K_CONSTREF) => ParamMode::ConstRef,
                        _ => ParamMode::Value,
                    };
                    names.extend(self.names_at(c.as_span().start(), c.as_span().end()));
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
        let group = ParamGroup {
            mode,
            ty,
            default,
            attributes,
            span,
        };
        push_params_with_own(params, names, own, group);
    }
}
