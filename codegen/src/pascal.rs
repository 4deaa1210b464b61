//! Rendering of the Pascal side: the exports unit, the exports include, the library project
//! skeleton (templates in `templates/pascal/`, through [`crate::templates`]) and the fixed
//! units copied verbatim.

use crate::model::{Model, Tool};
use crate::resolve::{Conv, Resolved};
use crate::schema::export_symbol;
use crate::templates::{self, RenderError};
use delphi_mcp_manifest::Manifest;
use minijinja::context;
use minijinja::value::Serde;
use serde::Serialize;

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
    var: String,
    name_lit: String,
    pascal_type: String,
    conv: Conv,
    default: Option<String>,
}

#[derive(Serialize)]
struct ResultCtx {
    pascal_type: String,
    conv: Conv,
}

#[derive(Serialize)]
struct ToolCtx {
    name: String,
    ident: String,
    export: String,
    routine: String,
    source: String,
    temps: Vec<&'static str>,
    params: Vec<ParamCtx>,
    result: Option<ResultCtx>,
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
    let mut call_args = Vec::new();
    let mut temps: Vec<&'static str> = Vec::new();
    for (position, param) in tool.params.iter().enumerate() {
        match &param.resolved {
            Some(Resolved {
                conv, pascal_type, ..
            }) => {
                let var = format!("__McpA{position}");
                call_args.push(var.clone());
                let temp = temp_for(conv);
                if !temps.contains(&temp) {
                    temps.push(temp);
                }
                params.push(ParamCtx {
                    index: params.len(),
                    var,
                    name_lit: pascal_string(&param.name),
                    pascal_type: pascal_type.clone(),
                    conv: conv.clone(),
                    default: param.default_pascal.clone(),
                });
            }
            None => call_args.push("nil".to_string()),
        }
    }
    temps.sort_unstable();
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
        export: export_symbol(&tool.name),
        routine: tool.routine.clone(),
        source: format!(
            "{}:{}",
            tool.source.file.replace(['{', '}'], "_"),
            tool.source.line
        ),
        temps,
        params,
        result: tool.result.as_ref().map(|r| ResultCtx {
            pascal_type: r.pascal_type.clone(),
            conv: r.conv.clone(),
        }),
        instance_class: tool.instance_class.clone(),
        resolver_lit: resolver.as_deref().map(pascal_string),
        resolver,
        call,
    }
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
    let common = context! {
        generator => manifest.generator.clone(),
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
