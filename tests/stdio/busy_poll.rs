//! Busy polling (`serve --busy-poll`): a server whose calls came close together polls for the
//! next one, and stops once none comes. A server left idle after a burst of calls uses
//! (almost) no CPU, in process and isolated, with the default budget and with none; calls are
//! answered right either way.
//!
//! CPU time is read from `/proc/PID/task/*/schedstat` (Linux) for the server and its workers.

use crate::support;
use crate::support::procs::{children, cpu_ns};
use crate::support::server::{initialize, Server};
use serde_json::json;
use std::time::Duration;

/// CPU nanoseconds of the server and its workers.
fn server_cpu_ns(server: &Server) -> u64 {
    let pid = server.pid();
    cpu_ns(pid) + children(pid).into_iter().map(cpu_ns).sum::<u64>()
}

fn count_calls(id: i64) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "count_calls", "arguments": {}}})
}

#[test]
fn an_idle_server_stops_polling_after_a_burst_of_calls() {
    let faults = support::fpc::build_example("faults");
    for flags in [
        &[][..],
        &["--busy-poll", "0"],
        &["--isolate"],
        &["--isolate", "--busy-poll", "0"],
    ] {
        let mut server = Server::start(&faults, flags);
        server.request(initialize(json!(0), "2025-11-25"));
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        // Back to back: the waiting threads poll between these calls.
        for id in 1..=200 {
            let answer = server.request(count_calls(id));
            assert_eq!(
                answer["result"]["structuredContent"]["result"],
                json!(id),
                "{flags:?}: {answer}"
            );
        }
        // Then nothing for a while: each polling thread gives up within its budget (200 µs
        // by default) and sleeps. One that kept polling would run for most of this time.
        let idle = Duration::from_millis(400);
        let before = server_cpu_ns(&server);
        std::thread::sleep(idle);
        let used = Duration::from_nanos(server_cpu_ns(&server).saturating_sub(before));
        assert!(
            used < idle / 8,
            "{flags:?}: the idle server ran for {used:?} of {idle:?}"
        );
        // And it still answers.
        let answer = server.request(count_calls(201));
        assert_eq!(answer["result"]["structuredContent"]["result"], json!(201));
        assert!(server.finish().success(), "{flags:?}");
    }
}
