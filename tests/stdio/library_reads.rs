//! Who reads stdin in process on Linux (`docs/runtime.md`, "threads"): the stdio thread reads
//! the handshake, then hands reading to the library thread, which reads the calls itself; the
//! stdio thread sleeps through a run of calls.

use crate::support;
use crate::support::procs::thread_switches;
use crate::support::server_exe;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

#[test]
fn the_stdio_thread_reads_the_handshake_and_the_library_thread_the_calls() {
    let faults = support::fpc::build_example("faults");
    let mut child = Command::new(server_exe())
        .arg("serve")
        .arg(&faults)
        .args(["--log-level", "trace"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start delphi-mcp serve");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut stderr = child.stderr.take().expect("stderr");
    // Read meanwhile, so that a full pipe never blocks the server.
    let log = std::thread::spawn(move || {
        let mut log = String::new();
        stderr.read_to_string(&mut log).expect("read the log");
        log
    });
    let mut send = move |message: Value| {
        // One write per line, as clients write.
        stdin
            .write_all(format!("{message}\n").as_bytes())
            .expect("write a message");
    };
    let mut receive = move || -> Value {
        let mut line = String::new();
        stdout.read_line(&mut line).expect("read an answer");
        serde_json::from_str(&line).expect("an answer is JSON")
    };

    send(support::server::initialize(json!(0), "2025-11-25"));
    assert_eq!(receive()["id"], 0);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let main_thread = server_exe()
        .file_name()
        .and_then(|name| name.to_str())
        .map(|name| name.chars().take(15).collect::<String>())
        .expect("the server's file name");
    let before = thread_switches(child.id(), &main_thread);
    for id in 1..=200 {
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "count_calls", "arguments": {}}}));
        let answer = receive();
        assert_eq!(answer["result"]["structuredContent"]["result"], json!(id));
    }
    let woken = thread_switches(child.id(), &main_thread) - before;
    // Reading the calls, it would have slept and been woken for each.
    assert!(
        woken < 50,
        "the stdio thread was switched {woken} times in 200 calls"
    );

    drop(send); // closes stdin: the server ends
    assert!(child.wait().expect("the server ends").success());
    let log = log.join().expect("the log reader");
    let handed: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("stdin handed"))
        .collect();
    // The stdio thread read first: reading went to the library thread before anything was
    // handed to the stdio thread. (A call running past the watchdog's millisecond, as a first
    // call of a debug build can, hands reading back and forth once more.)
    assert!(
        handed
            .first()
            .is_some_and(|first| first.contains("handed back to the library thread")),
        "{handed:#?}"
    );
    assert!(handed.len() < 10, "{handed:#?}");
}
