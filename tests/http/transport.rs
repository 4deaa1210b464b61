//! `delphi-mcp serve --http` over raw HTTP/1.1: authentication (401), Origin and Host checks
//! (403), body limit (413), 405 for GET/DELETE and 202 for notifications in the stateless era,
//! the concurrency cap (503), the request timeout (408), duplicate keys over HTTP, the token
//! sources, port fallback and the status JSON. The server is the real binary serving the Free
//! Pascal ABI fixture library.

use crate::support::abi_lib::fixture_library;
use crate::support::http::{
    connect, read_response, request_head, serve_failure, tools_call_2026, HttpResponse, HttpServer,
};
use crate::support::server::meta_2026;
use std::io::Write;

fn add_call() -> String {
    tools_call_2026(7, "add", r#"{"A":2,"B":3}"#)
}

/// A POST to `/mcp` of which only the head and the first ten bytes of `body` are sent: the
/// server waits for the rest.
fn start_partial_post(
    authority: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> std::net::TcpStream {
    let mut stream = connect(authority);
    stream
        .write_all(request_head(authority, "POST", "/mcp", headers, body.len()).as_bytes())
        .expect("head");
    stream
        .write_all(&body.as_bytes()[..10])
        .expect("part of the body");
    stream
}

fn assert_add_answer(response: &HttpResponse) {
    assert_eq!(response.status, 200, "{}", response.text());
    let answer = response.json();
    assert_eq!(answer["id"], 7, "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"],
        serde_json::json!({"result": 5}),
        "{answer}"
    );
}

#[test]
fn requests_without_the_right_token_get_401() {
    let server = HttpServer::start(&fixture_library(&[]), &[]);
    let token_file = server.token_file.clone().expect("generated token file");
    assert!(
        token_file.starts_with(server.state.path()),
        "token not in the state folder: {}",
        token_file.display()
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&token_file)
            .expect("token file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let body = add_call();
    let json = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
    ];
    let missing = server.request("POST", "/mcp", &json, body.as_bytes());
    assert_eq!(missing.status, 401, "{}", missing.text());
    assert!(
        missing
            .header("www-authenticate")
            .is_some_and(|v| v.starts_with("Bearer")),
        "{:?}",
        missing.headers
    );
    let mut wrong = json.to_vec();
    wrong.push(("Authorization", "Bearer not-the-token"));
    assert_eq!(
        server
            .request("POST", "/mcp", &wrong, body.as_bytes())
            .status,
        401
    );
    assert_add_answer(&server.post_2026("tools/call", Some("add"), &body));
}

#[test]
fn token_from_environment_and_from_a_token_file() {
    let library = fixture_library(&[]);
    let server = HttpServer::start_with_env(&library, &[], &[("DELPHI_MCP_TOKEN", "env-secret-1")]);
    assert!(server.token_file.is_none());
    let body = add_call();
    let headers = |bearer: &'static str| {
        vec![
            ("Authorization", bearer),
            ("Content-Type", "application/json"),
            ("Accept", "application/json"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "add"),
        ]
    };
    assert_add_answer(&server.request(
        "POST",
        "/mcp",
        &headers("Bearer env-secret-1"),
        body.as_bytes(),
    ));
    assert_eq!(
        server
            .request(
                "POST",
                "/mcp",
                &headers("Bearer env-secret-2"),
                body.as_bytes()
            )
            .status,
        401
    );
    drop(server);

    let folder = tempfile::tempdir().expect("tempdir");
    let path = folder.path().join("token");
    let path_text = path.to_str().expect("utf-8 path");
    let server = HttpServer::start(&library, &["--token-file", path_text]);
    assert_eq!(server.token_file.as_deref(), Some(path.as_path()));
    let token = server.token.clone().expect("token written");
    assert_eq!(token.len(), 64);
    assert_add_answer(&server.post_2026("tools/call", Some("add"), &body));
    drop(server);
    // The file is reused on the next start.
    let again = HttpServer::start(&library, &["--token-file", path_text]);
    assert_eq!(again.token.as_deref(), Some(token.as_str()));
}

#[test]
fn foreign_origin_and_host_get_403() {
    let server = HttpServer::start(
        &fixture_library(&[]),
        &["--allow-origin", "http://app.example:3000"],
    );
    let bearer = server.bearer();
    let body = add_call();
    let post = |origin: Option<&str>, host: Option<&str>| {
        let mut headers = vec![
            ("Authorization", bearer.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "add"),
        ];
        if let Some(origin) = origin {
            headers.push(("Origin", origin));
        }
        if let Some(host) = host {
            headers.push(("Host", host));
        }
        server.request("POST", "/mcp", &headers, body.as_bytes())
    };
    let foreign = post(Some("http://evil.example"), None);
    assert_eq!(foreign.status, 403, "{}", foreign.text());
    assert!(
        foreign.text().contains("--allow-origin"),
        "{}",
        foreign.text()
    );
    assert_eq!(post(Some("null"), None).status, 403);
    assert_add_answer(&post(Some("http://app.example:3000"), None));
    let own = format!("http://{}", server.authority);
    assert_add_answer(&post(Some(&own), None));
    let rebinding = post(None, Some("attacker.example:80"));
    assert_eq!(rebinding.status, 403, "{}", rebinding.text());
    // The status routes are checked too: DNS rebinding must not read them. So are other paths
    // and methods, before they are routed.
    for (method, path) in [
        ("GET", "/status.json"),
        ("GET", "/"),
        ("POST", "/"),
        ("GET", "/x"),
    ] {
        let refused = server.request(method, path, &[("Host", "attacker.example")], b"");
        assert_eq!(refused.status, 403, "{method} {path}");
    }
}

#[test]
fn oversized_bodies_get_413() {
    let server = HttpServer::start(&fixture_library(&[]), &["--max-body", "1024"]);
    let padding = "x".repeat(2000);
    let big = tools_call_2026(7, "greet", &format!(r#"{{"Name":"{padding}"}}"#));
    let response = server.post_2026("tools/call", Some("greet"), &big);
    assert_eq!(response.status, 413, "{}", response.text());
    assert_add_answer(&server.post_2026("tools/call", Some("add"), &add_call()));
}

#[test]
fn stateless_era_refuses_get_and_delete_and_accepts_notifications() {
    let server = HttpServer::start(&fixture_library(&[]), &[]);
    let bearer = server.bearer();
    for method in ["GET", "DELETE"] {
        let headers = [
            ("Authorization", bearer.as_str()),
            ("Accept", "text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
        ];
        let response = server.request(method, "/mcp", &headers, b"");
        assert_eq!(response.status, 405, "{method}: {}", response.text());
        assert_eq!(response.header("allow"), Some("POST"), "{method}");
    }
    let notification = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1, "_meta": meta_2026()}});
    let response = server.post_2026("notifications/cancelled", None, &notification.to_string());
    assert_eq!(response.status, 202, "{}", response.text());
    assert!(response.body.is_empty());
}

#[test]
fn duplicate_keys_are_caught_over_http() {
    let server = HttpServer::start(&fixture_library(&[]), &[]);
    let response = server.post_2026(
        "tools/call",
        Some("add"),
        &tools_call_2026(9, "add", r#"{"A":2,"A":5,"B":3}"#),
    );
    assert_eq!(response.status, 200);
    let answer = response.json();
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("duplicate key"), "{text}");
    // Exact integers travel as the client wrote them.
    let big = server.post_2026(
        "tools/call",
        Some("echo_u64"),
        &tools_call_2026(10, "echo_u64", r#"{"Value":18446744073709551615}"#),
    );
    assert_eq!(
        big.json()["result"]["structuredContent"]["result"],
        serde_json::json!(18446744073709551615u64),
        "{}",
        big.text()
    );
}

#[test]
fn requests_over_the_concurrency_cap_get_503_busy() {
    let server = HttpServer::start(&fixture_library(&[]), &["--max-concurrent", "1"]);
    let bearer = server.bearer();
    let body = add_call();
    let headers = [
        ("Authorization", bearer.as_str()),
        ("Content-Type", "application/json"),
        ("Accept", "application/json"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "add"),
    ];
    // The slow request holds the only slot while its body is incomplete.
    let start_slow = || start_partial_post(&server.authority, &headers, &body);
    // Whether the server already answered the slow request: it does only when a fast request
    // held the slot as the slow one arrived (a 503), since its body is not complete.
    let answered = |slow: &std::net::TcpStream| {
        slow.set_nonblocking(true).expect("nonblocking");
        let answered = slow.peek(&mut [0u8; 1]).is_ok();
        slow.set_nonblocking(false).expect("blocking");
        answered
    };
    let mut slow = start_slow();
    // Until the server has taken the slow request, a fast one may still get through; a slow
    // request refused meanwhile is sent again.
    let mut busy = None;
    for _ in 0..10_000 {
        let response = server.request("POST", "/mcp", &headers, body.as_bytes());
        if response.status == 503 {
            busy = Some(response);
            break;
        }
        assert_add_answer(&response);
        if answered(&slow) {
            slow = start_slow();
        }
    }
    let busy = busy.expect("no 503 while the only slot was taken");
    assert_eq!(busy.header("retry-after"), Some("1"));
    let error = busy.json();
    assert_eq!(error["error"]["code"], -32000, "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("busy"),
        "{error}"
    );
    // The slow request completes normally, and the slot is free again.
    slow.write_all(&body.as_bytes()[10..])
        .expect("rest of the body");
    assert_add_answer(&read_response(&mut slow));
    assert_add_answer(&server.post_2026("tools/call", Some("add"), &body));
}

#[test]
fn a_body_that_never_completes_times_out_with_408() {
    let server = HttpServer::start(&fixture_library(&[]), &["--timeout", "1"]);
    let bearer = server.bearer();
    let body = add_call();
    let headers = [
        ("Authorization", bearer.as_str()),
        ("Content-Type", "application/json"),
        ("Accept", "application/json"),
    ];
    let mut slow = start_partial_post(&server.authority, &headers, &body);
    let response = read_response(&mut slow);
    assert_eq!(response.status, 408, "{}", response.text());
}

#[test]
fn no_auth_is_refused_off_loopback() {
    let stderr = serve_failure(&fixture_library(&[]), &["--http", "0.0.0.0:0", "--no-auth"]);
    assert!(stderr.contains("without authentication"), "{stderr}");
    assert!(stderr.contains("loopback"), "{stderr}");
}

/// Ports `P` and `P + 1`, both bound by the returned listeners, with the ten ports the server
/// tries after `P` all below 65536. Listeners on ports that do not fit (too high, or the next
/// one taken) stay open until the search ends, so the system does not hand them out again.
fn two_taken_ports() -> (u16, [std::net::TcpListener; 2]) {
    let mut unfit = Vec::new();
    for _ in 0..1000 {
        let first = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = first.local_addr().expect("addr").port();
        if port <= u16::MAX - 10 {
            if let Ok(second) = std::net::TcpListener::bind(("127.0.0.1", port + 1)) {
                return (port, [first, second]);
            }
        }
        unfit.push(first);
    }
    panic!("no two free neighbouring ports with ten more above them");
}

#[test]
fn taken_port_moves_to_one_of_the_next_ten() {
    let (port, _taken) = two_taken_ports();
    let address = format!("127.0.0.1:{port}");
    let server = HttpServer::start(&fixture_library(&[]), &["--http", &address]);
    let used: u16 = server
        .authority
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("port");
    assert!(
        used > port + 1 && used <= port + 10,
        "used {used}, taken {port} and {}",
        port + 1
    );
    assert_add_answer(&server.post_2026("tools/call", Some("add"), &add_call()));
}

#[test]
fn status_json_counts_calls_and_is_open_on_loopback() {
    let server = HttpServer::start(&fixture_library(&[]), &[]);
    for _ in 0..3 {
        assert_add_answer(&server.post_2026("tools/call", Some("add"), &add_call()));
    }
    let failing = server.post_2026(
        "tools/call",
        Some("fail"),
        &tools_call_2026(8, "fail", r#"{"Message":"boom"}"#),
    );
    assert_eq!(
        failing.json()["result"]["isError"],
        true,
        "{}",
        failing.text()
    );
    let status = server.request("GET", "/status.json", &[], b"");
    assert_eq!(status.status, 200, "{}", status.text());
    let status = status.json();
    let tool = |name: &str| {
        status["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(tool("add")["calls"], 3, "{status}");
    assert_eq!(tool("add")["errors"], 0);
    assert!(tool("add")["medianMs"].as_f64().is_some_and(|ms| ms >= 0.0));
    assert_eq!(tool("fail")["calls"], 1);
    assert_eq!(tool("fail")["errors"], 1);
    assert_eq!(tool("greet")["calls"], 0);
    assert!(tool("add")["inputSchema"].is_object());
    let recent = status["recentCalls"].as_array().expect("recent");
    assert_eq!(recent.len(), 4);
    assert_eq!(recent[0]["tool"], "fail");
    assert_eq!(recent[0]["outcome"], "toolError");
    // Argument values are never recorded.
    assert!(!status.to_string().contains("boom"), "{status}");
    assert_eq!(status["library"]["abiVersion"], 1);
    assert_eq!(
        status["library"]["manifestSha256"].as_str().map(str::len),
        Some(64)
    );
}
