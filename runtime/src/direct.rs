//! The direct path of a plain `tools/call`, shared by both transports (`stdio/direct.rs`,
//! `http/direct.rs`): which calls may skip rmcp ([`direct_call`], and [`PlainCall`] for a call
//! read without rmcp's types) and the answer rmcp would write for them ([`answer`]).
//!
//! Through rmcp a `tools/call` costs a task of its own, the request and answer converted to and
//! from rmcp's types and passed through its service loop: several times the cost of
//! validating and running the call. A call that needs nothing of rmcp's session or peer goes to
//! the dispatcher ([`crate::dispatch::Dispatch::call_tool`]) instead, and its answer is built
//! from rmcp's own result types with the same era rules rmcp applies, so the text is the one
//! rmcp writes. Each transport adds its own conditions (its module documentation lists them).

use crate::dispatch::{DispatchError, ToolOutcome};
use crate::jsonrpc::{self, Kind};
use crate::lifecycle::{Era, STATELESS_VERSION};
use crate::mcp::{call_tool_response, RawArguments, LARGE_ARGUMENTS};
use crate::raw_json::Member;
use delphi_mcp_manifest::ValueShaped;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientJsonRpcMessage,
    ClientRequest, GetExtensions, GetMeta, InitializeRequest, JsonObject, JsonRpcMessage,
    JsonRpcRequest, ProgressToken, ProtocolVersion, RequestId, RequestMetaObject,
    ServerJsonRpcMessage, ServerResult,
};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use std::sync::Arc;

mod one_pass;

/// The tool name and arguments of `request` when it may take the direct path in `era`;
/// `meta_version` is the protocol version its `_meta` names. It may when it is a `tools/call`
/// whose `_meta` has no `progressToken` (progress is sent through rmcp's peer) and, in the
/// 2026-07-28 era, names that version and has every field it requires (in the handshake era,
/// no protocol version at all); that carries no `inputResponses` or `requestState` (answers to
/// a server's input request); and whose arguments (attached as [`RawArguments`]) are at most
/// [`LARGE_ARGUMENTS`] bytes (larger ones are validated on a blocking thread).
pub fn direct_call(
    request: &ClientRequest,
    era: &Era,
    meta_version: Option<&str>,
) -> Option<(String, Option<Arc<str>>)> {
    let ClientRequest::CallToolRequest(call) = request else {
        return None;
    };
    if call.params.input_responses.is_some()
        || call.params.request_state.is_some()
        || !MetaFacts::of(request.get_meta()).admitted(era, meta_version)
    {
        return None;
    }
    let arguments = match request.extensions().get::<RawArguments>() {
        Some(RawArguments(text)) if text.len() > LARGE_ARGUMENTS => return None,
        Some(RawArguments(text)) => Some(Arc::clone(text)),
        // `arguments` absent (the transports attach present ones).
        None if call.params.arguments.is_none() => None,
        None => return None,
    };
    Some((call.params.name.to_string(), arguments))
}

/// What the direct path's rule looks at in a request's `_meta`, as rmcp reads it: rmcp's
/// `RequestMetaObject` keeps the last member of each key and decodes a member from its
/// `serde_json::Value` ("present and valid").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MetaFacts {
    /// A progress token (progress is sent through rmcp's peer).
    progress_token: bool,
    /// A field the 2026-07-28 era requires is missing or invalid.
    missing_required: bool,
}

impl MetaFacts {
    /// The facts of `_meta` read as rmcp's map.
    fn of(meta: &RequestMetaObject) -> MetaFacts {
        MetaFacts {
            progress_token: meta.get_progress_token().is_some(),
            missing_required: !meta
                .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .is_empty(),
        }
    }

    /// The facts of `_meta` read from its raw members (`members`, in order, duplicates kept):
    /// what [`MetaFacts::of`] finds in the map rmcp reads from the same text, without building
    /// it. Each key's last member is decoded from its own value.
    fn of_members(members: &[Member<'_>]) -> MetaFacts {
        let last = |key: &str| {
            members
                .iter()
                .rev()
                .find(|(name, _)| name.as_bytes() == key.as_bytes())
                .and_then(|(_, raw)| serde_json::from_str::<serde_json::Value>(raw.get()).ok())
        };
        MetaFacts::of_values(
            last("progressToken").as_ref(),
            last(jsonrpc::META_PROTOCOL_VERSION).as_ref(),
            last(jsonrpc::META_CLIENT_CAPABILITIES).as_ref(),
        )
    }

    /// The facts of the values rmcp's map holds under `progressToken`, the protocol version
    /// and the client capabilities keys (`None`: absent, or not a `serde_json::Value`).
    fn of_values(
        progress_token: Option<&serde_json::Value>,
        version: Option<&serde_json::Value>,
        capabilities: Option<&serde_json::Value>,
    ) -> MetaFacts {
        fn decodes<T: DeserializeOwned>(value: Option<&serde_json::Value>) -> bool {
            value.is_some_and(|value| T::deserialize(value).is_ok())
        }
        MetaFacts {
            progress_token: decodes::<ProgressToken>(progress_token),
            missing_required: !(decodes::<ProtocolVersion>(version)
                && decodes::<ClientCapabilities>(capabilities)),
        }
    }

    /// Whether a `tools/call` with these facts (and `meta_version`, the protocol version its
    /// `_meta` names) may take the direct path in `era` ([`direct_call`]).
    fn admitted(self, era: &Era, meta_version: Option<&str>) -> bool {
        if self.progress_token {
            return false;
        }
        match era {
            Era::Unknown => false,
            Era::Handshake(_) => meta_version.is_none(),
            Era::Stateless => meta_version == Some(STATELESS_VERSION) && !self.missing_required,
        }
    }
}

/// A plain `tools/call` read from its raw text, without rmcp's types ([`PlainCall::read`]).
/// Reading the whole message into rmcp's types costs several times the call (the params are
/// buffered whole on the way, for their `_meta`).
#[derive(Debug, PartialEq)]
pub struct PlainCall {
    /// The tool.
    pub name: String,
    /// The raw text of `arguments` (an object).
    pub arguments: Option<Arc<str>>,
    /// The text of `_meta` (read as rmcp reads it only when the call goes to rmcp after all,
    /// [`PlainCall::into_rmcp`]).
    meta: Option<Box<str>>,
    /// What the direct path's rule looks at in `_meta`.
    meta_facts: MetaFacts,
    /// The protocol version `_meta` names.
    meta_version: Option<String>,
}

impl PlainCall {
    /// `message` (as [`jsonrpc::parse`] reads it) when it is a plain `tools/call` request: its
    /// `params` have no members but `name` (a string), `arguments` (an object) and `_meta` (an
    /// object), each at most once. rmcp reads such a message as a `tools/call` whenever it
    /// reads the `_meta` object as a map, which is what this reads of it; the rest rmcp never
    /// looks at (the transports hand it `{}` for the arguments). `None` for any other message:
    /// read it through rmcp ([`read_client_message`]).
    pub fn read(message: &jsonrpc::Request<'_>) -> Option<PlainCall> {
        if !matches!(message.kind, Kind::Request(_)) || message.method() != "tools/call" {
            return None;
        }
        let mut name = None;
        let mut arguments = None;
        let mut meta = None;
        for (key, value) in jsonrpc::object_members(message.params?.get()).ok()? {
            let slot = match key.as_bytes() {
                b"name" => &mut name,
                b"arguments" => &mut arguments,
                b"_meta" => &mut meta,
                _ => return None,
            };
            if slot.replace(value).is_some() {
                return None;
            }
        }
        let is_object = |raw: &RawValue| raw.get().trim_start().starts_with('{');
        if arguments.is_some_and(|raw| !is_object(raw)) || meta.is_some_and(|raw| !is_object(raw)) {
            return None;
        }
        let (meta_facts, meta_version) = match meta {
            Some(raw) => {
                // rmcp reads `_meta` as a map of `serde_json::Value`: a text that holds what
                // such a map cannot (`1e400`, `"\ud800"`) fails the whole message there.
                serde_json::from_str::<ValueShaped>(raw.get()).ok()?;
                let members = jsonrpc::object_members(raw.get()).ok()?;
                (
                    MetaFacts::of_members(&members),
                    jsonrpc::meta_version_of(&members),
                )
            }
            None => (MetaFacts::of_members(&[]), None),
        };
        Some(PlainCall {
            name: serde_json::from_str(name?.get()).ok()?,
            arguments: arguments.map(|raw| Arc::from(raw.get())),
            meta: meta.map(|raw| Box::from(raw.get())),
            meta_facts,
            meta_version,
        })
    }

    /// The protocol version its `_meta` names (as [`jsonrpc::Request::meta_protocol_version`]).
    pub fn meta_version(&self) -> Option<&str> {
        self.meta_version.as_deref()
    }

    /// Whether the call may take the direct path in `era`, as [`direct_call`] decides for it.
    pub fn admitted(&self, era: &Era) -> bool {
        self.arguments
            .as_ref()
            .is_none_or(|text| text.len() <= LARGE_ARGUMENTS)
            && self.meta_facts.admitted(era, self.meta_version.as_deref())
    }

    /// The message as rmcp reads it under `id` ([`read_client_message`] of what
    /// [`jsonrpc::Request::for_rmcp`] writes), its arguments attached as [`RawArguments`].
    pub fn into_rmcp(self, id: RequestId) -> ClientJsonRpcMessage {
        let mut params = CallToolRequestParams::new(self.name);
        if self.arguments.is_some() {
            params = params.with_arguments(JsonObject::new());
        }
        let mut request = CallToolRequest::new(params);
        if let Some(text) = self.meta {
            // Checked as a map's text when read (`ValueShaped`): it reads as one.
            let meta: RequestMetaObject = serde_json::from_str::<JsonObject>(&text)
                .unwrap_or_default()
                .into();
            request.extensions_mut().insert(meta);
        }
        if let Some(arguments) = self.arguments {
            request.extensions_mut().insert(RawArguments(arguments));
        }
        ClientJsonRpcMessage::Request(JsonRpcRequest::new(
            id,
            ClientRequest::CallToolRequest(request),
        ))
    }
}

/// The JSON-RPC answer to a direct call under the integer id `internal`, as rmcp's service
/// writes it: [`call_tool_response`] as the handler's result, then rmcp's era rules for
/// results (`stateless`: those of 2026-07-28, else those of the handshake era).
pub fn answer(
    internal: i64,
    stateless: bool,
    outcome: Result<ToolOutcome, DispatchError>,
) -> serde_json::Result<String> {
    let id = RequestId::Number(internal);
    let message: ServerJsonRpcMessage = match call_tool_response(outcome) {
        Ok(response) => {
            let mut result = ServerResult::from(response);
            if stateless {
                result.fill_missing_cache_hints();
            } else {
                result.strip_result_type_for_legacy_peer();
                result.strip_non_object_output_for_legacy_peer();
            }
            JsonRpcMessage::response(result, id)
        }
        Err(error) => JsonRpcMessage::error(error, Some(id)),
    };
    serde_json::to_string(&message)
}

/// `text` (a message as [`crate::jsonrpc::Request::for_rmcp`] writes it, whose method is
/// `method`) read as rmcp reads it. rmcp's [`ClientRequest`] is an untagged union tried kind by
/// kind, each failure a formatted error: a `tools/call` is read as a [`CallToolRequest`] first
/// (and an `initialize`, the first line of every handshake, as an [`InitializeRequest`]), which
/// is what rmcp makes of it whenever that reading succeeds (every kind before it in the union
/// needs another method); anything else, and a message that is not one, is read as rmcp reads
/// it.
pub fn read_client_message(text: &str, method: &str) -> serde_json::Result<ClientJsonRpcMessage> {
    let request = match method {
        "tools/call" => serde_json::from_str::<JsonRpcRequest<CallToolRequest>>(text)
            .ok()
            .map(|call| (call.id, ClientRequest::CallToolRequest(call.request))),
        "initialize" => serde_json::from_str::<JsonRpcRequest<InitializeRequest>>(text)
            .ok()
            .map(|init| (init.id, ClientRequest::InitializeRequest(init.request))),
        _ => None,
    };
    match request {
        Some((id, request)) => Ok(ClientJsonRpcMessage::Request(JsonRpcRequest::new(
            id, request,
        ))),
        None => serde_json::from_str(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `read_client_message` makes of `id`, `method` and `params` what rmcp makes of them
    /// (the same message, or the same error).
    fn read_as_rmcp_reads(id: &str, method: &str, params: &str) {
        let text =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#);
        let ours = read_client_message(&text, method).map(|m| serde_json::to_value(m).ok());
        let rmcp = serde_json::from_str::<ClientJsonRpcMessage>(&text)
            .map(|m| serde_json::to_value(m).ok());
        assert_eq!(
            ours.as_ref().map_err(ToString::to_string),
            rmcp.as_ref().map_err(ToString::to_string),
            "{text}"
        );
    }

    #[test]
    fn tool_calls_are_read_as_rmcp_reads_them() {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"progressToken":"p"}"#;
        let params = [
            r#"{"name":"t","arguments":{}}"#.to_string(),
            r#"{"name":"t"}"#.to_string(),
            format!(r#"{{"name":"t","arguments":{{"a":[1,2.5,"x"]}},{meta}}}"#),
            format!(r#"{{{meta},"name":"t\u0041","inputResponses":{{}},"requestState":"s"}}"#),
            r#"{"name":"t","arguments":[]}"#.to_string(),
            r#"{"name":7,"arguments":{}}"#.to_string(),
            r#"{"arguments":{}}"#.to_string(),
            r#"{"name":"t","_meta":{"progressToken":{}}}"#.to_string(),
            r#"{"name":"t","task":{"ttl":1},"extra":null}"#.to_string(),
        ];
        for params in params {
            read_as_rmcp_reads("3", "tools/call", &params);
        }
    }

    /// `message` as rmcp reads it, as the transports hand it over: arguments as raw text
    /// ([`RawArguments`]), `{}` in their place.
    fn rmcp_reading(message: &crate::jsonrpc::Request<'_>) -> Option<ClientJsonRpcMessage> {
        let mut read = read_client_message(&message.for_rmcp(Some(0), None), "tools/call").ok()?;
        if let (ClientJsonRpcMessage::Request(request), Some(arguments)) =
            (&mut read, message.tool_arguments())
        {
            request
                .request
                .extensions_mut()
                .insert(RawArguments(Arc::from(arguments)));
        }
        Some(read)
    }

    /// What the direct path makes of a `tools/call` with `params` in `era`, read as rmcp reads
    /// it ([`rmcp_reading`]).
    fn through_rmcp(params: &str, era: &Era) -> Option<(String, Option<Arc<str>>)> {
        let text = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#);
        let crate::jsonrpc::Incoming::Single(Ok(message)) = crate::jsonrpc::parse(&text) else {
            return None;
        };
        let Some(ClientJsonRpcMessage::Request(request)) = rmcp_reading(&message) else {
            return None;
        };
        direct_call(
            &request.request,
            era,
            message.meta_protocol_version().as_deref(),
        )
    }

    /// A message as JSON, with the raw arguments attached to it.
    type Seen = Option<(serde_json::Value, Option<Arc<str>>)>;

    /// The message of `params` as rmcp reads it, and as [`PlainCall::into_rmcp`] builds it when
    /// the call is plain.
    fn both_readings(params: &str) -> (Seen, Seen) {
        let text = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#);
        let crate::jsonrpc::Incoming::Single(Ok(message)) = crate::jsonrpc::parse(&text) else {
            panic!("{text}");
        };
        let seen = |message: ClientJsonRpcMessage| {
            let ClientJsonRpcMessage::Request(request) = &message else {
                panic!("{text}");
            };
            let arguments = request
                .request
                .extensions()
                .get::<RawArguments>()
                .map(|a| Arc::clone(&a.0));
            (serde_json::to_value(&message).expect("JSON"), arguments)
        };
        let rmcp = rmcp_reading(&message).map(seen);
        let plain =
            PlainCall::read(&message).map(|call| seen(call.into_rmcp(RequestId::Number(0))));
        (rmcp, plain)
    }

    /// The tool name and arguments of `message` when it is a [`PlainCall`] that may take the
    /// direct path in `era`.
    fn plain_call(
        message: &crate::jsonrpc::Request<'_>,
        era: &Era,
    ) -> Option<(String, Option<Arc<str>>)> {
        let call = PlainCall::read(message)?;
        call.admitted(era).then_some((call.name, call.arguments))
    }

    fn plain(params: &str, era: &Era) -> Option<(String, Option<Arc<str>>)> {
        let text =
            format!(r#"{{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{params}}}"#);
        match crate::jsonrpc::parse(&text) {
            crate::jsonrpc::Incoming::Single(Ok(message)) => {
                if let Some(call) = PlainCall::read(&message) {
                    let named = message.meta_protocol_version();
                    assert_eq!(call.meta_version(), named.as_deref(), "{params}");
                }
                plain_call(&message, era)
            }
            _ => None,
        }
    }

    #[test]
    fn meta_is_read_as_rmcp_reads_it() {
        let v = r#""io.modelcontextprotocol/protocolVersion""#;
        let c = r#""io.modelcontextprotocol/clientCapabilities""#;
        let metas = [
            "{}".to_string(),
            r#"{"progressToken":"p"}"#.to_string(),
            r#"{"progressToken":7}"#.to_string(),
            r#"{"progressToken":2.0}"#.to_string(),
            r#"{"progressToken":1.5}"#.to_string(),
            r#"{"progressToken":{}}"#.to_string(),
            r#"{"progressToken":null}"#.to_string(),
            r#"{"progressToken":18446744073709551615}"#.to_string(),
            r#"{"progressToken":"p","progressToken":{}}"#.to_string(),
            r#"{"progressToken":{},"progressToken":"p"}"#.to_string(),
            r#"{"k":1e400}"#.to_string(),
            r#"{"\ud800":1}"#.to_string(),
            r#"{"k":"\ud800"}"#.to_string(),
            format!(r#"{{{v}:"2026-07-28",{c}:{{}}}}"#),
            format!(r#"{{{v}:"2026-07-28"}}"#),
            format!(r#"{{{c}:{{}}}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:[]}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:null}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:{{"roots":5}}}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:{{"roots":{{"listChanged":true}}}}}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:{{"experimental":{{"a":{{}}}},"other":1}}}}"#),
            format!(r#"{{{v}:"2026-07-28",{v}:5,{c}:{{}}}}"#),
            format!(r#"{{{v}:5,{v}:"2026-07-28",{c}:{{}}}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:{{}},{c}:1}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:1,{c}:{{}}}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:{{}},"k":1e400}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:{{}},"progressToken":"p"}}"#),
            format!(r#"{{{v}:"2025-06-18",{c}:{{}}}}"#),
            format!(r#"{{{v}:"2026-07-28",{c}:{{}},"k":[[[[1]]]],"x\u0041":true}}"#),
        ];
        let eras = [
            Era::Stateless,
            Era::Handshake("2025-06-18".into()),
            Era::Unknown,
        ];
        let mut admitted = 0;
        for meta in &metas {
            let params = format!(r#"{{"name":"t","arguments":{{"a":1}},"_meta":{meta}}}"#);
            for era in &eras {
                let plain = plain(&params, era);
                admitted += usize::from(plain.is_some());
                assert_eq!(plain, through_rmcp(&params, era), "{params} in {era:?}");
            }
        }
        assert!(admitted >= 10, "the list admits some: {admitted}");
    }

    #[test]
    fn plain_calls_are_admitted_as_through_rmcp() {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}"#;
        let large = "x".repeat(LARGE_ARGUMENTS);
        // Read without rmcp, and admitted: the same call as through rmcp.
        let admitted = [
            (
                format!(r#"{{"name":"t","arguments":{{"a":[1,2.5,"x"]}},{meta}}}"#),
                Era::Stateless,
            ),
            (format!(r#"{{{meta}, "name":"t\u0041"}}"#), Era::Stateless),
            (
                format!(r#"{{"arguments":{{"A":1e400}},"name":"t",{meta}}}"#),
                Era::Stateless,
            ),
            (
                r#"{"name":"t","arguments":{}}"#.to_string(),
                Era::Handshake("2025-06-18".into()),
            ),
            (
                r#"{"name":"t","_meta":{"k":[1]}}"#.to_string(),
                Era::Handshake("2025-06-18".into()),
            ),
        ];
        for (params, era) in &admitted {
            let read = plain(params, era);
            assert!(read.is_some(), "{params}");
            assert_eq!(read, through_rmcp(params, era), "{params}");
        }
        // A plain call not admitted is handed to rmcp as rmcp reads it.
        for params in [
            admitted[0].0.clone(),
            format!(r#"{{"name":"t","arguments":{{"a":"{large}"}},{meta}}}"#),
            r#"{"name":"t","_meta":{"progressToken":"p","k":[1,{"x":null}]}}"#.to_string(),
            r#"{"name":"t"}"#.to_string(),
        ] {
            let (rmcp, plain) = both_readings(&params);
            assert!(plain.is_some(), "{params}");
            assert_eq!(plain, rmcp, "{params}");
        }
        // Not admitted, or not plain (read through rmcp then): never a call through rmcp
        // would not make.
        let others = [
            (
                format!(r#"{{"name":"t",{meta},"task":{{"ttl":1}}}}"#),
                Era::Stateless,
            ),
            (
                format!(r#"{{"name":"t",{meta},"extra":null}}"#),
                Era::Stateless,
            ),
            (
                format!(r#"{{"name":"t",{meta},"requestState":"s"}}"#),
                Era::Stateless,
            ),
            (
                format!(r#"{{"name":"t",{meta},"inputResponses":{{}}}}"#),
                Era::Stateless,
            ),
            (
                format!(r#"{{"name":"t","name":"u",{meta}}}"#),
                Era::Stateless,
            ),
            (format!(r#"{{"name":7,{meta}}}"#), Era::Stateless),
            (format!(r#"{{"name":"\ud800",{meta}}}"#), Era::Stateless),
            (
                format!(r#"{{"name":"t","arguments":[],{meta}}}"#),
                Era::Stateless,
            ),
            (
                format!(r#"{{"name":"t","arguments":null,{meta}}}"#),
                Era::Stateless,
            ),
            (
                format!(r#"{{"name":"t","arguments":{{"a":"{large}"}},{meta}}}"#),
                Era::Stateless,
            ),
            (r#"{"name":"t","arguments":{}}"#.to_string(), Era::Stateless),
            // The first of two versions counts, as for every request.
            (
                format!(
                    r#"{{"name":"t",{}}}"#,
                    meta.replacen(
                        r#""_meta":{"#,
                        r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","#,
                        1
                    )
                ),
                Era::Stateless,
            ),
            (
                r#"{"name":"t","_meta":null}"#.to_string(),
                Era::Handshake("2025-06-18".into()),
            ),
            (
                r#"{"name":"t","_meta":{"x":1e400}}"#.to_string(),
                Era::Handshake("2025-06-18".into()),
            ),
            (
                r#"{"name":"t","_meta":{"progressToken":1}}"#.to_string(),
                Era::Handshake("2025-06-18".into()),
            ),
            (
                format!(r#"{{"name":"t",{meta}}}"#),
                Era::Handshake("2025-06-18".into()),
            ),
            (format!(r#"{{"name":"t",{meta}}}"#), Era::Unknown),
            (
                r#"{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#
                    .to_string(),
                Era::Stateless,
            ),
        ];
        for (params, era) in &others {
            assert_eq!(plain(params, era), None, "{params}");
        }
        // Only requests of `tools/call`.
        for text in [
            format!(r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"t",{meta}}}}}"#),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"name":"t",{meta}}}}}"#
            ),
        ] {
            let crate::jsonrpc::Incoming::Single(Ok(message)) = crate::jsonrpc::parse(&text) else {
                panic!("{text}");
            };
            assert_eq!(plain_call(&message, &Era::Stateless), None, "{text}");
        }
    }

    #[test]
    fn initialize_is_read_as_rmcp_reads_it() {
        let params = [
            r#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
            r#"{"protocolVersion":"2024-11-05","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"c","version":"1","title":"T"},"_meta":{"k":1}}"#,
            r#"{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"c","version":"1"},"extra":[1]}"#,
            r#"{"capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
            r#"{"protocolVersion":7,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
            r#"{"protocolVersion":"2025-06-18"}"#,
            r#"[]"#,
        ];
        for params in params {
            for id in ["1", r#""a""#] {
                read_as_rmcp_reads(id, "initialize", params);
            }
        }
    }
}
