//! No input may panic or hang the parser: random bytes, random token soup and mutated
//! fixture units. (No time budget is asserted; a hang would stall the test run.) Every result
//! is checked for what holds of any parse (see `parse`): spans inside the text and nested as the
//! tree nests, diagnostics in order, the same result twice and from the grammar alone.
//! `PROPTEST_CASES=N` runs N cases per property instead of 256.

use delphi_mcp_parser::ast::{Decl, Member, Routine, TypeDef, Unit};
use delphi_mcp_parser::{
    parse_text, parse_text_grammar_only, ParseOptions, ParseResult, SourceDb, Span,
};
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

/// Parses `text` and checks what holds of every parse, whatever the input:
/// - a unit is produced (inputs here are far below the nesting the parser refuses);
/// - every span of the tree and of the diagnostics lies inside the file's text, on character
///   boundaries, and every diagnostic renders;
/// - the diagnostics are in source order;
/// - the sections follow each other, each declaration lies inside its section after the one
///   before it, a routine's parameters lie inside its heading, its body after the heading and
///   its nested routines inside the body, a structured type's members inside the type;
/// - a second parse gives the same result (for inputs under 64 KiB), and so does the grammar
///   alone (the direct path that reads declarations without pest must build the grammar's tree
///   and diagnostics).
fn parse(text: &str) {
    let db = SourceDb::new();
    let path = Path::new("Fuzz.pas");
    let opts = ParseOptions::default();
    let result = parse_text(&db, path, text, &opts);
    let unit = result.unit.as_ref().expect("a unit is produced");
    let file = db.get(delphi_mcp_parser::FileId(0));
    let in_text = |s: Span, what: &str| {
        assert!(
            s.file.0 == 0
                && s.start <= s.end
                && file.text.is_char_boundary(s.start as usize)
                && file.text.is_char_boundary(s.end as usize),
            "{what} span {s:?} is outside the text or splits a character:\n{text}"
        );
    };
    for d in &result.diagnostics {
        let _ = d.render(&db);
        d.span.into_iter().for_each(|s| in_text(s, "diagnostic"));
    }
    for s in spans(unit) {
        in_text(s, "tree");
    }
    let order: Vec<_> = result
        .diagnostics
        .iter()
        .map(|d| d.span.map(|s| s.start))
        .collect();
    assert!(order.is_sorted(), "diagnostics out of order: {order:?}");
    check_nesting(unit, text);
    let show = |r: &ParseResult| format!("{:?}", (&r.unit, &r.diagnostics));
    // (not for the long inputs of the nesting tests, each parse of which takes long in a debug
    // build)
    if text.len() < 1 << 16 {
        let again = parse_text(&SourceDb::new(), path, text, &opts);
        assert_eq!(show(&result), show(&again), "two parses differ on:\n{text}");
    }
    let grammar = parse_text_grammar_only(&SourceDb::new(), path, text, &opts);
    assert_eq!(
        show(&result),
        show(&grammar),
        "the direct path and the grammar disagree on:\n{text}"
    );
}

/// Every span in the tree (any object with a file, a start and an end).
fn spans(unit: &Unit) -> Vec<Span> {
    fn walk(v: &serde_json::Value, out: &mut Vec<Span>) {
        match v {
            serde_json::Value::Object(map) => {
                if let (Some(file), Some(start), Some(end)) = (
                    map.get("file").and_then(|x| x.as_u64()),
                    map.get("start").and_then(|x| x.as_u64()),
                    map.get("end").and_then(|x| x.as_u64()),
                ) {
                    out.push(Span {
                        file: delphi_mcp_parser::FileId(file as u32),
                        start: start as u32,
                        end: end as u32,
                    });
                }
                map.values().for_each(|x| walk(x, out));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(
        &serde_json::to_value(unit).expect("the tree serializes"),
        &mut out,
    );
    out
}

fn inside(inner: Span, outer: Span) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

fn check_nesting(unit: &Unit, text: &str) {
    for pair in unit.sections.windows(2) {
        assert!(
            pair[0].span.end <= pair[1].span.start,
            "sections overlap: {:?}, {:?}\n{text}",
            pair[0].span,
            pair[1].span
        );
    }
    for section in &unit.sections {
        let mut previous = section.span.start;
        for decl in &section.decls {
            let span = decl_span(decl);
            assert!(
                inside(span, section.span) && previous <= span.start,
                "declaration {span:?} out of order or outside its section {:?}\n{text}",
                section.span
            );
            previous = span.start;
            match decl {
                Decl::Routine(r) => check_routine(r, text),
                Decl::Type(types) => {
                    for t in &types.items {
                        assert!(inside(t.span, span), "type {} outside its section", t.name);
                        if let TypeDef::Structured(st) = &t.def {
                            for m in st.members() {
                                let member = match m {
                                    Member::Method(r) => r.span,
                                    Member::Property(p) => p.span,
                                    Member::Field { field, .. } => field.span,
                                    Member::Const(c) => c.span,
                                    Member::Type(t) => t.span,
                                    Member::Variant { span } => *span,
                                };
                                assert!(
                                    inside(member, t.span),
                                    "a member of {} lies outside it: {member:?} in {:?}\n{text}",
                                    t.name,
                                    t.span
                                );
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

fn check_routine(r: &Routine, text: &str) {
    for p in &r.params {
        assert!(
            inside(p.span, r.span),
            "parameter {} outside the heading of {}\n{text}",
            p.name,
            r.name
        );
    }
    if let Some(body) = r.body_span {
        assert!(
            r.span.end <= body.start,
            "the body of {} overlaps its heading",
            r.name
        );
        for nested in &r.nested {
            assert!(
                inside(nested.span, body),
                "{} is outside the body of {}\n{text}",
                nested.name,
                r.name
            );
            check_routine(nested, text);
        }
    }
}

fn decl_span(decl: &Decl) -> Span {
    match decl {
        Decl::Const(c) => c.span,
        Decl::Type(t) => t.span,
        Decl::Var(v) => v.span,
        Decl::Routine(r) => r.span,
        Decl::Other(o) => o.span,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(256),
    ))]

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
