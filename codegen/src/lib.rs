//! Code generation of delphi-mcp: from parsed units to the tool model, strict JSON schemas, the
//! tool manifest and the Pascal marshalling stubs.
//!
//! The pipeline: [`model::build_model`] reads the `[McpTool]` routines of the units and
//! resolves their types through the type table ([`types`]); [`schema::build_manifest`] derives
//! the manifest with the JSON schemas; [`pascal::render_stubs`] renders the Pascal exports unit
//! and include. [`generate`] runs all three.
//!
//! Around it: [`frontend`] reads unit files into that pipeline (the one front end of the CLI,
//! build scripts through [`Builder`] and the `bind!` macro), [`project`] builds a library
//! project with Free Pascal, and [`templates`] holds every template of `templates/`.

#![warn(missing_docs)]

pub mod builder;
pub mod documents;
pub mod frontend;
mod inputs;
pub mod model;
pub mod pascal;
pub mod project;
pub mod resolve;
pub mod schema;
pub mod templates;
pub mod types;

use delphi_mcp_manifest::Manifest;
use delphi_mcp_parser::{Diagnostic, SourceDb};
use std::collections::BTreeMap;
use types::Target;

pub use builder::Builder;
/// The naming policies of [`Builder::naming`] (`--naming`), so a build script needs no other crate.
pub use delphi_mcp_manifest::naming::ArgumentNaming;
pub use documents::Documents;
pub use model::UnitInput;

/// Name of the manifest file `gen` writes.
pub const MANIFEST_FILE: &str = "tools.json";

/// What [`generate`] produces.
#[derive(Debug)]
pub struct Generated {
    /// The manifest.
    pub manifest: Manifest,
    /// File name → content of every generated file (`tools.json`, `McpExports.pas`,
    /// `McpExports.inc`, `McpRuntime.pas`, `McpAttributes.pas`).
    pub files: BTreeMap<String, String>,
}

/// The outcome of a generation run: the output when there was no error, and all diagnostics.
#[derive(Debug)]
pub struct Outcome<T> {
    /// The output; `None` when a diagnostic is an error.
    pub output: Option<T>,
    /// Every error and warning of the run.
    pub diagnostics: Vec<Diagnostic>,
}

/// Errors that are not about the input.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// A template failed to render.
    #[error(transparent)]
    Render(#[from] templates::RenderError),
}

/// Builds the manifest of `inputs` (no stubs).
pub fn manifest_of(
    db: &SourceDb,
    inputs: &[UnitInput<'_>],
    target: &Target,
    name: &str,
) -> Outcome<Manifest> {
    manifest_with(db, inputs, target, name, model::ModelOptions::default())
}

/// [`manifest_of`] with model options (`--naming`).
pub fn manifest_with(
    db: &SourceDb,
    inputs: &[UnitInput<'_>],
    target: &Target,
    name: &str,
    options: model::ModelOptions,
) -> Outcome<Manifest> {
    manifest_documented(db, inputs, target, name, options, &Documents::default())
}

/// [`manifest_with`] with the project's Markdown documents.
pub fn manifest_documented(
    db: &SourceDb,
    inputs: &[UnitInput<'_>],
    target: &Target,
    name: &str,
    options: model::ModelOptions,
    documents: &Documents,
) -> Outcome<Manifest> {
    let (outcome, manifest) = model_and_manifest(db, inputs, target, name, options, documents);
    Outcome {
        output: manifest,
        diagnostics: outcome.diagnostics,
    }
}

/// The model of `inputs` and, when it has no error, its manifest with `documents`.
fn model_and_manifest(
    db: &SourceDb,
    inputs: &[UnitInput<'_>],
    target: &Target,
    name: &str,
    options: model::ModelOptions,
    documents: &Documents,
) -> (model::ModelOutcome, Option<Manifest>) {
    let outcome = model::build_model_with(db, inputs, target, options);
    let failed = outcome.diagnostics.iter().any(Diagnostic::is_error);
    let manifest = (!failed).then(|| {
        let mut manifest = schema::build_manifest(&outcome.model, name);
        documents.apply(&mut manifest);
        manifest
    });
    (outcome, manifest)
}

/// Builds the manifest and renders every generated file of `inputs`.
pub fn generate(
    db: &SourceDb,
    inputs: &[UnitInput<'_>],
    target: &Target,
    name: &str,
) -> Result<Outcome<Generated>, GenerateError> {
    generate_with(db, inputs, target, name, model::ModelOptions::default())
}

/// [`generate`] with model options (`--naming`).
pub fn generate_with(
    db: &SourceDb,
    inputs: &[UnitInput<'_>],
    target: &Target,
    name: &str,
    options: model::ModelOptions,
) -> Result<Outcome<Generated>, GenerateError> {
    generate_documented(db, inputs, target, name, options, &Documents::default())
}

/// [`generate_with`] with the project's Markdown documents (embedded in the manifest).
pub fn generate_documented(
    db: &SourceDb,
    inputs: &[UnitInput<'_>],
    target: &Target,
    name: &str,
    options: model::ModelOptions,
    documents: &Documents,
) -> Result<Outcome<Generated>, GenerateError> {
    let (outcome, manifest) = model_and_manifest(db, inputs, target, name, options, documents);
    let Some(manifest) = manifest else {
        return Ok(Outcome {
            output: None,
            diagnostics: outcome.diagnostics,
        });
    };
    let json = schema::manifest_json(&manifest);
    let stubs = pascal::render_stubs(&outcome.model, &manifest)?;
    let mut files = BTreeMap::new();
    files.insert(MANIFEST_FILE.to_string(), json);
    files.insert(pascal::EXPORTS_UNIT.to_string(), stubs.exports_unit);
    files.insert(pascal::EXPORTS_INCLUDE.to_string(), stubs.exports_include);
    for unit in pascal::SUPPORT_UNITS {
        files.insert(unit.to_string(), pascal::support_unit(unit).to_string());
    }
    Ok(Outcome {
        output: Some(Generated { manifest, files }),
        diagnostics: outcome.diagnostics,
    })
}

#[cfg(test)]
mod testkit;

#[cfg(test)]
mod tests {
    use super::*;
    use delphi_mcp_parser::ast::{Decl, EnumMember, EnumType, TypeDef, TypeSection};

    /// The ABI fixture unit (`tests/fixtures/abi/AbiFixture.pas`) as a hand-built tree.
    fn abi_fixture(kit: &testkit::Kit) -> delphi_mcp_parser::ast::Unit {
        let tool = || vec![kit.attr("McpTool", &[])];
        let mut decls = Vec::new();
        let k = kit;
        let members = vec![
            EnumMember {
                name: "Red".into(),
                value: None,
                span: k.span,
            },
            EnumMember {
                name: "Green".into(),
                value: None,
                span: k.span,
            },
            EnumMember {
                name: "Blue".into(),
                value: Some(k.expr_int(5)),
                span: k.span,
            },
        ];
        let cp_string = |name: &str, cp: i128| delphi_mcp_parser::ast::TypeRef {
            kind: delphi_mcp_parser::ast::TypeRefKind::CodePageString {
                name: name.into(),
                code_page: Box::new(k.expr_int(cp)),
            },
            text: format!("AnsiString({cp})").into(),
            span: k.span,
        };
        let short = delphi_mcp_parser::ast::TypeRef {
            kind: delphi_mcp_parser::ast::TypeRefKind::ShortString {
                length: Box::new(k.expr_int(5)),
            },
            text: "String[5]".into(),
            span: k.span,
        };
        decls.push(Decl::Type(TypeSection {
            items: vec![
                k.type_decl("TColor", TypeDef::Enum(EnumType { members })),
                k.type_decl(
                    "TPercent",
                    TypeDef::Subrange {
                        low: k.expr_int(0),
                        high: k.expr_int(100),
                    },
                ),
                k.type_decl(
                    "TShort5",
                    TypeDef::Alias {
                        target: short,
                        distinct: false,
                    },
                ),
                k.type_decl(
                    "TLatin",
                    TypeDef::Alias {
                        target: cp_string("AnsiString", 1252),
                        distinct: true,
                    },
                ),
                k.type_decl(
                    "TAge",
                    TypeDef::Alias {
                        target: k.ty("Integer"),
                        distinct: true,
                    },
                ),
            ],
            span: k.span,
        }));
        let echo = [
            "ShortInt",
            "Byte",
            "SmallInt",
            "Word",
            "Integer",
            "Cardinal",
            "Int64",
            "UInt64",
            "NativeInt",
            "NativeUInt",
            "LongInt",
            "LongWord",
            "FixedInt",
            "FixedUInt",
            "Single",
            "Double",
            "Real",
            "Extended",
            "Currency",
            "Comp",
            "Boolean",
            "LongBool",
            "String",
            "WideString",
            "Utf8",
            "Ansi",
            "Latin",
            "ShortString",
            "Short5",
            "Char",
            "AnsiChar",
            "DateTime",
            "Color",
            "Percent",
            "Age",
        ];
        for suffix in echo {
            let ty = match suffix {
                "String" => "string",
                "Utf8" => "UTF8String",
                "Ansi" => "AnsiString",
                "Latin" => "TLatin",
                "Short5" => "TShort5",
                "DateTime" => "TDateTime",
                "Color" => "TColor",
                "Percent" => "TPercent",
                "Age" => "TAge",
                other => other,
            };
            decls.push(Decl::Routine(k.routine(
                &format!("Echo{suffix}"),
                vec![k.param("V", ty, None)],
                Some(ty),
                tool(),
            )));
        }
        decls.push(Decl::Routine(k.routine(
            "AddDefault",
            vec![
                k.param("A", "Integer", None),
                k.param("B", "Integer", Some(k.expr_int(10))),
            ],
            Some("Integer"),
            tool(),
        )));
        decls.push(Decl::Routine(k.routine(
            "Utf16Length",
            vec![k.param("V", "string", None)],
            Some("Integer"),
            tool(),
        )));
        decls.push(Decl::Routine(k.routine("DoNothing", vec![], None, tool())));
        decls.push(Decl::Routine(k.routine(
            "RaiseMessage",
            vec![k.param("Msg", "string", None)],
            Some("Integer"),
            tool(),
        )));
        decls.push(Decl::Routine(k.routine(
            "NilDereference",
            vec![k.param("Offset", "Integer", None)],
            Some("Integer"),
            tool(),
        )));
        decls.push(Decl::Routine(k.routine(
            "DivideIntegers",
            vec![k.param("A", "Integer", None), k.param("B", "Integer", None)],
            Some("Integer"),
            tool(),
        )));
        decls.push(Decl::Routine(k.routine(
            "DivideFloats",
            vec![k.param("A", "Double", None), k.param("B", "Double", None)],
            Some("Double"),
            tool(),
        )));
        decls.push(Decl::Routine(k.routine(
            "NotANumber",
            vec![],
            Some("Double"),
            tool(),
        )));
        k.unit("AbiFixture", decls)
    }

    #[test]
    fn abi_fixture_generates_every_file() {
        let kit = testkit::Kit::new("unit AbiFixture;\n");
        let unit = abi_fixture(&kit);
        let inputs = [UnitInput {
            unit: &unit,
            path: "AbiFixture.pas",
        }];
        let outcome =
            generate(&kit.db, &inputs, &types::Target::default(), "AbiFixture").expect("renders");
        let errors: Vec<_> = outcome
            .diagnostics
            .iter()
            .map(|d| d.message.clone())
            .collect();
        assert!(errors.is_empty(), "{errors:?}");
        let generated = outcome.output.expect("output");
        assert_eq!(generated.manifest.tools.len(), 43);
        let uint64 = generated
            .manifest
            .tools
            .iter()
            .find(|t| t.name == "echo_u_int64" || t.name == "echo_uint64")
            .expect("echo uint64");
        let text = serde_json::to_string(&uint64.input_schema).unwrap_or_default();
        assert!(text.contains("18446744073709551615"), "{text}");
        if let Some(dir) = std::env::var_os("DELPHI_MCP_DUMP") {
            let dir = std::path::PathBuf::from(dir);
            for (name, text) in &generated.files {
                std::fs::write(dir.join(name), text).expect("dump");
            }
        }
    }
}
