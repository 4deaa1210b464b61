//! Property tests of the preprocessor: no input panics or hangs it, and the output keeps the
//! length and line structure of the input (without includes).

use delphi_mcp_parser::preprocess::preprocess;
use delphi_mcp_parser::{source, ParseOptions, SourceDb};
use proptest::prelude::*;
use std::path::Path;

/// Pieces of Pascal that stress the scanner: directives of every kind (well- and ill-formed),
/// comment and string delimiters, multi-line string openers, line ends of every kind.
const PIECES: &[&str] = &[
    "{$IFDEF A}",
    "{$IFNDEF FPC}",
    "{$IF Defined(A) and (CompilerVersion >= 36)}",
    "{$IF (}",
    "{$IF Declared(X) or (X > 2)}",
    "{$ELSEIF B}",
    "{$ELSE}",
    "{$ENDIF}",
    "{$IFEND}",
    "{$DEFINE A}",
    "{$UNDEF A}",
    "{$IFOPT R+}",
    "{$R+}",
    "{$R *.res}",
    "{$MODE DELPHI}",
    "(*$IFDEF B*)",
    "(*$ENDIF*)",
    "{$IFDEF",
    "{",
    "}",
    "(*",
    "*)",
    "//",
    "'",
    "''",
    "'''",
    "'''''",
    "#13",
    "#$0D",
    "const X = 1;",
    "type T = class end;",
    "procedure P;",
    "begin",
    "end",
    "A",
    "B",
    "X",
    "é",
    "€",
    "𝄞",
    " ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "(",
    ")",
    ";",
    "=",
    "[McpTool('x')]",
    "{$I %DATE%}",
    "{$I missing_prop_file.inc}",
    "{$I-}",
];

fn pascalish() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..120).prop_map(|pieces| pieces.concat())
}

fn pascalish_without_directives() -> impl Strategy<Value = String> {
    let pieces: Vec<&str> = PIECES
        .iter()
        .copied()
        .filter(|p| !p.contains('$'))
        .collect();
    prop::collection::vec(prop::sample::select(pieces), 0..120).prop_map(|pieces| pieces.concat())
}

fn run(text: &str, target: &str) -> delphi_mcp_parser::preprocess::Preprocessed {
    let db = SourceDb::new();
    let id = source::add_text(&db, Path::new("Prop.pas"), text.to_string());
    let options = ParseOptions {
        target: target.to_string(),
        ..ParseOptions::default()
    };
    preprocess(&db, id, &options)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn output_keeps_length_line_breaks_and_active_bytes(text in pascalish()) {
        for target in ["delphi12-win64", "fpc-linux64"] {
            let pp = run(&text, target);
            prop_assert_eq!(pp.text.len(), text.len());
            // `{$I %DATE%}` is the one directive that writes text of its own ('DATE').
            let written = pp.text.replace("'DATE'", "      ");
            for (i, (a, b)) in text.bytes().zip(written.bytes()).enumerate() {
                let line_break = |c: u8| c == b'\r' || c == b'\n';
                prop_assert_eq!(line_break(a), line_break(b), "line break at {}", i);
                prop_assert!(b == b' ' || a == b, "byte {} changed from {} to {}", i, a, b);
            }
            prop_assert_eq!(
                source::line_starts(&pp.text),
                source::line_starts(&text)
            );
            // One segment for the whole file, mapping offsets to themselves.
            prop_assert_eq!(pp.segments.len(), 1);
            let mid = text.len() / 2;
            let span = pp.span(mid, text.len());
            prop_assert_eq!((span.start as usize, span.end as usize), (mid, text.len()));
            // Every diagnostic points into the file.
            for d in &pp.diagnostics {
                if let Some(span) = d.span {
                    prop_assert!(span.start <= span.end && span.end as usize <= text.len());
                }
            }
        }
    }

    #[test]
    fn text_without_directives_passes_unchanged(text in pascalish_without_directives()) {
        prop_assume!(!text.contains("{$") && !text.contains("(*$"));
        let pp = run(&text, "delphi12-win64");
        prop_assert_eq!(&pp.text, &text);
        prop_assert!(pp.diagnostics.is_empty());
    }

    #[test]
    fn preprocessing_is_deterministic(text in pascalish()) {
        let first = run(&text, "delphi12-win64");
        let second = run(&text, "delphi12-win64");
        prop_assert_eq!(first.text, second.text);
        prop_assert_eq!(first.diagnostics.len(), second.diagnostics.len());
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        let pp = run(&text, "delphi12-win64");
        if !text.contains("{$I") && !text.contains("(*$I") {
            prop_assert_eq!(pp.text.len(), text.len());
        }
    }

    #[test]
    fn unicode_if_expressions_never_panic(expr in "\\PC{0,40}") {
        let text = format!("{{$IF {expr}}}x{{$ENDIF}}");
        let pp = run(&text, "delphi12-win64");
        // Only an include directive inside could change the length.
        if !expr.contains('{') && !expr.contains("(*") {
            prop_assert_eq!(pp.text.len(), text.len());
        }
    }

    #[test]
    fn arbitrary_if_expressions_never_panic(expr in "[ -~]{0,80}") {
        let text = format!("{{$IF {expr}}}x{{$ENDIF}}");
        let pp = run(&text, "delphi12-win64");
        prop_assert_eq!(pp.text.len(), text.len());
    }
}

#[test]
fn deeply_nested_expression_is_an_error_not_a_stack_overflow() {
    let depth = 100_000;
    let text = format!(
        "{{$IF {}1{}}}x{{$ENDIF}}",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let pp = run(&text, "delphi12-win64");
    assert!(pp.has_errors());
    assert!(pp.diagnostics[0].message.contains("nested too deeply"));
    let text = format!("{{$IF {}1}}x{{$ENDIF}}", "not ".repeat(depth));
    assert!(run(&text, "delphi12-win64").has_errors());
}

#[test]
fn deeply_nested_conditionals_are_fine() {
    let depth = 10_000;
    let text = format!(
        "{}x{}",
        "{$IFDEF MSWINDOWS}".repeat(depth),
        "{$ENDIF}".repeat(depth)
    );
    let pp = run(&text, "delphi12-win64");
    assert!(pp.diagnostics.is_empty());
    assert_eq!(pp.text.trim(), "x");
}
