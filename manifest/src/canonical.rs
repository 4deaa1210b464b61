//! The canonical form of a manifest, its hash, and where two manifests differ.
//!
//! The canonical form is the compact JSON of the parsed manifest: the same manifest written with
//! other indentation or line ends has the same form, so a library's embedded (compact) text,
//! `tools.json` (indented) and the text `bind!` compiles in all hash alike.

use crate::Manifest;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Longest value (in characters) a [`Difference`] shows before shortening it with `...`.
const SHOWN_CHARS: usize = 80;

impl Manifest {
    /// The canonical form: compact JSON, fields in the order of the types, schemas as parsed.
    pub fn canonical_json(&self) -> String {
        // Serializing these types cannot fail: every map key is a string.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// SHA-256 (lower-case hex) of [`Self::canonical_json`]: the manifest's identity, shown by
    /// `mcp_get_version` and the HTTP status page and compared by `bind!`'s `Library::load`.
    pub fn canonical_sha256(&self) -> String {
        Sha256::digest(self.canonical_json().as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// Where two manifests first differ, in the order the fields are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// JSON path: `$.name`, `$.tools["calc_scale"].description` (array items are named by
    /// their `name` when they have one, else by index), or `$.tools (length)`.
    pub path: String,
    /// The first manifest's value there as JSON (at most 80 characters, then `...`), `nothing`
    /// when it has none, or its length for a length difference.
    pub left: String,
    /// The second manifest's value, in the same form.
    pub right: String,
}

/// The first place where `left` and `right` differ; `None` when they are equal.
pub fn first_difference(left: &Manifest, right: &Manifest) -> Option<Difference> {
    let a = serde_json::to_value(left).unwrap_or_default();
    let b = serde_json::to_value(right).unwrap_or_default();
    difference_of(&a, &b, "$".to_string())
}

fn difference_of(a: &Value, b: &Value, path: String) -> Option<Difference> {
    let found = |path: String, left: String, right: String| Difference { path, left, right };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, xv) in x {
                let sub = format!("{path}.{key}");
                match y.get(key) {
                    Some(yv) => {
                        if let Some(d) = difference_of(xv, yv, sub) {
                            return Some(d);
                        }
                    }
                    None => return Some(found(sub, shorten(xv), "nothing".into())),
                }
            }
            y.iter()
                .find(|(key, _)| !x.contains_key(*key))
                .map(|(key, yv)| found(format!("{path}.{key}"), "nothing".into(), shorten(yv)))
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (xv, yv)) in x.iter().zip(y).enumerate() {
                // Tools and parameters read better by name than by index.
                let label = xv
                    .get("name")
                    .and_then(Value::as_str)
                    .map(|n| format!("{path}[{n:?}]"))
                    .unwrap_or_else(|| format!("{path}[{i}]"));
                if let Some(d) = difference_of(xv, yv, label) {
                    return Some(d);
                }
            }
            (x.len() != y.len()).then(|| {
                found(
                    format!("{path} (length)"),
                    x.len().to_string(),
                    y.len().to_string(),
                )
            })
        }
        _ => (a != b).then(|| found(path, shorten(a), shorten(b))),
    }
}

fn shorten(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > SHOWN_CHARS {
        let kept: String = text.chars().take(SHOWN_CHARS - 3).collect();
        format!("{kept}...")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(text: &str) -> Manifest {
        Manifest::from_json(text.as_bytes()).expect("a valid manifest")
    }

    const CALC: &str = r#"{"formatVersion":1,"abiVersion":1,"name":"Calc","target":"delphi12-win64","generator":"delphi-mcp","tools":[
        {"name":"a","description":"first","inputSchema":{"type":"object"},"outputSchema":{},
         "x-delphi":{"export":"mcp_tool_a","routine":"U.A","call":{"kind":"routine"},"params":[],
                     "source":{"file":"U.pas","line":1,"column":1}}}]}"#;

    #[test]
    fn layout_does_not_change_the_hash() {
        let indented = manifest(CALC);
        let compact = manifest(&indented.canonical_json());
        assert_eq!(indented.canonical_sha256(), compact.canonical_sha256());
        assert_eq!(indented.canonical_sha256().len(), 64);
        let renamed = manifest(&CALC.replace("\"Calc\"", "\"Other\""));
        assert_ne!(indented.canonical_sha256(), renamed.canonical_sha256());
    }

    #[test]
    fn the_first_difference_names_its_path_and_both_values() {
        let a = manifest(CALC);
        assert_eq!(first_difference(&a, &a), None);
        let b = manifest(&CALC.replace("\"first\"", "\"changed\""));
        assert_eq!(
            first_difference(&a, &b),
            Some(Difference {
                path: r#"$.tools["a"].description"#.into(),
                left: "\"first\"".into(),
                right: "\"changed\"".into(),
            })
        );
        let long = "x".repeat(200);
        let c = manifest(&CALC.replace("\"first\"", &format!("\"{long}\"")));
        let shown = first_difference(&a, &c)
            .map(|d| d.right)
            .unwrap_or_default();
        assert_eq!(shown.chars().count(), SHOWN_CHARS);
        assert!(shown.ends_with("..."));
    }

    #[test]
    fn a_missing_tool_is_a_length_difference() {
        let a = manifest(CALC);
        let mut b = a.clone();
        b.tools.clear();
        let found = first_difference(&a, &b).expect("differs");
        assert_eq!(found.path, "$.tools (length)");
        assert_eq!((found.left.as_str(), found.right.as_str()), ("1", "0"));
    }
}
