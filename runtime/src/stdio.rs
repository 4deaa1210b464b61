//! MCP over stdio: one JSON-RPC message per line, UTF-8 both ways.
//!
//! A custom rmcp transport, because the runtime needs the raw text of each `tools/call`'s
//! `arguments` (duplicate keys, exact numbers) and answers in request order:
//! - input is read as it arrives (a read returns whatever the pipe holds), so a client that
//!   keeps stdin open and waits for each reply never hangs; a message split across writes and
//!   several messages in one write both work;
//! - with one library thread, requests are handed to rmcp one at a time (the next is read once
//!   the previous one is answered), so answers come in request order; with several library
//!   threads requests are pipelined and answers come as calls finish (ids tell them apart);
//! - lines that are not JSON get a JSON-RPC parse error (-32700, id null); requests rmcp cannot
//!   read get -32602 (or -32600) with their id echoed; notifications never get an answer, and
//!   notifications before any session (no successful `initialize` or stateless request yet)
//!   are dropped rather than ending the service;
//! - stdout carries nothing but protocol; logs go to stderr through `tracing`;
//! - at end of input, outstanding answers are written, then the server exits.

use crate::mcp::{McpServer, RawArguments};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetExtensions};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Largest accepted line (one message): longer lines are answered with an error and skipped.
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// Errors of the stdio transport.
#[derive(Debug, thiserror::Error)]
pub enum StdioError {
    /// Writing to stdout failed (the client went away).
    #[error("writing to stdout failed: {0}")]
    Write(#[from] std::io::Error),
    /// The tokio runtime could not be built.
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// The rmcp service failed.
    #[error("MCP service error: {0}")]
    Service(String),
}

/// The rmcp transport over a reader and a writer (stdin/stdout in `serve`).
pub struct LineTransport<R, W> {
    reader: R,
    buffer: Vec<u8>,
    discarding: bool,
    eof: bool,
    writer: Arc<tokio::sync::Mutex<W>>,
    in_flight: Arc<tokio::sync::watch::Sender<usize>>,
    sequential: bool,
    session: Arc<SessionState>,
}

/// Whether a protocol lifecycle exists yet: rmcp stops serving when a notification arrives
/// before one, so such notifications are dropped here instead.
#[derive(Default)]
struct SessionState {
    started: std::sync::atomic::AtomicBool,
    /// Ids of requests whose successful answer starts the lifecycle (not discover or ping).
    openers: std::sync::Mutex<Vec<rmcp::model::RequestId>>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport reading `reader` and writing `writer`; `sequential` answers in order.
    pub fn new(reader: R, writer: W, sequential: bool) -> Self {
        LineTransport {
            reader,
            buffer: Vec::new(),
            discarding: false,
            eof: false,
            writer: Arc::new(tokio::sync::Mutex::new(writer)),
            in_flight: Arc::new(tokio::sync::watch::channel(0usize).0),
            sequential,
            session: Arc::default(),
        }
    }

    /// Writes a message the transport answers itself (parse errors), counted as in flight
    /// until written so that ordering holds.
    fn reply_directly(&self, message: serde_json::Value) {
        let writer = Arc::clone(&self.writer);
        let in_flight = Arc::clone(&self.in_flight);
        in_flight.send_modify(|n| *n += 1);
        tokio::spawn(async move {
            let mut line = message.to_string();
            line.push('\n');
            let mut writer = writer.lock().await;
            if let Err(error) = write_line(&mut *writer, line.as_bytes()).await {
                tracing::error!(%error, "cannot write to stdout");
            }
            in_flight.send_modify(|n| *n = n.saturating_sub(1));
        });
    }

    /// The next complete line, or `None` at end of input.
    async fn next_line(&mut self) -> Option<Vec<u8>> {
        loop {
            if let Some(pos) = self.buffer.iter().position(|&b| b == b'\n') {
                let mut line: Vec<u8> = self.buffer.drain(..=pos).collect();
                line.pop();
                if self.discarding {
                    self.discarding = false;
                    continue;
                }
                return Some(line);
            }
            if self.buffer.len() > MAX_LINE {
                self.buffer.clear();
                if !self.discarding {
                    self.discarding = true;
                    self.reply_directly(error_message(
                        serde_json::Value::Null,
                        -32600,
                        format!("message longer than {MAX_LINE} bytes"),
                    ));
                }
            }
            if self.eof {
                if self.buffer.is_empty() || self.discarding {
                    return None;
                }
                return Some(std::mem::take(&mut self.buffer));
            }
            let mut chunk = [0u8; 64 * 1024];
            match self.reader.read(&mut chunk).await {
                Ok(0) => self.eof = true,
                Ok(n) => self.buffer.extend_from_slice(&chunk[..n]),
                Err(error) => {
                    tracing::error!(%error, "cannot read stdin");
                    self.eof = true;
                }
            }
        }
    }

    async fn next_message(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if self.sequential {
                let mut idle = self.in_flight.subscribe();
                let _ = idle.wait_for(|n| *n == 0).await;
            }
            let Some(line) = self.next_line().await else {
                // Let outstanding answers be written before rmcp closes the service.
                let mut idle = self.in_flight.subscribe();
                let _ = idle.wait_for(|n| *n == 0).await;
                return None;
            };
            let line = trim_line(&line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let Ok(text) = std::str::from_utf8(line) else {
                self.reply_directly(error_message(
                    serde_json::Value::Null,
                    -32700,
                    "Parse error: the message is not valid UTF-8".into(),
                ));
                continue;
            };
            match serde_json::from_str::<ClientJsonRpcMessage>(text) {
                Ok(mut message) => {
                    let started = self
                        .session
                        .started
                        .load(std::sync::atomic::Ordering::SeqCst);
                    if let ClientJsonRpcMessage::Notification(notification) = &message {
                        if !started {
                            tracing::debug!(
                                ?notification,
                                "notification before any session ignored"
                            );
                            continue;
                        }
                    }
                    if let ClientJsonRpcMessage::Request(request) = &mut message {
                        if !started
                            && !matches!(request.request.method(), "server/discover" | "ping")
                        {
                            if let Ok(mut openers) = self.session.openers.lock() {
                                openers.push(request.id.clone());
                            }
                        }
                        self.in_flight.send_modify(|n| *n += 1);
                        if matches!(request.request, ClientRequest::CallToolRequest(_)) {
                            if let Some(raw) = crate::mcp::raw_tool_arguments(text.as_bytes()) {
                                request
                                    .request
                                    .extensions_mut()
                                    .insert(RawArguments(Arc::from(raw)));
                            }
                        }
                    }
                    return Some(message);
                }
                Err(error) => self.reject(text, error),
            }
        }
    }

    /// Answers a line rmcp cannot read, as JSON-RPC demands.
    fn reject(&self, text: &str, error: serde_json::Error) {
        let value = match serde_json::from_str::<serde_json::Value>(text) {
            Ok(value) => value,
            Err(parse) => {
                tracing::warn!(%parse, "line is not JSON");
                self.reply_directly(error_message(
                    serde_json::Value::Null,
                    -32700,
                    format!("Parse error: {parse}"),
                ));
                return;
            }
        };
        let id = value.get("id").cloned();
        let method = value.get("method").and_then(|m| m.as_str());
        match (id, method) {
            (Some(id), Some(method)) if id.is_string() || id.is_number() => {
                tracing::warn!(%method, %error, "request rejected");
                self.reply_directly(error_message(
                    id,
                    -32602,
                    format!("Invalid params for {method}: {error}"),
                ));
            }
            (None, Some(method)) => {
                tracing::warn!(%method, %error, "unreadable notification ignored");
            }
            (Some(_), None) if value.get("result").is_some() || value.get("error").is_some() => {
                tracing::debug!("response from the client ignored");
            }
            _ => {
                let id = value
                    .get("id")
                    .filter(|id| id.is_string() || id.is_number())
                    .cloned()
                    .unwrap_or(serde_json::Value::Null);
                self.reply_directly(error_message(
                    id,
                    -32600,
                    format!("Invalid request: {error}"),
                ));
            }
        }
    }
}

fn trim_line(line: &[u8]) -> &[u8] {
    match line.last() {
        Some(b'\r') => &line[..line.len() - 1],
        _ => line,
    }
}

fn error_message(id: serde_json::Value, code: i64, message: String) -> serde_json::Value {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

async fn write_line<W: AsyncWrite + Unpin>(writer: &mut W, bytes: &[u8]) -> std::io::Result<()> {
    writer.write_all(bytes).await?;
    writer.flush().await
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = Arc::clone(&self.writer);
        let in_flight = Arc::clone(&self.in_flight);
        if let rmcp::model::JsonRpcMessage::Response(response) = &item {
            if !self
                .session
                .started
                .load(std::sync::atomic::Ordering::SeqCst)
            {
                let opened = self
                    .session
                    .openers
                    .lock()
                    .map(|openers| openers.contains(&response.id))
                    .unwrap_or(false);
                if opened {
                    self.session
                        .started
                        .store(true, std::sync::atomic::Ordering::SeqCst);
                }
            }
        }
        async move {
            let answers_request = matches!(
                item,
                rmcp::model::JsonRpcMessage::Response(_) | rmcp::model::JsonRpcMessage::Error(_)
            );
            let mut line = serde_json::to_string(&item).map_err(std::io::Error::other)?;
            line.push('\n');
            let result = {
                let mut writer = writer.lock().await;
                write_line(&mut *writer, line.as_bytes()).await
            };
            if answers_request {
                in_flight.send_modify(|n| *n = n.saturating_sub(1));
            }
            result
        }
    }

    fn receive(
        &mut self,
    ) -> impl std::future::Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        self.next_message()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let mut writer = self.writer.lock().await;
        writer.flush().await
    }
}

/// The stream MCP messages are written to.
pub struct ProtocolOutput {
    #[cfg(unix)]
    file: std::fs::File,
}

/// Writes to the taken stdout (the worker processes of `serve --isolate` frame their answers
/// through it).
impl std::io::Write for ProtocolOutput {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        #[cfg(unix)]
        return self.file.write(bytes);
        #[cfg(not(unix))]
        return std::io::stdout().write(bytes);
    }

    fn flush(&mut self) -> std::io::Result<()> {
        #[cfg(unix)]
        return self.file.flush();
        #[cfg(not(unix))]
        return std::io::stdout().flush();
    }
}

/// Takes the process's stdout for the protocol and points file descriptor 1 at stderr, so
/// that a stray `WriteLn` in the library (or any print in the process) lands in the log
/// instead of corrupting the protocol stream. Call it before loading the library.
#[cfg(unix)]
pub fn take_protocol_stdout() -> std::io::Result<ProtocolOutput> {
    use std::io::Write as _;
    use std::os::fd::FromRawFd;
    std::io::stdout().flush()?;
    // SAFETY: duplicating this process's own standard descriptors; `protocol` is a fresh
    // descriptor owned by the returned File.
    unsafe {
        let protocol = libc::dup(1);
        if protocol < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::dup2(2, 1) < 0 {
            let error = std::io::Error::last_os_error();
            libc::close(protocol);
            return Err(error);
        }
        Ok(ProtocolOutput {
            file: std::fs::File::from_raw_fd(protocol),
        })
    }
}

/// Elsewhere stdout is used as is.
#[cfg(not(unix))]
pub fn take_protocol_stdout() -> std::io::Result<ProtocolOutput> {
    Ok(ProtocolOutput {})
}

/// Serves `server` over stdin and `output` until end of input. Builds its own runtime.
pub fn serve_stdio(
    server: McpServer,
    sequential: bool,
    output: ProtocolOutput,
) -> Result<(), StdioError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(StdioError::Runtime)?;
    let outcome = runtime.block_on(async move {
        #[cfg(unix)]
        let writer = tokio::fs::File::from_std(output.file);
        #[cfg(not(unix))]
        let writer = {
            let _ = output;
            tokio::io::stdout()
        };
        serve_io(server, tokio::io::stdin(), writer, sequential).await
    });
    runtime.shutdown_background();
    outcome
}

/// Serves `server` over a reader and a writer until end of input.
pub async fn serve_io<R, W>(
    server: McpServer,
    reader: R,
    writer: W,
    sequential: bool,
) -> Result<(), StdioError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let transport = LineTransport::new(reader, writer, sequential);
    match rmcp::serve_server(server, transport).await {
        Ok(running) => {
            running
                .waiting()
                .await
                .map_err(|e| StdioError::Service(e.to_string()))?;
            tracing::info!("end of input; stopping");
            Ok(())
        }
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
            tracing::info!("end of input before any session; stopping");
            Ok(())
        }
        Err(error) => Err(StdioError::Service(error.to_string())),
    }
}
