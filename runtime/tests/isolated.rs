//! The isolated host through the Rust API, against the Free Pascal ABI fixture: the manifest and
//! load errors read as in process, `--manifest` reaches the worker, `bind!`'s `BoundLibrary`
//! and the dispatcher work through it, results over the limit, the state it reports.
//!
//! No libtest harness: the test binary is also the worker program (`isolated worker LIBRARY
//! ...`, through `WorkerCommand::current_exe(&["worker"])`). Each check runs in turn; a failed
//! assertion fails the run.

use delphi_mcp_runtime::bind::BoundLibrary;
use delphi_mcp_runtime::call::ToolError;
use delphi_mcp_runtime::dispatch::{CallControl, Dispatch};
use delphi_mcp_runtime::host::{
    ArgValue, CallError, HostStatus, Isolation, IsolationOptions, ReturnValue, WorkerStatus,
};
use delphi_mcp_runtime::{HostOptions, IsolatedHost, LibraryDispatch, LibraryHost, ToolHost};
use delphi_mcp_test_support::abi_lib::fixture_manifest;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The ABI fixture library built with `defines` (once per test process).
fn fixture_library(defines: &[&str]) -> PathBuf {
    delphi_mcp_test_support::abi_lib::fixture_library(
        Path::new(env!("CARGO_TARGET_TMPDIR")),
        defines,
    )
}

/// `workers` worker processes of this test binary.
fn isolation(workers: usize) -> IsolationOptions {
    IsolationOptions::current_exe(workers, "worker").expect("current exe")
}

fn start(defines: &[&str], options: &HostOptions) -> IsolatedHost {
    IsolatedHost::start(&fixture_library(defines), options, &isolation(1)).expect("start")
}

fn manifest_and_calls_match_the_in_process_host() {
    let options = HostOptions::default();
    let isolated = start(&[], &options);
    let in_process = LibraryHost::open(&fixture_library(&[]), &options).expect("load");
    assert_eq!(isolated.manifest_sha256(), in_process.manifest_sha256());
    assert_eq!(isolated.path(), in_process.path());
    let (add, _) = isolated.tool("add").expect("add");
    let control = CallControl::new();
    let returned = delphi_mcp_runtime::bind::block_on(isolated.call(
        add,
        vec![ArgValue::Int(40), ArgValue::Int(2)],
        &control,
    ))
    .expect("call");
    assert_eq!((returned.status, returned.value), (0, ReturnValue::Int(42)));
    let state = isolated.state();
    assert_eq!(state.isolation, Isolation::Isolated);
    assert_eq!(state.status, HostStatus::Idle);
    assert_eq!(state.workers.len(), 1);
    assert_eq!(state.workers[0].status, WorkerStatus::Idle);
    assert_eq!(state.workers[0].calls, 1);
    assert_eq!(
        state.workers[0].pid,
        isolated.worker_pids().first().copied()
    );
    assert_ne!(state.workers[0].pid, Some(std::process::id()));
}

fn load_errors_read_as_in_process() {
    let options = HostOptions::default();
    for defines in [&["WRONG_ABI"][..], &["FAIL_INIT"], &["NO_MANIFEST"]] {
        let library = fixture_library(defines);
        let in_process = LibraryHost::open(&library, &options).expect_err("refused in process");
        let isolated =
            IsolatedHost::start(&library, &options, &isolation(2)).expect_err("refused isolated");
        assert_eq!(isolated.to_string(), in_process.to_string(), "{defines:?}");
    }
    // The manifest file reaches the worker.
    let options = HostOptions {
        manifest_file: Some(fixture_manifest()),
        ..HostOptions::default()
    };
    let host = start(&["NO_MANIFEST"], &options);
    assert!(host.tool("greet").is_some());
}

fn bind_and_dispatch_work_through_an_isolated_host() {
    let host: Arc<dyn ToolHost> = Arc::new(start(&[], &HostOptions::default()));
    let manifest = std::fs::read_to_string(fixture_manifest()).expect("manifest");
    let bound = BoundLibrary::from_host(Arc::clone(&host), &manifest).expect("bind");
    let mut arguments = serde_json::Map::new();
    arguments.insert("Name".into(), "Zoë".into());
    assert_eq!(
        bound.call("greet", arguments).expect("greet"),
        serde_json::json!("Hello, Zoë!")
    );
    let mut arguments = serde_json::Map::new();
    arguments.insert("Message".into(), "no".into());
    assert!(matches!(
        bound.call("fail", arguments),
        Err(ToolError::Raised { .. })
    ));
    let dispatch = LibraryDispatch::new(host, None);
    let outcome = delphi_mcp_runtime::bind::block_on(dispatch.call_tool(
        "mcp_get_version",
        None,
        CallControl::new(),
    ))
    .expect("version");
    let host_state = &outcome.structured.expect("structured")["result"]["host"];
    assert_eq!(host_state["isolation"], "isolated", "{host_state}");
    assert_eq!(host_state["workers"][0]["calls"], 2, "{host_state}");
    assert!(dispatch.host_state().is_some());
}

fn results_over_the_limit_are_not_sent() {
    let options = HostOptions {
        max_result_bytes: 5,
        ..HostOptions::default()
    };
    for host in [
        Box::new(start(&[], &options)) as Box<dyn ToolHost>,
        Box::new(LibraryHost::open(&fixture_library(&[]), &options).expect("load")),
    ] {
        let (greet, _) = host.tool("greet").expect("greet");
        let control = CallControl::new();
        let error = delphi_mcp_runtime::bind::block_on(host.call(
            greet,
            vec![ArgValue::String("Zoë".into())],
            &control,
        ))
        .expect_err("too large");
        assert_eq!(
            error,
            CallError::ResultTooLarge {
                tool: "greet".into(),
                bytes: 12,
                limit: 5
            }
        );
        // The host goes on.
        let (add, _) = host.tool("add").expect("add");
        let returned = delphi_mcp_runtime::bind::block_on(host.call(
            add,
            vec![ArgValue::Int(1), ArgValue::Int(2)],
            &control,
        ))
        .expect("add");
        assert_eq!(returned.value, ReturnValue::Int(3));
    }
}

fn a_cancelled_call_leaves_the_host_serving() {
    let host = start(&[], &HostOptions::default());
    let (add, _) = host.tool("add").expect("add");
    let control = CallControl::new();
    control.cancelled.cancel();
    let outcome = delphi_mcp_runtime::bind::block_on(host.call(
        add,
        vec![ArgValue::Int(1), ArgValue::Int(2)],
        &control,
    ));
    // The answer may have come first (biased toward it); either way the host goes on.
    assert!(
        matches!(&outcome, Err(CallError::Cancelled)) || outcome.is_ok(),
        "{outcome:?}"
    );
    let returned = delphi_mcp_runtime::bind::block_on(host.call(
        add,
        vec![ArgValue::Int(1), ArgValue::Int(2)],
        &CallControl::new(),
    ))
    .expect("add");
    assert_eq!(returned.value, ReturnValue::Int(3));
}

fn main() {
    delphi_mcp_runtime::host::isolated::run_worker_if_called("worker");
    let checks: [(&str, fn()); 5] = [
        (
            "manifest_and_calls_match_the_in_process_host",
            manifest_and_calls_match_the_in_process_host,
        ),
        (
            "load_errors_read_as_in_process",
            load_errors_read_as_in_process,
        ),
        (
            "bind_and_dispatch_work_through_an_isolated_host",
            bind_and_dispatch_work_through_an_isolated_host,
        ),
        (
            "results_over_the_limit_are_not_sent",
            results_over_the_limit_are_not_sent,
        ),
        (
            "a_cancelled_call_leaves_the_host_serving",
            a_cancelled_call_leaves_the_host_serving,
        ),
    ];
    for (name, check) in checks {
        println!("test {name} ...");
        check();
        println!("test {name} ... ok");
    }
}
