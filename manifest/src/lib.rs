//! The contract of delphi-mcp, shared by the code generator, the runtime and `bind!`.
//!
//! A library built with the generated stubs and the Rust program that loads it agree on two
//! things, both defined here once:
//!
//! - the **tool manifest** (`tools.json`, `docs/manifest.md`): the types of this crate's root
//!   ([`Manifest`], [`ToolEntry`], [`ValueType`], ...), how a text is read and checked
//!   ([`Manifest::from_json`]), its canonical form and hash ([`Manifest::canonical_sha256`]) and
//!   how two manifests are compared ([`first_difference`]);
//! - the **ABI** (`docs/abi.md`): the version, the value layout, the status codes, the export
//!   names and function types ([`abi`]).
//!
//! [`naming`] holds the one rule that turns Pascal and manifest names into tool names, Rust
//! identifiers and crate names.
//!
//! The crate depends on serde, serde_json, sha2 and thiserror only: a program that serves or
//! binds a library links it without the parser or the templates.

#![warn(missing_docs)]

pub mod abi;
mod canonical;
pub mod documents;
mod features;
pub mod json_schema;
mod manifest;
pub mod naming;
mod schema_text;

pub use canonical::{first_difference, Difference};
pub use features::{
    CompletionEntry, CompletionTarget, ContentShape, PromptArgumentEntry, PromptEntry,
    ResourceEntry, ResourceTemplateEntry,
};
pub use manifest::{
    CallKind, DateTimePart, DelphiBinding, EnumMemberEntry, FieldEntry, InvalidManifest, Manifest,
    NumberRepr, OutputEntry, ParamEntry, SectionStarts, SourceLocation, StringRepr,
    ToolAnnotations, ToolEntry, ValueType, MANIFEST_FORMAT_VERSION, VERSION_TOOL,
};
pub use schema_text::{SchemaText, ValueShaped};
