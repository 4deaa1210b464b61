//! The client tools the tests drive, installed by `scripts/install-test-tools.sh` (under
//! `.tools/`, Chromium system-wide); a missing tool fails the test with a message saying so.

use super::repo;
use std::path::{Path, PathBuf};

fn missing_tool(what: &str, path: &Path) -> ! {
    panic!(
        "{what} is not installed ({} is missing): run scripts/install-test-tools.sh first",
        path.display()
    )
}

/// The Python of the venv holding the MCP SDK.
pub fn python() -> PathBuf {
    let path = repo().join(if cfg!(windows) {
        ".tools/venv/Scripts/python.exe"
    } else {
        ".tools/venv/bin/python"
    });
    if !path.is_file() {
        missing_tool("the Python MCP SDK client", &path);
    }
    path
}

/// Node 22 from `.tools/node`.
pub fn node() -> PathBuf {
    let path = repo().join(".tools/node/node_modules/node/bin/node");
    if !path.is_file() {
        missing_tool("Node 22", &path);
    }
    path
}

/// The MCP Inspector's launcher script.
pub fn inspector() -> PathBuf {
    let path = repo().join(
        ".tools/node/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js",
    );
    if !path.is_file() {
        missing_tool("the MCP Inspector CLI", &path);
    }
    path
}

/// The CLI script of `@modelcontextprotocol/conformance` `version`, installed by
/// `scripts/install-test-tools.sh` into `.tools/conformance-<version>`.
pub fn conformance_cli(version: &str) -> PathBuf {
    let path = repo().join(format!(
        ".tools/conformance-{version}/node_modules/@modelcontextprotocol/conformance/dist/index.js"
    ));
    assert!(
        path.is_file(),
        "the conformance suite {version} is not installed ({} is missing): run scripts/install-test-tools.sh first",
        path.display()
    );
    path
}

/// Debian's `chromium` (installed by `scripts/install-test-tools.sh`).
pub fn chromium() -> PathBuf {
    let found = ["chromium", "chromium-browser"].iter().find_map(|name| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(name))
                .find(|candidate| candidate.is_file())
        })
    });
    found.unwrap_or_else(|| {
        panic!("chromium is not installed: run scripts/install-test-tools.sh first")
    })
}

/// Runs one of the Python client scripts (`tests/clients/*.py`) and returns its stdout, after
/// asserting what every run must show: a successful exit, more than `least` checks reported
/// `ok`, and `0 failure(s)`. `what` names the run in failure messages.
pub fn python_client_stdout(
    command: &mut std::process::Command,
    what: &str,
    least: usize,
) -> String {
    let output = command.output().expect("run the Python MCP client");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "Python MCP client ({what}) failed:\n{stdout}\n{stderr}"
    );
    // The script reports each case; make sure it really ran them.
    let passed = stdout.lines().filter(|l| l.starts_with("ok ")).count();
    assert!(passed > least, "only {passed} checks ran:\n{stdout}");
    assert!(stdout.contains("0 failure(s)"), "{stdout}");
    stdout
}
