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
    ClientRequest, GetExtensions, GetMeta, JsonRpcMessage, ProtocolVersion, RequestId,
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
