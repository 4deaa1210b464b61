//! Rendering of the Pascal side: the exports unit, the exports include, the library project
//! skeleton (templates in `templates/pascal/`, through [`crate::templates`]) and the fixed
//! units copied verbatim.

mod steps;

use crate::model::{Model, Tool};
use crate::resolve::{Conv, Resolved};
use crate::schema::export_symbol_of;
use crate::templates::{self, RenderError};
use delphi_mcp_manifest::Manifest;
use delphi_mcp_parser::ast::ParamMode;
use minijinja::context;
use minijinja::value::Serde;
use serde::Serialize;
use steps::{Step, Steps};

/// The generated exports unit.
pub const EXPORTS_UNIT: &str = "McpExports.pas";
/// The generated include with the `exports` clause, for the library file.
pub const EXPORTS_INCLUDE: &str = "McpExports.inc";

/// The fixed units written next to the stubs, copied verbatim from `templates/pascal/`: the
/// support unit of the stubs and the attribute classes users compile their annotated units with.
pub const SUPPORT_UNITS: [&str; 2] = ["McpRuntime.pas", "McpAttributes.pas"];

/// The text of a fixed unit of [`SUPPORT_UNITS`].
pub fn support_unit(file: &str) -> &'static str {
    templates::verbatim(&format!("pascal/{file}")).unwrap_or_default()
}

#[derive(Serialize)]
struct ParamCtx {
    index: usize,
    src: &'static str,
    at: String,
    var: String,
    name_lit: String,
    pascal_type: String,
    conv: Conv,
    default: Option<String>,
    /// ABI 2: how a composite argument is read (instead of `get`).
    steps: Option<Vec<Step>>,
}

#[derive(Serialize)]
struct ResultCtx {
    pascal_type: String,
    conv: Conv,
    dest: &'static str,
    src: &'static str,
}

#[derive(Serialize)]
struct LocalCtx {
    var: String,
    pascal_type: String,
}

#[derive(Serialize)]
struct ToolCtx {
    name: String,
    ident: String,
    export: String,
    routine: String,
    source: String,
    temps: Vec<String>,
    params: Vec<ParamCtx>,
    locals: Vec<LocalCtx>,
    result: Option<ResultCtx>,
    /// ABI 2: how a composite result or the out record of `var`/`out` parameters is written
    /// (instead of `put`).
    result_steps: Option<Vec<Step>>,
    /// Lines before `try` (writer and list initialisation) and in `finally` (their release).
    prologue: Vec<String>,
    epilogue: Vec<String>,
    instance_class: Option<String>,
    resolver: Option<String>,
    resolver_lit: Option<String>,
    call: String,
}

/// A Pascal string literal for `text` (quotes doubled, control and non-ASCII characters as
/// `#N` so the generated file stays ASCII).
pub fn pascal_string(text: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in text.chars() {
        if (' '..='~').contains(&c) {
            if !quoted {
                out.push('\'');
                quoted = true;
            }
            if c == '\'' {
                out.push('\'');
            }
            out.push(c);
        } else {
            if quoted {
                out.push('\'');
                quoted = false;
            }
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("#{unit}"));
            }
        }
    }
    if quoted {
        out.push('\'');
    }
    if out.is_empty() {
        out.push_str("''");
    }
    out
}

fn temp_for(conv: &Conv) -> &'static str {
    match conv {
        // Composites declare their own temporaries (`steps`).
        Conv::Record { .. }
        | Conv::Array { .. }
        | Conv::Set { .. }
        | Conv::Bytes
        | Conv::Strings { .. } => "__McpC: Integer",
        Conv::JsonObject | Conv::JsonValue => "__McpR: RawByteString",
        Conv::Context => "__McpP: Pointer",
        Conv::Int | Conv::Enum | Conv::Comp => "__McpI: Int64",
        Conv::Uint => "__McpU: UInt64",
        Conv::Double | Conv::Single | Conv::Currency | Conv::DateTime => "__McpD: Double",
        Conv::Bool => "__McpB: Boolean",
        Conv::Utf16 => "__McpS: UnicodeString",
        Conv::Utf8 | Conv::Ansi { .. } | Conv::Short => "__McpR: RawByteString",
        Conv::WideChar => "__McpW: WideChar",
        Conv::AnsiChar => "__McpC: AnsiChar",
    }
}

fn tool_ctx(index: usize, tool: &Tool) -> ToolCtx {
    let mut params = Vec::new();
    let mut locals = Vec::new();
    let mut call_args = Vec::new();
    let mut temps: Vec<String> = Vec::new();
    let mut outputs: Vec<(&Resolved, String)> = Vec::new();
    let mut prologue = Vec::new();
    let mut epilogue = Vec::new();
    for (position, param) in tool.params.iter().enumerate() {
        let Some(resolved) = &param.resolved else {
            call_args.push("nil".to_string());
            continue;
        };
        let Resolved {
            conv, pascal_type, ..
        } = resolved;
        let var = format!("__McpA{position}");
        call_args.push(var.clone());
        locals.push(LocalCtx {
            var: var.clone(),
            pascal_type: pascal_type.clone(),
        });
        if matches!(
            conv,
            Conv::Strings { .. } | Conv::JsonObject | Conv::Context
        ) {
            prologue.push(format!("{var} := nil;"));
            epilogue.push(format!("{var}.Free;"));
        }
        if matches!(param.mode, ParamMode::Var | ParamMode::Out) {
            outputs.push((resolved, var.clone()));
        }
        if param.mode == ParamMode::Out {
            continue;
        }
        let mut steps = None;
        if *conv == Conv::Context {
            let mut read = Steps::default();
            read.read_context(params.len(), &var, pascal_type);
            temps.push(temp_for(conv).to_string());
            steps = Some(read.steps);
        } else if *conv == Conv::JsonObject {
            let mut read = Steps::default();
            read.read_json_arguments(params.len(), &var);
            temps.push(temp_for(conv).to_string());
            steps = Some(read.steps);
        } else if conv.is_composite() {
            let mut read = Steps::default();
            read.read_argument(resolved, params.len(), &var, &param.json_name);
            temps.extend(read.temps);
            steps = Some(read.steps);
        } else {
            temps.push(temp_for(conv).to_string());
        }
        params.push(ParamCtx {
            index: params.len(),
            src: "__McpArgs",
            at: params.len().to_string(),
            var,
            name_lit: pascal_string(&param.json_name),
            pascal_type: pascal_type.clone(),
            conv: conv.clone(),
            default: param.default_pascal.clone(),
            steps,
        });
    }
    let mut result_steps = None;
    let composite_result = tool.result.as_ref().filter(|r| r.conv.is_composite());
    if !outputs.is_empty() || composite_result.is_some() {
        let mut write = Steps::default();
        if outputs.is_empty() {
            if let Some(result) = composite_result {
                write.write_result(result, "__McpRes");
            }
        } else {
            let mut values: Vec<(&Resolved, String)> = Vec::new();
            if let Some(result) = &tool.result {
                values.push((result, "__McpRes".into()));
            }
            values.extend(outputs);
            write.write_out_record(&values);
        }
        if uses_writer(&write) {
            temps.push("__McpW: __TMcpWriter".into());
            prologue.push("__McpWInit(__McpW);".into());
            epilogue.push("if __McpW.Buf <> nil then".into());
            epilogue.push("  __McpWFree(__McpW);".into());
        }
        temps.extend(write.temps);
        result_steps = Some(write.steps);
    }
    if let Some(result) = &tool.result {
        if matches!(result.conv, Conv::Strings { .. }) {
            // The stub owns a TStrings result: it frees it after copying.
            prologue.push("__McpRes := nil;".into());
            epilogue.push("__McpRes.Free;".into());
        }
        if result.conv == Conv::JsonValue {
            // The handler hands its result over: the stub frees it after writing its text,
            // unless it is the arguments object (freed once, as the argument).
            let mut write = Steps::default();
            write.write_json_result();
            temps.push(temp_for(&result.conv).to_string());
            result_steps = Some(write.steps);
            prologue.push("__McpRes := nil;".into());
            epilogue.push("if TObject(__McpRes) <> TObject(__McpA0) then".into());
            epilogue.push("  __McpRes.Free;".into());
        }
    }
    temps.sort_unstable();
    temps.dedup();
    let callee = match &tool.instance_class {
        Some(_) => format!("__McpObj.{}", tool.callee),
        None => tool.callee.clone(),
    };
    let call = if call_args.is_empty() {
        callee
    } else {
        format!("{callee}({})", call_args.join(", "))
    };
    let resolver = match &tool.call {
        delphi_mcp_manifest::CallKind::Instance { resolver, .. } => Some(resolver.clone()),
        _ => None,
    };
    ToolCtx {
        name: tool.name.clone(),
        ident: format!("__McpTool{}", index + 1),
        export: export_symbol_of(&tool.role, &tool.name),
        routine: tool.routine.clone(),
        source: format!(
            "{}:{}",
            tool.source.file.replace(['{', '}'], "_"),
            tool.source.line
        ),
        temps,
        params,
        locals,
        result: tool.result.as_ref().map(|r| ResultCtx {
            pascal_type: r.pascal_type.clone(),
            conv: r.conv.clone(),
            dest: "__McpOut",
            src: "__McpRes",
        }),
        result_steps,
        prologue,
        epilogue,
        instance_class: tool.instance_class.clone(),
        resolver_lit: resolver.as_deref().map(pascal_string),
        resolver,
        call,
    }
}

/// Whether written steps use the block writer (everything but a bare `TBytes` result).
fn uses_writer(steps: &Steps) -> bool {
    steps.steps.iter().any(|s| match s {
        Step::Line { text } => text.contains("__McpW"),
        _ => false,
    })
}

fn manifest_bytes(json: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let bytes = json.as_bytes();
    let mut out = String::with_capacity(bytes.len() * 5 + bytes.len() / 16 * 6);
    for (i, chunk) in bytes.chunks(16).enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        out.push_str("    ");
        for (j, b) in chunk.iter().enumerate() {
            if j > 0 {
                out.push_str(", ");
            }
            out.push('$');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}

/// A UTF-8 byte-order mark when `text` is not ASCII (Delphi reads BOM-less files as ANSI).
fn with_bom(text: String) -> String {
    if text.is_ascii() {
        text
    } else {
        format!("\u{feff}{text}")
    }
}

/// The rendered stub files.
#[derive(Debug, Clone)]
pub struct PascalFiles {
    /// `McpExports.pas`: the exports unit.
    pub exports_unit: String,
    /// `McpExports.inc`: the `exports` clause for the library file.
    pub exports_include: String,
}

/// Renders the exports unit and include of `model`, embedding `manifest` (as compact JSON).
pub fn render_stubs(model: &Model, manifest: &Manifest) -> Result<PascalFiles, RenderError> {
    let tools: Vec<ToolCtx> = model
        .tools
        .iter()
        .enumerate()
        .map(|(i, t)| tool_ctx(i, t))
        .collect();
    // Units the stubs of composite values name types of (before the user units, whose
    // identifiers must win).
    let convs: Vec<&Conv> = model
        .tools
        .iter()
        .flat_map(|t| {
            t.params
                .iter()
                .filter_map(|p| p.resolved.as_ref())
                .chain(&t.result)
        })
        .map(|r| &r.conv)
        .collect();
    let mut support_uses = Vec::new();
    if convs.iter().any(|c| c.is_composite()) {
        support_uses.push("{$IFDEF FPC}SysUtils{$ELSE}System.SysUtils{$ENDIF}");
    }
    if convs.iter().any(|c| matches!(c, Conv::Strings { .. })) {
        support_uses.push("{$IFDEF FPC}Classes{$ELSE}System.Classes{$ENDIF}");
    }
    if convs.iter().any(|c| **c == Conv::JsonObject) {
        support_uses.push("{$IFDEF FPC}fpjson, jsonparser{$ELSE}System.JSON{$ENDIF}");
    }
    // The call context and the content records are declared there.
    let support_prefix = format!("{}.", crate::model::SUPPORT_UNIT);
    if model.tools.iter().any(|t| {
        t.params
            .iter()
            .filter_map(|p| p.resolved.as_ref())
            .chain(&t.result)
            .any(|r| r.pascal_type.starts_with(&support_prefix))
    }) {
        support_uses.push(crate::model::SUPPORT_UNIT);
    }
    let common = context! {
        generator => manifest.generator.clone(),
        support_uses => support_uses,
        abi_version => manifest.abi_version,
        units => model.units.clone(),
        tools => Serde(tools),
        bom => "",
    };
    // The embedded copy is compact: it is read by programs only.
    let compact = serde_json::to_string(manifest).unwrap_or_default();
    let exports_unit = templates::render(
        "pascal/McpExports.pas.j2",
        context! {
            manifest_len => compact.len(),
            manifest_bytes => manifest_bytes(&compact),
            ..common.clone()
        },
    )?;
    let exports_include = templates::render("pascal/McpExports.inc.j2", common)?;
    Ok(PascalFiles {
        exports_unit: with_bom(exports_unit),
        exports_include: with_bom(exports_include),
    })
}

/// One unit listed in a generated library project.
#[derive(Debug, Clone, Serialize)]
pub struct LibraryUnit {
    /// The unit name.
    pub name: String,
    /// Its path relative to the project file, with `/` separators.
    pub path: String,
}

/// Renders a library project file (`.dpr`) using `units` and the generated files in
/// `generated_dir` (relative to the project, `/` separators).
pub fn render_library(
    library_name: &str,
    units: &[LibraryUnit],
    generated_dir: &str,
) -> Result<String, RenderError> {
    let text = templates::render(
        "pascal/library.dpr.j2",
        context! {
            generator => format!("delphi-mcp {}", env!("CARGO_PKG_VERSION")),
            library_name => library_name,
            units => Serde(units),
            generated_dir => generated_dir,
            bom => "",
        },
    )?;
    Ok(with_bom(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_bytes_are_hex_lines_of_sixteen() {
        let text = manifest_bytes(&"A".repeat(17));
        assert_eq!(text.lines().count(), 2);
        assert!(text.starts_with("    $41, $41,"));
        assert!(text.ends_with(",\n    $41"));
    }

    #[test]
    fn pascal_strings_escape_quotes_and_non_ascii() {
        assert_eq!(pascal_string("it's"), "'it''s'");
        assert_eq!(pascal_string(""), "''");
        assert_eq!(pascal_string("é!"), "#233'!'");
        assert_eq!(pascal_string("😀"), "#55357#56832");
    }
}
