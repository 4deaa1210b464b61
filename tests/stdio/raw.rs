//! `delphi-mcp serve` over raw stdio pipes: the seed article's rules (one JSON object per line,
//! ids echoed exactly, notifications unanswered, input handled as it arrives, split and merged
//! writes, clean exit at end of input) and both protocol eras.

use crate::support;
use crate::support::abi_lib::fixture_library;
use crate::support::server::{initialize, meta_2026, Server};
use crate::support::server_exe;
use serde_json::{json, Value};
use std::process::{Command, Stdio};

fn call(id: Value, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}})
}

fn text(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn seed_request_file_gets_one_answer_per_request_in_order() {
    // The seed article's request file, with this library's tools.
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"Name":"Zoë"}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool"}}"#,
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"add","arguments":{"A":1,"B":2}}}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#,
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("requests.txt");
    std::fs::write(&file, requests.join("\n") + "\n").expect("write requests");
    let output = Command::new(server_exe())
        .arg("serve")
        .arg(fixture_library(&[]))
        .arg("--log-level")
        .arg("debug")
        .stdin(std::fs::File::open(&file).expect("open requests"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run serve");
    assert!(output.status.success(), "exit status {:?}", output.status);
    let stdout = String::from_utf8(output.stdout).expect("stdout is UTF-8");
    let answers: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect();
    let ids: Vec<Value> = answers.iter().map(|a| a["id"].clone()).collect();
    assert_eq!(
        ids,
        vec![json!(1), json!(2), json!(3), json!(4), json!("a"), json!(6)],
        "{stdout}"
    );
    assert_eq!(answers[0]["result"]["protocolVersion"], "2025-06-18");
    assert!(answers[1]["result"]["tools"]
        .as_array()
        .is_some_and(|t| !t.is_empty()));
    assert_eq!(
        answers[2]["result"]["structuredContent"],
        json!({"result": "Hello, Zoë!"})
    );
    assert!(
        stdout.contains("Hello, Zoë!"),
        "UTF-8 is written as is: {stdout}"
    );
    assert_eq!(answers[3]["error"]["code"], -32602);
    assert_eq!(
        answers[4]["result"]["structuredContent"],
        json!({"result": 3})
    );
    assert_eq!(answers[5]["result"], json!({}));
    // Logs went to stderr, not stdout.
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("library loaded"), "{stderr}");
}

#[test]
fn each_reply_arrives_before_the_next_request_is_written() {
    let mut server = Server::start(&fixture_library(&[]), &[]);
    let answer = server.request(initialize(json!(0), "2025-11-25"));
    assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    // Ids come back exactly: strings, numbers, big numbers.
    for id in [
        json!("a"),
        json!(7),
        json!("x-1 é"),
        json!(9007199254740993i64),
        json!(-3),
    ] {
        let answer = server.request(call(id.clone(), "add", json!({"A": 20, "B": 22})));
        assert_eq!(
            answer["result"]["structuredContent"]["result"], 42,
            "{answer}"
        );
    }

    // A notification gets no answer: the next line is the ping's.
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}));
    let answer = server.request(json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}));
    assert_eq!(answer["result"], json!({}));

    // A request split across writes (inside a multi-byte character, too).
    let line = format!("{}\n", call(json!(10), "greet", json!({"Name": "日本"})));
    let bytes = line.as_bytes();
    let cut = line.find('日').expect("character") + 1;
    server.write(&bytes[..cut]);
    server.write(&bytes[cut..]);
    let answer = server.receive();
    assert_eq!(answer["id"], 10);
    assert_eq!(
        answer["result"]["structuredContent"]["result"],
        "Hello, 日本!"
    );

    // Two requests in one write: two answers, in order.
    let both = format!(
        "{}\n{}\n",
        call(json!(11), "is_even", json!({"N": 3})),
        call(json!(12), "is_even", json!({"N": 4}))
    );
    server.write(both.as_bytes());
    let first = server.receive();
    let second = server.receive();
    assert_eq!(
        (first["id"].clone(), second["id"].clone()),
        (json!(11), json!(12))
    );
    assert_eq!(first["result"]["structuredContent"]["result"], false);
    assert_eq!(second["result"]["structuredContent"]["result"], true);

    // CRLF line ends are accepted.
    server.write(format!("{}\r\n", call(json!(13), "add", json!({"A": 1, "B": 1}))).as_bytes());
    assert_eq!(server.receive()["result"]["structuredContent"]["result"], 2);

    let status = server.finish();
    assert!(status.success(), "clean exit at end of input: {status:?}");
}

#[test]
fn raw_argument_text_is_checked() {
    let mut server = Server::start(&fixture_library(&[]), &[]);
    server.request(initialize(json!(0), "2025-06-18"));
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    // Duplicate keys are seen although a parsed JSON object would keep only the last.
    server.write(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"A\":1,\"B\":2,\"A\":5}}}\n");
    let answer = server.receive();
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(
        text(&answer).contains("argument \"A\": given more than once"),
        "{answer}"
    );
    assert!(
        answer["result"].get("structuredContent").is_none(),
        "{answer}"
    );

    // Exact integers beyond 2^53 and integral numbers written with a fraction or exponent.
    let answer = server.request(call(
        json!(2),
        "echo_u64",
        json!({"Value": 18446744073709551615u64}),
    ));
    assert_eq!(
        answer["result"]["structuredContent"]["result"],
        json!(18446744073709551615u64)
    );
    server.write(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"A\":9007199254740993,\"B\":0}}}\n");
    assert_eq!(
        server.receive()["result"]["structuredContent"]["result"],
        json!(9007199254740993i64)
    );
    server.write(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"A\":2.0,\"B\":3e2}}}\n");
    assert_eq!(
        server.receive()["result"]["structuredContent"]["result"],
        302
    );
    server.write(b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"A\":4503599627370496.5,\"B\":0}}}\n");
    let answer = server.receive();
    assert!(text(&answer).contains("not an integer"), "{answer}");

    // Arguments that are not an object do not make a valid tools/call (-32602).
    let answer = server.request(call(json!(6), "add", json!([1, 2])));
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let answer = server.request(call(json!(7), "add", json!("A=1")));
    assert_eq!(answer["error"]["code"], -32602, "{answer}");

    // A line that is not JSON: parse error with a null id; the server keeps serving.
    server.write(b"this is not json\n");
    let answer = server.receive();
    assert_eq!(
        (answer["id"].clone(), answer["error"]["code"].clone()),
        (Value::Null, json!(-32700))
    );
    let answer = server.request(json!({"jsonrpc": "2.0", "id": 8, "method": "ping"}));
    assert_eq!(answer["result"], json!({}));

    // An unknown method.
    let answer = server.request(json!({"jsonrpc": "2.0", "id": 9, "method": "no/such"}));
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    assert!(server.finish().success());
}

#[test]
fn every_handshake_version_is_negotiated() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut server = Server::start(&fixture_library(&[]), &[]);
        let answer = server.request(initialize(json!(1), version));
        assert_eq!(answer["result"]["protocolVersion"], version, "{answer}");
        assert_eq!(answer["result"]["serverInfo"]["name"], "abilib");
        assert!(
            answer["result"]["capabilities"]["tools"].is_object(),
            "{answer}"
        );
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let list = server.request(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
        let tools = list["result"]["tools"].as_array().expect("tools");
        let add = tools
            .iter()
            .find(|t| t["name"] == "add")
            .expect("add listed");
        assert_eq!(add["title"], "Add");
        assert_eq!(add["annotations"]["readOnlyHint"], true);
        assert_eq!(add["inputSchema"]["additionalProperties"], false);
        assert!(
            add.get("x-delphi").is_none(),
            "marshalling data is not sent: {add}"
        );
        assert!(tools.iter().any(|t| t["name"] == "mcp_get_version"));
        let answer = server.request(call(json!(3), "add", json!({"A": 1, "B": 1})));
        assert_eq!(
            answer["result"]["structuredContent"]["result"], 2,
            "{version}: {answer}"
        );
        assert!(server.finish().success());
    }
    // An unknown version gets the newest handshake version.
    let mut server = Server::start(&fixture_library(&[]), &[]);
    let answer = server.request(initialize(json!(1), "1999-01-01"));
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-11-25",
        "{answer}"
    );
    assert!(server.finish().success());
}

#[test]
fn stateless_era_serves_discover_and_per_request_meta() {
    let mut server = Server::start(&fixture_library(&[]), &["--name", "fixture"]);
    let answer = server.request(json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta_2026()}}));
    let versions = answer["result"]["supportedVersions"]
        .as_array()
        .expect("supportedVersions")
        .clone();
    for version in [
        "2026-07-28",
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
        "2024-11-05",
    ] {
        assert!(
            versions.contains(&json!(version)),
            "{version} missing: {answer}"
        );
    }
    assert_eq!(
        answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "fixture",
        "{answer}"
    );

    let list = server.request(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta_2026()}}));
    assert!(
        list["result"]["ttlMs"].as_u64().is_some(),
        "cache hint ttlMs: {list}"
    );
    assert!(
        list["result"]["cacheScope"].is_string(),
        "cache hint cacheScope: {list}"
    );
    assert!(list["result"]["tools"]
        .as_array()
        .is_some_and(|t| t.len() > 1));

    let answer = server.request(
        json!({"jsonrpc": "2.0", "id": "c", "method": "tools/call", "params": {
        "_meta": meta_2026(), "name": "next_color", "arguments": {"Color": "ckBlue"}}}),
    );
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"result": "ckRed"}),
        "{answer}"
    );
    assert_eq!(
        serde_json::from_str::<Value>(&text(&answer)).ok(),
        Some(json!({"result": "ckRed"}))
    );

    // Without the required _meta a 2026-07-28 request is refused.
    let answer = server.request(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
    );
    assert!(answer["error"]["code"].is_i64(), "{answer}");
    assert!(server.finish().success());
}

#[test]
fn log_level_controls_stderr_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("requests.txt");
    std::fs::write(&file, format!("{}\n", initialize(json!(1), "2025-06-18"))).expect("write");
    let run = |level: &str| {
        Command::new(server_exe())
            .arg("serve")
            .arg(fixture_library(&[]))
            .args(["--log-level", level])
            .stdin(std::fs::File::open(&file).expect("open"))
            .output()
            .expect("run serve")
    };
    let quiet = run("error");
    let verbose = run("debug");
    assert!(quiet.status.success() && verbose.status.success());
    assert!(
        quiet.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&quiet.stderr)
    );
    assert!(!verbose.stderr.is_empty());
    assert_eq!(
        quiet.stdout, verbose.stdout,
        "stdout carries the same protocol at any log level"
    );
}

#[test]
fn load_errors_are_reported_on_stderr_with_the_library_name() {
    let library = fixture_library(&["WRONG_ABI"]);
    let output = Command::new(server_exe())
        .arg("serve")
        .arg(&library)
        .stdin(Stdio::null())
        .output()
        .expect("run serve");
    assert!(!output.status.success());
    assert!(output.stdout.is_empty(), "nothing on stdout");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("ABI version 99"), "{stderr}");
}

#[test]
fn several_library_threads_pipeline_requests() {
    let mut server = Server::start(&fixture_library(&["THREAD_SAFE"]), &["--threads", "2"]);
    server.request(initialize(json!(0), "2025-11-25"));
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let batch: String = (1..=20)
        .map(|i| format!("{}\n", call(json!(i), "add", json!({"A": i, "B": 1000}))))
        .collect();
    server.write(batch.as_bytes());
    let mut seen: Vec<i64> = (1..=20)
        .map(|_| {
            let answer = server.receive();
            let id = answer["id"].as_i64().expect("numeric id");
            assert_eq!(
                answer["result"]["structuredContent"]["result"],
                json!(id + 1000),
                "{answer}"
            );
            id
        })
        .collect();
    seen.sort();
    assert_eq!(seen, (1..=20).collect::<Vec<i64>>());
    assert!(server.finish().success());
}

#[test]
fn answers_wait_for_a_full_output_pipe_and_keep_their_order() {
    // Every request is written before any answer is read: the answers (about 300 KB) fill the
    // stdout pipe, so most of them wait for the client, written by the library thread until
    // the pipe is full and then by the writer; end of input comes while they wait.
    use std::io::{Read, Write};
    const CALLS: i64 = 2000;
    let mut child = Command::new(server_exe())
        .arg("serve")
        .arg(fixture_library(&[]))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start delphi-mcp serve");
    let mut input = format!(
        "{}\n{}\n",
        initialize(json!(0), "2025-11-25"),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    );
    for i in 1..=CALLS {
        input.push_str(&format!(
            "{}\n",
            call(json!(i), "add", json!({"A": i, "B": 1000}))
        ));
    }
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(input.as_bytes())
        .expect("write the requests");
    drop(stdin);
    let mut output = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut output)
        .expect("read the answers");
    assert!(child.wait().expect("wait").success());
    let answers: Vec<Value> = output
        .lines()
        .map(|line| serde_json::from_str(line).expect("an answer per line"))
        .collect();
    assert_eq!(answers.len() as i64, CALLS + 1, "one answer per request");
    assert_eq!(answers[0]["id"], json!(0));
    for (answer, i) in answers[1..].iter().zip(1..) {
        assert_eq!(answer["id"], json!(i), "in request order");
        assert_eq!(
            answer["result"]["structuredContent"]["result"],
            json!(i + 1000),
            "{answer}"
        );
    }
}

/// The request file of the seed article's "Testing It by Hand", byte for byte.
const SEED_REQUEST_FILE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"installed_delphi_versions","arguments":{}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool"}}
"#;

#[test]
fn seed_request_file_on_the_delphi_versions_project_folder() {
    // `serve DIR` builds the project when stale (here it was just built) and serves it.
    let library = support::fpc::build_example("delphi-versions");
    let project = library
        .parent()
        .and_then(std::path::Path::parent)
        .expect("project folder");
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("requests.txt");
    std::fs::write(&file, SEED_REQUEST_FILE).expect("write requests");
    let output = Command::new(server_exe())
        .arg("serve")
        .arg(project)
        .env_remove("BDS")
        .stdin(std::fs::File::open(&file).expect("open requests"))
        .output()
        .expect("run serve");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answers: Vec<Value> = String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON line"))
        .collect();
    let ids: Vec<Value> = answers.iter().map(|a| a["id"].clone()).collect();
    assert_eq!(
        ids,
        vec![json!(1), json!(2), json!(3), json!(4)],
        "one answer per request, in order"
    );
    assert_eq!(answers[0]["result"]["protocolVersion"], "2025-06-18");
    let names: Vec<&str> = answers[1]["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"delphi_version") && names.contains(&"installed_delphi_versions"),
        "{names:?}"
    );
    assert_eq!(answers[2]["result"]["isError"], false, "{}", answers[2]);
    assert!(answers[2]["result"]["structuredContent"]["result"]
        .as_str()
        .is_some_and(|text| text.starts_with("No Delphi installations found")));
    assert_eq!(answers[3]["error"]["code"], -32602);
}

#[test]
fn library_output_on_stdout_goes_to_stderr() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("requests.txt");
    let requests = [
        initialize(json!(1), "2025-06-18").to_string(),
        call(json!(2), "chatty", json!({})).to_string(),
        call(json!(3), "add", json!({"A": 1, "B": 2})).to_string(),
    ];
    std::fs::write(&file, requests.join("\n") + "\n").expect("write");
    let output = Command::new(server_exe())
        .arg("serve")
        .arg(fixture_library(&[]))
        .args(["--log-level", "error"])
        .stdin(std::fs::File::open(&file).expect("open"))
        .output()
        .expect("run serve");
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let ids: Vec<Value> = stdout
        .lines()
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
                ["id"]
                .clone()
        })
        .collect();
    assert_eq!(ids, vec![json!(1), json!(2), json!(3)]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("noise from Pascal on standard output"),
        "{stderr}"
    );
}

#[test]
fn notifications_before_a_session_do_not_stop_the_server() {
    let mut server = Server::start(&fixture_library(&[]), &[]);
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let answer = server.request(json!({"jsonrpc": "2.0", "id": 0, "method": "ping"}));
    assert_eq!(answer["result"], json!({}));
    // A refused stateless request does not start a session either.
    let answer = server.request(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
    );
    let answer = server.request(initialize(json!(2), "2025-06-18"));
    assert_eq!(answer["result"]["protocolVersion"], "2025-06-18");
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let answer = server.request(call(json!(3), "add", json!({"A": 1, "B": 2})));
    assert_eq!(answer["result"]["structuredContent"]["result"], 3);
    assert!(server.finish().success());
}
