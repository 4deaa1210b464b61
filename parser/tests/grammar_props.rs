//! No input may panic or hang the parser: random bytes, random token soup and mutated
//! fixture units. (No time budget is asserted; a hang would stall the test run.) Each input is
//! also parsed with the grammar alone: the direct path (declarations read without pest) must
//! give the same tree and the same diagnostics.

use delphi_mcp_parser::{parse_text, parse_text_grammar_only, ParseOptions, SourceDb};
use proptest::prelude::*;
use std::path::Path;

const TOKENS: &[&str] = &[
    "unit",
    "interface",
    "implementation",
    "end",
    "end.",
    "begin",
    "type",
    "const",
    "var",
    "class",
    "record",
    "procedure",
    "function",
    "property",
    "case",
    "of",
    "try",
    "asm",
    "(",
    ")",
    "[",
    "]",
    ";",
    ":",
    "=",
    ",",
    ".",
    "..",
    "<",
    ">",
    "^",
    "@",
    "'",
    "''",
    "'''",
    "'''\n",
    "{",
    "}",
    "(*",
    "*)",
    "//",
    "\n",
    " ",
    "X",
    "TFoo",
    "Integer",
    "string",
    "array",
    "set",
    "#13",
    "$FF",
    "%1",
    "&end",
    "1.5e3",
    "[McpTool('x')]",
    "///",
    "<summary>",
    "initialization",
    "finalization",
    "uses",
    "in",
    "out",
    "const [ref]",
    "reference to",
    "of object",
    "helper",
    "for",
    "strict",
    "private",
    "public",
    "published",
    "default",
    "read",
    "write",
    "cdecl",
    "external",
    "forward",
    "overload",
    "generic",
    "operator",
    "label",
    "exports",
    "program",
];

fn fixtures() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/units");
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn parse(text: &str) {
    let db = SourceDb::new();
    let path = Path::new("Fuzz.pas");
    let result = parse_text(&db, path, text, &ParseOptions::default());
    // every diagnostic must render (spans inside the text)
    for d in &result.diagnostics {
        let _ = d.render(&db);
    }
    assert!(result.unit.is_some() || result.has_errors());
    let grammar = parse_text_grammar_only(&db, path, text, &ParseOptions::default());
    let same_file = |r: &delphi_mcp_parser::ParseResult| format!("{:?}", (&r.unit, &r.diagnostics));
    assert_eq!(
        same_file(&result).replace("FileId(0)", "FileId(1)"),
        same_file(&grammar),
        "the direct path and the grammar disagree on:\n{text}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        parse(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn token_soup_never_panics(tokens in proptest::collection::vec(0..TOKENS.len(), 0..400)) {
        let text: Vec<&str> = tokens.iter().map(|&i| TOKENS[i]).collect();
        parse(&text.join(" "));
    }

    #[test]
    fn mutated_fixtures_never_panic(
        which in 0usize..16,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), 0..TOKENS.len(), 0u8..3), 1..12),
    ) {
        let all = fixtures();
        prop_assume!(!all.is_empty());
        let mut text = all[which % all.len()].clone();
        for (at, token, kind) in edits {
            let mut pos = at.index(text.len() + 1);
            while !text.is_char_boundary(pos) {
                pos -= 1;
            }
            match kind {
                0 => text.insert_str(pos, TOKENS[token]),
                1 => {
                    let mut end = (pos + 1 + token % 20).min(text.len());
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    text.replace_range(pos..end, "");
                }
                _ => text.truncate(pos),
            }
        }
        parse(&text);
    }
}

#[test]
fn deep_nesting_does_not_overflow() {
    let deep = format!(
        "unit D; interface const X = {}1{}; type T = {}; implementation end.",
        "(".repeat(1_000),
        ")".repeat(1_000),
        "array of ".repeat(300) + "Integer"
    );
    parse(&deep);
    let blocks = format!(
        "unit D; interface implementation procedure P; begin {} end; end.",
        "begin ".repeat(20_000)
    );
    parse(&blocks);
    let nested = format!(
        "unit D; interface implementation {} begin end; end.",
        "procedure P; ".repeat(500)
    );
    parse(&nested);
}

/// Builds a declaration nested `n` levels deep.
type Shape = Box<dyn Fn(usize) -> String>;

/// Every construct the grammar recurses on, nested far beyond real code: parsed on a large
/// stack (or refused with an error past the limit), never a stack overflow. Run on a thread
/// with a small stack so that the inline path is exercised too.
#[test]
fn every_kind_of_deep_nesting_is_parsed_or_refused() {
    let shapes: Vec<(&str, Shape)> = vec![
        (
            "parens",
            Box::new(|n| format!("const X = {}1{};", "(".repeat(n), ")".repeat(n))),
        ),
        (
            "array of",
            Box::new(|n| format!("type T = {}Integer;", "array of ".repeat(n))),
        ),
        (
            "array[] of",
            Box::new(|n| format!("type T = {}Byte;", "array[0..1] of ".repeat(n))),
        ),
        (
            "unary",
            Box::new(|n| format!("const X = {}1;", "- not ".repeat(n))),
        ),
        (
            "records",
            Box::new(|n| {
                format!(
                    "type T = {}Integer;{} end;",
                    "record A: ".repeat(n),
                    " end;".repeat(n - 1)
                )
            }),
        ),
        (
            "generics",
            Box::new(|n| format!("type T = {}Integer{};", "A<".repeat(n), ">".repeat(n))),
        ),
        (
            "results",
            Box::new(|n| format!("type T = {}Integer;", "function: ".repeat(n))),
        ),
        (
            "pointers",
            Box::new(|n| format!("type T = {}Integer;", "^".repeat(n))),
        ),
        (
            "class of",
            Box::new(|n| format!("type T = {}TObject;", "class of ".repeat(n))),
        ),
        (
            "attributes",
            Box::new(|n| format!("type [A({}1{})] T = Integer;", "(".repeat(n), ")".repeat(n))),
        ),
    ];
    for (name, shape) in &shapes {
        for n in [10, 150, 1_000, 5_000, 60_000] {
            let text = format!("unit D; interface {} implementation end.", shape(n));
            let handle = std::thread::Builder::new()
                .stack_size(2 << 20)
                .spawn(move || {
                    let db = SourceDb::new();
                    let r = parse_text(&db, Path::new("D.pas"), &text, &ParseOptions::default());
                    (r.unit.is_some(), r.has_errors())
                })
                .expect("thread");
            let (has_unit, has_errors) = handle.join().expect("no overflow, no panic");
            assert!(has_unit || has_errors, "{name} x{n}");
            if n <= 150 {
                assert!(has_unit, "{name} x{n} is parsed");
            }
        }
    }
}
