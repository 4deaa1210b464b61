//! The JSON Schema of the manifest in `docs/manifest.md` names every field the generator writes
//! (checked against a serialized manifest with every kind of value type).

use delphi_mcp_manifest::abi::ABI_VERSION;
use delphi_mcp_manifest::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn doc_schema() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/manifest.md");
    let text = std::fs::read_to_string(path).expect("docs/manifest.md");
    let start = text
        .find("## JSON Schema of the manifest")
        .expect("schema section");
    let block = &text[start..];
    let open = block.find("```json\n").expect("json block") + 8;
    let close = block[open..].find("\n```").expect("block end") + open;
    serde_json::from_str(&block[open..close]).expect("the schema is valid JSON")
}

/// Every property name the schema allows (anywhere).
fn schema_keys(schema: &Value, keys: &mut BTreeSet<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                keys.extend(props.keys().cloned());
            }
            for v in map.values() {
                schema_keys(v, keys);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| schema_keys(v, keys)),
        _ => {}
    }
}

/// Every key of `value`, skipping the embedded JSON schemas (they are MCP's, not ours).
fn value_keys(value: &Value, keys: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                keys.insert(k.clone());
                if k != "inputSchema" && k != "outputSchema" && k != "default" {
                    value_keys(v, keys);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| value_keys(v, keys)),
        _ => {}
    }
}

fn param(name: &str, ty: ValueType) -> ParamEntry {
    ParamEntry {
        name: name.into(),
        delphi_type: "T".into(),
        ty,
        optional: true,
        default: Some(Value::from(1)),
    }
}

#[test]
fn the_documented_schema_covers_every_field() {
    let types = vec![
        ValueType::Integer { min: 0, max: 255 },
        ValueType::Number {
            repr: NumberRepr::Single,
        },
        ValueType::Boolean,
        ValueType::String {
            repr: StringRepr::Short { code_page: 0 },
            max_length: Some(5),
        },
        ValueType::String {
            repr: StringRepr::Ansi { code_page: 1252 },
            max_length: None,
        },
        ValueType::Char { wide: true },
        ValueType::DateTime {
            part: DateTimePart::Date,
        },
        ValueType::Enum {
            type_name: "TColor".into(),
            members: vec![EnumMemberEntry {
                name: "Red".into(),
                ordinal: 0,
            }],
        },
        ValueType::Record {
            type_name: "TPoint".into(),
            fields: vec![FieldEntry {
                name: "X".into(),
                description: Some("x".into()),
                ty: ValueType::Boolean,
            }],
        },
        ValueType::Array {
            items: Box::new(ValueType::Bytes),
            min_items: Some(3),
            max_items: Some(3),
        },
        ValueType::Set {
            type_name: "TColors".into(),
            members: vec![EnumMemberEntry {
                name: "Red".into(),
                ordinal: 0,
            }],
        },
        ValueType::Strings,
        ValueType::Json,
        ValueType::Context,
    ];
    let binding = |export: &str| DelphiBinding {
        export: export.into(),
        routine: "U.R".into(),
        call: CallKind::Routine,
        params: vec![param("Id", ValueType::Boolean)],
        result: Some(ValueType::Bytes),
        outputs: Vec::new(),
        json_arguments: false,
        content: None,
        source: SourceLocation {
            file: "U.pas".into(),
            line: 1,
            column: 1,
        },
    };
    let manifest = Manifest {
        format_version: MANIFEST_FORMAT_VERSION,
        abi_version: ABI_VERSION,
        name: "X".into(),
        target: "delphi12-win64".into(),
        generator: "delphi-mcp".into(),
        tools: vec![ToolEntry {
            name: "t".into(),
            title: Some("T".into()),
            description: "d".into(),
            input_schema: Value::Object(Default::default()).into(),
            output_schema: Some(Value::Object(Default::default()).into()),
            annotations: Some(ToolAnnotations {
                title: Some("T".into()),
                read_only_hint: Some(true),
                destructive_hint: Some(false),
                idempotent_hint: Some(true),
                open_world_hint: Some(false),
            }),
            delphi: DelphiBinding {
                export: "mcp_tool_t".into(),
                routine: "U.T".into(),
                call: CallKind::Instance {
                    resolver: "R".into(),
                    class: "C".into(),
                },
                params: types.into_iter().map(|t| param("P", t)).collect(),
                result: Some(ValueType::Boolean),
                outputs: vec![OutputEntry {
                    name: "Value".into(),
                    delphi_type: "Integer".into(),
                    ty: ValueType::Boolean,
                }],
                json_arguments: true,
                content: Some(ContentShape::Blocks),
                source: SourceLocation {
                    file: "U.pas".into(),
                    line: 1,
                    column: 1,
                },
            },
        }],
        resources: vec![ResourceEntry {
            uri: "test://r".into(),
            name: "r".into(),
            title: Some("R".into()),
            description: Some("d".into()),
            mime_type: Some("text/plain".into()),
            delphi: binding("mcp_resource_r"),
        }],
        resource_templates: vec![ResourceTemplateEntry {
            uri_template: "test://{Id}".into(),
            name: "t".into(),
            title: Some("T".into()),
            description: Some("d".into()),
            mime_type: Some("text/plain".into()),
            delphi: binding("mcp_template_t"),
        }],
        prompts: vec![PromptEntry {
            name: "p".into(),
            title: Some("P".into()),
            description: Some("d".into()),
            arguments: vec![PromptArgumentEntry {
                name: "Id".into(),
                description: Some("d".into()),
                required: true,
            }],
            delphi: binding("mcp_prompt_p"),
        }],
        completions: vec![CompletionEntry {
            name: "c".into(),
            target: CompletionTarget::Prompt { name: "p".into() },
            argument: "Id".into(),
            delphi: binding("mcp_complete_c"),
        }],
        help_documents: vec![documents::HelpDocumentEntry {
            name: "h".into(),
            title: Some("H".into()),
            description: Some("d".into()),
            text: "# H".into(),
        }],
        markdown_prompts: vec![documents::MarkdownPromptEntry {
            name: "m".into(),
            title: Some("M".into()),
            description: Some("d".into()),
            arguments: vec![PromptArgumentEntry {
                name: "a".into(),
                description: Some("d".into()),
                required: false,
            }],
            template: "{{a}}".into(),
        }],
    };
    let value = serde_json::to_value(&manifest).expect("serializes");
    let mut written = BTreeSet::new();
    value_keys(&value, &mut written);
    let mut documented = BTreeSet::new();
    schema_keys(&doc_schema(), &mut documented);
    let missing: Vec<_> = written.difference(&documented).collect();
    assert!(
        missing.is_empty(),
        "docs/manifest.md does not document {missing:?}"
    );
}
