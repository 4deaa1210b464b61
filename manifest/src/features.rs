//! What a library serves besides tools (manifest format 1, ABI 3): resources, resource
//! templates, prompts and completion providers, and the content a tool may return instead of
//! structured JSON. Each entry carries a [`DelphiBinding`]: its stub has the tool signature.

use crate::manifest::DelphiBinding;
use serde::{Deserialize, Serialize};

/// How a tool's result is sent: as structured JSON (the default, no `content` in the manifest)
/// or as MCP content blocks built from one of `McpAttributes.pas`'s content records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ContentShape {
    /// `TMcpImage` (`Data: TBytes; MimeType: string`): one image block.
    Image,
    /// `TMcpAudio` (`Data: TBytes; MimeType: string`): one audio block.
    Audio,
    /// `TMcpContent`: one block of any kind.
    Block,
    /// `TMcpContents` (array of `TMcpContent`): several blocks, in order.
    Blocks,
}

/// A resource with a fixed URI (`[McpResource('uri', ...)]`): a function without arguments
/// (besides a context) returning text (`string`) or bytes (`TBytes`, sent as `blob`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceEntry {
    /// The URI clients read.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of its contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// How the runtime calls it (its result is `string` or `bytes`).
    #[serde(rename = "x-delphi")]
    pub delphi: DelphiBinding,
}

/// A resource template (`[McpResourceTemplate('orders://{id}', ...)]`): each `{variable}` of
/// the URI template is a string parameter of the function of the same name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceTemplateEntry {
    /// The URI template (RFC 6570 level 1: `{name}` variables, each one path segment or more).
    pub uri_template: String,
    /// Its name.
    pub name: String,
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of its contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// How the runtime calls it: one string parameter per variable, in template order.
    #[serde(rename = "x-delphi")]
    pub delphi: DelphiBinding,
}

/// A prompt (`[McpPrompt('name', 'description')]`): a function whose string parameters are the
/// prompt's arguments, returning `string` (one user message) or content blocks
/// (`TMcpContent`/`TMcpContents`: one user message each).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptEntry {
    /// The prompt's name.
    pub name: String,
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments, in declaration order.
    #[serde(default)]
    pub arguments: Vec<PromptArgumentEntry>,
    /// How the runtime calls it.
    #[serde(rename = "x-delphi")]
    pub delphi: DelphiBinding,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PromptArgumentEntry {
    /// The argument's name.
    pub name: String,
    /// From the `<param>` doc.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// False when the parameter declares a default.
    pub required: bool,
}

/// What a completion provider completes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", deny_unknown_fields)]
pub enum CompletionTarget {
    /// An argument of a prompt.
    Prompt {
        /// The prompt's name.
        name: String,
    },
    /// A variable of a resource template.
    ResourceTemplate {
        /// The URI template.
        uri: String,
    },
}

/// A completion provider (`[McpCompletion('prompt_or_template', 'argument')]`): a function of
/// one string (the text typed so far) returning the suggestions (an array of strings or
/// `TStrings`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompletionEntry {
    /// The provider's name (its export: `mcp_complete_` + name).
    pub name: String,
    /// The prompt or template.
    pub target: CompletionTarget,
    /// The argument or variable completed.
    pub argument: String,
    /// How the runtime calls it.
    #[serde(rename = "x-delphi")]
    pub delphi: DelphiBinding,
}
