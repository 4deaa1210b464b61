//! The tool manifest (`tools.json`): the one description of a library's tools that the code
//! generator writes, the library embeds, and the runtime and `bind!` read.
//!
//! Each entry of `tools` is an MCP `Tool` object (`name`, `title`, `description`, `inputSchema`,
//! `outputSchema`, `annotations`) plus an `x-delphi` object with what the runtime needs to
//! validate and marshal a call: the export symbol and, per parameter, its value type, bounds
//! and default. See `docs/manifest.md`.

use crate::abi::{self, AbiKind, ABI_VERSION, MIN_ABI_VERSION};
use crate::features::{
    CompletionEntry, ContentShape, PromptEntry, ResourceEntry, ResourceTemplateEntry,
};
use crate::SchemaText;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Version of the manifest format described here.
pub const MANIFEST_FORMAT_VERSION: u32 = 1;

/// Name of the runtime's built-in version tool; a library's tool may not use it.
pub const VERSION_TOOL: &str = "mcp_get_version";

/// A library's tool manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Manifest {
    /// [`MANIFEST_FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// [`ABI_VERSION`] the stubs were generated for.
    pub abi_version: u32,
    /// Name of the library (the `--name` given to `gen`, else the project or first unit name).
    pub name: String,
    /// The compiler target the units were read for (`delphi12-win64`, `fpc-linux64`, ...).
    pub target: String,
    /// `delphi-mcp <version>` that wrote it.
    pub generator: String,
    /// The tools, sorted by name.
    pub tools: Vec<ToolEntry>,
    /// ABI 3: resources with a fixed URI, sorted by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<ResourceEntry>,
    /// ABI 3: resource templates, sorted by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_templates: Vec<ResourceTemplateEntry>,
    /// ABI 3: prompts, sorted by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<PromptEntry>,
    /// ABI 3: completion providers, sorted by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub completions: Vec<CompletionEntry>,
    /// Help documents (`help/*.md` of the project), sorted by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub help_documents: Vec<crate::documents::HelpDocumentEntry>,
    /// Prompts written as Markdown (`prompts/*.md` of the project), sorted by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub markdown_prompts: Vec<crate::documents::MarkdownPromptEntry>,
}

/// The first index of each section in [`Manifest::callables`] (tools start at 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SectionStarts {
    /// The first resource.
    pub resources: usize,
    /// The first resource template.
    pub resource_templates: usize,
    /// The first prompt.
    pub prompts: usize,
    /// The first completion provider.
    pub completions: usize,
}

/// One tool: an MCP Tool object plus marshalling data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolEntry {
    /// Tool name (1-128 of `A-Za-z0-9_-.`).
    pub name: String,
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the model reads to choose the tool.
    pub description: String,
    /// JSON Schema (draft 2020-12) of the arguments object.
    pub input_schema: SchemaText,
    /// JSON Schema of `structuredContent`: `{"result": T}` or `{"success": true}`; absent for
    /// a tool whose result is content blocks (ABI 3, [`DelphiBinding::content`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<SchemaText>,
    /// MCP tool annotations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// What the runtime needs to call it.
    #[serde(rename = "x-delphi")]
    pub delphi: DelphiBinding,
}

/// MCP tool annotations (hints for clients; never trusted for security).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolAnnotations {
    /// Display title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Calling it repeatedly with the same arguments has no additional effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// How the runtime calls a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DelphiBinding {
    /// Exported symbol of the stub (`docs/abi.md`).
    pub export: String,
    /// The Pascal routine, e.g. `TCalculationModule.Scale` or `Calc.Add`.
    pub routine: String,
    /// How the routine is reached.
    pub call: CallKind,
    /// Parameters in declaration order, as passed in the ABI argument array (parameters that
    /// receive nil are not listed: they leave the schema and the ABI).
    pub params: Vec<ParamEntry>,
    /// The function result; `None` for a procedure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ValueType>,
    /// ABI 2: the `var` and `out` parameters, in declaration order. When there are any, the out
    /// value is a record of the result (when a function) followed by these, and
    /// `structuredContent` carries each beside `result` (`docs/abi.md`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outputs: Vec<OutputEntry>,
    /// ABI 2: a JSON handler. The whole arguments object is checked against `inputSchema` and
    /// passed as one `string` argument, its JSON text; `params` is empty.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub json_arguments: bool,
    /// ABI 3: the result is one of `McpAttributes.pas`'s content records, sent as content
    /// blocks rather than `structuredContent`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<ContentShape>,
    /// Where the routine is declared.
    pub source: SourceLocation,
}

/// How a tool's routine is reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", deny_unknown_fields)]
pub enum CallKind {
    /// A unit-level routine.
    Routine,
    /// A `class` or `static` method.
    ClassMethod,
    /// An instance method; the object comes from the resolver expression.
    Instance {
        /// The `[McpInstance]` resolver expression, e.g. `CurrentCalculationModule`.
        resolver: String,
        /// The class exposing the tool (may descend from the method's class).
        class: String,
    },
}

/// One parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ParamEntry {
    /// JSON key: the Pascal parameter name exactly as declared.
    pub name: String,
    /// The Delphi type as written.
    pub delphi_type: String,
    /// Value type, bounds and ABI kind.
    #[serde(rename = "type")]
    pub ty: ValueType,
    /// True when the routine declares a default (the argument may then be absent; the stub
    /// passes the declared default expression).
    pub optional: bool,
    /// The declared default as JSON, when it is a literal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
}

/// A `var` or `out` parameter as returned by the tool (ABI 2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OutputEntry {
    /// The key in `structuredContent`.
    pub name: String,
    /// The Delphi type as written.
    pub delphi_type: String,
    /// Value type.
    #[serde(rename = "type")]
    pub ty: ValueType,
}

/// One field of a record (ABI 2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FieldEntry {
    /// The JSON key (the Pascal field name, or its `[McpName]`, after the naming policy).
    pub name: String,
    /// From the field's `///` doc comment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Value type.
    #[serde(rename = "type")]
    pub ty: ValueType,
}

/// The value type of a parameter or result, from the type table (`docs/types.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", deny_unknown_fields)]
pub enum ValueType {
    /// An integer with exact inclusive bounds. ABI: `int` when `max <= i64::MAX`, else `uint`.
    #[serde(rename_all = "camelCase")]
    Integer {
        /// Smallest accepted value.
        #[serde(deserialize_with = "exact_integer")]
        min: i128,
        /// Largest accepted value.
        #[serde(deserialize_with = "exact_integer")]
        max: i128,
    },
    /// A floating-point number. ABI: `double`.
    #[serde(rename_all = "camelCase")]
    Number {
        /// The Pascal representation (decides range checks and rounding).
        repr: NumberRepr,
    },
    /// `true`/`false`. ABI: `bool`.
    Boolean,
    /// A string. ABI: `string` (UTF-8 bytes).
    #[serde(rename_all = "camelCase")]
    String {
        /// How Pascal stores it (decides what is representable).
        repr: StringRepr,
        /// Largest length in the unit of `repr` (bytes for ShortString / ANSI, UTF-16 code
        /// units otherwise), when bounded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_length: Option<u32>,
    },
    /// One character. ABI: `string` holding exactly one character.
    #[serde(rename_all = "camelCase")]
    Char {
        /// `Char`/`WideChar` (one UTF-16 code unit) or `AnsiChar` (one byte of the code page).
        wide: bool,
    },
    /// TDateTime / TDate / TTime as ISO 8601 text. ABI: `double` (days since 1899-12-30).
    #[serde(rename_all = "camelCase")]
    DateTime {
        /// Which part is meaningful.
        part: DateTimePart,
    },
    /// An enumeration declared in a parsed unit, as its member names. ABI: `int` (ordinal).
    #[serde(rename_all = "camelCase")]
    Enum {
        /// The Pascal type name.
        type_name: String,
        /// Members and their ordinal values, in declaration order.
        members: Vec<EnumMemberEntry>,
    },
    /// ABI 2. A record as a JSON object of all its fields. ABI: `record` (fields in order).
    #[serde(rename_all = "camelCase")]
    Record {
        /// The Pascal type name.
        type_name: String,
        /// The fields in declaration order.
        fields: Vec<FieldEntry>,
    },
    /// ABI 2. An array as a JSON array. ABI: `array` (items in order).
    #[serde(rename_all = "camelCase")]
    Array {
        /// The item type.
        items: Box<ValueType>,
        /// Fewest items (static arrays: exactly `minItems` = `maxItems`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_items: Option<u32>,
        /// Most items.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_items: Option<u32>,
    },
    /// ABI 2. A set of enumeration members as a JSON array of unique member names. ABI: `array`
    /// of the members' ordinals (`int`), in ordinal order.
    #[serde(rename_all = "camelCase")]
    Set {
        /// The Pascal set type name (or `set of T` as written).
        type_name: String,
        /// The enumeration's members.
        members: Vec<EnumMemberEntry>,
    },
    /// ABI 2. `TBytes` as a base64 string. ABI: `bytes`.
    Bytes,
    /// ABI 2. `TStrings` / `TStringList` as a JSON array of strings. ABI: `array` of `string`.
    Strings,
    /// ABI 2. The result of a JSON handler: any JSON value. ABI: `string` (its JSON text).
    Json,
    /// ABI 3. The call context (`TMcpContext`): not an argument of the schema; the runtime
    /// passes its functions. ABI: `context`.
    Context,
}

/// Pascal floating-point representations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NumberRepr {
    /// 4-byte IEEE (`Single`): values beyond its range are rejected.
    Single,
    /// 8-byte IEEE (`Double`, `Real`).
    Double,
    /// `Extended` (passed as a double).
    Extended,
    /// `Currency`: fixed point with four decimals.
    Currency,
    /// `Comp`: a 64-bit integer in a floating type.
    Comp,
}

/// Pascal string representations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum StringRepr {
    /// UTF-16 (`string`, `UnicodeString`, `WideString`): every JSON string is representable.
    Utf16,
    /// `UTF8String` / `RawUTF8`.
    Utf8,
    /// `AnsiString` / `AnsiString(N)` in a code page; unrepresentable characters are rejected.
    #[serde(rename_all = "camelCase")]
    Ansi {
        /// Windows code page number as declared; 0 for a plain `AnsiString` (the library's ANSI
        /// code page at run time, which only the stub knows: it checks representability).
        code_page: u16,
    },
    /// `ShortString` / `String[N]`: at most `max_length` bytes in the code page.
    #[serde(rename_all = "camelCase")]
    Short {
        /// Windows code page number; 0: the library's ANSI code page (checked by the stub).
        code_page: u16,
    },
}

/// Which part of a TDateTime is meaningful.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DateTimePart {
    /// `TDateTime`: `YYYY-MM-DDTHH:MM:SS[.fff]`.
    DateTime,
    /// `TDate`: `YYYY-MM-DD`.
    Date,
    /// `TTime`: `HH:MM:SS[.fff]`.
    Time,
}

/// One enumeration member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnumMemberEntry {
    /// The member name (the JSON value).
    pub name: String,
    /// Its ordinal.
    pub ordinal: i64,
}

/// A place in a source file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SourceLocation {
    /// Path relative to the directory `gen` was run for, with `/` separators.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column (characters).
    pub column: u32,
}

/// Reads an integer bound as i128 through `deserialize_any`: serde buffers internally tagged
/// enums, and its buffer does not support `deserialize_i128` (JSON bounds fit i64 or u64).
fn exact_integer<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<i128, D::Error> {
    struct Bound;
    impl serde::de::Visitor<'_> for Bound {
        type Value = i128;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an integer")
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<i128, E> {
            Ok(v.into())
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<i128, E> {
            Ok(v.into())
        }
        fn visit_i128<E: serde::de::Error>(self, v: i128) -> Result<i128, E> {
            Ok(v)
        }
        fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<i128, E> {
            i128::try_from(v).map_err(E::custom)
        }
    }
    deserializer.deserialize_any(Bound)
}

/// Why a text is not a manifest this version of delphi-mcp can use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidManifest {
    /// Not JSON, or not a manifest's JSON (unknown or missing field, wrong type).
    #[error("{0}")]
    Json(String),
    /// Written in another format version.
    #[error("format version {found} (this delphi-mcp reads version {MANIFEST_FORMAT_VERSION})")]
    FormatVersion {
        /// The manifest's `formatVersion`.
        found: u32,
    },
    /// Written for another ABI version.
    #[error("written for ABI version {found} (this delphi-mcp implements versions {MIN_ABI_VERSION} to {ABI_VERSION})")]
    AbiVersion {
        /// The manifest's `abiVersion`.
        found: u32,
    },
    /// A tool uses [`VERSION_TOOL`]'s name.
    #[error("tool name `{VERSION_TOOL}` is reserved for the built-in version tool")]
    ReservedToolName,
    /// An ABI 1 manifest uses what only ABI 2 has (composite values, `var`/`out` parameters).
    #[error("tool `{0}` uses composite values or var/out parameters, which need ABI version 2")]
    NeedsAbi2(String),
    /// A manifest of ABI 1 or 2 uses what only ABI 3 has (a call context, content results,
    /// resources, prompts, completions).
    #[error("`{0}` uses a call context, content results, resources, prompts or completions, which need ABI version 3")]
    NeedsAbi3(String),
    /// Two resources, templates, prompts or completion providers have the same name or URI.
    #[error("{0} is listed twice")]
    Duplicate(String),
    /// Two tools have the same name.
    #[error("tool `{0}` is listed twice")]
    DuplicateTool(String),
    /// A tool lists a parameter twice.
    #[error("tool `{tool}` lists parameter `{param}` twice")]
    DuplicateParam {
        /// The tool.
        tool: String,
        /// The parameter.
        param: String,
    },
}

impl Manifest {
    /// Reads a manifest text (`tools.json`, or the text a library embeds) and checks what the
    /// runtime relies on: this format and ABI version, tool names unique and not
    /// [`VERSION_TOOL`], parameter names unique within a tool.
    pub fn from_json(text: &[u8]) -> Result<Manifest, InvalidManifest> {
        let manifest: Manifest = match std::str::from_utf8(text) {
            // Checked as UTF-8 once, the text is read without checking each string again.
            Ok(text) => serde_json::from_str(text),
            // serde_json's reading says where the text is not UTF-8.
            Err(_) => serde_json::from_slice(text),
        }
        .map_err(|e| InvalidManifest::Json(e.to_string()))?;
        if manifest.format_version != MANIFEST_FORMAT_VERSION {
            return Err(InvalidManifest::FormatVersion {
                found: manifest.format_version,
            });
        }
        if !abi::is_supported(manifest.abi_version) {
            return Err(InvalidManifest::AbiVersion {
                found: manifest.abi_version,
            });
        }
        let mut names = HashSet::new();
        for tool in &manifest.tools {
            if tool.name == VERSION_TOOL {
                return Err(InvalidManifest::ReservedToolName);
            }
            if !names.insert(tool.name.as_str()) {
                return Err(InvalidManifest::DuplicateTool(tool.name.clone()));
            }
            let mut params = HashSet::new();
            for param in &tool.delphi.params {
                if !params.insert(param.name.as_str()) {
                    return Err(InvalidManifest::DuplicateParam {
                        tool: tool.name.clone(),
                        param: param.name.clone(),
                    });
                }
            }
            if manifest.abi_version < 2 && tool.needs_abi_2() {
                return Err(InvalidManifest::NeedsAbi2(tool.name.clone()));
            }
            if manifest.abi_version < 3 && tool.delphi.needs_abi_3() {
                return Err(InvalidManifest::NeedsAbi3(tool.name.clone()));
            }
        }
        if manifest.abi_version < 3 {
            if let Some(first) = manifest.callables().nth(manifest.tools.len()) {
                return Err(InvalidManifest::NeedsAbi3(first.export.clone()));
            }
        }
        manifest.check_unique()?;
        Ok(manifest)
    }

    /// The bindings of everything the library exports a stub for, in the order hosts number
    /// them: tools, resources, resource templates, prompts, completion providers.
    pub fn callables(&self) -> impl Iterator<Item = &DelphiBinding> {
        self.tools
            .iter()
            .map(|t| &t.delphi)
            .chain(self.resources.iter().map(|r| &r.delphi))
            .chain(self.resource_templates.iter().map(|r| &r.delphi))
            .chain(self.prompts.iter().map(|p| &p.delphi))
            .chain(self.completions.iter().map(|c| &c.delphi))
    }

    /// Where each section starts in the numbering of [`Self::callables`]: the index of the
    /// first resource, resource template, prompt and completion provider.
    pub fn section_starts(&self) -> SectionStarts {
        let resources = self.tools.len();
        let resource_templates = resources + self.resources.len();
        let prompts = resource_templates + self.resource_templates.len();
        SectionStarts {
            resources,
            resource_templates,
            prompts,
            completions: prompts + self.prompts.len(),
        }
    }

    fn check_unique(&self) -> Result<(), InvalidManifest> {
        let mut seen = HashSet::new();
        let keys = self
            .resources
            .iter()
            .map(|r| format!("resource `{}`", r.uri))
            .chain(
                self.resource_templates
                    .iter()
                    .map(|r| format!("resource template `{}`", r.uri_template)),
            )
            .chain(self.prompts.iter().map(|p| format!("prompt `{}`", p.name)))
            .chain(
                self.markdown_prompts
                    .iter()
                    .map(|p| format!("prompt `{}`", p.name)),
            )
            .chain(
                self.help_documents
                    .iter()
                    .map(|h| format!("help document `{}`", h.name)),
            )
            .chain(
                self.callables()
                    .map(|binding| format!("export `{}`", binding.export)),
            );
        for key in keys {
            if !seen.insert(key.clone()) {
                return Err(InvalidManifest::Duplicate(key));
            }
        }
        Ok(())
    }
}

impl DelphiBinding {
    /// Whether the binding uses what only ABI 3 has.
    pub fn needs_abi_3(&self) -> bool {
        self.content.is_some() || self.needs_context()
    }

    /// Whether the routine takes the call context.
    pub fn needs_context(&self) -> bool {
        self.params.iter().any(|p| p.ty == ValueType::Context)
    }
}

impl ToolEntry {
    /// Whether the tool uses what only ABI 2 has.
    pub fn needs_abi_2(&self) -> bool {
        !self.delphi.outputs.is_empty()
            || self.delphi.json_arguments
            || self.delphi.params.iter().any(|p| p.ty.needs_abi_2())
            || self
                .delphi
                .result
                .as_ref()
                .is_some_and(ValueType::needs_abi_2)
    }
}

impl ValueType {
    /// The ABI kind values of this type travel as.
    pub fn abi_kind(&self) -> AbiKind {
        match self {
            ValueType::Integer { max, .. } if *max > i64::MAX as i128 => AbiKind::UInt,
            ValueType::Integer { .. } | ValueType::Enum { .. } => AbiKind::Int,
            ValueType::Number { .. } | ValueType::DateTime { .. } => AbiKind::Double,
            ValueType::Boolean => AbiKind::Bool,
            ValueType::String { .. } | ValueType::Char { .. } | ValueType::Json => AbiKind::String,
            ValueType::Record { .. } => AbiKind::Record,
            ValueType::Array { .. } | ValueType::Set { .. } | ValueType::Strings => AbiKind::Array,
            ValueType::Bytes => AbiKind::Bytes,
            ValueType::Context => AbiKind::Context,
        }
    }

    /// Whether values of this type need ABI 2.
    pub fn needs_abi_2(&self) -> bool {
        matches!(
            self,
            ValueType::Record { .. }
                | ValueType::Array { .. }
                | ValueType::Set { .. }
                | ValueType::Bytes
                | ValueType::Strings
                | ValueType::Json
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abi_1_manifests_load_unless_they_use_abi_2() {
        let manifest = |abi: u32, ty: &str| {
            format!(
                r#"{{"formatVersion":1,"abiVersion":{abi},"name":"X","target":"t","generator":"g","tools":[{{"name":"t","description":"d","inputSchema":{{}},"outputSchema":{{}},"x-delphi":{{"export":"mcp_tool_t","routine":"U.T","call":{{"kind":"routine"}},"params":[{{"name":"A","delphiType":"T","type":{ty},"optional":false}}],"source":{{"file":"U.pas","line":1,"column":1}}}}}}]}}"#
            )
        };
        let scalar = r#"{"kind":"boolean"}"#;
        let bytes = r#"{"kind":"bytes"}"#;
        let context = r#"{"kind":"context"}"#;
        assert!(Manifest::from_json(manifest(1, scalar).as_bytes()).is_ok());
        assert!(Manifest::from_json(manifest(2, bytes).as_bytes()).is_ok());
        assert!(Manifest::from_json(manifest(3, context).as_bytes()).is_ok());
        assert_eq!(
            Manifest::from_json(manifest(1, bytes).as_bytes()),
            Err(InvalidManifest::NeedsAbi2("t".into()))
        );
        assert_eq!(
            Manifest::from_json(manifest(2, context).as_bytes()),
            Err(InvalidManifest::NeedsAbi3("t".into()))
        );
        assert_eq!(
            Manifest::from_json(manifest(4, scalar).as_bytes()),
            Err(InvalidManifest::AbiVersion { found: 4 })
        );
    }

    #[test]
    fn integer_bounds_round_trip_exactly() {
        for (min, max) in [(0, u64::MAX as i128), (i64::MIN as i128, i64::MAX as i128)] {
            let ty = ValueType::Integer { min, max };
            let text = serde_json::to_string(&ty).unwrap_or_default();
            let back: Result<ValueType, _> = serde_json::from_str(&text);
            assert_eq!(back.ok(), Some(ty), "{text}");
        }
    }
}
