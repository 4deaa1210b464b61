//! The call context (ABI 3): what a tool that declares a `TMcpContext` parameter can do while it
//! runs — report progress, log to the client, see whether the call was cancelled, and ask the
//! client (elicitation, sampling, roots).
//!
//! The library receives a [`ContextAbi`](delphi_mcp_manifest::abi::ContextAbi) record of
//! `extern "C"` functions and a handle. The handle is a number registered here for the duration of the call, not a pointer: a handle
//! kept by Pascal code and used after its call returned finds nothing and gets
//! [`context_status::EXPIRED`]. What the functions do is up to the transport's
//! [`ClientLink`] (rmcp's peer for MCP clients, [`crate::mcp`]); without one (Rust callers,
//! `bind!`, isolated workers) progress and logs go to the server's log only and requests are
//! refused.

mod abi_fns;

use delphi_mcp_manifest::abi::{context_status, request_kind};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use tokio_util::sync::CancellationToken;

pub use abi_fns::context_abi;

/// MCP log levels (RFC 5424 severities), in the order of `TMcpLogLevel`.
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// A request a tool makes of the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientRequest {
    /// `elicitation/create`.
    Elicit,
    /// `sampling/createMessage`.
    Sample,
    /// `roots/list`.
    Roots,
}

impl ClientRequest {
    /// The request of an ABI request kind.
    pub fn from_kind(kind: i32) -> Option<ClientRequest> {
        Some(match kind {
            request_kind::ELICIT => ClientRequest::Elicit,
            request_kind::SAMPLE => ClientRequest::Sample,
            request_kind::ROOTS => ClientRequest::Roots,
            _ => return None,
        })
    }

    /// The ABI request kind ([`request_kind`]).
    pub fn kind(self) -> i32 {
        match self {
            ClientRequest::Elicit => request_kind::ELICIT,
            ClientRequest::Sample => request_kind::SAMPLE,
            ClientRequest::Roots => request_kind::ROOTS,
        }
    }

    /// The JSON-RPC method.
    pub fn method(self) -> &'static str {
        match self {
            ClientRequest::Elicit => "elicitation/create",
            ClientRequest::Sample => "sampling/createMessage",
            ClientRequest::Roots => "roots/list",
        }
    }
}

/// How a request to the client ended (the ABI status and answer text of
/// [`delphi_mcp_manifest::abi::ContextRequestFn`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestOutcome {
    /// A [`context_status`] code.
    pub status: i32,
    /// The answer (OK) or the message (otherwise).
    pub text: String,
}

impl RequestOutcome {
    /// A refusal with `status` and a message.
    pub fn refused(status: i32, message: impl Into<String>) -> RequestOutcome {
        RequestOutcome {
            status,
            text: message.into(),
        }
    }

    /// The outcome of a client's JSON `result` to `request`.
    pub fn from_result(request: ClientRequest, result: &Value) -> RequestOutcome {
        let ok = |text: String| RequestOutcome {
            status: context_status::OK,
            text,
        };
        match request {
            ClientRequest::Elicit => match result.get("action").and_then(Value::as_str) {
                Some("accept") => ok(result
                    .get("content")
                    .map(Value::to_string)
                    .unwrap_or_else(|| "{}".into())),
                Some("decline") => RequestOutcome::refused(context_status::DECLINED, ""),
                Some("cancel") => RequestOutcome::refused(context_status::CANCELLED, ""),
                _ => RequestOutcome::refused(
                    context_status::FAILED,
                    format!("the client answered elicitation/create with {result}"),
                ),
            },
            ClientRequest::Sample => {
                let content = result.get("content");
                let text = content
                    .and_then(|c| c.get("text"))
                    .or_else(|| {
                        content
                            .and_then(Value::as_array)
                            .and_then(|blocks| blocks.iter().find_map(|b| b.get("text")))
                    })
                    .and_then(Value::as_str);
                ok(text.map_or_else(|| result.to_string(), str::to_string))
            }
            ClientRequest::Roots => ok(result
                .get("roots")
                .map(Value::to_string)
                .unwrap_or_else(|| "[]".into())),
        }
    }
}

/// What a transport offers a running tool: the client of the request that called it.
/// Called on the library thread; implementations block until the client has the message.
pub trait ClientLink: Send + Sync {
    /// Sends `notifications/progress` for the request's progress token; false when there is no
    /// token (nothing sent).
    fn progress(&self, done: f64, total: Option<f64>, message: Option<&str>) -> bool;
    /// Sends `notifications/message` at `level` (an index of [`LOG_LEVELS`]) when the client's
    /// `logging/setLevel` lets it through; false when not sent.
    fn log(&self, level: usize, message: &str) -> bool;
    /// Sends `request` with `params` and waits for the answer.
    fn request(&self, request: ClientRequest, params: Value) -> RequestOutcome;
    /// Tells the clients subscribed to `uri` that it changed; false when none is.
    fn resource_updated(&self, _uri: &str) -> bool {
        false
    }
}

/// One call's context: its cancellation and its client.
pub struct CallContext {
    tool: String,
    cancelled: CancellationToken,
    link: Option<Arc<dyn ClientLink>>,
}

impl std::fmt::Debug for CallContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallContext")
            .field("tool", &self.tool)
            .field("cancelled", &self.cancelled.is_cancelled())
            .field("client", &self.link.is_some())
            .finish()
    }
}

impl CallContext {
    /// The context of a call of `tool`, cancelled with `cancelled`, talking to `link`.
    pub fn new(
        tool: &str,
        cancelled: CancellationToken,
        link: Option<Arc<dyn ClientLink>>,
    ) -> CallContext {
        CallContext {
            tool: tool.to_string(),
            cancelled,
            link,
        }
    }

    /// Reports progress (also logged at debug level on the server).
    pub fn progress(&self, done: f64, total: Option<f64>, message: Option<&str>) -> i32 {
        tracing::debug!(tool = %self.tool, done, ?total, message, "progress");
        match &self.link {
            Some(link) if link.progress(done, total, message) => context_status::OK,
            _ => context_status::SKIPPED,
        }
    }

    /// Logs `message` at `level` (an index of [`LOG_LEVELS`]) to the server's log and the client.
    pub fn log(&self, level: usize, message: &str) -> i32 {
        let level = level.min(LOG_LEVELS.len() - 1);
        match level {
            0 => tracing::debug!(tool = %self.tool, "{message}"),
            1 | 2 => tracing::info!(tool = %self.tool, "{message}"),
            3 => tracing::warn!(tool = %self.tool, "{message}"),
            _ => tracing::error!(tool = %self.tool, level = LOG_LEVELS[level], "{message}"),
        }
        match &self.link {
            Some(link) if link.log(level, message) => context_status::OK,
            _ => context_status::SKIPPED,
        }
    }

    /// The resource `uri` changed: its subscribers are told.
    pub fn resource_updated(&self, uri: &str) -> i32 {
        tracing::debug!(tool = %self.tool, %uri, "resource updated");
        match &self.link {
            Some(link) if link.resource_updated(uri) => context_status::OK,
            _ => context_status::SKIPPED,
        }
    }

    /// Whether the client cancelled the call.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.is_cancelled()
    }

    /// Asks the client.
    pub fn request(&self, request: ClientRequest, params: &str) -> RequestOutcome {
        let Some(link) = &self.link else {
            return RequestOutcome::refused(
                context_status::UNSUPPORTED,
                format!(
                    "{} is not available here: the call does not come from an MCP client that can be asked (or runs in an isolated worker)",
                    request.method()
                ),
            );
        };
        let params = match serde_json::from_str::<Value>(params) {
            Ok(value) => value,
            Err(error) => {
                return RequestOutcome::refused(
                    context_status::FAILED,
                    format!("the {} params are not JSON: {error}", request.method()),
                )
            }
        };
        link.request(request, params)
    }
}

/// The contexts of the calls running now, by handle.
fn registry() -> &'static Mutex<HashMap<usize, Arc<CallContext>>> {
    static REGISTRY: OnceLock<Mutex<HashMap<usize, Arc<CallContext>>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

fn lookup(handle: usize) -> Option<Arc<CallContext>> {
    registry()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(&handle)
        .cloned()
}

/// A context registered for the duration of a call: the handle the library gets. Dropping it
/// unregisters the handle, so later uses are refused.
#[derive(Debug)]
pub struct Registered {
    handle: usize,
}

impl Registered {
    /// Registers `context` under a fresh handle.
    pub fn new(context: Arc<CallContext>) -> Registered {
        static NEXT: AtomicUsize = AtomicUsize::new(1);
        let handle = NEXT.fetch_add(1, Ordering::Relaxed);
        registry()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(handle, context);
        Registered { handle }
    }

    /// The handle.
    pub fn handle(&self) -> usize {
        self.handle
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        registry()
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&self.handle);
    }
}

/// The context argument of a call: filled by [`crate::call::call_tool`] from the caller's
/// [`crate::host::CallControl`]. Compared by identity.
#[derive(Debug, Clone, Default)]
pub struct ContextArg(pub Option<Arc<CallContext>>);

impl PartialEq for ContextArg {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }
}
