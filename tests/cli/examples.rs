//! The examples: their checked-in generated files are current (`gen --check`), they compile
//! with Free Pascal, and their tools answer through the ABI.

use crate::support;
use crate::support::call::{Arg, Loaded, Out};
use delphi_mcp_manifest::abi::status;
use std::process::Command;
use std::sync::OnceLock;

fn gen_check(example: &str, name: &str) -> std::process::Output {
    let dir = support::repo().join("examples").join(example);
    Command::new(env!("CARGO_BIN_EXE_delphi-mcp"))
        .arg("gen")
        .arg(&dir)
        .arg("--out")
        .arg(dir.join("generated"))
        .arg("--name")
        .arg(name)
        .arg("--check")
        .output()
        .expect("run delphi-mcp gen --check")
}

#[test]
fn checked_in_generated_files_are_current() {
    for (example, name) in [
        ("calc", "Calc"),
        ("delphi-versions", "DelphiVersionsServer"),
        ("values", "Values"),
        ("faults", "Faults"),
        ("everything", "Everything"),
    ] {
        let output = gen_check(example, name);
        assert!(
            output.status.success(),
            "examples/{example}/generated is stale:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn delphi_version_takes_the_articles_query() {
    let text = std::fs::read(support::repo().join("examples/delphi-versions/generated/tools.json"))
        .expect("tools.json");
    let manifest = delphi_mcp_manifest::Manifest::from_json(&text).expect("a manifest");
    let tool = manifest
        .tools
        .iter()
        .find(|t| t.name == "delphi_version")
        .expect("delphi_version");
    let schema = tool.input_schema.value();
    let keys: Vec<&String> = schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .collect();
    assert_eq!(keys, ["query"]);
    assert_eq!(schema["properties"]["query"]["type"], "string");
    assert_eq!(schema["required"], serde_json::json!(["query"]));
}

fn calc() -> &'static Loaded {
    static CALC: OnceLock<Loaded> = OnceLock::new();
    CALC.get_or_init(|| support::call::load(&support::fpc::build_example("calc")))
}

fn versions() -> &'static Loaded {
    static VERSIONS: OnceLock<Loaded> = OnceLock::new();
    VERSIONS.get_or_init(|| support::call::load(&support::fpc::build_example("delphi-versions")))
}

#[test]
fn calc_scale_uses_the_declared_default() {
    let calc = calc();
    assert_eq!(calc.manifest.name, "Calc");
    assert_eq!(
        calc.call("calc_scale", &[Arg::Double(2.5), Arg::Absent]),
        (status::OK, Out::Double(2.5))
    );
    assert_eq!(
        calc.call("calc_scale", &[Arg::Double(2.5), Arg::Double(4.0)]),
        (status::OK, Out::Double(10.0))
    );
}

#[test]
fn calc_overloads_inheritance_and_errors() {
    let calc = calc();
    assert_eq!(
        calc.call("calc_add_integers", &[Arg::Int(2), Arg::Int(3)]),
        (status::OK, Out::Int(5))
    );
    assert_eq!(
        calc.call("calc_add_numbers", &[Arg::Double(0.5), Arg::Double(0.25)]),
        (status::OK, Out::Double(0.75))
    );
    let (code, out) = calc.call("calc_describe", &[]);
    assert_eq!(code, status::OK);
    assert!(
        matches!(out, Out::Str(ref s) if s.starts_with("TCalculationModule, ")),
        "{out:?}"
    );
    assert_eq!(
        calc.call("calc_divide", &[Arg::Int(1), Arg::Int(0)]),
        (
            status::EXCEPTION,
            Out::Str("EDivByZero: cannot divide 1 by zero".into())
        )
    );
    assert_eq!(
        calc.call("calc_version", &[]),
        (status::OK, Out::Str("1.0.0".into()))
    );
    assert_eq!(
        calc.call("calc_round_value", &[Arg::Double(2.5), Arg::Int(2)]),
        (status::OK, Out::Double(3.0))
    );
}

#[test]
fn delphi_version_answers_and_raises() {
    let versions = versions();
    assert_eq!(
        versions.call("delphi_version", &[Arg::Str("athens")]),
        (
            status::OK,
            Out::Str("Delphi 12 Athens: BDS 23.0, VER360, CompilerVersion 36.0".into())
        )
    );
    assert_eq!(
        versions.call("delphi_version", &[Arg::Str("VER370")]),
        (
            status::OK,
            Out::Str("Delphi 13 Florence: BDS 37.0, VER370, CompilerVersion 37.0".into())
        )
    );
    assert_eq!(
        versions.call("delphi_version", &[Arg::Str("  ")]),
        (
            status::EXCEPTION,
            Out::Str("EArgumentException: Give a release name or version number.".into())
        )
    );
    let (code, out) = versions.call("delphi_version", &[Arg::Str("Kylix")]);
    assert_eq!(code, status::EXCEPTION);
    assert_eq!(
        out,
        Out::Str("EArgumentException: No Delphi release matches \"Kylix\".".into())
    );
    let (code, out) = versions.call("installed_delphi_versions", &[]);
    assert_eq!(code, status::OK);
    assert!(
        matches!(out, Out::Str(ref s) if s.starts_with("No Delphi installations found") || s.starts_with("BDS ")),
        "{out:?}"
    );
}
