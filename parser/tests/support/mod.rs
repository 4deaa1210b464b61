//! Helpers of the parser's integration tests: fixture paths, parsed fixture units and their trees
//! as compact JSON, the comparison of the two paths. Each test binary uses part of them.
#![allow(dead_code)]

use delphi_mcp_parser::{
    parse_file, parse_text, parse_text_grammar_only, ParseOptions, ParseResult, SourceDb,
};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The path of fixture `name` in `tests/fixtures/dir`.
pub fn fixture(dir: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir)
        .join(name)
}

/// The syntax tree as JSON with every span written as `line:col-line:col` and empty fields
/// left out, so snapshots stay readable.
pub fn compact_tree(db: &SourceDb, unit: &delphi_mcp_parser::ast::Unit) -> Value {
    fn walk(db: &SourceDb, v: Value) -> Option<Value> {
        match v {
            Value::Object(map) => {
                if map.len() == 3 && map.contains_key("file") && map.contains_key("start") {
                    let file = db.get(delphi_mcp_parser::FileId(map["file"].as_u64()? as u32));
                    let s = file.line_col(map["start"].as_u64()? as u32);
                    let e = file.line_col(map["end"].as_u64()? as u32);
                    return Some(Value::String(format!(
                        "{}:{}-{}:{}",
                        s.line, s.column, e.line, e.column
                    )));
                }
                let mut out = serde_json::Map::new();
                for (k, v) in map {
                    if let Some(v) = walk(db, v) {
                        out.insert(k, v);
                    }
                }
                Some(Value::Object(out))
            }
            Value::Array(items) if items.is_empty() => None,
            Value::Array(items) => Some(Value::Array(
                items.into_iter().filter_map(|i| walk(db, i)).collect(),
            )),
            Value::Null | Value::Bool(false) => None,
            other => Some(other),
        }
    }
    walk(db, serde_json::to_value(unit).expect("the tree serializes")).unwrap_or(Value::Null)
}

/// Parses the fixture unit `name` of `tests/fixtures/units`, which must have no error.
pub fn parse_fixture(name: &str) -> (SourceDb, delphi_mcp_parser::ast::Unit) {
    let db = SourceDb::new();
    let result = parse_file(&db, &fixture("units", name), &ParseOptions::default());
    let rendered: Vec<String> = result.diagnostics.iter().map(|d| d.render(&db)).collect();
    assert!(
        !result.has_errors(),
        "{name} should parse cleanly:\n{}",
        rendered.join("\n")
    );
    let unit = result.unit.expect("a unit is produced");
    (db, unit)
}

/// Parses `text` (registered as `path`) with the direct path and with the grammar alone, and
/// fails showing where the two trees (with their diagnostics) first differ.
pub fn assert_same(path: &Path, text: &str) {
    let show = |r: &ParseResult| format!("{:#?}", (&r.unit, &r.diagnostics));
    let opts = ParseOptions::default();
    let direct = show(&parse_text(&SourceDb::new(), path, text, &opts));
    let grammar = show(&parse_text_grammar_only(
        &SourceDb::new(),
        path,
        text,
        &opts,
    ));
    if direct == grammar {
        return;
    }
    let first = direct
        .lines()
        .zip(grammar.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(0);
    let around = |s: &str| {
        s.lines()
            .skip(first.saturating_sub(12))
            .take(20)
            .collect::<Vec<_>>()
            .join("\n")
    };
    // short inputs (generated ones) are shown whole
    let input = if text.len() < 4096 { text } else { "" };
    panic!(
        "{}: the direct path and the grammar disagree at line {first} of the tree\n{input}\n\
         --- direct path:\n{}\n--- grammar:\n{}",
        path.display(),
        around(&direct),
        around(&grammar)
    );
}
