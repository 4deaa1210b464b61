//! The direct path of a plain `tools/call`, shared by both transports (`stdio/direct.rs`,
//! `http/direct.rs`): which calls may skip rmcp ([`direct_call`]) and the answer rmcp would
//! write for them ([`answer`]).
//!
//! Through rmcp a `tools/call` costs a task of its own, the request and answer converted to and
//! from rmcp's types and passed through its service loop: several times the cost of
//! validating and running the call. A call that needs nothing of rmcp's session or peer goes to
//! the dispatcher ([`crate::dispatch::Dispatch::call_tool`]) instead, and its answer is built
//! from rmcp's own result types with the same era rules rmcp applies, so the text is the one
//! rmcp writes. Each transport adds its own conditions (its module documentation lists them).

use crate::dispatch::{DispatchError, ToolOutcome};
use crate::lifecycle::{Era, STATELESS_VERSION};
use crate::mcp::{call_tool_response, RawArguments, LARGE_ARGUMENTS};
use rmcp::model::{
    CallToolRequest, ClientJsonRpcMessage, ClientRequest, GetExtensions, GetMeta,
    InitializeRequest, JsonRpcMessage, JsonRpcRequest, ProtocolVersion, RequestId,
    ServerJsonRpcMessage, ServerResult,
};
use std::sync::Arc;

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
    let meta = request.get_meta();
    if meta.get_progress_token().is_some()
        || call.params.input_responses.is_some()
        || call.params.request_state.is_some()
    {
        return None;
    }
    match era {
        Era::Unknown => return None,
        Era::Handshake(_) if meta_version.is_some() => return None,
        Era::Handshake(_) => {}
        Era::Stateless if meta_version != Some(STATELESS_VERSION) => return None,
        Era::Stateless => {
            let complete = meta
                .missing_required_keys(&ProtocolVersion::V_2026_07_28)
                .is_empty();
            if !complete {
                return None;
            }
        }
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
