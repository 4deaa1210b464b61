//! Composite values (records, arrays, sets, `TBytes`, `TStrings`) between JSON and the ABI
//! block ([`Block`]): arguments are validated as a whole against the manifest type and written
//! into a block in the same pass; result blocks are read back into JSON by the same type.
//!
//! A problem is reported with the path from the argument to the value it concerns:
//! `argument "Origin.Y": missing; ...`, `argument "Points[3]": expected ..., got a string`.

use crate::block::Block;
use crate::host::{ArgValue, ReturnValue};
use crate::marshal::{self, describe};
use crate::raw_json;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use delphi_mcp_manifest::abi::AbiKind;
use delphi_mcp_manifest::ValueType;
use serde_json::Value;

/// A problem inside a composite argument: the path below the argument (`.Y`, `[3].Name`, empty
/// for the value itself) and the message.
pub type Located = (String, String);

/// Validates the raw JSON `raw` against composite type `ty` and writes it as a block.
pub fn argument(raw: &str, ty: &ValueType) -> Result<ArgValue, Located> {
    let mut block = Block::default();
    write(raw.trim(), ty, &mut block)?;
    Ok(ArgValue::Block(block))
}

fn at<T>(result: Result<T, Located>, step: impl FnOnce() -> String) -> Result<T, Located> {
    result.map_err(|(path, message)| (format!("{}{path}", step()), message))
}

fn here(message: String) -> Located {
    (String::new(), message)
}

fn wrong_kind(raw: &str, ty: &ValueType) -> Located {
    let kind = raw_json::kind(raw);
    if kind == "null" {
        here(format!("is null; expected {}", describe(ty)))
    } else {
        here(format!("expected {}, got {kind}", describe(ty)))
    }
}

/// Writes one value of any type (scalars through [`marshal::convert`]).
fn write(raw: &str, ty: &ValueType, block: &mut Block) -> Result<(), Located> {
    match ty {
        ValueType::Record { fields, .. } => {
            if !raw.starts_with('{') {
                return Err(wrong_kind(raw, ty));
            }
            let members = raw_json::object_members(raw)
                .map_err(|e| here(format!("not a valid JSON object: {e}")))?;
            let mut values: Vec<Option<&str>> = vec![None; fields.len()];
            for (key, value) in &members {
                let index = fields
                    .iter()
                    .position(|f| f.name.as_bytes() == key.as_bytes());
                let shown = key.display(60);
                match index {
                    None => {
                        let names: Vec<String> =
                            fields.iter().map(|f| format!("\"{}\"", f.name)).collect();
                        return Err((
                            format!(".{shown}"),
                            format!("unknown field; expected {}", names.join(", ")),
                        ));
                    }
                    Some(i) if values[i].is_some() => {
                        return Err((
                            format!(".{shown}"),
                            "given more than once (duplicate key)".into(),
                        ))
                    }
                    Some(i) => values[i] = Some(value.get()),
                }
            }
            let header = block.open(AbiKind::Record, fields.len());
            for (field, value) in fields.iter().zip(values) {
                let Some(value) = value else {
                    return Err((
                        format!(".{}", field.name),
                        format!("missing; expected {}", describe(&field.ty)),
                    ));
                };
                at(write(value.trim(), &field.ty, block), || {
                    format!(".{}", field.name)
                })?;
            }
            block.close(header);
            Ok(())
        }
        ValueType::Array {
            items,
            min_items,
            max_items,
        } => {
            let elements = elements(raw, ty)?;
            let count = elements.len();
            if let Some(max) = max_items.filter(|m| count > *m as usize) {
                let exactly = if *min_items == Some(max) {
                    "exactly"
                } else {
                    "at most"
                };
                return Err(here(format!("expected {exactly} {max} items, got {count}")));
            }
            if let Some(min) = min_items.filter(|m| count < *m as usize) {
                let exactly = if *max_items == Some(min) {
                    "exactly"
                } else {
                    "at least"
                };
                return Err(here(format!("expected {exactly} {min} items, got {count}")));
            }
            let header = block.open(AbiKind::Array, count);
            for (i, element) in elements.iter().enumerate() {
                at(write(element.get().trim(), items, block), || {
                    format!("[{i}]")
                })?;
            }
            block.close(header);
            Ok(())
        }
        ValueType::Set { members, .. } => {
            let elements = elements(raw, ty)?;
            let mut ordinals = Vec::with_capacity(elements.len());
            for (i, element) in elements.iter().enumerate() {
                let text =
                    string(element.get().trim(), ty).map_err(|(_, m)| (format!("[{i}]"), m))?;
                let member = members.iter().find(|m| m.name == text).ok_or_else(|| {
                    (
                        format!("[{i}]"),
                        format!("expected {}, got {}", describe(ty), quoted(&text)),
                    )
                })?;
                if ordinals.contains(&member.ordinal) {
                    return Err((
                        format!("[{i}]"),
                        format!(
                            "{} is given more than once; a set holds each member once",
                            quoted(&text)
                        ),
                    ));
                }
                ordinals.push(member.ordinal);
            }
            ordinals.sort_unstable();
            let header = block.open(AbiKind::Array, ordinals.len());
            for ordinal in ordinals {
                block.push(AbiKind::Int, ordinal as u64);
            }
            block.close(header);
            Ok(())
        }
        ValueType::Strings => {
            let elements = elements(raw, ty)?;
            let header = block.open(AbiKind::Array, elements.len());
            for (i, element) in elements.iter().enumerate() {
                let text =
                    string(element.get().trim(), ty).map_err(|(_, m)| (format!("[{i}]"), m))?;
                block.push_bytes(AbiKind::String, text.as_bytes());
            }
            block.close(header);
            Ok(())
        }
        ValueType::Bytes => {
            let text = string(raw, ty)?;
            let bytes = BASE64.decode(text.as_bytes()).map_err(|why| {
                here(format!(
                    "expected {}, got text that is not base64 ({why})",
                    describe(ty)
                ))
            })?;
            block.push_bytes(AbiKind::Bytes, &bytes);
            Ok(())
        }
        // Only a JSON handler's result has this type; its arguments are checked by schema.
        ValueType::Json => Err(here("a JSON handler's value is not an argument".into())),
        scalar => {
            match marshal::convert(raw, scalar).map_err(here)? {
                ArgValue::Bool(b) => block.push(AbiKind::Bool, u64::from(b)),
                ArgValue::Int(i) => block.push(AbiKind::Int, i as u64),
                ArgValue::UInt(u) => block.push(AbiKind::UInt, u),
                ArgValue::Double(d) => block.push(AbiKind::Double, d.to_bits()),
                ArgValue::String(s) => block.push_bytes(AbiKind::String, s.as_bytes()),
                // `convert` gives neither for a scalar type.
                ArgValue::Absent | ArgValue::Block(_) | ArgValue::Context(_) => {
                    return Err(here("not a scalar value".into()))
                }
            }
            Ok(())
        }
    }
}

fn elements<'a>(
    raw: &'a str,
    ty: &ValueType,
) -> Result<Vec<&'a serde_json::value::RawValue>, Located> {
    if !raw.starts_with('[') {
        return Err(wrong_kind(raw, ty));
    }
    raw_json::array_elements(raw).map_err(|e| here(format!("not a valid JSON array: {e}")))
}

/// The text of a JSON string (without a copy when it has no escapes).
fn string<'a>(raw: &'a str, ty: &ValueType) -> Result<std::borrow::Cow<'a, str>, Located> {
    if !raw.starts_with('"') {
        return Err(wrong_kind(raw, ty));
    }
    if let Ok(text) = serde_json::from_str::<&str>(raw) {
        return Ok(text.into());
    }
    serde_json::from_str::<String>(raw)
        .map(Into::into)
        .map_err(|e| here(format!("a string that is not valid Unicode ({e})")))
}

fn quoted(text: &str) -> String {
    serde_json::to_string(&text.chars().take(60).collect::<String>()).unwrap_or_default()
}

/// Reads a result block as JSON of type `ty`, or says why it does not match.
pub fn result(ty: &ValueType, block: &Block) -> Result<Value, String> {
    let mut at = 0;
    let value = read(ty, block, &mut at)?;
    if at != block.slots.len() {
        return Err(format!(
            "the result block has {} slots where {} declares {at}",
            block.slots.len(),
            describe(ty)
        ));
    }
    Ok(value)
}

/// The JSON of a `TBytes` result: base64 text.
pub fn bytes_result(bytes: &[u8]) -> Value {
    Value::String(BASE64.encode(bytes))
}

/// Reads the fields of a record block as `(name, type)` pairs: the out record of a tool with
/// `var`/`out` parameters.
pub fn read_record(
    block: &Block,
    fields: &[(&str, &ValueType)],
) -> Result<serde_json::Map<String, Value>, String> {
    let mut at = 0;
    header(
        block,
        &mut at,
        AbiKind::Record,
        Some(fields.len()),
        "the out record",
    )?;
    let mut map = serde_json::Map::new();
    for (name, ty) in fields {
        let value = read(ty, block, &mut at).map_err(|e| format!("{name}: {e}"))?;
        map.insert((*name).to_string(), value);
    }
    Ok(map)
}

fn header(
    block: &Block,
    at: &mut usize,
    kind: AbiKind,
    count: Option<usize>,
    what: &str,
) -> Result<usize, String> {
    let slot = block
        .slots
        .get(*at)
        .ok_or_else(|| format!("the result block ends before {what}"))?;
    if slot.kind != kind || count.is_some_and(|c| c as u64 != slot.bits) {
        return Err(format!(
            "the library returned {:?} of {} where the manifest declares {what}",
            slot.kind, slot.bits
        ));
    }
    *at += 1;
    usize::try_from(slot.bits).map_err(|_| "a count beyond this machine".to_string())
}

fn read(ty: &ValueType, block: &Block, at: &mut usize) -> Result<Value, String> {
    match ty {
        ValueType::Record { fields, .. } => {
            header(
                block,
                at,
                AbiKind::Record,
                Some(fields.len()),
                &describe(ty),
            )?;
            let mut map = serde_json::Map::new();
            for field in fields {
                map.insert(field.name.clone(), read(&field.ty, block, at)?);
            }
            Ok(Value::Object(map))
        }
        ValueType::Array { items, .. } => {
            let count = header(block, at, AbiKind::Array, None, &describe(ty))?;
            let mut out = Vec::with_capacity(count.min(block.slots.len()));
            for _ in 0..count {
                out.push(read(items, block, at)?);
            }
            Ok(Value::Array(out))
        }
        ValueType::Strings => {
            let count = header(block, at, AbiKind::Array, None, &describe(ty))?;
            let text = ValueType::String {
                repr: delphi_mcp_manifest::StringRepr::Utf16,
                max_length: None,
            };
            let mut out = Vec::with_capacity(count.min(block.slots.len()));
            for _ in 0..count {
                out.push(read(&text, block, at)?);
            }
            Ok(Value::Array(out))
        }
        ValueType::Set {
            members, type_name, ..
        } => {
            let count = header(block, at, AbiKind::Array, None, &describe(ty))?;
            let mut out = Vec::with_capacity(count.min(block.slots.len()));
            for _ in 0..count {
                let ordinal = match block.slots.get(*at) {
                    Some(slot) if slot.kind == AbiKind::Int => slot.bits as i64,
                    _ => return Err(format!("a member of {type_name} is not an ordinal")),
                };
                *at += 1;
                let member = members
                    .iter()
                    .find(|m| m.ordinal == ordinal)
                    .ok_or_else(|| {
                        format!(
                            "the result has ordinal {ordinal}, which is no member of {type_name}"
                        )
                    })?;
                out.push(Value::String(member.name.clone()));
            }
            Ok(Value::Array(out))
        }
        ValueType::Bytes => {
            let slot = block
                .slots
                .get(*at)
                .filter(|s| s.kind == AbiKind::Bytes)
                .ok_or_else(|| format!("the library returned no bytes where {}", describe(ty)))?;
            *at += 1;
            Ok(Value::String(BASE64.encode(block.bytes_of(slot))))
        }
        scalar => {
            let slot = block
                .slots
                .get(*at)
                .ok_or_else(|| "the result block ends early".to_string())?;
            *at += 1;
            let value = match slot.kind {
                AbiKind::Bool => ReturnValue::Bool(slot.bits != 0),
                AbiKind::Int => ReturnValue::Int(slot.bits as i64),
                AbiKind::UInt => ReturnValue::UInt(slot.bits),
                AbiKind::Double => ReturnValue::Double(f64::from_bits(slot.bits)),
                AbiKind::String => ReturnValue::String(block.bytes_of(slot).to_vec()),
                other => ReturnValue::Unknown(other as i32),
            };
            marshal::result_to_json(scalar, &value)
        }
    }
}
