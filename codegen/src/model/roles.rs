//! What a marked routine serves: a tool (`[McpTool]`), a resource (`[McpResource]`), a resource
//! template (`[McpResourceTemplate]`), a prompt (`[McpPrompt]`) or a completion provider
//! (`[McpCompletion]`). All of them are called through the same kind of stub; the role decides
//! the attribute's arguments, what parameters and results are allowed, and where the entry goes
//! in the manifest. Also the types of `McpAttributes.pas` the stubs know: the call context and
//! the content records.

use super::{Builder, Tool, ToolParam};
use delphi_mcp_manifest::{CompletionTarget, ContentShape, StringRepr, ValueType};
use delphi_mcp_parser::ast::{Attribute, Routine};
use delphi_mcp_parser::Diagnostic;

/// The unit whose types the stubs know by name (the call context, the content records).
pub const SUPPORT_UNIT: &str = "McpAttributes";

/// The virtual path the model parses `McpAttributes.pas`'s text under (no file is read).
pub const SUPPORT_PATH: &str = "<delphi-mcp>/McpAttributes.pas";

/// What a marked routine serves.
#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    /// An MCP tool.
    Tool,
    /// A resource with a fixed URI.
    Resource {
        /// Its URI.
        uri: String,
        /// The MIME type of its contents.
        mime_type: Option<String>,
    },
    /// A resource template; the routine's string parameters are its variables.
    ResourceTemplate {
        /// The URI template.
        uri_template: String,
        /// The MIME type of its contents.
        mime_type: Option<String>,
    },
    /// A prompt; the routine's string parameters are its arguments.
    Prompt,
    /// A completion provider of a prompt argument or template variable.
    Completion {
        /// The prompt or template.
        target: CompletionTarget,
        /// The argument or variable.
        argument: String,
    },
}

impl Role {
    /// The prefix of the role's exports (`mcp_tool_`, `mcp_resource_`, ...): names are unique
    /// within a role.
    pub fn export_prefix(&self) -> &'static str {
        match self {
            Role::Tool => "mcp_tool_",
            Role::Resource { .. } => "mcp_resource_",
            Role::ResourceTemplate { .. } => "mcp_template_",
            Role::Prompt => "mcp_prompt_",
            Role::Completion { .. } => "mcp_complete_",
        }
    }

    /// The order of roles in the manifest and the stubs.
    pub fn rank(&self) -> u8 {
        match self {
            Role::Tool => 0,
            Role::Resource { .. } => 1,
            Role::ResourceTemplate { .. } => 2,
            Role::Prompt => 3,
            Role::Completion { .. } => 4,
        }
    }

    /// What people call an entry of this role.
    pub fn noun(&self) -> &'static str {
        match self {
            Role::Tool => "tool",
            Role::Resource { .. } => "resource",
            Role::ResourceTemplate { .. } => "resource template",
            Role::Prompt => "prompt",
            Role::Completion { .. } => "completion provider",
        }
    }
}

/// The attributes that make a routine an entry, by their key.
const ENTRY_KEYS: [&str; 5] = [
    "mcptool",
    "mcpresource",
    "mcpresourcetemplate",
    "mcpprompt",
    "mcpcompletion",
];

/// The attribute that makes a routine an entry, if any.
pub(super) fn entry_attr(attrs: &[Attribute]) -> Option<&Attribute> {
    attrs
        .iter()
        .find(|a| ENTRY_KEYS.contains(&super::attributes::attr_key(a).as_str()))
}

/// The entry's role and, from the attribute, its name and description when given.
pub(super) struct EntryHead {
    pub role: Role,
    pub name: Option<String>,
    pub description: Option<String>,
}

/// The content record a result type names, if it is one of `McpAttributes.pas`'s.
pub(super) fn content_shape(type_name: &str) -> Option<ContentShape> {
    let last = type_name.rsplit('.').next().unwrap_or(type_name);
    Some(match last.to_ascii_lowercase().as_str() {
        "tmcpimage" => ContentShape::Image,
        "tmcpaudio" => ContentShape::Audio,
        "tmcpcontent" => ContentShape::Block,
        "tmcpcontents" => ContentShape::Blocks,
        _ => return None,
    })
}

/// Whether a parameter type names the call context.
pub(super) fn is_context_type(type_name: &str) -> bool {
    let last = type_name.rsplit('.').next().unwrap_or(type_name);
    last.eq_ignore_ascii_case("TMcpContext")
}

fn is_string(ty: &ValueType) -> bool {
    matches!(
        ty,
        ValueType::String {
            repr: StringRepr::Utf16 | StringRepr::Utf8,
            max_length: None
        }
    )
}

fn is_string_list(ty: &ValueType) -> bool {
    match ty {
        ValueType::Strings => true,
        ValueType::Array { items, .. } => is_string(items),
        _ => false,
    }
}

/// The variables of a URI template (`{name}`), in order; an error for an unclosed brace or an
/// empty or operator-led name (only RFC 6570 level 1 is served).
pub fn template_variables(template: &str) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            return Err(format!("`{{` without `}}` in `{template}`"));
        };
        let name = &after[..close];
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!(
                "`{{{name}}}` in `{template}`: variables are names of letters, digits and `_` (RFC 6570 level 1)"
            ));
        }
        names.push(name.to_string());
        rest = &after[close + 1..];
    }
    Ok(names)
}

impl<'a> Builder<'a> {
    /// The role, name and description an entry attribute gives.
    pub(super) fn entry_head(&mut self, attr: &Attribute, unit: usize) -> Option<EntryHead> {
        let key = super::attributes::attr_key(attr);
        let (min, max) = match key.as_str() {
            "mcptool" | "mcpprompt" => (0, 2),
            "mcpcompletion" => (2, 2),
            _ => (1, 4),
        };
        let args = self.string_args(attr, unit, min, max)?;
        let arg = |i: usize| args.get(i).filter(|a| !a.is_empty()).cloned();
        Some(match key.as_str() {
            "mcptool" | "mcpprompt" => EntryHead {
                role: if key == "mcptool" {
                    Role::Tool
                } else {
                    Role::Prompt
                },
                name: arg(0),
                description: arg(1),
            },
            "mcpcompletion" => {
                let target = args[0].clone();
                let target = if target.contains('{') || target.contains("://") {
                    CompletionTarget::ResourceTemplate { uri: target }
                } else {
                    CompletionTarget::Prompt { name: target }
                };
                EntryHead {
                    role: Role::Completion {
                        target,
                        argument: args[1].clone(),
                    },
                    name: None,
                    description: None,
                }
            }
            _ => {
                let uri = args[0].clone();
                let mime_type = arg(3);
                let role = if key == "mcpresource" {
                    Role::Resource { uri, mime_type }
                } else {
                    Role::ResourceTemplate {
                        uri_template: uri,
                        mime_type,
                    }
                };
                EntryHead {
                    role,
                    name: arg(1),
                    description: arg(2),
                }
            }
        })
    }

    /// Checks what the role allows of the parameters and result; renames a template's
    /// parameters to its variables. Returns false after an error.
    pub(super) fn check_role(&mut self, routine: &Routine, tool: &mut Tool) -> bool {
        let span = routine.name_span;
        let what = format!("{} `{}`", tool.role.noun(), tool.name);
        let inputs: Vec<&mut ToolParam> =
            tool.params.iter_mut().filter(|p| p.in_schema()).collect();
        let result = tool.result.as_ref().map(|r| &r.value);
        let mut problems = Vec::new();
        // Prompt arguments and template variables are strings on the wire; an enumeration
        // parameter takes a member's name (and is completed with the members).
        let all_strings = inputs.iter().all(|p| {
            p.resolved.as_ref().is_some_and(|r| {
                is_string(&r.value)
                    || (tool.role != Role::Tool && matches!(r.value, ValueType::Enum { .. }))
            })
        });
        match &tool.role {
            Role::Tool => {}
            Role::Resource { uri, .. } => {
                if !inputs.is_empty() {
                    problems.push("a resource takes no arguments (a TMcpContext parameter is allowed); use [McpResourceTemplate] for a URI with variables".to_string());
                }
                if uri.contains('{') {
                    problems.push(format!("`{uri}` has variables: use [McpResourceTemplate]"));
                }
                if !matches!(result, Some(ty) if is_string(ty) || *ty == ValueType::Bytes) {
                    problems.push("a resource returns string (text) or TBytes (a blob)".into());
                }
            }
            Role::ResourceTemplate { uri_template, .. } => {
                match template_variables(uri_template) {
                    Err(message) => problems.push(message),
                    Ok(variables) => {
                        if !all_strings || inputs.len() != variables.len() {
                            problems.push(format!(
                                "a resource template takes one string parameter per variable of `{uri_template}` ({})",
                                variables.join(", ")
                            ));
                        } else {
                            for param in inputs {
                                match variables
                                    .iter()
                                    .find(|v| v.eq_ignore_ascii_case(&param.name))
                                {
                                    Some(variable) => param.json_name = variable.clone(),
                                    None => problems.push(format!(
                                        "parameter `{}` is no variable of `{uri_template}`",
                                        param.name
                                    )),
                                }
                            }
                        }
                    }
                }
                if !matches!(result, Some(ty) if is_string(ty) || *ty == ValueType::Bytes) {
                    problems.push(
                        "a resource template returns string (text) or TBytes (a blob)".into(),
                    );
                }
            }
            Role::Prompt => {
                if !all_strings {
                    problems.push("prompt arguments are strings".into());
                }
                let content = matches!(
                    tool.content,
                    Some(ContentShape::Block | ContentShape::Blocks)
                );
                if !(content || result.is_some_and(is_string)) {
                    problems.push("a prompt returns string or TMcpContent / TMcpContents".into());
                }
            }
            Role::Completion { .. } => {
                if inputs.len() != 1 || !all_strings {
                    problems.push(
                        "a completion provider takes one string parameter (the text typed so far)"
                            .into(),
                    );
                }
                if !result.is_some_and(is_string_list) {
                    problems.push("a completion provider returns the suggestions: an array of string or TStrings".into());
                }
            }
        }
        if tool.role != Role::Tool {
            if tool.params.iter().any(|p| p.is_output()) {
                problems.push(format!(
                    "only tools have var/out parameters, not a {}",
                    tool.role.noun()
                ));
            }
            if tool.json_schema.is_some() {
                problems.push("[McpInputSchema] is for tools only".into());
            }
            if matches!(
                tool.content,
                Some(ContentShape::Image | ContentShape::Audio)
            ) {
                problems.push("TMcpImage and TMcpAudio are tool results".into());
            }
        }
        for problem in &problems {
            self.diagnostics
                .push(Diagnostic::error(format!("{what}: {problem}"), Some(span)));
        }
        problems.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_variables_are_read_in_order() {
        assert_eq!(
            template_variables("test://template/{id}/data/{part}"),
            Ok(vec!["id".to_string(), "part".to_string()])
        );
        assert!(template_variables("x://{").is_err());
        assert!(template_variables("x://{+path}").is_err());
        assert_eq!(template_variables("x://fixed"), Ok(vec![]));
    }
}
