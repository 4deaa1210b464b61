//! The official MCP conformance suite (`@modelcontextprotocol/conformance`) against
//! `delphi-mcp serve --http` of examples/everything (the suite's reference server written in
//! Pascal): 0.1.16 for the 2025 eras, 0.2.0-alpha.12 for
//! 2026-07-28 (with `--spec-version 2026-07-28` and with `--requirements 2026-07-28`). The suite
//! exits non-zero on any failure outside `tests/conformance/expected-failures-*.yaml` and on
//! any listed scenario that passes, so the baselines stay exact.
//!
//! The suite sends no Authorization header, so the server runs with `--no-auth` (on loopback);
//! authentication is covered by `http::transport` and `http::python`.

use crate::support;
use crate::support::http::HttpServer;
use crate::support::repo;
use crate::support::tools::{conformance_cli, node};
use std::process::Command;

fn run_suite(version: &str, extra: &[&str], baseline: &str, must_pass: &[&str]) {
    let library = support::fpc::build_example("everything");
    let server = HttpServer::start(&library, &["--no-auth"]);
    run_suite_at(&server.endpoint, version, extra, baseline, must_pass);
}

/// Runs the suite `version` against `endpoint` (a server without authentication) and checks
/// that every failure is in `baseline` and every scenario of `must_pass` passed.
pub(crate) fn run_suite_at(
    endpoint: &str,
    version: &str,
    extra: &[&str],
    baseline: &str,
    must_pass: &[&str],
) {
    let results = tempfile::tempdir().expect("results folder");
    let output = Command::new(node())
        .arg(conformance_cli(version))
        .args(["server", "--url", endpoint])
        .args(extra)
        .arg("--expected-failures")
        .arg(repo().join("tests/conformance").join(baseline))
        .arg("-o")
        .arg(results.path())
        .output()
        .expect("run the conformance suite");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "conformance {version} {extra:?} failed:\n{stdout}\n{stderr}"
    );
    let all = format!("{stdout}{stderr}");
    assert!(all.contains("all failures are expected"), "{all}");
    for scenario in must_pass {
        assert!(
            all.lines()
                .any(|l| l.starts_with(&format!("✓ {scenario}:"))),
            "scenario {scenario} did not pass:\n{all}"
        );
    }
}

#[test]
fn conformance_2025_eras() {
    run_suite(
        "0.1.16",
        &[],
        "expected-failures-2025.yaml",
        &[
            "server-initialize",
            "ping",
            "tools-list",
            "tools-call-image",
            "tools-call-with-progress",
            "tools-call-with-logging",
            "tools-call-sampling",
            "tools-call-elicitation",
            "resources-templates-read",
            "prompts-get-with-args",
            "completion-complete",
            "resources-subscribe",
            "resources-unsubscribe",
            "server-sse-multiple-streams",
            "dns-rebinding-protection",
        ],
    );
}

#[test]
fn conformance_2026_07_28_spec_version() {
    run_suite(
        "0.2.0-alpha.12",
        &["--spec-version", "2026-07-28"],
        "expected-failures-2026.yaml",
        &[
            "tools-list",
            "resources-read-binary",
            "prompts-get-embedded-resource",
            "completion-complete",
            "server-sse-multiple-streams",
            "dns-rebinding-protection",
        ],
    );
}

#[test]
fn conformance_2026_07_28_requirements() {
    run_suite(
        "0.2.0-alpha.12",
        &["--requirements", "2026-07-28"],
        "expected-failures-2026.yaml",
        &[
            "tools-list",
            "http-header-validation",
            "input-required-result-validate-input",
            "input-required-result-unsupported-methods",
            "input-required-result-basic-elicitation",
            "input-required-result-multi-round",
            "input-required-result-tampered-state",
            "input-required-result-non-tool-request",
            "input-required-result-capability-check",
            "input-required-result-multiple-input-requests",
        ],
    );
}
