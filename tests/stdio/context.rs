//! The call context over raw stdio (`examples/everything`): a tool that loops while
//! `Ctx.Cancelled` is false stops when the client cancels it — in process, and isolated, where
//! the cancellation travels to the worker as a frame — and its progress notifications carry the
//! request's token. Tool errors: `EMcpToolError`'s message verbatim, other exceptions with
//! their class, or hidden by `serve --hide-exceptions`.

use crate::support::fpc::build_example;
use crate::support::server::{initialize, Server};
use serde_json::{json, Value};

const STEPS: i64 = 2000;

fn cancel_a_counting_call(extra: &[&str]) {
    let library = build_example("everything");
    let mut server = Server::start(&library, extra);
    server.request(initialize(json!(1), "2025-06-18"));
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    server.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "count_with_progress", "arguments": {"Steps": STEPS},
        "_meta": {"progressToken": "count"}}}),
    );
    // The first progress notification shows the loop is running.
    let first = server.receive();
    assert_eq!(first["method"], "notifications/progress", "{first}");
    assert_eq!(first["params"]["progressToken"], "count", "{first}");
    assert_eq!(first["params"]["total"], json!(STEPS as f64), "{first}");
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "test"}}),
    );
    // The next call runs on the same library thread, after the cancelled one has stopped: every
    // notification of the cancelled call comes before its answer.
    server.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "count_with_progress", "arguments": {"Steps": 1}}}),
    );
    let mut notifications = 1;
    let answer: Value = loop {
        let message = server.receive();
        if message["method"] == "notifications/progress" {
            assert_eq!(message["params"]["progressToken"], "count", "{message}");
            notifications += 1;
            continue;
        }
        break message;
    };
    assert_eq!(
        answer["id"], 3,
        "the cancelled call gets no answer: {answer}"
    );
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"result": 1}),
        "{answer}"
    );
    assert!(
        notifications < STEPS,
        "the loop should have seen Ctx.Cancelled and stopped: {notifications} of {STEPS} steps ran"
    );
    assert!(server.finish().success());
}

#[test]
fn cancelled_context_stops_the_loop_in_process() {
    cancel_a_counting_call(&[]);
}

#[test]
fn cancelled_context_stops_the_loop_isolated() {
    cancel_a_counting_call(&["--isolate"]);
}

/// The text of the `tools/call` answer of `tool` (no arguments) from a server started with
/// `extra`.
fn tool_error_text(extra: &[&str], tool: &str) -> String {
    let library = build_example("everything");
    let mut server = Server::start(&library, extra);
    server.request(initialize(json!(1), "2025-06-18"));
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let answer = server.request(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": tool, "arguments": {}}}));
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(server.finish().success());
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn exceptions_reach_the_client_unless_hidden_and_tool_errors_always() {
    let shown = tool_error_text(&[], "test_internal_error");
    assert_eq!(
        shown,
        "Tool \"test_internal_error\" raised EConvertError: secret detail: the connection string is db://admin@prod"
    );
    let hidden = tool_error_text(&["--hide-exceptions"], "test_internal_error");
    assert_eq!(
        hidden,
        "Tool \"test_internal_error\" failed with an internal error (details are in the server's log)"
    );
    // EMcpToolError is meant for the client: verbatim either way.
    let tool_error = tool_error_text(&["--hide-exceptions"], "test_error_handling");
    assert_eq!(
        tool_error,
        "This tool intentionally returns an error for testing"
    );
}
