//! The official Python MCP SDK client drives `delphi-mcp serve` over stdio in both eras, on the
//! calc, delphi-versions and values examples (built by the code generator and Free Pascal), on the generated ABI fixture
//! (Pascal faults: nil dereference, division by zero, NaN) and on the hand-written ABI library:
//! lists the tools (checked against the manifest), calls every tool, every rejection rule the
//! SDK can send, Pascal exceptions, and an unknown tool; the SDK validates each
//! structuredContent against the tool's outputSchema. Duplicate keys, which a Python dict cannot
//! hold, go out through a client transport that writes given argument text
//! (`tests/clients/python_raw_arguments.py`; `stdio::raw` covers them without a client too).

use crate::support;
use crate::support::abi_lib::{fixture_library, fixture_manifest};
use crate::support::tools::{python, python_client_stdout};
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
    run_client_with(library, manifest, cases, mode, coverage, &[]);
}

/// [`run_client`] with `serve_args` after the library (e.g. `--isolate`).
fn run_client_with(
    library: &Path,
    manifest: &Path,
    cases: &str,
    mode: &str,
    coverage: &str,
    serve_args: &[&str],
) {
    let script = repo().join("tests/clients/python_stdio_client.py");
    let cases = repo().join("tests/clients").join(cases);
    python_client_stdout(
        Command::new(python())
            .arg(&script)
            .arg(server_exe())
            .arg(library)
            .arg(manifest)
            .arg(&cases)
            .arg(mode)
            .arg(coverage)
            .args(serve_args),
        mode,
        20,
    );
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

/// Calls `(tool, arguments text)` through the Python SDK client with the arguments sent as
/// written; returns each answer's (isError, text).
fn call_with_raw_arguments(
    server_args: &[&std::ffi::OsStr],
    calls: &[(&str, &str)],
) -> Vec<(bool, String)> {
    let calls: Vec<serde_json::Value> = calls
        .iter()
        .map(|(tool, text)| serde_json::json!({"tool": tool, "arguments_text": text}))
        .collect();
    let output = Command::new(python())
        .arg(repo().join("tests/clients/python_raw_arguments.py"))
        .arg(serde_json::Value::Array(calls).to_string())
        .arg(server_exe())
        .args(server_args)
        .output()
        .expect("run the Python MCP client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answers: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON line");
    answers["calls"]
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .map(|c| {
                    (
                        c["isError"].as_bool().unwrap_or_default(),
                        c["text"].as_str().unwrap_or_default().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn json_handler_refuses_duplicate_keys_at_every_depth() {
    let library = support::fpc::build_example("values");
    let answers = call_with_raw_arguments(
        &[std::ffi::OsStr::new("serve"), library.as_os_str()],
        &[
            ("count_words", r#"{"texts":["a b","c"],"texts":["d"]}"#),
            (
                "count_words",
                r#"{"texts":["a",{"w":{"v":1,"v":1}},{"x":1,"x":2}]}"#,
            ),
            ("count_words", r#"{"texts":["a b","c"]}"#),
        ],
    );
    let refused = |lines: &[&str]| {
        (
            true,
            format!(
                "Invalid arguments for tool \"count_words\":\n{}",
                lines.join("\n")
            ),
        )
    };
    assert_eq!(
        answers,
        [
            refused(&["- argument \"texts\": given more than once (duplicate key); give each argument once"]),
            refused(&[
                "- argument \"texts[1].w.v\": given more than once (duplicate key)",
                "- argument \"texts[2].x\": given more than once (duplicate key)",
                "- argument \"texts[1]\": expected a string, got an object",
                "- argument \"texts[2]\": expected a string, got an object",
            ]),
            (false, r#"{"result":{"texts":2,"words":3}}"#.to_string()),
        ]
    );
}

/// Composite values cross the worker process boundary unchanged: every case of the values
/// example (records, nested arrays, a static array, sets, TBytes, TStrings, var/out, the JSON
/// handler, and each rejection) through `serve --isolate` with two workers.
#[test]
fn values_example_isolated() {
    let library = support::fpc::build_example("values");
    run_client_with(
        &library,
        &generated_manifest(&library),
        "values_cases.json",
        "legacy",
        "all",
        &["--isolate", "--workers", "2"],
    );
    // Duplicate keys inside a JSON handler's arguments are refused before a worker is asked.
    let answers = call_with_raw_arguments(
        &[
            std::ffi::OsStr::new("serve"),
            library.as_os_str(),
            std::ffi::OsStr::new("--isolate"),
        ],
        &[("count_words", r#"{"texts":[{"x":1,"x":2}]}"#)],
    );
    assert_eq!(
        answers,
        [(
            true,
            "Invalid arguments for tool \"count_words\":\n- argument \"texts[0].x\": given more than once (duplicate key)\n- argument \"texts[0]\": expected a string, got an object".to_string()
        )]
    );
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

/// ABI 3 through the Python client: content results, `EMcpToolError`, progress and log
/// notifications, sampling and elicitation from the call context, resources, a template,
/// prompts and completions (`tests/clients/python_everything.py`).
#[test]
fn everything_example_call_context_resources_prompts() {
    let library = support::fpc::build_example("everything");
    python_client_stdout(
        Command::new(python())
            .arg(repo().join("tests/clients/python_everything.py"))
            .arg(server_exe())
            .arg(&library),
        "everything",
        30,
    );
}
