//! JSON handlers, the escape hatch: `function X(const Args: TJSONObject): TJSONValue` (System.JSON
//! under Delphi, fpjson's `TJSONData` under Free Pascal) with its input schema from
//! `[McpInputSchema('{...}')]` or `[McpSchemaFile('file.json')]` (relative to the unit). The
//! runtime checks the arguments against that schema before the call.

use super::attributes::find_attr;
use super::{Builder, ToolParam};
use crate::resolve::{Conv, Resolved};
use delphi_mcp_manifest::json_schema::unsupported_keyword;
use delphi_mcp_manifest::ValueType;
use delphi_mcp_parser::ast::{ParamMode, Routine};
use delphi_mcp_parser::Diagnostic;

/// The result types a JSON handler may declare, and the stub's variable type for each.
const RESULT_TYPES: &[(&str, &str)] = &[
    (
        "TJSONValue",
        "{$IFDEF FPC}TJSONData{$ELSE}TJSONValue{$ENDIF}",
    ),
    (
        "TJSONData",
        "{$IFDEF FPC}TJSONData{$ELSE}TJSONValue{$ENDIF}",
    ),
    ("TJSONObject", "TJSONObject"),
];

fn last(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

impl Builder<'_> {
    /// The input schema a JSON handler's attribute gives, checked: a JSON object of type
    /// `object` using only the keywords the runtime checks. `None` when the routine is no JSON
    /// handler (or the schema is wrong, with a diagnostic).
    pub(super) fn json_schema(
        &mut self,
        unit: usize,
        routine: &Routine,
    ) -> Option<serde_json::Value> {
        let inline = find_attr(&routine.attributes, "mcpinputschema");
        let file = find_attr(&routine.attributes, "mcpschemafile");
        let (attr, text) = match (inline, file) {
            (None, None) => return None,
            (Some(attr), None) => (attr, self.string_args(attr, unit, 1, 1)?.pop()?),
            (None, Some(attr)) => {
                let name = self.string_args(attr, unit, 1, 1)?.pop()?;
                let source = self.db.get(attr.span.file);
                let path = source
                    .path
                    .parent()
                    .map(|dir| dir.join(&name))
                    .unwrap_or_else(|| name.clone().into());
                match std::fs::read_to_string(&path) {
                    Ok(text) => (attr, text),
                    Err(e) => {
                        self.diagnostics.push(Diagnostic::error(
                            format!("the schema file `{name}` cannot be read: {e}"),
                            Some(attr.span),
                        ));
                        return None;
                    }
                }
            }
            (Some(attr), Some(_)) => {
                self.diagnostics.push(Diagnostic::error(
                    "give the input schema once: [McpInputSchema] or [McpSchemaFile], not both",
                    Some(attr.span),
                ));
                return None;
            }
        };
        let mut error = |message: String| {
            self.diagnostics.push(
                Diagnostic::error(message, Some(attr.span)).with_help(
                    "an input schema is a JSON object with \"type\": \"object\", using only the keywords listed in docs/types.md (JSON handlers)",
                ),
            );
            None
        };
        let schema: serde_json::Value = match serde_json::from_str(&text) {
            Ok(schema) => schema,
            Err(e) => return error(format!("the input schema is not JSON: {e}")),
        };
        if schema.get("type").and_then(|t| t.as_str()) != Some("object") {
            return error("the input schema must have \"type\": \"object\"".into());
        }
        if let Some((path, keyword)) = unsupported_keyword(&schema, "$") {
            return error(format!(
                "the input schema uses `{keyword}` (at {path}), which the runtime does not check"
            ));
        }
        let mut schema = schema;
        if let Some(map) = schema.as_object_mut() {
            if !map.contains_key("$schema") {
                let mut with = serde_json::Map::new();
                with.insert("$schema".into(), crate::schema::DIALECT.into());
                with.extend(std::mem::take(map));
                *map = with;
            }
        }
        Some(schema)
    }

    /// The one `TJSONObject` parameter and the result of a JSON handler.
    pub(super) fn json_handler(&mut self, routine: &Routine) -> Option<(ToolParam, Resolved)> {
        let fail = |builder: &mut Self, message: String| {
            builder.diagnostics.push(
                Diagnostic::error(message, Some(routine.name_span)).with_help(
                    "a JSON handler is `function X(const Args: TJSONObject): TJSONValue` (TJSONData under Free Pascal)",
                ),
            );
            None
        };
        let [param] = routine.params.as_slice() else {
            return fail(
                self,
                format!(
                    "JSON handler `{}` must take exactly one parameter",
                    routine.name
                ),
            );
        };
        let param_ok = param
            .ty
            .as_ref()
            .is_some_and(|t| last(&t.text).eq_ignore_ascii_case("TJSONObject"))
            && matches!(param.mode, ParamMode::Value | ParamMode::Const);
        if !param_ok {
            return fail(
                self,
                format!(
                    "the parameter of JSON handler `{}` must be `const {}: TJSONObject`",
                    routine.name, param.name
                ),
            );
        }
        let Some(result) = routine.result.as_ref().and_then(|t| {
            RESULT_TYPES
                .iter()
                .find(|(name, _)| last(&t.text).eq_ignore_ascii_case(name))
        }) else {
            return fail(
                self,
                format!(
                    "JSON handler `{}` must be a function returning TJSONValue",
                    routine.name
                ),
            );
        };
        let param = ToolParam {
            name: param.name.to_string(),
            json_name: "arguments".into(),
            mode: param.mode,
            delphi_type: "TJSONObject".into(),
            resolved: Some(Resolved {
                value: ValueType::Json,
                conv: Conv::JsonObject,
                pascal_type: "TJSONObject".into(),
            }),
            default_pascal: None,
            default_json: None,
            description: None,
        };
        let result = Resolved {
            value: ValueType::Json,
            conv: Conv::JsonValue,
            pascal_type: result.1.into(),
        };
        Some((param, result))
    }
}
