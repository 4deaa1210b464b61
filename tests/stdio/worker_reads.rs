//! An isolated worker whose library thread reads the server's frames itself (Linux, a library
//! without call contexts: the faults example) still ends with its server, even in the middle
//! of a call that never returns (`docs/runtime.md`, "Isolation").

use crate::support;
use crate::support::procs::{children, cpu_ns, running};
use crate::support::server::{initialize, Server};
use crate::support::HANG_GUARD;
use serde_json::json;
use std::time::{Duration, Instant};

/// Waits until `condition` holds, looking every few milliseconds; false after [`HANG_GUARD`].
fn eventually(mut condition: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + HANG_GUARD;
    while Instant::now() < deadline {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    condition()
}

#[test]
fn a_worker_in_a_call_ends_when_its_server_is_killed() {
    let faults = support::fpc::build_example("faults");
    let mut server = Server::start(&faults, &["--isolate", "--call-timeout", "0"]);
    server.request(initialize(json!(0), "2025-11-25"));
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let answer = server.request(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "process_id", "arguments": {}}}));
    let worker = answer["result"]["structuredContent"]["result"]
        .as_u64()
        .and_then(|pid| u32::try_from(pid).ok())
        .expect("the worker's pid");
    assert_eq!(children(server.pid()), vec![worker]);
    let before = cpu_ns(worker);
    server.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "loop_forever", "arguments": {}}}));
    // The call runs once the worker spends a CPU's time on it.
    assert!(
        eventually(|| cpu_ns(worker) > before + 300_000_000),
        "the call never ran"
    );
    // SAFETY: sends SIGKILL to the server process this test started.
    unsafe { libc::kill(server.pid() as i32, libc::SIGKILL) };
    let ended = eventually(|| !running(worker));
    if !ended {
        // SAFETY: ends the looping worker this test started, so it does not outlive the test.
        unsafe { libc::kill(worker as i32, libc::SIGKILL) };
    }
    assert!(ended, "the worker outlived its server");
}
