//! The MCP Inspector CLI (`@modelcontextprotocol/inspector@2 --cli`, Node 22) lists and calls
//! the tools of `delphi-mcp serve` over stdio, on the calc example.

use crate::support;
use crate::support::server_exe;
use crate::support::tools::{inspector, node};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn run_inspector(library: &Path, args: &[&str]) -> Output {
    let home = tempfile::tempdir().expect("tempdir");
    Command::new(node())
        .arg(inspector())
        .arg("--cli")
        .arg(server_exe())
        .arg("serve")
        .arg(library)
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

fn calc() -> std::path::PathBuf {
    support::fpc::build_example("calc")
}

#[test]
fn inspector_lists_the_calc_tools() {
    let library = calc();
    let output = run_inspector(&library, &["--method", "tools/list"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed = json_stdout(&output);
    let tools = listed["tools"].as_array().expect("tools");
    let project = library.parent().and_then(Path::parent).expect("project");
    let manifest: Value = serde_json::from_slice(
        &std::fs::read(project.join("generated/tools.json")).expect("manifest"),
    )
    .expect("json");
    for entry in manifest["tools"].as_array().expect("tools") {
        let tool = tools
            .iter()
            .find(|t| t["name"] == entry["name"])
            .unwrap_or_else(|| panic!("{} not listed", entry["name"]));
        assert_eq!(tool["description"], entry["description"]);
        assert_eq!(
            tool["inputSchema"]["required"],
            entry["inputSchema"]["required"]
        );
    }
    assert!(tools.iter().any(|t| t["name"] == "mcp_get_version"));
}

#[test]
fn inspector_calls_calc_tools() {
    let library = calc();
    let output = run_inspector(
        &library,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "calc_add_integers",
            "--tool-arg",
            "A=2",
            "--tool-arg",
            "B=40",
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(json_stdout(&output)["structuredContent"]["result"], 42);

    let output = run_inspector(
        &library,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "calc_join_with",
            "--tool-arg",
            "A=Zoë",
            "--tool-arg",
            "B=日本",
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result = json_stdout(&output);
    assert_eq!(result["structuredContent"]["result"], "Zoë,日本");
    assert_eq!(result["content"][0]["text"], "{\"result\":\"Zoë,日本\"}");

    // A Pascal exception is a tool error, which the Inspector reports with a failing status.
    let output = run_inspector(
        &library,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "calc_divide",
            "--tool-arg",
            "A=1",
            "--tool-arg",
            "B=0",
        ],
    );
    assert!(!output.status.success());
    let result = json_stdout(&output);
    assert_eq!(result["isError"], true);
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("EDivByZero: cannot divide 1 by zero"),
        "{text}"
    );
}
