//! The official Python MCP SDK client drives `delphi-mcp serve` over stdio in both eras, on the
//! calc, delphi-versions and values examples (built by the code generator and Free Pascal), on the generated ABI fixture
//! (Pascal faults: nil dereference, division by zero, NaN) and on the hand-written ABI library:
//! lists the tools (checked against the manifest), calls every tool, every rejection rule the
//! SDK can send (duplicate keys cannot be sent from a Python dict: `stdio::raw` covers them),
//! Pascal exceptions, and an unknown tool; the SDK validates each structuredContent against
//! the tool's outputSchema.

use crate::support;
use crate::support::abi_lib::{fixture_library, fixture_manifest};
use crate::support::tools::python;
use crate::support::{repo, server_exe};
use std::path::Path;
use std::process::Command;

/// The manifest the generator wrote next to a built project's library.
fn generated_manifest(library: &Path) -> std::path::PathBuf {
    let project = library
        .parent()
        .and_then(Path::parent)
        .expect("library in <project>/build");
    project.join("generated/tools.json")
}

fn run_client(library: &Path, manifest: &Path, cases: &str, mode: &str, coverage: &str) {
    let script = repo().join("tests/clients/python_stdio_client.py");
    let cases = repo().join("tests/clients").join(cases);
    let output = Command::new(python())
        .arg(&script)
        .arg(server_exe())
        .arg(library)
        .arg(manifest)
        .arg(&cases)
        .arg(mode)
        .arg(coverage)
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
    assert!(passed > 20, "only {passed} checks ran:\n{stdout}");
    assert!(stdout.contains("0 failure(s)"), "{stdout}");
}

#[test]
fn calc_example_handshake_era() {
    let library = support::fpc::build_example("calc");
    run_client(
        &library,
        &generated_manifest(&library),
        "calc_cases.json",
        "legacy",
        "all",
    );
}

#[test]
fn calc_example_stateless_era() {
    let library = support::fpc::build_example("calc");
    run_client(
        &library,
        &generated_manifest(&library),
        "calc_cases.json",
        "2026-07-28",
        "all",
    );
}

#[test]
fn delphi_versions_example_both_eras() {
    let library = support::fpc::build_example("delphi-versions");
    for mode in ["legacy", "2026-07-28"] {
        run_client(
            &library,
            &generated_manifest(&library),
            "delphi_versions_cases.json",
            mode,
            "all",
        );
    }
}

#[test]
fn values_example_both_eras() {
    let library = support::fpc::build_example("values");
    for mode in ["legacy", "2026-07-28"] {
        run_client(
            &library,
            &generated_manifest(&library),
            "values_cases.json",
            mode,
            "all",
        );
    }
}

#[test]
fn pascal_faults_are_tool_errors_and_the_server_keeps_serving() {
    let library = support::fpc::build_fixture("abi");
    for mode in ["legacy", "2026-07-28"] {
        run_client(
            &library,
            &generated_manifest(&library),
            "abi_fault_cases.json",
            mode,
            "partial",
        );
    }
}

#[test]
fn hand_written_abi_library_handshake_era() {
    run_client(
        &fixture_library(&[]),
        &fixture_manifest(),
        "abi_lib_cases.json",
        "legacy",
        "all",
    );
}

#[test]
fn hand_written_abi_library_stateless_era() {
    run_client(
        &fixture_library(&[]),
        &fixture_manifest(),
        "abi_lib_cases.json",
        "2026-07-28",
        "all",
    );
}
