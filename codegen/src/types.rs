//! The type table: which Delphi types a tool may take and return, how each one looks in JSON
//! Schema, which ABI kind it travels as, how the Pascal stub converts it, and its size per target.
//!
//! This table is the one place these decisions are made: schemas, stubs, diagnostics and
//! `docs/types.md` ([`render_types_doc`]) are all derived from it.

use delphi_mcp_manifest::{DateTimePart, NumberRepr, StringRepr, ValueType};

/// The compiler target the units are read for: the parser's, so that `{$IFDEF}`, `SizeOf` and
/// the sizes of the type table come from one table (`delphi_mcp_parser::target`).
pub use delphi_mcp_parser::target::Target;

/// The targets the type table documents sizes for, with their column titles.
pub fn documented_targets() -> Vec<(&'static str, Target)> {
    [
        ("Delphi Win32", "delphi12-win32"),
        ("Delphi Win64", "delphi12-win64"),
        ("Delphi Linux64/macOS64", "delphi12-linux64"),
        ("FPC x86_64", "fpc-linux64"),
    ]
    .into_iter()
    // Every name is in the parser's table; `docs/types.md`'s test would show a missing one.
    .filter_map(|(title, name)| Some((title, delphi_mcp_parser::target::lookup(name).ok()?)))
    .collect()
}

/// How big an integer type is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntSize {
    /// Always this many bytes.
    Fixed(u8),
    /// The pointer size of the target.
    Pointer,
    /// `LongInt`/`LongWord`: [`Target::long_size`] bytes.
    Long,
}

impl IntSize {
    /// Bytes on `target`.
    pub fn bytes(self, target: &Target) -> u32 {
        match self {
            IntSize::Fixed(n) => n.into(),
            IntSize::Pointer => target.pointer_size,
            IntSize::Long => target.long_size,
        }
    }
}

/// How a built-in type is converted by the stub.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// An integer of the given signedness and size.
    Int {
        /// Signed.
        signed: bool,
        /// Size.
        size: IntSize,
    },
    /// A floating-point type.
    Float(NumberRepr),
    /// A Boolean type.
    Bool,
    /// A string type.
    Str(StrKind),
    /// A character type.
    Char {
        /// WideChar (UTF-16 code unit) rather than AnsiChar.
        wide: bool,
    },
    /// TDateTime and friends.
    DateTime(DateTimePart),
}

/// String families of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrKind {
    /// `string`, `UnicodeString`, `WideString`.
    Utf16,
    /// `UTF8String`, `RawUTF8`.
    Utf8,
    /// `AnsiString` in the library's ANSI code page.
    Ansi,
    /// `ShortString` (255 bytes in the ANSI code page).
    Short,
}

/// One row of the table of built-in types.
#[derive(Debug, Clone, Copy)]
pub struct BuiltinRow {
    /// The Delphi names (case-insensitive; `System.` prefixes are accepted).
    pub names: &'static [&'static str],
    /// The conversion.
    pub builtin: Builtin,
    /// What users should know.
    pub notes: &'static str,
}

const fn int(signed: bool, size: IntSize) -> Builtin {
    Builtin::Int { signed, size }
}

/// The built-in types a tool may use, in the order `docs/types.md` lists them.
pub const BUILTINS: &[BuiltinRow] = &[
    BuiltinRow { names: &["ShortInt", "Int8"], builtin: int(true, IntSize::Fixed(1)), notes: "" },
    BuiltinRow { names: &["Byte", "UInt8"], builtin: int(false, IntSize::Fixed(1)), notes: "" },
    BuiltinRow { names: &["SmallInt", "Int16"], builtin: int(true, IntSize::Fixed(2)), notes: "" },
    BuiltinRow { names: &["Word", "UInt16"], builtin: int(false, IntSize::Fixed(2)), notes: "" },
    BuiltinRow { names: &["Integer", "Int32", "FixedInt"], builtin: int(true, IntSize::Fixed(4)), notes: "" },
    BuiltinRow { names: &["Cardinal", "UInt32", "FixedUInt", "DWORD"], builtin: int(false, IntSize::Fixed(4)), notes: "" },
    BuiltinRow { names: &["LongInt"], builtin: int(true, IntSize::Long), notes: "8 bytes on Delphi's 64-bit non-Windows targets: the range follows `--target`" },
    BuiltinRow { names: &["LongWord"], builtin: int(false, IntSize::Long), notes: "8 bytes on Delphi's 64-bit non-Windows targets: the range follows `--target`" },
    BuiltinRow { names: &["Int64"], builtin: int(true, IntSize::Fixed(8)), notes: "" },
    BuiltinRow { names: &["UInt64", "QWord"], builtin: int(false, IntSize::Fixed(8)), notes: "maximum 18446744073709551615, exact; travels as ABI `uint`" },
    BuiltinRow { names: &["NativeInt", "SizeInt", "PtrInt"], builtin: int(true, IntSize::Pointer), notes: "pointer-sized: the range follows `--target`" },
    BuiltinRow { names: &["NativeUInt", "SizeUInt", "PtrUInt"], builtin: int(false, IntSize::Pointer), notes: "pointer-sized: the range follows `--target`" },
    BuiltinRow { names: &["Single"], builtin: Builtin::Float(NumberRepr::Single), notes: "values beyond ±3.4028234663852886e38 are rejected (never rounded to infinity)" },
    BuiltinRow { names: &["Double", "Real"], builtin: Builtin::Float(NumberRepr::Double), notes: "" },
    BuiltinRow { names: &["Extended"], builtin: Builtin::Float(NumberRepr::Extended), notes: "travels as a Double: extra precision is not carried" },
    BuiltinRow { names: &["Currency"], builtin: Builtin::Float(NumberRepr::Currency), notes: "four decimals, range ±922337203685477; travels as a Double, so values above 2^53/10^4 lose the last decimal" },
    BuiltinRow { names: &["Comp"], builtin: Builtin::Float(NumberRepr::Comp), notes: "whole numbers within ±2^53 (what a Double carries exactly)" },
    BuiltinRow { names: &["Boolean", "ByteBool", "WordBool", "LongBool"], builtin: Builtin::Bool, notes: "" },
    BuiltinRow { names: &["string", "UnicodeString", "WideString"], builtin: Builtin::Str(StrKind::Utf16), notes: "every JSON string is representable; lone surrogates in results become U+FFFD" },
    BuiltinRow { names: &["UTF8String", "RawUTF8"], builtin: Builtin::Str(StrKind::Utf8), notes: "invalid UTF-8 in results becomes U+FFFD" },
    BuiltinRow { names: &["AnsiString"], builtin: Builtin::Str(StrKind::Ansi), notes: "the library's ANSI code page at run time (Windows: the system code page, under Delphi and Free Pascal alike; libraries built by Free Pascal elsewhere: UTF-8, which the stubs set); `AnsiString(N)` types use code page N. A character the code page cannot hold is rejected (status 2), never replaced" },
    BuiltinRow { names: &["ShortString"], builtin: Builtin::Str(StrKind::Short), notes: "at most 255 bytes (`String[N]`: N bytes) in the ANSI code page; longer input is rejected, never truncated" },
    BuiltinRow { names: &["Char", "WideChar"], builtin: Builtin::Char { wide: true }, notes: "exactly one UTF-16 code unit: characters outside the BMP (emoji) are rejected" },
    BuiltinRow { names: &["AnsiChar"], builtin: Builtin::Char { wide: false }, notes: "exactly one character that is one byte in the ANSI code page" },
    BuiltinRow { names: &["TDateTime"], builtin: Builtin::DateTime(DateTimePart::DateTime), notes: "ISO 8601 local date and time without offset, `YYYY-MM-DDTHH:MM:SS[.fff]`; years 0001-9999" },
    BuiltinRow { names: &["TDate"], builtin: Builtin::DateTime(DateTimePart::Date), notes: "ISO 8601 date `YYYY-MM-DD`" },
    BuiltinRow { names: &["TTime"], builtin: Builtin::DateTime(DateTimePart::Time), notes: "ISO 8601 time `HH:MM:SS[.fff]`" },
];

/// Finds the built-in row of a type name (`System.` and `Winapi.Windows.` style prefixes are
/// ignored).
pub fn lookup_builtin(name: &str) -> Option<&'static BuiltinRow> {
    let last = name.rsplit('.').next().unwrap_or(name);
    BUILTINS
        .iter()
        .find(|row| row.names.iter().any(|n| n.eq_ignore_ascii_case(last)))
}

/// The code page of `AnsiString` and `ShortString` without a declared one: 0 stands for the
/// library's ANSI code page at run time (`CP_ACP`).
pub const CP_ACP: u16 = 0;

/// Integer bounds of `size` bytes.
pub fn int_bounds(signed: bool, bytes: u32) -> (i128, i128) {
    let bits = bytes * 8;
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

impl Builtin {
    /// The manifest value type on `target`.
    pub fn value_type(self, target: &Target) -> ValueType {
        match self {
            Builtin::Int { signed, size } => {
                let (min, max) = int_bounds(signed, size.bytes(target));
                ValueType::Integer { min, max }
            }
            Builtin::Float(repr) => ValueType::Number { repr },
            Builtin::Bool => ValueType::Boolean,
            Builtin::Str(kind) => ValueType::String {
                repr: match kind {
                    StrKind::Utf16 => StringRepr::Utf16,
                    StrKind::Utf8 => StringRepr::Utf8,
                    StrKind::Ansi => StringRepr::Ansi { code_page: CP_ACP },
                    StrKind::Short => StringRepr::Short { code_page: CP_ACP },
                },
                max_length: (kind == StrKind::Short).then_some(255),
            },
            Builtin::Char { wide } => ValueType::Char { wide },
            Builtin::DateTime(part) => ValueType::DateTime { part },
        }
    }

    /// Size in bytes on `target` (strings: the size of the reference).
    pub fn size(self, target: &Target) -> u32 {
        match self {
            Builtin::Int { size, .. } => size.bytes(target),
            Builtin::Float(NumberRepr::Single) => 4,
            Builtin::Float(NumberRepr::Extended) => target.extended_size,
            Builtin::Float(_) | Builtin::DateTime(_) => 8,
            Builtin::Bool => 1,
            Builtin::Str(StrKind::Short) => 256,
            Builtin::Str(_) => target.pointer_size,
            Builtin::Char { wide: true } => 2,
            Builtin::Char { wide: false } => 1,
        }
    }
}

/// Largest finite Single.
pub const MAX_SINGLE: f64 = 3.4028234663852886e38;
/// Largest Currency magnitude accepted: 922337203685477 (the type's 922337203685477.5807 is not
/// exact in the Double the value travels as; the stub checks the same bound).
pub const MAX_CURRENCY: f64 = 922337203685477.0;
/// Largest whole number a Double carries exactly (2^53), the bound of `Comp`.
pub const MAX_COMP: i64 = 9_007_199_254_740_992;

/// The JSON Schema of a value type (without description or default).
pub fn json_schema(ty: &ValueType) -> serde_json::Value {
    use serde_json::json;
    match ty {
        ValueType::Integer { min, max } => json!({
            "type": "integer",
            "minimum": json_int(*min),
            "maximum": json_int(*max),
        }),
        ValueType::Number { repr } => match repr {
            NumberRepr::Single => {
                json!({"type": "number", "minimum": -MAX_SINGLE, "maximum": MAX_SINGLE})
            }
            NumberRepr::Currency => {
                json!({"type": "number", "minimum": -MAX_CURRENCY, "maximum": MAX_CURRENCY})
            }
            NumberRepr::Comp => {
                json!({"type": "integer", "minimum": -MAX_COMP, "maximum": MAX_COMP})
            }
            NumberRepr::Double | NumberRepr::Extended => json!({"type": "number"}),
        },
        ValueType::Boolean => json!({"type": "boolean"}),
        ValueType::String { max_length, .. } => match max_length {
            Some(n) => json!({"type": "string", "maxLength": n}),
            None => json!({"type": "string"}),
        },
        ValueType::Char { .. } => json!({"type": "string", "minLength": 1, "maxLength": 1}),
        ValueType::DateTime { part } => match part {
            DateTimePart::DateTime => json!({
                "type": "string",
                "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,3})?$",
            }),
            DateTimePart::Date => {
                json!({"type": "string", "format": "date", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"})
            }
            DateTimePart::Time => json!({
                "type": "string",
                "pattern": r"^[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,3})?$",
            }),
        },
        ValueType::Enum { members, .. } => json!({
            "type": "string",
            "enum": members.iter().map(|m| m.name.clone()).collect::<Vec<_>>(),
        }),
        ValueType::Record { fields, .. } => {
            let mut properties = serde_json::Map::new();
            for field in fields {
                let mut schema = json_schema(&field.ty);
                if let (Some(text), serde_json::Value::Object(map)) =
                    (&field.description, &mut schema)
                {
                    map.insert("description".into(), text.clone().into());
                }
                properties.insert(field.name.clone(), schema);
            }
            let required: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
            json!({
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": false,
            })
        }
        ValueType::Array {
            items,
            min_items,
            max_items,
        } => {
            let mut schema = json!({"type": "array", "items": json_schema(items)});
            if let serde_json::Value::Object(map) = &mut schema {
                if let Some(n) = min_items {
                    map.insert("minItems".into(), (*n).into());
                }
                if let Some(n) = max_items {
                    map.insert("maxItems".into(), (*n).into());
                }
            }
            schema
        }
        ValueType::Set { members, .. } => json!({
            "type": "array",
            "items": {
                "type": "string",
                "enum": members.iter().map(|m| m.name.clone()).collect::<Vec<_>>(),
            },
            "uniqueItems": true,
        }),
        ValueType::Bytes => json!({"type": "string", "contentEncoding": "base64"}),
        ValueType::Strings => json!({"type": "array", "items": {"type": "string"}}),
        ValueType::Json => json!({}),
        // Never in a schema: the context is no argument.
        ValueType::Context => json!({}),
    }
}

/// An exact JSON integer (never through f64).
pub fn json_int(value: i128) -> serde_json::Value {
    if let Ok(v) = i64::try_from(value) {
        serde_json::Value::from(v)
    } else if let Ok(v) = u64::try_from(value) {
        serde_json::Value::from(v)
    } else {
        // Outside both ranges only for types the table does not have; keep it exact as text.
        serde_json::Value::String(value.to_string())
    }
}

/// Kinds of types a tool cannot use, with the reason shown in the diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsupported {
    /// `var` / `out` parameters.
    VarOut,
    /// Parameters without a type.
    Untyped,
    /// Records and old-style objects.
    Record,
    /// Static, dynamic and open arrays.
    Array,
    /// `set of`.
    Set,
    /// Pointers (`^T`, `Pointer`, `PChar`).
    Pointer,
    /// Classes and class references.
    Class,
    /// Interfaces.
    Interface,
    /// Procedural types and anonymous method references.
    Procedural,
    /// Variants, files, generics and other types without a JSON form.
    Other,
    /// A name that no parsed unit declares and the table does not know.
    Unknown,
}

impl Unsupported {
    /// All kinds, in documentation order.
    pub const ALL: [Unsupported; 11] = [
        Unsupported::VarOut,
        Unsupported::Untyped,
        Unsupported::Record,
        Unsupported::Array,
        Unsupported::Set,
        Unsupported::Pointer,
        Unsupported::Class,
        Unsupported::Interface,
        Unsupported::Procedural,
        Unsupported::Other,
        Unsupported::Unknown,
    ];

    /// What the table calls it.
    pub fn what(self) -> &'static str {
        match self {
            Unsupported::VarOut => "`[McpNil]` on `var` / `out` parameters",
            Unsupported::Untyped => "untyped parameters (`const X`, `var X`)",
            Unsupported::Record => "`object` types, records with a variant part or a field the table rejects",
            Unsupported::Array => "`array of const`, multi-dimensional or non-integer-indexed static arrays, anonymous static arrays",
            Unsupported::Set => "sets of anything but an enumeration, anonymous `set of` types",
            Unsupported::Pointer => "pointers (`^T`, `Pointer`, `PChar`, `PAnsiChar`, ...)",
            Unsupported::Class => "classes and class references (`TObject`, `class of T`)",
            Unsupported::Interface => "interfaces",
            Unsupported::Procedural => "procedural types, method pointers, `reference to`",
            Unsupported::Other => "`Variant`, `OleVariant`, files, generic instances",
            Unsupported::Unknown => "types declared in no parsed unit",
        }
    }

    /// Why it is rejected (the diagnostic's help text).
    pub fn reason(self) -> &'static str {
        match self {
            Unsupported::VarOut => "a var or out parameter is returned to the client beside the result; it cannot be nil",
            Unsupported::Untyped => "an untyped parameter has no JSON form",
            Unsupported::Record => "a record is a JSON object of all its fields; declare it in a parsed unit without a variant part, with fields of the table",
            Unsupported::Array => "declare a named type `TItems = array[1..3] of T` (integer bounds) or use a dynamic array",
            Unsupported::Set => "declare a named type `TColors = set of TColor` of an enumeration declared in a parsed unit",
            Unsupported::Pointer => "a pointer has no JSON form; mark the parameter `[McpNil]` to always pass nil",
            Unsupported::Class => "an object has no JSON form; mark the parameter `[McpNil]` to always pass nil, or use `[McpInstance]` for the object a method runs on",
            Unsupported::Interface => "an interface has no JSON form; mark the parameter `[McpNil]` to always pass nil",
            Unsupported::Procedural => "code cannot be passed as JSON",
            Unsupported::Other => "this type has no defined JSON form",
            Unsupported::Unknown => "add the unit that declares it to the command line, or use a type of the table",
        }
    }

    /// Whether `[McpNil]` may opt the parameter into receiving nil.
    pub fn nil_allowed(self) -> bool {
        matches!(
            self,
            Unsupported::Pointer | Unsupported::Class | Unsupported::Interface
        )
    }
}

/// Names of well-known types the table rejects, and why.
pub const REJECTED_NAMES: &[(&str, Unsupported)] = &[
    ("Pointer", Unsupported::Pointer),
    ("PChar", Unsupported::Pointer),
    ("PWideChar", Unsupported::Pointer),
    ("PAnsiChar", Unsupported::Pointer),
    ("PByte", Unsupported::Pointer),
    ("PInteger", Unsupported::Pointer),
    ("TObject", Unsupported::Class),
    ("TComponent", Unsupported::Class),
    ("TPersistent", Unsupported::Class),
    ("TStream", Unsupported::Class),
    ("TDataModule", Unsupported::Class),
    ("TClass", Unsupported::Class),
    ("Exception", Unsupported::Class),
    ("IInterface", Unsupported::Interface),
    ("IUnknown", Unsupported::Interface),
    ("Variant", Unsupported::Other),
    ("OleVariant", Unsupported::Other),
    ("TNotifyEvent", Unsupported::Procedural),
    ("TProc", Unsupported::Procedural),
    ("TFunc", Unsupported::Procedural),
    ("TGUID", Unsupported::Record),
    ("TPoint", Unsupported::Record),
    ("TRect", Unsupported::Record),
    ("TSysCharSet", Unsupported::Set),
    ("Real48", Unsupported::Other),
    ("RawByteString", Unsupported::Other),
    ("Text", Unsupported::Other),
];

/// The rejection of a well-known non-table type name, if it is one.
pub fn lookup_rejected(name: &str) -> Option<Unsupported> {
    let last = name.rsplit('.').next().unwrap_or(name);
    REJECTED_NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(last))
        .map(|(_, u)| *u)
}

fn schema_text(ty: &ValueType) -> String {
    let text = serde_json::to_string(&json_schema(ty)).unwrap_or_default();
    text.replace('|', "\\|")
}

fn abi_text(ty: &ValueType) -> &'static str {
    ty.abi_kind().name()
}

/// Renders `docs/types.md` from the table (a test keeps the checked-in file equal to this).
pub fn render_types_doc() -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    out.push_str(
        "# Types a tool can use\n\n\
         <!-- Generated by `delphi_mcp_codegen::types::render_types_doc` from the type table in\n\
         `codegen/src/types.rs`. Do not edit: run `UPDATE_DOCS=1 cargo test -p delphi-mcp-codegen --test types_doc`. -->\n\n\
         Every parameter and result of a tool has one of these types. The table decides the JSON\n\
         Schema the client sees, the ABI kind the value crosses the library boundary as\n\
         (`docs/abi.md`), and how the generated Pascal stub converts it. Integer bounds are exact\n\
         (checked on integers, never through floating point) and shown for the default target\n\
         `delphi12-win64`; sizes differ per target as listed.\n\n",
    );
    let win64 = Target::default();
    out.push_str("## Built-in types\n\n| Delphi | JSON Schema | ABI | ");
    let targets = documented_targets();
    for (title, _) in &targets {
        let _ = write!(out, "{title} | ");
    }
    out.push_str("notes |\n|---|---|---|");
    for _ in &targets {
        out.push_str("---|");
    }
    out.push_str("---|\n");
    for row in BUILTINS {
        let ty = row.builtin.value_type(&win64);
        let names = row
            .names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = write!(
            out,
            "| {names} | `{}` | {} | ",
            schema_text(&ty),
            abi_text(&ty)
        );
        for (_, target) in &targets {
            let _ = write!(out, "{} | ", row.builtin.size(target));
        }
        let _ = writeln!(out, "{} |", row.notes);
    }
    out.push_str(
        "\nSizes are in bytes; for strings, the size of the reference (ShortString: 256 bytes\n\
         inline). Where the range follows the target, the manifest holds the bounds of the\n\
         `--target` given to `manifest`/`gen`, and the stub checks the bounds of the type as the\n\
         compiler sees it as well (status 2 when they differ and the value does not fit).\n\n",
    );
    out.push_str(
        "## Types declared in the parsed units\n\n\
         | declaration | JSON Schema | ABI | notes |\n|---|---|---|---|\n\
         | `TColor = (Red, Green, Blue)` | `{\"type\":\"string\",\"enum\":[\"Red\",\"Green\",\"Blue\"]}` | int (ordinal) | members by name, exactly as declared (case included); explicit ordinals (`Big = 10`) are kept |\n\
         | `TPercent = 0..100` | `{\"type\":\"integer\",\"minimum\":0,\"maximum\":100}` | int | integer subranges; bounds may be constant expressions of the unit |\n\
         | `TAge = Integer`, `TName = type string` | as the aliased type | as the aliased type | aliases and distinct types resolve through every parsed unit |\n\
         | `TShort = String[20]` | `{\"type\":\"string\",\"maxLength\":20}` | string | at most N bytes in the ANSI code page |\n\
         | `TLatin = AnsiString(1252)` | `{\"type\":\"string\"}` | string | code page N; 1252, 28591, 20127 and 65001 are converted by the stub itself, others through the RTL with a round-trip check |\n\n",
    );
    out.push_str(
        "## Composite values (ABI 2)\n\n\
         They cross the library boundary as a block of ABI values (`docs/abi.md`, \"Composite\n\
         values\"); the runtime validates the whole value against the schema first, and a problem is\n\
         named by its path: `argument \"Origin.Y\": missing; ...`, `argument \"Points[2]\": expected\n\
         ..., got a string`.\n\n\
         | declaration | JSON Schema | ABI | notes |\n|---|---|---|---|\n\
         | `TPoint = record X, Y: Integer; end` (also `packed`) | `{\"type\":\"object\",\"properties\":{\"X\":...,\"Y\":...},\"required\":[\"X\",\"Y\"],\"additionalProperties\":false}` | record | every field required, no other key; field descriptions from `///` comments; nested records and arrays as fields; variant parts are rejected with the field named |\n\
         | `array of T`, `TArray<T>`, `TItems = array of T`, `const A: array of T` (open array) | `{\"type\":\"array\",\"items\":...}` | array | items of any type of the table, nested arrays and arrays of records included |\n\
         | `TTriple = array[1..3] of T` | `{\"type\":\"array\",\"items\":...,\"minItems\":3,\"maxItems\":3}` | array | exactly that many items; bounds are integer literals or constants |\n\
         | `TColors = set of TColor` | `{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[...]},\"uniqueItems\":true}` | array of int (ordinals) | member names, each at most once; results list them in ordinal order |\n\
         | `TBytes` | `{\"type\":\"string\",\"contentEncoding\":\"base64\"}` | bytes | standard base64 with padding. `TBytes` is told apart by its name: `array of Byte` and `TArray<Byte>` are arrays of integers 0..255 |\n\
         | `TStrings`, `TStringList` | `{\"type\":\"array\",\"items\":{\"type\":\"string\"}}` | array of string | parameters: the stub creates a `TStringList`, fills it and frees it after the call; results: the stub frees the list the routine returned after copying it (the routine hands over ownership); parameters and results only, not inside records or arrays |\n\n\
         `var` and `out` parameters are returned beside the result: `function TryParse(const S: string;\n\
         out Value: Integer): Boolean` answers `{\"result\": true, \"Value\": 42}` (a procedure:\n\
         `{\"success\": true, ...}`); `var` parameters are arguments too, `out` parameters are not. The\n\
         `outputSchema` lists them, all required.\n\n\
         ## Argument names\n\n\
         The JSON key of a parameter, record field or `var`/`out` output is its Pascal name, unless\n\
         `[McpName('query')]` on it gives another, or a naming policy applies: `[McpNaming('camelCase')]`\n\
         (or `'snake_case'`, `'asDeclared'`) on the routine, its class, or the record type, else\n\
         `--naming` of `manifest`, `gen`, `build` and `serve DIR` (also `naming = \"...\"` in\n\
         `[package.metadata.delphi-mcp]`, `Builder::naming` in build scripts and `naming = \"...\"` of\n\
         `bind!`; one option of codegen's front end). Names must stay unique after conversion (an error names both\n\
         parameters), and a `var`/`out` parameter may not become `result` or `success`.\n\n\
         ## JSON handlers\n\n\
         `function X(const Args: TJSONObject): TJSONValue` (`System.JSON`; under Free Pascal\n\
         `TJSONData` of `fpjson`) with `[McpInputSchema('{...}')]` (an inline schema) or\n\
         `[McpSchemaFile('X.schema.json')]` (a file next to the unit) is a tool whose input schema is\n\
         that schema. It must be a JSON object with `\"type\": \"object\"` and may use only the\n\
         keywords the runtime checks: `type`, `properties`, `required`, `additionalProperties`,\n\
         `items`, `enum`, `const`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,\n\
         `minLength`, `maxLength`, `minItems`, `maxItems`, `uniqueItems` (and the annotations\n\
         `$schema`, `$comment`, `title`, `description`, `default`, `examples`); any other keyword is\n\
         an error at generation, so nothing is silently unchecked. The runtime rejects duplicate keys\n\
         at every depth (`argument \"texts[1].w.v\": given more than once (duplicate key)`, found in one\n\
         pass over the text) and checks the whole arguments object before the call; the stub parses its JSON text into\n\
         the `TJSONObject` and frees it after the call, and frees the result after writing its JSON\n\
         (the handler hands it over; returning `Args` itself is allowed). The result is any JSON\n\
         value (`outputSchema` `{\"result\": {}}`). The library project needs `fpjson` under Free\n\
         Pascal (Debian: `fp-units-fcl-3.2.2`).\n\n",
    );
    out.push_str(
        "## Date and time\n\n\
         `TDateTime`, `TDate` and `TTime` travel as ISO 8601 text in JSON and as the TDateTime\n\
         Double (days since 1899-12-30, the fraction is the time of day) across the ABI; the\n\
         runtime converts between the two. There is no time zone: a TDateTime is a local\n\
         wall-clock value, so an offset or `Z` is rejected rather than silently dropped.\n\
         Milliseconds are optional on input and written only when not zero.\n\n",
    );
    out.push_str(
        "## Results\n\n\
         A function's result becomes `{\"result\": value}` with the schema of its type; a\n\
         procedure gives `{\"success\": true}`. A non-finite floating-point result (NaN, ±Inf) is a\n\
         tool error, since JSON has no such numbers.\n\n",
    );
    out.push_str("## Rejected at generation\n\nEach of these gives an error with file:line:col, the source line and the reason; all errors of\na run are reported together and the command exits with 1.\n\n| what | why |\n|---|---|\n");
    for kind in Unsupported::ALL {
        let _ = writeln!(out, "| {} | {} |", kind.what(), kind.reason());
    }
    out.push_str(
        "\nPointer, class and interface parameters may be opted into receiving nil with\n\
         `[McpNil]` on the parameter (or `[McpNil('Name')]` on the routine): they then leave the\n\
         schema and the ABI, and the stub always passes `nil`.\n",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_bounds_are_exact() {
        let t = Target::default();
        let uint64 = lookup_builtin("UInt64").map(|r| r.builtin.value_type(&t));
        assert_eq!(
            uint64,
            Some(ValueType::Integer {
                min: 0,
                max: 18446744073709551615
            })
        );
        let schema = json_schema(&uint64.unwrap_or(ValueType::Boolean));
        assert_eq!(
            serde_json::to_string(&schema).unwrap_or_default(),
            r#"{"type":"integer","minimum":0,"maximum":18446744073709551615}"#
        );
        assert_eq!(int_bounds(true, 8), (i64::MIN as i128, i64::MAX as i128));
        assert_eq!(int_bounds(true, 1), (-128, 127));
    }

    #[test]
    fn sizes_follow_the_target() -> Result<(), delphi_mcp_parser::target::UnknownTarget> {
        use delphi_mcp_parser::target::lookup;
        let linux = lookup("delphi12-linux64")?;
        let win32 = lookup("delphi12-win32")?;
        let fpc = lookup("fpc-linux64")?;
        let extended = Builtin::Float(NumberRepr::Extended);
        assert_eq!(IntSize::Long.bytes(&linux), 8);
        assert_eq!(IntSize::Long.bytes(&fpc), 4);
        assert_eq!(IntSize::Pointer.bytes(&win32), 4);
        assert_eq!(extended.size(&Target::default()), 8);
        assert_eq!(extended.size(&linux), 16);
        assert_eq!(extended.size(&fpc), 10);
        assert_eq!(documented_targets().len(), 4);
        Ok(())
    }

    #[test]
    fn lookups_ignore_case_and_unit_prefix() {
        assert!(lookup_builtin("system.integer").is_some());
        assert!(lookup_builtin("TFoo").is_none());
        assert_eq!(
            lookup_rejected("System.Pointer"),
            Some(Unsupported::Pointer)
        );
    }
}
