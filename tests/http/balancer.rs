//! Scale-out: three `delphi-mcp serve --http` instances behind HAProxy with
//! `deploy/haproxy.cfg` (`tests/support/balancer.rs`). The official Python client calls the calc
//! example's tools through the balancer in a handshake era (the session stays on one instance
//! through the `Mcp-Session-Id` stick table) and in the stateless era (calls spread over the
//! instances); the conformance suite runs through it against examples/everything; an instance
//! killed while calls run loses no answer. Skipped with a message where HAProxy is not
//! installed (CI installs it).

use super::conformance::run_suite_at;
use crate::support::balancer::{haproxy, Balancer};
use crate::support::http::{http_request, tools_call_2026};
use crate::support::repo;
use crate::support::tools::{python, python_client_stdout};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

const TOKEN: &str = "balancer-test-token";

/// Tools whose answers depend on earlier calls in the same process (a memory cell, a call
/// counter, the module being open): in the stateless era consecutive calls may reach different
/// instances, so the stateless run leaves them out (docs/deploy.md, "State").
const STATEFUL_TOOLS: &[&str] = &[
    "calc_store_memory",
    "calc_recall_memory",
    "calc_describe",
    "calc_open_module",
    "calc_close_module",
];

fn calc_manifest(library: &Path) -> std::path::PathBuf {
    library
        .parent()
        .and_then(Path::parent)
        .expect("library in <project>/build")
        .join("generated/tools.json")
}

/// Runs the Python client through the balancer with `cases` in `mode` (`some`: the cases
/// need not call every tool) and checks its report.
fn python_client(balancer: &Balancer, library: &Path, cases: &Path, mode: &str, some: bool) {
    let mut command = Command::new(python());
    command
        .arg(repo().join("tests/clients/http_python_client.py"))
        .arg(&balancer.endpoint)
        .arg(TOKEN)
        .arg(library)
        .arg(calc_manifest(library))
        .arg(cases)
        .arg(mode);
    if some {
        command.arg("some-tools");
    }
    let stdout = python_client_stdout(&mut command, &format!("through HAProxy, {mode}"), 30);
    assert!(stdout.contains("ok   refused without token"), "{stdout}");
}

fn difference(after: &[u64], before: &[u64]) -> Vec<u64> {
    after.iter().zip(before).map(|(a, b)| a - b).collect()
}

#[test]
fn python_client_through_haproxy_both_eras() {
    let Some(haproxy) = haproxy() else { return };
    let library = crate::support::fpc::build_example("calc");
    let balancer = Balancer::start(&haproxy, &library, Some(TOKEN));
    let all_cases = repo().join("tests/clients/calc_cases.json");
    let cases: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(&all_cases).expect("cases")).expect("cases JSON");

    // Handshake era: every case, the stateful ones included, in one session. They pass only
    // if the whole session reached one instance.
    python_client(&balancer, &library, &all_cases, "legacy", false);
    let after_session = balancer.calls_per_instance();
    let mut sorted = after_session.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        vec![0, 0, cases.len() as u64 + 1],
        "the session's calls (every case and mcp_get_version) all on one instance: {after_session:?}"
    );

    // Stateless era: the cases that depend on no earlier call, spread over the instances.
    let stateless: Vec<&serde_json::Value> = cases
        .iter()
        .filter(|case| {
            let tool = case["tool"].as_str().unwrap_or_default();
            let needs_open_module = case["error_contains"]
                .as_array()
                .is_some_and(|parts| parts.iter().any(|p| p == "module not open"));
            !STATEFUL_TOOLS.contains(&tool) && !needs_open_module
        })
        .collect();
    let folder = tempfile::tempdir().expect("cases folder");
    let stateless_cases = folder.path().join("stateless_cases.json");
    std::fs::write(
        &stateless_cases,
        serde_json::to_vec(&stateless).expect("cases JSON"),
    )
    .expect("write the cases");
    python_client(&balancer, &library, &stateless_cases, "2026-07-28", true);
    let spread = difference(&balancer.calls_per_instance(), &after_session);
    assert_eq!(
        spread.iter().sum::<u64>(),
        stateless.len() as u64 + 1,
        "every stateless call counted once: {spread:?}"
    );
    assert!(
        spread.iter().filter(|calls| **calls > 0).count() >= 2,
        "stateless calls reached several instances: {spread:?}"
    );
}

#[test]
fn conformance_through_haproxy() {
    let Some(haproxy) = haproxy() else { return };
    // The suite's reference server in Pascal, as in `http::conformance`.
    let library = crate::support::fpc::build_example("everything");
    let balancer = Balancer::start(&haproxy, &library, None);
    run_suite_at(
        &balancer.endpoint,
        "0.1.16",
        &[],
        "expected-failures-2025.yaml",
        &[
            "server-initialize",
            "tools-list",
            "server-sse-multiple-streams",
        ],
    );
    run_suite_at(
        &balancer.endpoint,
        "0.2.0-alpha.12",
        &["--spec-version", "2026-07-28"],
        "expected-failures-2026.yaml",
        &["tools-list", "dns-rebinding-protection"],
    );
}

/// One stateless `calc_add_integers` call through the balancer; `Err` says what went wrong.
fn add_through(authority: &str, index: i64) -> Result<(), String> {
    let (a, b) = (index, index * 3 - 7);
    let body = tools_call_2026(
        index,
        "calc_add_integers",
        &format!(r#"{{"A":{a},"B":{b}}}"#),
    );
    let bearer = format!("Bearer {TOKEN}");
    let response = http_request(
        authority,
        "POST",
        "/mcp",
        &[
            ("Authorization", bearer.as_str()),
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "calc_add_integers"),
        ],
        body.as_bytes(),
    );
    let text = response.text();
    let answer: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    if response.status == 200
        && answer["id"] == index
        && answer["result"]["structuredContent"]["result"] == a + b
    {
        Ok(())
    } else {
        Err(format!("call {index}: {} {text}", response.status))
    }
}

#[test]
fn instance_killed_mid_run_loses_no_answer() {
    let Some(haproxy) = haproxy() else { return };
    let library = crate::support::fpc::build_example("calc");
    let mut balancer = Balancer::start(&haproxy, &library, Some(TOKEN));
    const CALLS: usize = 600;
    const KILL_AFTER: usize = 150;
    let next = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(AtomicUsize::new(0));
    let (reached, kill_now) = mpsc::channel::<()>();
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let (next, done, reached) = (Arc::clone(&next), Arc::clone(&done), reached.clone());
            let authority = balancer.authority.clone();
            std::thread::spawn(move || {
                let mut failures = Vec::new();
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    if index >= CALLS {
                        return failures;
                    }
                    if let Err(failure) = add_through(&authority, index as i64) {
                        failures.push(failure);
                    }
                    if done.fetch_add(1, Ordering::SeqCst) + 1 == KILL_AFTER {
                        let _ = reached.send(());
                    }
                }
            })
        })
        .collect();
    drop(reached);
    kill_now
        .recv_timeout(crate::support::HANG_GUARD)
        .expect("the first calls were answered");
    balancer.kill_instance(1);
    let at_kill = balancer.calls_per_instance();
    let answered_at_kill = done.load(Ordering::SeqCst);
    let failures: Vec<String> = workers
        .into_iter()
        .flat_map(|worker| worker.join().expect("worker"))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {CALLS} calls failed after an instance was killed at call {answered_at_kill}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        answered_at_kill < CALLS,
        "the instance was killed while calls ran"
    );
    let after = balancer.calls_per_instance();
    assert_eq!(after[1], 0, "instance 2 is gone");
    let survivors = after[0] + after[2] - at_kill[0] - at_kill[2];
    assert!(
        survivors > 0,
        "the surviving instances served the calls after the kill: {at_kill:?} -> {after:?}"
    );
}
