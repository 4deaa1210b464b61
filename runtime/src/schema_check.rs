//! Validation of the arguments of JSON handlers (`docs/types.md`, "JSON handlers") against the
//! input schema their attribute gives, before the call. The schema may use only the keywords
//! of [`delphi_mcp_manifest::json_schema::KEYWORDS`] (the generator refuses others), so every
//! keyword is checked and none is ignored.
//!
//! Problems are reported like those of declared parameters, with the path of the value:
//! `argument "items[2].name": expected a string, got a number`.

use crate::marshal::ArgumentProblem;
use crate::raw_json;
use serde_json::{Map, Value};

/// Checks `value` against `schema`; problems go to `problems` with their path (`path` is the
/// path of `value`, empty for the arguments object).
pub fn check(schema: &Value, value: &Value, path: &str, problems: &mut Vec<ArgumentProblem>) {
    let Value::Object(schema) = schema else {
        // `true`/`false` schemas.
        if schema == &Value::Bool(false) {
            push(problems, path, "no value is allowed here".into());
        }
        return;
    };
    if let Some(expected) = schema.get("type") {
        let types: Vec<&str> = match expected {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.iter().any(|t| is_type(value, t)) {
            let named: Vec<&str> = types.iter().map(|t| a_type(t)).collect();
            push(
                problems,
                path,
                format!("expected {}, got {}", named.join(" or "), kind(value)),
            );
            return;
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            push(
                problems,
                path,
                format!(
                    "expected one of {}",
                    compact(&Value::Array(allowed.clone()))
                ),
            );
        }
    }
    if let Some(constant) = schema.get("const") {
        if constant != value {
            push(problems, path, format!("expected {}", compact(constant)));
        }
    }
    match value {
        Value::Number(n) => number(schema, n, path, problems),
        Value::String(s) => {
            let count = s.chars().count() as u64;
            let bounds = ("minLength", "maxLength", "characters");
            count_bounds(schema, bounds, count, path, problems);
        }
        Value::Array(items) => array(schema, items, path, problems),
        Value::Object(members) => object(schema, members, path, problems),
        _ => {}
    }
}

/// Checks `count` against the keywords `(min, max, what they count)` of `schema`.
fn count_bounds(
    schema: &Map<String, Value>,
    (min_key, max_key, unit): (&str, &str, &str),
    count: u64,
    path: &str,
    problems: &mut Vec<ArgumentProblem>,
) {
    if let Some(min) = schema.get(min_key).and_then(Value::as_u64) {
        if count < min {
            let message = format!("expected at least {min} {unit}, got {count}");
            push(problems, path, message);
        }
    }
    if let Some(max) = schema.get(max_key).and_then(Value::as_u64) {
        if count > max {
            let message = format!("expected at most {max} {unit}, got {count}");
            push(problems, path, message);
        }
    }
}

fn push(problems: &mut Vec<ArgumentProblem>, path: &str, message: String) {
    problems.push(ArgumentProblem {
        argument: (!path.is_empty()).then(|| path.to_string()),
        message,
    });
}

fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => {
            value.as_i64().is_some()
                || value.as_u64().is_some()
                || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

/// A schema type name as the messages of declared parameters say it.
fn a_type(name: &str) -> &str {
    match name {
        "object" => "an object",
        "array" => "an array",
        "string" => "a string",
        "boolean" => "a boolean",
        "number" => "a number",
        "integer" => "an integer",
        other => other,
    }
}

fn kind(value: &Value) -> &'static str {
    raw_json::kind(match value {
        Value::Null => "null",
        Value::Bool(_) => "true",
        Value::Number(_) => "0",
        Value::String(_) => "\"\"",
        Value::Array(_) => "[]",
        Value::Object(_) => "{}",
    })
}

fn compact(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 80 {
        format!("{}...", text.chars().take(80).collect::<String>())
    } else {
        text
    }
}

/// A bound keyword, whether a value meets it, and how a message says it.
type BoundCheck = (&'static str, fn(f64, f64) -> bool, &'static str);

fn number(
    schema: &Map<String, Value>,
    n: &serde_json::Number,
    path: &str,
    problems: &mut Vec<ArgumentProblem>,
) {
    let Some(v) = n.as_f64() else {
        return;
    };
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    let checks: [BoundCheck; 4] = [
        ("minimum", |v, b| v >= b, "at least"),
        ("maximum", |v, b| v <= b, "at most"),
        ("exclusiveMinimum", |v, b| v > b, "more than"),
        ("exclusiveMaximum", |v, b| v < b, "less than"),
    ];
    for (key, ok, words) in checks {
        if let Some(b) = bound(key) {
            if !ok(v, b) {
                push(
                    problems,
                    path,
                    format!("expected a number {words} {b}, got {n}"),
                );
            }
        }
    }
}

fn array(
    schema: &Map<String, Value>,
    items: &[Value],
    path: &str,
    problems: &mut Vec<ArgumentProblem>,
) {
    let bounds = ("minItems", "maxItems", "items");
    count_bounds(schema, bounds, items.len() as u64, path, problems);
    if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
        for (i, item) in items.iter().enumerate() {
            if items[..i].contains(item) {
                push(
                    problems,
                    &format!("{path}[{i}]"),
                    format!(
                        "{} is given more than once; the items must be unique",
                        compact(item)
                    ),
                );
                break;
            }
        }
    }
    if let Some(item_schema) = schema.get("items") {
        for (i, item) in items.iter().enumerate() {
            check(item_schema, item, &format!("{path}[{i}]"), problems);
        }
    }
}

fn object(
    schema: &Map<String, Value>,
    members: &Map<String, Value>,
    path: &str,
    problems: &mut Vec<ArgumentProblem>,
) {
    let at = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !members.contains_key(name) {
                push(problems, &at(name), "missing".into());
            }
        }
    }
    for (key, value) in members {
        match properties.and_then(|p| p.get(key)) {
            Some(property) => check(property, value, &at(key), problems),
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    let names: Vec<String> = properties
                        .map(|p| p.keys().map(|k| format!("\"{k}\"")).collect())
                        .unwrap_or_default();
                    push(
                        problems,
                        &at(key),
                        format!("unknown argument; expected {}", names.join(", ")),
                    );
                }
                Some(extra @ Value::Object(_)) => check(extra, value, &at(key), problems),
                _ => {}
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_keyword_is_checked() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 3},
                "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "uniqueItems": true, "maxItems": 2},
                "n": {"type": "integer", "minimum": 0, "exclusiveMaximum": 10}
            },
            "required": ["name"],
            "additionalProperties": false
        });
        let mut problems = Vec::new();
        check(
            &schema,
            &json!({"name": "ok", "tags": ["a"], "n": 3}),
            "",
            &mut problems,
        );
        assert!(problems.is_empty(), "{problems:?}");
        check(
            &schema,
            &json!({"tags": ["a", "a", "c"], "n": 10, "x": 1}),
            "",
            &mut problems,
        );
        let text: Vec<String> = problems
            .iter()
            .map(|p| format!("{}: {}", p.argument.clone().unwrap_or_default(), p.message))
            .collect();
        assert_eq!(
            text,
            [
                "name: missing",
                "tags: expected at most 2 items, got 3",
                "tags[1]: \"a\" is given more than once; the items must be unique",
                "tags[2]: expected one of [\"a\",\"b\"]",
                "n: expected a number less than 10, got 10",
                "x: unknown argument; expected \"name\", \"tags\", \"n\"",
            ]
        );
    }
}
