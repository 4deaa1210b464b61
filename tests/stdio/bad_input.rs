//! The bad-input suite over stdio (`tests/support/bad_input.rs`): one server per protocol era
//! (an era is fixed per connection), a server of its own for each case before any lifecycle.

use crate::support::bad_input::{
    cases, check, initialize, library, liveness, Case, HANDSHAKE_ERAS,
};
use crate::support::server::{meta_2026, Server};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;

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

/// A library whose `mcp_init` fails: `serve` says why on stderr and exits with 1, writing no
/// answer (it sets up its transport while `mcp_init` runs, and reads nothing before it ends).
#[test]
fn a_failing_mcp_init_is_reported_before_any_answer() {
    let library = crate::support::abi_lib::fixture_library(&["FAIL_INIT"]);
    let mut server = Server::start_logged(&library, &[]);
    // The server may have ended before reading it.
    server.send_unless_ended(&crate::support::server::initialize(json!(1), "2025-06-18"));
    assert_eq!(
        server.receive_text(),
        None,
        "an answer from a library that failed"
    );
    let (status, log) = server.finish_logged();
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(
        log.contains("initialising library") && log.contains("EFixtureError: database not found"),
        "{log}"
    );
}
