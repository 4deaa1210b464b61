//! The direct path of a plain `tools/call` over stdio.
//!
//! Most stdio traffic is `tools/call`, and through rmcp each one costs a task of its own, the
//! request and answer converted to and from rmcp's types and passed through its service loop:
//! several times the cost of validating and running the call. A call that needs nothing of
//! rmcp's session therefore goes from the line reader straight to the dispatcher
//! ([`crate::dispatch::Dispatch::call_tool`]), and its answer is built from rmcp's own result
//! types with the same era rules rmcp applies ([`answer`]), so the text is the one rmcp writes.
//!
//! A request takes the direct path ([`direct_call`]) only when all of these hold; anything
//! else goes through rmcp as before:
//! - it is a single `tools/call` (not in a batch) that rmcp's types read as one, with arguments
//!   of at most [`LARGE_ARGUMENTS`] bytes (larger ones are validated on a blocking thread);
//! - the connection's era is fixed and rmcp's service runs: after `initialize` was answered
//!   and `notifications/initialized` received, or in the 2026-07-28 era after rmcp answered a
//!   first request;
//! - its `_meta` has no `progressToken` (progress is sent through rmcp's peer) and, in the
//!   2026-07-28 era, names that version and has every field it requires (in
//!   the handshake era, no protocol version at all); it carries no `inputResponses` or
//!   `requestState` (answers to a server's input request);
//! - with one library thread, no tool call is running or waiting in rmcp, so calls still reach
//!   the library in request order.
//!
//! A direct call is started (arguments validated and the call queued for the library thread)
//! before the next line is read, so calls reach the library in request order; its answer takes
//! the request's place in the connection's answer order like any other. Cancellation
//! (`notifications/cancelled`) cancels its [`CallControl`]; deadlines and result limits are the
//! host's, as on the rmcp path.

use crate::dispatch::{CallControl, DispatchError, ToolOutcome};
use crate::lifecycle::{Era, STATELESS_VERSION};
use crate::mcp::{call_tool_response, RawArguments, LARGE_ARGUMENTS};
use rmcp::model::{
    ClientRequest, GetExtensions, GetMeta, JsonRpcMessage, ProtocolVersion, RequestId,
    ServerJsonRpcMessage, ServerResult,
};
use std::sync::Arc;

/// A `tools/call` on the direct path, to be started by the reader.
#[derive(Debug)]
pub struct DirectCall {
    /// The connection's internal id of the request.
    pub internal: i64,
    /// The tool.
    pub name: String,
    /// The raw text of `arguments`.
    pub arguments: Option<Arc<str>>,
    /// Cancelled by `notifications/cancelled`.
    pub control: CallControl,
    /// Whether the answer follows the 2026-07-28 rules (else those of the handshake era).
    pub stateless: bool,
}

/// The tool name and arguments of `request` when it may take the direct path in `era` (see
/// the module documentation); `meta_version` is the protocol version its `_meta` names.
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
        // `arguments` absent (present ones are always attached by `connection::prepare`).
        None if call.params.arguments.is_none() => None,
        None => return None,
    };
    Some((call.params.name.to_string(), arguments))
}

/// The JSON-RPC answer to a direct call under its internal id, as rmcp's service writes it:
/// [`call_tool_response`] as the handler's result, then rmcp's era rules for results.
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
