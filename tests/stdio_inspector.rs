//! The MCP Inspector CLI (`@modelcontextprotocol/inspector@2 --cli`, Node 22) lists and calls
//! the tools of `delphi-mcp serve` over stdio.

mod runtime_common;

use runtime_common::fixture::{fixture_library, fixture_manifest};
use runtime_common::{inspector, node, server_exe};
use serde_json::Value;
use std::process::{Command, Output};

fn run_inspector(args: &[&str]) -> Output {
    let home = tempfile::tempdir().expect("tempdir");
    let library = fixture_library(&[]);
    Command::new(node())
        .arg(inspector())
        .arg("--cli")
        .arg(server_exe())
        .arg("serve")
        .arg(&library)
        .args(args)
        // The Inspector keeps a catalog in the home folder; keep it out of the user's.
        .env("HOME", home.path())
        .env("USERPROFILE", home.path())
        .output()
        .expect("run the MCP Inspector CLI")
}

fn json_stdout(output: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "Inspector output is not JSON ({e}):\n{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn inspector_lists_the_tools() {
    let output = run_inspector(&["--method", "tools/list"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed = json_stdout(&output);
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(fixture_manifest()).expect("manifest"))
            .expect("json");
    for tool in manifest["tools"].as_array().expect("tools") {
        let name = tool["name"].as_str().expect("name");
        assert!(names.contains(&name), "{name} not listed: {names:?}");
    }
    assert!(names.contains(&"mcp_get_version"));
}

#[test]
fn inspector_calls_tools() {
    let output = run_inspector(&[
        "--method",
        "tools/call",
        "--tool-name",
        "add",
        "--tool-arg",
        "A=2",
        "--tool-arg",
        "B=40",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(json_stdout(&output)["structuredContent"]["result"], 42);

    let output = run_inspector(&[
        "--method",
        "tools/call",
        "--tool-name",
        "greet",
        "--tool-arg",
        "Name=Zoë",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result = json_stdout(&output);
    assert_eq!(result["structuredContent"]["result"], "Hello, Zoë!");
    assert_eq!(result["content"][0]["text"], "{\"result\":\"Hello, Zoë!\"}");

    // A Pascal exception is a tool error, which the Inspector reports with a failing status.
    let output = run_inspector(&[
        "--method",
        "tools/call",
        "--tool-name",
        "fail",
        "--tool-arg",
        "Message=boom",
    ]);
    assert!(!output.status.success());
    let result = json_stdout(&output);
    assert_eq!(result["isError"], true);
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("EFixtureError: boom"), "{text}");
}
