//! Library hosts: where a library's tools run.
//!
//! [`ToolHost`] is what the rest of the runtime calls ([`crate::call::call_tool`],
//! [`crate::LibraryDispatch`], `bind!`'s [`crate::bind::BoundLibrary`]). Two hosts implement it:
//!
//! - [`LibraryHost`] ([`in_process`]): the library is loaded into this process and runs on
//!   dedicated library threads. Cheapest; a tool that ends the process (`Halt`, a fault in a
//!   thread of its own) ends the server, and a call that never returns occupies its thread for
//!   good.
//! - [`IsolatedHost`] ([`isolated`]): the library runs in worker processes of the same program,
//!   spoken to over pipes; a worker that dies is restarted, a call past its deadline has its
//!   worker killed.
//!
//! Both enforce the call deadline ([`HostOptions::call_timeout`]), the result size limit
//! ([`HostOptions::max_result_bytes`]) and the client's cancellation ([`CallControl`]), and
//! report their state ([`HostState`]) for the status page and `mcp_get_version`. Threads that
//! wait for a request busy poll first ([`busy_poll`]).

pub mod busy_poll;
#[cfg(target_os = "linux")]
pub mod idle;
pub mod in_process;
pub mod isolated;
mod state;
pub(crate) mod timer;

pub use in_process::LibraryHost;
pub use isolated::{CancelPolicy, IsolatedHost, IsolationOptions, WorkerCommand};
pub use state::{
    HostState, HostStatus, Isolation, LibraryExit, RunningCall, WorkerInfo, WorkerStatus,
};

use crate::error::LoadError;
use delphi_mcp_manifest::{Manifest, ToolEntry};
use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Default deadline of a call (`--call-timeout`): below HTTP's default `--timeout` of 120 s, so
/// that over HTTP the tool error saying what happened to the call reaches the client before
/// the transport gives up on the request.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(100);
/// Default largest result string (`--max-result-bytes`): 8 MiB.
pub const DEFAULT_MAX_RESULT_BYTES: usize = 8 * 1024 * 1024;

/// How to open a library.
#[derive(Debug, Clone)]
pub struct HostOptions {
    /// A manifest file to use instead of (or to check against) the embedded one.
    pub manifest_file: Option<PathBuf>,
    /// Number of library threads in process (1 unless the library declares itself
    /// thread-safe). An isolated host runs one library thread per worker.
    pub threads: usize,
    /// How long a call may take, queueing included; `None` for no limit.
    pub call_timeout: Option<Duration>,
    /// Largest string (result or error message) a call may return, in bytes.
    pub max_result_bytes: usize,
    /// How long a thread waiting for its next request keeps looking for it before it sleeps
    /// ([`busy_poll`]); zero: it sleeps at once.
    pub busy_poll: Duration,
}

impl Default for HostOptions {
    fn default() -> Self {
        HostOptions {
            manifest_file: None,
            threads: 1,
            call_timeout: Some(DEFAULT_CALL_TIMEOUT),
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
            busy_poll: busy_poll::DEFAULT_BUSY_POLL,
        }
    }
}

/// What a transport tells a call besides its arguments: whether the client has given up on it
/// (`notifications/cancelled`, a closed HTTP request), and how to reach that client from a
/// tool's call context (ABI 3). Cheap to clone.
#[derive(Clone, Default)]
pub struct CallControl {
    /// Cancelled when the client no longer wants the answer.
    pub cancelled: CancellationToken,
    /// The client of the request, for progress, logs and requests from the tool.
    pub client: Option<Arc<dyn crate::context::ClientLink>>,
    /// The caller has nothing else to do until the answer (it is the only request in
    /// progress): the host may wait for the answer on the caller's thread, busy polling for at
    /// most its budget ([`HostOptions::busy_poll`]), instead of having another thread hand it
    /// over. An isolated host then reads the worker's answer itself.
    pub caller_idle: bool,
}

impl std::fmt::Debug for CallControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallControl")
            .field("cancelled", &self.cancelled.is_cancelled())
            .field("client", &self.client.is_some())
            .field("caller_idle", &self.caller_idle)
            .finish()
    }
}

impl CallControl {
    /// A control of a call nobody cancels (tests, Rust callers).
    pub fn new() -> CallControl {
        CallControl::default()
    }
}

/// An argument as marshalled for the ABI (owned by the runtime until the call returns).
#[derive(Debug, Clone, PartialEq)]
pub enum ArgValue {
    /// Not given: the stub uses the declared default.
    Absent,
    /// A Boolean.
    Bool(bool),
    /// A signed integer (also enumeration ordinals).
    Int(i64),
    /// An unsigned integer above `High(Int64)`'s range type.
    UInt(u64),
    /// A Double (also TDateTime).
    Double(f64),
    /// A string, UTF-8.
    String(String),
    /// A composite value (ABI 2), validated as a whole.
    Block(crate::block::Block),
    /// ABI 3: the call context (filled in by [`crate::call::call_tool`]).
    Context(crate::context::ContextArg),
}

/// A value the library returned, already copied out of library memory.
#[derive(Debug, Clone, PartialEq)]
pub enum ReturnValue {
    /// No value (procedures).
    Absent,
    /// A Boolean.
    Bool(bool),
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    UInt(u64),
    /// A Double.
    Double(f64),
    /// String bytes (expected UTF-8, not yet checked).
    String(Vec<u8>),
    /// A composite value (ABI 2), copied out of its library block.
    Block(crate::block::Block),
    /// A result block whose counts or kinds do not add up (a stub bug), and why.
    Malformed(String),
    /// A kind tag this runtime does not know.
    Unknown(i32),
}

/// What a tool export returned.
#[derive(Debug, Clone, PartialEq)]
pub struct CallReturn {
    /// The ABI status ([`delphi_mcp_manifest::abi::status`]).
    pub status: i32,
    /// The out value.
    pub value: ReturnValue,
}

/// How a call that missed its deadline ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutEnd {
    /// It waited in the queue until its deadline and was removed without running.
    NeverStarted,
    /// It runs on in process (native code cannot be stopped); its result will be dropped.
    StillRunning,
    /// Its worker process was killed and is being restarted.
    WorkerKilled,
}

/// Why a call returned no result from the library. The texts are those an MCP client reads
/// (with `isError`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// The library threads have stopped (only after a panic in the runtime).
    #[error("the library thread has stopped")]
    Stopped,
    /// No tool with that index.
    #[error("no tool with index {0}")]
    NoSuchTool(usize),
    /// The client cancelled the call; its answer is not sent.
    #[error("the call was cancelled by the client")]
    Cancelled,
    /// A string the library returned is longer than [`HostOptions::max_result_bytes`].
    #[error("Tool \"{tool}\" returned a string of {bytes} bytes, more than the limit of {limit} bytes (--max-result-bytes); it was not sent")]
    ResultTooLarge {
        /// The tool.
        tool: String,
        /// The string's length.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// The call passed its deadline ([`HostOptions::call_timeout`]).
    #[error("{}", timed_out(tool, *limit, *end))]
    TimedOut {
        /// The tool.
        tool: String,
        /// The deadline's length.
        limit: Duration,
        /// What happened to the call.
        end: TimeoutEnd,
    },
    /// In process, every library thread is held by a call past its deadline.
    #[error("library busy: tool `{tool}` has been running for {} s, past its deadline; in-process calls cannot be stopped (serve with --isolate to have such calls stopped)", seconds(*running_for))]
    Busy {
        /// The tool still running.
        tool: String,
        /// How long it has been running.
        running_for: Duration,
    },
    /// The worker process running the call ended.
    #[error("the library process {cause} during `{tool}`; {next}")]
    LibraryEnded {
        /// The tool.
        tool: String,
        /// `ended with exit code 3`, `was killed by signal 11 (SIGSEGV)`, ...
        cause: String,
        /// What happens next (`it is being restarted`, ...).
        next: String,
    },
    /// The worker processes keep dying: calls are refused for a while.
    #[error("the library is unavailable: {reason}")]
    Unavailable {
        /// Why, and until when.
        reason: String,
    },
}

fn timed_out(tool: &str, limit: Duration, end: TimeoutEnd) -> String {
    let limit = seconds(limit);
    match end {
        TimeoutEnd::NeverStarted => format!(
            "Tool \"{tool}\" did not finish within {limit} s (--call-timeout): it waited for the library, which was busy with other calls, and was not run"
        ),
        TimeoutEnd::StillRunning => format!(
            "Tool \"{tool}\" did not finish within {limit} s (--call-timeout). In-process calls cannot be stopped: it keeps running on the library thread, and new calls are refused while it does (serve with --isolate to have such calls stopped)"
        ),
        TimeoutEnd::WorkerKilled => format!(
            "Tool \"{tool}\" did not finish within {limit} s (--call-timeout): its library process was killed and is being restarted"
        ),
    }
}

/// A duration in seconds as people write it: `1`, `2.5`, `0.25`.
pub(crate) fn seconds(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if duration.subsec_millis() == 0 {
        format!("{}", duration.as_secs())
    } else if secs >= 10.0 {
        format!("{secs:.0}")
    } else {
        let text = format!("{secs:.2}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The library a host serves: its path and manifest, and the tools by name.
#[derive(Debug, Clone)]
pub struct HostLibrary {
    path: PathBuf,
    manifest: Manifest,
    /// Computed when first asked for (the status page, `mcp_get_version`): hashing the
    /// canonical manifest is a noticeable part of a start.
    manifest_sha256: std::sync::OnceLock<String>,
    /// Tool name → index in `manifest.tools`, so a call does not scan the list (its keys are
    /// the manifest's, so a fast hash is safe).
    tool_index: HashMap<String, usize, foldhash::fast::RandomState>,
    /// How many entries [`Manifest::callables`] numbers.
    callable_count: usize,
}

impl HostLibrary {
    /// The library at `path` (absolute) with `manifest`.
    pub fn new(path: PathBuf, manifest: Manifest) -> HostLibrary {
        let tool_index = manifest
            .tools
            .iter()
            .enumerate()
            .map(|(index, tool)| (tool.name.clone(), index))
            .collect();
        let callable_count = manifest.callables().count();
        HostLibrary {
            path,
            manifest,
            manifest_sha256: std::sync::OnceLock::new(),
            tool_index,
            callable_count,
        }
    }

    /// The absolute library path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The manifest in use.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// [`Manifest::canonical_sha256`] of the manifest in use.
    pub fn manifest_sha256(&self) -> &str {
        self.manifest_sha256
            .get_or_init(|| self.manifest.canonical_sha256())
    }

    /// The tool called `name` and its index in the manifest (the index calls take).
    pub fn tool(&self, name: &str) -> Option<(usize, &ToolEntry)> {
        let index = *self.tool_index.get(name)?;
        Some((index, &self.manifest.tools[index]))
    }

    /// How many stubs calls can reach: tools, resources, templates, prompts, completion
    /// providers ([`Manifest::callables`]).
    pub fn callable_count(&self) -> usize {
        self.callable_count
    }

    /// The name of tool `index` (for messages); beyond the tools, the export of the resource,
    /// prompt or completion provider of that index ([`Manifest::callables`]).
    pub fn tool_name(&self, index: usize) -> &str {
        match self.manifest.tools.get(index) {
            Some(tool) => tool.name.as_str(),
            None => self
                .manifest
                .callables()
                .nth(index)
                .map_or("?", |binding| binding.export.as_str()),
        }
    }
}

/// Boxed future of [`ToolHost::call`].
pub type HostCallFuture<'a> =
    Pin<Box<dyn Future<Output = Result<CallReturn, CallError>> + Send + 'a>>;

/// Where a library's tools run: in this process ([`LibraryHost`]) or in worker processes
/// ([`IsolatedHost`]).
pub trait ToolHost: Send + Sync + std::fmt::Debug {
    /// The library served.
    fn library(&self) -> &HostLibrary;

    /// Calls the manifest's tool `index` with marshalled `args`. Resolves with what the export
    /// returned, or why there is nothing: the deadline passed, the worker died, the client
    /// cancelled (`control`), the result is too large, ...
    fn call<'a>(
        &'a self,
        index: usize,
        args: Vec<ArgValue>,
        control: &'a CallControl,
    ) -> HostCallFuture<'a>;

    /// The host's state now (for the status page and `mcp_get_version`).
    fn state(&self) -> HostState;

    /// The longest a call waits for its answer, queueing included: past it the host answers
    /// with [`CallError::TimedOut`] ([`HostOptions::call_timeout`]; `None`: no limit).
    fn call_timeout(&self) -> Option<Duration>;

    /// Whether the future of [`Self::call`] may be polled on the thread that completes it
    /// (the stdio direct path then writes the answer from the library thread): true when the
    /// host wakes it holding no lock of its own.
    fn completes_unlocked(&self) -> bool {
        false
    }

    /// Gives the library thread work for when no call is queued ([`idle::IdleWork`]); false
    /// when this host has no such thread (several library threads, worker processes).
    #[cfg(target_os = "linux")]
    fn set_idle_work(&self, work: Arc<dyn idle::IdleWork>) -> bool {
        let _ = work;
        false
    }

    /// The absolute library path.
    fn path(&self) -> &Path {
        self.library().path()
    }

    /// The manifest in use.
    fn manifest(&self) -> &Manifest {
        self.library().manifest()
    }

    /// [`Manifest::canonical_sha256`] of the manifest in use.
    fn manifest_sha256(&self) -> &str {
        self.library().manifest_sha256()
    }

    /// The tool called `name` and its index in the manifest (the index [`Self::call`] takes).
    fn tool(&self, name: &str) -> Option<(usize, &ToolEntry)> {
        self.library().tool(name)
    }
}

/// Opens `path` in process, or isolated in worker processes when `isolation` is given.
pub fn open_host(
    path: &Path,
    options: &HostOptions,
    isolation: Option<&IsolationOptions>,
) -> Result<Arc<dyn ToolHost>, LoadError> {
    open_host_while(path, options, isolation, || ()).map(|(host, ())| host)
}

/// [`open_host`], running `meanwhile` on this thread while the library loads: in process,
/// once the manifest is read, while `mcp_init` may still run ([`LibraryHost::open_while`]);
/// isolated, before the workers start.
pub fn open_host_while<T>(
    path: &Path,
    options: &HostOptions,
    isolation: Option<&IsolationOptions>,
    meanwhile: impl FnOnce() -> T,
) -> Result<(Arc<dyn ToolHost>, T), LoadError> {
    Ok(match isolation {
        None => {
            let (host, during) = LibraryHost::open_while(path, options, meanwhile)?;
            (Arc::new(host), during)
        }
        Some(isolation) => {
            let during = meanwhile();
            (
                Arc::new(IsolatedHost::start(path, options, isolation)?),
                during,
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_written_briefly() {
        assert_eq!(seconds(Duration::from_secs(100)), "100");
        assert_eq!(seconds(Duration::from_millis(2500)), "2.5");
        assert_eq!(seconds(Duration::from_millis(250)), "0.25");
        assert_eq!(seconds(Duration::from_millis(12_400)), "12");
    }

    #[test]
    fn timeout_messages_say_what_happened() {
        let error = CallError::TimedOut {
            tool: "loop_forever".into(),
            limit: Duration::from_secs(1),
            end: TimeoutEnd::StillRunning,
        };
        let text = error.to_string();
        assert!(
            text.starts_with("Tool \"loop_forever\" did not finish within 1 s (--call-timeout)"),
            "{text}"
        );
        assert!(text.contains("cannot be stopped"), "{text}");
        let busy = CallError::Busy {
            tool: "loop_forever".into(),
            running_for: Duration::from_secs(3),
        };
        assert_eq!(busy.to_string(), "library busy: tool `loop_forever` has been running for 3 s, past its deadline; in-process calls cannot be stopped (serve with --isolate to have such calls stopped)");
    }
}
