//! The direct path of a plain `tools/call` over stdio.
//!
//! Most stdio traffic is `tools/call`, and through rmcp each one costs a task of its own, the
//! request and answer converted to and from rmcp's types and passed through its service loop:
//! several times the cost of validating and running the call. A call that needs nothing of
//! rmcp's session therefore goes from the line reader straight to the dispatcher
//! ([`crate::dispatch::Dispatch::call_tool`]), and its answer is built from rmcp's own result
//! types with the same era rules rmcp applies ([`crate::direct::answer`]), so the text is the
//! one rmcp writes.
//!
//! A request takes the direct path ([`crate::direct::direct_call`]) only when all of these
//! hold; anything else goes through rmcp as before:
//! - it is a single `tools/call` (not in a batch) that rmcp's types read as one, with arguments
//!   of at most [`LARGE_ARGUMENTS`](crate::mcp::LARGE_ARGUMENTS) bytes (larger ones are
//!   validated on a blocking thread);
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

use crate::dispatch::CallControl;
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
