//! MCP over Streamable HTTP: rmcp's Streamable HTTP service inside an axum router, with the
//! checks a local tool server needs (see `docs/http.md`):
//!
//! - `POST /mcp` (and `GET`/`DELETE` for legacy sessions): both protocol eras through rmcp. The
//!   stateless 2026-07-28 era is POST only (GET/DELETE get 405, notifications 202, the
//!   `MCP-Protocol-Version`/`Mcp-Method`/`Mcp-Name` headers are checked against the body); the
//!   `initialize` eras get rmcp sessions. Answers are JSON or SSE as the `Accept` header allows.
//! - Every route: `Host` must name the bind address (DNS-rebinding protection) and a present
//!   `Origin` must be the server's own or one given with `--allow-origin`, else 403
//!   (`checks.rs`).
//! - `/mcp`: `Authorization: Bearer <token>` unless `--no-auth`, else 401 with
//!   `WWW-Authenticate`; bodies over the limit get 413; more than `max_concurrent` requests in
//!   progress get 503 with a JSON-RPC "busy" error; a request running past the timeout gets 504.
//! - `GET /` and `GET /status.json`: the status page ([`page`]); open on loopback binds, behind
//!   the token otherwise.
//!
//! Each body is read as raw JSON-RPC before rmcp sees it (`http/jsonrpc.rs`): exact ids, JSON-RPC
//! error bodies with the right status, eras per session, batches in 2025-03-26, and the raw
//! `arguments` of a `tools/call` reaching the dispatcher as [`crate::mcp::RawArguments`]
//! (through the `http::request::Parts` rmcp attaches to each request), as over stdio. A plain
//! stateless `tools/call` is answered without rmcp, with the bytes rmcp writes for it
//! (`http/direct.rs`).

mod checks;
mod direct;
mod jsonrpc;
pub mod page;
mod sse;
mod timeout;
pub mod token;

use crate::dispatch::Dispatch;
use crate::jsonrpc::code;
use crate::mcp::McpServer;
use crate::status::{CallStats, StatsDispatch};
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::serve::ListenerExt;
use axum::Router;
use axum::ServiceExt;
use bytes::Bytes;
use checks::Checks;
use http_body::{Body as HttpBody, Frame, SizeHint};
use http_body_util::{BodyExt, Limited};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
pub use token::{Token, TokenError, TokenSource};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The address served when `--http` names none.
pub const DEFAULT_ADDR: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 8765);
/// Default request body limit: 4 MiB.
pub const DEFAULT_MAX_BODY: usize = 4 * 1024 * 1024;
/// Default request timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
/// Default cap on requests in progress.
pub const DEFAULT_MAX_CONCURRENT: usize = 64;
/// How many following ports are tried when the requested one is taken.
pub const EXTRA_PORTS: u16 = 10;
/// The MCP endpoint path.
pub const ENDPOINT_PATH: &str = "/mcp";

/// How clients authenticate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthMode {
    /// Bearer token (the default); `token_file` is `--token-file`.
    Token {
        /// A file holding the token (created when absent).
        token_file: Option<PathBuf>,
    },
    /// No authentication (`--no-auth`); refused on non-loopback binds.
    None,
}

/// Options of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Address to bind; port 0 picks a free port.
    pub addr: SocketAddr,
    /// Authentication.
    pub auth: AuthMode,
    /// Extra origins allowed besides the server's own (`scheme://host[:port]`, or `null`).
    pub allowed_origins: Vec<String>,
    /// Largest request body in bytes.
    pub max_body: usize,
    /// Longest time a request may take; `None` for no limit.
    pub timeout: Option<Duration>,
    /// Requests in progress at most; more get a "busy" error.
    pub max_concurrent: usize,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            addr: DEFAULT_ADDR,
            auth: AuthMode::Token { token_file: None },
            allowed_origins: Vec::new(),
            max_body: DEFAULT_MAX_BODY,
            timeout: Some(DEFAULT_TIMEOUT),
            max_concurrent: DEFAULT_MAX_CONCURRENT,
        }
    }
}

/// What the status page says about the served library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryInfo {
    /// The library file.
    pub path: String,
    /// The ABI version it reports.
    pub abi_version: u32,
    /// SHA-256 of its manifest's canonical form (`Manifest::canonical_sha256`).
    pub manifest_sha256: String,
    /// Library threads.
    pub threads: usize,
}

/// Errors of the HTTP transport.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// `--http` was given something that is not an address.
    #[error("invalid --http address {0:?}: expected HOST:PORT, IP, PORT or localhost[:PORT]")]
    BadAddress(String),
    /// An `--allow-origin` value is not `scheme://host[:port]`.
    #[error("invalid --allow-origin {0:?}: expected scheme://host[:port] (e.g. http://localhost:3000) or null")]
    BadOrigin(String),
    /// Binding failed (on every port tried).
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The first address tried.
        addr: SocketAddr,
        /// The error of the last attempt.
        source: std::io::Error,
    },
    /// `--no-auth` on an address other machines can reach.
    #[error("refusing to serve {0} without authentication: --no-auth is only allowed on a loopback address (127.0.0.1, ::1), because anyone who can reach {0} could call the tools. Bind to 127.0.0.1, or keep the token")]
    NoAuthOffLoopback(SocketAddr),
    /// The token could not be set up.
    #[error(transparent)]
    Token(#[from] TokenError),
    /// The async runtime could not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// The server failed while running.
    #[error("HTTP server error: {0}")]
    Serve(std::io::Error),
}

/// Parses the `--http` value: `HOST:PORT`, `IP`, `PORT`, `localhost[:PORT]`, `[::1]:PORT`.
pub fn parse_addr(text: &str) -> Result<SocketAddr, HttpError> {
    let text = text.trim();
    let bad = || HttpError::BadAddress(text.to_string());
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    if let Ok(ip) = text.trim_matches(['[', ']']).parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, DEFAULT_ADDR.port()));
    }
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::new(DEFAULT_ADDR.ip(), port));
    }
    let (host, port) = match text.rsplit_once(':') {
        Some((host, port)) => (host, port.parse::<u16>().map_err(|_| bad())?),
        None => (text, DEFAULT_ADDR.port()),
    };
    if host.eq_ignore_ascii_case("localhost") {
        return Ok(SocketAddr::new(DEFAULT_ADDR.ip(), port));
    }
    Err(bad())
}

/// rmcp's Streamable HTTP service.
pub(crate) type RmcpService = StreamableHttpService<McpServer, LocalSessionManager>;

/// Shared state of the routes.
struct App {
    checks: Checks,
    token: Option<Token>,
    loopback: bool,
    /// Accepts JSON and SSE: legacy sessions (SSE), stateless era answered as JSON.
    both: RmcpService,
    /// Accepts JSON only: no sessions, every answer JSON.
    json_only: RmcpService,
    /// Accepts SSE only: legacy sessions, every answer SSE.
    sse_only: RmcpService,
    permits: Arc<Semaphore>,
    max_concurrent: usize,
    max_body: usize,
    timeout: Option<Duration>,
    status: page::StatusSource,
    protocol: jsonrpc::Protocol,
    /// The dispatcher rmcp's handler uses (it counts calls for the status page), for the
    /// direct path.
    recording: Arc<dyn Dispatch>,
}

/// A server bound to its address, not yet running.
pub struct BoundServer {
    listener: tokio::net::TcpListener,
    local: SocketAddr,
    router: checks::Guarded,
    token_source: Option<TokenSource>,
}

impl std::fmt::Debug for BoundServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoundServer")
            .field("local", &self.local)
            .field("token_source", &self.token_source)
            .finish()
    }
}

impl BoundServer {
    /// The bound address (with the port actually used).
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The MCP endpoint URL.
    pub fn endpoint(&self) -> String {
        format!("{}{ENDPOINT_PATH}", base_url(self.local))
    }

    /// The start-up line: endpoint, status page and where the token is.
    pub fn banner(&self) -> String {
        let auth = match &self.token_source {
            Some(source) => format!("token: {source}"),
            None => "token: none (--no-auth)".to_string(),
        };
        format!(
            "delphi-mcp: MCP endpoint {} ; {auth} ; status page {}/",
            self.endpoint(),
            base_url(self.local)
        )
    }

    /// Serves until `shutdown` completes.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), HttpError> {
        // Answers are small and written whole: nothing is gained by waiting for ACKs.
        let listener = self.listener.tap_io(|stream| {
            if let Err(error) = stream.set_nodelay(true) {
                tracing::debug!(%error, "cannot set TCP_NODELAY");
            }
        });
        axum::serve(listener, self.router.into_make_service())
            .with_graceful_shutdown(shutdown)
            .await
            .map_err(HttpError::Serve)
    }
}

fn base_url(addr: SocketAddr) -> String {
    match addr.ip() {
        IpAddr::V6(ip) => format!("http://[{ip}]:{}", addr.port()),
        IpAddr::V4(ip) => format!("http://{ip}:{}", addr.port()),
    }
}

/// Binds the listener (trying the next [`EXTRA_PORTS`] ports when the port is taken), sets up
/// the token and builds the routes. Must run inside a tokio runtime.
pub async fn bind(
    dispatch: Arc<dyn Dispatch>,
    library: Option<LibraryInfo>,
    options: HttpOptions,
) -> Result<BoundServer, HttpError> {
    let loopback = options.addr.ip().is_loopback();
    if options.auth == AuthMode::None && !loopback {
        return Err(HttpError::NoAuthOffLoopback(options.addr));
    }
    let listener = bind_listener(options.addr).await?;
    let local = listener.local_addr().map_err(|source| HttpError::Bind {
        addr: options.addr,
        source,
    })?;
    let checks = Checks::new(local, &options.allowed_origins)?;
    let token = match &options.auth {
        AuthMode::Token { token_file } => {
            Some(token::resolve(token_file.as_deref(), local.port())?)
        }
        AuthMode::None => None,
    };
    let token_source = token.as_ref().map(|t| t.source().clone());

    let stats = Arc::new(CallStats::new());
    let recording: Arc<dyn Dispatch> = Arc::new(StatsDispatch::new(
        Arc::clone(&dispatch),
        Arc::clone(&stats),
    ));
    let server = McpServer::new(Arc::clone(&recording));
    // Before the first request, not during it.
    server.prepare();
    let sessions = Arc::new(LocalSessionManager::default());
    // Host and Origin are checked by `guard` for every route before rmcp sees a request.
    let base = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_max_request_body_bytes(options.max_body);
    let make = |config: StreamableHttpServerConfig, sessions: Arc<LocalSessionManager>| {
        let server = server.clone();
        StreamableHttpService::new(move || Ok(server.clone()), sessions, config)
    };
    let app = Arc::new(App {
        checks,
        token,
        loopback,
        both: make(
            base.clone()
                .with_legacy_session_mode(true)
                .with_json_response(true),
            Arc::clone(&sessions),
        ),
        json_only: make(
            base.clone()
                .with_legacy_session_mode(false)
                .with_json_response(true),
            Arc::new(LocalSessionManager::default()),
        ),
        sse_only: make(
            base.with_legacy_session_mode(true)
                .with_json_response(false),
            Arc::clone(&sessions),
        ),
        permits: Arc::new(Semaphore::new(options.max_concurrent.max(1))),
        max_concurrent: options.max_concurrent.max(1),
        max_body: options.max_body,
        timeout: options.timeout,
        status: page::StatusSource {
            dispatch,
            library,
            stats,
            endpoint: format!("{}{ENDPOINT_PATH}", base_url(local)),
            auth: token_source.is_some(),
        },
        protocol: jsonrpc::Protocol::new(Arc::clone(&sessions)),
        recording,
    });
    let router = Router::new()
        .route("/", get(status_page))
        .route("/status.json", get(status_json))
        .route(ENDPOINT_PATH, any(mcp_endpoint))
        .fallback(not_found)
        .with_state(Arc::clone(&app));
    Ok(BoundServer {
        listener,
        local,
        router: checks::Guarded::new(app, router),
        token_source,
    })
}

async fn bind_listener(addr: SocketAddr) -> Result<tokio::net::TcpListener, HttpError> {
    let attempts = if addr.port() == 0 { 0 } else { EXTRA_PORTS };
    let mut last = None;
    for offset in 0..=attempts {
        let Some(port) = addr.port().checked_add(offset) else {
            break;
        };
        let candidate = SocketAddr::new(addr.ip(), port);
        match tokio::net::TcpListener::bind(candidate).await {
            Ok(listener) => {
                if offset > 0 {
                    tracing::warn!(requested = %addr, used = %candidate, "port taken; using the next free one");
                }
                return Ok(listener);
            }
            Err(error) if error.kind() == std::io::ErrorKind::AddrInUse => last = Some(error),
            Err(source) => return Err(HttpError::Bind { addr, source }),
        }
    }
    Err(HttpError::Bind {
        addr,
        source: last.unwrap_or_else(|| std::io::Error::other("no port to try")),
    })
}

/// Serves `dispatch` over HTTP until Ctrl-C. Builds its own runtime; prints the start-up line.
pub fn serve_http(
    dispatch: Arc<dyn Dispatch>,
    library: Option<LibraryInfo>,
    options: HttpOptions,
) -> Result<(), HttpError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(HttpError::Runtime)?;
    let outcome = runtime.block_on(async move {
        let server = bind(dispatch, library, options).await?;
        // The one line users (and tests) read: it is not a log message, so it bypasses the
        // log level.
        eprintln!("{}", server.banner());
        server
            .run(async {
                let _ = tokio::signal::ctrl_c().await;
                tracing::info!("interrupted; stopping");
            })
            .await
    });
    runtime.shutdown_timeout(Duration::from_secs(1));
    outcome
}

fn plain(status: StatusCode, text: impl Into<String>) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text.into(),
    )
        .into_response()
}

fn unauthorized() -> Response {
    let mut response = plain(
        StatusCode::UNAUTHORIZED,
        "Unauthorized: send Authorization: Bearer <token> (the token's location is printed when the server starts)",
    );
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"delphi-mcp\""),
    );
    response
}

fn authorized(app: &App, headers: &HeaderMap) -> bool {
    match &app.token {
        None => true,
        Some(token) => token.authorizes(
            headers
                .get(header::AUTHORIZATION)
                .map(HeaderValue::as_bytes),
        ),
    }
}

async fn not_found() -> Response {
    plain(
        StatusCode::NOT_FOUND,
        format!("Not found: the MCP endpoint is {ENDPOINT_PATH}; the status page is /"),
    )
}

async fn status_page(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if !app.loopback && !authorized(&app, &headers) {
        return unauthorized();
    }
    let html = page::render_html(&app.status.snapshot());
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        html,
    )
        .into_response()
}

async fn status_json(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    if !app.loopback && !authorized(&app, &headers) {
        return unauthorized();
    }
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        app.status.snapshot().to_string(),
    )
        .into_response()
}

async fn mcp_endpoint(State(app): State<Arc<App>>, request: Request) -> Response {
    if !authorized(&app, request.headers()) {
        return unauthorized();
    }
    if request.method() != Method::POST {
        // GET (legacy session stream) and DELETE (end a session); rmcp answers 405 for them in
        // the stateless era.
        let ended = (request.method() == Method::DELETE)
            .then(|| request.headers().get(jsonrpc::SESSION_HEADER).cloned())
            .flatten();
        let response = app.both.handle(request).await;
        if let Some(session) = ended.filter(|_| response.status().is_success()) {
            app.protocol
                .end_session(session.to_str().unwrap_or_default());
        }
        return into_axum(response, None, None, None);
    }
    let (mut parts, body) = request.into_parts();
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > app.max_body as u64) {
        return too_large(app.max_body);
    }
    // The permit is taken before the body is read, so slow uploads count against the cap too.
    let Ok(permit) = Arc::clone(&app.permits).try_acquire_owned() else {
        tracing::warn!(limit = app.max_concurrent, "busy: request refused");
        let mut response = jsonrpc::limit_error(
            StatusCode::SERVICE_UNAVAILABLE,
            code::SERVER_BUSY,
            &format!(
                "Server busy: {} requests are already in progress (the --max-concurrent limit); retry shortly",
                app.max_concurrent
            ),
        );
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return response;
    };
    let deadline = app.timeout.map(|t| tokio::time::Instant::now() + t);
    let reading = Limited::new(body, app.max_body).collect();
    let collected = match deadline {
        None => reading.await,
        Some(deadline) => match tokio::time::timeout_at(deadline, reading).await {
            Ok(collected) => collected,
            Err(_) => {
                return jsonrpc::limit_error(
                    StatusCode::REQUEST_TIMEOUT,
                    code::REQUEST_TIMEOUT,
                    "Request Timeout: the body did not arrive within the --timeout limit",
                )
            }
        },
    };
    let bytes = match collected {
        Ok(collected) => collected.to_bytes(),
        Err(error) => {
            if error.is::<http_body_util::LengthLimitError>() {
                return too_large(app.max_body);
            }
            return jsonrpc::limit_error(
                StatusCode::BAD_REQUEST,
                code::INVALID_REQUEST,
                &format!("Bad Request: cannot read the body: {error}"),
            );
        }
    };
    let accepted = checks::accepts(&parts.headers);
    if accepted == (false, false) {
        return jsonrpc::limit_error(
            StatusCode::NOT_ACCEPTABLE,
            code::INVALID_REQUEST,
            "Not Acceptable: the client must accept application/json or text/event-stream",
        );
    }
    if !checks::is_json(&parts.headers) {
        return jsonrpc::limit_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            code::INVALID_REQUEST,
            "Unsupported Media Type: Content-Type must be application/json",
        );
    }
    let service = match accepted {
        (true, false) => &app.json_only,
        (false, true) => &app.sse_only,
        _ => &app.both,
    };
    parts.headers.insert(
        header::ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    let watch = timeout::Watch::new(deadline);
    // Boxed: the request's future is over 2 KB, and would be copied by value into its timeout.
    let handled = Box::pin(jsonrpc::post(
        &app, service, parts, bytes, accepted.0, &watch,
    ));
    let handled = match timeout::Timed::new(handled, &watch).await {
        Ok(handled) => handled,
        Err(timeout::TimedOut) => {
            tracing::warn!("request timed out");
            return jsonrpc::error_response(
                StatusCode::GATEWAY_TIMEOUT,
                &watch.id(),
                code::REQUEST_TIMEOUT,
                &format!(
                    "Request timed out after {} s (the --timeout limit)",
                    app.timeout.map(|t| t.as_secs_f64()).unwrap_or_default()
                ),
            );
        }
    };
    match handled {
        jsonrpc::Handled::Direct(response) => response,
        jsonrpc::Handled::Rmcp(answer) => {
            into_axum(answer.response, Some(permit), deadline, answer.in_flight)
        }
    }
}

fn too_large(limit: usize) -> Response {
    jsonrpc::limit_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        code::INVALID_REQUEST,
        &format!(
            "Payload Too Large: the request body exceeds {limit} bytes (the --max-body limit)"
        ),
    )
}

fn into_axum(
    response: http::Response<jsonrpc::RmcpBody>,
    permit: Option<OwnedSemaphorePermit>,
    deadline: Option<tokio::time::Instant>,
    in_flight: Option<jsonrpc::InFlight>,
) -> Response {
    response.map(|inner| {
        Body::new(GuardedBody {
            inner,
            permit,
            deadline: deadline.map(|d| Box::pin(tokio::time::sleep_until(d))),
            _in_flight: in_flight,
        })
    })
}

/// A response body that holds the request's concurrency permit until it is fully sent, ends
/// a stream that runs past the request deadline, and keeps the request listed as in progress
/// (for cancellation) until then.
struct GuardedBody {
    inner: jsonrpc::RmcpBody,
    permit: Option<OwnedSemaphorePermit>,
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
    _in_flight: Option<jsonrpc::InFlight>,
}

impl HttpBody for GuardedBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        if let Some(deadline) = this.deadline.as_mut() {
            if deadline.as_mut().poll(cx).is_ready() {
                tracing::warn!("response stream ended at the request timeout");
                this.permit = None;
                return Poll::Ready(None);
            }
        }
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None)) || this.inner.is_end_stream() {
            // Release before the last bytes go out, so a client sending its next request
            // right after reading this answer is not counted twice.
            this.permit = None;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header map of `pairs` (also for the other modules' tests).
    pub(super) fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_str(value).expect("header"));
        }
        map
    }

    #[test]
    fn addresses_parse_in_every_documented_form() {
        assert_eq!(
            parse_addr("127.0.0.1:9000").ok(),
            Some("127.0.0.1:9000".parse().unwrap())
        );
        assert_eq!(
            parse_addr("9000").ok(),
            Some("127.0.0.1:9000".parse().unwrap())
        );
        assert_eq!(
            parse_addr("0.0.0.0").ok(),
            Some("0.0.0.0:8765".parse().unwrap())
        );
        assert_eq!(parse_addr("localhost").ok(), Some(DEFAULT_ADDR));
        assert_eq!(
            parse_addr("localhost:0").ok(),
            Some("127.0.0.1:0".parse().unwrap())
        );
        assert_eq!(
            parse_addr("[::1]:80").ok(),
            Some("[::1]:80".parse().unwrap())
        );
        assert!(matches!(
            parse_addr("example.com:80"),
            Err(HttpError::BadAddress(_))
        ));
        assert!(matches!(
            parse_addr("127.0.0.1:99999"),
            Err(HttpError::BadAddress(_))
        ));
    }
}
