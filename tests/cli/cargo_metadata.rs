//! `cargo delphi-mcp manifest|gen` with no paths read `[package.metadata.delphi-mcp]` of the
//! package in the current folder.

use crate::support;
use std::path::Path;
use std::process::{Command, Output};

fn cargo_delphi_mcp(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-delphi-mcp"))
        .arg("delphi-mcp")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run cargo-delphi-mcp")
}

fn package(dir: &Path, metadata: &str) {
    std::fs::create_dir_all(dir.join("src")).expect("package folders");
    std::fs::create_dir_all(dir.join("delphi")).expect("package folders");
    std::fs::write(dir.join("src/lib.rs"), "").expect("lib.rs");
    std::fs::copy(
        support::repo().join("examples/calc/CalcModule.pas"),
        dir.join("delphi/CalcModule.pas"),
    )
    .expect("copy the calc unit");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!("[package]\nname = \"meta-test\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n{metadata}\n[workspace]\n"),
    )
    .expect("Cargo.toml");
}

#[test]
fn gen_and_manifest_read_the_package_metadata() {
    let dir = tempfile::tempdir().expect("temp dir");
    package(
        dir.path(),
        "[package.metadata.delphi-mcp]\nunits = [\"delphi/CalcModule.pas\"]\nname = \"Calc\"\nout-dir = \"gen\"\ntarget = \"delphi12-win64\"\n",
    );
    let generated = cargo_delphi_mcp(dir.path(), &["gen"]);
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    let written =
        std::fs::read_to_string(dir.path().join("gen/tools.json")).expect("gen/tools.json");
    assert!(dir.path().join("gen/McpExports.pas").is_file());

    // The same units through the build-script API give the same manifest.
    let out = dir.path().join("builder");
    delphi_mcp_codegen::Builder::new()
        .unit(dir.path().join("delphi/CalcModule.pas"))
        .name("Calc")
        .out_dir(&out)
        .cargo_directives(false)
        .generate()
        .expect("builder generates");
    assert_eq!(
        written,
        std::fs::read_to_string(out.join("tools.json")).expect("builder manifest")
    );

    // `gen --check` with the metadata: up to date.
    let check = cargo_delphi_mcp(dir.path(), &["gen", "--check"]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );

    // `manifest` prints the same manifest on stdout; a subfolder finds the package too.
    let printed = cargo_delphi_mcp(&dir.path().join("src"), &["manifest"]);
    assert!(
        printed.status.success(),
        "{}",
        String::from_utf8_lossy(&printed.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&printed.stdout), written);
}

#[test]
fn explicit_paths_win_over_the_metadata() {
    let dir = tempfile::tempdir().expect("temp dir");
    package(
        dir.path(),
        "[package.metadata.delphi-mcp]\nunits = [\"delphi/Missing.pas\"]\n",
    );
    let printed = cargo_delphi_mcp(
        dir.path(),
        &["manifest", "delphi/CalcModule.pas", "--name", "Given"],
    );
    assert!(
        printed.status.success(),
        "{}",
        String::from_utf8_lossy(&printed.stderr)
    );
    assert!(String::from_utf8_lossy(&printed.stdout).contains("\"name\": \"Given\""));
}

#[test]
fn a_package_without_metadata_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    package(dir.path(), "");
    let failed = cargo_delphi_mcp(dir.path(), &["gen"]);
    assert!(!failed.status.success());
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(stderr.contains("[package.metadata.delphi-mcp]"), "{stderr}");

    let dir = tempfile::tempdir().expect("temp dir");
    package(
        dir.path(),
        "[package.metadata.delphi-mcp]\nunits = [\"delphi/CalcModule.pas\"]\nflavour = \"x\"\n",
    );
    let failed = cargo_delphi_mcp(dir.path(), &["manifest"]);
    assert!(!failed.status.success());
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(stderr.contains("flavour"), "{stderr}");
}
