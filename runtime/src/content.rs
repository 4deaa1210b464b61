//! Content blocks from `McpAttributes.pas`'s content records (ABI 3): a tool whose result is a
//! `TMcpImage`, `TMcpAudio`, `TMcpContent` or `TMcpContents`, and prompts returning content,
//! answer with MCP content blocks instead of `structuredContent`.
//!
//! The records arrive as JSON objects in field order (`values::result`); fields are taken by
//! position, so a naming policy that renames them changes nothing here.

use delphi_mcp_manifest::ContentShape;
use serde_json::{json, Map, Value};

/// The content blocks of a result of `shape` (its JSON as the runtime decoded it).
pub fn blocks(shape: ContentShape, value: &Value) -> Result<Vec<Value>, String> {
    match shape {
        ContentShape::Image | ContentShape::Audio => {
            let fields = fields(value)?;
            let kind = if shape == ContentShape::Image {
                "image"
            } else {
                "audio"
            };
            Ok(vec![
                json!({"type": kind, "data": text_at(&fields, 0), "mimeType": text_at(&fields, 1)}),
            ])
        }
        ContentShape::Block => block(value).map(|b| vec![b]),
        ContentShape::Blocks => value
            .as_array()
            .ok_or_else(|| format!("expected an array of content records, got {value}"))?
            .iter()
            .map(block)
            .collect(),
    }
}

/// The fields of a record value, in order.
fn fields(value: &Value) -> Result<Vec<&Value>, String> {
    value
        .as_object()
        .map(|map| map.values().collect())
        .ok_or_else(|| format!("expected a content record, got {value}"))
}

fn text_at(fields: &[&Value], index: usize) -> String {
    fields
        .get(index)
        .and_then(|v| v.as_str())
        .unwrap_or_default()
        .to_string()
}

/// One `TMcpContent` (Kind, Text, Data, MimeType, Uri, Name) as a content block.
fn block(value: &Value) -> Result<Value, String> {
    let fields = fields(value)?;
    let kind = text_at(&fields, 0);
    let (text, data, mime, uri, name) = (
        text_at(&fields, 1),
        text_at(&fields, 2),
        text_at(&fields, 3),
        text_at(&fields, 4),
        text_at(&fields, 5),
    );
    let mut block = Map::new();
    let text_value = |v: String| Value::String(v);
    match kind.as_str() {
        "mckText" => {
            block.insert("type".into(), "text".into());
            block.insert("text".into(), text_value(text));
        }
        "mckImage" | "mckAudio" => {
            let kind = if kind == "mckImage" { "image" } else { "audio" };
            block.insert("type".into(), kind.into());
            block.insert("data".into(), text_value(data));
            block.insert("mimeType".into(), text_value(mime));
        }
        "mckResourceLink" => {
            block.insert("type".into(), "resource_link".into());
            block.insert("uri".into(), text_value(uri));
            block.insert("name".into(), text_value(name));
            if !mime.is_empty() {
                block.insert("mimeType".into(), text_value(mime));
            }
            if !text.is_empty() {
                block.insert("description".into(), text_value(text));
            }
        }
        "mckResource" => {
            let mut resource = Map::new();
            resource.insert("uri".into(), text_value(uri));
            if !mime.is_empty() {
                resource.insert("mimeType".into(), text_value(mime));
            }
            if data.is_empty() {
                resource.insert("text".into(), text_value(text));
            } else {
                resource.insert("blob".into(), text_value(data));
            }
            block.insert("type".into(), "resource".into());
            block.insert("resource".into(), Value::Object(resource));
        }
        other => return Err(format!("unknown content kind `{other}`")),
    }
    Ok(Value::Object(block))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_become_blocks_by_field_position() {
        let image = json!({"Data": "AAEC", "MimeType": "image/png"});
        assert_eq!(
            blocks(ContentShape::Image, &image),
            Ok(vec![
                json!({"type": "image", "data": "AAEC", "mimeType": "image/png"})
            ])
        );
        let contents = json!([
            {"Kind": "mckText", "Text": "hi", "Data": "", "MimeType": "", "Uri": "", "Name": ""},
            {"Kind": "mckResource", "Text": "body", "Data": "", "MimeType": "text/plain", "Uri": "test://x", "Name": ""}
        ]);
        assert_eq!(
            blocks(ContentShape::Blocks, &contents),
            Ok(vec![
                json!({"type": "text", "text": "hi"}),
                json!({"type": "resource", "resource": {"uri": "test://x", "mimeType": "text/plain", "text": "body"}})
            ])
        );
        assert!(blocks(ContentShape::Block, &json!({"Kind": "mckVideo"})).is_err());
    }
}
