//! The protocol streams as tokio reads and writes them.
//!
//! `tokio::io::stdin()` and `tokio::fs::File` run every read and write on tokio's blocking
//! pool: each message then costs a hand-off to a pool thread and back, and that was most of a
//! stdio round trip (`docs/performance.md`, "Runtime: stdio"). When both streams are pipes (as
//! MCP clients start servers) on Linux, they are reopened through `/proc/self/fd` with
//! `O_NONBLOCK` and driven by tokio's reactor instead, as rmcp's `stdio_pipes()` does. The
//! reopened descriptors have their own open file descriptions, so the process's own standard
//! streams (which the library and its child processes may use) keep their blocking mode.
//! Anything else (a file, a socket, a terminal, other systems) uses the blocking-pool handles.

use std::pin::Pin;
#[cfg(target_os = "linux")]
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The protocol input: a non-blocking pipe, or tokio's stdin.
pub enum Input {
    /// Reopened pipe, read through the reactor.
    #[cfg(target_os = "linux")]
    Pipe(tokio::net::unix::pipe::Receiver),
    /// tokio's stdin (blocking pool).
    Blocking(tokio::io::Stdin),
}

/// The protocol output: a non-blocking pipe, or a file written on the blocking pool.
pub enum Output {
    /// Reopened pipe, written through the reactor (and by [`SyncOutput`] from other threads).
    #[cfg(target_os = "linux")]
    Pipe(Arc<tokio::net::unix::pipe::Sender>),
    /// A file (blocking pool).
    #[cfg(any(unix, windows))]
    File(tokio::fs::File),
    /// tokio's stdout (systems without a taken stdout).
    #[cfg(not(any(unix, windows)))]
    Stdout(tokio::io::Stdout),
}

/// The protocol output as any thread may write it, without waiting: a non-blocking pipe.
#[derive(Clone)]
pub struct SyncOutput {
    #[cfg(target_os = "linux")]
    pipe: Arc<tokio::net::unix::pipe::Sender>,
}

impl SyncOutput {
    /// Writes what the pipe takes now: the count written, or `WouldBlock` when it is full.
    pub fn try_write(&self, bytes: &[u8]) -> std::io::Result<usize> {
        #[cfg(target_os = "linux")]
        return self.pipe.try_write(bytes);
        #[cfg(not(target_os = "linux"))]
        return {
            let _ = bytes;
            Err(std::io::ErrorKind::WouldBlock.into())
        };
    }
}

impl Output {
    /// The output other threads may write to, when it is a non-blocking pipe.
    pub fn sync_output(&self) -> Option<SyncOutput> {
        match self {
            #[cfg(target_os = "linux")]
            Output::Pipe(pipe) => Some(SyncOutput {
                pipe: Arc::clone(pipe),
            }),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }
}

/// Opens the protocol streams: stdin, and `output` (the taken stdout). Call inside a tokio
/// runtime with IO enabled.
pub fn open(output: super::ProtocolOutput) -> (Input, Output) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        if let Some(pipes) = reopen_pipes(0, output.file.as_raw_fd()) {
            tracing::debug!("stdio: non-blocking pipes");
            return pipes;
        }
    }
    #[cfg(any(unix, windows))]
    let output = Output::File(tokio::fs::File::from_std(output.file));
    #[cfg(not(any(unix, windows)))]
    let output = {
        let _ = output;
        Output::Stdout(tokio::io::stdout())
    };
    (Input::Blocking(tokio::io::stdin()), output)
}

#[cfg(target_os = "linux")]
fn reopen_pipes(input: i32, output: i32) -> Option<(Input, Output)> {
    use tokio::net::unix::pipe;
    let read = reopen(input, false)?;
    let write = reopen(output, true)?;
    // `from_owned_fd` refuses anything that is not a FIFO.
    let read = pipe::Receiver::from_owned_fd(read).ok()?;
    let write = pipe::Sender::from_owned_fd(write).ok()?;
    Some((Input::Pipe(read), Output::Pipe(Arc::new(write))))
}

/// `fd` opened again, non-blocking, on an open file description of its own.
#[cfg(target_os = "linux")]
fn reopen(fd: i32, write: bool) -> Option<std::os::fd::OwnedFd> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let path = format!("/proc/self/fd/{fd}");
    // Only pipes: opening a terminal or a device again could have effects of its own.
    if !std::fs::metadata(&path).ok()?.file_type().is_fifo() {
        return None;
    }
    std::fs::OpenOptions::new()
        .read(!write)
        .write(write)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(&path)
        .ok()
        .map(Into::into)
}

impl AsyncRead for Input {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            #[cfg(target_os = "linux")]
            Input::Pipe(pipe) => Pin::new(pipe).poll_read(cx, buf),
            Input::Blocking(stdin) => Pin::new(stdin).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Output {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        match self.get_mut() {
            #[cfg(target_os = "linux")]
            Output::Pipe(pipe) => loop {
                std::task::ready!(pipe.poll_write_ready(cx))?;
                match pipe.try_write(buf) {
                    Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
                    written => return Poll::Ready(written),
                }
            },
            #[cfg(any(unix, windows))]
            Output::File(file) => Pin::new(file).poll_write(cx, buf),
            #[cfg(not(any(unix, windows)))]
            Output::Stdout(stdout) => Pin::new(stdout).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            #[cfg(target_os = "linux")]
            Output::Pipe(_) => Poll::Ready(Ok(())),
            #[cfg(any(unix, windows))]
            Output::File(file) => Pin::new(file).poll_flush(cx),
            #[cfg(not(any(unix, windows)))]
            Output::Stdout(stdout) => Pin::new(stdout).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match self.get_mut() {
            #[cfg(target_os = "linux")]
            Output::Pipe(_) => Poll::Ready(Ok(())),
            #[cfg(any(unix, windows))]
            Output::File(file) => Pin::new(file).poll_shutdown(cx),
            #[cfg(not(any(unix, windows)))]
            Output::Stdout(stdout) => Pin::new(stdout).poll_shutdown(cx),
        }
    }
}
