//! The bad-input suite's cases (`tests/bad_input/cases.json`) and how an answer is checked;
//! run over stdio by `tests/stdio/bad_input.rs` and over HTTP by `tests/http/bad_input.rs`.
//!
//! Each case is sent to a real `delphi-mcp serve` of the ABI fixture unit (`tests/fixtures/abi`,
//! every row of the type table); its answer is compared exactly (JSON-RPC error code and the id's
//! exact text, `isError` with parts of the message, the result, HTTP status, or no answer) and
//! each case is followed by a tool call proving that the server still serves.
//!
//! A case (one per line of the file): `send` (text, `$META` replaced by the 2026-07-28 `_meta`
//! object and `$REPEAT` by `repeat.text` written `repeat.times` times (`$N`: 0, 1, ...) joined
//! by `repeat.join`), or `send_hex` (raw bytes), or `writes` (stdio: several writes); `era`
//! (a handshake version, `2026-07-28`, or `none`: before any lifecycle); `on` (`stdio`, `http` or
//! both); `expect`: `"none"`, `{"error": code, "id": "raw id"}` with an optional `message`
//! part, `{"result": json, "id"}`, `{"value": json, "id"}` (a tool's
//! `structuredContent.result`), `{"tool_error": "part" or [parts], "id"}`, `{"batch":
//! [expect...]}`; `more` (further answers over stdio); `http`: the HTTP status (default: 400 for
//! -32700/-32600, 404 for -32601 in 2026-07-28, 202 for no answer, else 200), an `expect` of its
//! own, `headers`, `accept`, `content_type`, `chunked`.

use super::server::meta_2026;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// One case of the file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    #[serde(default = "default_era")]
    pub era: String,
    #[serde(default)]
    pub on: Option<String>,
    #[serde(default)]
    pub send: Option<String>,
    #[serde(default)]
    pub send_hex: Option<String>,
    #[serde(default)]
    pub writes: Option<Vec<String>>,
    #[serde(default)]
    pub repeat: Option<Repeat>,
    pub expect: Value,
    #[serde(default)]
    pub more: Vec<Value>,
    #[serde(default)]
    pub http: Option<HttpPart>,
}

/// A generated part of a message (`$REPEAT`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repeat {
    pub text: String,
    pub times: usize,
    #[serde(default)]
    pub join: String,
}

/// What differs over HTTP.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HttpPart {
    pub status: Option<u16>,
    pub expect: Option<Value>,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    pub accept: Option<String>,
    pub content_type: Option<String>,
    #[serde(default)]
    pub chunked: bool,
}

#[derive(Deserialize)]
struct CaseFile {
    cases: Vec<Case>,
}

fn default_era() -> String {
    "2025-11-25".into()
}

/// The protocol versions with `initialize`.
pub const HANDSHAKE_ERAS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// The stateless protocol version.
pub const STATELESS: &str = "2026-07-28";

/// The cases of the file.
pub fn cases() -> Vec<Case> {
    let path = super::repo().join("tests/bad_input/cases.json");
    let text = std::fs::read_to_string(&path).expect("read the cases");
    let file: CaseFile = serde_json::from_str(&text).expect("the case file is valid");
    for case in &file.cases {
        assert!(
            HANDSHAKE_ERAS.contains(&case.era.as_str())
                || ["none", STATELESS].contains(&case.era.as_str()),
            "{}: unknown era {}",
            case.name,
            case.era
        );
    }
    file.cases
}

/// The ABI fixture unit's library (every row of the type table).
pub fn library() -> PathBuf {
    super::fpc::build_fixture("abi")
}

impl Case {
    /// Whether the case runs over `transport` (`stdio`, `http`).
    pub fn runs_on(&self, transport: &str) -> bool {
        self.on.as_deref().is_none_or(|on| on == transport)
    }

    /// The bytes of the message (one line or body, no line end).
    pub fn bytes(&self) -> Vec<u8> {
        if let Some(hex) = &self.send_hex {
            return hex_bytes(hex);
        }
        let mut text = self.send.clone().unwrap_or_default();
        text = text.replace("$META", &meta_2026().to_string());
        if let Some(repeat) = &self.repeat {
            let pieces: Vec<String> = (0..repeat.times)
                .map(|n| repeat.text.replace("$N", &n.to_string()))
                .collect();
            text = text.replace("$REPEAT", &pieces.join(&repeat.join));
        }
        text.into_bytes()
    }
}

fn hex_bytes(hex: &str) -> Vec<u8> {
    let digits: Vec<u8> = hex.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).unwrap_or("00"), 16).unwrap_or(0))
        .collect()
}

/// The members of a JSON object as raw text (ids of any size survive).
pub fn members(text: &str) -> Option<HashMap<String, Box<RawValue>>> {
    serde_json::from_str(text).ok()
}

/// Checks one answer (`None`: no answer) against an expectation; `Err` says what differs.
pub fn check(expect: &Value, answer: Option<&str>) -> Result<(), String> {
    if expect == "none" {
        return match answer {
            None => Ok(()),
            Some(answer) => Err(format!("expected no answer, got {answer}")),
        };
    }
    let answer = answer.ok_or("expected an answer, got none")?;
    if let Some(batch) = expect.get("batch").and_then(Value::as_array) {
        let elements: Vec<Box<RawValue>> = serde_json::from_str(answer)
            .map_err(|e| format!("expected a batch answer (array), got {answer} ({e})"))?;
        if elements.len() != batch.len() {
            return Err(format!(
                "expected {} answers in the batch, got {answer}",
                batch.len()
            ));
        }
        for (element, expected) in elements.iter().zip(batch) {
            check(expected, Some(element.get()))?;
        }
        return Ok(());
    }
    let found = members(answer).ok_or_else(|| format!("not a JSON object: {answer}"))?;
    if found.get("jsonrpc").map(|v| v.get()) != Some("\"2.0\"") {
        return Err(format!("no \"jsonrpc\":\"2.0\": {answer}"));
    }
    if let Some(id) = expect.get("id").and_then(Value::as_str) {
        let got = found.get("id").map(|v| v.get()).unwrap_or("(none)");
        if got != id {
            return Err(format!("expected id {id}, got {got}: {answer}"));
        }
    }
    let part = |name: &str| -> Option<Value> {
        found
            .get(name)
            .and_then(|v| serde_json::from_str(v.get()).ok())
    };
    if let Some(code) = expect.get("error") {
        let error = part("error").ok_or_else(|| format!("expected an error, got {answer}"))?;
        if &error["code"] != code {
            return Err(format!("expected error {code}, got {answer}"));
        }
        if let Some(message) = expect.get("message").and_then(Value::as_str) {
            if !error["message"]
                .as_str()
                .unwrap_or_default()
                .contains(message)
            {
                return Err(format!(
                    "expected the message to contain {message:?}: {answer}"
                ));
            }
        }
        return Ok(());
    }
    let result = part("result").ok_or_else(|| format!("expected a result, got {answer}"))?;
    if let Some(expected) = expect.get("result") {
        if !same(&result, expected) {
            return Err(format!("expected result {expected}, got {answer}"));
        }
    }
    if let Some(expected) = expect.get("value") {
        if result["isError"] != json!(false)
            || !same(&result["structuredContent"]["result"], expected)
        {
            return Err(format!("expected the value {expected}, got {answer}"));
        }
    }
    if let Some(parts) = expect.get("tool_error") {
        // One part of the text, or several (all of them).
        let parts: Vec<&str> = match parts {
            Value::Array(parts) => parts.iter().filter_map(Value::as_str).collect(),
            other => other.as_str().into_iter().collect(),
        };
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        if result["isError"] != json!(true) || !parts.iter().all(|p| text.contains(p)) {
            return Err(format!(
                "expected a tool error containing {parts:?}, got {answer}"
            ));
        }
    }
    Ok(())
}

/// JSON equality with numbers compared by value (`0` equals `0.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            _ if x == y => true,
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The liveness check after each case: a tool call only a serving server answers.
pub fn liveness(era: &str, n: i64) -> (String, Value) {
    let meta = if era == STATELESS {
        format!(",\"_meta\":{}", meta_2026())
    } else {
        String::new()
    };
    let id = format!("\"alive-{n}\"");
    (
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo_int64","arguments":{{"V":{n}}}{meta}}}}}"#
        ),
        json!({"value": n, "id": id}),
    )
}

/// An `initialize` request for `version` (id `"init"`).
pub fn initialize(version: &str) -> String {
    super::server::initialize(json!("init"), version).to_string()
}
