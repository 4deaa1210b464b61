//! The bad-input suite over HTTP (`tests/support/bad_input.rs`): one server with a session per
//! handshake era; stateless cases with the 2026-07-28 headers derived from the body.

use crate::support::bad_input::{
    cases, check, initialize, library, liveness, members, Case, HttpPart, HANDSHAKE_ERAS, STATELESS,
};
use crate::support::http::{connect, read_response, HttpResponse, HttpServer};
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;

/// The HTTP server with a session per handshake era.
struct Http {
    server: HttpServer,
    sessions: HashMap<String, String>,
}

impl Http {
    fn headers(&self, era: &str, body: &[u8], part: &HttpPart) -> Vec<(String, String)> {
        let mut headers = vec![
            ("Authorization".to_string(), self.server.bearer()),
            (
                "Content-Type".to_string(),
                part.content_type
                    .clone()
                    .unwrap_or("application/json".into()),
            ),
            (
                "Accept".to_string(),
                part.accept
                    .clone()
                    .unwrap_or("application/json, text/event-stream".into()),
            ),
        ];
        if let Some(session) = self.sessions.get(era) {
            headers.push(("Mcp-Session-Id".into(), session.clone()));
            if era != "2024-11-05" && era != "2025-03-26" {
                headers.push(("MCP-Protocol-Version".into(), era.into()));
            }
        }
        if era == STATELESS {
            headers.push(("MCP-Protocol-Version".into(), STATELESS.into()));
            let (method, name) = method_and_name(body);
            headers.push((
                "Mcp-Method".into(),
                method.unwrap_or_else(|| "tools/call".into()),
            ));
            if let Some(name) = name {
                headers.push(("Mcp-Name".into(), name));
            }
        }
        for (name, value) in &part.headers {
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
            if !value.is_empty() {
                headers.push((name.clone(), value.clone()));
            }
        }
        headers
    }

    fn post(&self, era: &str, body: &[u8], part: &HttpPart) -> HttpResponse {
        let headers = self.headers(era, body, part);
        let pairs: Vec<(&str, &str)> = headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        if part.chunked {
            return post_chunked(&self.server.authority, &pairs, body);
        }
        self.server.request("POST", "/mcp", &pairs, body)
    }

    fn open_session(&mut self, era: &str) {
        let body = initialize(era);
        let response = self.post("none", body.as_bytes(), &HttpPart::default());
        let session = response
            .header("mcp-session-id")
            .unwrap_or_else(|| panic!("no session for {era}: {}", response.text()))
            .to_string();
        assert!(answer_text(&response)
            .is_some_and(|a| a.contains(&format!("\"protocolVersion\":\"{era}\""))));
        self.sessions.insert(era.into(), session);
        let response = self.post(
            era,
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            &HttpPart::default(),
        );
        assert_eq!(response.status, 202, "{}", response.text());
    }
}

/// `method` and `params.name` of a body, for the 2026-07-28 headers.
fn method_and_name(body: &[u8]) -> (Option<String>, Option<String>) {
    let Some(message) = std::str::from_utf8(body).ok().and_then(members) else {
        return (None, None);
    };
    let text = |raw: Option<&Box<RawValue>>| {
        raw.and_then(|v| serde_json::from_str::<String>(v.get()).ok())
    };
    let name = message
        .get("params")
        .and_then(|p| members(p.get()))
        .and_then(|p| text(p.get("name")));
    (text(message.get("method")), name)
}

fn post_chunked(authority: &str, headers: &[(&str, &str)], body: &[u8]) -> HttpResponse {
    let mut stream = connect(authority);
    let mut head = format!("POST /mcp HTTP/1.1\r\nHost: {authority}\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).expect("head");
    for chunk in body.chunks(7) {
        stream
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .expect("chunk size");
        stream.write_all(chunk).expect("chunk");
        stream.write_all(b"\r\n").expect("chunk end");
    }
    stream.write_all(b"0\r\n\r\n").expect("last chunk");
    read_response(&mut stream)
}

/// The JSON-RPC text of a response: the body, or an SSE body's message.
fn answer_text(response: &HttpResponse) -> Option<String> {
    let text = response.text();
    let sse = response
        .header("content-type")
        .is_some_and(|c| c.starts_with("text/event-stream"));
    if sse {
        return text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_string);
    }
    (!text.trim().is_empty()).then_some(text)
}

fn default_status(era: &str, expect: &Value) -> u16 {
    if expect == "none" {
        return 202;
    }
    match expect.get("error").and_then(Value::as_i64) {
        Some(-32700 | -32600) => 400,
        Some(-32601) if era == STATELESS => 404,
        _ => 200,
    }
}

fn run_http(http: &Http, case: &Case, n: i64) -> Result<(), String> {
    let part = case.http.as_ref();
    let default_part = HttpPart::default();
    let part_or_default = part.unwrap_or(&default_part);
    let expect = part.and_then(|p| p.expect.as_ref()).unwrap_or(&case.expect);
    let status = part
        .and_then(|p| p.status)
        .unwrap_or_else(|| default_status(&case.era, expect));
    let response = http.post(&case.era, &case.bytes(), part_or_default);
    if response.status != status {
        return Err(format!(
            "expected HTTP {status}, got {}: {}",
            response.status,
            response.text()
        ));
    }
    let answer = answer_text(&response);
    if answer.is_some() {
        let json = response.header("content-type").is_some_and(|c| {
            c.starts_with("application/json") || c.starts_with("text/event-stream")
        });
        if !json {
            return Err(format!("the answer is not JSON: {:?}", response.headers));
        }
    }
    check(expect, answer.as_deref())?;
    let alive_era = if case.era == "none" {
        STATELESS
    } else {
        &case.era
    };
    let (alive, alive_expect) = liveness(alive_era, n);
    let response = http.post(alive_era, alive.as_bytes(), &default_part);
    check(&alive_expect, answer_text(&response).as_deref())
        .map_err(|e| format!("the server did not serve the next request: {e}"))
}

#[test]
fn bad_input_over_http() {
    let library = library();
    let cases: Vec<Case> = cases().into_iter().filter(|c| c.runs_on("http")).collect();
    let mut http = Http {
        server: HttpServer::start(&library, &["--max-body", "2097152"]),
        sessions: HashMap::new(),
    };
    for era in HANDSHAKE_ERAS {
        http.open_session(era);
    }
    let mut failures = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        if let Err(why) = run_http(&http, case, n as i64 + 1) {
            failures.push(format!("{} [{}]: {why}", case.name, case.era));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed over HTTP:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(cases.len() >= 150, "only {} HTTP cases", cases.len());
}
