//! [`SchemaText`]: a tool's JSON Schema as the manifest holds it.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;
use std::sync::OnceLock;

/// A JSON Schema read from a manifest as its text and turned into a tree the first time it is
/// asked for ([`SchemaText::value`]).
///
/// A server reads its whole manifest before its first answer, but needs a tool's schemas only
/// for the tool list and for checking a JSON handler's arguments. The schemas are about half of
/// a manifest's text (the calc example's; `docs/performance.md`, "What a start waits for").
/// Text and tree always hold the same JSON: equality and serialization go through the tree, so
/// a manifest written pretty stays pretty and two manifests compare by their schemas' JSON, not
/// their spacing.
pub struct SchemaText {
    text: Box<RawValue>,
    tree: OnceLock<Value>,
}

impl SchemaText {
    /// The schema as a JSON tree (read from the text the first time; the text was checked to
    /// read as one when it was read).
    pub fn value(&self) -> &Value {
        self.tree.get_or_init(|| {
            // The text was read as one JSON value, so it reads again as one.
            serde_json::from_str(self.text.get()).unwrap_or_default()
        })
    }

    /// The schema as a JSON tree of its own, read from the text without keeping a tree here
    /// (for a copy that outlives this: the tool list's, which would otherwise hold a second).
    pub fn to_value(&self) -> Value {
        match self.tree.get() {
            Some(tree) => tree.clone(),
            None => serde_json::from_str(self.text.get()).unwrap_or_default(),
        }
    }
}

impl From<Value> for SchemaText {
    fn from(value: Value) -> SchemaText {
        let text =
            RawValue::from_string(value.to_string()).unwrap_or_else(|_| RawValue::NULL.to_owned());
        SchemaText {
            text,
            tree: OnceLock::from(value),
        }
    }
}

impl Clone for SchemaText {
    fn clone(&self) -> SchemaText {
        SchemaText {
            text: self.text.clone(),
            tree: self.tree.clone(),
        }
    }
}

impl PartialEq for SchemaText {
    fn eq(&self, other: &SchemaText) -> bool {
        self.text.get() == other.text.get() || self.value() == other.value()
    }
}

impl std::fmt::Debug for SchemaText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text.get())
    }
}

impl Serialize for SchemaText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for SchemaText {
    /// Keeps the text: read from JSON text only (`serde_json::from_slice`, `from_str`, as
    /// [`crate::Manifest::from_json`] reads), not from a `Value`. A text that a `Value` cannot
    /// hold (`1e400`, a lone surrogate) fails here, as it did when the tree was built at once.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<SchemaText, D::Error> {
        let text = Box::<RawValue>::deserialize(deserializer)?;
        if !plainly_value_shaped(text.get()) {
            serde_json::from_str::<ValueShaped>(text.get()).map_err(serde::de::Error::custom)?;
        }
        Ok(SchemaText {
            text,
            tree: OnceLock::new(),
        })
    }
}

/// Whether `json`, a text that reads as one JSON value, plainly reads as a `Value` too: it has
/// no `\u` escape (the only way to write a lone surrogate) and no number with an exponent or
/// of more than 300 characters (the only ways to overflow an `f64`). A byte scan: for the calc
/// example's schemas 125,000 instructions against 203,000 for reading them with
/// [`ValueShaped`], which reads a text the scan is not sure of.
fn plainly_value_shaped(json: &str) -> bool {
    /// Longest number that cannot overflow an `f64` without an exponent (`f64::MAX` has 309
    /// integer digits).
    const PLAIN_NUMBER: usize = 300;
    let bytes = json.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                at += 1;
                loop {
                    match bytes.get(at) {
                        None => return false,
                        Some(b'"') => break,
                        Some(b'\\') => {
                            if bytes.get(at + 1) == Some(&b'u') {
                                return false;
                            }
                            at += 2;
                        }
                        Some(_) => at += 1,
                    }
                }
                at += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = at;
                while at < bytes.len() && matches!(bytes[at], b'-' | b'+' | b'.' | b'0'..=b'9') {
                    at += 1;
                }
                if at - start > PLAIN_NUMBER || matches!(bytes.get(at), Some(b'e' | b'E')) {
                    return false;
                }
            }
            _ => at += 1,
        }
    }
    true
}

/// Reads any JSON text that `serde_json::Value` can hold, and fails on any other, without
/// building the value: numbers are read as numbers (an `f64` overflow fails, as for a
/// `Value`), strings and keys as strings (a lone surrogate fails), within serde_json's own
/// nesting limit. Read it with `serde_json::from_str::<ValueShaped>` (or `from_slice`).
pub struct ValueShaped;

impl<'de> serde::Deserialize<'de> for ValueShaped {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ValueShaped, D::Error> {
        deserializer.deserialize_any(ValueShapedVisitor)
    }
}

struct ValueShapedVisitor;

impl<'de> serde::de::Visitor<'de> for ValueShapedVisitor {
    type Value = ValueShaped;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<ValueShaped, E> {
        Ok(ValueShaped)
    }
    fn visit_i64<E>(self, _: i64) -> Result<ValueShaped, E> {
        Ok(ValueShaped)
    }
    fn visit_u64<E>(self, _: u64) -> Result<ValueShaped, E> {
        Ok(ValueShaped)
    }
    fn visit_f64<E>(self, _: f64) -> Result<ValueShaped, E> {
        Ok(ValueShaped)
    }
    fn visit_str<E>(self, _: &str) -> Result<ValueShaped, E> {
        Ok(ValueShaped)
    }
    fn visit_unit<E>(self) -> Result<ValueShaped, E> {
        Ok(ValueShaped)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<ValueShaped, A::Error> {
        while seq.next_element::<ValueShaped>()?.is_some() {}
        Ok(ValueShaped)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<ValueShaped, A::Error> {
        while map.next_key::<ValueShaped>()?.is_some() {
            map.next_value::<ValueShaped>()?;
        }
        Ok(ValueShaped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_tree_agree_and_compare_by_json() {
        let read: SchemaText = serde_json::from_str(
            r#"{ "type" : "object", "properties": {"a": {"type": "integer"}} }"#,
        )
        .expect("schema");
        assert_eq!(read.to_value()["properties"]["a"]["type"], "integer");
        assert!(read.tree.get().is_none(), "to_value keeps no tree");
        assert_eq!(read.value()["properties"]["a"]["type"], "integer");
        let made = SchemaText::from(read.value().clone());
        assert_eq!(read, made, "same JSON, other spacing");
        assert_eq!(
            serde_json::to_string(&read).expect("JSON"),
            r#"{"type":"object","properties":{"a":{"type":"integer"}}}"#
        );
        let other = SchemaText::from(serde_json::json!({"type": "string"}));
        assert_ne!(read, other);
        for unholdable in [
            r#"{"maximum": 1e400}"#,
            r#"{"const": "\ud800"}"#,
            r#"{"enum": ["a\"", -1E+999]}"#,
        ] {
            assert!(
                serde_json::from_str::<Value>(unholdable).is_err(),
                "{unholdable}"
            );
            assert!(
                serde_json::from_str::<SchemaText>(unholdable).is_err(),
                "{unholdable}"
            );
        }
    }

    /// The scan is sure only of texts that read as a `Value`, and sure of generated schemas.
    #[test]
    fn the_plain_scan_is_sure_only_of_what_reads_as_a_value() {
        let plain = [
            r#"{"type":"string","pattern":"^[0-9]{4}-[0-9]{2}$","description":"e.g. 1e400 \" \\ \n"}"#,
            r#"{"type":"integer","minimum":-2147483648,"maximum":18446744073709551615}"#,
            r#"{"type":"number","minimum":-0.5,"enum":[1.25,2,null,true,false,"\\u"]}"#,
        ];
        for text in plain {
            assert!(plainly_value_shaped(text), "{text}");
            assert!(serde_json::from_str::<Value>(text).is_ok(), "{text}");
        }
        let unsure = [
            r#"{"maximum":1e3}"#,
            r#"{"maximum":-1E-3}"#,
            r#"{"const":"\u0041"}"#,
            r#"{"const":"\ud800"}"#,
        ];
        for text in unsure {
            assert!(!plainly_value_shaped(text), "{text}");
        }
        let long = format!("[{}]", "9".repeat(400));
        assert!(!plainly_value_shaped(&long));
        assert!(serde_json::from_str::<Value>(&long).is_err());
        // Every prefix, suffix and one-byte change of these: whatever the scan is sure of
        // reads as a `Value` (when it is JSON at all).
        let mut checked = 0;
        for text in plain.iter().chain(unsure.iter()) {
            let bytes = text.as_bytes();
            let mut variants: Vec<Vec<u8>> = Vec::new();
            for cut in 0..bytes.len() {
                variants.push(bytes[..cut].to_vec());
                variants.push(bytes[cut..].to_vec());
                for replacement in [b'e', b'"', b'\\', b'u', b'9', b'-', b'E', b' '] {
                    let mut changed = bytes.to_vec();
                    changed[cut] = replacement;
                    variants.push(changed);
                }
            }
            for variant in variants {
                let Ok(variant) = String::from_utf8(variant) else {
                    continue;
                };
                if serde_json::from_str::<&RawValue>(&variant).is_ok()
                    && plainly_value_shaped(&variant)
                {
                    checked += 1;
                    assert!(serde_json::from_str::<Value>(&variant).is_ok(), "{variant}");
                }
            }
        }
        assert!(checked > 100, "{checked} variants read as JSON");
    }
}
