//! The JSON Schema keywords an input schema of a JSON handler may use: the runtime checks every
//! one of them before the call, and the generator refuses a schema with any other, so no
//! keyword is silently ignored (`docs/types.md`, "JSON handlers").

/// Keywords that constrain values (checked by the runtime).
pub const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
];

/// Keywords that only annotate (allowed, not checked).
pub const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
];

/// The first keyword of `schema` (at any depth) that is neither checked nor an annotation,
/// with its JSON path.
pub fn unsupported_keyword(schema: &serde_json::Value, path: &str) -> Option<(String, String)> {
    use serde_json::Value;
    let Value::Object(map) = schema else {
        return None;
    };
    for (key, value) in map {
        if !KEYWORDS.contains(&key.as_str()) && !ANNOTATIONS.contains(&key.as_str()) {
            return Some((format!("{path}.{key}"), key.clone()));
        }
        let found = match (key.as_str(), value) {
            ("properties", Value::Object(props)) => props.iter().find_map(|(name, sub)| {
                unsupported_keyword(sub, &format!("{path}.properties.{name}"))
            }),
            ("items" | "additionalProperties", sub) => {
                unsupported_keyword(sub, &format!("{path}.{key}"))
            }
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}
