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

/// Snapshot of a fixture preprocessed for each target.
fn snapshot_targets(name: &str, targets: &[&str]) -> String {
    let mut out = String::new();
    for t in targets {
        let (db, pp) = run(name, &target(t));
        let _ = writeln!(out, "=== {t}");
        out.push_str(&report(&db, &pp));
    }
    out
}

#[test]
fn nested_conditionals() {
    insta::assert_snapshot!(snapshot_targets(
        "nested.pas",
        &["delphi12-win64", "delphi12-linux64"]
    ));
}

#[test]
fn elseif_chains_by_target() {
    insta::assert_snapshot!(snapshot_targets(
        "elseif.pas",
        &[
            "delphi13-win64",
            "delphi12-win32",
            "delphi11-osxarm64",
            "delphi10.4-linux64",
            "fpc-linux64",
            "fpc-win64",
        ]
    ));
}

#[test]
fn conditionals_mid_declaration_uses_and_expression() {
    insta::assert_snapshot!(snapshot_targets(
        "middecl.pas",
        &["delphi12-win64", "fpc-linux64"]
    ));
}

#[test]
fn fpc_attribute_pattern() {
    insta::assert_snapshot!(snapshot_targets(
        "attributes.pas",
        &["delphi12-win64", "fpc-linux64"]
    ));
    let (_, delphi) = run("attributes.pas", &ParseOptions::default());
    assert_eq!(delphi.text.matches("[McpTool(").count(), 2);
    let (_, fpc) = run("attributes.pas", &target("fpc-linux64"));
    assert!(!fpc.text.contains("McpTool"));
    assert!(fpc.text.contains("function Add(A, B: Integer): Integer;"));
    // `-U` removes a predefined symbol, `-D` adds one.
    let options = ParseOptions {
        target: "fpc-linux64".into(),
        undefines: vec!["fpc".into()],
        ..ParseOptions::default()
    };
    let (_, undefined) = run("attributes.pas", &options);
    assert_eq!(undefined.text.matches("[McpTool(").count(), 2);
    let options = ParseOptions {
        defines: vec!["FPC".into()],
        ..ParseOptions::default()
    };
    let (_, defined) = run("attributes.pas", &options);
    assert!(!defined.text.contains("McpTool"));
}

#[test]
fn strings_and_comments_hide_fake_directives() {
    insta::assert_snapshot!(snapshot_targets("lexical.pas", &["delphi12-win64"]));
}

#[test]
fn declared_and_file_constants() {
    insta::assert_snapshot!(snapshot_targets("declared.pas", &["delphi12-win64"]));
}

#[test]
fn ifopt_switches_and_other_directives() {
    insta::assert_snapshot!(snapshot_targets(
        "ifopt.pas",
        &["delphi12-win64", "fpc-linux64"]
    ));
    let (_, pp) = run("ifopt.pas", &ParseOptions::default());
    let noted: Vec<String> = pp
        .directives
        .iter()
        .map(|d| format!("{} {}", d.name, d.argument))
        .collect();
    assert_eq!(
        noted,
        [
            "R +,Q+",
            "RANGECHECKS OFF",
            "R *.res",
            "SCOPEDENUMS ON",
            "WARN SYMBOL_PLATFORM OFF",
            "M +",
            "MINENUMSIZE 4"
        ]
    );
}

#[test]
fn every_error_kind() {
    insta::assert_snapshot!(snapshot_targets("errors.pas", &["delphi12-win64"]));
}

fn include_options(target_name: &str) -> ParseOptions {
    ParseOptions {
        target: target_name.into(),
        include_dirs: vec![fixtures().join("includes/extra")],
        ..ParseOptions::default()
    }
}

#[test]
fn includes_with_search_paths_and_a_missing_file() {
    let mut out = String::new();
    for t in ["delphi12-win64", "fpc-linux64"] {
        let (db, pp) = run("includes/Main.pas", &include_options(t));
        let _ = writeln!(out, "=== {t}");
        out.push_str(&report(&db, &pp));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn include_segments_map_back_to_each_file() {
    let (db, pp) = run("includes/Main.pas", &include_options("delphi12-win64"));
    // Segments cover the output in order without gaps.
    let mut expected_start = 0;
    for segment in &pp.segments {
        assert_eq!(segment.out_start, expected_start);
        assert!(segment.out_end > segment.out_start);
        expected_start = segment.out_end;
        let file = db.get(segment.file);
        let original = &file.text
            [segment.file_start..segment.file_start + (segment.out_end - segment.out_start)];
        // `{$I %DATE%}` is the one place that writes text of its own.
        let produced = pp.text[segment.out_start..segment.out_end].replace("'DATE'", "      ");
        // Same length, same line breaks, and every non-blank byte copied verbatim.
        assert_eq!(original.len(), produced.len());
        for (o, p) in original.bytes().zip(produced.bytes()) {
            assert!(p == b' ' || o == p, "{:?} vs {:?}", original, produced);
        }
    }
    assert_eq!(expected_start, pp.text.len());
    let at = pp.text.find("Nested = ").expect("nested include spliced");
    let span = pp.span(at, at + "Nested".len());
    let file = db.get(span.file);
    assert!(file.path.ends_with("nested.inc"), "{}", file.path.display());
    assert_eq!(&file.text[span.start as usize..span.end as usize], "Nested");
    let at = pp
        .text
        .find("AfterMissing")
        .expect("text after the missing include");
    let span = pp.span(at, at + 1);
    let main = db.get(span.file);
    assert!(main.path.ends_with("Main.pas"));
    assert_eq!(main.line_col(span.start).line, 17);
    // `{$I %DATE%}` becomes a string literal in place, keeping the length.
    assert!(pp.text.contains("Built = 'DATE'"));
    // The missing include is a warning, not an error.
    assert!(!pp.has_errors(), "{}", report(&db, &pp));
    assert_eq!(pp.diagnostics.len(), 1);
}

#[test]
fn include_found_in_a_nearby_folder_and_the_unit_folder() {
    let (db, pp) = run("nearby/project/src/Unit1.pas", &ParseOptions::default());
    assert!(pp.diagnostics.is_empty(), "{}", report(&db, &pp));
    assert!(pp.text.contains("ProjectIncFound"));
    assert!(pp.text.contains("LocalIncFoundFromTheUnitFolder"));
}

#[test]
fn constants_and_names_of_used_units_found_as_files() {
    let (db, pp) = run("usedunits/Main.pas", &ParseOptions::default());
    assert!(pp.diagnostics.is_empty(), "{}", report(&db, &pp));
    for (name, active) in [
        ("LevelTwoOrMore", true),
        ("BelowLevelTwo", false),
        ("RecordDeclaredInUsedUnit", true),
        ("ImplementationNamesAreVisible", false),
        ("LastUsedUnitWins", true),
    ] {
        assert_eq!(pp.text.contains(name), active, "{name}");
    }
}

#[test]
fn include_cycles_and_depth() {
    let mut out = String::new();
    for name in [
        "cycle/Cycle.pas",
        "deep/Deep.pas",
        "unterminated/Unterminated.pas",
    ] {
        let (db, pp) = run(name, &ParseOptions::default());
        let _ = writeln!(out, "=== {name}");
        out.push_str(&report(&db, &pp));
    }
    insta::assert_snapshot!(out);
}

#[test]
fn exponential_include_trees_stop_at_the_expansion_limit() {
    // Each of 20 files includes the next one twice: 2^20 expansions if nothing stopped it.
    let (db, pp) = run("explode/Explode.pas", &ParseOptions::default());
    let errors: Vec<String> = pp.diagnostics.iter().map(|d| d.render(&db)).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("more than 10000 include expansions"),
        "{}",
        errors[0]
    );
    assert!(pp.text.matches('x').count() <= 10_000);
}

#[test]
fn include_files_are_read_once_per_database() {
    let db = SourceDb::new();
    let options = include_options("delphi12-win64");
    let main = fixtures().join("includes/Main.pas");
    let first = source::load(&db, &main, 1252).expect("loads");
    preprocess(&db, first, &options);
    let after_first = db.len();
    let second = source::load(&db, &main, 1252).expect("loads");
    preprocess(&db, second, &options);
    assert_eq!(
        db.len(),
        after_first + 1,
        "only the unit itself is added again"
    );
}

#[test]
fn unknown_target_lists_the_known_ones() {
    let (db, pp) = run_text(
        "unit A; {$IFDEF MSWINDOWS}win{$ENDIF}",
        &target("delphi99-amiga"),
    );
    assert!(pp.has_errors());
    let rendered = pp.diagnostics[0].render(&db);
    assert!(
        rendered.contains("unknown target `delphi99-amiga`"),
        "{rendered}"
    );
    assert!(
        rendered.contains("delphi12-win64") && rendered.contains("fpc-linux64"),
        "{rendered}"
    );
    // The default target is used for the rest.
    assert!(pp.text.contains("win"));
}

#[test]
fn encodings_keep_positions_through_the_preprocessor() {
    for name in [
        "utf16le_bom.pas",
        "utf16be_bom.pas",
        "ansi1252.pas",
        "cr.pas",
        "mixed.pas",
    ] {
        let (db, pp) = run(&format!("encoding/{name}"), &ParseOptions::default());
        let at = pp.text.find("Marker").expect("active on Windows");
        let span = pp.span(at, at + 6);
        let at = db.get(span.file).line_col(span.start);
        assert_eq!((at.line, at.column), (6, 21), "{name}");
        assert!(!pp.text.contains("{$"), "{name}");
    }
}

#[test]
fn empty_and_directive_only_inputs() {
    let (_, pp) = run_text("", &ParseOptions::default());
    assert_eq!(pp.text, "");
    assert_eq!(pp.segments.len(), 1);
    let span = pp.span(0, 10);
    assert_eq!((span.start, span.end), (0, 0));
    let (_, pp) = run_text("{$DEFINE A}", &ParseOptions::default());
    assert_eq!(pp.text, " ".repeat(11));
}

/// The preprocessor reads string literals as the lexer does: a `'''` after text on a line is
/// content of a multi-line string (a directive after it is text), and an opener without a
/// closing line ends with its line (directives after it count).
#[test]
fn directives_and_multiline_strings() {
    let options = ParseOptions::default();
    let text = "const S = '''\n  a ''' {$DEFINE X}\n  ''';\n{$IFDEF X}Bad{$ENDIF}Good\n";
    let (_, pp) = run_text(text, &options);
    assert!(pp.text.contains("a ''' {$DEFINE X}"), "{}", pp.text);
    assert!(!pp.text.contains("Bad") && pp.text.contains("Good"));
    let text = "S := '''\n{$IFDEF NEVER}Gone{$ENDIF}Kept\n";
    let (_, pp) = run_text(text, &options);
    assert!(
        !pp.text.contains("Gone") && pp.text.contains("Kept"),
        "{}",
        pp.text
    );
}
