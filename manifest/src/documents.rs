//! Markdown documents a library serves besides its Pascal code: help documents (`help/*.md`:
//! resources `help://NAME` and the built-in `help_list`/`help_read` tools) and prompts written
//! as Markdown (`prompts/*.md`). Both may start with a small front matter between `---` lines:
//!
//! ```text
//! ---
//! name: code_review
//! title: Code review
//! description: Reviews a piece of code
//! arguments:
//!   - name: code
//!     description: The code to review
//!   - name: focus
//!     required: false
//! ---
//! Review this code, looking for {{focus}}:
//!
//! {{code}}
//! ```
//!
//! `key: value` lines (values may be quoted), and under `arguments:` a list of `- name: ...`
//! items with `description` and `required` (default true). Nothing else of YAML is read; an
//! unknown key is an error, so a typo does not pass silently. A help document's title defaults
//! to its first `# ` heading; names default to the file name without `.md`.

use crate::features::PromptArgumentEntry;
use serde::{Deserialize, Serialize};

/// A help document (`help/*.md`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HelpDocumentEntry {
    /// Its name (`help_read`'s argument; the resource is `help://NAME`).
    pub name: String,
    /// Its title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it covers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The Markdown text (without the front matter).
    pub text: String,
}

impl HelpDocumentEntry {
    /// The resource URI of the document.
    pub fn uri(&self) -> String {
        format!("help://{}", self.name)
    }
}

/// A prompt written as Markdown (`prompts/*.md`); `{{argument}}` in the text is replaced by the
/// argument's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MarkdownPromptEntry {
    /// The prompt's name.
    pub name: String,
    /// Its title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub arguments: Vec<PromptArgumentEntry>,
    /// The Markdown text with `{{argument}}` placeholders.
    pub template: String,
}

impl MarkdownPromptEntry {
    /// The text with every `{{name}}` of `values` replaced (one pass: replaced text is not
    /// searched again); placeholders of absent optional arguments become empty.
    pub fn render(&self, values: &dyn Fn(&str) -> Option<String>) -> String {
        let mut out = String::with_capacity(self.template.len());
        let mut rest = self.template.as_str();
        while let Some(open) = rest.find("{{") {
            out.push_str(&rest[..open]);
            let after = &rest[open + 2..];
            match after.find("}}") {
                Some(close)
                    if self
                        .arguments
                        .iter()
                        .any(|a| a.name == after[..close].trim()) =>
                {
                    out.push_str(&values(after[..close].trim()).unwrap_or_default());
                    rest = &after[close + 2..];
                }
                _ => {
                    out.push_str("{{");
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

/// What is wrong with a document, at a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct DocumentError {
    /// The line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// The front matter's fields and where the body starts.
#[derive(Debug, Default)]
struct FrontMatter {
    name: Option<String>,
    title: Option<String>,
    description: Option<String>,
    arguments: Vec<PromptArgumentEntry>,
    has_arguments: bool,
}

fn unquote(value: &str) -> String {
    let value = value.trim();
    for quote in ['"', '\''] {
        if value.len() >= 2 && value.starts_with(quote) && value.ends_with(quote) {
            return value[1..value.len() - 1].to_string();
        }
    }
    value.to_string()
}

/// Splits `text` into its front matter (parsed) and body.
fn split(text: &str) -> Result<(FrontMatter, String), DocumentError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, first)) if first.trim_end() == "---" => {}
        _ => return Ok((FrontMatter::default(), text.to_string())),
    }
    let mut front = FrontMatter::default();
    let mut in_arguments = false;
    let error = |line: usize, message: String| DocumentError {
        line: line + 1,
        message,
    };
    for (index, line) in lines.by_ref() {
        if line.trim_end() == "---" {
            let body: Vec<&str> = text.lines().skip(index + 1).collect();
            let mut body = body.join("\n");
            if text.ends_with('\n') {
                body.push('\n');
            }
            return Ok((front, body));
        }
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let indented = line.starts_with(' ') || line.starts_with('\t');
        let item = line.trim_start().strip_prefix("- ");
        let entry = item.unwrap_or(line.trim());
        let Some((key, value)) = entry.split_once(':') else {
            return Err(error(
                index,
                format!("expected `key: value`, got `{}`", line.trim()),
            ));
        };
        let (key, value) = (key.trim(), unquote(value));
        if in_arguments && indented {
            if item.is_some() {
                front.arguments.push(PromptArgumentEntry {
                    name: String::new(),
                    description: None,
                    required: true,
                });
            }
            let Some(argument) = front.arguments.last_mut() else {
                return Err(error(index, "an argument starts with `- name: ...`".into()));
            };
            match key {
                "name" => argument.name = value,
                "description" => argument.description = Some(value),
                "required" => {
                    argument.required = match value.as_str() {
                        "true" => true,
                        "false" => false,
                        other => {
                            return Err(error(
                                index,
                                format!("`required` is true or false, not `{other}`"),
                            ))
                        }
                    }
                }
                other => {
                    return Err(error(
                        index,
                        format!(
                            "unknown argument key `{other}` (known: name, description, required)"
                        ),
                    ))
                }
            }
            continue;
        }
        in_arguments = false;
        match key {
            "name" => front.name = Some(value),
            "title" => front.title = Some(value),
            "description" => front.description = Some(value),
            "arguments" if value.is_empty() => {
                in_arguments = true;
                front.has_arguments = true;
            }
            other => {
                return Err(error(
                    index,
                    format!("unknown key `{other}` (known: name, title, description, arguments)"),
                ))
            }
        }
    }
    Err(DocumentError {
        line: 1,
        message: "the front matter opened with `---` is not closed by a `---` line".into(),
    })
}

fn check_name(name: &str) -> Result<(), DocumentError> {
    if crate::naming::is_valid_name(name) {
        Ok(())
    } else {
        Err(DocumentError {
            line: 1,
            message: format!(
                "`{name}` is not a valid name (1 to 128 characters of A-Z, a-z, 0-9, `_`, `-` and `.`)"
            ),
        })
    }
}

/// Reads a help document; `stem` is its file name without `.md`.
pub fn parse_help(stem: &str, text: &str) -> Result<HelpDocumentEntry, DocumentError> {
    let (front, body) = split(text)?;
    if front.has_arguments {
        return Err(DocumentError {
            line: 1,
            message: "a help document has no arguments (prompts/*.md have)".into(),
        });
    }
    let name = front.name.unwrap_or_else(|| stem.to_string());
    check_name(&name)?;
    let title = front.title.or_else(|| {
        body.lines()
            .find_map(|l| l.strip_prefix("# ").map(|t| t.trim().to_string()))
    });
    Ok(HelpDocumentEntry {
        name,
        title,
        description: front.description,
        text: body,
    })
}

/// Reads a Markdown prompt; `stem` is its file name without `.md`.
pub fn parse_prompt(stem: &str, text: &str) -> Result<MarkdownPromptEntry, DocumentError> {
    let (front, body) = split(text)?;
    let name = front.name.unwrap_or_else(|| stem.to_string());
    check_name(&name)?;
    let mut seen = std::collections::HashSet::new();
    for argument in &front.arguments {
        if argument.name.is_empty() || !seen.insert(argument.name.as_str()) {
            return Err(DocumentError {
                line: 1,
                message: format!(
                    "argument names must be given and unique (`{}`)",
                    argument.name
                ),
            });
        }
    }
    Ok(MarkdownPromptEntry {
        name,
        title: front.title,
        description: front.description,
        arguments: front.arguments,
        template: body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROMPT: &str = "---\nname: code_review\ndescription: \"Reviews code\"\narguments:\n  - name: code\n    description: The code\n  - name: focus\n    required: false\n---\nLook for {{focus}} in:\n{{ code }}\n{{other}}\n";

    #[test]
    fn prompts_read_their_front_matter_and_render() {
        let prompt = parse_prompt("file", PROMPT).expect("valid");
        assert_eq!(prompt.name, "code_review");
        assert_eq!(prompt.description.as_deref(), Some("Reviews code"));
        assert_eq!(
            prompt
                .arguments
                .iter()
                .map(|a| (a.name.as_str(), a.required))
                .collect::<Vec<_>>(),
            [("code", true), ("focus", false)]
        );
        let text = prompt.render(&|name| (name == "code").then(|| "x := {{focus}};".to_string()));
        assert_eq!(text, "Look for  in:\nx := {{focus}};\n{{other}}\n");
    }

    #[test]
    fn help_documents_take_their_title_from_the_heading() {
        let help = parse_help("getting-started", "# Getting started\n\nText.\n").expect("valid");
        assert_eq!(help.name, "getting-started");
        assert_eq!(help.title.as_deref(), Some("Getting started"));
        assert_eq!(help.uri(), "help://getting-started");
        assert_eq!(help.text, "# Getting started\n\nText.\n");
    }

    #[test]
    fn mistakes_are_named_with_their_line() {
        let error = parse_prompt("p", "---\nname: p\ndescripton: typo\n---\n").expect_err("typo");
        assert_eq!(error.line, 3);
        assert!(error.message.contains("descripton"), "{}", error.message);
        assert!(parse_prompt("p", "---\nname: p\n").is_err());
        assert!(parse_help("bad name", "text").is_err());
        let error = parse_prompt(
            "p",
            "---\narguments:\n  - name: a\n    required: maybe\n---\n",
        )
        .expect_err("not a boolean");
        assert_eq!(error.line, 4);
    }
}
