//! `{$IF}` expressions: operators, precedence, functions, target constants.

use delphi_mcp_parser::preprocess::preprocess;
use delphi_mcp_parser::{source, ParseOptions, SourceDb};
use std::path::Path;

/// "T" or "F" for the condition, or the error message.
fn eval(condition: &str, target: &str) -> String {
    let db = SourceDb::new();
    let text = format!("const K = 7; S = 'abc';\n{{$IF {condition}}}T{{$ELSE}}F{{$ENDIF}}");
    let id = source::add_text(&db, Path::new("E.pas"), text);
    let options = ParseOptions {
        target: target.into(),
        ..ParseOptions::default()
    };
    let pp = preprocess(&db, id, &options);
    if let Some(d) = pp.diagnostics.first() {
        return d.message.clone();
    }
    pp.text.lines().nth(1).unwrap_or("").trim().to_string()
}

#[test]
fn operators_and_precedence() {
    let cases = [
        ("True", "T"),
        ("not True", "F"),
        ("1 + 2 * 3 = 7", "T"),
        ("(1 + 2) * 3 = 9", "T"),
        ("10 div 3 = 3", "T"),
        ("10 mod 3 = 1", "T"),
        ("7 / 2 = 3.5", "T"),
        ("-5 < 0", "T"),
        ("$FF = 255", "T"),
        ("%1010 = 10", "T"),
        ("1.5e3 = 1500", "T"),
        ("1 shl 4 = 16", "T"),
        ("(6 and 3) = 2", "T"),
        ("(6 or 1) = 7", "T"),
        ("(6 xor 2) = 4", "T"),
        ("True xor True", "F"),
        (
            "Defined(MSWINDOWS) and Defined(WIN64) and not Defined(WIN32)",
            "T",
        ),
        ("Defined(FPC) or Defined(LINUX)", "F"),
        ("'abc' = 'abc'", "T"),
        ("'abc' < 'abd'", "T"),
        ("'a' + 'b' = 'ab'", "T"),
        ("'it''s' <> 'its'", "T"),
        ("#65 = 'A'", "T"),
        ("3 in [1, 2..4]", "T"),
        ("5 in [1, 2..4]", "F"),
        ("1 <> 1", "F"),
        ("2 >= 2", "T"),
        ("2 <= 1", "F"),
        ("High(Integer) = 2147483647", "T"),
        ("Low(ShortInt) = -128", "T"),
        ("High(Word) = 65535", "T"),
        ("High(Char) = 65535", "T"),
        ("Ord(True) = 1", "T"),
        ("Trunc(CompilerVersion) = 36", "T"),
        ("System.RTLVersion >= 36", "T"),
        ("RTLVersion121", "T"),
        ("K = 7", "T"),
        ("S = 'abc'", "T"),
        ("Declared(K) and Declared(S)", "T"),
        ("Unknown", "F"),
        ("Unknown = 0", "T"),
        ("not Unknown", "T"),
        ("UnknownFunc(1, 2)", "F"),
        ("defined(mswindows)", "T"),
        ("SizeOf(Pointer) = 8", "T"),
        ("SizeOf(Extended) = 8", "T"),
        ("SizeOf(NoSuchType) = 0", "T"),
        ("FPC_FULLVERSION >= 30000", "F"),
        ("CompilerVersion >= 36 // trailing comment", "T"),
    ];
    let mut failures = Vec::new();
    for (condition, expected) in cases {
        let got = eval(condition, "delphi12-win64");
        if got != expected {
            failures.push(format!("{condition}: expected {expected}, got {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn target_constants() {
    let cases = [
        ("delphi10-win32", "CompilerVersion = 30", "T"),
        (
            "delphi10-win32",
            "Defined(VER300) and Defined(WIN32) and Defined(CPUX86)",
            "T",
        ),
        ("delphi10-win32", "SizeOf(Pointer) = 4", "T"),
        (
            "delphi10.3-android32",
            "Defined(NEXTGEN) and Defined(AUTOREFCOUNT)",
            "T",
        ),
        (
            "delphi11-linux64",
            "Defined(LINUX) and Defined(POSIX) and Defined(VER350)",
            "T",
        ),
        ("delphi11-linux64", "SizeOf(LongInt) = 8", "T"),
        ("delphi11-linux64", "Defined(AUTOREFCOUNT)", "F"),
        (
            "delphi12-osxarm64",
            "Defined(MACOS) and Defined(CPUARM64)",
            "T",
        ),
        (
            "delphi13-win64",
            "(CompilerVersion = 37) and Defined(VER370)",
            "T",
        ),
        ("fpc-linux64", "FPC_FULLVERSION = 30202", "T"),
        ("fpc-linux64", "Defined(FPC_FULLVERSION)", "T"),
        (
            "fpc-linux64",
            "Defined(VER3_2_2) and Defined(UNIX) and Defined(CPU64)",
            "T",
        ),
        ("fpc-linux64", "SizeOf(Extended) = 10", "T"),
        ("fpc-linux64", "SizeOf(Char) = 1", "T"),
        ("fpc-linux64", "Defined(DCC) or Defined(UNICODE)", "F"),
        ("fpc-win64", "Defined(MSWINDOWS) and Defined(WIN64)", "T"),
        ("fpc-win64", "CompilerVersion > 0", "F"),
    ];
    for (target, condition, expected) in cases {
        assert_eq!(eval(condition, target), expected, "{target}: {condition}");
    }
}

#[test]
fn firemonkey_version_needs_an_fmx_unit() {
    let run = |text: &str| {
        let db = SourceDb::new();
        let id = source::add_text(&db, Path::new("F.pas"), text.to_string());
        preprocess(&db, id, &ParseOptions::default()).text
    };
    let condition = "{$IF Declared(FireMonkeyVersion) and (FireMonkeyVersion >= 16)}FMX{$IFEND}";
    assert!(!run(&format!("unit A; uses Vcl.Forms; {condition}")).contains("FMX"));
    assert!(run(&format!(
        "unit A; uses System.Classes, FMX.Types; {condition}"
    ))
    .contains("FMX"));
}

#[test]
fn fpc_mode_directive_defines_its_symbol_only_for_fpc() {
    let run = |target: &str| {
        let db = SourceDb::new();
        let text = "{$MODE DELPHI}{$IFDEF FPC_DELPHI}delphi-mode{$ENDIF}{$IFOPT H+}long{$ENDIF}";
        let id = source::add_text(&db, Path::new("M.pas"), text.to_string());
        let options = ParseOptions {
            target: target.into(),
            ..ParseOptions::default()
        };
        preprocess(&db, id, &options)
            .text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(run("fpc-linux64"), "delphi-mode long");
    assert_eq!(run("delphi12-win64"), "long");
}

#[test]
fn malformed_expressions_are_errors() {
    for (condition, message) in [
        ("", "expected an expression"),
        ("1 +", "expected an operand"),
        ("(1", "expected `)`"),
        ("Defined(1)", "expected a name"),
        ("Defined(X", "expected `)`"),
        ("'open", "unterminated string"),
        ("1 ? 2", "unexpected character `?`"),
        ("'a' - 1", "needs numbers"),
        ("99999999999999999999", "too large"),
    ] {
        let got = eval(condition, "delphi12-win64");
        assert!(
            got.starts_with("malformed `{$IF}` expression") && got.contains(message),
            "{condition:?}: {got}"
        );
    }
}

/// Both compilers accept `{$IF Defined(A))}` (seen in real units): the extra text is a warning
/// and the condition before it decides the branch.
#[test]
fn extra_text_after_a_condition_is_a_warning() {
    for (condition, branch) in [("Defined(MSWINDOWS))", "T"), ("1 = 2 )", "F")] {
        let db = SourceDb::new();
        let text = format!("{{$IF {condition}}}T{{$ELSE}}F{{$ENDIF}}");
        let id = source::add_text(&db, Path::new("E.pas"), text);
        let pp = preprocess(&db, id, &ParseOptions::default());
        assert_eq!(pp.diagnostics.len(), 1, "{condition:?}");
        let d = &pp.diagnostics[0];
        assert!(!d.is_error(), "{condition:?}: {}", d.message);
        assert!(d.message.contains("unexpected `)`"), "{}", d.message);
        assert_eq!(pp.text.trim(), branch, "{condition:?}");
    }
}

#[test]
fn targets_table() {
    use delphi_mcp_parser::target::{self, Compiler};
    let names = target::known_targets();
    for required in [
        "delphi10-win32",
        "delphi11-win64",
        "delphi12-win32",
        "delphi12-win64",
        "delphi12-linux64",
        "delphi12-osx64",
        "delphi12-osxarm64",
        "delphi13-win64",
        "fpc-linux64",
        "fpc-win64",
    ] {
        assert!(names.iter().any(|n| n == required), "{required} missing");
        assert_eq!(
            target::lookup(required).map(|t| t.name),
            Ok(required.to_string())
        );
    }
    assert_eq!(target::Target::default().name, target::DEFAULT_TARGET);
    let default = target::lookup("Delphi12-Win64").expect("case-insensitive");
    assert_eq!(default.compiler, Compiler::Delphi);
    assert!(!default.defines("FPC"));
    let err = target::lookup("delphi10-osxarm64").expect_err("no ARM Mac in 10 Seattle");
    assert!(
        err.to_string().contains("known targets: delphi10-win32"),
        "{err}"
    );
}
