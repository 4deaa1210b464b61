//! MCP over stdio: one JSON-RPC message per line, UTF-8 both ways.
//!
//! A custom rmcp transport, because the runtime needs the raw text of each message (exact
//! ids, duplicate keys, numbers and strings `serde_json::Value` cannot hold) and decides the
//! order answers are written in. Three tasks share one connection state (`stdio/connection.rs`):
//! - the reader reads stdin continuously (`stdio/lines.rs`), also while calls run, so `ping`,
//!   `tools/list`, `notifications/cancelled` and end of input are always handled; each line is
//!   read as raw JSON-RPC ([`crate::jsonrpc`]; lines over 64 KiB on a blocking thread) and
//!   handed to rmcp under an internal id, or answered directly (parse errors, invalid requests,
//!   a contradicting protocol era, refused batches). With one library thread in process and a
//!   pipe on Linux, the library thread is the reader while it has no call to run, and the
//!   stdio thread's reader only while a call runs long (`stdio/library_input.rs`);
//! - rmcp (through [`LineTransport`]) handles requests and sends answers, which get the client's id
//!   back; a plain `tools/call` skips rmcp and goes from the reader to the dispatcher
//!   (`stdio/direct.rs` says which requests and why), its answer built from rmcp's types and
//!   written by the thread that completes the call (`Shared::deliver`, `stdio/inline.rs`);
//! - the writer writes the other answers in request order with one library thread, holding a
//!   ready answer behind an earlier unanswered one for at most [`HOLD`], and as they come with
//!   several.
//!
//! stdout carries nothing but protocol; logs go to stderr through `tracing`. At end of input
//! the answers still due are written, then the server exits.

mod connection;
mod direct;
mod inline;
#[cfg(target_os = "linux")]
mod library_input;
mod lines;
mod pipes;
mod reader;
#[cfg(test)]
mod tests;
#[cfg(target_os = "linux")]
mod wait_choice;

use crate::dispatch::Dispatch;
use crate::mcp::McpServer;
use connection::Connection;
pub use connection::HOLD;
use lines::LineReader;
pub use lines::MAX_LINE;
use pipes::SyncOutput;
#[cfg(target_os = "linux")]
use reader::read_pipe;
use reader::{on_library_thread, read, Reading};
use rmcp::model::{JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::Notify;

/// Lines longer than this are read on a blocking thread, not on the async workers.
pub const LARGE_LINE: usize = 64 * 1024;

/// The reader pauses while this many messages wait for rmcp or the writer.
const MAX_BACKLOG: usize = 64;

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

/// What the reader, rmcp and the writer share.
struct Shared {
    connection: Mutex<Connection>,
    /// Wakes `receive` (messages for rmcp, or the end).
    for_rmcp: Notify,
    /// Wakes the writer (answers to write).
    for_writer: Notify,
    /// Wakes the reader (the backlog shrank).
    for_reader: Notify,
    /// Wakes whoever waits for the end of writing.
    finished: Notify,
    /// The output as other threads may write it ([`Shared::deliver`]).
    sync_output: Option<SyncOutput>,
    /// The library thread reads the input (`stdio/library_input.rs`).
    library_reads: std::sync::atomic::AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.connection
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn wake_all(&self) {
        self.for_rmcp.notify_one();
        self.for_writer.notify_one();
        self.for_reader.notify_one();
        self.finished.notify_waiters();
    }

    /// Stops writing after what is ready (rmcp ended or stdout failed).
    fn close(&self) {
        self.lock().closed = true;
        self.wake_all();
    }

    /// Records the answer to internal request `internal` and writes what is due now, on the
    /// calling thread, when the output is a non-blocking pipe the writer task is not using and
    /// no other request waits for its answer: a direct call ends on the library thread, and
    /// waking the stdio thread to write its answer would add a hop between threads to every
    /// round trip. With other requests in progress (a pipelining client) the writer task
    /// writes, several answers at a time, and the library thread goes on to the next call. A
    /// pipe that is full, an answer held behind an earlier one, or the end of input also leave
    /// the rest to the writer task.
    ///
    /// When the library thread reads the input, its own answers with other requests in
    /// progress wait for the last of them (it writes them all at once) or for the watchdog
    /// that hands reading over during a long call (`stdio/library_input.rs`), instead of
    /// waking the stdio thread for each.
    fn deliver(&self, internal: i64, text: &str) {
        let now = Instant::now();
        let mut connection = self.lock();
        connection.answered(internal, text, now);
        self.flush(connection, now);
    }

    /// Writes what is due now from this thread, as [`Self::deliver`] does after an answer.
    #[cfg(target_os = "linux")]
    fn write_due(&self) {
        self.flush(self.lock(), Instant::now());
    }

    fn flush(&self, mut connection: MutexGuard<'_, Connection>, now: Instant) {
        let wake_writer = match &self.sync_output {
            Some(output)
                if !connection.writing
                    && connection.unwritten.is_empty()
                    && !connection.closed
                    && connection.awaiting() == 0 =>
            {
                let (lines, wake) = connection.writable(now);
                if !lines.is_empty() {
                    let bytes = joined(&lines);
                    match output.try_write(&bytes) {
                        Ok(written) if written == bytes.len() => {}
                        Ok(written) => connection.unwritten = bytes[written..].to_vec(),
                        // The writer task waits until the pipe takes them (or reports the error
                        // its own write meets).
                        Err(_) => connection.unwritten = bytes,
                    }
                }
                wake.is_some() || !connection.unwritten.is_empty() || connection.eof
            }
            _ => {
                !(self
                    .library_reads
                    .load(std::sync::atomic::Ordering::Relaxed)
                    && on_library_thread()
                    && connection.awaiting() > 0)
            }
        };
        let for_rmcp = connection.has_for_rmcp();
        drop(connection);
        if for_rmcp {
            self.for_rmcp.notify_one();
        }
        if wake_writer {
            self.for_writer.notify_one();
        }
        // The backlog shrank (a permit, no wake-up, unless the reader waits for it).
        self.for_reader.notify_one();
    }

    async fn wait_finished(&self) {
        loop {
            let finished = self.finished.notified();
            tokio::pin!(finished);
            finished.as_mut().enable();
            if self.lock().finished() {
                return;
            }
            finished.await;
        }
    }
}

/// The rmcp transport over a reader and a writer (stdin/stdout in `serve`).
pub struct LineTransport {
    shared: Arc<Shared>,
}

impl LineTransport {
    /// Starts reading `reader` and writing `writer` (spawns the reader and writer tasks: call
    /// it inside a tokio runtime). `ordered`: answers in request order and one tool call at a
    /// time (one library thread). The writer's outcome is returned by the handle.
    /// `dispatch` runs the calls that skip rmcp (`stdio/direct.rs`); with `None` every
    /// request goes through rmcp.
    pub fn start<R, W>(
        reader: R,
        writer: W,
        ordered: bool,
        dispatch: Option<Arc<dyn Dispatch>>,
    ) -> (LineTransport, tokio::task::JoinHandle<std::io::Result<()>>)
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        Self::start_with(
            Reading::Stream(reader),
            writer,
            None,
            ordered,
            dispatch,
            None,
        )
    }

    /// [`Self::start`], with `writer` also writable from other threads as `sync_output`. The
    /// writer builds the tool list of `prepare` ([`McpServer::prepare`]) once it has written
    /// the first answer, while the client reads it, so that `initialize` is not answered later
    /// for it.
    fn start_with<R, W>(
        reading: Reading<R>,
        writer: W,
        sync_output: Option<SyncOutput>,
        ordered: bool,
        dispatch: Option<Arc<dyn Dispatch>>,
        prepare: Option<McpServer>,
    ) -> (LineTransport, tokio::task::JoinHandle<std::io::Result<()>>)
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let mut connection = Connection::new(ordered);
        connection.direct = dispatch.is_some();
        if let Some(dispatch) = dispatch.as_ref().filter(|d| d.features().is_some()) {
            let dispatch = Arc::clone(dispatch);
            connection.context_tools = connection::ContextTools::new(move |name| {
                dispatch
                    .features()
                    .is_some_and(|features| features.takes_context(name))
            });
        }
        let shared = Arc::new(Shared {
            connection: Mutex::new(connection),
            for_rmcp: Notify::new(),
            for_writer: Notify::new(),
            for_reader: Notify::new(),
            finished: Notify::new(),
            sync_output,
            library_reads: std::sync::atomic::AtomicBool::new(false),
        });
        match reading {
            Reading::Stream(reader) => {
                tokio::spawn(read(LineReader::new(reader), Arc::clone(&shared), dispatch));
            }
            #[cfg(target_os = "linux")]
            Reading::Pipe(fd) => read_pipe(fd, &shared, dispatch),
        }
        let writing = tokio::spawn(write(writer, Arc::clone(&shared), prepare));
        (LineTransport { shared }, writing)
    }
}

/// The writer task: writes what the connection says is due, until everything is written; the
/// first write done, builds the tool list of `prepare`.
async fn write<W: AsyncWrite + Unpin>(
    mut writer: W,
    shared: Arc<Shared>,
    mut prepare: Option<McpServer>,
) -> std::io::Result<()> {
    loop {
        let woken = shared.for_writer.notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        let (bytes, wake, finished) = {
            let mut connection = shared.lock();
            let (lines, wake) = connection.writable(Instant::now());
            let mut bytes = std::mem::take(&mut connection.unwritten);
            bytes.extend_from_slice(&joined(&lines));
            connection.writing = !bytes.is_empty();
            (bytes, wake, connection.finished())
        };
        if !bytes.is_empty() {
            let written = write_all(&mut writer, &bytes).await;
            shared.lock().writing = false;
            if let Err(error) = written {
                tracing::error!(%error, "cannot write to stdout");
                shared.close();
                return Err(error);
            }
            shared.for_reader.notify_one();
            if let Some(server) = prepare.take() {
                server.prepare();
            }
        }
        if finished {
            shared.finished.notify_waiters();
            return Ok(());
        }
        match wake {
            Some(at) => {
                tokio::select! {
                    () = &mut woken => {}
                    () = tokio::time::sleep_until(at.into()) => {}
                }
            }
            None => woken.await,
        }
    }
}

/// Lines as written: each followed by a line feed.
fn joined(lines: &[String]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for line in lines {
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
    }
    bytes
}

async fn write_all<W: AsyncWrite + Unpin>(writer: &mut W, bytes: &[u8]) -> std::io::Result<()> {
    writer.write_all(bytes).await?;
    writer.flush().await
}

impl Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let outcome = serde_json::to_string(&item).map(|text| {
            let internal = match &item {
                JsonRpcMessage::Response(response) => Some(&response.id),
                JsonRpcMessage::Error(error) => error.id.as_ref(),
                _ => None,
            };
            let mut connection = self.shared.lock();
            match internal {
                Some(RequestId::Number(internal)) => {
                    connection.answered_by_rmcp(*internal, &text, Instant::now())
                }
                _ => connection.unordered(text),
            }
        });
        // An answer may let the next tool call go to rmcp.
        self.shared.for_rmcp.notify_one();
        self.shared.for_writer.notify_one();
        std::future::ready(outcome.map_err(std::io::Error::other))
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let woken = self.shared.for_rmcp.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            {
                let mut connection = self.shared.lock();
                if let Some(message) = connection.next_for_rmcp() {
                    drop(connection);
                    self.shared.for_reader.notify_one();
                    return Some(message);
                }
                if connection.input_finished() {
                    return None;
                }
            }
            woken.await;
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// The stream MCP messages are written to.
pub struct ProtocolOutput {
    #[cfg(any(unix, windows))]
    file: std::fs::File,
}

/// Writes to the taken stdout (the worker processes of `serve --isolate` frame their answers
/// through it).
impl std::io::Write for ProtocolOutput {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        #[cfg(any(unix, windows))]
        return self.file.write(bytes);
        #[cfg(not(any(unix, windows)))]
        return std::io::stdout().write(bytes);
    }

    fn flush(&mut self) -> std::io::Result<()> {
        #[cfg(any(unix, windows))]
        return self.file.flush();
        #[cfg(not(any(unix, windows)))]
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

/// Takes the process's standard output handle for the protocol and makes the standard error
/// handle the process's standard output (`SetStdHandle`), so that a stray `WriteLn` in the
/// library (whose runtime reads the handle when it loads) lands in the log instead of
/// corrupting the protocol stream. Call it before loading the library.
#[cfg(windows)]
pub fn take_protocol_stdout() -> std::io::Result<ProtocolOutput> {
    use std::io::Write as _;
    use std::os::windows::io::{AsHandle, AsRawHandle};
    #[link(name = "kernel32")]
    extern "system" {
        fn SetStdHandle(which: u32, handle: std::os::windows::io::RawHandle) -> i32;
    }
    // STD_OUTPUT_HANDLE is (DWORD)-11.
    const STD_OUTPUT_HANDLE: u32 = -11i32 as u32;
    std::io::stdout().flush()?;
    let protocol = std::io::stdout().as_handle().try_clone_to_owned()?;
    // SAFETY: sets this process's standard output to its own standard error handle.
    if unsafe { SetStdHandle(STD_OUTPUT_HANDLE, std::io::stderr().as_raw_handle()) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(ProtocolOutput {
        file: std::fs::File::from(protocol),
    })
}

/// Elsewhere stdout is used as is.
#[cfg(not(any(unix, windows)))]
pub fn take_protocol_stdout() -> std::io::Result<ProtocolOutput> {
    Ok(ProtocolOutput {})
}

/// Serves `server` over stdin and `output` until end of input; `ordered` as in
/// [`LineTransport::start`]. Builds its own runtime.
pub fn serve_stdio(
    server: McpServer,
    ordered: bool,
    output: ProtocolOutput,
) -> Result<(), StdioError> {
    StdioTransport::open(output)?.serve(server, ordered)
}

/// The stdio transport set up and not yet reading: its runtime and the protocol streams.
/// `serve` opens it while the library thread runs `mcp_init`.
pub struct StdioTransport {
    runtime: tokio::runtime::Runtime,
    reading: Reading<pipes::Input>,
    writer: pipes::Output,
    sync_output: Option<SyncOutput>,
}

impl StdioTransport {
    /// Builds the runtime and opens stdin and `output` (as non-blocking pipes where they are
    /// pipes). Reads nothing.
    pub fn open(output: ProtocolOutput) -> Result<StdioTransport, StdioError> {
        // One thread serves the transport and rmcp: a request then moves between tasks
        // without waking another thread (the library thread is the only other one a call
        // involves).
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(StdioError::Runtime)?;
        // The pipes register with the runtime's reactor.
        let entered = runtime.enter();
        let (reader, writer) = pipes::open(output);
        let sync_output = writer.sync_output();
        let reading = match reader {
            #[cfg(target_os = "linux")]
            pipes::Input::Pipe(pipe) => {
                Reading::Pipe(pipe.into_nonblocking_fd().map_err(StdioError::Write)?)
            }
            other => Reading::Stream(other),
        };
        tracing::debug!("stdio ready");
        drop(entered);
        Ok(StdioTransport {
            runtime,
            reading,
            writer,
            sync_output,
        })
    }

    /// Serves `server` until end of input; `ordered` as in [`LineTransport::start`].
    pub fn serve(self, server: McpServer, ordered: bool) -> Result<(), StdioError> {
        let StdioTransport {
            runtime,
            reading,
            writer,
            sync_output,
        } = self;
        let serving = serve_lines(server, reading, writer, sync_output, ordered, true);
        let outcome = runtime.block_on(serving);
        runtime.shutdown_background();
        outcome
    }
}

/// Serves `server` over a reader and a writer until end of input; `ordered` as in
/// [`LineTransport::start`]. Returns once every answer due is written.
pub async fn serve_io<R, W>(
    server: McpServer,
    reader: R,
    writer: W,
    ordered: bool,
) -> Result<(), StdioError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_lines(server, Reading::Stream(reader), writer, None, ordered, true).await
}

/// [`serve_io`], with or without the direct path of `tools/call` (`stdio/direct.rs`).
async fn serve_lines<R, W>(
    server: McpServer,
    reading: Reading<R>,
    writer: W,
    sync_output: Option<SyncOutput>,
    ordered: bool,
    direct: bool,
) -> Result<(), StdioError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let dispatch = direct.then(|| Arc::clone(server.dispatch()));
    let (transport, writing) = LineTransport::start_with(
        reading,
        writer,
        sync_output,
        ordered,
        dispatch,
        Some(server.clone()),
    );
    let shared = Arc::clone(&transport.shared);
    let outcome = match rmcp::serve_server(server, transport).await {
        Ok(running) => {
            // Normally rmcp ends once input is finished and every request answered; the writer
            // may finish first (then rmcp's own wait for handlers still running, such as a
            // cancelled call in the library, is not needed).
            tokio::select! {
                ended = running.waiting() => match ended {
                    Ok(reason) => tracing::debug!(?reason, "MCP service ended"),
                    Err(error) => tracing::error!(%error, "MCP service failed"),
                },
                () = shared.wait_finished() => {}
            }
            tracing::info!("end of input; stopping");
            Ok(())
        }
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
            tracing::info!("end of input before any session; stopping");
            Ok(())
        }
        Err(error) => Err(StdioError::Service(error.to_string())),
    };
    // Write what is ready; answers rmcp can no longer send are not waited for.
    shared.close();
    match writing.await {
        Ok(Err(error)) => return Err(StdioError::Write(error)),
        Err(error) => tracing::error!(%error, "the writer failed"),
        Ok(Ok(())) => {}
    }
    outcome
}
