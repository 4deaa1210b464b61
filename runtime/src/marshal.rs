//! Validation of tool arguments against the manifest and conversion between JSON and ABI values.
//!
//! Arguments are read from the raw JSON text of the `arguments` object, so duplicate keys are
//! seen (a parsed `serde_json::Value` silently keeps the last) and numbers keep their exact
//! decimal text: integers are checked exactly for every width up to UInt64, never through f64.
//! An integer parameter accepts a number written with a fraction or exponent (`2.0`, `2e3`) when
//! its exact decimal value is an integer, as JSON Schema's `integer` does; `2.5` is rejected.

use crate::datetime;
use crate::host::{ArgValue, ReturnValue};
use crate::raw_json;
use crate::values;
use delphi_mcp_manifest::abi::AbiKind;
use delphi_mcp_manifest::{NumberRepr, ParamEntry, StringRepr, ValueType};
use serde_json::Value;
use std::collections::HashSet;
use std::fmt::Write as _;

mod key_counts;
mod numbers;

use key_counts::KeyCounts;
pub use numbers::{exact_integer, exact_integer_scaled, NumberError};

/// One problem with one argument (or with the arguments object).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentProblem {
    /// The argument name, when the problem concerns one.
    pub argument: Option<String>,
    /// What is wrong and what was expected.
    pub message: String,
}

/// All problems found in a call's arguments; rendered as the text of an `isError` result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentErrors {
    /// The tool.
    pub tool: String,
    /// The first [`MAX_PROBLEMS`] problems: unknown and repeated keys in the order given, then
    /// the parameters' problems in parameter order.
    pub problems: Vec<ArgumentProblem>,
    /// How many more problems were found but not listed.
    pub more: usize,
}

/// At most this many problems are listed per call (hostile calls can have millions).
pub const MAX_PROBLEMS: usize = 20;

/// Longest argument name quoted in a message (characters).
const MAX_NAME_SHOWN: usize = 60;

impl ArgumentErrors {
    /// One problem with the arguments object as a whole (not JSON, not an object).
    fn whole(tool: &str, message: String) -> ArgumentErrors {
        ArgumentErrors {
            tool: tool.to_string(),
            problems: vec![ArgumentProblem {
                argument: None,
                message,
            }],
            more: 0,
        }
    }
}

impl std::fmt::Display for ArgumentErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Invalid arguments for tool \"{}\":", self.tool)?;
        for problem in &self.problems {
            match &problem.argument {
                Some(name) => write!(f, "\n- argument \"{name}\": {}", problem.message)?,
                None => write!(f, "\n- {}", problem.message)?,
            }
        }
        if self.more > 0 {
            let s = if self.more == 1 { "" } else { "s" };
            write!(f, "\n- and {} more problem{s}", self.more)?;
        }
        Ok(())
    }
}

fn json_kind(raw: &str) -> &'static str {
    raw_json::kind(raw)
}

/// What a value type expects, for messages.
pub fn describe(ty: &ValueType) -> String {
    match ty {
        ValueType::Integer { min, max } => format!("an integer from {min} to {max}"),
        ValueType::Number { repr } => match repr {
            NumberRepr::Single => "a number within the Single range (±3.4028235e38)".into(),
            NumberRepr::Double | NumberRepr::Extended => "a finite number".into(),
            NumberRepr::Currency => {
                "a number from -922337203685477.5807 to 922337203685477.5807 with at most four decimals (Currency)".into()
            }
            NumberRepr::Comp => {
                "an integer from -9007199254740992 to 9007199254740992 (Comp)".into()
            }
        },
        ValueType::Boolean => "a boolean (true or false)".into(),
        ValueType::String { repr, max_length } => {
            let mut text = String::from("a string");
            match (repr, max_length) {
                (StringRepr::Short { .. }, _) | (StringRepr::Ansi { .. }, Some(_)) => {
                    let _ = write!(text, " of at most {} bytes", max_length.unwrap_or(255));
                }
                (_, Some(n)) => {
                    let _ = write!(text, " of at most {n} UTF-16 code units");
                }
                _ => {}
            }
            match repr {
                StringRepr::Ansi { code_page: 0 } | StringRepr::Short { code_page: 0 } => {
                    text.push_str(" in the ANSI code page");
                }
                StringRepr::Ansi { code_page } | StringRepr::Short { code_page } => {
                    let _ = write!(text, " in code page {code_page}");
                }
                _ => {}
            }
            text
        }
        ValueType::Char { wide: true } => "exactly one character (one UTF-16 code unit)".into(),
        ValueType::Char { wide: false } => {
            "exactly one character (one byte in the ANSI code page)".into()
        }
        ValueType::DateTime { part } => datetime::expected_form(*part).into(),
        ValueType::Enum { members, .. } => {
            let names: Vec<String> = members.iter().map(|m| format!("\"{}\"", m.name)).collect();
            format!("one of {}", names.join(", "))
        }
        ValueType::Record { type_name, fields } => {
            let names: Vec<String> = fields.iter().map(|f| format!("\"{}\"", f.name)).collect();
            format!("an object {type_name} with fields {}", names.join(", "))
        }
        ValueType::Array {
            items,
            min_items,
            max_items,
        } => {
            let count = match (min_items, max_items) {
                (Some(a), Some(b)) if a == b => format!("{a} "),
                (Some(a), Some(b)) => format!("{a} to {b} "),
                (None, Some(b)) => format!("at most {b} "),
                (Some(a), None) => format!("at least {a} "),
                (None, None) => String::new(),
            };
            let items_text = describe(items);
            let items_text = items_text
                .strip_prefix("an ")
                .or_else(|| items_text.strip_prefix("a "))
                .unwrap_or(&items_text);
            format!("an array of {count}items, each {items_text}")
        }
        ValueType::Set { members, .. } => {
            let names: Vec<String> = members.iter().map(|m| format!("\"{}\"", m.name)).collect();
            format!("an array of distinct members of {}", names.join(", "))
        }
        ValueType::Bytes => "a base64 string".into(),
        ValueType::Json => "any JSON value".into(),
        ValueType::Strings => "an array of strings".into(),
        ValueType::Context => "the call context (passed by the server, not an argument)".into(),
    }
}

/// Checks the raw `arguments` text of a JSON handler against its input schema; the handler
/// receives the text as one string argument (`docs/abi.md`).
pub fn json_arguments(
    tool: &str,
    raw: Option<&str>,
    schema: &Value,
) -> Result<Vec<ArgValue>, ArgumentErrors> {
    let raw = raw
        .map(str::trim)
        .filter(|r| !r.is_empty() && *r != "null")
        .unwrap_or("{}");
    let whole = |message: String| ArgumentErrors::whole(tool, message);
    if !raw.starts_with('{') {
        return Err(whole(format!(
            "the arguments must be a JSON object, got {}",
            json_kind(raw)
        )));
    }
    // Duplicate keys first, at every depth: a parsed value keeps only the last. Text the
    // walk cannot read is refused by the parse below.
    let mut problems = Problems::new(tool);
    let _unreadable = raw_json::duplicate_keys(raw, &mut |duplicate| {
        problems.push_with(|| {
            let message = if duplicate.depth() == 1 {
                "given more than once (duplicate key); give each argument once"
            } else {
                "given more than once (duplicate key)"
            };
            (Some(duplicate.path(MAX_NAME_SHOWN)), message.into())
        })
    });
    let value: Value = serde_json::from_str(raw).map_err(|e| {
        whole(format!(
            "the arguments are not valid JSON for this tool: {e}"
        ))
    })?;
    let mut found = Vec::new();
    crate::schema_check::check(schema, &value, "", &mut found);
    for problem in found {
        problems.push_with(|| (problem.argument, problem.message));
    }
    problems.into_result(vec![ArgValue::String(value.to_string())])
}

/// Parses and checks the raw `arguments` text (`None`: not given) against `params`.
pub fn parse_arguments(
    tool: &str,
    raw: Option<&str>,
    params: &[ParamEntry],
) -> Result<Vec<ArgValue>, ArgumentErrors> {
    let whole = |message: String| ArgumentErrors::whole(tool, message);
    let raw = raw.map(str::trim).filter(|r| !r.is_empty() && *r != "null");
    let members = match raw {
        None => Vec::new(),
        Some(text) if text.starts_with('{') => raw_json::object_members(text)
            .map_err(|e| whole(format!("the arguments are not a valid JSON object: {e}")))?,
        Some(text) => {
            return Err(whole(format!(
                "the arguments must be a JSON object, got {}",
                json_kind(text)
            )))
        }
    };

    let mut problems = Problems::new(tool);
    // One pass over the keys: how often each was given and its first value. Linear in the
    // number of members whatever they are (a hostile call may repeat one key 200,000 times).
    let mut seen = KeyCounts::for_members(members.len());
    let few = matches!(seen, KeyCounts::Few(_));
    let names: HashSet<&[u8]> = if few {
        HashSet::new()
    } else {
        params
            .iter()
            .filter(|p| p.ty != ValueType::Context)
            .map(|p| p.name.as_bytes())
            .collect()
    };
    let names_param = |key: &[u8]| {
        if few {
            params
                .iter()
                .any(|p| p.ty != ValueType::Context && p.name.as_bytes() == key)
        } else {
            names.contains(key)
        }
    };
    for (key, value) in &members {
        let count = seen.count(key.as_bytes(), value.get());
        if count == 2 {
            problems.push_with(|| {
                (
                    Some(key.display(MAX_NAME_SHOWN)),
                    "given more than once (duplicate key); give each argument once".into(),
                )
            });
        } else if count == 1 && !names_param(key.as_bytes()) {
            problems.push_with(|| {
                (
                    Some(key.display(MAX_NAME_SHOWN)),
                    unknown_argument(key.as_str(), params),
                )
            });
        }
    }

    let mut values = Vec::with_capacity(params.len());
    for param in params {
        let value = match seen.first(param.name.as_bytes()) {
            _ if param.ty == ValueType::Context => Ok(ArgValue::Context(Default::default())),
            None if param.optional => Ok(ArgValue::Absent),
            None => Err((
                String::new(),
                format!("missing; expected {}", describe(&param.ty)),
            )),
            Some(raw) if param.ty.needs_abi_2() => values::argument(raw, &param.ty),
            Some(raw) => convert(raw, &param.ty).map_err(|message| (String::new(), message)),
        };
        match value {
            Ok(v) => values.push(v),
            Err((path, message)) => {
                problems.push_with(|| (Some(format!("{}{path}", param.name)), message))
            }
        }
    }
    problems.into_result(values)
}

/// The message for a key that names no parameter.
fn unknown_argument(key: Option<&str>, params: &[ParamEntry]) -> String {
    let params: Vec<&ParamEntry> = params
        .iter()
        .filter(|p| p.ty != ValueType::Context)
        .collect();
    let names: Vec<String> = params.iter().map(|p| format!("\"{}\"", p.name)).collect();
    let hint = match key {
        None => " (the name is not valid Unicode: it holds a lone surrogate)".to_string(),
        Some(key) => params
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(key))
            .map(|p| format!(" (names are case-sensitive: did you mean \"{}\"?)", p.name))
            .unwrap_or_default(),
    };
    let expected = if names.is_empty() {
        "this tool takes no arguments".to_string()
    } else {
        format!("expected {}", names.join(", "))
    };
    format!("unknown argument{hint}; {expected}")
}

/// The problems of one call, keeping the first [`MAX_PROBLEMS`] and counting the rest.
struct Problems {
    errors: ArgumentErrors,
}

impl Problems {
    fn new(tool: &str) -> Problems {
        Problems {
            errors: ArgumentErrors {
                tool: tool.to_string(),
                problems: Vec::new(),
                more: 0,
            },
        }
    }

    /// Adds the problem `problem()` builds (argument, message); built only when listed.
    fn push_with(&mut self, problem: impl FnOnce() -> (Option<String>, String)) {
        if self.errors.problems.len() < MAX_PROBLEMS {
            let (argument, message) = problem();
            self.errors
                .problems
                .push(ArgumentProblem { argument, message });
        } else {
            self.errors.more += 1;
        }
    }

    fn into_result<T>(self, value: T) -> Result<T, ArgumentErrors> {
        if self.errors.problems.is_empty() {
            Ok(value)
        } else {
            Err(self.errors)
        }
    }
}

fn wrong_kind(raw: &str, ty: &ValueType) -> String {
    format!("expected {}, got {}", describe(ty), json_kind(raw))
}

fn quote(text: &str) -> String {
    let shown: String = text.chars().take(60).collect();
    let ellipsis = if text.chars().count() > 60 { "..." } else { "" };
    format!(
        "{}{ellipsis}",
        serde_json::to_string(&shown).unwrap_or_default()
    )
}

/// Converts the raw JSON of a scalar argument (composites: [`values::argument`]).
pub(crate) fn convert(raw: &str, ty: &ValueType) -> Result<ArgValue, String> {
    let raw = raw.trim();
    let kind = json_kind(raw);
    if kind == "null" {
        return Err(format!("is null; expected {}", describe(ty)));
    }
    match ty {
        ValueType::Integer { min, max } => {
            if kind != "a number" {
                return Err(wrong_kind(raw, ty));
            }
            let value = exact_integer(raw).map_err(|e| match e {
                NumberError::NotInteger => {
                    format!("expected {}, got {raw} (not an integer)", describe(ty))
                }
                NumberError::OutOfRange => {
                    format!("expected {}, got {raw} (out of range)", describe(ty))
                }
            })?;
            if value < *min || value > *max {
                return Err(format!(
                    "expected {}, got {raw} (out of range)",
                    describe(ty)
                ));
            }
            Ok(match ty.abi_kind() {
                AbiKind::UInt => ArgValue::UInt(value as u64),
                _ => ArgValue::Int(value as i64),
            })
        }
        ValueType::Number { repr } => {
            if kind != "a number" {
                return Err(wrong_kind(raw, ty));
            }
            let value: f64 = raw.parse().map_err(|_| wrong_kind(raw, ty))?;
            let in_range = match repr {
                NumberRepr::Single => value.is_finite() && (value as f32).is_finite(),
                NumberRepr::Double | NumberRepr::Extended => value.is_finite(),
                NumberRepr::Currency => {
                    // Exactly: a Currency is an Int64 count of 1/10000.
                    return match exact_integer_scaled(raw, 4) {
                        Ok(v) if v.abs() <= i64::MAX as i128 => Ok(ArgValue::Double(value)),
                        Ok(_) | Err(NumberError::OutOfRange) => Err(format!(
                            "expected {}, got {raw} (out of range)",
                            describe(ty)
                        )),
                        Err(NumberError::NotInteger) => Err(format!(
                            "expected {}, got {raw} (more than four decimals)",
                            describe(ty)
                        )),
                    };
                }
                NumberRepr::Comp => {
                    return match exact_integer(raw) {
                        Ok(v) if v.abs() <= 1i128 << 53 => Ok(ArgValue::Double(v as f64)),
                        _ => Err(format!("expected {}, got {raw}", describe(ty))),
                    }
                }
            };
            if in_range {
                Ok(ArgValue::Double(value))
            } else {
                Err(format!(
                    "expected {}, got {raw} (out of range)",
                    describe(ty)
                ))
            }
        }
        ValueType::Boolean => match raw {
            "true" => Ok(ArgValue::Bool(true)),
            "false" => Ok(ArgValue::Bool(false)),
            _ => Err(wrong_kind(raw, ty)),
        },
        ValueType::String { repr, max_length } => {
            let text = string_value(raw, ty)?;
            match repr {
                StringRepr::Utf16 | StringRepr::Utf8 => {
                    if let Some(max) = max_length {
                        let units = text.encode_utf16().count();
                        if units > *max as usize {
                            return Err(format!(
                                "expected {}, got {units} UTF-16 code units",
                                describe(ty)
                            ));
                        }
                    }
                }
                StringRepr::Ansi { code_page } | StringRepr::Short { code_page } => {
                    // With the library's ANSI code page unknown here, every character
                    // counts as at least one byte; the stub checks the rest.
                    let bytes = encode_lossless(&text, *code_page)
                        .map_err(|why| {
                            format!("expected {}, got {} ({why})", describe(ty), quote(&text))
                        })?
                        .unwrap_or_else(|| text.chars().count());
                    let limit = match repr {
                        StringRepr::Short { .. } => Some(max_length.unwrap_or(255)),
                        _ => *max_length,
                    };
                    if let Some(limit) = limit {
                        if bytes > limit as usize {
                            return Err(format!(
                                "expected {}, got {bytes} bytes (it is never truncated)",
                                describe(ty)
                            ));
                        }
                    }
                }
            }
            Ok(ArgValue::String(text))
        }
        ValueType::Char { wide } => {
            let text = string_value(raw, ty)?;
            let ok = if *wide {
                text.encode_utf16().count() == 1
            } else {
                // One byte in the library's ANSI code page: the stub checks the code page.
                text.chars().count() == 1
            };
            if ok {
                Ok(ArgValue::String(text))
            } else {
                Err(format!("expected {}, got {}", describe(ty), quote(&text)))
            }
        }
        ValueType::DateTime { part } => {
            let text = string_value(raw, ty)?;
            datetime::parse(&text, *part)
                .map(ArgValue::Double)
                .ok_or_else(|| format!("expected {}, got {}", describe(ty), quote(&text)))
        }
        ValueType::Enum { members, .. } => {
            let text = string_value(raw, ty)?;
            members
                .iter()
                .find(|m| m.name == text)
                .map(|m| ArgValue::Int(m.ordinal))
                .ok_or_else(|| format!("expected {}, got {}", describe(ty), quote(&text)))
        }
        composite => values::argument(raw, composite).map_err(|(path, message)| {
            if path.is_empty() {
                message
            } else {
                format!("{path}: {message}")
            }
        }),
    }
}

fn string_value(raw: &str, ty: &ValueType) -> Result<String, String> {
    if json_kind(raw) != "a string" {
        return Err(wrong_kind(raw, ty));
    }
    serde_json::from_str::<String>(raw).map_err(|e| {
        format!(
            "expected {}, got a string that is not valid Unicode ({e})",
            describe(ty)
        )
    })
}

/// Byte length of `text` in `code_page`, or why it is not representable there. `Ok(None)` for
/// code page 0 (`CP_ACP`, the library's ANSI code page, unknown here: the stub checks it).
pub fn encode_lossless(text: &str, code_page: u16) -> Result<Option<usize>, String> {
    let limited = |last: char, name: &str| match text.chars().find(|c| *c > last) {
        None => Ok(Some(text.chars().count())),
        Some(c) => Err(format!("{c:?} is not in code page {code_page} ({name})")),
    };
    match code_page {
        0 | 0xFFFF => return Ok(None),
        65001 => return Ok(Some(text.len())),
        20127 => return limited('\u{7f}', "ASCII"),
        28591 => return limited('\u{ff}', "ISO 8859-1"),
        _ => {}
    }
    let encoding = encoding_for(code_page)
        .ok_or_else(|| format!("code page {code_page} is not supported by delphi-mcp"))?;
    for c in text.chars() {
        let mut buffer = [0u8; 4];
        let one: &str = c.encode_utf8(&mut buffer);
        let (bytes, _, unmappable) = encoding.encode(one);
        let (back, _, malformed) = encoding.decode(&bytes);
        if unmappable || malformed || back != one {
            return Err(format!(
                "{c:?} cannot be represented in code page {code_page}"
            ));
        }
    }
    let (bytes, _, _) = encoding.encode(text);
    Ok(Some(bytes.len()))
}

fn encoding_for(code_page: u16) -> Option<&'static encoding_rs::Encoding> {
    use encoding_rs::*;
    Some(match code_page {
        874 => WINDOWS_874,
        932 => SHIFT_JIS,
        936 => GBK,
        949 => EUC_KR,
        950 => BIG5,
        1250 => WINDOWS_1250,
        1251 => WINDOWS_1251,
        1252 => WINDOWS_1252,
        1253 => WINDOWS_1253,
        1254 => WINDOWS_1254,
        1255 => WINDOWS_1255,
        1256 => WINDOWS_1256,
        1257 => WINDOWS_1257,
        1258 => WINDOWS_1258,
        20866 => KOI8_R,
        21866 => KOI8_U,
        28592 => ISO_8859_2,
        28595 => ISO_8859_5,
        28597 => ISO_8859_7,
        28605 => ISO_8859_15,
        54936 => GB18030,
        _ => return None,
    })
}

/// Converts a tool's out value to the JSON of `structuredContent.result`, or explains why not.
pub fn result_to_json(ty: &ValueType, value: &ReturnValue) -> Result<Value, String> {
    let kind_mismatch = || {
        format!(
            "the library returned {value:?} where the manifest declares {}",
            describe(ty)
        )
    };
    match (ty, value) {
        (ValueType::Integer { .. }, ReturnValue::Int(i)) => Ok(Value::from(*i)),
        (ValueType::Integer { .. }, ReturnValue::UInt(u)) => Ok(Value::from(*u)),
        (ValueType::Number { repr }, ReturnValue::Double(d)) => {
            if !d.is_finite() {
                return Err(format!("the result is {d}, which JSON cannot represent"));
            }
            let number = if *repr == NumberRepr::Single {
                // Print the Single's shortest decimal, not the widened double's digits.
                (*d as f32).to_string().parse::<f64>().unwrap_or(*d)
            } else {
                *d
            };
            serde_json::Number::from_f64(number)
                .map(Value::Number)
                .ok_or_else(|| format!("the result {d} is not representable in JSON"))
        }
        (ValueType::Boolean, ReturnValue::Bool(b)) => Ok(Value::Bool(*b)),
        (ValueType::String { .. } | ValueType::Char { .. }, ReturnValue::String(bytes)) => {
            String::from_utf8(bytes.clone())
                .map(Value::String)
                .map_err(|_| "the library returned a string that is not valid UTF-8".to_string())
        }
        (ValueType::DateTime { part }, ReturnValue::Double(d)) => datetime::format(*d, *part)
            .map(Value::String)
            .ok_or_else(|| format!("the result {d} is not a TDateTime within years 1-9999")),
        (_, ReturnValue::Block(block)) if ty.needs_abi_2() => values::result(ty, block),
        (ValueType::Bytes, ReturnValue::String(bytes)) => Ok(values::bytes_result(bytes)),
        (ValueType::Json, ReturnValue::String(bytes)) => serde_json::from_slice(bytes)
            .map_err(|e| format!("the JSON handler returned text that is not JSON ({e})")),
        (_, ReturnValue::Malformed(why)) => Err(format!(
            "the library returned a malformed value ({why}), a delphi-mcp bug"
        )),
        (ValueType::Enum { members, type_name }, ReturnValue::Int(ordinal)) => members
            .iter()
            .find(|m| m.ordinal == *ordinal)
            .map(|m| Value::String(m.name.clone()))
            .ok_or_else(|| {
                format!("the result has ordinal {ordinal}, which is no member of {type_name}")
            }),
        _ => Err(kind_mismatch()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int64(name: &str) -> ParamEntry {
        ParamEntry {
            name: name.into(),
            delphi_type: "Int64".into(),
            ty: ValueType::Integer {
                min: i64::MIN.into(),
                max: i64::MAX.into(),
            },
            optional: false,
            default: None,
        }
    }

    fn problems(raw: &str, params: &[ParamEntry]) -> ArgumentErrors {
        parse_arguments("t", Some(raw), params).expect_err(raw)
    }

    #[test]
    fn problems_are_bounded_and_counted() {
        let params = [int64("A")];
        let keys: Vec<String> = (0..1000).map(|i| format!("\"k{i}\":1")).collect();
        let errors = problems(&format!("{{{}}}", keys.join(",")), &params);
        assert_eq!(errors.problems.len(), MAX_PROBLEMS);
        // 1000 unknown keys and the missing "A".
        assert_eq!(errors.more, 1001 - MAX_PROBLEMS);
        assert!(errors.to_string().ends_with("\n- and 981 more problems"));

        let repeated = format!("{{{}}}", vec!["\"A\":1"; 100_000].join(","));
        let errors = problems(&repeated, &params);
        assert_eq!(errors.problems.len(), 1, "{errors}");
        assert!(errors
            .to_string()
            .contains("argument \"A\": given more than once"));
    }

    #[test]
    fn arguments_are_checked_alike_on_both_sides_of_few_members() {
        // Both sides of FEW_MEMBERS: a repeated, an unknown and a missing argument.
        let params = [int64("A"), int64("B"), int64("C")];
        for members in [key_counts::FEW_MEMBERS, key_counts::FEW_MEMBERS + 1] {
            let padding = (3..members).map(|_| r#","A":2"#).collect::<String>();
            let text = format!(r#"{{"A":1,"x":1{padding},"B":3}}"#);
            let errors = problems(&text, &params).to_string();
            for expected in [
                "argument \"A\": given more than once",
                "argument \"x\": unknown argument",
                "argument \"C\": missing",
            ] {
                assert!(errors.contains(expected), "{members}: {errors}");
            }
            assert_eq!(errors.matches("\n- ").count(), 3, "{errors}");
        }
    }

    #[test]
    fn values_serde_cannot_hold_are_rejected_by_name() {
        let params = [int64("A")];
        let text = problems(r#"{"A":1e400}"#, &params).to_string();
        assert!(
            text.contains("argument \"A\": expected an integer"),
            "{text}"
        );
        assert!(text.contains("1e400 (out of range)"), "{text}");
        let text = problems(r#"{"A":1,"\ud800":2}"#, &params).to_string();
        assert!(
            text.contains("argument \"\\ud800\": unknown argument (the name is not valid Unicode"),
            "{text}"
        );
        let long = format!(r#"{{"A":1,"{}":2}}"#, "x".repeat(10_000));
        let text = problems(&long, &params).to_string();
        assert!(text.len() < 300, "long names are shortened: {text}");
    }

    #[test]
    fn lossless_code_pages() {
        assert_eq!(encode_lossless("café", 1252), Ok(Some(4)));
        assert_eq!(encode_lossless("€", 1252), Ok(Some(1)));
        assert!(encode_lossless("日本", 1252).is_err());
        assert_eq!(encode_lossless("日本", 932), Ok(Some(4)));
        assert!(encode_lossless("é", 20127).is_err());
        assert_eq!(encode_lossless("é", 28591), Ok(Some(1)));
        assert!(encode_lossless("€", 28591).is_err());
        assert_eq!(encode_lossless("日本", 0), Ok(None));
    }
}
