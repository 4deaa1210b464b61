//! The isolated host: the library runs in worker processes of the same program (`delphi-mcp
//! worker LIBRARY ...`, a hidden subcommand), one library thread each, spoken to over the
//! worker's stdin and stdout with a compact binary framing ([`framing`]).
//!
//! The server never loads the library itself: the first worker sends the manifest it loaded
//! and the outcome of `mcp_init` in its hello frame. A worker that dies (exit, signal, a fault
//! in any of its threads) answers its call in flight with a tool error naming what happened and
//! is restarted with back-off; a crash loop makes the tools unavailable for a while instead of
//! spinning (`pool.rs` has the rules). A call past its deadline has its worker killed (SIGKILL)
//! and restarted. A cancelled call is abandoned (it runs to its end, the result is dropped) or,
//! with [`CancelPolicy::Restart`], its worker is killed and restarted. Each worker has its own
//! globals: state kept by the library between calls is per worker.

pub mod framing;
mod own_answer;
mod pool;
mod process;
mod relay;
mod shared;
pub mod worker;

pub use pool::{
    BACKOFF_MAX, BACKOFF_STEP, CLOSE_GRACE, CRASH_LIMIT, CRASH_WINDOW, START_FAILURE_LIMIT,
    UNAVAILABLE_MAX, UNAVAILABLE_PAUSE,
};
pub use worker::{run_worker, WorkerArgs};

use super::{
    ArgValue, CallControl, CallError, CallReturn, HostCallFuture, HostLibrary, HostOptions,
    HostState, ToolHost,
};
use crate::error::LoadError;
use pool::{Pending, Phase, Pool, StopReason, WorkerState};
use serde::Serialize;
use shared::{Config, Shared};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What a client's cancellation does to an isolated call that is already running.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CancelPolicy {
    /// The call runs to its end and its result is dropped; the worker keeps its state. Its
    /// deadline still applies.
    #[default]
    Abandon,
    /// The worker is killed at once and restarted (its state is lost).
    Restart,
}

impl std::str::FromStr for CancelPolicy {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "abandon" => Ok(CancelPolicy::Abandon),
            "restart" => Ok(CancelPolicy::Restart),
            other => Err(format!(
                "unknown policy {other:?}: expected abandon or restart"
            )),
        }
    }
}

impl std::fmt::Display for CancelPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CancelPolicy::Abandon => "abandon",
            CancelPolicy::Restart => "restart",
        })
    }
}

/// How a worker process is started: `program args... LIBRARY [options]` (the worker's own
/// arguments, [`WorkerArgs`], come last). The program must call [`run_worker`] with them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerCommand {
    /// The executable.
    pub program: PathBuf,
    /// Arguments before the worker's own (e.g. the subcommand).
    pub args: Vec<OsString>,
}

impl WorkerCommand {
    /// This program with `args` first (`delphi-mcp serve` uses `["worker"]`).
    pub fn current_exe(args: &[&str]) -> std::io::Result<WorkerCommand> {
        Ok(WorkerCommand {
            program: std::env::current_exe()?,
            args: args.iter().map(OsString::from).collect(),
        })
    }
}

/// How to run a library isolated.
#[derive(Debug, Clone)]
pub struct IsolationOptions {
    /// Worker processes (each with one library thread).
    pub workers: usize,
    /// What a cancellation does to a running call.
    pub on_cancel: CancelPolicy,
    /// How a worker process is started.
    pub command: WorkerCommand,
}

impl IsolationOptions {
    /// `workers` processes of this program started as `PROGRAM subcommand ...` (the program
    /// calls [`run_worker_if_called`] first thing), abandoning cancelled calls.
    pub fn current_exe(workers: usize, subcommand: &str) -> std::io::Result<IsolationOptions> {
        Ok(IsolationOptions {
            workers,
            on_cancel: CancelPolicy::Abandon,
            command: WorkerCommand::current_exe(&[subcommand])?,
        })
    }
}

/// When this program was started with `subcommand` as its first argument (as
/// [`IsolationOptions::current_exe`] starts its workers), runs as a worker with the arguments
/// that follow and ends the process; otherwise returns. For programs without a command line
/// parser of their own (a `delphi-mcp new` server, a test or bench binary).
pub fn run_worker_if_called(subcommand: &str) {
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|arg| arg == subcommand) {
        let code = run_worker(args);
        std::process::exit(if code == std::process::ExitCode::SUCCESS {
            0
        } else {
            1
        });
    }
}

/// A library served from worker processes.
pub struct IsolatedHost {
    library: HostLibrary,
    shared: Arc<Shared>,
    next_id: AtomicU64,
}

impl std::fmt::Debug for IsolatedHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IsolatedHost")
            .field("path", &self.library.path())
            .field("workers", &self.shared.lock().workers.len())
            .finish()
    }
}

impl IsolatedHost {
    /// Starts the worker processes and waits until each has loaded and initialised the
    /// library. A worker that fails (load error, `mcp_init` failure, death) fails the start.
    pub fn start(
        path: &Path,
        options: &HostOptions,
        isolation: &IsolationOptions,
    ) -> Result<IsolatedHost, LoadError> {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let worker_args = WorkerArgs {
            library: path.clone(),
            manifest_file: options.manifest_file.clone(),
            max_result_bytes: options.max_result_bytes,
            busy_poll: options.busy_poll,
        };
        let mut args = isolation.command.args.clone();
        args.extend(worker_args.to_args());
        let workers = isolation.workers.max(1);
        let shared = Arc::new(Shared {
            pool: Mutex::new(Pool::new(workers)),
            changed: std::sync::Condvar::new(),
            config: Config {
                program: isolation.command.program.clone(),
                args,
                call_timeout: options.call_timeout,
                max_result_bytes: options.max_result_bytes,
                on_cancel: isolation.on_cancel,
                busy_poll: options.busy_poll,
            },
        });
        let started = Instant::now();
        let mut pool = shared.lock();
        for slot in 0..workers {
            process::start(&shared, &mut pool, slot);
        }
        // Every worker says hello, or one fails.
        let failure = loop {
            if pool
                .workers
                .iter()
                .all(|w| matches!(w.state, WorkerState::Idle))
            {
                break None;
            }
            if pool
                .workers
                .iter()
                .any(|w| matches!(w.state, WorkerState::Down))
            {
                break Some(pool.last_exit.clone().map(|exit| exit.cause));
            }
            pool = match options.call_timeout {
                Some(limit) => {
                    let left = limit.saturating_sub(started.elapsed());
                    if left.is_zero() {
                        break Some(Some(format!(
                            "did not finish mcp_init within {} s (the call deadline)",
                            super::seconds(limit)
                        )));
                    }
                    pool.wait(Some(left))
                }
                None => pool.wait(None),
            };
        };
        if let Some(cause) = failure {
            pool.phase = Phase::ShuttingDown;
            for worker in &mut pool.workers {
                worker.kill();
            }
            // A load error the worker reported reads exactly as it would in process.
            return Err(match pool.load_error.take() {
                Some(message) => LoadError::InWorker { message },
                None => LoadError::WorkerFailed {
                    library: path,
                    reason: format!(
                        "the library process {}",
                        cause.unwrap_or_else(|| "ended".into())
                    ),
                },
            });
        }
        let manifest_json = pool.manifest.clone().unwrap_or_default();
        let manifest = delphi_mcp_manifest::Manifest::from_json(&manifest_json).map_err(|e| {
            LoadError::InvalidManifest {
                library: path.clone(),
                origin: "sent by the library process".into(),
                reason: e.to_string(),
            }
        })?;
        pool.phase = Phase::Serving;
        pool.last_exit = None;
        drop(pool);
        let manager = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("delphi-workers".into())
            .spawn(move || process::manage(manager))
            .map_err(|e| LoadError::Thread {
                library: path.clone(),
                reason: e.to_string(),
            })?;
        tracing::info!(library = %path.display(), tools = manifest.tools.len(), workers, "library loaded in worker processes");
        Ok(IsolatedHost {
            library: HostLibrary::new(path, manifest),
            shared,
            next_id: AtomicU64::new(1),
        })
    }

    /// Number of worker processes.
    pub fn workers(&self) -> usize {
        self.shared.lock().workers.len()
    }

    /// The process ids of the running workers.
    pub fn worker_pids(&self) -> Vec<u32> {
        self.shared
            .lock()
            .workers
            .iter()
            .filter_map(|w| w.pid)
            .collect()
    }

    async fn call_async(
        &self,
        index: usize,
        args: Vec<ArgValue>,
        control: &CallControl,
    ) -> Result<CallReturn, CallError> {
        if index >= self.library.callable_count() {
            return Err(CallError::NoSuchTool(index));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let frame = pool::call_frame(id, index, args)?;
        let (reply, mut answer) = tokio::sync::oneshot::channel();
        let (write, own_read) = {
            let mut pool = self.shared.lock();
            let now = Instant::now();
            if let Some(refusal) = pool.unavailable_error(now) {
                return Err(refusal);
            }
            let deadline = self.shared.config.call_timeout.map(|limit| now + limit);
            let submitted = pool.submit(Pending {
                id,
                tool: index,
                frame,
                deadline,
                reply,
                client: relay::CallClient(control.client.clone()),
                caller_idle: control.caller_idle,
            });
            let (write, (own_read, wake_reader)) = match submitted {
                Some((slot, write)) => (write, pool.reader_of(slot, control.caller_idle)),
                None => (None, (None, false)),
            };
            // The deadline is the manager's to watch: wake it when it sleeps past it.
            if wake_reader
                || deadline.is_some_and(|at| pool.manager_until.is_none_or(|until| at < until))
            {
                self.shared.changed.notify_all();
            }
            (write, own_read)
        };
        if let Some(write) = write {
            pool::write_frame(write);
        }
        if let Some(read) = own_read {
            if let Some(outcome) = own_answer::read_own_answer(&self.shared, &read, &mut answer) {
                return outcome;
            }
        }
        let mut forget = ForgetOnDrop {
            shared: &self.shared,
            id,
            armed: true,
        };
        let outcome = tokio::select! {
            biased;
            outcome = answer => outcome.unwrap_or(Err(CallError::Stopped)),
            () = control.cancelled.cancelled() => {
                // A context's `Cancelled` turns true in the worker (abandon policy).
                if let Some((_, stdin)) = self.shared.lock().running(id) {
                    if let Ok(frame) = framing::encode_to_worker(&framing::ToWorker::Cancel { id }) {
                        pool::write_frame((stdin, frame));
                    }
                }
                self.shared.lock().cancel(id, self.shared.config.on_cancel);
                self.shared.changed.notify_all();
                Err(CallError::Cancelled)
            }
        };
        forget.armed = false;
        outcome
    }
}

/// A call dropped before its answer (the transport gave up): a queued call never runs.
struct ForgetOnDrop<'a> {
    shared: &'a Shared,
    id: u64,
    armed: bool,
}

impl Drop for ForgetOnDrop<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.shared.lock().forget_queued(self.id);
        }
    }
}

impl ToolHost for IsolatedHost {
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

    /// Answers are sent with the pool unlocked (`shared::PoolGuard`).
    fn completes_unlocked(&self) -> bool {
        true
    }

    fn call_timeout(&self) -> Option<std::time::Duration> {
        self.shared.config.call_timeout
    }

    fn state(&self) -> HostState {
        self.shared
            .lock()
            .state(&self.shared.config, Instant::now())
    }
}

impl Drop for IsolatedHost {
    /// Kills the worker processes and answers waiting calls.
    fn drop(&mut self) {
        let mut pool = self.shared.lock();
        pool.phase = Phase::ShuttingDown;
        let queued = std::mem::take(&mut pool.queue);
        pool.replies.extend(
            queued
                .into_iter()
                .map(|call| (call.reply, Err(CallError::Stopped))),
        );
        for worker in &mut pool.workers {
            if !matches!(worker.state, WorkerState::Down) {
                worker.stop(StopReason::Shutdown);
            }
        }
        self.shared.changed.notify_all();
    }
}
