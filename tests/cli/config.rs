//! `delphi-mcp config`: the printed snippets name absolute paths, and the server they describe
//! starts and answers.

use crate::support::abi_lib::fixture_library;
use crate::support::server_exe;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn config(client: &str, target: &std::path::Path, extra: &[&str]) -> String {
    let output = Command::new(server_exe())
        .args(["config", client])
        .arg(target)
        .args(extra)
        .output()
        .expect("run config");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
}

#[test]
fn claude_desktop_snippet_starts_a_working_server() {
    let library = fixture_library(&[]);
    let snippet: Value =
        serde_json::from_str(&config("claude-desktop", &library, &[])).expect("JSON");
    let entry = &snippet["mcpServers"]["abilib"];
    let command = entry["command"].as_str().expect("command");
    let args: Vec<String> = entry["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| a.as_str().expect("string").to_string())
        .collect();
    assert!(std::path::Path::new(command).is_absolute(), "{command}");
    assert_eq!(args[0], "serve");
    assert!(std::path::Path::new(&args[1]).is_absolute(), "{args:?}");

    // Start exactly what the client would start, and talk to it.
    let mut child = Command::new(command)
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the configured server");
    let mut stdin = child.stdin.take().expect("stdin");
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    writeln!(stdin, "{request}").expect("write");
    drop(stdin);
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("read");
    let answer: Value = serde_json::from_str(&line).expect("JSON answer");
    assert_eq!(answer["result"]["serverInfo"]["name"], "abilib");
    assert!(child.wait().expect("wait").success());
}

#[test]
fn claude_code_and_vscode_snippets() {
    let library = fixture_library(&[]);
    let line = config("claude-code", &library, &["--name", "calc"]);
    assert!(
        line.starts_with("claude mcp add --transport stdio calc -- "),
        "{line}"
    );
    assert!(line.contains(&server_exe().display().to_string()), "{line}");
    assert!(
        line.trim_end()
            .ends_with(&format!("serve {}", library.display())),
        "{line}"
    );

    let vscode: Value = serde_json::from_str(&config("vscode", &library, &[])).expect("JSON");
    assert_eq!(vscode["servers"]["abilib"]["type"], "stdio");
    assert_eq!(
        vscode["servers"]["abilib"]["args"][1],
        library.display().to_string()
    );
}

#[test]
fn a_missing_target_is_an_error() {
    let output = Command::new(server_exe())
        .args(["config", "claude-code", "no/such/libx.so"])
        .output()
        .expect("run config");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("does not exist"));
}
