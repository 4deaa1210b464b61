//! The stdio thread's reader: lines to the connection, direct calls started in request order.

use super::connection::{self, Prepared};
use super::direct::DirectCall;
use super::inline::InlineTask;
use super::lines::{Line, LineReader};
use super::{Shared, LARGE_LINE, MAX_BACKLOG};
use crate::dispatch::Dispatch;
use std::sync::Arc;
use std::time::Instant;
use tokio::io::AsyncRead;

/// Where the input comes from.
pub(super) enum Reading<R> {
    /// Any stream, read by the stdio thread.
    Stream(R),
    /// A non-blocking pipe, read by the library thread when it can (`stdio/library_input.rs`),
    /// else by the stdio thread.
    #[cfg(target_os = "linux")]
    Pipe(std::os::fd::OwnedFd),
}

/// Reads the pipe `fd` on the library thread when the dispatcher's host lets it (one library
/// thread, in process, a call's future may end on it), else on the stdio thread.
#[cfg(target_os = "linux")]
pub(super) fn read_pipe(
    fd: std::os::fd::OwnedFd,
    shared: &Arc<Shared>,
    dispatch: Option<Arc<dyn Dispatch>>,
) {
    use super::library_input::{self, LibraryInput, SharedInput};
    let eligible = dispatch.as_ref().filter(|d| {
        shared.sync_output.is_some() && shared.lock().ordered() && d.completes_unlocked()
    });
    let Some(library) = eligible else {
        return read_on_stdio_thread(fd, shared, dispatch);
    };
    let returned = match crate::host::idle::JobSignal::new() {
        Ok(signal) => signal,
        Err(error) => {
            tracing::warn!(%error, "no eventfd: the stdio thread reads the input");
            return read_on_stdio_thread(fd, shared, dispatch);
        }
    };
    let input = Arc::new(SharedInput::new(fd, returned));
    shared
        .library_reads
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let work = LibraryInput::new(
        Arc::clone(&input),
        Arc::clone(shared),
        Arc::clone(library),
        tokio::runtime::Handle::current(),
    );
    if library.set_idle_work(Arc::new(work)) {
        tracing::debug!("stdio: the library thread reads the input after the handshake");
        tokio::spawn(library_input::read_handed(
            input,
            Arc::clone(shared),
            Arc::clone(library),
        ));
        return;
    }
    shared
        .library_reads
        .store(false, std::sync::atomic::Ordering::Relaxed);
    // `set_idle_work` dropped the work, and with it the other reference.
    match Arc::try_unwrap(input) {
        Ok(input) => read_on_stdio_thread(input.into_fd(), shared, dispatch),
        Err(_) => tracing::error!("the input could not be taken back"),
    }
}

/// Reads the pipe `fd` on the stdio thread ([`read`]).
#[cfg(target_os = "linux")]
fn read_on_stdio_thread(
    fd: std::os::fd::OwnedFd,
    shared: &Arc<Shared>,
    dispatch: Option<Arc<dyn Dispatch>>,
) {
    match tokio::net::unix::pipe::Receiver::from_owned_fd(fd) {
        Ok(pipe) => {
            let reader = LineReader::new(super::pipes::Input::Pipe(pipe));
            tokio::spawn(read(reader, Arc::clone(shared), dispatch));
        }
        Err(error) => tracing::error!(%error, "cannot read the input pipe"),
    }
}

/// Whether the current thread is a library thread.
pub(super) fn on_library_thread() -> bool {
    #[cfg(target_os = "linux")]
    return crate::host::idle::on_library_thread();
    #[cfg(not(target_os = "linux"))]
    return false;
}

/// The reader task: lines to the connection until end of input.
pub(super) async fn read<R: AsyncRead + Unpin>(
    mut lines: LineReader<R>,
    shared: Arc<Shared>,
    dispatch: Option<Arc<dyn Dispatch>>,
) {
    loop {
        if !wait_for_backlog(&shared).await {
            return;
        }
        if !handle_line(&shared, dispatch.as_ref(), lines.next().await).await {
            return;
        }
    }
}

/// Waits while the backlog is full; false once writing has stopped.
pub(super) async fn wait_for_backlog(shared: &Shared) -> bool {
    loop {
        let shrank = shared.for_reader.notified();
        tokio::pin!(shrank);
        shrank.as_mut().enable();
        {
            let connection = shared.lock();
            if connection.closed {
                return false;
            }
            if connection.backlog() < MAX_BACKLOG {
                return true;
            }
        }
        shrank.await;
    }
}

/// Handles one line of input on the stdio thread; false at the end of input.
pub(super) async fn handle_line(
    shared: &Arc<Shared>,
    dispatch: Option<&Arc<dyn Dispatch>>,
    line: Line,
) -> bool {
    let prepared = match line {
        Line::End => {
            shared.lock().eof = true;
            shared.wake_all();
            return false;
        }
        Line::TooLong(prefix) => connection::too_long(&prefix),
        Line::Text(line) if line.len() > LARGE_LINE => {
            match tokio::task::spawn_blocking(move || connection::prepare(&line)).await {
                Ok(prepared) => prepared,
                Err(error) => {
                    tracing::error!(%error, "reading a large line failed");
                    Prepared::Nothing
                }
            }
        }
        Line::Text(line) => connection::prepare(&line),
    };
    let (direct_calls, alone) = apply(shared, prepared);
    if let Some(dispatch) = dispatch {
        for call in direct_calls {
            start_direct(shared, dispatch, call, alone).await;
        }
    }
    shared.for_writer.notify_one();
    true
}

/// Applies a prepared line to the connection, whichever thread read it: cancels the direct
/// calls it cancels (once the lock is released: a cancelled call may end at once, on this
/// thread) and wakes rmcp for its messages. Returns the direct calls to start, and whether they
/// are the only requests in progress.
pub(super) fn apply(shared: &Shared, prepared: Prepared) -> (Vec<DirectCall>, bool) {
    let (direct_calls, cancellations, for_rmcp, alone) = {
        let mut connection = shared.lock();
        connection.accept(prepared, Instant::now());
        (
            connection.take_direct_calls(),
            connection.take_cancellations(),
            connection.has_for_rmcp(),
            connection.awaiting() <= 1,
        )
    };
    for control in cancellations {
        control.cancelled.cancel();
    }
    if for_rmcp {
        shared.for_rmcp.notify_one();
    }
    (direct_calls, alone)
}

/// Records a direct call's outcome as its answer ([`Shared::deliver`]).
fn finish_direct(
    shared: &Shared,
    internal: i64,
    stateless: bool,
    outcome: Result<crate::dispatch::ToolOutcome, crate::dispatch::DispatchError>,
) {
    let text = match crate::direct::answer(internal, stateless, outcome) {
        Ok(text) => text,
        Err(error) => {
            tracing::error!(%error, "cannot write the answer of a tool call");
            crate::jsonrpc::error_json(
                &crate::jsonrpc::RawId::integer(internal),
                crate::jsonrpc::code::INTERNAL_ERROR,
                &format!("cannot write the answer: {error}"),
            )
        }
    };
    shared.deliver(internal, &text);
}

/// Starts a direct call whose first poll is here and whose rest runs on the thread that
/// completes it (`stdio/inline.rs`), which also writes its answer; `runtime`'s context is
/// entered for every poll.
pub(super) fn start_inline(
    runtime: &tokio::runtime::Handle,
    shared: &Arc<Shared>,
    dispatch: &Arc<dyn Dispatch>,
    call: DirectCall,
) {
    let shared = Arc::clone(shared);
    let dispatch = Arc::clone(dispatch);
    InlineTask::start(runtime, async move {
        let outcome = dispatch
            .call_tool(&call.name, call.arguments.as_deref(), call.control)
            .await;
        finish_direct(&shared, call.internal, call.stateless, outcome);
    });
}

/// Starts a direct call: its first poll (argument validation, and the call queued for the
/// library thread) happens here, before the next line is read, so calls reach the library in
/// request order. The rest runs on the thread that completes the call when the call is
/// `alone` (the only request in progress: a client waiting for each answer) and the answer
/// can be written from there ([`Shared::deliver`]); otherwise (a pipelining client) as a task
/// of the stdio thread, which writes several answers at once while the library thread goes on
/// to the next call.
async fn start_direct(
    shared: &Arc<Shared>,
    dispatch: &Arc<dyn Dispatch>,
    call: DirectCall,
    alone: bool,
) {
    if alone && shared.sync_output.is_some() && dispatch.completes_unlocked() {
        start_inline(&tokio::runtime::Handle::current(), shared, dispatch, call);
        return;
    }
    let DirectCall {
        internal,
        name,
        arguments,
        control,
        stateless,
    } = call;
    let finish =
        move |shared: &Shared, outcome| finish_direct(shared, internal, stateless, outcome);
    let dispatch = Arc::clone(dispatch);
    let mut running = Box::pin(async move {
        dispatch
            .call_tool(&name, arguments.as_deref(), control)
            .await
    });
    let first = std::future::poll_fn(|cx| {
        std::task::Poll::Ready(std::future::Future::poll(running.as_mut(), cx))
    })
    .await;
    match first {
        std::task::Poll::Ready(outcome) => finish(shared, outcome),
        std::task::Poll::Pending => {
            let shared = Arc::clone(shared);
            tokio::spawn(async move { finish(&shared, running.await) });
        }
    }
}
