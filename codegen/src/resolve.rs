//! Resolving parameter and result types through the parsed units' own declarations (aliases,
//! subranges, enumerations, code-page strings) down to a row of the type table.

use crate::types::{lookup_builtin, lookup_rejected, Builtin, StrKind, Target, Unsupported};
use delphi_mcp_manifest::{EnumMemberEntry, NumberRepr, StringRepr, ValueType};
use delphi_mcp_parser::ast::{
    self, ConstValue, Decl, Expr, StructuredKind, TypeDef, TypeRef, TypeRefKind,
};
use delphi_mcp_parser::eval::{eval_with, ConstLookup};

mod composite;

/// How the stub converts a value (selects the conversion snippet in the templates).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Conv {
    /// Signed integer types, subranges: checked against `Low(T)..High(T)` as Int64.
    Int,
    /// Unsigned 64-bit types: checked against `High(T)` as UInt64.
    Uint,
    /// Enumerations: ordinal checked against `Ord(Low(T))..Ord(High(T))`.
    Enum,
    /// Double, Real, Extended.
    Double,
    /// Single (range checked).
    Single,
    /// Currency (range checked).
    Currency,
    /// Comp (whole numbers).
    Comp,
    /// Boolean types.
    Bool,
    /// string / UnicodeString / WideString.
    Utf16,
    /// UTF8String and AnsiString(65001).
    Utf8,
    /// AnsiString in a code page (0: the library's ANSI code page).
    Ansi {
        /// Code page.
        code_page: u16,
    },
    /// ShortString / `String[N]` (length checked against `SizeOf(T) - 1`).
    Short,
    /// Char / WideChar.
    WideChar,
    /// AnsiChar.
    AnsiChar,
    /// TDateTime / TDate / TTime (a Double across the ABI).
    DateTime,
    /// A record (ABI 2 block): its fields in order.
    Record {
        /// The fields.
        fields: Vec<FieldConv>,
    },
    /// An array (ABI 2 block).
    Array {
        /// The item type.
        item: Box<Resolved>,
        /// A static array's item count.
        fixed: Option<u32>,
    },
    /// A set of an enumeration (ABI 2: an array of ordinals).
    Set {
        /// The enumeration's Pascal type.
        element: String,
    },
    /// `TBytes` (ABI 2 `bytes`).
    Bytes,
    /// The `TJSONObject` argument of a JSON handler (ABI: the arguments' JSON text).
    JsonObject,
    /// The `TJSONValue` (`TJSONData` under Free Pascal) result of a JSON handler.
    JsonValue,
    /// `TStrings` / `TStringList` (ABI 2: an array of strings); the stub creates the list.
    Strings {
        /// The class the stub creates and frees (`TStringList` for both).
        class: String,
    },
    /// ABI 3: the `TMcpContext` call context; the stub creates it from the context slot and
    /// frees it after the call.
    Context,
}

impl Conv {
    /// Whether the value crosses as an ABI 2 block or bytes.
    pub fn is_composite(&self) -> bool {
        matches!(
            self,
            Conv::Record { .. }
                | Conv::Array { .. }
                | Conv::Set { .. }
                | Conv::Bytes
                | Conv::Strings { .. }
        )
    }
}

/// One field of a record, for the stub.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FieldConv {
    /// The Pascal field name.
    pub pascal: String,
    /// The JSON key (for the stub's messages).
    pub json: String,
    /// Its type.
    pub resolved: Resolved,
}

/// A resolved type: what the manifest and the stub need.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Resolved {
    /// The manifest value type (schema, ABI kind, bounds).
    pub value: ValueType,
    /// The stub conversion.
    pub conv: Conv,
    /// The Pascal type to declare the stub variable with (qualified by unit when declared in a
    /// parsed unit).
    pub pascal_type: String,
}

/// Why a type cannot be used, and which declaration made it so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The category.
    pub kind: Unsupported,
    /// The name that was rejected (as written or as declared).
    pub name: String,
    /// A more precise reason, when there is one.
    pub detail: Option<String>,
}

/// A type declaration of a parsed unit.
#[derive(Debug, Clone, Copy)]
pub struct TypeEntry<'a> {
    /// Index of the unit.
    pub unit: usize,
    /// The declaration.
    pub decl: &'a ast::TypeDecl,
}

/// The types and constants of all parsed units (interface sections).
#[derive(Debug)]
pub struct TypeEnv<'a> {
    units: Vec<&'a ast::Unit>,
    types: Vec<(String, TypeEntry<'a>)>,
    consts: Vec<(String, usize, &'a Expr)>,
    target: Target,
    /// The naming policy of record fields without `[McpName]` or `[McpNaming]`.
    naming: delphi_mcp_manifest::naming::ArgumentNaming,
}

const MAX_DEPTH: usize = 32;

impl<'a> TypeEnv<'a> {
    /// Collects the interface-level types and constants of `units`.
    pub fn new(units: &[&'a ast::Unit], target: Target) -> Self {
        let mut types = Vec::new();
        let mut consts = Vec::new();
        for (index, unit) in units.iter().enumerate() {
            for section in &unit.sections {
                if section.kind == ast::SectionKind::Implementation {
                    continue;
                }
                for decl in &section.decls {
                    match decl {
                        Decl::Type(ts) => {
                            for td in &ts.items {
                                types.push((
                                    td.name.as_str().to_ascii_lowercase(),
                                    TypeEntry {
                                        unit: index,
                                        decl: td,
                                    },
                                ));
                            }
                        }
                        Decl::Const(cs) => {
                            for c in &cs.items {
                                consts.push((
                                    c.name.as_str().to_ascii_lowercase(),
                                    index,
                                    &c.value,
                                ));
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        Self {
            units: units.to_vec(),
            types,
            consts,
            target,
            naming: Default::default(),
        }
    }

    /// Sets the naming policy of record fields (`--naming`).
    pub fn with_naming(mut self, naming: delphi_mcp_manifest::naming::ArgumentNaming) -> Self {
        self.naming = naming;
        self
    }

    /// The target sizes are taken from.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Finds a type declared in a parsed unit: `home` unit first, then the others. A dotted
    /// name `Unit.TFoo` looks only in that unit.
    pub fn find_type(&self, name: &str, home: usize) -> Option<TypeEntry<'a>> {
        let (unit_name, last) = match name.rfind('.') {
            Some(dot) => (Some(&name[..dot]), &name[dot + 1..]),
            None => (None, name),
        };
        let last = last.to_ascii_lowercase();
        let candidates = self.types.iter().filter(|(n, e)| {
            *n == last && unit_name.is_none_or(|u| self.units[e.unit].name.eq_ignore_ascii_case(u))
        });
        let mut first = None;
        for (_, entry) in candidates {
            if entry.unit == home {
                return Some(*entry);
            }
            first.get_or_insert(*entry);
        }
        first
    }

    /// The name of unit `index`.
    pub fn unit_name(&self, index: usize) -> &str {
        &self.units[index].name
    }

    /// Evaluates a constant expression written in unit `home` with the parser's evaluator
    /// ([`eval_with`], which documents what it covers); the constants it refers to are looked
    /// up across the units as the [`ConstLookup`] implementation of `TypeEnv` says.
    pub fn eval(&self, expr: &Expr, home: usize) -> Option<ConstValue> {
        eval_with(self, expr, home)
    }

    /// Resolves a type as written in unit `home`.
    pub fn resolve(&self, ty: &TypeRef, home: usize) -> Result<Resolved, Rejection> {
        self.resolve_depth(ty, home, 0, None)
    }

    pub(crate) fn resolve_depth(
        &self,
        ty: &TypeRef,
        home: usize,
        depth: usize,
        // The outermost declared name: the stub declares its variable with that type.
        outer: Option<String>,
    ) -> Result<Resolved, Rejection> {
        let reject = |kind: Unsupported, detail: Option<String>| Rejection {
            kind,
            name: ty.text.to_string(),
            detail,
        };
        if depth > MAX_DEPTH {
            return Err(reject(
                Unsupported::Other,
                Some("the type refers to itself".into()),
            ));
        }
        match &ty.kind {
            TypeRefKind::Named { name, generic_args } => {
                if !generic_args.is_empty() {
                    let last = name.rsplit('.').next().unwrap_or(name);
                    if last.eq_ignore_ascii_case("TArray") && generic_args.len() == 1 {
                        let pascal = outer.unwrap_or_else(|| ty.text.to_string());
                        return self.array_of(&generic_args[0], home, depth, None, pascal);
                    }
                    return Err(reject(
                        Unsupported::Other,
                        Some("a generic instance".into()),
                    ));
                }
                if let Some(found) =
                    self.known_composite(name, outer.clone().unwrap_or_else(|| ty.text.to_string()))
                {
                    if self.find_type(name, home).is_none() {
                        return Ok(found);
                    }
                }
                if let Some(entry) = self.find_type(name, home) {
                    let qualified = format!("{}.{}", self.unit_name(entry.unit), entry.decl.name);
                    let outer = outer.or(Some(qualified));
                    return self.resolve_decl(entry, depth, outer, ty);
                }
                if let Some(row) = lookup_builtin(name) {
                    let pascal = outer.unwrap_or_else(|| ty.text.to_string());
                    return Ok(builtin_resolved(row.builtin, &self.target, pascal));
                }
                if let Some(kind) = lookup_rejected(name) {
                    return Err(reject(kind, None));
                }
                Err(reject(Unsupported::Unknown, None))
            }
            TypeRefKind::ShortString { length } => {
                let n = match self.eval(length, home) {
                    Some(ConstValue::Int(n)) if (1..=255).contains(&n) => n as u32,
                    _ => {
                        return Err(reject(
                            Unsupported::Other,
                            Some(format!(
                                "the length `{}` is not a constant from 1 to 255",
                                length.text
                            )),
                        ))
                    }
                };
                let Some(pascal) = outer else {
                    return Err(reject(
                        Unsupported::Other,
                        Some("declare a named type for `string[N]`".into()),
                    ));
                };
                Ok(Resolved {
                    value: ValueType::String {
                        repr: StringRepr::Short {
                            code_page: crate::types::CP_ACP,
                        },
                        max_length: Some(n),
                    },
                    conv: Conv::Short,
                    pascal_type: pascal,
                })
            }
            TypeRefKind::CodePageString { name, code_page } => {
                if !name.eq_ignore_ascii_case("AnsiString") {
                    return Err(reject(Unsupported::Other, None));
                }
                let cp = match self.eval(code_page, home) {
                    Some(ConstValue::Int(n)) if (0..=65535).contains(&n) => n as u16,
                    _ => {
                        let known = match code_page.text.to_ascii_uppercase().as_str() {
                            "CP_UTF8" => Some(65001),
                            "CP_ACP" => Some(0),
                            _ => None,
                        };
                        match known {
                            Some(cp) => cp,
                            None => {
                                return Err(reject(
                                    Unsupported::Other,
                                    Some(format!(
                                        "the code page `{}` is not a constant",
                                        code_page.text
                                    )),
                                ))
                            }
                        }
                    }
                };
                let Some(pascal) = outer else {
                    return Err(reject(
                        Unsupported::Other,
                        Some("declare a named type for `AnsiString(N)`".into()),
                    ));
                };
                if cp == 65001 {
                    return Ok(Resolved {
                        value: ValueType::String {
                            repr: StringRepr::Utf8,
                            max_length: None,
                        },
                        conv: Conv::Utf8,
                        pascal_type: pascal,
                    });
                }
                Ok(Resolved {
                    value: ValueType::String {
                        repr: StringRepr::Ansi { code_page: cp },
                        max_length: None,
                    },
                    conv: Conv::Ansi { code_page: cp },
                    pascal_type: pascal,
                })
            }
            TypeRefKind::ArrayOf {
                element: Some(element),
            } => {
                let mut array = self.array_of(element, home, depth, None, String::new())?;
                array.pascal_type = match outer {
                    Some(named) => named,
                    None => match &array.conv {
                        Conv::Array { item, .. } => format!("array of {}", item.pascal_type),
                        _ => ty.text.to_string(),
                    },
                };
                Ok(array)
            }
            TypeRefKind::ArrayOf { element: None } => Err(reject(
                Unsupported::Array,
                Some("`array of const` has no JSON form".into()),
            )),
            TypeRefKind::StaticArray { element } => {
                let count = self
                    .static_count(ty, home)
                    .map_err(|why| reject(Unsupported::Array, Some(why)))?;
                let Some(pascal) = outer else {
                    return Err(reject(
                        Unsupported::Array,
                        Some("declare a named type for a static array".into()),
                    ));
                };
                self.array_of(element, home, depth, Some(count), pascal)
            }
            TypeRefKind::Pointer { .. } => Err(reject(Unsupported::Pointer, None)),
            TypeRefKind::Other => {
                let text = ty.text.trim_start().to_ascii_lowercase();
                let kind = if text.starts_with("set ") {
                    Unsupported::Set
                } else if text.starts_with("record") || text.starts_with("packed record") {
                    Unsupported::Record
                } else if text.starts_with("procedure")
                    || text.starts_with("function")
                    || text.starts_with("reference")
                {
                    Unsupported::Procedural
                } else {
                    Unsupported::Other
                };
                Err(reject(
                    kind,
                    Some("declare a named type in the unit's interface".into()),
                ))
            }
        }
    }

    fn resolve_decl(
        &self,
        entry: TypeEntry<'a>,
        depth: usize,
        outer: Option<String>,
        written: &TypeRef,
    ) -> Result<Resolved, Rejection> {
        let decl = entry.decl;
        let reject = |kind: Unsupported, detail: Option<String>| Rejection {
            kind,
            name: decl.name.to_string(),
            detail,
        };
        if !decl.generic_params.is_empty() {
            return Err(reject(Unsupported::Other, Some("a generic type".into())));
        }
        let pascal = outer.unwrap_or_else(|| written.text.to_string());
        match &decl.def {
            TypeDef::Alias { target, .. } | TypeDef::Other { target } => {
                self.resolve_depth(target, entry.unit, depth + 1, Some(pascal))
            }
            TypeDef::Enum(en) => {
                let mut members = Vec::new();
                let mut next: i64 = 0;
                for m in &en.members {
                    let ordinal = match &m.value {
                        Some(v) => match self.eval(v, entry.unit) {
                            Some(ConstValue::Int(i)) => i64::try_from(i).map_err(|_| {
                                reject(Unsupported::Other, Some("an ordinal out of range".into()))
                            })?,
                            _ => {
                                return Err(reject(
                                    Unsupported::Other,
                                    Some(format!("the ordinal of `{}` is not a constant", m.name)),
                                ))
                            }
                        },
                        None => next,
                    };
                    next = ordinal.saturating_add(1);
                    members.push(EnumMemberEntry {
                        name: m.name.to_string(),
                        ordinal,
                    });
                }
                Ok(Resolved {
                    value: ValueType::Enum {
                        type_name: decl.name.to_string(),
                        members,
                    },
                    conv: Conv::Enum,
                    pascal_type: pascal,
                })
            }
            TypeDef::Subrange { low, high } => {
                match (self.eval(low, entry.unit), self.eval(high, entry.unit)) {
                    (Some(ConstValue::Int(min)), Some(ConstValue::Int(max))) if min <= max => {
                        let conv = if max > i64::MAX as i128 {
                            Conv::Uint
                        } else {
                            Conv::Int
                        };
                        Ok(Resolved {
                            value: ValueType::Integer { min, max },
                            conv,
                            pascal_type: pascal,
                        })
                    }
                    _ => Err(reject(
                        Unsupported::Other,
                        Some("only subranges of integer constants are supported".into()),
                    )),
                }
            }
            TypeDef::Structured(st) if st.kind == StructuredKind::Record => {
                self.record(entry, st, depth, pascal)
            }
            TypeDef::Structured(st) => Err(reject(
                match st.kind {
                    StructuredKind::Class => Unsupported::Class,
                    StructuredKind::Interface | StructuredKind::DispInterface => {
                        Unsupported::Interface
                    }
                    StructuredKind::Record | StructuredKind::Object => Unsupported::Record,
                    StructuredKind::ClassHelper | StructuredKind::RecordHelper => {
                        Unsupported::Other
                    }
                },
                None,
            )),
            TypeDef::Set { element } => self.set_of(element, entry.unit, depth, &decl.name, pascal),
            TypeDef::ClassRef { .. } => Err(reject(Unsupported::Class, None)),
            TypeDef::Pointer { .. } => Err(reject(Unsupported::Pointer, None)),
            TypeDef::Procedural(_) => Err(reject(Unsupported::Procedural, None)),
        }
    }
}

impl ConstLookup for TypeEnv<'_> {
    /// The index of the unit a name is looked up from.
    type Scope = usize;

    /// An interface constant named by the last part of `name` (`Unit.Const` does not restrict
    /// the unit): the one of unit `home` if it declares one, else the first one declared, with
    /// the unit it was found in.
    fn lookup(&self, name: &str, home: usize) -> Option<(&Expr, usize)> {
        let last = name.rsplit('.').next().unwrap_or(name).to_ascii_lowercase();
        let mut found = None;
        for (n, unit, value) in &self.consts {
            if *n == last {
                if *unit == home {
                    return Some((*value, *unit));
                }
                found.get_or_insert((*value, *unit));
            }
        }
        found
    }
}

/// The resolution of a built-in row.
pub fn builtin_resolved(builtin: Builtin, target: &Target, pascal_type: String) -> Resolved {
    let value = builtin.value_type(target);
    let conv = match builtin {
        Builtin::Int { .. } => {
            if value.abi_kind() == delphi_mcp_manifest::abi::AbiKind::UInt {
                Conv::Uint
            } else {
                Conv::Int
            }
        }
        Builtin::Float(NumberRepr::Single) => Conv::Single,
        Builtin::Float(NumberRepr::Currency) => Conv::Currency,
        Builtin::Float(NumberRepr::Comp) => Conv::Comp,
        Builtin::Float(_) => Conv::Double,
        Builtin::Bool => Conv::Bool,
        Builtin::Str(StrKind::Utf16) => Conv::Utf16,
        Builtin::Str(StrKind::Utf8) => Conv::Utf8,
        Builtin::Str(StrKind::Ansi) => Conv::Ansi {
            code_page: crate::types::CP_ACP,
        },
        Builtin::Str(StrKind::Short) => Conv::Short,
        Builtin::Char { wide: true } => Conv::WideChar,
        Builtin::Char { wide: false } => Conv::AnsiChar,
        Builtin::DateTime(_) => Conv::DateTime,
    };
    Resolved {
        value,
        conv,
        pascal_type,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use delphi_mcp_parser::{parse_text, ParseOptions, SourceDb};
    use std::path::Path;

    fn parse(db: &SourceDb, name: &str, consts: &str) -> ast::Unit {
        let text = format!("unit {name};\ninterface\nconst\n{consts}\nimplementation\nend.\n");
        let result = parse_text(db, Path::new(name), &text, &ParseOptions::default());
        assert!(result.diagnostics.is_empty(), "{:?}", result.diagnostics);
        result.unit.expect("the unit parses")
    }

    fn value<'a>(unit: &'a ast::Unit, name: &str) -> &'a Expr {
        let decl = unit.constants().into_iter().find(|c| c.name == name);
        &decl.unwrap_or_else(|| panic!("{name} is declared")).value
    }

    #[test]
    fn constants_are_looked_up_from_the_unit_that_declares_them() {
        let db = SourceDb::new();
        let u0 = parse(
            &db,
            "U0",
            "  A = 10;\n  C = B * 2;\n  D = U1.A;\n  X = Y;\n  Y = X;",
        );
        let u1 = parse(&db, "U1", "  A = 1;\n  B = A + 1;");
        let env = TypeEnv::new(&[&u0, &u1], Target::default());
        // `B` is only in U1, and its `A` is U1's.
        assert_eq!(env.eval(value(&u0, "C"), 0), Some(ConstValue::Int(4)));
        // The home unit's constant wins over another unit's of the same name.
        assert_eq!(env.eval(value(&u1, "B"), 1), Some(ConstValue::Int(2)));
        assert_eq!(env.eval(value(&u0, "D"), 0), Some(ConstValue::Int(10)));
        assert_eq!(env.eval(value(&u0, "D"), 1), Some(ConstValue::Int(1)));
        // A reference cycle is not a constant.
        assert_eq!(env.eval(value(&u0, "X"), 0), None);
    }
}
