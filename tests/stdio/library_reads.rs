//! Who reads stdin in process on Linux (`docs/runtime.md`, "threads"): the stdio thread reads
//! the handshake, then hands reading to the library thread, which reads the calls itself; the
//! stdio thread sleeps through a run of calls.

use crate::support;
use crate::support::procs::thread_switches;
use crate::support::server::{initialize, Server};
use serde_json::json;

#[test]
fn the_stdio_thread_reads_the_handshake_and_the_library_thread_the_calls() {
    let faults = support::fpc::build_example("faults");
    let mut server = Server::start_logged(&faults, &["--log-level", "trace"]);
    server.request(initialize(json!(0), "2025-11-25"));
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    // The main thread runs the stdio transport; it has the binary's name.
    let before = thread_switches(server.pid(), "delphi-mcp");
    for id in 1..=200 {
        let answer = server.request(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "count_calls", "arguments": {}}}));
        assert_eq!(answer["result"]["structuredContent"]["result"], json!(id));
    }
    let woken = thread_switches(server.pid(), "delphi-mcp") - before;
    // Reading the calls, it would have slept and been woken for each.
    assert!(
        woken < 50,
        "the stdio thread was switched {woken} times in 200 calls"
    );

    let (status, log) = server.finish_logged();
    assert!(status.success());
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
            .is_some_and(|first| first.contains("handed to the library thread")),
        "{handed:#?}"
    );
    assert!(handed.len() < 10, "{handed:#?}");
}
