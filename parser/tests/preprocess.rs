//! The preprocessor on fixtures per construct family: active text and rendered diagnostics.

use delphi_mcp_parser::preprocess::{preprocess, Preprocessed};
use delphi_mcp_parser::{source, ParseOptions, SourceDb};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pp")
}

/// Preprocesses a fixture file; paths in the output are relative to the fixture folder.
fn run(name: &str, options: &ParseOptions) -> (SourceDb, Preprocessed) {
    let db = SourceDb::new();
    let root = fixtures();
    let id = source::load(&db, &root.join(name), options.codepage).expect("fixture loads");
    let pp = preprocess(&db, id, options);
    (db, pp)
}

fn run_text(text: &str, options: &ParseOptions) -> (SourceDb, Preprocessed) {
    let db = SourceDb::new();
    let id = source::add_text(&db, Path::new("Inline.pas"), text.to_string());
    let pp = preprocess(&db, id, options);
    (db, pp)
}

fn target(name: &str) -> ParseOptions {
    ParseOptions {
        target: name.to_string(),
        ..ParseOptions::default()
    }
}

/// The non-blank lines of the output, each with the file:line it comes from, then the
/// rendered diagnostics.
fn report(db: &SourceDb, pp: &Preprocessed) -> String {
    let mut out = String::new();
    let root = fixtures();
    let mut offset = 0;
    for line in pp.text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\r', '\n']);
        // Lone CR line ends split further.
        let mut inner = 0;
        for part in content.split('\r') {
            if !part.trim().is_empty() {
                let first = offset + inner + (part.len() - part.trim_start().len());
                let span = pp.span(first, first + 1);
                let file = db.get(span.file);
                let at = file.line_col(span.start);
                let path = file.path.strip_prefix(&root).unwrap_or(&file.path);
                let _ = writeln!(
                    out,
                    "{:>16} | {}",
                    format!("{}:{}", path.display(), at.line),
                    part.trim_end()
                );
            }
            inner += part.len() + 1;
        }
        offset += line.len();
    }
    for diagnostic in &pp.diagnostics {
        out.push_str("---\n");
        out.push_str(
            &diagnostic
                .render(db)
                .replace(&format!("{}/", root.display()), ""),
        );
    }
    out
}

#[test]
fn directives_and_inactive_branches_become_blanks_of_the_same_length() {
    let source = "unit A;\n{$IFDEF FPC}fpc{$ELSE}delphi{$ENDIF}\n'{$IFDEF X}' // {$ENDIF}\n";
    let (db, pp) = run_text(source, &ParseOptions::default());
    assert_eq!(
        pp.text,
        "unit A;\n                      delphi        \n'{$IFDEF X}' // {$ENDIF}\n"
    );
    assert_eq!(pp.text.len(), source.len());
    assert!(pp.diagnostics.is_empty(), "{}", report(&db, &pp));
    let (_, fpc) = run_text(source, &target("fpc-linux64"));
    assert!(fpc.text.contains("fpc") && !fpc.text.contains("delphi"));
}
