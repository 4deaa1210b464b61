//! Fault containment over stdio: `delphi-mcp serve` of the faults example (`examples/faults`)
//! in process and isolated (`--isolate`).
//!
//! - every tool of the example with its expected outcome in each mode, and the server answering
//!   the next request (a table);
//! - restarts after `Halt` and after a deadline, per-worker processes and globals
//!   (`--workers 2`), crash-loop detection (repeated deaths, and the ABI fixture's `INIT_ONCE`
//!   variant whose `mcp_init` ends every process after the first), cancellation of a running
//!   isolated call with `--on-cancel restart`;
//! - `--call-timeout` in process: the answer at the deadline, new calls refused as busy while
//!   the call runs on, `ping`/`tools/list` answered, end of input still ending the server;
//! - `--max-result-bytes`, and the server's memory with a 100 MB result.
//!
//! Over HTTP: `tests/http/faults.rs`.

use crate::support::abi_lib::fixture_library;
use crate::support::faults::{assert_error, library as faults, text, value};
use crate::support::server::initialize;
use crate::support::{repo, server_exe, HANG_GUARD};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;

const SIGABRT: i32 = 6;
const SIGSEGV: i32 = 11;

/// A `delphi-mcp serve` over stdio, initialized, with its stderr collected line by line.
struct Serve {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: mpsc::Receiver<Value>,
    log: mpsc::Receiver<String>,
    /// Log lines read so far.
    logged: Vec<String>,
    next_id: i64,
    /// Ids whose answers are skipped (cancelled requests).
    ignored: HashSet<i64>,
}

impl Serve {
    fn start(library: &Path, args: &[&str]) -> Serve {
        Serve::start_with_env(library, args, &[])
    }

    fn start_with_env(library: &Path, args: &[&str], env: &[(&str, &Path)]) -> Serve {
        let mut child = Command::new(server_exe())
            .arg("serve")
            .arg(library)
            .args(args)
            .envs(env.iter().map(|(name, value)| (*name, *value)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start delphi-mcp serve");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let stderr = child.stderr.take().expect("stderr");
        let (tx, log) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut serve = Serve {
            child,
            stdin,
            answers,
            log,
            logged: Vec::new(),
            next_id: 1,
            ignored: HashSet::new(),
        };
        serve.send(&initialize(json!(0), "2025-06-18"));
        let answer = serve.answer().expect("an answer to initialize");
        assert_eq!(answer["id"], 0, "{answer}");
        serve.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        serve
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        let mut line = message.to_string();
        line.push('\n');
        stdin
            .write_all(line.as_bytes())
            .expect("write to the server");
        stdin.flush().expect("flush");
    }

    /// The next answer, `None` when stdout ended.
    fn answer(&mut self) -> Option<Value> {
        match self.answers.recv_timeout(HANG_GUARD) {
            Ok(answer) => Some(answer),
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
            Err(mpsc::RecvTimeoutError::Timeout) => panic!("the server answered nothing (hung)"),
        }
    }

    /// Sends a request (without waiting); returns its id.
    fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The answer to request `id` (answers to ignored ids are skipped); `None` when stdout
    /// ended first.
    fn answer_to(&mut self, id: i64) -> Option<Value> {
        loop {
            let answer = self.answer()?;
            if answer["id"] == id {
                return Some(answer);
            }
            let other = answer["id"].as_i64().unwrap_or(-1);
            assert!(
                self.ignored.contains(&other),
                "answer to another request: {answer}"
            );
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.answer_to(id)
            .unwrap_or_else(|| panic!("the server ended instead of answering {method}"))
    }

    /// Calls `tool`; returns the `result` object (`content`, `structuredContent`, `isError`).
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(
            answer.get("result").is_some(),
            "not a tool result: {answer}"
        );
        answer["result"].clone()
    }

    /// Calls a tool that ends the server process: no answer, the exit status.
    fn ending_call(mut self, tool: &str, arguments: Value) -> ExitStatus {
        let id = self.send_request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(
            self.answer_to(id).is_none(),
            "the server answered although the tool ends the process"
        );
        self.wait()
    }

    /// `mcp_get_version`'s result.
    fn version(&mut self) -> Value {
        let result = self.call("mcp_get_version", json!({}));
        result["structuredContent"]["result"].clone()
    }

    /// Waits (reading the log as it comes) until a log line contains `needle`.
    fn wait_for_log(&mut self, needle: &str) -> String {
        if let Some(line) = self.logged.iter().find(|line| line.contains(needle)) {
            return line.clone();
        }
        loop {
            let line = self
                .log
                .recv_timeout(HANG_GUARD)
                .unwrap_or_else(|_| panic!("no log line with {needle:?}; log: {:#?}", self.logged));
            self.logged.push(line.clone());
            if line.contains(needle) {
                return line;
            }
        }
    }

    fn wait(mut self) -> ExitStatus {
        drop(self.stdin.take());
        let pid = self.pid();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(self.child.wait());
        });
        match rx.recv_timeout(HANG_GUARD) {
            Ok(status) => status.expect("wait"),
            Err(_) => {
                // The waiting thread owns the child: end it by pid, so it does not outlive the test.
                let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
                panic!("the server did not exit");
            }
        }
    }

    /// Closes stdin; the server must exit with status 0.
    fn finish(self) {
        let status = self.wait();
        assert!(status.success(), "exit status {status}");
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The `process_id` of the worker a call goes to now.
    fn library_pid(&mut self) -> u64 {
        value(&self.call("process_id", json!({})))
            .as_u64()
            .expect("pid")
    }

    /// Runs `during` while a `sleep_for` call keeps the worker used most recently busy (a
    /// call then goes to another idle worker); returns what it returned once the sleep is
    /// answered.
    fn while_one_worker_sleeps<T>(&mut self, during: impl FnOnce(&mut Self) -> T) -> T {
        let id = self.send_request(
            "tools/call",
            json!({"name": "sleep_for", "arguments": {"Milliseconds": 500}}),
        );
        // The state on the host, not the clock: the sleep has begun.
        while self.version()["host"]["running"][0]["tool"] != "sleep_for" {}
        let result = during(self);
        let slept = self.answer_to(id).expect("the sleep's answer");
        assert_eq!(value(&slept["result"]), 500, "{slept}");
        result
    }

    /// The `process_id`s of two workers: the one used most recently, and another one while
    /// the first is busy.
    fn two_worker_pids(&mut self) -> HashSet<u64> {
        let first = self.library_pid();
        let second = self.while_one_worker_sleeps(Self::library_pid);
        HashSet::from([first, second])
    }
}

/// The pids of the workers in a host state.
fn worker_pids(host: &Value) -> HashSet<u64> {
    host["workers"]
        .as_array()
        .expect("workers")
        .iter()
        .filter_map(|worker| worker["pid"].as_u64())
        .collect()
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How a process ended.
#[derive(Debug, Clone, Copy)]
enum Ending {
    Code(i32),
    Signal(i32),
}

fn assert_ending(status: ExitStatus, ending: Ending) {
    use std::os::unix::process::ExitStatusExt;
    match ending {
        Ending::Code(code) => assert_eq!(status.code(), Some(code), "{status}"),
        Ending::Signal(signal) => assert_eq!(status.signal(), Some(signal), "{status}"),
    }
}

/// A tool's expected outcome in one mode.
#[derive(Debug, Clone)]
enum Expect {
    /// `structuredContent.result` equals this.
    Value(Value),
    /// A positive integer (counters).
    Integer,
    /// The id of the process running the library: the server's in process, another isolated.
    LibraryPid,
    /// A tool error whose text contains every part.
    Error(&'static [&'static str]),
    /// The server process ends (in process only).
    Ends(Ending),
}

/// One row: a tool, its arguments, its outcome in process and isolated.
struct Case {
    tool: &'static str,
    arguments: Value,
    in_process: Expect,
    isolated: Expect,
    /// A line the server's stderr must show afterwards.
    log: Option<&'static str>,
}

fn cases() -> Vec<Case> {
    use Expect::*;
    let case = |tool, arguments, in_process, isolated| Case {
        tool,
        arguments,
        in_process,
        isolated,
        log: None,
    };
    let mut cases = vec![
        case(
            "raise_error",
            json!({"Message": "boom"}),
            Error(&["Tool \"raise_error\" raised Exception: boom"]),
            Error(&["Tool \"raise_error\" raised Exception: boom"]),
        ),
        case(
            "nil_dereference",
            json!({}),
            Error(&["raised EAccessViolation"]),
            Error(&["raised EAccessViolation"]),
        ),
        case(
            "divide_by_zero",
            json!({"Value": 7}),
            Error(&["raised EDivByZero"]),
            Error(&["raised EDivByZero"]),
        ),
        case(
            "divide_floats",
            json!({"A": 1.0, "B": 0.0}),
            Error(&["raised EZeroDivide"]),
            Error(&["raised EZeroDivide"]),
        ),
        case(
            "divide_floats",
            json!({"A": 1.0, "B": 4.0}),
            Value(json!(0.25)),
            Value(json!(0.25)),
        ),
        case(
            "overflow_stack",
            json!({"Depth": 0}),
            Error(&["Tool \"overflow_stack\" raised"]),
            Error(&["Tool \"overflow_stack\" raised"]),
        ),
        case(
            "sleep_for",
            json!({"Milliseconds": 20}),
            Value(json!(20)),
            Value(json!(20)),
        ),
        case(
            "allocate_megabytes",
            json!({"Count": 64}),
            Value(json!(64 * 1024 * 1024)),
            Value(json!(64 * 1024 * 1024)),
        ),
        case(
            "allocate_megabytes",
            json!({"Count": 100_000_000_000i64}),
            Error(&["raised EOutOfMemory"]),
            Error(&["raised EOutOfMemory"]),
        ),
        case(
            "huge_string",
            json!({"Megabytes": 1}),
            Value(json!("x".repeat(1 << 20))),
            Value(json!("x".repeat(1 << 20))),
        ),
        case(
            "huge_string",
            json!({"Megabytes": 9}),
            Error(&["Tool \"huge_string\" returned a string of 9437184 bytes, more than the limit of 8388608 bytes (--max-result-bytes)"]),
            Error(&["Tool \"huge_string\" returned a string of 9437184 bytes, more than the limit of 8388608 bytes (--max-result-bytes)"]),
        ),
        case("count_calls", json!({}), Integer, Integer),
        case("process_id", json!({}), LibraryPid, LibraryPid),
        Case {
            log: Some("hello from Pascal"),
            ..case(
                "write_to_stdout",
                json!({"Text": "hello from Pascal"}),
                Value(json!(17)),
                Value(json!(17)),
            )
        },
        Case {
            log: Some("(SIGSEGV) during `fault_in_thread`"),
            ..case(
                "fault_in_thread",
                json!({}),
                Ends(Ending::Signal(SIGSEGV)),
                Error(&["the library process was killed by signal 11 (SIGSEGV) during `fault_in_thread`; it is"]),
            )
        },
        Case {
            log: Some("exit code 3 during `halt_process`"),
            ..case(
                "halt_process",
                json!({"Code": 3}),
                Ends(Ending::Code(3)),
                Error(&["the library process ended with exit code 3 during `halt_process`; it is"]),
            )
        },
        Case {
            log: Some("(SIGABRT) during `abort_process`"),
            ..case(
                "abort_process",
                json!({}),
                Ends(Ending::Signal(SIGABRT)),
                Error(&["the library process was killed by signal 6 (SIGABRT) during `abort_process`; it is"]),
            )
        },
    ];
    // Last: in process it holds the library thread for good.
    cases.push(case(
        "loop_forever",
        json!({}),
        Error(&[
            "Tool \"loop_forever\" did not finish within 3 s (--call-timeout)",
            "In-process calls cannot be stopped",
        ]),
        Error(&["Tool \"loop_forever\" did not finish within 3 s (--call-timeout): its library process was killed and is being restarted"]),
    ));
    cases
}

/// The tools `tools/list` shows for the faults example: its manifest's and `mcp_get_version`.
fn listed_tools() -> usize {
    let manifest: Value = serde_json::from_slice(
        &std::fs::read(repo().join("examples/faults/generated/tools.json")).expect("manifest"),
    )
    .expect("manifest JSON");
    manifest["tools"].as_array().map_or(0, Vec::len) + 1
}

/// The server after a case: still answering, and (unless the library thread is held) calling.
fn assert_serving(serve: &mut Serve, after: &str, library_free: bool) {
    let pong = serve.request("ping", json!({}));
    assert_eq!(pong["result"], json!({}), "ping after {after}: {pong}");
    let result = serve.call("sleep_for", json!({"Milliseconds": 1}));
    if library_free {
        assert_eq!(value(&result), json!(1), "a call after {after}");
    } else {
        assert_error(
            &result,
            &["library busy: tool `loop_forever` has been running for"],
        );
    }
}

fn check(serve: &mut Serve, case: &Case, expect: &Expect, isolated: bool) {
    let label = format!(
        "{} {} ({})",
        case.tool,
        case.arguments,
        if isolated { "isolated" } else { "in process" }
    );
    let result = serve.call(case.tool, case.arguments.clone());
    match expect {
        Expect::Value(expected) => assert_eq!(&value(&result), expected, "{label}"),
        Expect::Integer => assert!(
            value(&result).as_i64().is_some_and(|n| n > 0),
            "{label}: {result}"
        ),
        Expect::LibraryPid => {
            let pid = value(&result).as_u64().expect("a process id");
            assert_eq!(
                pid == u64::from(serve.pid()),
                !isolated,
                "{label}: library pid {pid}, server {}",
                serve.pid()
            );
        }
        Expect::Error(parts) => assert_error(&result, parts),
        Expect::Ends(_) => unreachable!("handled by the caller"),
    }
    if let Some(needle) = case.log {
        serve.wait_for_log(needle);
    }
}

#[test]
fn every_fault_in_process_has_its_outcome() {
    let library = faults();
    let args = ["--call-timeout", "3"];
    let mut serve = Serve::start(&library, &args);
    for case in cases() {
        match case.in_process {
            Expect::Ends(ending) => {
                // The process ends: a server of its own.
                let single = Serve::start(&library, &args);
                assert_ending(
                    single.ending_call(case.tool, case.arguments.clone()),
                    ending,
                );
            }
            ref expect => {
                check(&mut serve, &case, expect, false);
                assert_serving(&mut serve, case.tool, case.tool != "loop_forever");
            }
        }
    }
    // A call holds the library thread past its deadline: end of input still ends the server.
    serve.finish();
}

#[test]
fn every_fault_isolated_has_its_outcome_and_the_server_goes_on() {
    let library = faults();
    let mut serve = Serve::start(&library, &["--isolate", "--call-timeout", "3"]);
    for case in cases() {
        check(&mut serve, &case, &case.isolated, true);
        assert_serving(&mut serve, case.tool, true);
    }
    let host = serve.version()["host"].clone();
    assert_eq!(host["isolation"], "isolated", "{host}");
    // fault_in_thread, halt_process, abort_process and the deadline of loop_forever.
    assert_eq!(host["restarts"], 4, "{host}");
    assert_eq!(host["lastExit"]["planned"], true, "{host}");
    assert_eq!(host["lastExit"]["tool"], "loop_forever", "{host}");
    serve.finish();
}

#[test]
fn an_isolated_worker_is_replaced_after_halt_and_after_its_deadline() {
    let library = faults();
    let mut serve = Serve::start(&library, &["--isolate", "--call-timeout", "1"]);
    let first = value(&serve.call("process_id", json!({})));
    assert_eq!(value(&serve.call("count_calls", json!({}))), 1);
    assert_eq!(value(&serve.call("count_calls", json!({}))), 2);
    assert_error(
        &serve.call("halt_process", json!({"Code": 3})),
        &["the library process ended with exit code 3 during `halt_process`; it is being restarted"],
    );
    serve.wait_for_log("ERROR");
    let second = value(&serve.call("process_id", json!({})));
    assert_ne!(first, second, "a new worker process");
    assert_eq!(
        value(&serve.call("count_calls", json!({}))),
        1,
        "its globals are new"
    );
    let version = serve.version();
    assert_eq!(version["host"]["restarts"], 1, "{version}");
    assert_eq!(
        version["host"]["lastExit"]["cause"], "ended with exit code 3",
        "{version}"
    );
    assert_eq!(
        version["host"]["lastExit"]["tool"], "halt_process",
        "{version}"
    );
    assert_eq!(version["host"]["workers"][0]["pid"], second, "{version}");

    assert_error(
        &serve.call("loop_forever", json!({})),
        &["Tool \"loop_forever\" did not finish within 1 s (--call-timeout): its library process was killed and is being restarted"],
    );
    let third = value(&serve.call("process_id", json!({})));
    assert_ne!(third, second, "the worker past its deadline was replaced");
    assert_eq!(value(&serve.call("count_calls", json!({}))), 1);
    let version = serve.version();
    assert_eq!(version["host"]["restarts"], 2, "{version}");
    assert_eq!(version["host"]["status"], "idle", "{version}");
    assert_eq!(version["host"]["lastExit"]["planned"], true, "{version}");
    serve.finish();
}

#[test]
fn each_worker_has_its_own_process_and_globals() {
    let library = faults();
    let mut serve = Serve::start(&library, &["--isolate", "--workers", "2"]);
    let version = serve.version();
    let workers: HashSet<u64> = worker_pids(&version["host"]);
    assert_eq!(workers.len(), 2, "{version}");
    assert_eq!(version["threads"], 2, "{version}");
    // Calls go to the idle worker used most recently: one after the other, to the same one.
    let first = serve.library_pid();
    assert_eq!(serve.library_pid(), first, "the worker used most recently");
    let pids = serve.two_worker_pids();
    assert_eq!(pids, workers, "both workers served a call");
    assert!(!pids.contains(&u64::from(serve.pid())));
    let counts: Vec<Value> = (0..3)
        .map(|_| value(&serve.call("count_calls", json!({}))))
        .collect();
    assert_eq!(counts, [json!(1), json!(2), json!(3)], "one worker counts");
    let other = serve.while_one_worker_sleeps(|serve| serve.call("count_calls", json!({})));
    assert_eq!(value(&other), 1, "the other worker has its own counter");
    serve.finish();
}

#[test]
fn deaths_in_a_row_make_the_library_unavailable() {
    let library = faults();
    let mut serve = Serve::start(&library, &["--isolate"]);
    // More than 5 deaths within 60 s: the 6th makes the library unavailable.
    for death in 1..=5 {
        let result = serve.call("halt_process", json!({"Code": 3}));
        assert_error(
            &result,
            &["ended with exit code 3 during `halt_process`; it is"],
        );
        assert!(
            !text(&result).contains("unavailable"),
            "death {death}: {}",
            text(&result)
        );
    }
    let sixth = serve.call("halt_process", json!({"Code": 3}));
    assert_error(
        &sixth,
        &[
            "the library process ended with exit code 3 during `halt_process`; the library is now unavailable: its process ended 6 times within 60 s (last: ended with exit code 3 during `halt_process`); calls are refused until ",
            "(in 30 s), when a new library process is started",
        ],
    );
    assert_error(
        &serve.call("count_calls", json!({})),
        &[
            "the library is unavailable: its process ended 6 times within 60 s",
            "calls are refused until",
        ],
    );
    let host = serve.version()["host"].clone();
    assert_eq!(host["status"], "unavailable", "{host}");
    assert!(
        host["unavailableUntil"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z')),
        "{host}"
    );
    assert_eq!(
        serve.request("tools/list", json!({}))["result"]["tools"]
            .as_array()
            .map(Vec::len),
        Some(listed_tools())
    );
    serve.finish();
}

#[test]
fn workers_dying_in_mcp_init_make_the_library_unavailable() {
    let library = fixture_library(&["INIT_ONCE"]);
    let dir = tempfile::tempdir().expect("tempdir");
    let marker = dir.path().join("initialized");
    let env = [("ABILIB_INIT_MARKER", marker.as_path())];
    let mut serve = Serve::start_with_env(&library, &["--isolate"], &env);
    assert_eq!(value(&serve.call("add", json!({"A": 2, "B": 3}))), 5);
    // The variant's `fail` ends the process; every new process then ends in mcp_init.
    assert_error(
        &serve.call("fail", json!({"Message": "x"})),
        &["the library process ended with exit code 9 during `fail`; it is being restarted"],
    );
    // Queued until the restarts give up: three processes in a row ended before mcp_init.
    assert_error(
        &serve.call("add", json!({"A": 1, "B": 1})),
        &[
            "the library is unavailable: 3 library processes in a row ended before mcp_init finished (last: ended with exit code 7 before mcp_init finished)",
            "calls are refused until",
        ],
    );
    let host = serve.version()["host"].clone();
    assert_eq!(host["status"], "unavailable", "{host}");
    assert_eq!(host["workers"][0]["status"], "down", "{host}");
    serve.finish();

    // A first process that cannot initialise: the server does not start.
    let output = Command::new(server_exe())
        .arg("serve")
        .arg(&library)
        .arg("--isolate")
        .env("ABILIB_INIT_MARKER", &marker)
        .stdin(Stdio::null())
        .output()
        .expect("run serve");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(output.stdout.is_empty());
    assert!(
        stderr.contains("in a worker process: the library process ended with exit code 7 before mcp_init finished"),
        "{stderr}"
    );
}

#[test]
fn a_cancelled_isolated_call_restarts_its_worker_with_the_restart_policy() {
    let library = faults();
    // Two workers: the stdio transport then reads requests while calls run.
    let mut serve = Serve::start(
        &library,
        &["--isolate", "--workers", "2", "--on-cancel", "restart"],
    );
    let before: HashSet<u64> = serve.two_worker_pids();
    let id = serve.send_request(
        "tools/call",
        json!({"name": "loop_forever", "arguments": {}}),
    );
    serve.ignored.insert(id);
    // Wait until the host runs it.
    loop {
        let host = serve.version()["host"].clone();
        if host["running"][0]["tool"] == "loop_forever" {
            break;
        }
    }
    serve.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "test"}}));
    serve.wait_for_log("because the client cancelled `loop_forever`");
    let host = loop {
        let host = serve.version()["host"].clone();
        if host["workers"]
            .as_array()
            .is_some_and(|w| w.iter().all(|w| w["status"] == "idle"))
        {
            break host;
        }
    };
    assert_eq!(host["restarts"], 1, "{host}");
    assert_eq!(host["onCancel"], "restart", "{host}");
    assert_eq!(host["lastExit"]["planned"], true, "{host}");
    let after: HashSet<u64> = worker_pids(&host);
    assert_eq!(
        after.intersection(&before).count(),
        1,
        "one worker replaced: {before:?} -> {after:?}"
    );
    let pids: HashSet<u64> = serve.two_worker_pids();
    assert_eq!(pids, after);
    // Not `finish`: whether end of input waits for the cancelled request is the stdio
    // transport's business, not the host's.
    drop(serve);
}

#[test]
fn a_call_past_its_deadline_in_process_leaves_the_server_answering() {
    let library = faults();
    let mut serve = Serve::start(&library, &["--call-timeout", "1"]);
    assert_error(
        &serve.call("loop_forever", json!({})),
        &["Tool \"loop_forever\" did not finish within 1 s (--call-timeout). In-process calls cannot be stopped: it keeps running on the library thread, and new calls are refused while it does (serve with --isolate to have such calls stopped)"],
    );
    assert_error(
        &serve.call("count_calls", json!({})),
        &["library busy: tool `loop_forever` has been running for", "s, past its deadline; in-process calls cannot be stopped (serve with --isolate to have such calls stopped)"],
    );
    assert_eq!(serve.request("ping", json!({}))["result"], json!({}));
    assert_eq!(
        serve.request("tools/list", json!({}))["result"]["tools"]
            .as_array()
            .map(Vec::len),
        Some(listed_tools())
    );
    let host = serve.version()["host"].clone();
    assert_eq!(host["isolation"], "inProcess", "{host}");
    assert_eq!(host["status"], "stuck", "{host}");
    assert_eq!(host["running"][0]["tool"], "loop_forever", "{host}");
    assert_eq!(host["running"][0]["pastDeadline"], true, "{host}");
    assert_eq!(host["callTimeoutSeconds"], 1.0, "{host}");
    serve.finish();
}

#[test]
fn max_result_bytes_is_enforced_and_the_server_stays_small() {
    let library = faults();
    let mut serve = Serve::start(&library, &["--max-result-bytes", "1000"]);
    assert_eq!(
        value(&serve.call("huge_string", json!({"Megabytes": 0}))),
        ""
    );
    assert_error(
        &serve.call("huge_string", json!({"Megabytes": 1})),
        &["Tool \"huge_string\" returned a string of 1048576 bytes, more than the limit of 1000 bytes (--max-result-bytes); it was not sent"],
    );
    assert_error(
        &serve.call("raise_error", json!({"Message": "y".repeat(2000)})),
        &["returned a string of 2011 bytes, more than the limit of 1000 bytes"],
    );
    serve.finish();

    // Isolated, a 100 MB result never reaches the server process.
    let mut serve = Serve::start(&library, &["--isolate"]);
    let before = rss_kib(serve.pid());
    assert_error(
        &serve.call("huge_string", json!({"Megabytes": 100})),
        &["returned a string of 104857600 bytes, more than the limit of 8388608 bytes"],
    );
    let after = rss_kib(serve.pid());
    assert!(
        after < before + 32 * 1024,
        "server RSS {before} KiB -> {after} KiB"
    );
    assert_eq!(
        value(&serve.call("sleep_for", json!({"Milliseconds": 1}))),
        1
    );
    serve.finish();
}

/// Resident memory of a process in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("read /proc");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse().ok())
        .expect("VmRSS")
}
