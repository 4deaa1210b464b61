//! The direct path of a plain stateless `tools/call` (`runtime/src/http/direct.rs`): its
//! answers are byte for byte rmcp's (the same call with a `progressToken` in its `_meta` goes
//! through rmcp), requests it must not take still get rmcp's answers, the status page counts
//! its calls, and a client that goes away cancels its call.

use crate::support::fpc::build_example;
use crate::support::http::{
    connect, http_request, request_head, tools_call_2026, HttpResponse, HttpServer,
};
use crate::support::server::meta_2026;
use serde_json::Value;
use std::io::Write;

/// A 2026-07-28 `tools/call` under the raw id `id`; with a `progressToken` when `progress`.
fn call(id: &str, tool: &str, arguments: &str, progress: bool) -> String {
    let mut meta = meta_2026();
    if progress {
        meta["progressToken"] = Value::from("p");
    }
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":{},"arguments":{arguments},"_meta":{meta}}}}}"#,
        Value::from(tool)
    )
}

/// POSTs `body` with the stateless headers and `accept`, and `extra` headers.
fn post(
    server: &HttpServer,
    tool: &str,
    body: &str,
    accept: &str,
    extra: &[(&str, &str)],
) -> HttpResponse {
    let bearer = server.bearer();
    let mut headers = vec![("Authorization", bearer.as_str())];
    headers.extend_from_slice(extra);
    post_to(&server.authority, tool, body, accept, &headers)
}

/// POSTs `body` to `authority` with the stateless headers, `accept` and `extra` headers.
fn post_to(
    authority: &str,
    tool: &str,
    body: &str,
    accept: &str,
    extra: &[(&str, &str)],
) -> HttpResponse {
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", accept),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
    ];
    headers.extend_from_slice(extra);
    http_request(authority, "POST", "/mcp", &headers, body.as_bytes())
}

const BOTH: &str = "application/json, text/event-stream";

/// Asserts `direct` is `through_rmcp` in status, content type and body.
fn assert_same(direct: &HttpResponse, through_rmcp: &HttpResponse) {
    assert_eq!(
        (direct.status, direct.header("content-type"), direct.text()),
        (
            through_rmcp.status,
            through_rmcp.header("content-type"),
            through_rmcp.text()
        )
    );
}

fn calls_counted(server: &HttpServer) -> u64 {
    let status = server.request("GET", "/status.json", &[], b"").json();
    status["totals"]["calls"].as_u64().expect("totals.calls")
}

#[test]
fn direct_answers_are_the_bytes_rmcp_writes() {
    let server = HttpServer::start(&build_example("calc"), &[]);
    let cases = [
        (
            "calc_scale",
            r#"{"Value":2,"Factor":1.25}"#,
            "\"isError\":false",
        ),
        ("calc_divide", r#"{"A":1,"B":0}"#, "\"isError\":true"),
        (
            "calc_scale",
            r#"{"Value":"two","Value":2}"#,
            "\"isError\":true",
        ),
        ("nope", "{}", "\"code\":-32602"),
    ];
    // Ids rmcp's types cannot hold exactly come back as sent.
    let ids = ["7", r#""a\u0062""#, "18446744073709551617", r#""x""#];
    for ((tool, arguments, expected), id) in cases.into_iter().zip(ids) {
        let direct = post(&server, tool, &call(id, tool, arguments, false), BOTH, &[]);
        let through_rmcp = post(&server, tool, &call(id, tool, arguments, true), BOTH, &[]);
        assert_same(&direct, &through_rmcp);
        let text = direct.text();
        assert_eq!(direct.status, 200, "{text}");
        assert!(
            text.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"#)),
            "{text}"
        );
        assert!(text.contains(expected), "{tool} {arguments}: {text}");
        // JSON only: the same answer.
        let json_only = post(
            &server,
            tool,
            &call(id, tool, arguments, false),
            "application/json",
            &[],
        );
        assert_same(&json_only, &through_rmcp);
    }
    assert_eq!(calls_counted(&server), 3 * 3, "unknown tools are not calls");
    let success = post(
        &server,
        "calc_scale",
        &tools_call_2026(1, "calc_scale", r#"{"Value":2,"Factor":1.25}"#),
        BOTH,
        &[],
    );
    assert!(success
        .text()
        .contains(r#""structuredContent":{"result":2.5}"#));
    assert_eq!(calls_counted(&server), 10);
}

#[test]
fn requests_the_direct_path_must_not_take_get_rmcps_answers() {
    let server = HttpServer::start(&build_example("calc"), &[]);
    let plain = tools_call_2026(3, "calc_scale", r#"{"Value":2}"#);
    // The headers rmcp checks: a name that is not the body's, a method that is not the body's.
    let other_name = post(&server, "calc_negate", &plain, BOTH, &[]);
    assert_eq!(other_name.status, 400, "{}", other_name.text());
    assert!(other_name
        .text()
        .contains("Mcp-Name header `calc_negate` does not match"));
    let bearer = server.bearer();
    let no_name = server.request(
        "POST",
        "/mcp",
        &[
            ("Authorization", bearer.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", BOTH),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
        ],
        plain.as_bytes(),
    );
    assert_eq!(no_name.status, 400, "{}", no_name.text());
    assert!(no_name.text().contains("missing required Mcp-Name header"));
    // SSE only: rmcp answers with an event stream.
    let sse = post(&server, "calc_scale", &plain, "text/event-stream", &[]);
    assert_eq!(sse.status, 200, "{}", sse.text());
    assert_eq!(sse.header("content-type"), Some("text/event-stream"));
    assert_eq!(sse.json()["result"]["structuredContent"]["result"], 2.0);
    // Incomplete `_meta`: rmcp's 400 under the client's id.
    let incomplete = r#"{"jsonrpc":"2.0","id":"m","method":"tools/call","params":{"name":"calc_scale","arguments":{"Value":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    let refused = post(&server, "calc_scale", incomplete, BOTH, &[]);
    assert_eq!(refused.status, 400, "{}", refused.text());
    assert!(refused.text().contains(r#""id":"m""#), "{}", refused.text());
    // A Base64-wrapped name and a parameter header go to rmcp: the same answer.
    let wrapped = post(&server, "=?base64?Y2FsY19zY2FsZQ==?=", &plain, BOTH, &[]);
    assert_eq!(wrapped.status, 200, "{}", wrapped.text());
    assert_same(&wrapped, &post(&server, "calc_scale", &plain, BOTH, &[]));
    // calc_scale declares no parameter headers: rmcp ignores the header.
    let param = post(
        &server,
        "calc_scale",
        &plain,
        BOTH,
        &[("Mcp-Param-Value", "2")],
    );
    assert_same(&param, &wrapped);
}

#[test]
fn a_call_whose_client_goes_away_is_cancelled() {
    // Isolated, a cancelled running call has its worker killed and restarted.
    let server = HttpServer::start(
        &crate::support::faults::library(),
        &["--no-auth", "--isolate", "--on-cancel", "restart"],
    );
    let status_host = || server.request("GET", "/status.json", &[], b"").json()["host"].clone();
    let body = tools_call_2026(1, "sleep_for", r#"{"Milliseconds":4000}"#);
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", BOTH),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "sleep_for"),
    ];
    let mut leaving = connect(&server.authority);
    let head = request_head(&server.authority, "POST", "/mcp", &headers, body.len());
    leaving
        .write_all(format!("{head}{body}").as_bytes())
        .expect("send");
    while status_host()["running"][0]["tool"] != "sleep_for" {}
    drop(leaving);
    // Cancelled, the worker restarts; not cancelled, the call ends after its four seconds.
    let host = loop {
        let host = status_host();
        if host["restarts"] != 0 || host["status"] == "idle" {
            break host;
        }
    };
    assert_eq!(host["restarts"], 1, "{host}");
    let counted = post(
        &server,
        "count_calls",
        &tools_call_2026(2, "count_calls", "{}"),
        BOTH,
        &[],
    );
    assert_eq!(counted.status, 200, "{}", counted.text());
}

#[test]
fn a_direct_call_past_the_request_timeout_gets_504_under_its_id() {
    let server = HttpServer::start(
        &crate::support::faults::library(),
        &["--no-auth", "--timeout", "1"],
    );
    let body = call(r#""slow""#, "sleep_for", r#"{"Milliseconds":2000}"#, false);
    let response = post(&server, "sleep_for", &body, BOTH, &[]);
    assert_eq!(response.status, 504, "{}", response.text());
    let answer = response.json();
    assert_eq!(answer["id"], "slow", "{answer}");
    assert!(
        answer["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("--timeout")),
        "{answer}"
    );
}
