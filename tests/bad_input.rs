//! The bad-input suite: every case of `tests/bad_input_cases.json` is sent to a real
//! `delphi-mcp serve` of the ABI fixture unit (`tests/fixtures/abi`, every row of the type
//! table) over stdio and over HTTP, its answer compared exactly (JSON-RPC error code and the
//! id's exact text, `isError` with a message part, the result, HTTP status, or no answer), and
//! each case is followed by a tool call proving that the server still serves.
//!
//! One server process per protocol era over stdio (an era is fixed per connection) and one
//! HTTP server with a session per handshake era; cases of the era `none` (before any
//! lifecycle) get a stdio process of their own.
//!
//! A case (see the file's `format` entry): `send` (text, `$META` replaced by the 2026-07-28
//! `_meta` object and `$REPEAT` by `repeat.text` written `repeat.times` times (`$N`: 0, 1, ...)
//! joined by `repeat.join`), or `send_hex` (raw bytes), or `writes` (stdio: several writes); `era`;
//! `on` (`stdio`, `http` or both); `expect`: `"none"`, `{"error": code, "id": "raw id"}`,
//! `{"result": json, "id"}`, `{"value": json, "id"}` (a tool's `structuredContent.result`),
//! `{"tool_error": "part of the text" or [parts], "id"}`, `{"batch": [expect...]}`, with an optional
//! `message` (a part of the error message); `more` (further answers over stdio); `http`: the
//! HTTP status (default: 400 for -32700/-32600, 404 for -32601 in 2026-07-28, 202 for no
//! answer, else 200), an `expect` of its own, `headers`, `accept`, `content_type`, `chunked`.

mod http_common;
mod runtime_common;
mod support {
    pub mod fpc;
}

use http_common::{connect, read_response, HttpResponse, HttpServer};
use runtime_common::{meta_2026, Server};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    #[serde(default = "default_era")]
    era: String,
    #[serde(default)]
    on: Option<String>,
    #[serde(default)]
    send: Option<String>,
    #[serde(default)]
    send_hex: Option<String>,
    #[serde(default)]
    writes: Option<Vec<String>>,
    #[serde(default)]
    repeat: Option<Repeat>,
    expect: Value,
    #[serde(default)]
    more: Vec<Value>,
    #[serde(default)]
    http: Option<HttpPart>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Repeat {
    text: String,
    times: usize,
    #[serde(default)]
    join: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct HttpPart {
    status: Option<u16>,
    expect: Option<Value>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    accept: Option<String>,
    content_type: Option<String>,
    #[serde(default)]
    chunked: bool,
}

#[derive(Deserialize)]
struct CaseFile {
    cases: Vec<Case>,
}

fn default_era() -> String {
    "2025-11-25".into()
}

const HANDSHAKE_ERAS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
const STATELESS: &str = "2026-07-28";

fn cases() -> Vec<Case> {
    let path = runtime_common::repo().join("tests/bad_input_cases.json");
    let text = std::fs::read_to_string(&path).expect("read the cases");
    let file: CaseFile = serde_json::from_str(&text).expect("the case file is valid");
    for case in &file.cases {
        assert!(
            HANDSHAKE_ERAS.contains(&case.era.as_str())
                || ["none", STATELESS].contains(&case.era.as_str()),
            "{}: unknown era {}",
            case.name,
            case.era
        );
    }
    file.cases
}

fn library() -> PathBuf {
    support::fpc::build_fixture("abi")
}

impl Case {
    fn runs_on(&self, transport: &str) -> bool {
        self.on.as_deref().is_none_or(|on| on == transport)
    }

    /// The bytes of the message (one line or body, no line end).
    fn bytes(&self) -> Vec<u8> {
        if let Some(hex) = &self.send_hex {
            return hex_bytes(hex);
        }
        let mut text = self.send.clone().unwrap_or_default();
        text = text.replace("$META", &meta_2026().to_string());
        if let Some(repeat) = &self.repeat {
            let pieces: Vec<String> = (0..repeat.times)
                .map(|n| repeat.text.replace("$N", &n.to_string()))
                .collect();
            text = text.replace("$REPEAT", &pieces.join(&repeat.join));
        }
        text.into_bytes()
    }
}

fn hex_bytes(hex: &str) -> Vec<u8> {
    let digits: Vec<u8> = hex.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).unwrap_or("00"), 16).unwrap_or(0))
        .collect()
}

/// The members of a JSON object as raw text (ids of any size survive).
fn members(text: &str) -> Option<HashMap<String, Box<RawValue>>> {
    serde_json::from_str(text).ok()
}

/// Checks one answer (`None`: no answer) against an expectation; `Err` says what differs.
fn check(expect: &Value, answer: Option<&str>) -> Result<(), String> {
    if expect == "none" {
        return match answer {
            None => Ok(()),
            Some(answer) => Err(format!("expected no answer, got {answer}")),
        };
    }
    let answer = answer.ok_or("expected an answer, got none")?;
    if let Some(batch) = expect.get("batch").and_then(Value::as_array) {
        let elements: Vec<Box<RawValue>> = serde_json::from_str(answer)
            .map_err(|e| format!("expected a batch answer (array), got {answer} ({e})"))?;
        if elements.len() != batch.len() {
            return Err(format!(
                "expected {} answers in the batch, got {answer}",
                batch.len()
            ));
        }
        for (element, expected) in elements.iter().zip(batch) {
            check(expected, Some(element.get()))?;
        }
        return Ok(());
    }
    let found = members(answer).ok_or_else(|| format!("not a JSON object: {answer}"))?;
    if found.get("jsonrpc").map(|v| v.get()) != Some("\"2.0\"") {
        return Err(format!("no \"jsonrpc\":\"2.0\": {answer}"));
    }
    if let Some(id) = expect.get("id").and_then(Value::as_str) {
        let got = found.get("id").map(|v| v.get()).unwrap_or("(none)");
        if got != id {
            return Err(format!("expected id {id}, got {got}: {answer}"));
        }
    }
    let part = |name: &str| -> Option<Value> {
        found
            .get(name)
            .and_then(|v| serde_json::from_str(v.get()).ok())
    };
    if let Some(code) = expect.get("error") {
        let error = part("error").ok_or_else(|| format!("expected an error, got {answer}"))?;
        if &error["code"] != code {
            return Err(format!("expected error {code}, got {answer}"));
        }
        if let Some(message) = expect.get("message").and_then(Value::as_str) {
            if !error["message"]
                .as_str()
                .unwrap_or_default()
                .contains(message)
            {
                return Err(format!(
                    "expected the message to contain {message:?}: {answer}"
                ));
            }
        }
        return Ok(());
    }
    let result = part("result").ok_or_else(|| format!("expected a result, got {answer}"))?;
    if let Some(expected) = expect.get("result") {
        if !same(&result, expected) {
            return Err(format!("expected result {expected}, got {answer}"));
        }
    }
    if let Some(expected) = expect.get("value") {
        if result["isError"] != json!(false)
            || !same(&result["structuredContent"]["result"], expected)
        {
            return Err(format!("expected the value {expected}, got {answer}"));
        }
    }
    if let Some(parts) = expect.get("tool_error") {
        // One part of the text, or several (all of them).
        let parts: Vec<&str> = match parts {
            Value::Array(parts) => parts.iter().filter_map(Value::as_str).collect(),
            other => other.as_str().into_iter().collect(),
        };
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        if result["isError"] != json!(true) || !parts.iter().all(|p| text.contains(p)) {
            return Err(format!(
                "expected a tool error containing {parts:?}, got {answer}"
            ));
        }
    }
    Ok(())
}

/// JSON equality with numbers compared by value (`0` equals `0.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            _ if x == y => true,
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The liveness check after each case: a tool call only a serving server answers.
fn liveness(era: &str, n: i64) -> (String, Value) {
    let meta = if era == STATELESS {
        format!(",\"_meta\":{}", meta_2026())
    } else {
        String::new()
    };
    let id = format!("\"alive-{n}\"");
    (
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo_int64","arguments":{{"V":{n}}}{meta}}}}}"#
        ),
        json!({"value": n, "id": id}),
    )
}

/// A `delphi-mcp serve` over pipes in `era` (initialized for a handshake era).
fn start_stdio(library: &Path, era: &str) -> Server {
    let mut server = Server::start(library, &["--log-level", "error"]);
    if HANDSHAKE_ERAS.contains(&era) {
        server.write(format!("{}\n", initialize(era)).as_bytes());
        let answer = server.receive_text().expect("initialize answered");
        assert!(
            answer.contains(&format!("\"protocolVersion\":\"{era}\"")),
            "{answer}"
        );
        server.write(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    }
    server
}

fn initialize(version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"init","method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"bad-input","version":"1"}}}}}}"#
    )
}

/// Runs one case over stdio on `server`; `Err` says what went wrong.
fn run_stdio(server: &mut Server, case: &Case, n: i64) -> Result<(), String> {
    match &case.writes {
        Some(writes) => {
            for write in writes {
                server.write(write.replace("$META", &meta_2026().to_string()).as_bytes());
            }
        }
        None => {
            let mut bytes = case.bytes();
            bytes.push(b'\n');
            server.write(&bytes);
        }
    }
    let (alive, alive_expect) = liveness(&case.era, n);
    let alive = if case.era == "none" {
        format!(r#"{{"jsonrpc":"2.0","id":"alive-{n}","method":"ping"}}"#)
    } else {
        alive
    };
    server.write(format!("{alive}\n").as_bytes());
    let expected: Vec<&Value> = std::iter::once(&case.expect)
        .chain(&case.more)
        .filter(|e| *e != "none")
        .collect();
    for expect in &expected {
        let answer = server.receive_text();
        check(expect, answer.as_deref())?;
    }
    let answer = server.receive_text();
    let alive_expect = if case.era == "none" {
        json!({"result": {}, "id": format!("\"alive-{n}\"")})
    } else {
        alive_expect
    };
    check(&alive_expect, answer.as_deref())
        .map_err(|e| format!("the server did not serve the next request: {e}"))
}

#[test]
fn bad_input_over_stdio() {
    let library = library();
    let cases: Vec<Case> = cases().into_iter().filter(|c| c.runs_on("stdio")).collect();
    let mut servers: HashMap<String, Server> = HashMap::new();
    let mut failures = Vec::new();
    for (n, case) in cases.iter().enumerate() {
        let n = n as i64 + 1;
        let outcome = if case.era == "none" {
            let mut server = start_stdio(&library, "none");
            let outcome = run_stdio(&mut server, case, n);
            let exited = server.finish().success();
            outcome.and_then(|()| exited.then_some(()).ok_or("no clean exit".into()))
        } else {
            let server = servers
                .entry(case.era.clone())
                .or_insert_with(|| start_stdio(&library, &case.era));
            run_stdio(server, case, n)
        };
        if let Err(why) = outcome {
            failures.push(format!("{} [{}]: {why}", case.name, case.era));
            // A failed case may leave answers behind: start that era afresh.
            servers.remove(&case.era);
        }
    }
    for (era, server) in servers {
        assert!(
            server.finish().success(),
            "{era}: the server did not exit cleanly at end of input"
        );
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed over stdio:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(cases.len() >= 150, "only {} stdio cases", cases.len());
}

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
