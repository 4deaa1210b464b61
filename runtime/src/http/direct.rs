//! The direct path of a plain stateless `tools/call` over HTTP.
//!
//! Through rmcp, a `tools/call` POST is parsed once more, its headers checked against a
//! `serde_json::Value` copy of the whole message, and served by a one-shot service task of its
//! own with channels to and from it: several times the cost of validating and running the call.
//! A call that needs nothing of rmcp's peer is therefore validated and run by the dispatcher
//! (the recording one: the status page counts it) and answered with the bytes rmcp writes for
//! it: status 200, `Content-Type: application/json`, the answer [`crate::direct::answer`]
//! builds from rmcp's types under the client's exact id.
//!
//! A POST takes the direct path only when all of these hold; anything else goes through rmcp
//! exactly as before:
//! - its headers ([`eligible`]): no `Mcp-Session-Id`; one `MCP-Protocol-Version`, the stateless
//!   version ([`STATELESS_VERSION`]); the client accepts JSON (so rmcp would answer with JSON);
//!   one `Mcp-Method` of `tools/call` and one plain (not Base64-wrapped) `Mcp-Name`, as rmcp
//!   requires, and no `Mcp-Param-*` header at all;
//! - its body ([`Eligible::call`]): at most 64 KiB (larger bodies are read on a blocking
//!   thread), one plain `tools/call` request (not a batch; params of `name`, `arguments` and
//!   `_meta` only, read without rmcp's types by [`PlainCall`], in one pass over the body when
//!   it holds nothing else, [`PlainCall::read_text`]), naming the tool `Mcp-Name` names, that
//!   the direct path admits in the 2026-07-28 era (`_meta` names that version and has every
//!   required key, no `progressToken`, arguments within the large-arguments limit);
//! - the tool takes no call context (such a call talks to its client through rmcp's peer).
//!
//! rmcp answers such a call with 200 whatever its outcome: its only JSON-RPC error is -32602
//! (unknown tool), which rmcp maps to 200 when the request's `_meta` is complete.
//! Authentication, the concurrency permit, `--max-body` and `--timeout` (504 under the known
//! id) apply as on the rmcp path. The call is cancelled ([`CallControl`]) when the client goes
//! away or the timeout ends the request before the answer ([`Running`]), as rmcp cancels its
//! request token when its request is dropped.

use crate::direct::PlainCall;
use crate::dispatch::{CallControl, CallFuture, Dispatch, DispatchError, Features, ToolOutcome};
use crate::jsonrpc::{self, code, RawId, Request};
use crate::lifecycle::{Era, STATELESS_VERSION};
use axum::http::{header, HeaderMap, HeaderName, StatusCode};
use axum::response::{IntoResponse, Response};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio_util::sync::CancellationToken;

/// Headers of a POST that may take the direct path.
pub(super) struct Eligible<'a> {
    /// The `Mcp-Name` header: the tool the body must name.
    name: &'a str,
    /// The library's features (which tools take a call context).
    features: Option<&'a dyn Features>,
}

/// A `tools/call` on the direct path.
#[derive(Debug)]
pub(super) struct DirectCall {
    /// The tool.
    name: String,
    /// The raw text of `arguments`.
    arguments: Option<Arc<str>>,
}

/// The header of the request's method.
const METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");

/// The header of the tool a `tools/call` names.
const NAME_HEADER: HeaderName = HeaderName::from_static("mcp-name");

/// The one value of header `name`, as text (`None` when absent, repeated or not text).
fn single(headers: &HeaderMap, name: HeaderName) -> Option<&str> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    match values.next() {
        Some(_) => None,
        None => value.to_str().ok(),
    }
}

/// Whether a POST with `headers` may take the direct path (see the module documentation);
/// `accepts_json`: the client accepts `application/json`.
pub(super) fn eligible<'a>(
    headers: &'a HeaderMap,
    accepts_json: bool,
    features: Option<&'a dyn Features>,
) -> Option<Eligible<'a>> {
    let plain = accepts_json
        && !headers.contains_key(super::jsonrpc::SESSION_HEADER)
        && single(headers, super::jsonrpc::VERSION_HEADER) == Some(STATELESS_VERSION)
        && single(headers, METHOD_HEADER) == Some("tools/call")
        && !headers
            .keys()
            .any(|name| name.as_str().starts_with("mcp-param-"));
    if !plain {
        return None;
    }
    // rmcp decodes a `=?base64?...?=` value before comparing it: such a name goes to rmcp.
    let name = single(headers, NAME_HEADER).filter(|name| !name.starts_with("=?base64?"))?;
    Some(Eligible { name, features })
}

impl Eligible<'_> {
    /// The call when `message` may take the direct path: a plain `tools/call` ([`PlainCall`])
    /// of the tool `Mcp-Name` names, which takes no call context. Any other message goes
    /// through rmcp.
    pub(super) fn call(&self, message: &Request<'_>) -> Option<DirectCall> {
        self.admit(PlainCall::read(message)?)
    }

    /// [`Eligible::call`] of a call already read ([`PlainCall::read_text`] reads a body in one
    /// pass).
    pub(super) fn admit(&self, call: PlainCall) -> Option<DirectCall> {
        if !call.admitted(&Era::Stateless) {
            return None;
        }
        let (name, arguments) = (call.name, call.arguments);
        let takes_context = self.features.is_some_and(|f| f.takes_context(&name));
        (name == self.name && !takes_context).then_some(DirectCall { name, arguments })
    }
}

/// Runs `call` on `dispatch` and answers it under the client's `id`, as rmcp does; `alone`:
/// no other request is in progress ([`CallControl::caller_idle`]).
pub(super) async fn answer(
    dispatch: &Arc<dyn Dispatch>,
    id: &RawId,
    call: DirectCall,
    alone: bool,
) -> Response {
    let outcome = Running::start(Arc::clone(dispatch), call, alone).await;
    match crate::direct::answer(0, true, outcome) {
        Ok(text) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            jsonrpc::with_id(&text, id),
        )
            .into_response(),
        Err(error) => {
            tracing::error!(%error, "cannot write the answer of a tool call");
            super::jsonrpc::error_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                id,
                code::INTERNAL_ERROR,
                &format!("cannot write the answer: {error}"),
            )
        }
    }
}

/// A direct call in progress. Dropped before it ends (the client went away, or `--timeout`
/// ended the request), it is cancelled ([`CallControl`]) and left to finish as a task of its
/// own, so the host sees the cancellation as it does for a call rmcp runs (a queued call is
/// dropped, a running isolated one handled per `--on-cancel`).
struct Running {
    call: Option<CallFuture<'static>>,
    cancel: CancellationToken,
}

impl Running {
    fn start(dispatch: Arc<dyn Dispatch>, call: DirectCall, alone: bool) -> Running {
        let control = CallControl {
            caller_idle: alone,
            ..CallControl::new()
        };
        let cancel = control.cancelled.clone();
        let DirectCall { name, arguments } = call;
        let call: CallFuture<'static> = Box::pin(async move {
            dispatch
                .call_tool(&name, arguments.as_deref(), control)
                .await
        });
        Running {
            call: Some(call),
            cancel,
        }
    }
}

impl Future for Running {
    type Output = Result<ToolOutcome, DispatchError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let Some(call) = self.call.as_mut() else {
            return Poll::Pending;
        };
        let outcome = std::task::ready!(call.as_mut().poll(cx));
        self.call = None;
        Poll::Ready(outcome)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(call) = self.call.take() {
            self.cancel.cancel();
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(call);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::tests::headers;

    const PLAIN: [(&str, &str); 3] = [
        ("mcp-protocol-version", STATELESS_VERSION),
        ("mcp-method", "tools/call"),
        ("mcp-name", "calc_scale"),
    ];

    fn with(extra: &[(&'static str, &str)]) -> HeaderMap {
        let mut pairs: Vec<(&'static str, &str)> = PLAIN.to_vec();
        pairs.extend_from_slice(extra);
        headers(&pairs)
    }

    #[test]
    fn only_plain_stateless_tool_call_headers_are_eligible() {
        let plain = with(&[]);
        assert_eq!(
            eligible(&plain, true, None).map(|e| e.name),
            Some("calc_scale")
        );
        assert!(eligible(&plain, false, None).is_none(), "SSE only");
        for extra in [
            ("mcp-session-id", "s"),
            ("mcp-param-region", "x"),
            ("mcp-name", "calc_scale"),
            ("mcp-method", "tools/call"),
            ("mcp-protocol-version", STATELESS_VERSION),
        ] {
            assert!(eligible(&with(&[extra]), true, None).is_none(), "{extra:?}");
        }
        for (name, _) in PLAIN {
            let others: Vec<_> = PLAIN.iter().copied().filter(|(n, _)| *n != name).collect();
            assert!(eligible(&headers(&others), true, None).is_none(), "{name}");
            if name != "mcp-name" {
                let changed: Vec<_> = others.into_iter().chain([(name, "2025-11-25")]).collect();
                assert!(eligible(&headers(&changed), true, None).is_none(), "{name}");
            }
        }
        let wrapped = headers(&[
            PLAIN[0],
            PLAIN[1],
            ("mcp-name", "=?base64?Y2FsY19zY2FsZQ==?="),
        ]);
        assert!(eligible(&wrapped, true, None).is_none());
    }
}
