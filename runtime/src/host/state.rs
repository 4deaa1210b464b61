//! A host's state as the status page (`/status.json`, `/`) and `mcp_get_version` show it.

use serde::Serialize;

/// Where the library runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Isolation {
    /// Loaded into the server process.
    InProcess,
    /// In worker processes (`serve --isolate`).
    Isolated,
}

/// The host's condition in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum HostStatus {
    /// Nothing running.
    Idle,
    /// Calls are running, none past its deadline.
    Busy,
    /// In process: a call runs past its deadline and cannot be stopped; while it holds every
    /// library thread, new calls are refused.
    Stuck,
    /// Isolated: a worker is starting or waiting to be restarted.
    Restarting,
    /// Isolated: the workers kept dying; calls are refused until `unavailableUntil`.
    Unavailable,
}

/// A call running on a library thread or worker.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunningCall {
    /// The tool.
    pub tool: String,
    /// When it started, UTC ISO 8601.
    pub started_at: String,
    /// Seconds since it started.
    pub running_seconds: f64,
    /// Whether its deadline has passed.
    pub past_deadline: bool,
    /// The worker process running it (isolated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker_pid: Option<u32>,
}

/// What a worker process is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum WorkerStatus {
    /// Started, `mcp_init` not finished yet.
    Starting,
    /// Waiting for a call.
    Idle,
    /// Running a call.
    Busy,
    /// Killed (deadline, cancellation, protocol error); waiting for it to exit.
    Stopping,
    /// Not running; restarted after the back-off (or when the unavailable period ends).
    Down,
}

/// One worker process.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkerInfo {
    /// Its process id (`None` when down).
    pub pid: Option<u32>,
    /// What it does.
    pub status: WorkerStatus,
    /// Since when, UTC ISO 8601.
    pub since: String,
    /// Calls it has answered.
    pub calls: u64,
}

/// How a worker process ended last.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LibraryExit {
    /// When, UTC ISO 8601.
    pub at: String,
    /// `ended with exit code 3`, `was killed by signal 11 (SIGSEGV)`, ...
    pub cause: String,
    /// The tool it was running, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// True when the server stopped it (deadline, cancellation); false for a crash.
    pub planned: bool,
}

/// A snapshot of a host.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HostState {
    /// In process or isolated.
    pub isolation: Isolation,
    /// The condition in one word.
    pub status: HostStatus,
    /// Library threads in process; worker processes (one library thread each) isolated.
    pub library_threads: usize,
    /// The call deadline in seconds (`None`: no deadline).
    pub call_timeout_seconds: Option<f64>,
    /// The largest string a call may return.
    pub max_result_bytes: usize,
    /// Isolated: what a cancellation does to a running call (`abandon` or `restart`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_cancel: Option<super::CancelPolicy>,
    /// Calls running now.
    pub running: Vec<RunningCall>,
    /// Calls waiting for a library thread or worker.
    pub queued: usize,
    /// Isolated: the worker processes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub workers: Vec<WorkerInfo>,
    /// Isolated: worker processes started after the first ones.
    pub restarts: u64,
    /// Isolated: how the last worker process ended.
    pub last_exit: Option<LibraryExit>,
    /// Isolated: calls are refused until then (UTC ISO 8601).
    pub unavailable_until: Option<String>,
    /// Isolated: why calls are refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable_reason: Option<String>,
}

impl HostState {
    /// The one-word status of the other fields.
    pub(crate) fn summarize(&mut self) {
        self.status = if self.unavailable_until.is_some() {
            HostStatus::Unavailable
        } else if self.running.iter().any(|call| call.past_deadline)
            && self.isolation == Isolation::InProcess
        {
            HostStatus::Stuck
        } else if self.workers.iter().any(|worker| {
            matches!(
                worker.status,
                WorkerStatus::Starting | WorkerStatus::Stopping | WorkerStatus::Down
            )
        }) {
            HostStatus::Restarting
        } else if !self.running.is_empty() {
            HostStatus::Busy
        } else {
            HostStatus::Idle
        };
    }
}
