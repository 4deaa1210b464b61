//! The library thread reads stdin (Linux, one library thread, in process, pipes).
//!
//! A library that is not thread-safe runs its Pascal code on its one library thread. When the
//! stdio thread reads a request and hands the call to that thread, every round trip costs two
//! wake-ups of threads (the library thread for the call, a thread to write the answer); the
//! answer is already written by the library thread ([`super::Shared::deliver`]). Here the
//! library thread also reads the input while it has no call to run ([`IdleWork`]): a request
//! is read, validated, called and answered on one thread, as a single-threaded server would.
//!
//! stdin must still be read while a call runs (`ping`, `notifications/cancelled`, further
//! requests). A call that runs longer than [`HAND_OVER_AFTER`] (a watchdog on the timer
//! thread, registered lazily so that short calls wake nobody) hands the input to the stdio
//! thread, which reads it as in the other configurations ([`read_handed`]) until the library
//! thread is idle again with no complete line buffered; then it hands it back. The bytes read
//! so far travel with the input ([`LineBuffer`]), so nothing is lost or read twice. The reader
//! also hands the input over when the backlog is full, since the stdio thread's reader is the
//! one that pauses.
//!
//! The stdio thread reads first, as if the input had been handed to it: it is running when the
//! transport starts and the client's `initialize` is usually waiting, so it reads and answers
//! the handshake itself instead of waiting for the library thread (still in `mcp_init`, or
//! asleep) to read the line and hand the request back to rmcp on the stdio thread. It hands
//! the input to the library thread as after a long call, once that is idle with no complete
//! line buffered.

use super::connection;
use super::lines::{Line, LineBuffer};
use super::wait_choice::WaitChoice;
use super::{Shared, MAX_BACKLOG};
use crate::dispatch::Dispatch;
use crate::host::busy_poll::BusyPoll;
use crate::host::idle::{IdleWork, JobSignal};
use crate::host::timer::{sleep_until_lazily, Sleep};
use std::future::Future;
use std::os::fd::{AsRawFd, OwnedFd};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Wake, Waker};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// How long a call may run on the library thread before the stdio thread takes over reading.
pub const HAND_OVER_AFTER: Duration = Duration::from_millis(1);

/// How late the watchdog may notice that (see [`sleep_until_lazily`]).
const WATCHDOG_SLACK: Duration = Duration::from_millis(9);

/// Which thread reads stdin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    /// The library thread, while it has nothing to run.
    Library,
    /// The stdio thread ([`read_handed`]).
    Stdio,
}

#[derive(Debug)]
struct InputState {
    lines: LineBuffer,
    owner: Owner,
    /// The library thread is in its idle work (no call running or queued).
    library_idle: bool,
    /// The library thread has taken lines it has not finished handling: the stdio thread,
    /// handed the input meanwhile, takes no line until they are, so that lines are handled (and
    /// their calls queued, their answers ordered) in the order they were read.
    handling: bool,
    /// The end of input was handled: nothing more to read.
    ended: bool,
}

/// The input shared by the library thread and the stdio thread.
pub struct SharedInput {
    state: Mutex<InputState>,
    /// The non-blocking pipe.
    fd: OwnedFd,
    /// Wakes the stdio thread: the input was handed to it, or input ended.
    handed: Notify,
    /// Wakes the stdio thread: the library thread became idle, or handled the lines it took.
    library_idle: Notify,
    /// Wakes the library thread: the input was handed back.
    returned: JobSignal,
}

impl SharedInput {
    /// The input `fd` (a non-blocking pipe), read first by the stdio thread (see the module
    /// documentation); `returned` wakes the library thread when the input is handed to it.
    pub fn new(fd: OwnedFd, returned: JobSignal) -> SharedInput {
        SharedInput {
            state: Mutex::new(InputState {
                lines: LineBuffer::default(),
                // The handshake is read by the thread that answers it.
                owner: Owner::Stdio,
                library_idle: false,
                handling: false,
                ended: false,
            }),
            fd,
            handed: Notify::new(),
            library_idle: Notify::new(),
            returned,
        }
    }

    /// The pipe, for another reader.
    pub fn into_fd(self) -> OwnedFd {
        self.fd
    }

    fn lock(&self) -> MutexGuard<'_, InputState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Gives the input to the stdio thread (a long call, a full backlog).
    fn hand_over(&self, shared: &Shared) {
        {
            let mut state = self.lock();
            if state.owner == Owner::Library {
                state.owner = Owner::Stdio;
                tracing::trace!("stdin handed to the stdio thread");
            }
        }
        self.handed.notify_one();
        // Answers the library thread left for later may be due.
        shared.for_writer.notify_one();
    }
}

/// The library thread's idle work: reads lines and handles those that arrived together.
pub struct LibraryInput {
    input: Arc<SharedInput>,
    shared: Arc<Shared>,
    dispatch: Arc<dyn Dispatch>,
    runtime: tokio::runtime::Handle,
    /// Armed while the library thread runs calls: hands the input over when it fires.
    watchdog: Mutex<Option<Pin<Box<Sleep>>>>,
    /// The watchdog's waker.
    hand_over: Waker,
    /// Whether a wait for the next line polls first (used by the library thread alone).
    wait_choice: Mutex<WaitChoice>,
}

impl LibraryInput {
    /// The idle work reading `input` for the connection `shared`; the stdio runtime `runtime`
    /// runs what the calls' futures need.
    pub fn new(
        input: Arc<SharedInput>,
        shared: Arc<Shared>,
        dispatch: Arc<dyn Dispatch>,
        runtime: tokio::runtime::Handle,
    ) -> LibraryInput {
        let hand_over = Waker::from(Arc::new(HandOver {
            input: Arc::clone(&input),
            shared: Arc::clone(&shared),
        }));
        LibraryInput {
            input,
            shared,
            dispatch,
            runtime,
            watchdog: Mutex::new(None),
            hand_over,
            wait_choice: Mutex::new(WaitChoice::default()),
        }
    }

    fn watchdog(&self) -> MutexGuard<'_, Option<Pin<Box<Sleep>>>> {
        self.watchdog.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts the watchdog for the calls the library thread is about to run (until it is idle
    /// again, when [`IdleWork::idle`] drops it).
    fn arm(&self) {
        let mut sleep = Box::pin(sleep_until_lazily(
            Instant::now() + HAND_OVER_AFTER,
            WATCHDOG_SLACK,
        ));
        if sleep
            .as_mut()
            .poll(&mut Context::from_waker(&self.hand_over))
            .is_pending()
        {
            *self.watchdog() = Some(sleep);
        }
    }

    /// Reads until lines are handled or `signal` (a call queued by another thread) is raised;
    /// waiting for input, it busy polls with `busy_poll` first.
    fn read_and_handle(&self, signal: &JobSignal, busy_poll: &mut BusyPoll) {
        loop {
            let backlog_full = self.shared.lock().backlog() >= MAX_BACKLOG;
            let mut state = self.input.lock();
            state.library_idle = true;
            if backlog_full && state.owner == Owner::Library {
                // The stdio thread's reader waits for the backlog to shrink.
                drop(state);
                self.input.hand_over(&self.shared);
                continue;
            }
            if state.owner == Owner::Stdio || state.ended {
                drop(state);
                self.input.library_idle.notify_one();
                let ready = BusyPoll::sleep_readable(&[signal.fd(), self.input.returned.fd()]);
                if ready[0] {
                    signal.drain();
                }
                if ready[1] {
                    self.input.returned.drain();
                }
                break;
            }
            if let Some(mut line) = state.lines.next_line() {
                state.library_idle = false;
                state.handling = true;
                drop(state);
                // With the lines a pipelining client sent with it, up to the backlog: their
                // calls then run one after the other and their answers go out in one write.
                // The watchdog of the last call may hand the input over meanwhile: the rest is
                // then the stdio thread's to handle.
                for handled in 1.. {
                    let end = line == Line::End;
                    self.handle(line);
                    if end || handled == MAX_BACKLOG {
                        break;
                    }
                    let mut state = self.input.lock();
                    if state.owner != Owner::Library {
                        break;
                    }
                    match state.lines.next_line() {
                        Some(next) => line = next,
                        None => break,
                    }
                }
                self.input.lock().handling = false;
                self.input.library_idle.notify_one();
                return;
            }
            match read_into(&self.input.fd, state.lines.spare()) {
                Ok(0) => state.lines.eof = true,
                Ok(_) => {}
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                    drop(state);
                    if self.wait_readable(signal, busy_poll) {
                        signal.drain();
                        break;
                    }
                }
                Err(error) => {
                    tracing::error!(%error, "cannot read stdin");
                    state.lines.eof = true;
                }
            }
        }
        self.input.lock().library_idle = false;
    }

    /// Waits until stdin is readable or `signal` is raised (whether it was), polling first
    /// when the [`WaitChoice`] says so; a wait that ends with input is measured for it.
    fn wait_readable(&self, signal: &JobSignal, busy_poll: &mut BusyPoll) -> bool {
        let fds = [self.input.fd.as_raw_fd(), signal.fd()];
        if !busy_poll.polls_at_all() {
            return busy_poll.wait_readable(&fds)[1];
        }
        let polls = self.wait_choice().polls();
        let started = Instant::now();
        let [readable, raised] = if polls {
            busy_poll.wait_readable(&fds)
        } else {
            BusyPoll::sleep_readable(&fds)
        };
        if readable && !raised {
            self.wait_choice().record(started.elapsed());
        }
        raised
    }

    fn wait_choice(&self) -> MutexGuard<'_, WaitChoice> {
        self.wait_choice.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Handles one line as the stdio thread's reader does; direct calls are queued for this
    /// thread and run when the idle work returns.
    fn handle(&self, line: Line) {
        let shared = &self.shared;
        let prepared = match line {
            Line::End => {
                self.input.lock().ended = true;
                shared.lock().eof = true;
                shared.wake_all();
                self.input.handed.notify_one();
                return;
            }
            Line::TooLong(prefix) => connection::too_long(&prefix),
            // Lines of any length: this thread has nothing else to do.
            Line::Text(line) => connection::prepare(&line),
        };
        let (direct_calls, _) = super::reader::apply(shared, prepared);
        if direct_calls.is_empty() {
            // Answers the line produced at once (errors), when nothing else is awaited; a
            // call's answer is written when the call ends.
            shared.write_due();
            return;
        }
        for call in direct_calls {
            super::reader::start_inline(&self.runtime, shared, &self.dispatch, call);
        }
    }
}

impl IdleWork for LibraryInput {
    fn idle(&self, signal: &JobSignal, busy_poll: &mut BusyPoll) {
        self.watchdog().take();
        self.read_and_handle(signal, busy_poll);
    }

    fn before_call(&self) {
        // Watch how long the calls run from here until the thread is idle again.
        if self.watchdog().is_none() {
            self.arm();
        }
    }
}

/// The watchdog's waker.
struct HandOver {
    input: Arc<SharedInput>,
    shared: Arc<Shared>,
}

impl Wake for HandOver {
    fn wake(self: Arc<Self>) {
        self.input.hand_over(&self.shared);
    }
}

/// Reads what the non-blocking `fd` holds into `buffer`'s spare room.
fn read_into(fd: &OwnedFd, buffer: &mut Vec<u8>) -> std::io::Result<usize> {
    let spare = buffer.spare_capacity_mut();
    // SAFETY: reads at most `spare.len()` bytes into the vector's spare capacity, which the
    // kernel initialises up to the count returned; only that many are then taken as set.
    let read = unsafe { libc::read(fd.as_raw_fd(), spare.as_mut_ptr().cast(), spare.len()) };
    if read < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let read = read as usize;
    // SAFETY: `read` bytes after the old length were written by the kernel.
    unsafe { buffer.set_len(buffer.len() + read) };
    Ok(read)
}

/// The stdio thread's reader while the library thread reads: it waits until the input is
/// handed to it, reads as the other reader does, and hands it back once the library thread is
/// idle and no complete line is buffered.
pub async fn read_handed(
    input: Arc<SharedInput>,
    shared: Arc<Shared>,
    dispatch: Arc<dyn Dispatch>,
) {
    loop {
        loop {
            let handed = input.handed.notified();
            tokio::pin!(handed);
            handed.as_mut().enable();
            if input.lock().owner == Owner::Stdio {
                break;
            }
            if shared.lock().input_done() {
                return;
            }
            handed.await;
        }
        let pipe = match input
            .fd
            .try_clone()
            .and_then(tokio::net::unix::pipe::Receiver::from_owned_fd)
        {
            Ok(pipe) => pipe,
            Err(error) => {
                tracing::error!(%error, "cannot read stdin on the stdio thread");
                return;
            }
        };
        loop {
            if !super::reader::wait_for_backlog(&shared).await {
                return;
            }
            let line = loop {
                let idle = input.library_idle.notified();
                tokio::pin!(idle);
                idle.as_mut().enable();
                {
                    let mut state = input.lock();
                    if !state.handling {
                        if let Some(line) = state.lines.next_line() {
                            break Some(line);
                        }
                    }
                    if state.library_idle {
                        break None;
                    }
                }
                tokio::select! {
                    ready = pipe.readable() => {
                        let mut state = input.lock();
                        let read = ready.and_then(|()| pipe.try_read_buf(state.lines.spare()));
                        match read {
                            Ok(0) => state.lines.eof = true,
                            Ok(_) => {}
                            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {}
                            Err(error) => {
                                tracing::error!(%error, "cannot read stdin");
                                state.lines.eof = true;
                            }
                        }
                    }
                    () = &mut idle => {}
                }
            };
            if let Some(line) = line {
                if !super::reader::handle_line(&shared, Some(&dispatch), line).await {
                    return;
                }
            }
            let mut state = input.lock();
            if state.library_idle && !state.lines.has_line() {
                state.owner = Owner::Library;
                tracing::trace!("stdin handed to the library thread");
                drop(state);
                input.returned.raise();
                break;
            }
        }
    }
}
