//! JSON Schemas of tools (draft 2020-12) and the manifest built from the tool model.

use crate::model::{Model, Role, Tool};
use crate::types::json_schema;
use delphi_mcp_manifest::abi::ABI_VERSION;
use delphi_mcp_manifest::{
    CompletionEntry, DelphiBinding, Manifest, OutputEntry, ParamEntry, PromptArgumentEntry,
    PromptEntry, ResourceEntry, ResourceTemplateEntry, ToolEntry, MANIFEST_FORMAT_VERSION,
};
use serde_json::{json, Map, Value};

/// The JSON Schema dialect every schema declares.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The `inputSchema` of a tool: an object of its parameters, strict (a JSON handler's: the
/// schema its attribute gives).
pub fn input_schema(tool: &Tool) -> Value {
    if let Some(schema) = &tool.json_schema {
        return schema.clone();
    }
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in tool.params.iter().filter(|p| p.in_schema()) {
        let Some(resolved) = &param.resolved else {
            continue;
        };
        let mut schema = json_schema(&resolved.value);
        if let Value::Object(map) = &mut schema {
            if let Some(text) = &param.description {
                map.insert("description".into(), Value::String(text.clone()));
            }
            if let Some(default) = &param.default_json {
                map.insert("default".into(), default.clone());
            }
        }
        if param.default_pascal.is_none() {
            required.push(Value::String(param.json_name.clone()));
        }
        properties.insert(param.json_name.clone(), schema);
    }
    json!({
        "$schema": DIALECT,
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The `outputSchema` of a tool: `{"result": T}` for a function, `{"success": true}` for a
/// procedure, and beside either each `var`/`out` parameter.
pub fn output_schema(tool: &Tool) -> Value {
    let (key, schema) = match &tool.result {
        Some(result) => ("result", json_schema(&result.value)),
        None => ("success", json!({"const": true})),
    };
    let mut properties = Map::new();
    properties.insert(key.into(), schema);
    let mut required = vec![Value::String(key.into())];
    for param in tool.params.iter().filter(|p| p.is_output()) {
        if let Some(resolved) = &param.resolved {
            let mut schema = json_schema(&resolved.value);
            if let (Some(text), Value::Object(map)) = (&param.description, &mut schema) {
                map.insert("description".into(), Value::String(text.clone()));
            }
            properties.insert(param.json_name.clone(), schema);
            required.push(Value::String(param.json_name.clone()));
        }
    }
    json!({
        "$schema": DIALECT,
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The manifest of a model.
pub fn build_manifest(model: &Model, name: &str) -> Manifest {
    let mut manifest = Manifest {
        format_version: MANIFEST_FORMAT_VERSION,
        abi_version: ABI_VERSION,
        name: name.to_string(),
        target: model.target.clone(),
        generator: format!("delphi-mcp {}", env!("CARGO_PKG_VERSION")),
        tools: Vec::new(),
        resources: Vec::new(),
        resource_templates: Vec::new(),
        prompts: Vec::new(),
        completions: Vec::new(),
        help_documents: Vec::new(),
        markdown_prompts: Vec::new(),
    };
    for tool in &model.tools {
        let delphi = binding(tool);
        let description = (!tool.description.trim().is_empty()).then(|| tool.description.clone());
        match &tool.role {
            Role::Tool => manifest.tools.push(ToolEntry {
                name: tool.name.clone(),
                title: tool.title.clone(),
                description: tool.description.clone(),
                input_schema: input_schema(tool).into(),
                output_schema: tool.content.is_none().then(|| output_schema(tool).into()),
                annotations: tool.annotations.clone(),
                delphi,
            }),
            Role::Resource { uri, mime_type } => manifest.resources.push(ResourceEntry {
                uri: uri.clone(),
                name: tool.name.clone(),
                title: tool.title.clone(),
                description,
                mime_type: mime_type.clone(),
                delphi,
            }),
            Role::ResourceTemplate {
                uri_template,
                mime_type,
            } => manifest.resource_templates.push(ResourceTemplateEntry {
                uri_template: uri_template.clone(),
                name: tool.name.clone(),
                title: tool.title.clone(),
                description,
                mime_type: mime_type.clone(),
                delphi,
            }),
            Role::Prompt => manifest.prompts.push(PromptEntry {
                name: tool.name.clone(),
                title: tool.title.clone(),
                description,
                arguments: tool
                    .params
                    .iter()
                    .filter(|p| p.in_schema())
                    .map(|p| PromptArgumentEntry {
                        name: p.json_name.clone(),
                        description: p.description.clone(),
                        required: p.default_pascal.is_none(),
                    })
                    .collect(),
                delphi,
            }),
            Role::Completion { target, argument } => manifest.completions.push(CompletionEntry {
                name: tool.name.clone(),
                target: target.clone(),
                argument: argument.clone(),
                delphi,
            }),
        }
    }
    manifest
}

/// How the runtime calls an entry.
fn binding(tool: &Tool) -> DelphiBinding {
    DelphiBinding {
        export: export_symbol_of(&tool.role, &tool.name),
        routine: tool.routine.clone(),
        call: tool.call.clone(),
        params: tool
            .params
            .iter()
            .filter(|p| p.in_abi() && tool.json_schema.is_none())
            .filter_map(|p| {
                p.resolved.as_ref().map(|r| ParamEntry {
                    name: p.json_name.clone(),
                    delphi_type: p.delphi_type.clone(),
                    ty: r.value.clone(),
                    optional: p.default_pascal.is_some(),
                    default: p.default_json.clone(),
                })
            })
            .collect(),
        result: tool.result.as_ref().map(|r| r.value.clone()),
        outputs: tool
            .params
            .iter()
            .filter(|p| p.is_output())
            .filter_map(|p| {
                p.resolved.as_ref().map(|r| OutputEntry {
                    name: p.json_name.clone(),
                    delphi_type: p.delphi_type.clone(),
                    ty: r.value.clone(),
                })
            })
            .collect(),
        json_arguments: tool.json_schema.is_some(),
        content: tool.content,
        source: tool.source.clone(),
    }
}

/// The exported symbol of a tool's stub: `mcp_tool_` + the tool name (tool names are unique
/// and their characters are valid in ELF, Mach-O and PE export names).
pub fn export_symbol(tool_name: &str) -> String {
    export_symbol_of(&Role::Tool, tool_name)
}

/// The exported symbol of an entry's stub: the role's prefix ([`Role::export_prefix`]) + its
/// name (unique within the role).
pub fn export_symbol_of(role: &Role, name: &str) -> String {
    format!("{}{name}", role.export_prefix())
}

/// The manifest as pretty JSON with a final newline (deterministic: field order is fixed by the
/// types, tools are sorted by name, properties follow declaration order).
pub fn manifest_json(manifest: &Manifest) -> String {
    let mut text = serde_json::to_string_pretty(manifest).unwrap_or_default();
    text.push('\n');
    text
}
