//! The requests every server gets and the check of every answer.

use delphi_mcp_side_by_side::CANNED_REPLY;
use serde::Deserialize;
use serde_json::Value;

/// The protocol version of the handshake over stdio (every server here speaks it).
pub const HANDSHAKE_VERSION: &str = "2025-06-18";

/// The arguments of call `index`: `Value` differs per call so that a mixed-up answer shows.
pub fn arguments(index: u64) -> (f64, f64) {
    (index as f64 + 0.5, 3.0)
}

/// The `tools/call` of `calc_scale` with id `index`, with `meta` (the 2026-07-28 `_meta`
/// object's text) when given.
pub fn tools_call(index: u64, meta: Option<&str>) -> String {
    let (value, factor) = arguments(index);
    let meta = meta.map(|m| format!(r#","_meta":{m}"#)).unwrap_or_default();
    format!(
        r#"{{"jsonrpc":"2.0","id":{index},"method":"tools/call","params":{{"name":"calc_scale","arguments":{{"Value":{value:?},"Factor":{factor:?}}}{meta}}}}}"#
    )
}

/// The handshake's `initialize` request (id 0) and `notifications/initialized`.
pub fn handshake() -> (String, String) {
    (
        format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{HANDSHAKE_VERSION}","capabilities":{{}},"clientInfo":{{"name":"bench-compare","version":"1"}}}}}}"#
        ),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
    )
}

/// The 2026-07-28 `_meta` every stateless request carries.
pub const META_2026: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench-compare","version":"1"}}"#;

/// What a server's answers are checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A `tools/call` answer with the request's id and `Value * Factor` as the result.
    Mcp,
    /// Exactly [`CANNED_REPLY`] (the limit servers).
    Canned,
}

/// The id of a JSON-RPC answer as a number (`None` when absent or not a number).
pub fn answer_id(answer: &Value) -> Option<u64> {
    answer.get("id").and_then(Value::as_u64)
}

/// Checks the answer text to call `index`; `Err` says what is wrong.
pub fn check(expect: Expect, index: u64, text: &str) -> Result<(), String> {
    if expect == Expect::Canned {
        return if text.trim_end() == CANNED_REPLY {
            Ok(())
        } else {
            Err(format!("not the canned reply: {text}"))
        };
    }
    if structured_answer_is(text, index) {
        return Ok(());
    }
    let answer: Value =
        serde_json::from_str(text).map_err(|e| format!("answer is not JSON ({e}): {text}"))?;
    if answer_id(&answer) != Some(index) {
        return Err(format!("answer to call {index} has another id: {text}"));
    }
    let (value, factor) = arguments(index);
    let expected = value * factor;
    let result = &answer["result"];
    if result["isError"] == Value::Bool(true) {
        return Err(format!("tool error for call {index}: {text}"));
    }
    // structuredContent where the server sends it, else the text block (a number or the JSON).
    let got = result["structuredContent"]["result"].as_f64().or_else(|| {
        let text = result["content"][0]["text"].as_str()?;
        let parsed: Value = serde_json::from_str(text).ok()?;
        parsed.as_f64().or_else(|| parsed["result"].as_f64())
    });
    match got {
        Some(got) if got == expected => Ok(()),
        _ => Err(format!(
            "wrong answer to call {index} (expected {expected}): {text}"
        )),
    }
}

/// The parts of a `tools/call` answer the check reads; every other member is skipped unread.
#[derive(Deserialize)]
struct StructuredAnswer {
    id: u64,
    result: StructuredResult,
}

#[derive(Deserialize)]
struct StructuredResult {
    #[serde(rename = "isError", default)]
    is_error: bool,
    #[serde(rename = "structuredContent")]
    structured_content: StructuredValue,
}

#[derive(Deserialize)]
struct StructuredValue {
    result: f64,
}

/// Whether `text` is the right answer to call `index` with the result in `structuredContent`,
/// read without building a tree (the driver's own CPU counts against every server when both
/// share the machine). `false` sends the answer to the full check, which says what is wrong or
/// reads the text block.
fn structured_answer_is(text: &str, index: u64) -> bool {
    let Ok(answer) = serde_json::from_str::<StructuredAnswer>(text) else {
        return false;
    };
    let (value, factor) = arguments(index);
    answer.id == index
        && !answer.result.is_error
        && answer.result.structured_content.result == value * factor
}
