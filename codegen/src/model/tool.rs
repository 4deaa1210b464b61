//! One tool from one routine: its name, description, parameters (through the type table),
//! defaults and result, with the diagnostics of what the type table refuses.

use super::attributes::find_attr;
use super::roles::{content_shape, entry_attr, is_context_type, Role, SUPPORT_UNIT};
use super::{Builder, Tool, ToolParam, ToolPlace};
use crate::resolve::{Conv, Rejection, Resolved};
use crate::types::Unsupported;
use delphi_mcp_manifest::naming::ArgumentNaming;
use delphi_mcp_manifest::SourceLocation;
use delphi_mcp_parser::ast::{self, ConstValue, ParamMode, Routine, RoutineKind};
use delphi_mcp_parser::{Diagnostic, Span};
impl<'a> Builder<'a> {
    pub(super) fn make_tool(&mut self, unit: usize, routine: &'a Routine, place: ToolPlace) {
        let errors_before = self.error_count();
        let Some(tool_attr) = entry_attr(&routine.attributes) else {
            return;
        };
        match routine.kind {
            RoutineKind::Procedure | RoutineKind::Function => {}
            _ => {
                self.diagnostics.push(Diagnostic::error(
                    format!(
                        "`{}` cannot be a tool: constructors, destructors and operators are not supported",
                        routine.name
                    ),
                    Some(routine.name_span),
                ));
                return;
            }
        }
        if !routine.generic_params.is_empty() {
            self.diagnostics.push(Diagnostic::error(
                format!("generic routine `{}` cannot be a tool", routine.name),
                Some(routine.name_span),
            ));
            return;
        }
        let Some(head) = self.entry_head(tool_attr, unit) else {
            return;
        };
        let base_name = head
            .name
            .unwrap_or_else(|| delphi_mcp_manifest::naming::snake_case(&routine.name));
        let name = format!("{}{}", place.prefix, base_name);
        if !delphi_mcp_manifest::naming::is_valid_name(&name) {
            self.diagnostics.push(
                Diagnostic::error(
                    format!("`{name}` is not a valid {} name", head.role.noun()),
                    Some(tool_attr.span),
                )
                .with_help(
                    "tool names have 1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`",
                ),
            );
        }
        let description = match head.description {
            Some(d) if !d.trim().is_empty() => d,
            _ => routine
                .doc
                .as_ref()
                .and_then(|d| d.summary.as_ref().map(|s| s.to_string()))
                .unwrap_or_default(),
        };
        if description.trim().is_empty() && head.role == Role::Tool {
            self.diagnostics.push(
                Diagnostic::warning(
                    format!("tool `{name}` has no description"),
                    Some(routine.name_span),
                )
                .with_help("the model chooses tools by their description: add a `/// <summary>` doc or [McpTool('name', 'description')]"),
            );
        }
        let (title, annotations) = self.annotations(unit, routine);
        let nil_names = self.nil_names(unit, routine);
        let naming = self
            .naming_attr(&routine.attributes, unit)
            .or(place.naming)
            .unwrap_or(self.options.naming);
        let json_schema = self.json_schema(unit, routine);
        let mut params = Vec::new();
        let mut json_result = None;
        if json_schema.is_some() {
            if let Some((param, result)) = self.json_handler(routine) {
                params.push(param);
                json_result = Some(result);
            }
        } else {
            for param in &routine.params {
                if let Some(p) = self.param(unit, routine, param, &nil_names, naming) {
                    params.push(p);
                }
            }
            self.check_unique_names(routine, &params);
        }
        for (nil_name, span) in &nil_names {
            if !routine
                .params
                .iter()
                .any(|p| p.name.eq_ignore_ascii_case(nil_name))
            {
                self.diagnostics.push(Diagnostic::error(
                    format!(
                        "[McpNil] names `{nil_name}`, which is not a parameter of `{}`",
                        routine.name
                    ),
                    Some(*span),
                ));
            }
        }
        let result = match &routine.result {
            _ if json_schema.is_some() => json_result,
            Some(ty) => match self.env.resolve(ty, unit) {
                Ok(r) => Some(r),
                Err(rejection) => {
                    self.type_error("result", &routine.name, ty.span, &rejection);
                    None
                }
            },
            None => None,
        };
        if self.error_count() > errors_before {
            return;
        }
        let content = routine
            .result
            .as_ref()
            .and_then(|ty| content_shape(&ty.text));
        let source = self.location(routine.name_span);
        let mut tool = Tool {
            role: head.role,
            name,
            title,
            description,
            annotations,
            routine: place.routine_label,
            call: place.call,
            callee: place.callee,
            instance_class: place.instance_class,
            params,
            result,
            content,
            json_schema,
            source,
            span: routine.name_span,
        };
        if self.check_role(routine, &mut tool) {
            self.tools.push(tool);
        }
    }

    pub(super) fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    pub(super) fn location(&self, span: Span) -> SourceLocation {
        let file = self.db.get(span.file);
        let at = file.line_col(span.start);
        let path = self
            .inputs
            .iter()
            .find(|i| i.unit.span.file == span.file)
            .map(|i| i.path.to_string())
            .unwrap_or_else(|| file.path.to_string_lossy().replace('\\', "/"));
        SourceLocation {
            file: path,
            line: at.line,
            column: at.column,
        }
    }

    /// Argument names must stay unique after `[McpName]` and the naming policy.
    fn check_unique_names(&mut self, routine: &Routine, params: &[ToolParam]) {
        let mut seen: Vec<&ToolParam> = Vec::new();
        for param in params.iter().filter(|p| p.in_schema() || p.is_output()) {
            let span = routine
                .params
                .iter()
                .find(|p| p.name == param.name)
                .map(|p| p.name_span);
            let (message, help) = if param.is_output()
                && matches!(param.json_name.as_str(), "result" | "success")
            {
                (
                    format!(
                        "`{}` parameter `{}` of `{}` would be returned as `{}`, the key of the tool's result",
                        if param.mode == ParamMode::Var { "var" } else { "out" },
                        param.name, routine.name, param.json_name
                    ),
                    "give it another name with [McpName('name')]",
                )
            } else if let Some(first) = seen.iter().find(|p| p.json_name == param.json_name) {
                (
                    format!(
                        "parameters `{}` and `{}` of `{}` both become argument `{}`",
                        first.name, param.name, routine.name, param.json_name
                    ),
                    "argument names must be unique: give one of them another name with [McpName('name')]",
                )
            } else {
                seen.push(param);
                continue;
            };
            self.diagnostics
                .push(Diagnostic::error(message, span).with_help(help));
        }
    }

    pub(super) fn param(
        &mut self,
        unit: usize,
        routine: &Routine,
        param: &ast::Param,
        nil_names: &[(String, Span)],
        naming: ArgumentNaming,
    ) -> Option<ToolParam> {
        let json_name = self
            .name_attr(&param.attributes, unit)
            .unwrap_or_else(|| naming.apply(&param.name));
        let nil = find_attr(&param.attributes, "mcpnil").is_some()
            || nil_names
                .iter()
                .any(|(n, _)| n.eq_ignore_ascii_case(&param.name));
        if nil && matches!(param.mode, ParamMode::Var | ParamMode::Out) {
            self.unsupported(
                Unsupported::VarOut,
                format!(
                    "[McpNil] on `{}` parameter `{}` of `{}`",
                    if param.mode == ParamMode::Var {
                        "var"
                    } else {
                        "out"
                    },
                    param.name,
                    routine.name
                ),
                param.span,
            );
            return None;
        }
        let Some(ty) = &param.ty else {
            self.unsupported(
                Unsupported::Untyped,
                format!(
                    "parameter `{}` of `{}` has no type",
                    param.name, routine.name
                ),
                param.span,
            );
            return None;
        };
        let description = routine.doc.as_ref().and_then(|d| {
            d.params
                .iter()
                .find(|p| p.name.eq_ignore_ascii_case(&param.name))
                .map(|p| p.text.to_string())
                .filter(|t| !t.trim().is_empty())
        });
        if is_context_type(&ty.text) {
            if param.mode != ParamMode::Value && param.mode != ParamMode::Const {
                self.diagnostics.push(Diagnostic::error(
                    format!(
                        "the call context `{}` of `{}` is passed by value (or const), not var/out",
                        param.name, routine.name
                    ),
                    Some(param.span),
                ));
                return None;
            }
            return Some(ToolParam {
                name: param.name.to_string(),
                json_name: param.name.to_string(),
                mode: param.mode,
                delphi_type: ty.text.to_string(),
                resolved: Some(Resolved {
                    value: delphi_mcp_manifest::ValueType::Context,
                    conv: Conv::Context,
                    pascal_type: format!("{SUPPORT_UNIT}.TMcpContext"),
                }),
                default_pascal: None,
                default_json: None,
                description,
            });
        }
        let resolved = match self.env.resolve(ty, unit) {
            Ok(r) => {
                if nil {
                    self.diagnostics.push(Diagnostic::error(
                        format!(
                            "[McpNil] on parameter `{}`, whose type `{}` cannot be nil",
                            param.name, ty.text
                        ),
                        Some(param.name_span),
                    ));
                    return None;
                }
                Some(r)
            }
            Err(rejection) => {
                if nil && rejection.kind.nil_allowed() {
                    None
                } else {
                    self.type_error(
                        &format!("parameter `{}` of", param.name),
                        &routine.name,
                        ty.span,
                        &rejection,
                    );
                    return None;
                }
            }
        };
        let (default_pascal, default_json) = match &param.default {
            Some(expr) => {
                let json = resolved
                    .as_ref()
                    .and_then(|r| self.default_json(expr, unit, r));
                (Some(expr.text.to_string()), json)
            }
            None => (None, None),
        };
        Some(ToolParam {
            name: param.name.to_string(),
            json_name,
            mode: param.mode,
            delphi_type: ty.text.to_string(),
            resolved,
            default_pascal,
            default_json,
            description,
        })
    }

    pub(super) fn default_json(
        &self,
        expr: &ast::Expr,
        unit: usize,
        resolved: &Resolved,
    ) -> Option<serde_json::Value> {
        use delphi_mcp_manifest::ValueType;
        if let ValueType::Enum { members, .. } = &resolved.value {
            if let ast::ExprKind::Ident { name } = &expr.kind {
                let last = name.rsplit('.').next().unwrap_or(name);
                return members
                    .iter()
                    .find(|m| m.name.eq_ignore_ascii_case(last))
                    .map(|m| serde_json::Value::String(m.name.clone()));
            }
            return None;
        }
        let value = self.env.eval(expr, unit)?;
        match (&resolved.value, value) {
            (ValueType::Integer { min, max }, ConstValue::Int(i)) if i >= *min && i <= *max => {
                Some(crate::types::json_int(i))
            }
            (ValueType::Number { .. }, ConstValue::Int(i)) => {
                i64::try_from(i).ok().map(serde_json::Value::from)
            }
            (ValueType::Number { .. }, ConstValue::Real(r)) => {
                serde_json::Number::from_f64(r).map(serde_json::Value::Number)
            }
            (ValueType::Boolean, ConstValue::Bool(b)) => Some(serde_json::Value::Bool(b)),
            (ValueType::String { max_length, .. }, ConstValue::Str(s))
                if max_length.is_none_or(|m| s.chars().count() <= m as usize) =>
            {
                Some(serde_json::Value::String(s.into()))
            }
            (ValueType::Char { .. }, ConstValue::Str(s)) if s.chars().count() == 1 => {
                Some(serde_json::Value::String(s.into()))
            }
            _ => None,
        }
    }

    pub(super) fn unsupported(&mut self, kind: Unsupported, message: String, span: Span) {
        self.diagnostics
            .push(Diagnostic::error(message, Some(span)).with_help(kind.reason()));
    }

    pub(super) fn type_error(
        &mut self,
        what: &str,
        routine: &str,
        span: Span,
        rejection: &Rejection,
    ) {
        let mut message = format!(
            "{what} `{routine}` has type `{}`: {} are not supported",
            rejection.name,
            rejection.kind.what()
        );
        if rejection.kind == Unsupported::Unknown {
            message = format!(
                "{what} `{routine}` has type `{}`, which is not declared in any parsed unit and is not in the type table",
                rejection.name
            );
        }
        if let Some(detail) = &rejection.detail {
            message.push_str(&format!(" ({detail})"));
        }
        self.diagnostics
            .push(Diagnostic::error(message, Some(span)).with_help(rejection.kind.reason()));
    }
}
