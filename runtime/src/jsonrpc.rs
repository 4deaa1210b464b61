//! JSON-RPC 2.0 envelopes, read so that every request keeps its answer.
//!
//! rmcp parses whole messages into `serde_json::Value`s, which cannot hold every valid JSON
//! text: `1e400`, integers of hundreds of digits and lone surrogates (`"\ud800"`) fail, and an
//! id such as `18446744073709551617` would come back as a float. So the transports read the
//! envelope here first, with every member kept as raw text:
//!
//! - [`parse`] tells a parse error (-32700) from an invalid request (-32600) and keeps the id of
//!   a request whenever it can be read, so the error reaches the client under its id;
//! - ids are kept byte for byte ([`RawId`]) and echoed exactly: the transport hands rmcp a small
//!   internal id and puts the client's text back into the answer ([`with_id`]);
//! - a `tools/call`'s `arguments` text is taken out before rmcp sees the message
//!   ([`Request::for_rmcp`]): the dispatcher validates it from the raw text, so a value serde
//!   cannot hold becomes a tool error naming the argument instead of a lost request.
//!
//! The rules are JSON-RPC 2.0's with MCP's restrictions: `jsonrpc` must be exactly `"2.0"`, an
//! id is a string or an integer (MCP forbids `null`; a fraction or exponent is not an integer),
//! `method` a string, `params` an object or array when present.

use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::fmt;

/// JSON-RPC error codes used by the transports.
pub mod code {
    /// The text is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON is not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist (or not in this protocol era).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The params do not fit the method.
    pub const INVALID_PARAMS: i64 = -32602;
    /// An internal error of the server.
    pub const INTERNAL_ERROR: i64 = -32603;
}

/// A request id exactly as the client wrote it (a JSON string or integer, as raw text).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RawId(Box<str>);

impl RawId {
    /// The JSON text of the id (`42`, `"a"`), ready to be written into an answer.
    pub fn as_json(&self) -> &str {
        &self.0
    }

    /// The `null` id of answers to messages whose id cannot be read.
    pub fn null() -> RawId {
        RawId("null".into())
    }

    /// Checks `raw` as an id: a string, or an integer without fraction or exponent.
    fn check(raw: &RawValue) -> Result<RawId, &'static str> {
        let text = raw.get().trim();
        match text.as_bytes().first() {
            Some(b'"') => Ok(RawId(text.into())),
            Some(b'-' | b'0'..=b'9') => {
                let digits = text.strip_prefix('-').unwrap_or(text);
                if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                    Ok(RawId(text.into()))
                } else {
                    Err("the id must be a string or an integer (no fraction or exponent)")
                }
            }
            Some(b'n') => Err("the id must not be null"),
            _ => Err("the id must be a string or an integer"),
        }
    }
}

impl fmt::Display for RawId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A message the server must answer with an error instead of handling it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvelopeError {
    /// The id to answer under (`null` when it could not be read).
    pub id: RawId,
    /// [`code::PARSE_ERROR`] or [`code::INVALID_REQUEST`].
    pub code: i64,
    /// What was wrong.
    pub message: String,
}

impl EnvelopeError {
    /// The JSON-RPC error answer, as one line of JSON text.
    pub fn to_json(&self) -> String {
        error_json(&self.id, self.code, &self.message)
    }
}

/// The JSON text of a JSON-RPC error answer.
pub fn error_json(id: &RawId, code: i64, message: &str) -> String {
    let message = serde_json::to_string(message).unwrap_or_else(|_| "\"error\"".into());
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{{\"code\":{code},\"message\":{message}}}}}",
        id.as_json()
    )
}

/// What one well-formed message is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A request: it has an id and a method, and gets an answer.
    Request(RawId),
    /// A notification: a method without an id; never answered.
    Notification,
    /// An answer from the client (to a server-to-client request).
    Response(RawId),
}

/// One well-formed message, with its parts as raw text.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// Request, notification or response.
    pub kind: Kind,
    /// The method (requests and notifications).
    pub method: Option<String>,
    /// The params as raw JSON (an object or an array), when present.
    pub params: Option<&'a RawValue>,
    /// The whole message text.
    pub text: &'a str,
}

/// A line or body: one message or a batch.
#[derive(Debug)]
pub enum Incoming<'a> {
    /// One message (or the error answering it).
    Single(Result<Request<'a>, EnvelopeError>),
    /// A JSON array of messages, each read on its own.
    Batch(Vec<Result<Request<'a>, EnvelopeError>>),
}

/// Reads one line or body of JSON-RPC.
pub fn parse(text: &str) -> Incoming<'_> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        let elements = match split_array(text) {
            Ok(elements) => elements,
            Err(error) => return Incoming::Single(Err(parse_error(&error))),
        };
        if elements.is_empty() {
            return Incoming::Single(Err(EnvelopeError {
                id: RawId::null(),
                code: code::INVALID_REQUEST,
                message: "Invalid Request: an empty batch".into(),
            }));
        }
        return Incoming::Batch(elements.into_iter().map(message).collect());
    }
    match serde_json::from_str::<&RawValue>(text) {
        Ok(raw) => Incoming::Single(message(raw)),
        Err(error) => Incoming::Single(Err(parse_error(&error))),
    }
}

fn parse_error(error: &serde_json::Error) -> EnvelopeError {
    EnvelopeError {
        id: RawId::null(),
        code: code::PARSE_ERROR,
        message: format!("Parse error: {error}"),
    }
}

fn split_array(text: &str) -> Result<Vec<&RawValue>, serde_json::Error> {
    struct Elements;
    impl<'de> Visitor<'de> for Elements {
        type Value = Vec<&'de RawValue>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON array")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(element) = seq.next_element::<&'de RawValue>()? {
                out.push(element);
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let elements = de.deserialize_seq(Elements)?;
    de.end()?;
    Ok(elements)
}

/// An object's members in order, duplicates kept, values as raw text.
pub fn object_members(text: &str) -> Result<Vec<(String, &RawValue)>, serde_json::Error> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Vec<(String, &'de RawValue)>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut members = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                let value: &'de RawValue = map.next_value()?;
                members.push((key, value));
            }
            Ok(members)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let members = de.deserialize_map(Members)?;
    de.end()?;
    Ok(members)
}

fn first_byte(raw: &RawValue) -> u8 {
    raw.get()
        .trim_start()
        .as_bytes()
        .first()
        .copied()
        .unwrap_or(b' ')
}

fn message(raw: &RawValue) -> Result<Request<'_>, EnvelopeError> {
    let invalid = |id: &Option<RawId>, message: String| EnvelopeError {
        id: id.clone().unwrap_or_else(RawId::null),
        code: code::INVALID_REQUEST,
        message: format!("Invalid Request: {message}"),
    };
    if first_byte(raw) != b'{' {
        return Err(invalid(&None, "a message must be a JSON object".into()));
    }
    let members = object_members(raw.get()).map_err(|e| invalid(&None, e.to_string()))?;
    let mut jsonrpc = None;
    let mut id_raw = None;
    let mut method_raw = None;
    let mut params = None;
    let mut answer = false;
    let mut duplicate = None;
    for (key, value) in &members {
        let slot = match key.as_str() {
            "jsonrpc" => &mut jsonrpc,
            "id" => &mut id_raw,
            "method" => &mut method_raw,
            "params" => &mut params,
            "result" | "error" => {
                answer = true;
                continue;
            }
            _ => continue,
        };
        if slot.is_none() {
            *slot = Some(*value);
        } else if duplicate.is_none() {
            duplicate = Some(key.clone());
        }
    }
    // Read the id first, so every later complaint can be answered under it.
    let id = match id_raw {
        None => None,
        Some(raw) => Some(RawId::check(raw).map_err(|why| invalid(&None, why.into()))?),
    };
    if let Some(key) = duplicate {
        return Err(invalid(&id, format!("member \"{key}\" is given twice")));
    }
    match jsonrpc.map(|v| v.get().trim()) {
        Some("\"2.0\"") => {}
        Some(other) => {
            return Err(invalid(
                &id,
                format!("\"jsonrpc\" must be \"2.0\", got {}", shorten(other)),
            ))
        }
        None => {
            return Err(invalid(
                &id,
                "the \"jsonrpc\": \"2.0\" member is missing".into(),
            ))
        }
    }
    let method = match method_raw {
        None => None,
        Some(raw) => match serde_json::from_str::<String>(raw.get()) {
            Ok(method) => Some(method),
            Err(_) => return Err(invalid(&id, "\"method\" must be a string".into())),
        },
    };
    if let Some(params) = params {
        if !matches!(first_byte(params), b'{' | b'[') {
            return Err(invalid(
                &id,
                "\"params\" must be an object or an array".into(),
            ));
        }
    }
    let kind = match (method.is_some(), id, answer) {
        (true, Some(id), _) => Kind::Request(id),
        (true, None, _) => Kind::Notification,
        (false, Some(id), true) => Kind::Response(id),
        (false, id, _) => {
            return Err(invalid(&id, "the \"method\" member is missing".into()));
        }
    };
    Ok(Request {
        kind,
        method,
        params,
        text: raw.get(),
    })
}

fn shorten(text: &str) -> String {
    if text.chars().count() > 40 {
        format!("{}...", text.chars().take(37).collect::<String>())
    } else {
        text.to_string()
    }
}

impl Request<'_> {
    /// The raw `params.arguments` text of a `tools/call` (validated later from this text).
    pub fn tool_arguments(&self) -> Option<&str> {
        if self.method.as_deref() != Some("tools/call") {
            return None;
        }
        let params = object_members(self.params?.get()).ok()?;
        params
            .iter()
            .find(|(key, _)| key == "arguments")
            .map(|(_, value)| value.get())
    }

    /// The message as rmcp should read it: `id` replaced by `internal_id` (an integer rmcp holds
    /// exactly), and a `tools/call`'s object `arguments` replaced by `{}` (the dispatcher reads
    /// the original text, see [`Request::tool_arguments`]). Other members are kept as written.
    pub fn for_rmcp(&self, internal_id: Option<i64>) -> String {
        let mut out = String::with_capacity(self.text.len().min(4096) + 64);
        out.push_str("{\"jsonrpc\":\"2.0\"");
        if let Some(id) = internal_id {
            out.push_str(&format!(",\"id\":{id}"));
        } else if let Kind::Response(id) | Kind::Request(id) = &self.kind {
            out.push_str(",\"id\":");
            out.push_str(id.as_json());
        }
        if let Some(method) = &self.method {
            out.push_str(",\"method\":");
            out.push_str(&serde_json::to_string(method).unwrap_or_default());
        }
        if let Some(params) = self.params {
            out.push_str(",\"params\":");
            match (self.method.as_deref(), object_members(params.get())) {
                (Some("tools/call"), Ok(members)) => {
                    out.push('{');
                    for (index, (key, value)) in members.iter().enumerate() {
                        if index > 0 {
                            out.push(',');
                        }
                        out.push_str(&serde_json::to_string(key).unwrap_or_default());
                        out.push(':');
                        if key == "arguments" && first_byte(value) == b'{' {
                            out.push_str("{}");
                        } else {
                            out.push_str(value.get());
                        }
                    }
                    out.push('}');
                }
                _ => out.push_str(params.get()),
            }
        }
        if let Ok(members) = object_members(self.text) {
            for (key, value) in members {
                if matches!(key.as_str(), "result" | "error") {
                    out.push(',');
                    out.push_str(&serde_json::to_string(&key).unwrap_or_default());
                    out.push(':');
                    out.push_str(value.get());
                }
            }
        }
        out.push('}');
        out
    }
}

/// `answer` (a JSON object with an `id` member, as rmcp writes it) with the id replaced by
/// `id`'s exact text. Returns `answer` unchanged when it has no top-level `id`.
pub fn with_id(answer: &str, id: &RawId) -> String {
    let Ok(members) = object_members(answer) else {
        return answer.to_string();
    };
    let mut out = String::with_capacity(answer.len() + id.as_json().len());
    out.push('{');
    for (index, (key, value)) in members.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(key).unwrap_or_default());
        out.push(':');
        if key == "id" {
            out.push_str(id.as_json());
        } else {
            out.push_str(value.get());
        }
    }
    out.push('}');
    out
}

/// Reads the top-level `id` of an answer as an internal (integer) id.
pub fn internal_id(answer: &str) -> Option<i64> {
    #[derive(serde::Deserialize)]
    struct Probe {
        id: Option<i64>,
    }
    serde_json::from_str::<Probe>(answer).ok()?.id
}

#[cfg(test)]
mod tests {
    use super::*;

    fn single(text: &str) -> Result<Request<'_>, EnvelopeError> {
        match parse(text) {
            Incoming::Single(result) => result,
            Incoming::Batch(_) => panic!("not a batch: {text}"),
        }
    }

    fn error(text: &str) -> (i64, String) {
        let e = single(text).expect_err(text);
        (e.code, e.id.as_json().to_string())
    }

    #[test]
    fn values_serde_cannot_hold_keep_the_request() {
        for text in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"a":1e400}}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"a":"\ud800"}}}"#,
        ] {
            let request = single(text).expect("readable");
            assert_eq!(request.kind, Kind::Request(RawId("7".into())));
            let for_rmcp = request.for_rmcp(Some(1));
            assert!(
                serde_json::from_str::<serde_json::Value>(&for_rmcp).is_ok(),
                "{for_rmcp}"
            );
            assert!(request.tool_arguments().is_some_and(|a| a.starts_with('{')));
        }
    }

    #[test]
    fn ids_are_echoed_exactly() {
        let text = r#"{"jsonrpc":"2.0","id":18446744073709551617,"method":"ping"}"#;
        let request = single(text).expect("readable");
        let Kind::Request(id) = &request.kind else {
            panic!("a request")
        };
        let answer = with_id(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, id);
        assert_eq!(
            answer,
            r#"{"jsonrpc":"2.0","id":18446744073709551617,"result":{}}"#
        );
        let text = r#"{"jsonrpc":"2.0","id":"\u00e9\"x","method":"ping"}"#;
        let Kind::Request(id) = single(text).expect("readable").kind else {
            panic!("a request")
        };
        assert_eq!(id.as_json(), r#""\u00e9\"x""#);
    }

    #[test]
    fn envelope_errors_are_invalid_requests_with_the_id() {
        assert_eq!(
            error(r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#),
            (code::INVALID_REQUEST, "3".into())
        );
        assert_eq!(
            error(r#"{"id":"x","method":"ping"}"#),
            (code::INVALID_REQUEST, "\"x\"".into())
        );
        assert_eq!(
            error(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            (code::INVALID_REQUEST, "null".into())
        );
        assert_eq!(
            error(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            (code::INVALID_REQUEST, "null".into())
        );
        assert_eq!(
            error(r#"{"jsonrpc":"2.0","id":4,"method":5}"#),
            (code::INVALID_REQUEST, "4".into())
        );
        assert_eq!(
            error(r#"{"jsonrpc":"2.0","id":4,"method":"x","params":3}"#),
            (code::INVALID_REQUEST, "4".into())
        );
        assert_eq!(
            error(r#"{"jsonrpc":"2.0","id":4,"id":5,"method":"x"}"#),
            (code::INVALID_REQUEST, "4".into())
        );
        assert_eq!(error("[]"), (code::INVALID_REQUEST, "null".into()));
        assert_eq!(error("42"), (code::INVALID_REQUEST, "null".into()));
        assert_eq!(error("{"), (code::PARSE_ERROR, "null".into()));
        assert_eq!(error("{} x"), (code::PARSE_ERROR, "null".into()));
    }

    #[test]
    fn batches_are_read_element_by_element() {
        let Incoming::Batch(items) =
            parse(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},5,{"jsonrpc":"2.0","method":"n"}]"#)
        else {
            panic!("a batch")
        };
        assert_eq!(items.len(), 3);
        assert!(items[0].is_ok());
        assert_eq!(
            items[1].as_ref().map_err(|e| e.code).err(),
            Some(code::INVALID_REQUEST)
        );
        assert_eq!(
            items[2].as_ref().map(|r| r.kind.clone()).ok(),
            Some(Kind::Notification)
        );
    }

    #[test]
    fn responses_from_the_client_are_told_apart() {
        let request = single(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#).expect("readable");
        assert_eq!(request.kind, Kind::Response(RawId("9".into())));
    }
}
