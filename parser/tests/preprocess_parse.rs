//! The preprocessor's fixtures through the whole parser: every fixture unit that is meant to be
//! valid parses without error for a Delphi and a Free Pascal target, and what the conditionals
//! select reaches the syntax tree.

use delphi_mcp_parser::{parse_file, ParseOptions, SourceDb};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pp")
        .join(name)
}

fn options(target: &str) -> ParseOptions {
    ParseOptions {
        target: target.into(),
        include_dirs: vec![fixture("includes/extra")],
        ..ParseOptions::default()
    }
}

/// The syntax tree as JSON text, and the rendered error diagnostics.
fn parse(name: &str, target: &str) -> (String, Vec<String>) {
    let db = SourceDb::new();
    let result = parse_file(&db, &fixture(name), &options(target));
    let errors = result
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.render(&db))
        .collect();
    let tree = serde_json::to_string(&result.unit).expect("the tree serializes");
    (tree, errors)
}

#[test]
fn valid_fixtures_parse_without_errors_for_every_target() {
    let valid = [
        "nested.pas",
        "elseif.pas",
        "middecl.pas",
        "attributes.pas",
        "lexical.pas",
        "declared.pas",
        "ifopt.pas",
        "includes/Main.pas",
        "nearby/project/src/Unit1.pas",
        "encoding/utf8_bom.pas",
        "encoding/utf16le_bom.pas",
        "encoding/utf16be_nobom.pas",
        "encoding/ansi1252.pas",
        "encoding/cr.pas",
        "encoding/mixed.pas",
    ];
    for target in [
        "delphi12-win64",
        "delphi12-linux64",
        "fpc-linux64",
        "delphi10-win32",
    ] {
        for name in valid {
            let (_, errors) = parse(name, target);
            assert!(
                errors.is_empty(),
                "{name} for {target}:\n{}",
                errors.join("\n")
            );
        }
    }
}

#[test]
fn attributes_behind_ifndef_fpc_reach_the_tree_only_for_delphi() {
    let (delphi, _) = parse("attributes.pas", "delphi12-win64");
    assert_eq!(delphi.matches("\"McpTool\"").count(), 2, "{delphi}");
    assert!(delphi.contains("McpParam"));
    let (fpc, _) = parse("attributes.pas", "fpc-linux64");
    assert!(!fpc.contains("McpTool"), "{fpc}");
    assert!(fpc.contains("\"Scale\""));
}

#[test]
fn conditional_branches_choose_the_declarations() {
    let (win, _) = parse("middecl.pas", "delphi12-win64");
    assert!(win.contains("Winapi.Windows") && !win.contains("Posix.Unistd"));
    assert!(win.contains("TInterfacedPersistent"));
    let (linux, _) = parse("middecl.pas", "delphi12-linux64");
    assert!(linux.contains("Posix.Unistd") && !linux.contains("Winapi.Windows"));
    let (fpc, _) = parse("middecl.pas", "fpc-linux64");
    assert!(fpc.contains("TPersistent") && !fpc.contains("TInterfacedPersistent"));
}
