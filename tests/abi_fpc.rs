//! Proves the ABI (docs/abi.md) end to end: the ABI fixture unit
//! (`tests/fixtures/abi/AbiFixture.pas`) goes through the parser, the generator and Free Pascal,
//! and the library is called here directly through libloading.

mod support {
    pub mod fpc;
}

use delphi_mcp_codegen::manifest::Manifest;
use delphi_mcp_runtime::abi::{
    status, symbols, AbiKind, AbiValue, AbiVersionFn, FreeFn, InitFn, ManifestFn, ToolFn,
    ABI_VERSION,
};
use libloading::Library;
use std::sync::OnceLock;

struct Fixture {
    library: Library,
    manifest: Manifest,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let path = support::fpc::build_fixture("abi");
        // SAFETY: the library is the fixture just built; its initialization only sets up the
        // Pascal RTL. It is never unloaded (it lives in a static).
        let library = unsafe { Library::new(&path) }.expect("load the fixture library");
        // SAFETY: the symbols have the signatures of runtime/src/abi.rs.
        let manifest = unsafe {
            let version: libloading::Symbol<AbiVersionFn> = library
                .get(symbols::ABI_VERSION.as_bytes())
                .expect("mcp_abi_version");
            assert_eq!(version() as u32, ABI_VERSION);
            let init: libloading::Symbol<InitFn> =
                library.get(symbols::INIT.as_bytes()).expect("mcp_init");
            let mut error = AbiValue::ABSENT;
            assert_eq!(init(&mut error), status::OK);
            let manifest: libloading::Symbol<ManifestFn> = library
                .get(symbols::MANIFEST.as_bytes())
                .expect("mcp_manifest");
            let mut len = 0isize;
            let ptr = manifest(&mut len);
            assert!(!ptr.is_null() && len > 0);
            let bytes = std::slice::from_raw_parts(ptr, len as usize);
            serde_json::from_slice::<Manifest>(bytes).expect("the embedded manifest parses")
        };
        Fixture { library, manifest }
    })
}

/// A decoded result value.
#[derive(Debug, Clone, PartialEq)]
enum Out {
    None,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Double(f64),
    Str(String),
}

/// An argument; strings are kept alive by the caller's `Vec<Vec<u8>>`.
enum Arg<'a> {
    Absent,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Double(f64),
    Str(&'a str),
}

fn abi_value(arg: &Arg<'_>) -> AbiValue {
    let mut value = AbiValue::ABSENT;
    match arg {
        Arg::Absent => {}
        Arg::Bool(b) => {
            value.kind = AbiKind::Bool as i32;
            value.bits = u64::from(*b);
        }
        Arg::Int(i) => {
            value.kind = AbiKind::Int as i32;
            value.bits = *i as u64;
        }
        Arg::UInt(u) => {
            value.kind = AbiKind::UInt as i32;
            value.bits = *u;
        }
        Arg::Double(d) => {
            value.kind = AbiKind::Double as i32;
            value.bits = d.to_bits();
        }
        Arg::Str(s) => {
            value.kind = AbiKind::String as i32;
            value.ptr = s.as_ptr();
            value.len = s.len() as isize;
        }
    }
    value
}

/// Calls tool `name`; returns the status and the decoded out value.
fn call(name: &str, args: &[Arg<'_>]) -> (i32, Out) {
    let fixture = fixture();
    let entry = fixture
        .manifest
        .tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool {name} in the manifest"));
    let values: Vec<AbiValue> = args.iter().map(abi_value).collect();
    let mut out = AbiValue::ABSENT;
    // SAFETY: the export has the ToolFn signature; the argument strings outlive the call; the
    // returned string is freed once through mcp_free.
    unsafe {
        let tool: libloading::Symbol<ToolFn> = fixture
            .library
            .get(entry.delphi.export.as_bytes())
            .expect("tool export");
        let free: libloading::Symbol<FreeFn> = fixture
            .library
            .get(symbols::FREE.as_bytes())
            .expect("mcp_free");
        let code = tool(values.as_ptr(), values.len() as i32, &mut out);
        let decoded = match out.kind {
            k if k == AbiKind::Absent as i32 => Out::None,
            k if k == AbiKind::Bool as i32 => Out::Bool(out.bits == 1),
            k if k == AbiKind::Int as i32 => Out::Int(out.bits as i64),
            k if k == AbiKind::UInt as i32 => Out::UInt(out.bits),
            k if k == AbiKind::Double as i32 => Out::Double(f64::from_bits(out.bits)),
            k if k == AbiKind::String as i32 => {
                assert!(!out.ptr.is_null(), "strings are never null");
                let bytes = std::slice::from_raw_parts(out.ptr, out.len as usize);
                let text = String::from_utf8(bytes.to_vec()).expect("UTF-8 out");
                free(out.ptr as *mut _);
                Out::Str(text)
            }
            other => panic!("unknown out kind {other}"),
        };
        (code, decoded)
    }
}

fn ok(value: Out) -> (i32, Out) {
    (status::OK, value)
}

fn rejected(result: (i32, Out)) -> String {
    assert_eq!(result.0, status::BAD_ARGUMENT, "{result:?}");
    match result.1 {
        Out::Str(s) => s,
        other => panic!("no message: {other:?}"),
    }
}

fn raised(result: (i32, Out)) -> String {
    assert_eq!(result.0, status::EXCEPTION, "{result:?}");
    match result.1 {
        Out::Str(s) => s,
        other => panic!("no message: {other:?}"),
    }
}

#[test]
fn the_embedded_manifest_lists_every_tool() {
    let manifest = &fixture().manifest;
    assert_eq!(manifest.abi_version, ABI_VERSION);
    assert_eq!(manifest.tools.len(), 43);
    let names: Vec<&str> = manifest.tools.iter().map(|t| t.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted, "tools are sorted by name");
}

#[test]
fn every_integer_type_at_both_limits() {
    let signed: &[(&str, i64, i64)] = &[
        ("echo_short_int", -128, 127),
        ("echo_small_int", -32768, 32767),
        ("echo_integer", i32::MIN.into(), i32::MAX.into()),
        ("echo_long_int", i32::MIN.into(), i32::MAX.into()),
        ("echo_fixed_int", i32::MIN.into(), i32::MAX.into()),
        ("echo_int64", i64::MIN, i64::MAX),
        ("echo_native_int", i64::MIN, i64::MAX),
        ("echo_byte", 0, 255),
        ("echo_word", 0, 65535),
        ("echo_cardinal", 0, u32::MAX.into()),
        ("echo_long_word", 0, u32::MAX.into()),
        ("echo_fixed_u_int", 0, u32::MAX.into()),
        ("echo_percent", 0, 100),
        ("echo_age", i32::MIN.into(), i32::MAX.into()),
    ];
    for &(tool, min, max) in signed {
        assert_eq!(
            call(tool, &[Arg::Int(min)]),
            ok(Out::Int(min)),
            "{tool} min"
        );
        assert_eq!(
            call(tool, &[Arg::Int(max)]),
            ok(Out::Int(max)),
            "{tool} max"
        );
        if min > i64::MIN {
            let message = rejected(call(tool, &[Arg::Int(min - 1)]));
            assert!(message.contains("out of range"), "{tool}: {message}");
        }
        if max < i64::MAX {
            let message = rejected(call(tool, &[Arg::Int(max + 1)]));
            assert!(message.starts_with("argument 'V': "), "{tool}: {message}");
        }
    }
    for tool in ["echo_u_int64", "echo_native_u_int"] {
        assert_eq!(call(tool, &[Arg::UInt(0)]), ok(Out::UInt(0)));
        assert_eq!(call(tool, &[Arg::UInt(u64::MAX)]), ok(Out::UInt(u64::MAX)));
        let message = rejected(call(tool, &[Arg::Int(-1)]));
        assert!(message.contains("-1 is out of range"), "{message}");
    }
}

#[test]
fn floats_cross_exactly_and_single_overflow_is_rejected() {
    for tool in ["echo_double", "echo_real", "echo_extended"] {
        for value in [0.1, -1.5e300, f64::MIN_POSITIVE, 123456.789] {
            assert_eq!(
                call(tool, &[Arg::Double(value)]),
                ok(Out::Double(value)),
                "{tool}"
            );
        }
    }
    assert_eq!(
        call("echo_single", &[Arg::Double(1.5)]),
        ok(Out::Double(1.5))
    );
    let message = rejected(call("echo_single", &[Arg::Double(1e39)]));
    assert!(message.contains("range of Single"), "{message}");
    assert_eq!(
        call("echo_currency", &[Arg::Double(12.34567)]),
        ok(Out::Double(12.3457))
    );
    assert_eq!(
        call("echo_comp", &[Arg::Double(9007199254740992.0)]),
        ok(Out::Double(9007199254740992.0))
    );
    assert!(rejected(call("echo_comp", &[Arg::Double(1.5)])).contains("whole number"));
    assert!(raised(call("not_a_number", &[])).contains("not a finite number"));
}

#[test]
fn booleans_enums_chars_and_date_times() {
    for tool in ["echo_boolean", "echo_long_bool"] {
        assert_eq!(call(tool, &[Arg::Bool(true)]), ok(Out::Bool(true)));
        assert_eq!(call(tool, &[Arg::Bool(false)]), ok(Out::Bool(false)));
    }
    assert_eq!(call("echo_color", &[Arg::Int(5)]), ok(Out::Int(5)));
    assert_eq!(call("echo_color", &[Arg::Int(0)]), ok(Out::Int(0)));
    assert_eq!(
        call("echo_char", &[Arg::Str("é")]),
        ok(Out::Str("é".into()))
    );
    assert_eq!(
        call("echo_char", &[Arg::Str("中")]),
        ok(Out::Str("中".into()))
    );
    assert!(rejected(call("echo_char", &[Arg::Str("😀")])).contains("one UTF-16 character"));
    assert_eq!(
        call("echo_ansi_char", &[Arg::Str("x")]),
        ok(Out::Str("x".into()))
    );
    let now = 46000.75;
    assert_eq!(
        call("echo_date_time", &[Arg::Double(now)]),
        ok(Out::Double(now))
    );
}

#[test]
fn strings_keep_every_character() {
    let text = "é 中文 😀 \u{0} end";
    for tool in ["echo_string", "echo_wide_string", "echo_utf8", "echo_ansi"] {
        assert_eq!(
            call(tool, &[Arg::Str(text)]),
            ok(Out::Str(text.into())),
            "{tool}"
        );
        assert_eq!(
            call(tool, &[Arg::Str("")]),
            ok(Out::Str(String::new())),
            "{tool}"
        );
    }
    assert_eq!(call("utf16_length", &[Arg::Str("😀é")]), ok(Out::Int(3)));
    assert_eq!(
        call("echo_latin", &[Arg::Str("é€")]),
        ok(Out::Str("é€".into()))
    );
    let message = rejected(call("echo_latin", &[Arg::Str("中")]));
    assert!(
        message.contains("code page 1252 cannot represent"),
        "{message}"
    );
}

#[test]
fn over_long_short_strings_are_rejected_not_truncated() {
    assert_eq!(
        call("echo_short5", &[Arg::Str("abcde")]),
        ok(Out::Str("abcde".into()))
    );
    let message = rejected(call("echo_short5", &[Arg::Str("abcdef")]));
    assert!(message.contains("at most 5 fit"), "{message}");
    let long = "x".repeat(255);
    assert_eq!(
        call("echo_short_string", &[Arg::Str(&long)]),
        ok(Out::Str(long))
    );
    let message = rejected(call("echo_short_string", &[Arg::Str(&"x".repeat(256))]));
    assert!(message.contains("at most 255 fit"), "{message}");
}

#[test]
fn absent_arguments_get_the_declared_default() {
    assert_eq!(
        call("add_default", &[Arg::Int(1), Arg::Absent]),
        ok(Out::Int(11))
    );
    assert_eq!(
        call("add_default", &[Arg::Int(1), Arg::Int(2)]),
        ok(Out::Int(3))
    );
    assert_eq!(call("do_nothing", &[]), ok(Out::None));
}

#[test]
fn exceptions_and_faults_become_tool_errors_and_the_host_lives_on() {
    assert_eq!(
        raised(call("raise_message", &[Arg::Str("boom é")])),
        "EArgumentException: boom é"
    );
    for _ in 0..3 {
        let message = raised(call("nil_dereference", &[Arg::Int(0)]));
        assert!(message.starts_with("EAccessViolation: "), "{message}");
    }
    assert_eq!(
        raised(call("divide_integers", &[Arg::Int(1), Arg::Int(0)])),
        "EDivByZero: Division by zero"
    );
    assert!(
        raised(call("divide_floats", &[Arg::Double(1.0), Arg::Double(0.0)]))
            .starts_with("EZeroDivide")
    );
    // The process is alive and the library still works after the faults.
    assert_eq!(
        call("divide_integers", &[Arg::Int(7), Arg::Int(2)]),
        ok(Out::Int(3))
    );
}

#[test]
fn the_host_floating_point_state_is_restored() {
    fn mxcsr() -> u32 {
        #[cfg(target_arch = "x86_64")]
        {
            let mut value = 0u32;
            // SAFETY: stmxcsr only stores the control/status register into `value`.
            unsafe {
                std::arch::asm!("stmxcsr [{}]", in(reg) &mut value, options(nostack));
            }
            value
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            0
        }
    }
    let before = mxcsr();
    let _ = call("divide_floats", &[Arg::Double(1.0), Arg::Double(0.0)]);
    let _ = call("echo_double", &[Arg::Double(0.1)]);
    assert_eq!(mxcsr(), before);
}

#[test]
fn malformed_calls_are_reported_not_crashed() {
    let (code, out) = call("echo_integer", &[]);
    assert_eq!(code, status::BAD_CALL);
    assert!(matches!(out, Out::Str(s) if s.contains("0 arguments given, 1 expected")));
    let (code, _) = call("echo_integer", &[Arg::Str("1")]);
    assert_eq!(code, status::BAD_CALL);
}
