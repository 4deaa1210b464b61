//! The worker pool's state and its transitions, all under one lock: which worker runs which
//! call, the queue, deaths, restarts and the crash-loop rule. The threads that drive it are in
//! [`super::process`] (a reader per worker process, one manager per host).
//!
//! Rules (documented in `docs/runtime.md`):
//! - a call goes to the idle worker used most recently, else waits in a FIFO queue (the other
//!   workers stay idle, and their busy polling lapses);
//! - a worker that dies unexpectedly is restarted at once the first time, then after a
//!   back-off of 0.1 s doubling with every further death within [`CRASH_WINDOW`] (at most
//!   [`BACKOFF_MAX`]);
//! - more than [`CRASH_LIMIT`] unexpected deaths within [`CRASH_WINDOW`], or
//!   [`START_FAILURE_LIMIT`] workers in a row that die before `mcp_init` finished, make the
//!   library unavailable for [`UNAVAILABLE_PAUSE`] (doubling with each further crash loop
//!   until a call succeeds, at most [`UNAVAILABLE_MAX`]): calls are refused at once, then one
//!   new start is tried;
//! - workers the server kills itself (deadline, cancellation with `--on-cancel restart`) are
//!   restarted at once and do not count as crashes.

use super::framing::{self, ToWorker};
use super::own_answer::{FrameReader, Reading};
use super::shared::{Config, Replies, Reply};
use super::CancelPolicy;
use crate::host::state::{
    HostState, HostStatus, Isolation, LibraryExit, RunningCall, WorkerInfo, WorkerStatus,
};
use crate::host::{seconds, CallError, CallReturn, TimeoutEnd};
use crate::status::utc_iso;
use std::collections::VecDeque;
use std::io::Write as _;
use std::process::{Child, ChildStdin};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

/// Unexpected deaths are counted over this window.
pub const CRASH_WINDOW: Duration = Duration::from_secs(60);
/// More unexpected deaths than this within [`CRASH_WINDOW`] is a crash loop.
pub const CRASH_LIMIT: usize = 5;
/// This many workers in a row dying before `mcp_init` finished is a crash loop.
pub const START_FAILURE_LIMIT: u32 = 3;
/// First step of the restart back-off.
pub const BACKOFF_STEP: Duration = Duration::from_millis(100);
/// Longest restart back-off.
pub const BACKOFF_MAX: Duration = Duration::from_secs(5);
/// How long a crash loop makes the library unavailable the first time.
pub const UNAVAILABLE_PAUSE: Duration = Duration::from_secs(30);
/// Longest unavailable period.
pub const UNAVAILABLE_MAX: Duration = Duration::from_secs(600);
/// A worker that closed its pipe but has not exited after this long is killed.
pub const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// Whether the host is starting, serving or gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    Starting,
    Serving,
    ShuttingDown,
}

/// Why the server stops a worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum StopReason {
    /// Its call passed the deadline (already answered).
    Deadline { tool: String },
    /// Its call was cancelled under `--on-cancel restart`.
    Cancelled { tool: String },
    /// `mcp_init` took longer than the call deadline.
    StartTimeout,
    /// Its hello named another manifest than the first worker's.
    WrongManifest(String),
    /// It sent a frame that cannot be read.
    Protocol(String),
    /// It closed its pipe without exiting.
    Closed,
    /// The host is shutting down.
    Shutdown,
}

impl StopReason {
    /// The server's own decision, not a crash.
    fn planned(&self) -> bool {
        matches!(
            self,
            StopReason::Deadline { .. } | StopReason::Cancelled { .. } | StopReason::Shutdown
        )
    }

    /// Whether the worker had not said hello yet.
    fn starting(&self) -> bool {
        matches!(
            self,
            StopReason::StartTimeout | StopReason::WrongManifest(_)
        )
    }

    /// Why the server killed it, in the words of "the library process ...".
    fn cause(&self, exit: &str) -> String {
        match self {
            StopReason::Deadline { tool } => {
                format!("was killed by the server because `{tool}` passed its deadline")
            }
            StopReason::Cancelled { tool } => {
                format!("was killed by the server because the client cancelled `{tool}`")
            }
            StopReason::StartTimeout => {
                "was killed by the server because mcp_init did not finish within the call deadline"
                    .into()
            }
            StopReason::WrongManifest(why) | StopReason::Protocol(why) => {
                format!("was killed by the server because {why}")
            }
            StopReason::Closed => format!("closed its pipe and {exit}"),
            StopReason::Shutdown => exit.to_string(),
        }
    }
}

/// A call running on a worker.
#[derive(Debug)]
pub(super) struct InFlight {
    pub id: u64,
    pub tool: usize,
    pub started: Instant,
    pub started_at: SystemTime,
    pub deadline: Option<Instant>,
    /// `None` once answered otherwise (cancelled with the abandon policy).
    pub reply: Option<Reply>,
    /// The client of the call, for its context's frames.
    pub client: super::relay::CallClient,
    /// Its caller has nothing else to do ([`crate::host::CallControl::caller_idle`]).
    pub caller_idle: bool,
}

/// What a worker slot holds.
#[derive(Debug)]
pub(super) enum WorkerState {
    Starting,
    Idle,
    Busy(InFlight),
    Stopping(StopReason),
    Down,
}

/// One worker slot: the process in it, if any, and its history.
#[derive(Debug)]
pub(super) struct Worker {
    /// Incremented with every process started in the slot, so that a reader thread of an
    /// earlier process never touches a later one.
    pub generation: u64,
    pub state: WorkerState,
    pub since: Instant,
    pub since_at: SystemTime,
    pub pid: Option<u32>,
    pub child: Option<Child>,
    pub stdin: Option<Arc<Mutex<ChildStdin>>>,
    /// Order of last use (most recently used idle worker first).
    pub last_used: u64,
    pub calls: u64,
    /// The load error its hello carried.
    pub start_error: Option<String>,
    /// When a down worker is started again.
    pub restart_at: Option<Instant>,
    /// When it closed its pipe (it should be exiting).
    pub closed_at: Option<Instant>,
    /// Who reads its frames.
    pub reading: Reading,
    /// Its frames, read by its reader thread or a caller ([`Reading`]).
    pub frames: Option<Arc<Mutex<FrameReader>>>,
    /// Whether its last call was answered within the busy-poll budget: only then does the
    /// next idle caller wait for its answer by reading it.
    pub quick: bool,
}

impl Worker {
    pub fn new() -> Worker {
        Worker {
            generation: 0,
            state: WorkerState::Down,
            since: Instant::now(),
            since_at: SystemTime::now(),
            pid: None,
            child: None,
            stdin: None,
            last_used: 0,
            calls: 0,
            start_error: None,
            restart_at: None,
            closed_at: None,
            reading: Reading::Thread,
            frames: None,
            quick: true,
        }
    }

    pub fn set(&mut self, state: WorkerState) -> WorkerState {
        self.since = Instant::now();
        self.since_at = SystemTime::now();
        std::mem::replace(&mut self.state, state)
    }

    /// Kills the process (SIGKILL); its reader thread then sees the end of its pipe.
    pub fn kill(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
        }
        self.stdin = None;
        self.reading = Reading::Thread;
    }

    /// Moves a running worker to `Stopping` and kills it.
    pub fn stop(&mut self, reason: StopReason) -> WorkerState {
        let old = self.set(WorkerState::Stopping(reason));
        self.kill();
        old
    }
}

/// A call waiting for a worker.
#[derive(Debug)]
pub(super) struct Pending {
    pub id: u64,
    pub tool: usize,
    pub frame: Vec<u8>,
    pub deadline: Option<Instant>,
    pub reply: Reply,
    pub client: super::relay::CallClient,
    pub caller_idle: bool,
}

/// Calls are refused until `until`.
#[derive(Debug)]
pub(super) struct Unavailable {
    pub until: Instant,
    pub until_at: SystemTime,
    /// Why (without the "until" part, which is written at each refusal).
    pub why: String,
}

/// A frame to write to a worker once the lock is released.
pub(super) type FrameWrite = (Arc<Mutex<ChildStdin>>, Vec<u8>);

/// The pool.
#[derive(Debug)]
pub(super) struct Pool {
    pub phase: Phase,
    pub workers: Vec<Worker>,
    pub queue: VecDeque<Pending>,
    /// Tool names of the manifest (known from the first hello).
    pub tools: Vec<String>,
    /// The canonical JSON of the first worker's manifest: later workers must say the same.
    pub manifest: Option<Vec<u8>>,
    pub use_counter: u64,
    pub restarts: u64,
    /// Unexpected deaths within [`CRASH_WINDOW`].
    pub crashes: VecDeque<Instant>,
    /// Workers in a row that died before their hello.
    pub start_failures: u32,
    /// Crash loops since the last successful call.
    pub crash_loops: u32,
    pub unavailable: Option<Unavailable>,
    pub last_exit: Option<LibraryExit>,
    /// The load error of the last worker that could not load the library.
    pub load_error: Option<String>,
    /// Until when the manager thread sleeps (`None`: until woken): a call whose deadline is
    /// later needs no wake-up.
    pub manager_until: Option<Instant>,
    /// Answers decided under the lock, sent when it is released ([`super::shared::PoolGuard`]).
    pub replies: Replies,
}

impl Pool {
    pub fn new(workers: usize) -> Pool {
        Pool {
            phase: Phase::Starting,
            workers: (0..workers).map(|_| Worker::new()).collect(),
            queue: VecDeque::new(),
            tools: Vec::new(),
            manifest: None,
            use_counter: 0,
            restarts: 0,
            crashes: VecDeque::new(),
            start_failures: 0,
            crash_loops: 0,
            unavailable: None,
            last_exit: None,
            load_error: None,
            replies: Vec::new(),
            manager_until: None,
        }
    }

    pub fn tool_name(&self, index: usize) -> String {
        self.tools
            .get(index)
            .cloned()
            .unwrap_or_else(|| format!("#{index}"))
    }

    /// The refusal while the library is unavailable.
    pub fn unavailable_error(&self, now: Instant) -> Option<CallError> {
        let unavailable = self.unavailable.as_ref()?;
        Some(CallError::Unavailable {
            reason: format!(
                "{}; calls are refused until {} (in {} s), when a new library process is started",
                unavailable.why,
                utc_iso(unavailable.until_at),
                seconds(unavailable.until.saturating_duration_since(now))
            ),
        })
    }

    /// Gives `call` to worker `slot` (idle or just finished); returns the frame to write.
    fn assign(&mut self, slot: usize, call: Pending) -> Option<FrameWrite> {
        self.use_counter += 1;
        let worker = &mut self.workers[slot];
        worker.last_used = self.use_counter;
        worker.set(WorkerState::Busy(InFlight {
            id: call.id,
            tool: call.tool,
            started: Instant::now(),
            started_at: SystemTime::now(),
            deadline: call.deadline,
            reply: Some(call.reply),
            client: call.client,
            caller_idle: call.caller_idle,
        }));
        worker
            .stdin
            .as_ref()
            .map(|stdin| (Arc::clone(stdin), call.frame))
    }

    /// Gives `call` to the most recently used idle worker (returned, with the frame to write),
    /// or queues it (`None`).
    pub fn submit(&mut self, call: Pending) -> Option<(usize, Option<FrameWrite>)> {
        let idle = self
            .workers
            .iter()
            .enumerate()
            .filter(|(_, worker)| matches!(worker.state, WorkerState::Idle))
            .max_by_key(|(_, worker)| worker.last_used)
            .map(|(slot, _)| slot);
        match idle {
            Some(slot) => Some((slot, self.assign(slot, call))),
            None => {
                self.queue.push_back(call);
                None
            }
        }
    }

    /// Worker `slot` is idle: gives it the next queued call whose caller still waits.
    pub fn next_call(&mut self, slot: usize) -> Option<FrameWrite> {
        while let Some(call) = self.queue.pop_front() {
            if !call.reply.is_closed() {
                return self.assign(slot, call);
            }
        }
        None
    }

    /// The worker running call `id`: its client and its stdin (for context frames).
    pub fn running(&self, id: u64) -> Option<(super::relay::CallClient, Arc<Mutex<ChildStdin>>)> {
        self.workers.iter().find_map(|worker| match &worker.state {
            WorkerState::Busy(call) if call.id == id => worker
                .stdin
                .as_ref()
                .map(|stdin| (call.client.clone(), Arc::clone(stdin))),
            _ => None,
        })
    }

    /// The client cancelled call `id`.
    pub fn cancel(&mut self, id: u64, policy: CancelPolicy) {
        if self.forget_queued(id) {
            return;
        }
        let tools = &self.tools;
        for worker in &mut self.workers {
            let WorkerState::Busy(call) = &mut worker.state else {
                continue;
            };
            if call.id != id {
                continue;
            }
            call.reply = None;
            if policy == CancelPolicy::Restart {
                let tool = tools.get(call.tool).cloned().unwrap_or_default();
                tracing::info!(%tool, "call cancelled by the client; its library process is restarted (--on-cancel restart)");
                worker.stop(StopReason::Cancelled { tool });
            }
            return;
        }
    }

    /// Removes call `id` from the queue; true when it was there.
    pub fn forget_queued(&mut self, id: u64) -> bool {
        match self.queue.iter().position(|call| call.id == id) {
            Some(position) => {
                self.queue.remove(position);
                true
            }
            None => false,
        }
    }

    /// A call's outcome from worker `slot`: answers it and returns the next frame to write.
    /// `config` gives the result limit and the busy-poll budget.
    pub fn returned(
        &mut self,
        slot: usize,
        id: u64,
        outcome: Result<CallReturn, u64>,
        config: &Config,
    ) -> Option<FrameWrite> {
        let limit = config.max_result_bytes;
        let worker = &mut self.workers[slot];
        let WorkerState::Busy(call) = &mut worker.state else {
            return None;
        };
        if call.id != id {
            return None;
        }
        let reply = call.reply.take();
        let tool = call.tool;
        let caller_idle = call.caller_idle;
        worker.quick = call.started.elapsed() <= config.busy_poll;
        worker.calls += 1;
        worker.set(WorkerState::Idle);
        let answer = match outcome {
            Ok(returned) => {
                self.crash_loops = 0;
                Ok(returned)
            }
            Err(bytes) => Err(CallError::ResultTooLarge {
                tool: self.tool_name(tool),
                bytes,
                limit: limit as u64,
            }),
        };
        if let Some(reply) = reply {
            self.replies.push((reply, answer));
        }
        let next = self.next_call(slot);
        let worker = &mut self.workers[slot];
        // Its caller's next call will probably read its own answer.
        if next.is_none() && caller_idle && worker.quick && worker.reading == Reading::Thread {
            worker.reading = Reading::Released(Instant::now());
        }
        next
    }

    /// Worker `slot` said hello with its manifest. Returns the next frame to write, or the
    /// reason to stop the worker when its manifest is not the first one's.
    pub fn hello(&mut self, slot: usize, manifest: Vec<u8>) -> Result<Option<FrameWrite>, String> {
        match &self.manifest {
            Some(first) if *first != manifest => {
                return Err(
                    "it loaded a library with another manifest than the first process did (was the library rebuilt?); restart the server to serve the new library".into(),
                )
            }
            Some(_) => {}
            None => self.manifest = Some(manifest),
        }
        self.start_failures = 0;
        self.workers[slot].set(WorkerState::Idle);
        Ok(self.next_call(slot))
    }

    /// Answers queued calls whose deadline passed and stops workers whose call passed it.
    /// Returns the earliest deadline still ahead.
    pub fn expire(&mut self, now: Instant, limit: Duration) -> Option<Instant> {
        let mut next: Option<Instant> = None;
        let mut keep = VecDeque::with_capacity(self.queue.len());
        for call in self.queue.drain(..) {
            match call.deadline {
                Some(deadline) if deadline <= now => {
                    let tool = self.tools.get(call.tool).cloned().unwrap_or_default();
                    self.replies.push((
                        call.reply,
                        Err(CallError::TimedOut {
                            tool,
                            limit,
                            end: TimeoutEnd::NeverStarted,
                        }),
                    ));
                }
                deadline => {
                    next = earliest(next, deadline);
                    keep.push_back(call);
                }
            }
        }
        self.queue = keep;
        for worker in &mut self.workers {
            let WorkerState::Busy(call) = &mut worker.state else {
                continue;
            };
            match call.deadline {
                Some(deadline) if deadline <= now => {
                    let tool = self.tools.get(call.tool).cloned().unwrap_or_default();
                    if let Some(reply) = call.reply.take() {
                        self.replies.push((
                            reply,
                            Err(CallError::TimedOut {
                                tool: tool.clone(),
                                limit,
                                end: TimeoutEnd::WorkerKilled,
                            }),
                        ));
                    }
                    tracing::error!(%tool, pid = worker.pid, "call past its deadline; killing its library process");
                    worker.stop(StopReason::Deadline { tool });
                }
                deadline => next = earliest(next, deadline),
            }
        }
        next
    }

    /// A worker process ended: answers its call, records the death and decides when the slot
    /// is started again (or makes the library unavailable).
    pub fn exited(&mut self, slot: usize, cause: String) {
        let now = Instant::now();
        let serving = self.phase == Phase::Serving;
        let worker = &mut self.workers[slot];
        let pid = worker.pid.take();
        worker.child = None;
        worker.stdin = None;
        worker.frames = None;
        worker.closed_at = None;
        let start_error = worker.start_error.take();
        let old = worker.set(WorkerState::Down);
        let (planned, tool, call, starting, cause) = match old {
            WorkerState::Busy(call) => (false, Some(call.tool), Some(call), false, cause),
            WorkerState::Stopping(reason) => {
                let tool = match &reason {
                    StopReason::Deadline { tool } | StopReason::Cancelled { tool } => {
                        self.tools.iter().position(|t| t == tool)
                    }
                    _ => None,
                };
                let cause = reason.cause(&cause);
                (reason.planned(), tool, None, reason.starting(), cause)
            }
            WorkerState::Starting => (false, None, None, true, cause),
            WorkerState::Idle | WorkerState::Down => (false, None, None, false, cause),
        };
        let cause = match start_error {
            Some(error) => {
                let cause = format!("{cause} before mcp_init finished ({error})");
                self.load_error = Some(error);
                cause
            }
            None if starting => format!("{cause} before mcp_init finished"),
            None => cause,
        };
        let tool_name = tool.map(|index| self.tool_name(index));
        self.last_exit = Some(LibraryExit {
            at: utc_iso(SystemTime::now()),
            cause: cause.clone(),
            tool: tool_name.clone(),
            planned,
        });
        if self.phase == Phase::ShuttingDown {
            return;
        }
        if !planned {
            self.crashes.push_back(now);
            while self
                .crashes
                .front()
                .is_some_and(|at| now.saturating_duration_since(*at) > CRASH_WINDOW)
            {
                self.crashes.pop_front();
            }
            if starting {
                self.start_failures += 1;
            }
        }
        // A stop by the server names its tool in the cause already.
        let during = match (&call, &tool_name) {
            (Some(_), Some(tool)) => format!(" during `{tool}`"),
            _ => String::new(),
        };
        let crash_loop = !planned
            && serving
            && (self.crashes.len() > CRASH_LIMIT || self.start_failures >= START_FAILURE_LIMIT);
        let next = if !serving {
            "the server is starting".to_string()
        } else if crash_loop {
            let why = if self.start_failures >= START_FAILURE_LIMIT {
                format!(
                    "{} library processes in a row ended before mcp_init finished (last: {cause})",
                    self.start_failures
                )
            } else {
                format!(
                    "its process ended {} times within {} s (last: {cause}{during})",
                    self.crashes.len(),
                    CRASH_WINDOW.as_secs()
                )
            };
            let pause = UNAVAILABLE_PAUSE
                .saturating_mul(1 << self.crash_loops.min(10))
                .min(UNAVAILABLE_MAX);
            self.crash_loops += 1;
            self.crashes.clear();
            let until = now + pause;
            self.unavailable = Some(Unavailable {
                until,
                until_at: SystemTime::now() + pause,
                why,
            });
            for worker in &mut self.workers {
                if matches!(worker.state, WorkerState::Down) {
                    worker.restart_at = Some(until);
                }
            }
            let refusal = self.unavailable_error(now);
            for call in self.queue.drain(..) {
                if let Some(refusal) = &refusal {
                    self.replies.push((call.reply, Err(refusal.clone())));
                }
            }
            match &refusal {
                Some(CallError::Unavailable { reason }) => {
                    format!("the library is now unavailable: {reason}")
                }
                _ => String::new(),
            }
        } else {
            let delay = if planned {
                Duration::ZERO
            } else {
                backoff(self.crashes.len())
            };
            self.workers[slot].restart_at = Some(now + delay);
            if delay.is_zero() {
                "it is being restarted".to_string()
            } else {
                format!("it is restarted in {} s", seconds(delay))
            }
        };
        let pid = pid.map(|pid| format!(" (pid {pid})")).unwrap_or_default();
        if !serving {
            // The host's start reports it.
        } else if planned {
            tracing::info!("library process{pid} {cause}{during}, stopped by the server; {next}");
        } else {
            tracing::error!("library process{pid} {cause}{during}; {next}");
        }
        if let Some(reply) = call.and_then(|call| call.reply) {
            self.replies.push((
                reply,
                Err(CallError::LibraryEnded {
                    tool: tool_name.unwrap_or_default(),
                    cause,
                    next,
                }),
            ));
        }
    }

    /// The host's state for the status page.
    pub fn state(&self, config: &Config, now: Instant) -> HostState {
        let mut running = Vec::new();
        let workers = self
            .workers
            .iter()
            .map(|worker| {
                let status = match &worker.state {
                    WorkerState::Starting => WorkerStatus::Starting,
                    WorkerState::Idle => WorkerStatus::Idle,
                    WorkerState::Busy(call) => {
                        running.push(RunningCall {
                            tool: self.tool_name(call.tool),
                            started_at: utc_iso(call.started_at),
                            running_seconds: now
                                .saturating_duration_since(call.started)
                                .as_secs_f64(),
                            past_deadline: call.deadline.is_some_and(|deadline| now >= deadline),
                            worker_pid: worker.pid,
                        });
                        WorkerStatus::Busy
                    }
                    WorkerState::Stopping(_) => WorkerStatus::Stopping,
                    WorkerState::Down => WorkerStatus::Down,
                };
                WorkerInfo {
                    pid: worker.pid,
                    status,
                    since: utc_iso(worker.since_at),
                    calls: worker.calls,
                }
            })
            .collect();
        let mut state = HostState {
            isolation: Isolation::Isolated,
            status: HostStatus::Idle,
            library_threads: self.workers.len(),
            call_timeout_seconds: config.call_timeout.map(|t| t.as_secs_f64()),
            max_result_bytes: config.max_result_bytes,
            on_cancel: Some(config.on_cancel),
            running,
            queued: self.queue.len(),
            workers,
            restarts: self.restarts,
            last_exit: self.last_exit.clone(),
            unavailable_until: self.unavailable.as_ref().map(|u| utc_iso(u.until_at)),
            unavailable_reason: self.unavailable.as_ref().map(|u| u.why.clone()),
        };
        state.summarize();
        state
    }
}

/// The restart delay after the `crashes`-th unexpected death within the window: none for the
/// first, then 0.1 s doubling.
pub(super) fn backoff(crashes: usize) -> Duration {
    if crashes <= 1 {
        return Duration::ZERO;
    }
    BACKOFF_STEP
        .saturating_mul(1 << (crashes - 2).min(16))
        .min(BACKOFF_MAX)
}

fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Writes a call frame to a worker; a failure shows as the worker's death on its reader.
pub(super) fn write_frame((stdin, frame): FrameWrite) {
    let mut stdin = stdin.lock().unwrap_or_else(|e| e.into_inner());
    if let Err(error) = stdin.write_all(&frame).and_then(|()| stdin.flush()) {
        tracing::debug!(%error, "cannot write to a library process");
    }
}

/// Encodes a call frame.
pub(super) fn call_frame(
    id: u64,
    tool: usize,
    args: Vec<crate::host::ArgValue>,
) -> Result<Vec<u8>, CallError> {
    framing::encode_to_worker(&ToWorker::Call {
        id,
        tool: u32::try_from(tool).map_err(|_| CallError::NoSuchTool(tool))?,
        args,
    })
    .map_err(|error| CallError::Unavailable {
        reason: format!("the arguments cannot be sent to the library process: {error}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_the_second_death() {
        assert_eq!(backoff(1), Duration::ZERO);
        assert_eq!(backoff(2), Duration::from_millis(100));
        assert_eq!(backoff(3), Duration::from_millis(200));
        assert_eq!(backoff(5), Duration::from_millis(800));
        assert_eq!(backoff(40), BACKOFF_MAX);
    }
}
