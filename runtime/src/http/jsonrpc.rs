//! The JSON-RPC side of `POST /mcp`: the body is read as raw JSON-RPC ([`crate::jsonrpc`])
//! before rmcp sees it, so that every message gets its answer under its exact id.
//!
//! - A body that is not JSON gets 400 with -32700, an invalid message 400 with -32600 (under
//!   its id when readable), a request whose params hold values no MCP type can hold 400 with
//!   -32602; every error answer of `/mcp` that concerns the message is a JSON-RPC error body
//!   (`application/json`), also when rmcp answers with plain text (`docs/http.md` lists the
//!   statuses).
//! - rmcp gets each request under an internal integer id with the `tools/call` arguments
//!   taken out (they reach the dispatcher as [`RawArguments`]); its answer, JSON or SSE, gets
//!   the client's exact id back.
//! - A session is a connection whose era `initialize` fixed ([`crate::lifecycle`]): a second
//!   `initialize` or a request naming another protocol version in its `_meta` is refused;
//!   batches are served in 2025-03-26 sessions (and sessionless requests rmcp reads as
//!   2025-03-26), element by element, answered with one JSON array.
//! - `notifications/cancelled` in a session names the client's id: it is passed on under the
//!   internal id of the request in progress.

use super::direct::{self, DirectCall, Eligible};
use super::sse::SseIdRewriter;
use super::App;
use crate::direct::PlainCall;
use crate::jsonrpc::{self, code, EnvelopeError, IdKey, Incoming, Kind, RawId, Request};
use crate::lifecycle::{self, Era};
use crate::mcp::RawArguments;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

/// Bodies longer than this are read on a blocking thread, not on the async workers.
const LARGE_BODY: usize = 64 * 1024;

/// The header naming a legacy session. (Header names are constants: a lookup by `&str` parses
/// the name first.)
pub(super) const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");

/// The header naming the request's protocol version.
pub(super) const VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");

/// (session, client id) -> internal ids of the requests in progress.
type InFlightMap = Arc<Mutex<HashMap<(String, IdKey), Vec<i64>>>>;

/// Sessions remembered before the ones rmcp has ended (idle, deleted) are forgotten.
const SESSIONS_KEPT: usize = 256;

/// The protocol state of the endpoint: internal ids, session eras, requests in progress.
#[derive(Default)]
pub(super) struct Protocol {
    /// rmcp's sessions (to forget the eras of sessions that ended).
    sessions: Arc<LocalSessionManager>,
    next_internal: AtomicI64,
    /// Session id -> the protocol version its `initialize` negotiated.
    session_eras: Mutex<HashMap<String, String>>,
    /// (session, client id) -> internal ids of requests in progress (for cancellation).
    in_flight: InFlightMap,
}

/// The body of an rmcp answer.
pub(super) type RmcpBody = http_body_util::combinators::BoxBody<Bytes, std::convert::Infallible>;

/// A JSON-RPC error as an HTTP response.
pub(super) fn error_response(status: StatusCode, id: &RawId, code: i64, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        jsonrpc::error_json(id, code, message),
    )
        .into_response()
}

/// The JSON-RPC code of an HTTP error status rmcp answers with plain text.
fn code_of_status(status: StatusCode) -> i64 {
    if status.is_server_error() {
        code::INTERNAL_ERROR
    } else {
        code::INVALID_REQUEST
    }
}

/// A message ready for rmcp.
struct Forward {
    /// The message text rmcp reads.
    body: String,
    /// The client's id (requests) and the internal id rmcp gets instead.
    id: Option<(RawId, i64)>,
    /// The raw `arguments` of a `tools/call`.
    arguments: Option<Arc<str>>,
    /// The version an `initialize` negotiates (to fix the session's era).
    initialize: Option<String>,
}

/// What to do with a body.
enum Plan {
    /// Answer at once (status, JSON body).
    Respond(StatusCode, String),
    /// 202 Accepted, no body (a notification nobody needs to see).
    Accepted,
    /// Pass one message to rmcp.
    Single(Forward),
    /// Run a `tools/call` on the direct path (`http/direct.rs`) and answer under this id.
    Direct(RawId, DirectCall),
    /// A batch: answers known now, or messages for rmcp, in order.
    Batch(Vec<Result<Forward, Option<String>>>),
}

impl Protocol {
    /// The state of an endpoint whose sessions `sessions` holds.
    pub(super) fn new(sessions: Arc<LocalSessionManager>) -> Protocol {
        Protocol {
            sessions,
            ..Protocol::default()
        }
    }

    /// Remembers the era `initialize` fixed for a new session.
    async fn remember_session(&self, session: String, version: String) {
        let crowded = {
            let mut eras = self.session_eras.lock().unwrap_or_else(|e| e.into_inner());
            eras.insert(session, version);
            eras.len() > SESSIONS_KEPT
        };
        if crowded {
            let live: std::collections::HashSet<String> = self
                .sessions
                .sessions
                .read()
                .await
                .keys()
                .map(|id| id.to_string())
                .collect();
            self.session_eras
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .retain(|id, _| live.contains(id));
        }
    }

    fn next_internal(&self) -> i64 {
        self.next_internal.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn session_era(&self, session: Option<&str>) -> Option<Era> {
        let eras = self.session_eras.lock().unwrap_or_else(|e| e.into_inner());
        session
            .and_then(|s| eras.get(s))
            .map(|v| Era::Handshake(v.clone()))
    }

    /// Reads a body (on a blocking thread when large: call through [`plan`]). A single
    /// message may take the direct path when `direct` is given (its headers allow it).
    fn plan(
        &self,
        session: Option<&str>,
        version_header: Option<&str>,
        body: &[u8],
        direct: Option<&Eligible<'_>>,
    ) -> Plan {
        let Ok(text) = std::str::from_utf8(body) else {
            let error = jsonrpc::not_utf8();
            return Plan::Respond(StatusCode::BAD_REQUEST, error.to_json());
        };
        if let Some(direct) = direct {
            if let Some((id, call)) = PlainCall::read_text(text) {
                if let Some(call) = direct.admit(call) {
                    return Plan::Direct(id, call);
                }
            }
        }
        let era = self.session_era(session);
        match jsonrpc::parse(text) {
            Incoming::Single(Err(error)) => Plan::Respond(StatusCode::BAD_REQUEST, error.to_json()),
            Incoming::Single(Ok(message)) => {
                if let (Some(direct), Kind::Request(id)) = (direct, &message.kind) {
                    if let Some(call) = direct.call(&message) {
                        return Plan::Direct(id.clone(), call);
                    }
                }
                match self.forward(&message, session, era.as_ref(), false) {
                    Ok(Some(forward)) => Plan::Single(forward),
                    Ok(None) => Plan::Accepted,
                    Err(error) => Plan::Respond(StatusCode::BAD_REQUEST, error.to_json()),
                }
            }
            Incoming::Batch(items) => {
                // Without a session, rmcp reads a request without MCP-Protocol-Version as
                // 2025-03-26.
                let era = era.unwrap_or_else(|| match (session, version_header) {
                    (Some(_), _) => Era::Unknown,
                    (None, None) => Era::Handshake(lifecycle::BATCH_VERSION.into()),
                    (None, Some(v)) if v >= lifecycle::STATELESS_VERSION => Era::Stateless,
                    (None, Some(v)) => Era::Handshake(v.into()),
                });
                if let Err(error) = era.check_batch() {
                    return Plan::Respond(StatusCode::BAD_REQUEST, error.to_json());
                }
                let entries = items
                    .into_iter()
                    .map(|item| match item {
                        Err(error) => Err(Some(error.to_json())),
                        Ok(message) => match self.forward(&message, session, Some(&era), true) {
                            Ok(Some(forward)) => Ok(forward),
                            Ok(None) => Err(None),
                            Err(error) => Err(Some(error.to_json())),
                        },
                    })
                    .collect();
                Plan::Batch(entries)
            }
        }
    }

    /// The message for rmcp, `None` when there is nothing to pass on, or the answer.
    fn forward(
        &self,
        message: &Request<'_>,
        session: Option<&str>,
        era: Option<&Era>,
        in_batch: bool,
    ) -> Result<Option<Forward>, EnvelopeError> {
        let method = message.method();
        let mut internal = None;
        let mut cancelled = None;
        match &message.kind {
            Kind::Request(id) => {
                if in_batch && method == "initialize" {
                    return Err(EnvelopeError::invalid(
                        id.clone(),
                        "initialize must not be part of a batch",
                    ));
                }
                if let Some(era) = era {
                    era.check(method, message.meta_protocol_version().as_deref(), id)?;
                }
                internal = Some(self.next_internal());
            }
            Kind::Notification => {
                if let Some(target) = message.cancelled_request() {
                    let in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
                    let key = (session.unwrap_or_default().to_string(), target.key());
                    match in_flight.get(&key).and_then(|ids| ids.first()) {
                        Some(found) => cancelled = Some(*found),
                        // No request of that id in progress: an internal id could match an
                        // unrelated request, so the notification is dropped.
                        None => return Ok(None),
                    }
                }
            }
            Kind::Response(_) => {}
        }
        let body = message.for_rmcp(internal, cancelled);
        // What rmcp cannot read is answered here, under the client's id.
        if let Err(error) = crate::direct::read_client_message(&body, method) {
            return match &message.kind {
                Kind::Request(id) => Err(EnvelopeError {
                    id: id.clone(),
                    code: code::INVALID_PARAMS,
                    message: format!("Invalid params for {method}: {error}"),
                }),
                _ => {
                    tracing::warn!(%method, %error, "unreadable notification ignored");
                    Ok(None)
                }
            };
        }
        let arguments = message.tool_arguments().map(Arc::from);
        Ok(Some(Forward {
            body,
            id: message.id().cloned().zip(internal),
            arguments,
            initialize: (method == "initialize").then(|| {
                lifecycle::negotiated_version(lifecycle::initialize_version(message).as_deref())
            }),
        }))
    }

    fn register(&self, session: Option<&str>, forward: &Forward) -> Option<InFlight> {
        let session = session?;
        let (id, internal) = forward.id.as_ref()?;
        let key = (session.to_string(), id.key());
        self.in_flight
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(key.clone())
            .or_default()
            .push(*internal);
        Some(InFlight {
            map: Arc::clone(&self.in_flight),
            key,
            internal: *internal,
        })
    }

    /// Forgets a session DELETE ended.
    pub(super) fn end_session(&self, session: &str) {
        self.session_eras
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(session);
    }
}

/// A request in progress in a session; forgotten when dropped.
pub(super) struct InFlight {
    map: InFlightMap,
    key: (String, IdKey),
    internal: i64,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(ids) = map.get_mut(&self.key) {
            ids.retain(|i| *i != self.internal);
            if ids.is_empty() {
                map.remove(&self.key);
            }
        }
    }
}

/// How a POST was handled.
pub(super) enum Handled {
    /// The response, complete (an error, 202, or a batch's array).
    Direct(Response),
    /// rmcp's answer to one message, to be sent as it streams.
    Rmcp(Answer),
}

/// What rmcp's answer needs besides its body: keep these alive until it is sent.
pub(super) struct Answer {
    /// The answer (its body already rewritten).
    pub response: http::Response<RmcpBody>,
    /// The request's entry among the requests in progress.
    pub in_flight: Option<InFlight>,
}

/// Handles a POST body: answers it (also a call on the direct path, `http/direct.rs`), or
/// passes its message(s) to `service` and rewrites the answer. `parts` are the request's (with
/// `Accept` already normalised); `accepts_json`: the client accepts JSON answers; `watch`
/// gets the request's id as soon as it is read (for a timeout's answer), and learns when a
/// direct call's own deadline answers it before the request's timeout.
pub(super) async fn post(
    app: &Arc<App>,
    service: &super::RmcpService,
    parts: http::request::Parts,
    body: Bytes,
    accepts_json: bool,
    watch: &super::timeout::Watch,
) -> Handled {
    let session = header_str(&parts.headers, SESSION_HEADER);
    let version = header_str(&parts.headers, VERSION_HEADER);
    let plan = if body.len() > LARGE_BODY {
        let planner = Arc::clone(app);
        let (session, version) = (session.map(str::to_string), version.map(str::to_string));
        let planned = tokio::task::spawn_blocking(move || {
            planner
                .protocol
                .plan(session.as_deref(), version.as_deref(), &body, None)
        })
        .await;
        match planned {
            Ok(plan) => plan,
            Err(error) => {
                return Handled::Direct(error_response(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    &RawId::null(),
                    code::INTERNAL_ERROR,
                    &format!("reading the body failed: {error}"),
                ))
            }
        }
    } else {
        let direct = direct::eligible(&parts.headers, accepts_json, app.recording.features());
        app.protocol.plan(session, version, &body, direct.as_ref())
    };
    match plan {
        Plan::Respond(status, body) => {
            tracing::warn!(%status, %body, "message refused");
            Handled::Direct(
                (status, [(header::CONTENT_TYPE, "application/json")], body).into_response(),
            )
        }
        Plan::Accepted => Handled::Direct(StatusCode::ACCEPTED.into_response()),
        Plan::Direct(id, call) => {
            watch.note_id(&id);
            watch.answered_within(app.recording.call_timeout());
            // No other request in progress (this one holds the only permit taken).
            let alone = app.permits.available_permits() + 1 >= app.max_concurrent;
            Handled::Direct(direct::answer(&app.recording, &id, call, alone).await)
        }
        Plan::Single(forward) => {
            if let Some((id, _)) = &forward.id {
                watch.note_id(id);
            }
            let in_flight = app.protocol.register(session, &forward);
            let response = send(service, &parts, &forward).await;
            if let Some(version) = &forward.initialize {
                if let Some(new_session) = header_str(response.headers(), SESSION_HEADER) {
                    app.protocol
                        .remember_session(new_session.to_string(), version.clone())
                        .await;
                }
            }
            let id = forward.id.as_ref().map(|(id, _)| id);
            Handled::Rmcp(Answer {
                response: rewrite(response, id, forward.id.as_ref().map(|(_, i)| *i)).await,
                in_flight,
            })
        }
        Plan::Batch(entries) => {
            let mut answers = Vec::new();
            for entry in entries {
                match entry {
                    Err(answer) => answers.extend(answer),
                    Ok(forward) => {
                        let _in_flight = app.protocol.register(session, &forward);
                        let response = send(service, &parts, &forward).await;
                        answers.extend(collect_answer(response, forward.id.as_ref()).await);
                    }
                }
            }
            if answers.is_empty() {
                return Handled::Direct(StatusCode::ACCEPTED.into_response());
            }
            let body = jsonrpc::batch_json(answers.iter().map(String::as_str));
            Handled::Direct(
                (
                    StatusCode::OK,
                    [(header::CONTENT_TYPE, "application/json")],
                    body,
                )
                    .into_response(),
            )
        }
    }
}

fn header_str(headers: &HeaderMap, name: HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Passes one message to rmcp with the request's headers. Boxed: rmcp's handling is a future
/// of KBs, which every request's future would otherwise carry.
fn send<'a>(
    service: &'a super::RmcpService,
    parts: &http::request::Parts,
    forward: &Forward,
) -> std::pin::Pin<Box<impl std::future::Future<Output = http::Response<RmcpBody>> + 'a>> {
    let mut request = http::Request::builder()
        .method(parts.method.clone())
        .uri(parts.uri.clone())
        .version(parts.version)
        .body(Full::new(Bytes::from(forward.body.clone())))
        .unwrap_or_default();
    *request.headers_mut() = parts.headers.clone();
    request.headers_mut().insert(
        header::CONTENT_LENGTH,
        HeaderValue::from(forward.body.len()),
    );
    if let Some(arguments) = &forward.arguments {
        request
            .extensions_mut()
            .insert(RawArguments(Arc::clone(arguments)));
    }
    Box::pin(service.handle(request))
}

/// rmcp's answer with the client's id: JSON bodies rewritten whole, SSE event by event, plain
/// error texts turned into JSON-RPC error bodies.
async fn rewrite(
    response: http::Response<RmcpBody>,
    id: Option<&RawId>,
    internal: Option<i64>,
) -> http::Response<RmcpBody> {
    let (mut parts, body) = response.into_parts();
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let id_or_null = id.cloned().unwrap_or_else(RawId::null);
    if content_type.starts_with("text/event-stream") {
        let rewriter = SseIdRewriter::new(body, id.cloned(), internal);
        return http::Response::from_parts(parts, rewriter.boxed());
    }
    if content_type.starts_with("application/json") {
        let text = body_text(body).await;
        let text = match (id, internal) {
            (Some(id), Some(internal)) if jsonrpc::internal_id(&text) == Some(internal) => {
                jsonrpc::with_id(&text, id)
            }
            _ => text,
        };
        parts.headers.remove(header::CONTENT_LENGTH);
        return http::Response::from_parts(parts, Full::new(Bytes::from(text)).boxed());
    }
    if parts.status.is_client_error() || parts.status.is_server_error() {
        let message = body_text(body).await;
        let message = if message.trim().is_empty() {
            parts
                .status
                .canonical_reason()
                .unwrap_or("error")
                .to_string()
        } else {
            message
        };
        let json = jsonrpc::error_json(&id_or_null, code_of_status(parts.status), &message);
        parts.headers.remove(header::CONTENT_LENGTH);
        parts.headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        return http::Response::from_parts(parts, Full::new(Bytes::from(json)).boxed());
    }
    http::Response::from_parts(parts, body)
}

/// A whole (finite) body as text.
async fn body_text(body: RmcpBody) -> String {
    let bytes = body
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The JSON text answering one batch element (`None` for a notification).
async fn collect_answer(
    response: http::Response<RmcpBody>,
    id: Option<&(RawId, i64)>,
) -> Option<String> {
    let status = response.status();
    let response = rewrite(response, id.map(|(id, _)| id), id.map(|(_, i)| *i)).await;
    let sse = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("text/event-stream"));
    let text = body_text(response.into_body()).await;
    let answer = if sse {
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .find(|data| {
                id.is_some_and(|(id, _)| {
                    jsonrpc::object_members(data).is_ok_and(|members| {
                        members
                            .iter()
                            .any(|(k, v)| k.as_bytes() == b"id" && v.get() == id.as_json())
                    })
                })
            })
            .map(str::to_string)
    } else if text.trim().is_empty() {
        None
    } else {
        Some(text)
    };
    match (answer, id) {
        (Some(answer), _) => Some(answer),
        (None, Some((id, _))) if status != StatusCode::ACCEPTED => Some(jsonrpc::error_json(
            id,
            code::INTERNAL_ERROR,
            "the server produced no answer",
        )),
        (None, _) => None,
    }
}

/// The body of a JSON-RPC error response, for the limits checked before the body is read.
pub(super) fn limit_error(status: StatusCode, code: i64, message: &str) -> Response {
    error_response(status, &RawId::null(), code, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cancellation_names_the_internal_id_of_the_request_in_its_session() {
        let protocol = Protocol::default();
        let Plan::Single(call) = protocol.plan(
            Some("s"),
            None,
            br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":{}}}"#,
            None,
        ) else {
            panic!("forwarded")
        };
        let internal = call.id.as_ref().map(|(_, i)| *i).expect("a request");
        let in_flight = protocol.register(Some("s"), &call);
        let cancel = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"\u0061"}}"#;
        let Plan::Single(forward) = protocol.plan(Some("s"), None, cancel, None) else {
            panic!("forwarded")
        };
        assert!(
            forward.body.contains(&format!(r#""requestId":{internal}"#)),
            "{}",
            forward.body
        );
        // Another session's request of the same id is not this one; a finished one is gone.
        assert!(matches!(
            protocol.plan(Some("t"), None, cancel, None),
            Plan::Accepted
        ));
        drop(in_flight);
        assert!(matches!(
            protocol.plan(Some("s"), None, cancel, None),
            Plan::Accepted
        ));
    }

    #[test]
    fn bodies_are_planned() {
        let protocol = Protocol::default();
        let plan = |body: &str| protocol.plan(None, None, body.as_bytes(), None);
        assert!(
            matches!(plan("{"), Plan::Respond(StatusCode::BAD_REQUEST, b) if b.contains("-32700"))
        );
        assert!(matches!(
            protocol.plan(None, None, b"\xff", None),
            Plan::Respond(StatusCode::BAD_REQUEST, b) if b.contains("-32700")
        ));
        assert!(matches!(
            plan(r#"{"jsonrpc":"1.0","id":"q","method":"ping"}"#),
            Plan::Respond(StatusCode::BAD_REQUEST, b) if b.contains(r#""id":"q""#) && b.contains("-32600")
        ));
        assert!(matches!(
            plan(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"x":1e400}}}"#),
            Plan::Respond(StatusCode::BAD_REQUEST, b) if b.contains(r#""id":3"#) && b.contains("-32602")
        ));
        let Plan::Single(forward) = plan(
            r#"{"jsonrpc":"2.0","id":18446744073709551617,"method":"tools/call","params":{"name":"a","arguments":{"A":1e400}}}"#,
        ) else {
            panic!("forwarded")
        };
        assert_eq!(forward.arguments.as_deref(), Some(r#"{"A":1e400}"#));
        assert_eq!(
            forward.id.as_ref().map(|(id, _)| id.as_json()),
            Some("18446744073709551617")
        );
        assert!(matches!(
            plan(
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#
            ),
            Plan::Accepted
        ));
        // Batches: sessionless and without a version header rmcp reads 2025-03-26.
        assert!(matches!(
            plan(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            Plan::Batch(_)
        ));
        assert!(matches!(
            protocol.plan(
                None,
                Some("2025-06-18"),
                br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                None
            ),
            Plan::Respond(StatusCode::BAD_REQUEST, _)
        ));
    }

    #[test]
    fn only_plain_stateless_tool_calls_take_the_direct_path() {
        let protocol = Protocol::default();
        let headers = crate::http::tests::headers(&[
            ("mcp-protocol-version", lifecycle::STATELESS_VERSION),
            ("mcp-method", "tools/call"),
            ("mcp-name", "t"),
        ]);
        let eligible = direct::eligible(&headers, true, None).expect("eligible headers");
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}
        });
        let with_meta = |extra: (&str, serde_json::Value)| {
            let mut meta = meta.clone();
            meta[extra.0] = extra.1;
            meta
        };
        let direct = |params: serde_json::Value| {
            let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
            let plan = protocol.plan(None, None, body.to_string().as_bytes(), Some(&eligible));
            matches!(plan, Plan::Direct(..))
        };
        assert!(direct(
            json!({"name": "t", "arguments": {"a": 1}, "_meta": meta})
        ));
        assert!(direct(json!({"name": "t", "_meta": meta})));
        let large = "x".repeat(crate::mcp::LARGE_ARGUMENTS);
        for params in [
            json!({"name": "u", "arguments": {}, "_meta": meta}),
            json!({"name": "t", "arguments": [], "_meta": meta}),
            json!({"name": "t", "arguments": {"a": large}, "_meta": meta}),
            json!({"name": "t", "arguments": {}}),
            json!({"name": "t", "arguments": {}, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
            json!({"name": "t", "arguments": {}, "_meta": with_meta(("progressToken", json!(1)))}),
            json!({"name": "t", "arguments": {}, "_meta": with_meta(("io.modelcontextprotocol/protocolVersion", json!("2025-11-25")))}),
            json!({"name": "t", "arguments": {}, "_meta": meta, "requestState": "s"}),
            json!({"name": "t", "arguments": {}, "_meta": meta, "inputResponses": {}}),
        ] {
            assert!(!direct(params.clone()), "{params}");
        }
        let batch = format!(
            r#"[{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","_meta":{meta}}}}}]"#
        );
        let plan = protocol.plan(None, None, batch.as_bytes(), Some(&eligible));
        assert!(matches!(&plan, Plan::Batch(_)), "a batch is never direct");
    }
}
