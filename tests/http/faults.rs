//! Fault containment over HTTP (`examples/faults`): tools that end the process or never return,
//! in process and isolated (`--isolate`); the library host on the status page; a queued call
//! whose deadline passes never runs; an idle caller reading its isolated call's answer itself.
//! The stdio side, with every tool of the example, is `tests/stdio/faults.rs`.

use crate::support::faults::{assert_error, library as faults, value};
use crate::support::http::{connect, request_head, tools_call_2026, HttpServer};
use serde_json::Value;
use std::io::{Read, Write};

/// Where to POST (shareable between threads, unlike the server).
struct Endpoint {
    authority: String,
    bearer: String,
}

fn endpoint(server: &HttpServer) -> Endpoint {
    Endpoint {
        authority: server.authority.clone(),
        bearer: server.bearer(),
    }
}

/// A stateless (2026-07-28) `tools/call` POST whose answer may never come: the body, or
/// `None` when the server closed the connection without answering.
fn post_call(server: &Endpoint, id: i64, tool: &str, arguments: &str) -> Option<Value> {
    let body = tools_call_2026(id, tool, arguments);
    let bearer = server.bearer.clone();
    let headers = [
        ("Authorization", bearer.as_str()),
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
    ];
    let mut stream = connect(&server.authority);
    stream
        .write_all(request_head(&server.authority, "POST", "/mcp", &headers, body.len()).as_bytes())
        .expect("send head");
    stream.write_all(body.as_bytes()).expect("send body");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    if raw.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(&raw);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let body = text.split("\r\n\r\n").nth(1).unwrap_or_default();
    let json = body
        .lines()
        .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
        .find(|line| line.starts_with('{'))
        .unwrap_or_else(|| panic!("no JSON in {text}"));
    let answer: Value = serde_json::from_str(json).expect("JSON body");
    assert_eq!(answer["id"], id, "{answer}");
    Some(answer["result"].clone())
}

fn status_host(server: &HttpServer) -> Value {
    let response = server.request("GET", "/status.json", &[], b"");
    assert_eq!(response.status, 200);
    response.json()["host"].clone()
}

#[test]
fn over_http_ending_and_hanging_tools_isolated() {
    let library = faults();
    let server = HttpServer::start(&library, &["--no-auth", "--isolate", "--call-timeout", "1"]);
    let halted =
        post_call(&endpoint(&server), 1, "halt_process", r#"{"Code":3}"#).expect("an answer");
    assert_error(&halted, &["the library process ended with exit code 3 during `halt_process`; it is being restarted"]);
    let faulted = post_call(&endpoint(&server), 2, "fault_in_thread", "{}").expect("an answer");
    assert_error(
        &faulted,
        &["was killed by signal 11 (SIGSEGV) during `fault_in_thread`"],
    );
    let looped = post_call(&endpoint(&server), 3, "loop_forever", "{}").expect("an answer");
    assert_error(&looped, &["did not finish within 1 s (--call-timeout): its library process was killed and is being restarted"]);
    let counted = post_call(&endpoint(&server), 4, "count_calls", "{}").expect("an answer");
    assert_eq!(value(&counted), 1);
    let host = status_host(&server);
    assert_eq!(host["restarts"], 3, "{host}");
    assert_eq!(host["isolation"], "isolated", "{host}");
    let page = server.request("GET", "/", &[], b"").text();
    assert!(
        page.contains("Library host") && page.contains("id=\"workers\""),
        "{page}"
    );
}

#[test]
fn over_http_a_stuck_call_in_process_is_reported_and_refuses_new_calls() {
    let library = faults();
    let server = HttpServer::start(&library, &["--no-auth", "--call-timeout", "1"]);
    let looped = post_call(&endpoint(&server), 1, "loop_forever", "{}").expect("an answer");
    assert_error(
        &looped,
        &["did not finish within 1 s (--call-timeout). In-process calls cannot be stopped"],
    );
    let refused = post_call(&endpoint(&server), 2, "count_calls", "{}").expect("an answer");
    assert_error(
        &refused,
        &["library busy: tool `loop_forever` has been running for"],
    );
    let host = status_host(&server);
    assert_eq!(host["status"], "stuck", "{host}");
    assert_eq!(host["running"][0]["pastDeadline"], true, "{host}");
    let page = server.request("GET", "/", &[], b"").text();
    assert!(
        page.contains("<code>loop_forever</code>") && page.contains(">stuck<"),
        "{page}"
    );

    // Halt in process ends the server: the request gets no answer.
    let server = HttpServer::start(&library, &["--no-auth"]);
    assert!(post_call(&endpoint(&server), 1, "halt_process", r#"{"Code":3}"#).is_none());
}

#[test]
fn over_http_a_queued_call_whose_deadline_passes_never_runs() {
    let library = faults();
    let server = HttpServer::start(&library, &["--no-auth", "--call-timeout", "1"]);
    std::thread::scope(|scope| {
        let target = endpoint(&server);
        let sleeping =
            scope.spawn(move || post_call(&target, 1, "sleep_for", r#"{"Milliseconds":2500}"#));
        // Once sleep_for runs, count_calls waits behind it.
        while status_host(&server)["running"][0]["tool"] != "sleep_for" {}
        let queued = post_call(&endpoint(&server), 2, "count_calls", "{}").expect("an answer");
        assert_error(&queued, &["Tool \"count_calls\" did not finish within 1 s (--call-timeout): it waited for the library, which was busy with other calls, and was not run"]);
        let slept = sleeping.join().expect("thread").expect("an answer");
        assert_error(&slept, &["Tool \"sleep_for\" did not finish within 1 s (--call-timeout). In-process calls cannot be stopped"]);
    });
    // Once sleep_for has returned, the first count_calls to run counts 1: the queued one never ran.
    while status_host(&server)["status"] != "idle" {}
    assert_eq!(
        value(&post_call(&endpoint(&server), 3, "count_calls", "{}").expect("an answer")),
        1
    );
}

/// The only request in progress reads its isolated call's answer from the worker's pipe itself
/// (`docs/runtime.md`, "Isolation"): through a run of sequential calls the server's reader of
/// the worker sleeps, and the answers are those of one worker counting its calls. A worker that
/// ends during such a call is still reported by the reader and restarted.
#[cfg(target_os = "linux")]
#[test]
fn over_http_an_idle_caller_reads_its_isolated_answer_itself() {
    use crate::support::procs::thread_switches;
    const CALLS: i64 = 200;
    let library = faults();
    // A busy-poll budget no call of a debug build outlasts: each caller reads its answer.
    let server = HttpServer::start(
        &library,
        &["--no-auth", "--isolate", "--busy-poll", "50000"],
    );
    let target = endpoint(&server);
    // The reader thread reads the first answer, then leaves the next to its caller.
    let first = post_call(&target, 1, "count_calls", "{}").expect("an answer");
    assert_eq!(value(&first), 1);
    let before = thread_switches(server.pid(), "delphi-worker-0");
    let started = std::time::Instant::now();
    for n in 2..=CALLS {
        let counted = post_call(&target, n, "count_calls", "{}").expect("an answer");
        assert_eq!(value(&counted), n);
    }
    let switches = thread_switches(server.pid(), "delphi-worker-0") - before;
    // Reading every answer, the reader thread switches at least twice per call (it sleeps in
    // its read, or yields while it polls). Sleeping, it looks every 100 ms (twice, for a slow
    // machine) whether it should read again.
    let looks = 2 * started.elapsed().as_millis() as u64 / 100;
    assert!(
        switches < (CALLS as u64) / 4 + looks,
        "the worker's reader thread switched {switches} times in {CALLS} calls"
    );
    let halted = post_call(&target, CALLS + 1, "halt_process", r#"{"Code":3}"#).expect("an answer");
    assert_error(&halted, &["the library process ended with exit code 3 during `halt_process`; it is being restarted"]);
    let restarted = post_call(&target, CALLS + 2, "count_calls", "{}").expect("an answer");
    assert_eq!(value(&restarted), 1);
}
