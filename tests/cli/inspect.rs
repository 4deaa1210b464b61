//! `delphi-mcp inspect`: exit codes, the JSON document's shape and the outline.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("parser/tests/fixtures")
}

fn inspect(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_delphi-mcp"))
        .arg("inspect")
        .args(args)
        .output()
        .expect("delphi-mcp runs")
}

#[test]
fn clean_folder_exits_0_with_an_outline() {
    let dir = fixtures().join("units");
    let out = inspect(&[dir.to_str().expect("utf-8 path")]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("unit Attributes"));
    assert!(text.contains("[McpTool(cName, cDescription)]"));
    assert!(text.contains("public function Add(A: Integer; B: Integer): Integer  // Adds A and B"));
    assert!(text.contains("program Demo"));
    // files are listed in sorted order whatever the parallel parse did
    let a = text.find("unit Attributes").expect("Attributes");
    let r = text.find("unit Records").expect("Records");
    assert!(a < r);
    assert!(out.stderr.is_empty(), "no diagnostics for clean units");
}

#[test]
fn broken_files_exit_1_and_json_has_diagnostics() {
    let dir = fixtures().join("broken");
    let out = inspect(&["--json", dir.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON document");
    let files = doc["files"].as_array().expect("files array");
    assert_eq!(files.len(), 3);
    let errors = files
        .iter()
        .find(|f| {
            f["path"]
                .as_str()
                .is_some_and(|p| p.ends_with("Errors.pas"))
        })
        .expect("Errors.pas entry");
    let diags = errors["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diags.len(), 3);
    let first = &diags[0];
    assert_eq!(first["severity"], "error");
    assert_eq!(first["line"], 12);
    assert_eq!(first["column"], 5);
    assert!(first["endColumn"].as_u64() > first["column"].as_u64());
    assert!(first["message"]
        .as_str()
        .is_some_and(|m| m.contains("property")));
    assert!(first["file"]
        .as_str()
        .is_some_and(|f| f.ends_with("Errors.pas")));
    assert_eq!(errors["unit"]["name"], "Errors");
}

#[test]
fn json_of_a_clean_file_has_the_tree() {
    let file = fixtures().join("units/Attributes.pas");
    let out = inspect(&[
        "--json",
        "-D",
        "DEBUG",
        "--target",
        "delphi12-win64",
        file.to_str().expect("utf-8"),
    ]);
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let unit = &doc["files"][0]["unit"];
    assert_eq!(unit["kind"], "unit");
    let class = &unit["sections"][0]["decls"][1]["items"][0];
    assert_eq!(class["name"], "TCalculator");
    assert_eq!(class["def"]["type"], "structured");
    let method = &class["def"]["sections"][0]["members"][0];
    assert_eq!(method["member"], "method");
    assert_eq!(method["attributes"][0]["name"], "McpTool");
    assert_eq!(
        doc["files"][0]["diagnostics"].as_array().map(Vec::len),
        Some(0)
    );
}

#[test]
fn missing_path_is_an_error() {
    let out = inspect(&["/nonexistent/Nothing.pas"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Nothing.pas"));
}

#[test]
fn a_reader_that_stops_early_gets_no_panic() {
    // The read end is closed before the report is written: the write fails with a broken
    // pipe, which must end the command quietly (as `inspect --json . | head` does).
    let dir = fixtures().join("units");
    let mut child = Command::new(env!("CARGO_BIN_EXE_delphi-mcp"))
        .args(["inspect", "--json", dir.to_str().expect("utf-8 path")])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("delphi-mcp runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("delphi-mcp ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
}
