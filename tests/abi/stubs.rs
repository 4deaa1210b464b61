//! Proves the ABI (docs/abi.md) end to end: the ABI fixture unit
//! (`tests/fixtures/abi/AbiFixture.pas`) goes through the parser, the generator and Free Pascal,
//! and the library is called here directly through libloading.

use crate::support;
use crate::support::call::{Arg, Loaded, Out};
use delphi_mcp_manifest::abi::{status, ABI_VERSION};
use std::sync::OnceLock;

fn fixture() -> &'static Loaded {
    static FIXTURE: OnceLock<Loaded> = OnceLock::new();
    FIXTURE.get_or_init(|| support::call::load(&support::fpc::build_fixture("abi")))
}

fn call(name: &str, args: &[Arg<'_>]) -> (i32, Out) {
    fixture().call(name, args)
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
