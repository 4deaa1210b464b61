//! The in-process host: loads a library built with the generated stubs into this process,
//! checks its ABI version and manifest, initialises it and runs every call on dedicated library
//! threads.
//!
//! Delphi code is rarely thread-safe, so by default one library thread runs `mcp_init` and then
//! every tool call, in arrival order; concurrent requests queue. A library that exports
//! `mcp_thread_safe` returning 1 may be served by several threads (`--threads N`).
//! The library is never unloaded (FPC libraries must not be unloaded while threads that called
//! them live), and every string it returns is copied and released through `mcp_free` on the
//! library thread before the call is reported back; a string longer than the result limit is
//! released without being copied.
//!
//! Native code cannot be stopped from outside. A call past its deadline is answered at the
//! deadline and keeps running; while such calls hold every library thread, new calls are
//! refused at once ([`CallError::Busy`]) instead of queueing behind them. A call still queued
//! at its deadline, or cancelled by the client before it started, is never run; one cancelled
//! while running runs to its end and its result is dropped.

use super::busy_poll::BusyPoll;
use super::state::{HostState, HostStatus, Isolation, RunningCall};
use super::{
    timer, ArgValue, CallControl, CallError, CallReturn, HostCallFuture, HostLibrary, HostOptions,
    ReturnValue, TimeoutEnd, ToolHost,
};
use crate::block::{Block, TakeError};
use crate::context::{CallContext, ContextArg};
use crate::error::LoadError;
use crate::status::utc_iso;
use delphi_mcp_manifest::abi::{self, AbiKind, AbiValue, ContextAbi, FreeFn, ToolFn, ABI_VERSION};
use std::path::Path;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use tokio_util::sync::CancellationToken;

mod load;
use load::{open_library, read_manifest};

/// What happens with a call's answer: the async caller's channel, or the worker's frame writer.
pub(crate) type Completion = Box<dyn FnOnce(Result<CallReturn, CallError>) + Send>;

/// A queued call's progress, shared by the caller and the library thread: the first to move
/// it out of `QUEUED` decides whether it runs.
const QUEUED: u8 = 0;
const RUNNING: u8 = 1;
const ABANDONED: u8 = 2;

struct Job {
    export: ToolFn,
    tool: usize,
    args: Vec<ArgValue>,
    deadline: Option<Instant>,
    progress: Arc<AtomicU8>,
    done: Completion,
}

/// The call a library thread is running.
#[derive(Debug, Clone)]
struct Running {
    tool: usize,
    started: Instant,
    started_at: SystemTime,
    deadline: Option<Instant>,
}

/// What the library threads share with the host.
#[derive(Debug)]
struct Threads {
    /// One entry per library thread: the call it runs.
    running: Mutex<Vec<Option<Running>>>,
    /// Calls sent to the threads and not yet taken.
    queued: AtomicUsize,
    /// What the one library thread does while nothing is queued ([`ToolHost::set_idle_work`]).
    #[cfg(target_os = "linux")]
    idle: std::sync::OnceLock<super::idle::IdleSlot>,
    /// How long a library thread with nothing to do keeps looking for a call before it sleeps.
    busy_poll: Duration,
}

impl Threads {
    fn running(&self) -> std::sync::MutexGuard<'_, Vec<Option<Running>>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A loaded, initialised library in this process.
pub struct LibraryHost {
    library: HostLibrary,
    exports: Vec<ToolFn>,
    threads: usize,
    call_timeout: Option<Duration>,
    max_result_bytes: usize,
    /// Calls for the library threads; `None` only makes a thread look at its work again.
    jobs: Mutex<mpsc::Sender<Option<Job>>>,
    shared: Arc<Threads>,
}

impl std::fmt::Debug for LibraryHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LibraryHost")
            .field("path", &self.library.path())
            .field("tools", &self.library.manifest().tools.len())
            .field("threads", &self.threads)
            .finish()
    }
}

impl LibraryHost {
    /// Loads `path`, checks it and initialises it on the library thread. `mcp_init` runs while
    /// this thread reads the manifest (a start waits for the longer of the two, not both).
    pub fn open(path: &Path, options: &HostOptions) -> Result<LibraryHost, LoadError> {
        LibraryHost::open_while(path, options, || ()).map(|(host, ())| host)
    }

    /// [`LibraryHost::open`], running `meanwhile` on this thread once the manifest is read,
    /// while `mcp_init` may still run on the library thread (`serve` sets up its transport);
    /// returns its result with the host. A load error is the same whatever `meanwhile` did
    /// (its result is then dropped).
    pub fn open_while<T>(
        path: &Path,
        options: &HostOptions,
        meanwhile: impl FnOnce() -> T,
    ) -> Result<(LibraryHost, T), LoadError> {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let symbols = open_library(&path)?;
        // The steps of a start, timed by the log's timestamps (docs/performance.md).
        tracing::debug!("library mapped");
        let missing = |symbol: &str, why: &str| LoadError::MissingExport {
            library: path.clone(),
            symbol: symbol.to_string(),
            why: why.to_string(),
        };
        let abi_version = symbols
            .abi_version
            .ok_or_else(|| missing(abi::symbols::ABI_VERSION, "every delphi-mcp library has it"))?;
        // SAFETY: signature fixed by the ABI.
        let found = unsafe { abi_version() };
        if found < 0 || !abi::is_supported(found as u32) {
            return Err(LoadError::AbiVersion {
                library: path,
                found: found.into(),
                expected: ABI_VERSION,
            });
        }
        let free = symbols.free.ok_or_else(|| {
            missing(
                abi::symbols::FREE,
                "strings returned by the library are released with it",
            )
        })?;
        let init = symbols
            .init
            .ok_or_else(|| missing(abi::symbols::INIT, "the library is initialised with it"))?;

        let threads = options.threads.max(1);
        if threads > 1 {
            // SAFETY: signature fixed by the ABI extension (`mcp_thread_safe`).
            let declared = symbols
                .thread_safe
                .map(|f| unsafe { f() } == 1)
                .unwrap_or(false);
            if !declared {
                return Err(LoadError::NotThreadSafe {
                    library: path,
                    threads,
                });
            }
        }

        let shared = Arc::new(Threads {
            running: Mutex::new(vec![None; threads]),
            queued: AtomicUsize::new(0),
            #[cfg(target_os = "linux")]
            idle: std::sync::OnceLock::new(),
            busy_poll: options.busy_poll,
        });
        let (jobs, receiver) = mpsc::channel::<Option<Job>>();
        let receiver = Arc::new(Mutex::new(receiver));
        let (init_tx, init_rx) = mpsc::channel::<Result<(), (i32, String)>>();
        let max_result_bytes = options.max_result_bytes;
        for index in 0..threads {
            let receiver = Arc::clone(&receiver);
            let shared = Arc::clone(&shared);
            let init_tx = (index == 0).then(|| init_tx.clone());
            std::thread::Builder::new()
                .name(format!("delphi-lib-{index}"))
                .spawn(move || {
                    if let Some(init_tx) = init_tx {
                        let mut error = AbiValue::ABSENT;
                        // SAFETY: signature fixed by the ABI; runs on the library thread.
                        let status = unsafe { init(&mut error) };
                        let message = take_value(&error, free, usize::MAX)
                            .map(|value| describe_message(&value))
                            .unwrap_or_default();
                        let outcome = if status == abi::status::OK {
                            Ok(())
                        } else {
                            Err((status, message))
                        };
                        let failed = outcome.is_err();
                        let _ = init_tx.send(outcome);
                        if failed {
                            return;
                        }
                    }
                    library_thread(index, &receiver, &shared, free, max_result_bytes);
                })
                .map_err(|e| LoadError::Thread {
                    library: path.clone(),
                    reason: e.to_string(),
                })?;
        }
        drop(init_tx);

        // While `mcp_init` runs: the manifest, and the exports it names. An error here is
        // reported first, as when these were checked before the library was initialised (the
        // library thread then ends once `mcp_init` returns: no call is ever queued).
        let manifest = read_manifest(&path, symbols.manifest, options)?;
        // Tools first, then resources, templates, prompts and completion providers: the
        // index space of `ToolHost::call` (`Manifest::callables`).
        let mut exports = Vec::with_capacity(manifest.tools.len());
        for (index, binding) in manifest.callables().enumerate() {
            let export = (symbols.lookup)(&binding.export).ok_or_else(|| {
                let who = match manifest.tools.get(index) {
                    Some(tool) => format!("tool `{}`", tool.name),
                    None => format!("`{}`", binding.routine),
                };
                missing(&binding.export, &format!("the manifest's {who} calls it"))
            })?;
            exports.push(export);
        }

        tracing::debug!("manifest read");
        let during = meanwhile();
        match init_rx.recv() {
            Ok(Ok(())) => {}
            Ok(Err((status, message))) => {
                return Err(LoadError::Init {
                    library: path,
                    status,
                    message,
                })
            }
            Err(_) => {
                return Err(LoadError::Thread {
                    library: path,
                    reason: "the library thread ended during mcp_init".into(),
                })
            }
        }
        tracing::info!(library = %path.display(), tools = manifest.tools.len(), threads, "library loaded");
        let host = LibraryHost {
            library: HostLibrary::new(path, manifest),
            exports,
            threads,
            call_timeout: options.call_timeout,
            max_result_bytes,
            jobs: Mutex::new(jobs),
            shared,
        };
        Ok((host, during))
    }

    /// Number of library threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The call holding the library threads past its deadline, when every thread is held so.
    fn stuck(&self, now: Instant) -> Option<CallError> {
        let running = self.shared.running();
        let mut longest: Option<&Running> = None;
        for slot in running.iter() {
            let call = slot.as_ref()?;
            if call.deadline.is_none_or(|deadline| now < deadline) {
                return None;
            }
            if longest.is_none_or(|other| call.started < other.started) {
                longest = Some(call);
            }
        }
        longest.map(|call| CallError::Busy {
            tool: self.library.tool_name(call.tool).to_string(),
            running_for: now.saturating_duration_since(call.started),
        })
    }

    fn timed_out(&self, index: usize, end: TimeoutEnd) -> CallError {
        CallError::TimedOut {
            tool: self.library.tool_name(index).to_string(),
            limit: self.call_timeout.unwrap_or_default(),
            end,
        }
    }

    /// Queues a call of tool `index`; `done` receives its outcome on the library thread
    /// (nothing when it is abandoned before it starts). Returns the call's progress flag.
    pub(crate) fn submit(
        &self,
        index: usize,
        args: Vec<ArgValue>,
        deadline: Option<Instant>,
        done: Completion,
    ) -> Result<Arc<AtomicU8>, CallError> {
        let export = *self
            .exports
            .get(index)
            .ok_or(CallError::NoSuchTool(index))?;
        let progress = Arc::new(AtomicU8::new(QUEUED));
        let job = Job {
            export,
            tool: index,
            args,
            deadline,
            progress: Arc::clone(&progress),
            done,
        };
        self.shared.queued.fetch_add(1, Ordering::SeqCst);
        let sent = self
            .jobs
            .lock()
            .map_err(|_| CallError::Stopped)
            .and_then(|jobs| jobs.send(Some(job)).map_err(|_| CallError::Stopped));
        if sent.is_err() {
            self.shared.queued.fetch_sub(1, Ordering::SeqCst);
        }
        #[cfg(target_os = "linux")]
        if let Some(idle) = self.shared.idle.get() {
            // The library thread may be busy with its idle work (not when it queued the call
            // itself).
            if !super::idle::on_library_thread() {
                idle.signal.raise();
            }
        }
        sent.map(|()| progress)
    }

    async fn call_async(
        &self,
        index: usize,
        args: Vec<ArgValue>,
        control: &CallControl,
    ) -> Result<CallReturn, CallError> {
        let now = Instant::now();
        if self.call_timeout.is_some() {
            if let Some(busy) = self.stuck(now) {
                return Err(busy);
            }
        }
        let deadline = self.call_timeout.map(|limit| now + limit);
        let (reply, answer) = tokio::sync::oneshot::channel();
        let progress = self.submit(
            index,
            args,
            deadline,
            Box::new(move |outcome| {
                let _ = reply.send(outcome);
            }),
        )?;
        // Dropped unanswered (the transport gave up): a queued call never runs.
        let _abandon = AbandonOnDrop(Arc::clone(&progress), Arc::clone(&self.shared));
        let expired = async {
            match deadline {
                Some(at) => timer::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            outcome = answer => match outcome {
                Ok(Err(CallError::ResultTooLarge { bytes, limit, .. })) => {
                    Err(CallError::ResultTooLarge {
                        tool: self.library.tool_name(index).to_string(),
                        bytes,
                        limit,
                    })
                }
                Ok(outcome) => outcome,
                // The library thread dropped it: its deadline passed in the queue.
                Err(_) if progress.load(Ordering::SeqCst) == ABANDONED => {
                    Err(self.timed_out(index, TimeoutEnd::NeverStarted))
                }
                Err(_) => Err(CallError::Stopped),
            },
            () = control.cancelled.cancelled() => {
                abandon(&progress, &self.shared);
                Err(CallError::Cancelled)
            }
            () = expired => {
                let end = if abandon(&progress, &self.shared) || progress.load(Ordering::SeqCst) == ABANDONED {
                    TimeoutEnd::NeverStarted
                } else {
                    TimeoutEnd::StillRunning
                };
                if end == TimeoutEnd::StillRunning {
                    tracing::error!(tool = self.library.tool_name(index), "call past its deadline; it cannot be stopped in process and keeps its library thread");
                }
                Err(self.timed_out(index, end))
            }
        }
    }
}

/// Marks a queued call abandoned; true when it had not started (it will never run).
fn abandon(progress: &AtomicU8, threads: &Threads) -> bool {
    let abandoned = progress
        .compare_exchange(QUEUED, ABANDONED, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok();
    if abandoned {
        threads.queued.fetch_sub(1, Ordering::SeqCst);
    }
    abandoned
}

struct AbandonOnDrop(Arc<AtomicU8>, Arc<Threads>);

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        abandon(&self.0, &self.1);
    }
}

impl ToolHost for LibraryHost {
    fn library(&self) -> &HostLibrary {
        &self.library
    }

    fn call<'a>(
        &'a self,
        index: usize,
        args: Vec<ArgValue>,
        control: &'a CallControl,
    ) -> HostCallFuture<'a> {
        Box::pin(self.call_async(index, args, control))
    }

    /// The library thread answers through a one-shot channel after releasing its locks.
    fn completes_unlocked(&self) -> bool {
        true
    }

    /// Its deadlines are kept by the timer thread: none when that thread could not start.
    fn call_timeout(&self) -> Option<Duration> {
        self.call_timeout.filter(|_| timer::keeps_deadlines())
    }

    /// With one library thread only.
    #[cfg(target_os = "linux")]
    fn set_idle_work(&self, work: Arc<dyn super::idle::IdleWork>) -> bool {
        if self.threads != 1 {
            return false;
        }
        let signal = match super::idle::JobSignal::new() {
            Ok(signal) => signal,
            Err(error) => {
                tracing::warn!(%error, "no eventfd: the library thread does no idle work");
                return false;
            }
        };
        if self
            .shared
            .idle
            .set(super::idle::IdleSlot { work, signal })
            .is_err()
        {
            return false;
        }
        // The thread may be waiting for a call: let it look at its new work.
        self.jobs.lock().is_ok_and(|jobs| jobs.send(None).is_ok())
    }

    fn state(&self) -> HostState {
        let now = Instant::now();
        let running: Vec<RunningCall> = self
            .shared
            .running()
            .iter()
            .flatten()
            .map(|call| RunningCall {
                tool: self.library.tool_name(call.tool).to_string(),
                started_at: utc_iso(call.started_at),
                running_seconds: now.saturating_duration_since(call.started).as_secs_f64(),
                past_deadline: call.deadline.is_some_and(|deadline| now >= deadline),
                worker_pid: None,
            })
            .collect();
        let mut state = HostState {
            isolation: Isolation::InProcess,
            status: HostStatus::Idle,
            library_threads: self.threads,
            call_timeout_seconds: self.call_timeout.map(|t| t.as_secs_f64()),
            max_result_bytes: self.max_result_bytes,
            on_cancel: None,
            running,
            queued: self.shared.queued.load(Ordering::SeqCst),
            workers: Vec::new(),
            restarts: 0,
            last_exit: None,
            unavailable_until: None,
            unavailable_reason: None,
        };
        state.summarize();
        state
    }
}

/// The next call for a library thread; `None` when the host is gone. With idle work
/// installed the thread runs it while nothing is queued. Either busy polls first.
fn next_job(
    receiver: &Mutex<mpsc::Receiver<Option<Job>>>,
    shared: &Threads,
    busy_poll: &mut BusyPoll,
) -> Option<Job> {
    #[cfg(not(target_os = "linux"))]
    let _ = shared;
    let Ok(receiver) = receiver.lock() else {
        return None;
    };
    loop {
        #[cfg(target_os = "linux")]
        if let Some(idle) = shared.idle.get() {
            // Lowered before looking, so a call queued from now on raises it again.
            idle.signal.lower();
            match receiver.try_recv() {
                Ok(Some(job)) => return Some(job),
                Ok(None) => continue,
                Err(mpsc::TryRecvError::Disconnected) => return None,
                Err(mpsc::TryRecvError::Empty) => {
                    idle.work.idle(&idle.signal, busy_poll);
                    continue;
                }
            }
        }
        let received = busy_poll.wait(
            || match receiver.try_recv() {
                Ok(job) => Some(Ok(job)),
                Err(mpsc::TryRecvError::Empty) => None,
                Err(mpsc::TryRecvError::Disconnected) => Some(Err(())),
            },
            || receiver.recv().map_err(|_| ()),
        );
        match received {
            Ok(Some(job)) => return Some(job),
            Ok(None) => continue,
            Err(()) => return None,
        }
    }
}

fn library_thread(
    index: usize,
    receiver: &Mutex<mpsc::Receiver<Option<Job>>>,
    shared: &Threads,
    free: FreeFn,
    max_result_bytes: usize,
) {
    #[cfg(target_os = "linux")]
    super::idle::mark_library_thread();
    let mut busy_poll = BusyPoll::new(shared.busy_poll);
    loop {
        let Some(job) = next_job(receiver, shared, &mut busy_poll) else {
            return;
        };
        #[cfg(target_os = "linux")]
        if let Some(idle) = shared.idle.get() {
            idle.work.before_call();
        }
        let now = Instant::now();
        // A call whose deadline passed in the queue is never run, even when its caller has
        // not noticed yet.
        if job.deadline.is_some_and(|deadline| now >= deadline) {
            abandon(&job.progress, shared);
        }
        if job
            .progress
            .compare_exchange(QUEUED, RUNNING, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            continue;
        }
        shared.queued.fetch_sub(1, Ordering::SeqCst);
        if let Some(slot) = shared.running().get_mut(index) {
            *slot = Some(Running {
                tool: job.tool,
                started: now,
                started_at: SystemTime::now(),
                deadline: job.deadline,
            });
        }
        let outcome = run_job(&job, free, max_result_bytes);
        if let Some(slot) = shared.running().get_mut(index) {
            *slot = None;
        }
        (job.done)(outcome);
    }
}

fn run_job(job: &Job, free: FreeFn, max_result_bytes: usize) -> Result<CallReturn, CallError> {
    // The argument strings and blocks live in `job.args` and `blocks` until this function
    // returns.
    let blocks: Vec<Vec<AbiValue>> = job
        .args
        .iter()
        .map(|arg| match arg {
            ArgValue::Block(block) => block.abi_slots(),
            _ => Vec::new(),
        })
        .collect();
    // ABI 3: each context is registered (its handle valid) and its record alive during the
    // call; a call without one allocates nothing for it (the records are boxed, so their
    // addresses stay put as the vector grows).
    let mut contexts: Vec<(crate::context::Registered, Box<ContextAbi>)> = Vec::new();
    let values: Vec<AbiValue> = job
        .args
        .iter()
        .zip(&blocks)
        .map(|(arg, block)| match arg {
            ArgValue::Context(ContextArg(context)) => {
                let context = context.clone().unwrap_or_else(|| {
                    Arc::new(CallContext::new("", CancellationToken::new(), None))
                });
                let registered = crate::context::Registered::new(context);
                let record = Box::new(crate::context::context_abi(registered.handle()));
                let value = AbiValue {
                    kind: AbiKind::Context as i32,
                    flags: 0,
                    bits: 0,
                    ptr: (&*record as *const ContextAbi).cast(),
                    len: 0,
                };
                contexts.push((registered, record));
                value
            }
            _ => to_abi(arg, block),
        })
        .collect();
    let mut out = AbiValue::ABSENT;
    let count = values.len() as i32;
    // SAFETY: signature fixed by the ABI; `values` outlives the call.
    let status = unsafe { (job.export)(values.as_ptr(), count, &mut out) };
    match take_value(&out, free, max_result_bytes) {
        Ok(value) => Ok(CallReturn { status, value }),
        // The tool's name is filled in by the caller, which knows the manifest.
        Err(bytes) => Err(CallError::ResultTooLarge {
            tool: String::new(),
            bytes,
            limit: max_result_bytes as u64,
        }),
    }
}

/// The argument slot of `arg`; a block's slots are `block` ([`Block::abi_slots`]).
fn to_abi(arg: &ArgValue, block: &[AbiValue]) -> AbiValue {
    let mut value = AbiValue::ABSENT;
    match arg {
        // A context is written by `run_job`, which keeps its record alive.
        ArgValue::Absent | ArgValue::Context(_) => {}
        ArgValue::Block(_) => value = Block::root_value(block),
        ArgValue::Bool(b) => {
            value.kind = AbiKind::Bool as i32;
            value.bits = u64::from(*b);
        }
        ArgValue::Int(i) => {
            value.kind = AbiKind::Int as i32;
            value.bits = *i as u64;
        }
        ArgValue::UInt(u) => {
            value.kind = AbiKind::UInt as i32;
            value.bits = *u;
        }
        ArgValue::Double(d) => {
            value.kind = AbiKind::Double as i32;
            value.bits = d.to_bits();
        }
        ArgValue::String(s) => {
            value.kind = AbiKind::String as i32;
            value.ptr = s.as_ptr();
            value.len = s.len() as isize;
        }
    }
    value
}

/// Copies an out value out of library memory and releases its string through `mcp_free`.
/// A string longer than `limit` is released without being copied: `Err(its length)`.
pub(crate) fn take_value(value: &AbiValue, free: FreeFn, limit: usize) -> Result<ReturnValue, u64> {
    if value.kind == AbiKind::Record as i32 || value.kind == AbiKind::Array as i32 {
        // SAFETY: a composite out value is a block as `docs/abi.md` describes.
        return match unsafe { Block::take(value, free, limit) } {
            Ok(block) => Ok(ReturnValue::Block(block)),
            Err(TakeError::TooLarge(bytes)) => Err(bytes),
            // Reported as a bad call: the stub and the runtime disagree.
            Err(TakeError::Malformed(why)) => Ok(ReturnValue::Malformed(why)),
        };
    }
    let result = match value.kind {
        k if k == AbiKind::Absent as i32 => Ok(ReturnValue::Absent),
        k if k == AbiKind::Bool as i32 => Ok(ReturnValue::Bool(value.bits != 0)),
        k if k == AbiKind::Int as i32 => Ok(ReturnValue::Int(value.bits as i64)),
        k if k == AbiKind::UInt as i32 => Ok(ReturnValue::UInt(value.bits)),
        k if k == AbiKind::Double as i32 => Ok(ReturnValue::Double(f64::from_bits(value.bits))),
        k if k == AbiKind::String as i32 || k == AbiKind::Bytes as i32 => {
            if value.ptr.is_null() || value.len <= 0 {
                Ok(ReturnValue::String(Vec::new()))
            } else if value.len as u64 > limit as u64 {
                Err(value.len as u64)
            } else {
                // SAFETY: the library promises `len` bytes at `ptr` until `mcp_free`.
                Ok(ReturnValue::String(
                    unsafe { std::slice::from_raw_parts(value.ptr, value.len as usize) }.to_vec(),
                ))
            }
        }
        other => Ok(ReturnValue::Unknown(other)),
    };
    if !value.ptr.is_null() {
        // SAFETY: the pointer was allocated by the library and is released exactly once.
        unsafe { free(value.ptr as *mut std::ffi::c_void) };
    }
    result
}

fn describe_message(value: &ReturnValue) -> String {
    match value {
        ReturnValue::String(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        other => format!("(no message; out value {other:?})"),
    }
}
