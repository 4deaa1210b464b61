//! Who reads stdin in process on Linux (`docs/runtime.md`, "threads"): the stdio thread reads
//! the handshake, then hands reading to the library thread, which reads the calls itself; the
//! stdio thread sleeps through a run of calls. Reading them, the library thread measures
//! polling against sleeping at once (`stdio/wait_choice.rs`).

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

/// The tries of the library thread's choice between polling and sleeping at once, as logged:
/// (the way tried, its median wait, the median of the way in use, whether it was kept).
fn tries(log: &str) -> Vec<(String, f64, f64, bool)> {
    log.lines()
        .filter(|line| line.contains("stdin waits: medians of a try"))
        .map(|line| {
            let field = |name: &str| {
                line.split_whitespace()
                    .find_map(|word| word.strip_prefix(name))
                    .map(|value| value.trim_matches('"').to_string())
                    .unwrap_or_default()
            };
            let micros = |name: &str| field(name).parse::<f64>().unwrap_or(f64::NAN);
            (
                field("tried="),
                micros("tried_us="),
                micros("in_use_us="),
                field("kept=") == "true",
            )
        })
        .collect()
}

#[test]
fn the_library_thread_tries_polling_against_sleeping_while_reading_calls() {
    let faults = support::fpc::build_example("faults");
    for flags in [
        &["--log-level", "debug"][..],
        &["--log-level", "debug", "--busy-poll", "0"],
    ] {
        let mut server = Server::start_logged(&faults, flags);
        server.request(initialize(json!(0), "2025-11-25"));
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        for id in 1..=200 {
            let answer = server.request(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "count_calls", "arguments": {}}}));
            assert_eq!(answer["result"]["structuredContent"]["result"], json!(id));
        }
        let (status, log) = server.finish_logged();
        assert!(status.success());
        let tries = tries(&log);
        if flags.contains(&"--busy-poll") {
            // Polling is off: nothing to choose.
            assert!(tries.is_empty(), "{flags:?}: {tries:?}");
            continue;
        }
        // It sleeps first, so the first try (after 24 waits for a line, well within 200
        // calls) is of polling; each try compares medians of waits it measured.
        let Some((first, ..)) = tries.first() else {
            panic!("{flags:?}: no try in 200 calls:\n{log}");
        };
        assert_eq!(first, "polling", "{tries:?}");
        for (tried, tried_us, in_use_us, _) in &tries {
            assert!(tried == "polling" || tried == "sleeping", "{tries:?}");
            assert!(*tried_us > 0.0 && *in_use_us > 0.0, "{tries:?}");
            // Waits count as 1 ms at most.
            assert!(*tried_us <= 1000.0 && *in_use_us <= 1000.0, "{tries:?}");
        }
    }
}
