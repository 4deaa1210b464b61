//! The official Python MCP SDK client drives `delphi-mcp serve --http` over Streamable HTTP in
//! both eras with the Bearer token: the same call cases as the stdio client
//! (`tests/clients/abi_lib_cases.json` on the hand-written ABI library, `values_cases.json` on
//! the values example), tool listing checked against the manifest, and a client without the
//! token refused.

use crate::support::abi_lib::{fixture_library, fixture_manifest};
use crate::support::http::HttpServer;
use crate::support::repo;
use crate::support::tools::{python, python_client_stdout};
use std::process::Command;

fn run_client(mode: &str) {
    run_cases(
        &fixture_library(&[]),
        &fixture_manifest(),
        "abi_lib_cases.json",
        mode,
        60,
    );
}

fn run_cases(
    library: &std::path::Path,
    manifest: &std::path::Path,
    cases_file: &str,
    mode: &str,
    least: usize,
) {
    let server = HttpServer::start(library, &[]);
    let stdout = python_client_stdout(
        Command::new(python())
            .arg(repo().join("tests/clients/http_python_client.py"))
            .arg(&server.endpoint)
            .arg(server.token.as_deref().expect("token"))
            .arg(library)
            .arg(manifest)
            .arg(repo().join("tests/clients").join(cases_file))
            .arg(mode),
        &format!("over HTTP, {mode}"),
        least,
    );
    assert!(stdout.contains("ok   refused without token"), "{stdout}");
    // The calls went through this server: its status counts them.
    let cases: Vec<serde_json::Value> = serde_json::from_slice(
        &std::fs::read(repo().join("tests/clients").join(cases_file)).expect("cases"),
    )
    .expect("cases JSON");
    let status = server.request("GET", "/status.json", &[], b"").json();
    let totals = &status["totals"];
    let seen =
        totals["calls"].as_u64().unwrap_or(0) + totals["unknownToolCalls"].as_u64().unwrap_or(0);
    // Every case plus mcp_get_version, each counted once.
    assert_eq!(seen as usize, cases.len() + 1, "{totals}");
}

#[test]
fn python_sdk_over_http_handshake_era() {
    run_client("legacy");
}

#[test]
fn python_sdk_over_http_stateless_era() {
    run_client("2026-07-28");
}

#[test]
fn values_example_over_http_both_eras() {
    let library = crate::support::fpc::build_example("values");
    let manifest = library
        .parent()
        .and_then(std::path::Path::parent)
        .expect("library in <project>/build")
        .join("generated/tools.json");
    for mode in ["legacy", "2026-07-28"] {
        run_cases(&library, &manifest, "values_cases.json", mode, 40);
    }
}
