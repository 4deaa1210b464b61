//! Resources, resource templates, prompts and completions of a library (ABI 3): listing them
//! from the manifest and calling their stubs ([`crate::call::call_binding`]). The rmcp adapter
//! ([`crate::mcp`]) turns the JSON built here into protocol results.

use crate::call::{call_binding, ToolError};
use crate::host::{CallControl, ToolHost};
use delphi_mcp_manifest::documents::HelpDocumentEntry;
use delphi_mcp_manifest::{CompletionTarget, DelphiBinding, Manifest, ValueType};
use serde_json::{json, Map, Value};

/// Most completion values sent (the spec's limit).
pub const MAX_COMPLETIONS: usize = 100;

/// Why a resource, prompt or completion request has no result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FeatureError {
    /// No resource with that URI (nor a template matching it).
    #[error("Resource not found: {0}")]
    ResourceNotFound(String),
    /// No prompt of that name.
    #[error("Unknown prompt: {0}")]
    UnknownPrompt(String),
    /// The arguments do not fit (missing, unknown, not a member).
    #[error("{0}")]
    InvalidParams(String),
    /// The Pascal code failed.
    #[error("{0}")]
    Failed(String),
}

impl From<ToolError> for FeatureError {
    fn from(error: ToolError) -> FeatureError {
        match error {
            ToolError::InvalidArguments(message) => FeatureError::InvalidParams(message),
            other => FeatureError::Failed(other.to_string()),
        }
    }
}

fn put(map: &mut Map<String, Value>, key: &str, value: &Option<String>) {
    if let Some(value) = value {
        map.insert(key.into(), Value::String(value.clone()));
    }
}

/// The MIME type of help documents.
pub const MARKDOWN: &str = "text/markdown";

/// The `resources/list` entries: the library's resources, then the help documents.
pub fn list_resources(manifest: &Manifest, help: &[HelpDocumentEntry]) -> Vec<Value> {
    let entry = |uri: String,
                 name: &str,
                 title: &Option<String>,
                 description: &Option<String>,
                 mime: &Option<String>| {
        let mut entry = Map::new();
        entry.insert("uri".into(), Value::String(uri));
        entry.insert("name".into(), Value::String(name.to_string()));
        put(&mut entry, "title", title);
        put(&mut entry, "description", description);
        put(&mut entry, "mimeType", mime);
        Value::Object(entry)
    };
    let markdown = Some(MARKDOWN.to_string());
    manifest
        .resources
        .iter()
        .map(|r| {
            entry(
                r.uri.clone(),
                &r.name,
                &r.title,
                &r.description,
                &r.mime_type,
            )
        })
        .chain(
            help.iter()
                .map(|h| entry(h.uri(), &h.name, &h.title, &h.description, &markdown)),
        )
        .collect()
}

/// The help document of a `help://NAME` URI.
pub fn help_document<'a>(
    help: &'a [HelpDocumentEntry],
    uri: &str,
) -> Option<&'a HelpDocumentEntry> {
    let name = uri.strip_prefix("help://")?;
    help.iter().find(|h| h.name == name)
}

/// The `resources/read` result of a help document.
pub fn read_help(document: &HelpDocumentEntry) -> Value {
    json!({"contents": [{"uri": document.uri(), "mimeType": MARKDOWN, "text": document.text}]})
}

/// The `resources/templates/list` entries.
pub fn list_resource_templates(manifest: &Manifest) -> Vec<Value> {
    manifest
        .resource_templates
        .iter()
        .map(|r| {
            let mut entry = Map::new();
            entry.insert("uriTemplate".into(), Value::String(r.uri_template.clone()));
            entry.insert("name".into(), Value::String(r.name.clone()));
            put(&mut entry, "title", &r.title);
            put(&mut entry, "description", &r.description);
            put(&mut entry, "mimeType", &r.mime_type);
            Value::Object(entry)
        })
        .collect()
}

/// The `prompts/list` entries: the library's prompts, then the Markdown prompts.
pub fn list_prompts(manifest: &Manifest) -> Vec<Value> {
    let pascal = manifest
        .prompts
        .iter()
        .map(|p| (&p.name, &p.title, &p.description, &p.arguments));
    let markdown = manifest
        .markdown_prompts
        .iter()
        .map(|p| (&p.name, &p.title, &p.description, &p.arguments));
    pascal
        .chain(markdown)
        .map(|(name, title, description, arguments)| {
            let mut entry = Map::new();
            entry.insert("name".into(), Value::String(name.clone()));
            put(&mut entry, "title", title);
            put(&mut entry, "description", description);
            let arguments: Vec<Value> = arguments
                .iter()
                .map(|a| {
                    let mut argument = Map::new();
                    argument.insert("name".into(), Value::String(a.name.clone()));
                    put(&mut argument, "description", &a.description);
                    argument.insert("required".into(), Value::Bool(a.required));
                    Value::Object(argument)
                })
                .collect();
            entry.insert("arguments".into(), Value::Array(arguments));
            Value::Object(entry)
        })
        .collect()
}

/// The variables of `uri` when it matches `template` (RFC 6570 level 1: each `{name}` matches
/// one or more characters other than `/`, and what follows it literally).
pub fn match_template(template: &str, uri: &str) -> Option<Map<String, Value>> {
    let mut variables = Map::new();
    let mut rest_template = template;
    let mut rest_uri = uri;
    loop {
        match rest_template.find('{') {
            None => return (rest_template == rest_uri).then_some(variables),
            Some(open) => {
                let literal = &rest_template[..open];
                rest_uri = rest_uri.strip_prefix(literal)?;
                let after = &rest_template[open + 1..];
                let close = after.find('}')?;
                let name = &after[..close];
                rest_template = &after[close + 1..];
                // The value runs to the next literal (or the end), within one segment.
                let next_literal = rest_template
                    .find('{')
                    .map_or(rest_template, |i| &rest_template[..i]);
                let end = if next_literal.is_empty() {
                    rest_uri.find('/').unwrap_or(rest_uri.len())
                } else {
                    rest_uri.find(next_literal)?
                };
                let value = &rest_uri[..end];
                if value.is_empty() || value.contains('/') {
                    return None;
                }
                variables.insert(name.to_string(), Value::String(value.to_string()));
                rest_uri = &rest_uri[end..];
            }
        }
    }
}

/// `resources/read` of `uri`: the `contents` of the `ReadResourceResult`.
pub async fn read_resource(
    host: &dyn ToolHost,
    uri: &str,
    control: &CallControl,
) -> Result<Value, FeatureError> {
    let manifest = host.manifest();
    let starts = manifest.section_starts();
    let (index, binding, mime, arguments) = if let Some((i, r)) = manifest
        .resources
        .iter()
        .enumerate()
        .find(|(_, r)| r.uri == uri)
    {
        (starts.resources + i, &r.delphi, &r.mime_type, Map::new())
    } else {
        manifest
            .resource_templates
            .iter()
            .enumerate()
            .find_map(|(i, t)| {
                match_template(&t.uri_template, uri)
                    .map(|vars| (starts.resource_templates + i, &t.delphi, &t.mime_type, vars))
            })
            .ok_or_else(|| FeatureError::ResourceNotFound(uri.to_string()))?
    };
    let raw = Value::Object(arguments).to_string();
    let value = call_binding(host, index, uri, binding, Some(&raw), control).await?;
    let mut content = Map::new();
    content.insert("uri".into(), Value::String(uri.to_string()));
    put(&mut content, "mimeType", mime);
    let key = if binding.result == Some(ValueType::Bytes) {
        "blob"
    } else {
        "text"
    };
    content.insert(key.into(), value.unwrap_or(Value::String(String::new())));
    Ok(json!({ "contents": [Value::Object(content)] }))
}

/// `prompts/get` of `name` with its string `arguments`: the `GetPromptResult`.
pub async fn get_prompt(
    host: &dyn ToolHost,
    name: &str,
    arguments: Option<&Map<String, Value>>,
    control: &CallControl,
) -> Result<Value, FeatureError> {
    let manifest = host.manifest();
    if let Some(prompt) = manifest.markdown_prompts.iter().find(|p| p.name == name) {
        return markdown_prompt(prompt, arguments);
    }
    let base = manifest.section_starts().prompts;
    let (index, prompt) = manifest
        .prompts
        .iter()
        .enumerate()
        .find(|(_, p)| p.name == name)
        .map(|(i, p)| (base + i, p))
        .ok_or_else(|| FeatureError::UnknownPrompt(name.to_string()))?;
    let raw = arguments.map(|a| Value::Object(a.clone()).to_string());
    let value = call_binding(host, index, name, &prompt.delphi, raw.as_deref(), control).await?;
    let blocks = match (&prompt.delphi.content, value) {
        (Some(shape), Some(value)) => {
            crate::content::blocks(*shape, &value).map_err(FeatureError::Failed)?
        }
        (None, Some(Value::String(text))) => vec![json!({"type": "text", "text": text})],
        (_, other) => {
            return Err(FeatureError::Failed(format!(
                "prompt `{name}` returned {other:?}"
            )))
        }
    };
    let messages: Vec<Value> = blocks
        .into_iter()
        .map(|content| json!({"role": "user", "content": content}))
        .collect();
    let mut result = Map::new();
    put(&mut result, "description", &prompt.description);
    result.insert("messages".into(), Value::Array(messages));
    Ok(Value::Object(result))
}

/// `prompts/get` of a Markdown prompt: its text with the arguments filled in, one user message.
fn markdown_prompt(
    prompt: &delphi_mcp_manifest::documents::MarkdownPromptEntry,
    arguments: Option<&Map<String, Value>>,
) -> Result<Value, FeatureError> {
    let given = |name: &str| arguments.and_then(|a| a.get(name)).and_then(Value::as_str);
    let mut problems = Vec::new();
    for (key, value) in arguments.into_iter().flatten() {
        if !prompt.arguments.iter().any(|a| &a.name == key) {
            problems.push(format!("unknown argument \"{key}\""));
        } else if !value.is_string() {
            problems.push(format!("argument \"{key}\" must be a string"));
        }
    }
    for argument in prompt.arguments.iter().filter(|a| a.required) {
        if given(&argument.name).is_none() {
            problems.push(format!("missing argument \"{}\"", argument.name));
        }
    }
    if !problems.is_empty() {
        return Err(FeatureError::InvalidParams(format!(
            "Invalid arguments for prompt \"{}\": {}",
            prompt.name,
            problems.join("; ")
        )));
    }
    let text = prompt.render(&|name| given(name).map(str::to_string));
    let mut result = Map::new();
    put(&mut result, "description", &prompt.description);
    result.insert(
        "messages".into(),
        json!([{"role": "user", "content": {"type": "text", "text": text}}]),
    );
    Ok(Value::Object(result))
}

/// `completion/complete` for `argument` (typed so far: `value`) of the prompt or template
/// `target`: a provider's suggestions, else the members of an enumeration argument starting
/// with `value`, else none. The `completion` object of the `CompleteResult`.
pub async fn complete(
    host: &dyn ToolHost,
    target: &CompletionTarget,
    argument: &str,
    value: &str,
    control: &CallControl,
) -> Result<Value, FeatureError> {
    let manifest = host.manifest();
    let base = manifest.section_starts().completions;
    let provider = manifest
        .completions
        .iter()
        .enumerate()
        .find(|(_, c)| c.target == *target && c.argument == argument);
    let values: Vec<String> = match provider {
        Some((i, entry)) => {
            let input = entry
                .delphi
                .params
                .iter()
                .find(|p| p.ty != ValueType::Context)
                .map_or("Value", |p| p.name.as_str());
            let raw = json!({ input: value }).to_string();
            let result = call_binding(
                host,
                base + i,
                &entry.name,
                &entry.delphi,
                Some(&raw),
                control,
            )
            .await?;
            result
                .and_then(|v| v.as_array().cloned())
                .unwrap_or_default()
                .into_iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        }
        None => {
            let typed = value.to_lowercase();
            enum_members(manifest, target, argument)
                .into_iter()
                .filter(|m| m.to_lowercase().starts_with(&typed))
                .collect()
        }
    };
    let total = values.len();
    let shown: Vec<String> = values.into_iter().take(MAX_COMPLETIONS).collect();
    Ok(json!({"values": shown, "total": total, "hasMore": total > MAX_COMPLETIONS}))
}

/// The members of `argument` when it is an enumeration parameter of `target`.
fn enum_members(manifest: &Manifest, target: &CompletionTarget, argument: &str) -> Vec<String> {
    let binding: Option<&DelphiBinding> = match target {
        CompletionTarget::Prompt { name } => manifest
            .prompts
            .iter()
            .find(|p| &p.name == name)
            .map(|p| &p.delphi),
        CompletionTarget::ResourceTemplate { uri } => manifest
            .resource_templates
            .iter()
            .find(|t| &t.uri_template == uri)
            .map(|t| &t.delphi),
    };
    binding
        .and_then(|b| b.params.iter().find(|p| p.name == argument))
        .map(|p| match &p.ty {
            ValueType::Enum { members, .. } => members.iter().map(|m| m.name.clone()).collect(),
            _ => Vec::new(),
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_whole_segments() {
        let vars = match_template("test://template/{id}/data", "test://template/123/data");
        assert_eq!(vars, Some(Map::from_iter([("id".into(), json!("123"))])));
        assert_eq!(
            match_template("test://template/{id}/data", "test://template//data"),
            None
        );
        assert_eq!(
            match_template("test://template/{id}/data", "test://template/1/2/data"),
            None
        );
        assert_eq!(match_template("a://{x}", "a://b/c"), None);
        assert_eq!(
            match_template("a://{x}-{y}", "a://1-2"),
            Some(Map::from_iter([
                ("x".into(), json!("1")),
                ("y".into(), json!("2"))
            ]))
        );
        assert_eq!(match_template("a://fixed", "a://fixed"), Some(Map::new()));
    }
}
