//! The worker process: loads the library with the in-process host (one library thread), says
//! hello with its manifest, then runs the calls the server frames on stdin and frames their
//! outcomes on stdout.
//!
//! Standard output is taken for the framing before the library loads
//! ([`crate::stdio::take_protocol_stdout`]), so a Pascal `WriteLn` lands on stderr, which is the
//! server's. At the end of stdin (the server closed the pipe, or ended) the worker exits at
//! once, even while a call is running. On Linux, when no callable takes a call context, the
//! library thread reads the frames itself (`library_reads`, below).

use super::framing::{self, FromWorker, ToWorker, MAX_CALL_FRAME};
use super::relay::{FrameSender, WorkerContexts};
use crate::context::RequestOutcome;
use crate::host::busy_poll::{BusyPollRead, DEFAULT_BUSY_POLL};
use crate::host::{CallError, CallReturn, HostOptions, LibraryHost, ReturnValue};
use delphi_mcp_manifest::abi::status;
use std::ffi::OsString;
use std::io::{BufReader, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The worker's arguments, after the program and arguments of the [`super::WorkerCommand`]:
/// `LIBRARY [--manifest FILE] [--max-result-bytes N] [--busy-poll-us N]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerArgs {
    /// The library to load.
    pub library: PathBuf,
    /// `--manifest`: a manifest file to use or check against the embedded one.
    pub manifest_file: Option<PathBuf>,
    /// `--max-result-bytes`: strings longer than this are not sent.
    pub max_result_bytes: usize,
    /// `--busy-poll-us`: how long the worker keeps looking for its next call before it
    /// sleeps ([`crate::host::busy_poll`]).
    pub busy_poll: Duration,
}

impl WorkerArgs {
    /// The arguments as the worker parses them.
    pub fn to_args(&self) -> Vec<OsString> {
        let mut args = vec![self.library.clone().into_os_string()];
        if let Some(file) = &self.manifest_file {
            args.push("--manifest".into());
            args.push(file.clone().into_os_string());
        }
        args.push("--max-result-bytes".into());
        args.push(self.max_result_bytes.to_string().into());
        args.push("--busy-poll-us".into());
        args.push(self.busy_poll.as_micros().to_string().into());
        args
    }

    /// Parses what [`Self::to_args`] wrote.
    pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<WorkerArgs, String> {
        let mut args = args.into_iter();
        let mut library = None;
        let mut manifest_file = None;
        let mut max_result_bytes = crate::host::DEFAULT_MAX_RESULT_BYTES;
        let mut busy_poll = DEFAULT_BUSY_POLL;
        while let Some(arg) = args.next() {
            match arg.to_str() {
                Some("--manifest") => {
                    manifest_file =
                        Some(PathBuf::from(args.next().ok_or("--manifest needs a file")?));
                }
                Some("--max-result-bytes") => {
                    max_result_bytes =
                        number(args.next()).ok_or("--max-result-bytes needs a number of bytes")?;
                }
                Some("--busy-poll-us") => {
                    busy_poll = number(args.next())
                        .map(Duration::from_micros)
                        .ok_or("--busy-poll-us needs a number of microseconds")?;
                }
                _ if library.is_none() => library = Some(PathBuf::from(arg)),
                _ => return Err(format!("unexpected argument {arg:?}")),
            }
        }
        Ok(WorkerArgs {
            library: library.ok_or("the library to load is missing")?,
            manifest_file,
            max_result_bytes,
            busy_poll,
        })
    }
}

/// An option's value read as a number.
fn number<N: std::str::FromStr>(value: Option<OsString>) -> Option<N> {
    value?.to_str()?.parse().ok()
}

/// Runs a worker process with `args` ([`WorkerArgs`]); what `delphi-mcp worker` does. A
/// program serving a library isolated through its own [`super::WorkerCommand`] calls this
/// from that command.
pub fn run_worker(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args = match WorkerArgs::parse(args) {
        Ok(args) => args,
        Err(error) => {
            eprintln!("delphi-mcp worker: {error}");
            return ExitCode::from(2);
        }
    };
    // Before the library loads: from here on, anything written to fd 1 goes to stderr.
    let output = match crate::stdio::take_protocol_stdout() {
        Ok(output) => Arc::new(Mutex::new(output)),
        Err(error) => {
            eprintln!("delphi-mcp worker: cannot take stdout for the framing: {error}");
            return ExitCode::from(2);
        }
    };
    ignore_interrupts();
    let options = HostOptions {
        manifest_file: args.manifest_file.clone(),
        threads: 1,
        // The server keeps the deadlines: it kills this process.
        call_timeout: None,
        max_result_bytes: args.max_result_bytes,
        busy_poll: args.busy_poll,
    };
    let pid = std::process::id();
    let host = match LibraryHost::open(&args.library, &options) {
        Ok(host) => host,
        Err(error) => {
            let hello = FromWorker::Hello {
                pid,
                outcome: Err(error.to_string()),
            };
            send(&output, &hello);
            return ExitCode::from(1);
        }
    };
    let manifest = crate::host::ToolHost::manifest(&host).canonical_json();
    send(
        &output,
        &FromWorker::Hello {
            pid,
            outcome: Ok(manifest.into_bytes()),
        },
    );
    let host = Arc::new(host);
    let frames = Arc::new(Frames {
        host: Arc::downgrade(&host),
        contexts: Arc::new(WorkerContexts::default()),
        sender: {
            let output = Arc::clone(&output);
            Arc::new(move |message: &FromWorker| send(&output, message))
        },
        output,
    });
    #[cfg(target_os = "linux")]
    if library_reads::install(&host, &frames) {
        library_reads::exit_at_hangup();
    }
    let mut input = call_input(args.busy_poll);
    loop {
        frames.handle(read_frame(&mut input));
    }
}

/// The next frame from the server; the end of input ends the process.
fn read_frame(input: &mut impl Read) -> Vec<u8> {
    match framing::read_frame(input, MAX_CALL_FRAME) {
        Ok(Some(payload)) => payload,
        // The server closed the pipe or ended: nothing more to do, even mid-call.
        Ok(None) => exit_now(0),
        Err(error) => {
            eprintln!("delphi-mcp worker: reading from the server failed: {error}");
            exit_now(3)
        }
    }
}

/// What the server's frames act on.
struct Frames {
    /// The library (weak: the library thread may hold these frames as its idle work).
    host: std::sync::Weak<LibraryHost>,
    contexts: Arc<WorkerContexts>,
    sender: FrameSender,
    output: Arc<Mutex<crate::stdio::ProtocolOutput>>,
}

impl Frames {
    /// Acts on one frame: queues a call (or answers at once a call it cannot queue), or passes
    /// an answer or a cancellation to the call context it is for. Returns whether it was a call.
    fn handle(&self, payload: Vec<u8>) -> bool {
        let (id, tool, mut args) = match framing::decode_to_worker(&payload) {
            Ok(ToWorker::Call { id, tool, args }) => (id, tool, args),
            Ok(ToWorker::Answer { id, status, text }) => {
                let text = String::from_utf8_lossy(&text).into_owned();
                self.contexts.answer(id, RequestOutcome { status, text });
                return false;
            }
            Ok(ToWorker::Cancel { id }) => {
                self.contexts.cancel(id);
                return false;
            }
            Err(error) => {
                eprintln!("delphi-mcp worker: invalid frame from the server: {error}");
                exit_now(3)
            }
        };
        let Some(host) = self.host.upgrade() else {
            exit_now(0)
        };
        self.contexts.attach(id, &mut args, &self.sender);
        let output = Arc::clone(&self.output);
        let contexts = Arc::clone(&self.contexts);
        let submitted = host.submit(
            tool as usize,
            args,
            None,
            Box::new(move |outcome| {
                contexts.detach(id);
                send(&output, &outcome_frame(id, outcome))
            }),
        );
        if let Err(error) = submitted {
            send(&self.output, &outcome_frame(id, Err(error)));
        }
        true
    }
}

/// The library thread reads the server's frames itself (Linux, and only when no callable of
/// the library takes a call context).
///
/// Otherwise the main thread reads the frames and queues each call for the library thread: two
/// threads wait for every call, each busy polling ([`crate::host::busy_poll`]), and each call
/// crosses from one to the other. A call is read while another runs only to answer or cancel
/// the requests of a call context; without call contexts nothing need be read during a call
/// (the server kills the process to stop one). So the library thread reads while it has no
/// call to run ([`IdleWork`](crate::host::idle::IdleWork)), as in-process stdio does
/// (`stdio/library_input.rs`): a call is read, run and answered on one thread.
#[cfg(target_os = "linux")]
mod library_reads {
    use super::{read_frame, Frames};
    use crate::host::busy_poll::{poll, BusyPoll};
    use crate::host::idle::{IdleWork, JobSignal};
    use crate::host::{LibraryHost, ToolHost};
    use std::io::BufReader;
    use std::os::fd::{AsRawFd, RawFd};
    use std::sync::{Arc, Mutex};

    /// The input read by the library thread.
    struct LibraryReads {
        input: Mutex<BufReader<std::fs::File>>,
        fd: RawFd,
        frames: Arc<Frames>,
    }

    impl IdleWork for LibraryReads {
        fn idle(&self, signal: &JobSignal, busy_poll: &mut BusyPoll) {
            let Ok(mut input) = self.input.lock() else {
                return;
            };
            loop {
                // A frame begun in the buffer is read on; otherwise wait for input, or for a
                // call queued by another thread (none in a worker, but the host may raise it).
                if input.buffer().is_empty() {
                    let [readable, raised] = busy_poll.wait_readable(&[self.fd, signal.fd()]);
                    if raised {
                        signal.drain();
                        return;
                    }
                    if !readable {
                        continue;
                    }
                }
                if self.frames.handle(read_frame(&mut *input)) {
                    return;
                }
            }
        }
    }

    /// Hands reading to the library thread of `host` when no callable takes a call context;
    /// whether it did.
    pub(super) fn install(host: &Arc<LibraryHost>, frames: &Arc<Frames>) -> bool {
        if host
            .manifest()
            .callables()
            .any(|callable| callable.needs_context())
        {
            return false;
        }
        let Ok(own) = std::os::fd::AsFd::as_fd(&std::io::stdin()).try_clone_to_owned() else {
            return false;
        };
        let file = std::fs::File::from(own);
        let work = LibraryReads {
            fd: file.as_raw_fd(),
            input: Mutex::new(BufReader::with_capacity(64 * 1024, file)),
            frames: Arc::clone(frames),
        };
        host.set_idle_work(Arc::new(work))
    }

    /// Waits until the server closes the pipe, then ends the process, even while a call runs
    /// (the library thread notices the end of input only between calls).
    pub(super) fn exit_at_hangup() -> ! {
        // No events asked: poll(2) reports only the hang-up, never the frames waiting.
        let mut polled = [libc::pollfd {
            fd: std::io::stdin().as_raw_fd(),
            events: 0,
            revents: 0,
        }];
        loop {
            if poll(&mut polled, -1) > 0 {
                super::exit_now(0);
            }
        }
    }
}

/// Where the server's frames come from: stdin, busy polled ([`crate::host::busy_poll`]), through
/// a descriptor of its own (std's buffered stdin could hold bytes a poll of the pipe misses).
fn call_input(busy_poll: Duration) -> Box<dyn Read> {
    #[cfg(unix)]
    let own = std::os::fd::AsFd::as_fd(&std::io::stdin()).try_clone_to_owned();
    #[cfg(windows)]
    let own = std::os::windows::io::AsHandle::as_handle(&std::io::stdin()).try_clone_to_owned();
    match own {
        Ok(own) => Box::new(BufReader::with_capacity(
            64 * 1024,
            BusyPollRead::new(std::fs::File::from(own), busy_poll),
        )),
        Err(_) => Box::new(std::io::stdin().lock()),
    }
}

/// The frame answering call `id`.
fn outcome_frame(id: u64, outcome: Result<CallReturn, CallError>) -> FromWorker {
    match outcome {
        Ok(returned) => FromWorker::Returned { id, returned },
        Err(CallError::ResultTooLarge { bytes, .. }) => FromWorker::TooLarge { id, bytes },
        // A tool index the library does not have: the server and this worker disagree.
        Err(error) => FromWorker::Returned {
            id,
            returned: CallReturn {
                status: status::BAD_CALL,
                value: ReturnValue::String(format!("bad call: {error}").into_bytes()),
            },
        },
    }
}

/// Writes a frame; a server that is gone ends the worker.
fn send(output: &Mutex<crate::stdio::ProtocolOutput>, message: &FromWorker) {
    let frame = match framing::encode_from_worker(message) {
        Ok(frame) => frame,
        Err(error) => {
            eprintln!("delphi-mcp worker: cannot encode an answer: {error}");
            exit_now(3)
        }
    };
    let mut output = output.lock().unwrap_or_else(|e| e.into_inner());
    if output
        .write_all(&frame)
        .and_then(|()| output.flush())
        .is_err()
    {
        exit_now(0);
    }
}

/// Ends the process without running exit handlers: the library thread may be in the middle of
/// a call, and the library's finalization must not run under it.
fn exit_now(code: i32) -> ! {
    #[cfg(unix)]
    // SAFETY: `_exit` ends the process; nothing runs after it.
    unsafe {
        libc::_exit(code)
    }
    #[cfg(not(unix))]
    std::process::exit(code)
}

/// Ctrl-C in a terminal signals the whole process group: the server shuts down and closes the
/// pipes, which ends the worker; the worker itself ignores the signal.
fn ignore_interrupts() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to "ignore" has no preconditions.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_round_trip() {
        let args = WorkerArgs {
            library: PathBuf::from("/lib/--manifest.so"),
            manifest_file: Some(PathBuf::from("tools.json")),
            max_result_bytes: 1234,
            busy_poll: Duration::from_micros(77),
        };
        assert_eq!(WorkerArgs::parse(args.to_args()), Ok(args.clone()));
        let plain = WorkerArgs {
            manifest_file: None,
            ..args
        };
        assert_eq!(WorkerArgs::parse(plain.to_args()), Ok(plain));
        assert!(WorkerArgs::parse(Vec::<OsString>::new()).is_err());
        assert!(WorkerArgs::parse(["a".into(), "b".into()]).is_err());
        assert!(WorkerArgs::parse(["a".into(), "--max-result-bytes".into(), "x".into()]).is_err());
        assert!(WorkerArgs::parse(["a".into(), "--busy-poll-us".into(), "-1".into()]).is_err());
        let defaults = WorkerArgs::parse(["a".into()]).expect("only the library");
        assert_eq!(defaults.busy_poll, DEFAULT_BUSY_POLL);
    }
}
