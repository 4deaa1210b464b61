//! The stdio transport while tool calls run (the faults example's `sleep_for`): requests that
//! do not need the library are answered meanwhile, `notifications/cancelled` means no answer is
//! ever written for that call, answers of calls that finish are written at end of input, and
//! the server exits at end of input without waiting for a cancelled call still in the library.
//!
//! The long calls sleep for longer than the tests' hang guard, so a server that waited for
//! them would fail the test instead of passing slowly.

use crate::support;
use crate::support::server::{initialize, meta_2026, Server};
use crate::support::server_exe;
use serde_json::{json, Value};
use std::process::{Command, Stdio};

/// Longer than the hang guard: a test that waits for such a call fails.
const LONGER_THAN_THE_GUARD_MS: i64 = 600_000;

fn faults() -> std::path::PathBuf {
    support::fpc::build_example("faults")
}

fn sleep_call(id: Value, ms: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "sleep_for", "arguments": {"Milliseconds": ms}}})
}

fn cancel(raw_id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{raw_id},"reason":"test"}}}}"#
    )
}

#[test]
fn requests_are_answered_while_a_call_runs_and_a_cancelled_call_is_never_answered() {
    let mut server = Server::start(&faults(), &[]);
    server.request(initialize(json!(0), "2025-11-25"));
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    // A call that keeps the library busy, then requests that do not need the library.
    server.send(&sleep_call(json!("a"), LONGER_THAN_THE_GUARD_MS));
    server.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}));
    server.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
    let ping = server.receive();
    assert_eq!(
        (ping["id"].clone(), ping["result"].clone()),
        (json!(2), json!({}))
    );
    let list = server.receive();
    assert_eq!(list["id"], 3);
    assert!(list["result"]["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|t| t["name"] == "sleep_for")));

    // A call waiting for its turn behind the running one, cancelled before it starts.
    server.send(&sleep_call(json!(4), 1));
    server.write(format!("{}\n", cancel("4")).as_bytes());
    // The running call, cancelled under another spelling of its id ("\u0061" is "a").
    server.write(format!("{}\n", cancel(r#""\u0061""#)).as_bytes());
    // Neither gets an answer: the next line is this ping's.
    let answer = server.request(json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}));
    assert_eq!(answer["result"], json!({}));

    // End of input: the server exits although the cancelled call is still in the library.
    assert!(server.finish().success());
}

#[test]
fn stateless_requests_are_answered_while_a_call_runs() {
    let mut server = Server::start(&faults(), &[]);
    let mut call = sleep_call(json!(1), LONGER_THAN_THE_GUARD_MS);
    call["params"]["_meta"] = meta_2026();
    server.send(&call);
    let discover = server.request(
        json!({"jsonrpc": "2.0", "id": 2, "method": "server/discover",
        "params": {"_meta": meta_2026()}}),
    );
    assert!(
        discover["result"]["supportedVersions"].is_array(),
        "{discover}"
    );
    let list = server.request(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
        "params": {"_meta": meta_2026()}}));
    assert!(list["result"]["tools"].is_array(), "{list}");
    // The connection is stateless now: initialize is refused, under its id.
    let answer = server.request(initialize(json!(4), "2025-11-25"));
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    server.write(format!("{}\n", cancel("1")).as_bytes());
    assert!(server.finish().success());
}

#[test]
fn answers_of_calls_that_finish_are_written_at_end_of_input() {
    let requests = [
        initialize(json!(1), "2025-06-18"),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        sleep_call(json!(2), 300),
        json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
            "params": {"name": "count_calls", "arguments": {}}}),
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("requests.txt");
    let text: Vec<String> = requests.iter().map(Value::to_string).collect();
    std::fs::write(&file, text.join("\n") + "\n").expect("write requests");
    let output = Command::new(server_exe())
        .arg("serve")
        .arg(faults())
        .stdin(std::fs::File::open(&file).expect("open requests"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output()
        .expect("run serve");
    assert!(output.status.success(), "{:?}", output.status);
    let answers: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    let ids: Vec<Value> = answers.iter().map(|a| a["id"].clone()).collect();
    // The ping's answer may be written before the sleeping call's (it waits at most a moment
    // behind it); the calls are answered in order.
    assert_eq!(ids.len(), 4, "{answers:?}");
    assert_eq!(ids[0], json!(1));
    let position = |id: i64| ids.iter().position(|i| *i == json!(id)).expect("answered");
    assert!(position(2) < position(4), "{ids:?}");
    assert_eq!(
        answers[position(2)]["result"]["structuredContent"]["result"],
        300
    );
    assert_eq!(
        answers[position(4)]["result"]["structuredContent"]["result"],
        1
    );
}

#[test]
fn requests_split_anywhere_around_calls_short_and_long_are_each_answered_once_in_order() {
    // Calls of 0 to 4 ms (longer ones hand reading from the library thread to the stdio
    // thread and back), pings and call counts, written in pieces that split lines anywhere.
    let mut server = Server::start(&faults(), &[]);
    server.request(initialize(json!(0), "2025-11-25"));
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |below: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % below
    };
    const REQUESTS: i64 = 300;
    let mut text = String::new();
    let mut sleeps = std::collections::HashMap::new();
    for id in 1..=REQUESTS {
        let request = match next(3) {
            0 => {
                let ms = next(5) as i64;
                sleeps.insert(id, ms);
                sleep_call(json!(id), ms)
            }
            1 => json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
            _ => json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "count_calls", "arguments": {}}}),
        };
        text.push_str(&request.to_string());
        text.push('\n');
    }
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let end = (at + 1 + next(400) as usize).min(bytes.len());
        server.write(&bytes[at..end]);
        at = end;
    }
    let mut seen = std::collections::HashSet::new();
    let mut last_count = 0;
    for _ in 0..REQUESTS {
        let answer = server.receive();
        let id = answer["id"].as_i64().expect("numeric id");
        assert!(seen.insert(id), "answered twice: {answer}");
        let result = &answer["result"];
        if let Some(ms) = sleeps.get(&id) {
            assert_eq!(result["structuredContent"]["result"], json!(ms), "{answer}");
        } else if result.get("structuredContent").is_some() {
            // Calls run in request order: each counts one more than the one before it.
            let count = result["structuredContent"]["result"]
                .as_i64()
                .expect("count");
            assert!(count > last_count, "{answer} after count {last_count}");
            last_count = count;
        } else {
            assert_eq!(result, &json!({}), "a ping's answer: {answer}");
        }
    }
    assert_eq!(seen.len() as i64, REQUESTS);
    assert!(server.finish().success());
}
