//! Hand-built syntax trees for the unit tests of this crate (the real tests go through the
//! parser; these only pin the generator's own logic).

use delphi_mcp_parser::ast::*;
use delphi_mcp_parser::source::add_text;
use delphi_mcp_parser::{SourceDb, Span};
use std::path::Path;

pub struct Kit {
    pub db: SourceDb,
    pub span: Span,
}

impl Kit {
    pub fn new(text: &str) -> Self {
        let db = SourceDb::new();
        let file = add_text(&db, Path::new("Fixture.pas"), text.to_string());
        Kit {
            db,
            span: Span {
                file,
                start: 0,
                end: 1,
            },
        }
    }

    pub fn expr_int(&self, v: i128) -> Expr {
        Expr {
            text: v.to_string().into(),
            kind: ExprKind::Int { value: v },
            span: self.span,
        }
    }

    pub fn ty(&self, name: &str) -> TypeRef {
        TypeRef {
            kind: TypeRefKind::Named {
                name: name.into(),
                generic_args: vec![],
            },
            text: name.into(),
            span: self.span,
        }
    }

    pub fn attr(&self, name: &str, args: &[Expr]) -> Attribute {
        Attribute {
            name: name.into(),
            args: args
                .iter()
                .map(|e| AttributeArg {
                    name: None,
                    value: e.clone(),
                })
                .collect(),
            span: self.span,
        }
    }

    pub fn param(&self, name: &str, ty: &str, default: Option<Expr>) -> Param {
        Param {
            name: name.into(),
            name_span: self.span,
            mode: ParamMode::Value,
            ty: Some(self.ty(name_or_type(ty))),
            default,
            attributes: vec![],
            span: self.span,
        }
    }

    pub fn routine(
        &self,
        name: &str,
        params: Vec<Param>,
        result: Option<&str>,
        attributes: Vec<Attribute>,
    ) -> Routine {
        Routine {
            kind: if result.is_some() {
                RoutineKind::Function
            } else {
                RoutineKind::Procedure
            },
            is_class: false,
            name: name.into(),
            qualifier: None,
            name_span: self.span,
            generic_params: vec![],
            params,
            result: result.map(|r| self.ty(r)),
            directives: vec![],
            attributes,
            doc: Some(Box::new(DocComment {
                summary: Some(format!("The {name} tool.").into()),
                ..DocComment::default()
            })),
            forward: true,
            body_span: None,
            nested: vec![],
            span: self.span,
        }
    }

    pub fn type_decl(&self, name: &str, def: TypeDef) -> TypeDecl {
        TypeDecl {
            name: name.into(),
            name_span: self.span,
            generic_params: vec![],
            def,
            attributes: vec![],
            doc: None,
            hints: vec![],
            span: self.span,
        }
    }

    pub fn unit(&self, name: &str, decls: Vec<Decl>) -> Unit {
        Unit {
            kind: UnitKind::Unit,
            name: name.into(),
            name_span: self.span,
            hints: vec![],
            sections: vec![Section {
                kind: SectionKind::Interface,
                uses: vec![],
                decls,
                span: self.span,
            }],
            init_span: None,
            span: self.span,
        }
    }
}

fn name_or_type(ty: &str) -> &str {
    ty
}
