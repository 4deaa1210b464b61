//! The official Python MCP SDK client drives `delphi-mcp serve` over stdio in both eras: lists
//! the tools (checked against the manifest), calls every tool, every rejection rule the SDK can
//! send (duplicate keys cannot be sent from a Python dict: `stdio_raw` covers them), a Pascal
//! exception, a non-finite result and an unknown tool; the SDK validates each
//! structuredContent against the tool's outputSchema.

mod runtime_common;

use runtime_common::fixture::{fixture_library, fixture_manifest};
use runtime_common::{python, repo, server_exe};
use std::process::Command;

fn run_client(mode: &str) {
    let script = repo().join("tests/clients/python_stdio_client.py");
    let cases = repo().join("tests/clients/abi_lib_cases.json");
    let library = fixture_library(&[]);
    let output = Command::new(python())
        .arg(&script)
        .arg(server_exe())
        .arg(&library)
        .arg(fixture_manifest())
        .arg(&cases)
        .arg(mode)
        .output()
        .expect("run the Python MCP client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "Python MCP client ({mode}) failed:\n{stdout}\n{stderr}"
    );
    // The script reports each case; make sure it really ran them.
    let passed = stdout.lines().filter(|l| l.starts_with("ok ")).count();
    assert!(passed > 60, "only {passed} checks ran:\n{stdout}");
    assert!(stdout.contains("0 failure(s)"), "{stdout}");
}

#[test]
fn python_sdk_handshake_era() {
    run_client("legacy");
}

#[test]
fn python_sdk_stateless_era() {
    run_client("2026-07-28");
}
