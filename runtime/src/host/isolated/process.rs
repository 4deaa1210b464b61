//! The threads that drive the worker pool: starting worker processes, one reader thread per
//! process (its frames, then its exit), and one manager thread per host (deadlines, restarts,
//! the end of an unavailable period).

use super::framing::{self, FromWorker, FRAME_OVERHEAD};
use super::own_answer::{FrameReader, Reading, READER_TAKEOVER};
use super::pool::{self, Phase, Pool, StopReason, WorkerState, CLOSE_GRACE};
use super::shared::{send_replies, Config, Shared};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Largest manifest a hello frame may carry.
const MAX_MANIFEST: usize = 256 * 1024 * 1024;

/// Starts a worker process in `slot` (which must be down). A process that cannot be started
/// counts as a death.
pub(super) fn start(shared: &Arc<Shared>, pool: &mut Pool, slot: usize) {
    let config = &shared.config;
    let worker = &mut pool.workers[slot];
    worker.generation += 1;
    worker.restart_at = None;
    worker.start_error = None;
    let generation = worker.generation;
    let spawned = Command::new(&config.program)
        .args(&config.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(error) => {
            worker.set(WorkerState::Starting);
            pool.exited(
                slot,
                format!(
                    "could not be started ({} {}: {error})",
                    config.program.display(),
                    config
                        .args
                        .iter()
                        .map(|arg| arg.to_string_lossy())
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
            );
            return;
        }
    };
    let pid = child.id();
    let stdin = child.stdin.take().map(|stdin| Arc::new(Mutex::new(stdin)));
    let frames = child
        .stdout
        .take()
        .map(|stdout| Arc::new(Mutex::new(FrameReader::new(stdout, config.busy_poll))));
    worker.pid = Some(pid);
    worker.child = Some(child);
    worker.stdin = stdin;
    worker.frames = frames.clone();
    worker.reading = Reading::Thread;
    worker.quick = true;
    worker.set(WorkerState::Starting);
    if pool.phase == Phase::Serving {
        pool.restarts += 1;
    }
    tracing::debug!(pid, slot, "library process started");
    let Some(frames) = frames else {
        return;
    };
    let reader_shared = Arc::clone(shared);
    let spawned = std::thread::Builder::new()
        .name(format!("delphi-worker-{slot}"))
        .spawn(move || read_worker(&reader_shared, slot, generation, pid, &frames));
    if let Err(error) = spawned {
        tracing::error!(%error, "cannot start the thread reading a library process");
        pool.workers[slot].stop(StopReason::Protocol(
            "its reader thread could not be started".into(),
        ));
    }
}

/// The largest frame a worker may send.
fn max_frame(config: &Config) -> usize {
    config.max_result_bytes.max(MAX_MANIFEST) + FRAME_OVERHEAD
}

/// What reading one frame found.
pub(super) enum Read {
    /// A message.
    Message(FromWorker),
    /// The end of the pipe (or a read error, which ends it too).
    End,
    /// A frame that cannot be read: the worker is stopped for it.
    Invalid(String),
}

/// Reads one frame from `frames` (blocking until one comes).
pub(super) fn read_frame(frames: &mut FrameReader, config: &Config) -> Read {
    let payload = match framing::read_frame(frames.reader(), max_frame(config)) {
        Ok(Some(payload)) => payload,
        Ok(None) | Err(framing::FrameError::Io(_)) => return Read::End,
        Err(error) => return Read::Invalid(format!("it sent an invalid frame ({error})")),
    };
    match framing::decode_from_worker(&payload) {
        Ok(message) => Read::Message(message),
        Err(error) => Read::Invalid(format!("it sent an invalid frame ({error})")),
    }
}

/// Stops worker process `generation` in `slot` for sending `problem`.
pub(super) fn stop_for_protocol(shared: &Shared, slot: usize, generation: u64, problem: String) {
    let mut pool = shared.lock();
    let worker = &mut pool.workers[slot];
    if worker.generation == generation {
        tracing::error!(pid = worker.pid, %problem, "stopping a library process");
        worker.stop(StopReason::Protocol(problem));
    }
    shared.changed.notify_all();
}

/// Waits until the reader thread of worker process `generation` in `slot` is the one to read
/// its frames ([`Reading`]).
fn wait_for_turn(shared: &Shared, slot: usize, generation: u64) {
    let mut pool = shared.lock();
    loop {
        let worker = &mut pool.workers[slot];
        if worker.generation != generation {
            return;
        }
        let wait = match worker.reading {
            Reading::Thread => return,
            // The caller hands reading back within one poll of its call.
            Reading::Caller => READER_TAKEOVER,
            Reading::Released(since) => {
                let now = Instant::now();
                let at = since + READER_TAKEOVER;
                if now >= at {
                    worker.reading = Reading::Thread;
                    return;
                }
                at - now
            }
        };
        pool = pool.wait(Some(wait));
    }
}

/// Reads the frames of one worker process while it is its turn ([`Reading`]), then waits for
/// the process to exit and reports the exit.
fn read_worker(
    shared: &Arc<Shared>,
    slot: usize,
    generation: u64,
    pid: u32,
    frames: &Mutex<FrameReader>,
) {
    loop {
        let read = read_frame(
            &mut frames.lock().unwrap_or_else(|e| e.into_inner()),
            &shared.config,
        );
        match read {
            // Reading passes from this thread only through an answer it handles.
            Read::Message(message) => {
                if on_message(shared, slot, generation, message) {
                    wait_for_turn(shared, slot, generation);
                }
            }
            Read::End => break,
            Read::Invalid(problem) => {
                stop_for_protocol(shared, slot, generation, problem);
                break;
            }
        }
    }
    {
        let mut pool = shared.lock();
        let worker = &mut pool.workers[slot];
        if worker.generation == generation && !matches!(worker.state, WorkerState::Stopping(_)) {
            worker.closed_at = Some(Instant::now());
        }
        shared.changed.notify_all();
    }
    let status = wait_for_exit(shared, slot, generation, pid);
    let mut pool = shared.lock();
    if pool.workers[slot].generation == generation {
        pool.exited(slot, describe_exit(status));
    }
    shared.changed.notify_all();
}

/// Handles a message of worker process `generation` in `slot` (read by its reader thread or
/// by a caller). Returns whether the reader thread no longer reads its frames: only an answer
/// handled here releases reading ([`Reading::Released`]).
pub(super) fn on_message(
    shared: &Shared,
    slot: usize,
    generation: u64,
    message: FromWorker,
) -> bool {
    let (write, replies, released) = {
        let mut pool = shared.lock();
        if pool.workers[slot].generation != generation {
            return false;
        }
        let mut answer = false;
        let write = match message {
            FromWorker::Hello {
                outcome: Ok(manifest),
                ..
            } => {
                if pool.tools.is_empty() {
                    pool.tools = tool_names(&manifest);
                }
                match pool.hello(slot, manifest) {
                    Ok(write) => write,
                    Err(why) => {
                        tracing::error!(%why, "stopping a library process");
                        pool.workers[slot].stop(StopReason::WrongManifest(why));
                        None
                    }
                }
            }
            FromWorker::Hello {
                outcome: Err(error),
                ..
            } => {
                // The worker exits after this; its exit is reported with the error.
                pool.workers[slot].start_error = Some(error);
                None
            }
            // Nobody waits for answers but their callers: no wake-up.
            FromWorker::Returned { id, returned } => {
                answer = true;
                pool.returned(slot, id, Ok(returned), &shared.config)
            }
            FromWorker::TooLarge { id, bytes } => {
                answer = true;
                pool.returned(slot, id, Err(bytes), &shared.config)
            }
            FromWorker::Context { id, what, text } => {
                let running = pool.running(id);
                drop(pool);
                relay_context(id, running, what, text);
                return false;
            }
        };
        if !answer {
            // A starting host and the manager wait for hellos.
            shared.changed.notify_all();
        }
        let released = pool.workers[slot].reading != Reading::Thread;
        // Taken from the guard, so that they are not sent when it drops.
        (write, std::mem::take(&mut pool.replies), released)
    };
    // The next call's frame first, then the answers: sending one may complete its call on this
    // thread (over stdio its answer to the client is written here too).
    if let Some(write) = write {
        pool::write_frame(write);
    }
    send_replies(replies);
    released
}

/// Does what a worker's call context asks (ABI 3) through the call's client; a request is
/// answered on a thread of its own (it waits for the client) with an answer frame.
fn relay_context(
    id: u64,
    running: Option<(
        super::relay::CallClient,
        Arc<Mutex<std::process::ChildStdin>>,
    )>,
    what: framing::ContextUse,
    text: Vec<u8>,
) {
    let Some((client, stdin)) = running else {
        return;
    };
    if !matches!(what, framing::ContextUse::Request(_)) {
        super::relay::serve_context(client.0.as_ref(), what, &text);
        return;
    }
    let answered = std::thread::Builder::new()
        .name("delphi-worker-request".into())
        .spawn(move || {
            if let Some(outcome) = super::relay::serve_context(client.0.as_ref(), what, &text) {
                let answer = framing::ToWorker::Answer {
                    id,
                    status: outcome.status,
                    text: outcome.text.into_bytes(),
                };
                if let Ok(frame) = framing::encode_to_worker(&answer) {
                    super::pool::write_frame((stdin, frame));
                }
            }
        });
    if let Err(error) = answered {
        tracing::error!(%error, "cannot start the thread answering a library process");
    }
}

/// The tool names of a manifest (for messages); empty when it cannot be read, which the
/// host reports when it starts.
fn tool_names(manifest: &[u8]) -> Vec<String> {
    delphi_mcp_manifest::Manifest::from_json(manifest)
        .map(|manifest| {
            let mut names: Vec<String> = manifest.tools.iter().map(|t| t.name.clone()).collect();
            names.extend(
                manifest
                    .callables()
                    .skip(manifest.tools.len())
                    .map(|binding| binding.export.clone()),
            );
            names
        })
        .unwrap_or_default()
}

/// Waits until the worker has exited and reaps it. On Unix the exit is awaited without
/// reaping first (`waitid` with `WNOWAIT`), so the manager can still kill the process through
/// its `Child` (a closed pipe without an exit) and the pid cannot be reused meanwhile.
fn wait_for_exit(shared: &Shared, slot: usize, generation: u64, pid: u32) -> Option<ExitStatus> {
    #[cfg(unix)]
    loop {
        // SAFETY: `info` is a plain C struct written by the kernel; `pid` is our child.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let result = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if result == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
        {
            break;
        }
    }
    #[cfg(not(unix))]
    let _ = pid;
    let child = {
        let mut pool = shared.lock();
        let worker = &mut pool.workers[slot];
        if worker.generation != generation {
            return None;
        }
        worker.child.take()
    };
    child.and_then(|mut child| child.wait().ok())
}

/// `ended with exit code 3`, `was killed by signal 11 (SIGSEGV)`.
pub(super) fn describe_exit(status: Option<ExitStatus>) -> String {
    let Some(status) = status else {
        return "ended".to_string();
    };
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let core = if status.core_dumped() {
                ", core dumped"
            } else {
                ""
            };
            return match signal_name(signal) {
                Some(name) => format!("was killed by signal {signal} ({name}{core})"),
                None => format!("was killed by signal {signal}{core}"),
            };
        }
    }
    match status.code() {
        Some(code) => format!("ended with exit code {code}"),
        None => format!("ended ({status})"),
    }
}

#[cfg(unix)]
fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGSYS => "SIGSYS",
        _ => return None,
    })
}

/// The manager thread: deadlines, restarts and the end of an unavailable period, until the
/// host shuts down.
pub(super) fn manage(shared: Arc<Shared>) {
    let limit = shared.config.call_timeout.unwrap_or_default();
    let mut pool = shared.lock();
    loop {
        if pool.phase == Phase::ShuttingDown {
            for worker in &mut pool.workers {
                worker.kill();
            }
            return;
        }
        let now = Instant::now();
        let mut wake = pool.expire(now, limit);
        let mut consider = |at: Instant| wake = Some(wake.map_or(at, |w| w.min(at)));
        if let Some(until) = pool.unavailable.as_ref().map(|u| u.until) {
            if now >= until {
                tracing::info!("starting the library again after its unavailable period");
                pool.unavailable = None;
            } else {
                consider(until);
            }
        }
        let available = pool.unavailable.is_none();
        for slot in 0..pool.workers.len() {
            let worker = &mut pool.workers[slot];
            if let Some(closed) = worker.closed_at {
                if now >= closed + CLOSE_GRACE {
                    worker.closed_at = None;
                    worker.stop(StopReason::Closed);
                } else {
                    consider(closed + CLOSE_GRACE);
                }
            }
            match worker.state {
                WorkerState::Starting => {
                    if let Some(limit) = shared.config.call_timeout {
                        if now >= worker.since + limit {
                            tracing::error!(pid = worker.pid, "mcp_init did not finish within the call deadline; killing the library process");
                            worker.stop(StopReason::StartTimeout);
                        } else {
                            consider(worker.since + limit);
                        }
                    }
                }
                WorkerState::Down if available => match worker.restart_at {
                    Some(at) if at <= now => start(&shared, &mut pool, slot),
                    Some(at) => consider(at),
                    None => {}
                },
                _ => {}
            }
        }
        pool.manager_until = wake;
        pool = pool.wait(wake.map(|at| {
            at.saturating_duration_since(Instant::now())
                .max(Duration::from_millis(1))
        }));
    }
}
