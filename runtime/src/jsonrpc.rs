//! JSON-RPC 2.0 envelopes, read so that every request keeps its answer.
//!
//! rmcp parses whole messages into `serde_json::Value`s, which cannot hold every valid JSON
//! text: `1e400`, integers of hundreds of digits and lone surrogates (`"\ud800"`) fail, and an
//! id such as `18446744073709551617` would come back as a float. So the transports read the
//! envelope here first, with every member kept as raw text ([`crate::raw_json`]):
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
//! `method` a string, `params` an object or array when present, no member given twice.

use crate::raw_json::{self, Key};
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
    /// The server is busy (HTTP: too many requests in progress).
    pub const SERVER_BUSY: i64 = -32000;
    /// The request took longer than the server allows (HTTP `--timeout`).
    pub const REQUEST_TIMEOUT: i64 = -32001;
}

/// The MCP `_meta` key naming a request's protocol version (2026-07-28).
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";

/// The MCP `_meta` key of the client's capabilities in the stateless era (2026-07-28).
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

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

    /// An integer id (the transports' internal ids).
    pub fn integer(value: i64) -> RawId {
        RawId(value.to_string().into())
    }

    /// Reads `text` (JSON) as an id; `None` unless it is a string or an integer.
    pub fn from_json(text: &str) -> Option<RawId> {
        let raw: &RawValue = serde_json::from_str(text).ok()?;
        RawId::check(raw).ok()
    }

    /// Checks `raw` as an id: a string, or an integer without fraction or exponent.
    pub fn check(raw: &RawValue) -> Result<RawId, &'static str> {
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

    /// The id's value, for telling whether two ids name the same request (`"\u0061"` and
    /// `"a"` do; `1` and `"1"` do not; `-0` and `0` do).
    pub fn key(&self) -> IdKey {
        let text = self.as_json();
        if text.starts_with('"') {
            match serde_json::from_str::<Key>(text) {
                Ok(key) => IdKey::String(key.as_bytes().to_vec()),
                Err(_) => IdKey::String(text.as_bytes().to_vec()),
            }
        } else if text
            .strip_prefix('-')
            .is_some_and(|d| d.bytes().all(|b| b == b'0'))
        {
            IdKey::Integer("0".into())
        } else {
            IdKey::Integer(text.into())
        }
    }
}

impl fmt::Display for RawId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The value of an id ([`RawId::key`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum IdKey {
    /// An integer, as its decimal digits.
    Integer(String),
    /// A string, unescaped (WTF-8 when it holds a lone surrogate).
    String(Vec<u8>),
}

/// A message the server must answer with an error instead of handling it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvelopeError {
    /// The id to answer under (`null` when it could not be read).
    pub id: RawId,
    /// [`code::PARSE_ERROR`] or [`code::INVALID_REQUEST`] (or another code for the rules the
    /// transports add, e.g. a contradicting protocol era).
    pub code: i64,
    /// What was wrong.
    pub message: String,
}

impl EnvelopeError {
    /// An invalid request (-32600) answered under `id`.
    pub fn invalid(id: RawId, message: impl fmt::Display) -> EnvelopeError {
        EnvelopeError {
            id,
            code: code::INVALID_REQUEST,
            message: format!("Invalid Request: {message}"),
        }
    }

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

/// The JSON text of a batch answer: the answers as one array.
pub fn batch_json<'a>(answers: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::from("[");
    for (index, answer) in answers.into_iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(answer);
    }
    out.push(']');
    out
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

/// Reads one line or body of JSON-RPC. A UTF-8 byte order mark before it is ignored.
pub fn parse(text: &str) -> Incoming<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim_start().starts_with('[') {
        let elements = match raw_json::array_elements(text) {
            Ok(elements) => elements,
            Err(error) => return Incoming::Single(Err(parse_error(&error))),
        };
        if elements.is_empty() {
            return Incoming::Single(Err(EnvelopeError::invalid(RawId::null(), "an empty batch")));
        }
        return Incoming::Batch(elements.into_iter().map(message).collect());
    }
    match serde_json::from_str::<&RawValue>(text) {
        Ok(raw) => Incoming::Single(message(raw)),
        Err(error) => Incoming::Single(Err(parse_error(&error))),
    }
}

/// The answer to a line or body that is not UTF-8.
pub fn not_utf8() -> EnvelopeError {
    EnvelopeError {
        id: RawId::null(),
        code: code::PARSE_ERROR,
        message: "Parse error: the message is not valid UTF-8".into(),
    }
}

fn parse_error(error: &serde_json::Error) -> EnvelopeError {
    EnvelopeError {
        id: RawId::null(),
        code: code::PARSE_ERROR,
        message: format!("Parse error: {error}"),
    }
}

/// An object's members in order, duplicates kept, values as raw text.
pub use raw_json::object_members;

fn first_byte(raw: &RawValue) -> u8 {
    raw.get()
        .trim_start()
        .as_bytes()
        .first()
        .copied()
        .unwrap_or(b' ')
}

/// The first member named `name` of the object `text` (`None` when absent or not an object).
fn member<'a>(text: &'a str, name: &str) -> Option<&'a RawValue> {
    object_members(text)
        .ok()?
        .into_iter()
        .find(|(key, _)| key.as_bytes() == name.as_bytes())
        .map(|(_, value)| value)
}

fn message(raw: &RawValue) -> Result<Request<'_>, EnvelopeError> {
    let invalid = |id: &Option<RawId>, message: String| {
        EnvelopeError::invalid(id.clone().unwrap_or_else(RawId::null), message)
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
        let slot = match key.as_bytes() {
            b"jsonrpc" => &mut jsonrpc,
            b"id" => &mut id_raw,
            b"method" => &mut method_raw,
            b"params" => &mut params,
            b"result" | b"error" => {
                answer = true;
                continue;
            }
            _ => continue,
        };
        if slot.is_none() {
            *slot = Some(*value);
        } else if duplicate.is_none() {
            duplicate = key.as_str();
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
            Err(_) if first_byte(raw) == b'"' => {
                return Err(invalid(&id, "\"method\" is not valid Unicode".into()))
            }
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

/// The protocol version a `_meta` object names (its first member of that name), when it
/// names one as a string.
pub fn meta_version(meta: &RawValue) -> Option<String> {
    meta_version_of(&object_members(meta.get()).ok()?)
}

/// [`meta_version`] of a `_meta` object read as its members (in order, duplicates kept).
pub fn meta_version_of(members: &[raw_json::Member<'_>]) -> Option<String> {
    let (_, value) = members
        .iter()
        .find(|(key, _)| key.as_bytes() == META_PROTOCOL_VERSION.as_bytes())?;
    serde_json::from_str(value.get()).ok()
}

fn shorten(text: &str) -> String {
    if text.chars().count() > 40 {
        format!("{}...", text.chars().take(37).collect::<String>())
    } else {
        text.to_string()
    }
}

impl Request<'_> {
    /// The client's id of a request.
    pub fn id(&self) -> Option<&RawId> {
        match &self.kind {
            Kind::Request(id) => Some(id),
            _ => None,
        }
    }

    /// The method, or `""` for a response.
    pub fn method(&self) -> &str {
        self.method.as_deref().unwrap_or_default()
    }

    /// The raw `params.arguments` text of a `tools/call` (validated later from this text).
    pub fn tool_arguments(&self) -> Option<&str> {
        if self.method() != "tools/call" {
            return None;
        }
        member(self.params?.get(), "arguments").map(RawValue::get)
    }

    /// The protocol version a request names in `params._meta` (2026-07-28 style), when it
    /// names one as a string.
    pub fn meta_protocol_version(&self) -> Option<String> {
        meta_version(member(self.params?.get(), "_meta")?)
    }

    /// The id a `notifications/cancelled` names (`params.requestId`), when it is a valid id.
    pub fn cancelled_request(&self) -> Option<RawId> {
        if self.method() != "notifications/cancelled" || self.kind != Kind::Notification {
            return None;
        }
        RawId::check(member(self.params?.get(), "requestId")?).ok()
    }

    /// The message as rmcp should read it: `id` replaced by `internal_id` (an integer rmcp holds
    /// exactly), a `tools/call`'s object `arguments` replaced by `{}` (the dispatcher reads the
    /// original text, see [`Request::tool_arguments`]) and a `notifications/cancelled`'s
    /// `requestId` replaced by `cancelled` (the internal id of the request it names). Other
    /// members of `params` are kept as written; unknown top-level members are left out.
    pub fn for_rmcp(&self, internal_id: Option<i64>, cancelled: Option<i64>) -> String {
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
            let replaced: Option<(&[u8], String)> = match (self.method(), cancelled) {
                ("tools/call", _) => Some((b"arguments", "{}".into())),
                ("notifications/cancelled", Some(internal)) => {
                    Some((b"requestId", internal.to_string()))
                }
                _ => None,
            };
            match (replaced, object_members(params.get())) {
                (Some((name, replacement)), Ok(members)) => {
                    out.push('{');
                    for (index, (key, value)) in members.iter().enumerate() {
                        if index > 0 {
                            out.push(',');
                        }
                        push_key(&mut out, key);
                        out.push(':');
                        // Only an object `arguments` is replaced: anything else must still
                        // fail rmcp's schema check (-32602).
                        let replace = key.as_bytes() == name
                            && (name != b"arguments" || first_byte(value) == b'{');
                        if replace {
                            out.push_str(&replacement);
                        } else {
                            out.push_str(value.get());
                        }
                    }
                    out.push('}');
                }
                _ => out.push_str(params.get()),
            }
        }
        if let Kind::Response(_) = self.kind {
            if let Ok(members) = object_members(self.text) {
                for (key, value) in members {
                    if matches!(key.as_bytes(), b"result" | b"error") {
                        out.push(',');
                        push_key(&mut out, &key);
                        out.push(':');
                        out.push_str(value.get());
                    }
                }
            }
        }
        out.push('}');
        out
    }
}

fn push_key(out: &mut String, key: &Key<'_>) {
    match key.as_str() {
        Some(text) => out.push_str(&serde_json::to_string(text).unwrap_or_default()),
        // A key with a lone surrogate cannot be any member rmcp reads: keep a harmless name.
        None => out.push_str("\"\\ufffd\""),
    }
}

/// `answer` (a JSON object with an `id` member, as rmcp writes it) with the id replaced by
/// `id`'s exact text. Returns `answer` unchanged when it has no top-level `id`.
pub fn with_id(answer: &str, id: &RawId) -> String {
    // rmcp writes `{"jsonrpc":"2.0","id":N,...}`: splice without reading the rest, which may
    // be a result of megabytes.
    const PREFIX: &str = "{\"jsonrpc\":\"2.0\",\"id\":";
    if let Some(rest) = answer.strip_prefix(PREFIX) {
        let digits = rest
            .bytes()
            .take_while(|b| *b == b'-' || b.is_ascii_digit())
            .count();
        if digits > 0 && rest.as_bytes().get(digits) == Some(&b',') {
            let mut out = String::with_capacity(answer.len() + id.as_json().len());
            out.push_str(PREFIX);
            out.push_str(id.as_json());
            out.push_str(&rest[digits..]);
            return out;
        }
    }
    let Ok(members) = object_members(answer) else {
        return answer.to_string();
    };
    let mut out = String::with_capacity(answer.len() + id.as_json().len());
    out.push('{');
    for (index, (key, value)) in members.iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        push_key(&mut out, key);
        out.push(':');
        if key.as_bytes() == b"id" {
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
    let id = member(answer, "id")?;
    id.get().trim().parse().ok()
}

/// The id of a message of which only the start is at hand (a line too long to read whole),
/// when its top-level members up to and including `id` are complete in `prefix`.
pub fn id_from_prefix(prefix: &[u8]) -> Option<RawId> {
    let mut at = skip_space(prefix, 0);
    if prefix.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    loop {
        at = skip_space(prefix, at);
        let key_end = scan_value(prefix, at)?;
        let key = &prefix[at..key_end];
        if key.first() != Some(&b'"') {
            return None;
        }
        at = skip_space(prefix, key_end);
        if prefix.get(at) != Some(&b':') {
            return None;
        }
        at = skip_space(prefix, at + 1);
        let value_end = scan_value(prefix, at)?;
        if key == b"\"id\"" {
            return RawId::from_json(std::str::from_utf8(&prefix[at..value_end]).ok()?);
        }
        at = skip_space(prefix, value_end);
        if prefix.get(at) != Some(&b',') {
            return None;
        }
        at += 1;
    }
}

fn skip_space(text: &[u8], mut at: usize) -> usize {
    while text.get(at).is_some_and(|b| b" \t\r\n".contains(b)) {
        at += 1;
    }
    at
}

/// The end of the JSON value starting at `at`, when it ends within `text`.
fn scan_value(text: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (offset, &byte) in text.get(at..)?.iter().enumerate() {
        let end = at + offset + 1;
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => {
                    in_string = false;
                    if depth == 0 {
                        return Some(end);
                    }
                }
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(end);
                }
            }
            b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n' if depth == 0 => {
                return (offset > 0).then_some(end - 1);
            }
            _ => {}
        }
    }
    None
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
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"\ud800":1}}}"#,
        ] {
            let request = single(text).expect("readable");
            assert_eq!(request.kind, Kind::Request(RawId("7".into())));
            let for_rmcp = request.for_rmcp(Some(1), None);
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
        // Another member order takes the slow path.
        let answer = with_id(r#"{"id":1,"jsonrpc":"2.0","result":{"id":2}}"#, id);
        assert_eq!(
            answer,
            r#"{"id":18446744073709551617,"jsonrpc":"2.0","result":{"id":2}}"#
        );
        let text = r#"{"jsonrpc":"2.0","id":"\u00e9\"x","method":"ping"}"#;
        let Kind::Request(id) = single(text).expect("readable").kind else {
            panic!("a request")
        };
        assert_eq!(id.as_json(), r#""\u00e9\"x""#);
        assert_eq!(id.key(), IdKey::String("é\"x".as_bytes().to_vec()));
        assert_eq!(RawId("-0".into()).key(), RawId("0".into()).key());
        assert_ne!(RawId("1".into()).key(), RawId("\"1\"".into()).key());
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
            error(r#"{"jsonrpc":"2.0","id":4,"method":"\ud800"}"#),
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
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":8,"method":"x","params":{{"a":{}1{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        // Raw values are read without recursion: any depth keeps its id.
        assert!(single(&deep).is_ok());
        assert_eq!(error("42"), (code::INVALID_REQUEST, "null".into()));
        assert_eq!(error("{"), (code::PARSE_ERROR, "null".into()));
        assert_eq!(error("{} x"), (code::PARSE_ERROR, "null".into()));
    }

    #[test]
    fn a_byte_order_mark_is_ignored() {
        assert!(single("\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").is_ok());
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
        assert_eq!(batch_json(["1", "2"]), "[1,2]");
    }

    #[test]
    fn responses_from_the_client_are_told_apart() {
        let request = single(r#"{"jsonrpc":"2.0","id":9,"result":{}}"#).expect("readable");
        assert_eq!(request.kind, Kind::Response(RawId("9".into())));
    }

    #[test]
    fn members_rmcp_needs_are_rewritten() {
        let text = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a","reason":"x"}}"#;
        let request = single(text).expect("readable");
        assert_eq!(request.cancelled_request(), Some(RawId("\"a\"".into())));
        assert_eq!(
            request.for_rmcp(None, Some(12)),
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12,"reason":"x"}}"#
        );
        let text = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let request = single(text).expect("readable");
        assert_eq!(
            request.meta_protocol_version().as_deref(),
            Some("2026-07-28")
        );
        let text = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":[1]}}"#;
        assert!(single(text)
            .expect("readable")
            .for_rmcp(Some(3), None)
            .contains(r#""arguments":[1]"#));
    }

    #[test]
    fn ids_are_read_from_the_start_of_a_message() {
        let read = |text: &str| id_from_prefix(text.as_bytes()).map(|id| id.to_string());
        assert_eq!(
            read(r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"a":"xxxx"#),
            Some("5".into())
        );
        assert_eq!(
            read(r#"{"jsonrpc" : "2.0", "x":{"id":[1,"]"]}, "id" : "a\"b", "params""#),
            Some(r#""a\"b""#.into())
        );
        assert_eq!(
            read(r#"{"jsonrpc":"2.0","method":"x","params":{"id":1"#),
            None
        );
        assert_eq!(read(r#"{"jsonrpc":"2.0","id":12"#), None);
        assert_eq!(read(r#"{"id":1.5,"#), None);
        assert_eq!(read(r#"[{"id":1,"#), None);
    }
}
