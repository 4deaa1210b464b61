//! `delphi-mcp new` scaffolds a server crate; the test builds it (offline, sharing this
//! workspace's target folder and lock file), checks that it links none of the parser, the code
//! generator or the CLI's dependencies, and drives it with the Python MCP SDK client: a Delphi
//! tool of the calc example and the template's Rust tool.

use crate::support;
use std::path::PathBuf;
use std::process::Command;

#[test]
fn scaffolded_server_serves_delphi_and_rust_tools() {
    let repo = support::repo();
    let library = support::fpc::build_example("calc");
    let work = tempfile::tempdir().expect("temp dir");
    let crate_dir = work.path().join("calc-server");
    let status = Command::new(env!("CARGO_BIN_EXE_delphi-mcp"))
        .arg("new")
        .arg(&crate_dir)
        .arg("--unit")
        .arg(repo.join("examples/calc/CalcModule.pas"))
        .arg("--name")
        .arg("Calc")
        .arg("--delphi-mcp-path")
        .arg(&repo)
        .status()
        .expect("run delphi-mcp new");
    assert!(status.success());
    for file in [
        "Cargo.toml",
        "src/main.rs",
        "README.md",
        "delphi/CalcModule.pas",
        "delphi/generated/tools.json",
        "delphi/generated/McpExports.pas",
    ] {
        assert!(crate_dir.join(file).is_file(), "{file} was not written");
    }
    // What `new` generated is what `cargo delphi-mcp gen` in the crate generates.
    let check = Command::new(env!("CARGO_BIN_EXE_cargo-delphi-mcp"))
        .args(["delphi-mcp", "gen", "--check"])
        .current_dir(&crate_dir)
        .output()
        .expect("run cargo delphi-mcp gen --check");
    assert!(
        check.status.success(),
        "the generated files differ from `gen`'s:\n{}",
        String::from_utf8_lossy(&check.stderr)
    );
    // A second `new` into the same folder is refused.
    let again = Command::new(env!("CARGO_BIN_EXE_delphi-mcp"))
        .args(["new"])
        .arg(&crate_dir)
        .arg("--unit")
        .arg(repo.join("examples/calc/CalcModule.pas"))
        .output()
        .expect("run delphi-mcp new again");
    assert!(!again.status.success());

    // Same dependency versions as the workspace, so the shared target folder is reused.
    std::fs::copy(repo.join("Cargo.lock"), crate_dir.join("Cargo.lock"))
        .expect("copy the lock file");
    let target_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .to_path_buf();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let build = Command::new(&cargo)
        .args(["build", "--offline", "--quiet"])
        // The workspace's dev profile (see its Cargo.toml), so the built dependencies are reused.
        .args(["--config", "profile.dev.debug=\"line-tables-only\""])
        .args(["--config", "profile.dev.package.\"*\".debug=false"])
        .current_dir(&crate_dir)
        .env("CARGO_TARGET_DIR", &target_dir)
        .output()
        .expect("run cargo build");
    assert!(
        build.status.success(),
        "the scaffolded crate does not build:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let server = target_dir
        .join("debug")
        .join(format!("calc-server{}", std::env::consts::EXE_SUFFIX));
    assert!(server.is_file());

    // Every dependency of the server, of every edge kind, with the default features.
    let tree = Command::new(&cargo)
        .args(["tree", "--offline", "--edges", "all", "--prefix", "none"])
        .current_dir(&crate_dir)
        .env("CARGO_TARGET_DIR", &target_dir)
        .output()
        .expect("run cargo tree");
    assert!(
        tree.status.success(),
        "cargo tree failed:\n{}",
        String::from_utf8_lossy(&tree.stderr)
    );
    let tree = String::from_utf8_lossy(&tree.stdout);
    let packages: std::collections::BTreeSet<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    for expected in [
        "delphi-mcp-runtime",
        "delphi-mcp-manifest",
        "delphi-mcp-macros",
    ] {
        assert!(
            packages.contains(expected),
            "{expected} missing in:\n{tree}"
        );
    }
    for unwanted in [
        "delphi-mcp",
        "delphi-mcp-parser",
        "delphi-mcp-codegen",
        "pest",
        "minijinja",
        "clap",
        "rayon",
        "miette",
        "tracing-subscriber",
    ] {
        assert!(
            !packages.contains(unwanted),
            "the scaffolded server depends on {unwanted}:\n{tree}"
        );
    }

    let calls = serde_json::json!([
        {"tool": "calc_open_module", "arguments": {}},
        {"tool": "calc_add_integers", "arguments": {"A": 40, "B": 2}},
        {"tool": "server_info", "arguments": {}},
    ]);
    let output = Command::new(support::tools::python())
        .arg(repo.join("tests/clients/python_call_tools.py"))
        .arg(calls.to_string())
        .arg(&server)
        .arg(&library)
        .output()
        .expect("run the Python MCP client");
    assert!(
        output.status.success(),
        "client failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the client prints JSON");
    let tools = answer["tools"].as_array().expect("tool names");
    assert!(tools.contains(&serde_json::json!("calc_add_integers")));
    assert!(tools.contains(&serde_json::json!("server_info")));
    assert!(tools.contains(&serde_json::json!("mcp_get_version")));
    let calls = answer["calls"].as_array().expect("call answers");
    assert_eq!(calls[0]["isError"], false, "{calls:?}");
    assert_eq!(calls[1]["structured"], serde_json::json!({"result": 42}));
    assert_eq!(
        calls[2]["structured"]["result"],
        serde_json::json!("Calc with 28 Delphi tools")
    );
}
