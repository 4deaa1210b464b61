//! Resolving composite types (ABI 2): records, arrays (dynamic, open, static, `TArray<T>`),
//! sets of enumerations, `TBytes` and `TStrings`, down to the manifest value type and the
//! stub's conversion of each part.

use super::{Conv, FieldConv, Rejection, Resolved, TypeEntry, TypeEnv};
use crate::types::Unsupported;
use delphi_mcp_manifest::{FieldEntry, ValueType};
use delphi_mcp_parser::ast::{self, ConstValue, Member, TypeRef};

/// Names of the `TStrings` family (a JSON array of strings).
const STRINGS_CLASSES: &[&str] = &["TStrings", "TStringList"];

impl TypeEnv<'_> {
    /// The composite a well-known name stands for (`TBytes`, `TStrings`, `TStringList`).
    pub(super) fn known_composite(&self, name: &str, pascal: String) -> Option<Resolved> {
        let last = name.rsplit('.').next().unwrap_or(name);
        if last.eq_ignore_ascii_case("TBytes") {
            return Some(Resolved {
                value: ValueType::Bytes,
                conv: Conv::Bytes,
                pascal_type: pascal,
            });
        }
        STRINGS_CLASSES
            .iter()
            .find(|c| c.eq_ignore_ascii_case(last))
            .map(|_| Resolved {
                value: ValueType::Strings,
                // The stub creates the concrete class for either name.
                conv: Conv::Strings {
                    class: "TStringList".to_string(),
                },
                pascal_type: pascal,
            })
    }

    /// An array of `element` (`fixed`: a static array of that many items).
    pub(super) fn array_of(
        &self,
        element: &TypeRef,
        home: usize,
        depth: usize,
        fixed: Option<u32>,
        pascal: String,
    ) -> Result<Resolved, Rejection> {
        let item = self.resolve_depth(element, home, depth + 1, None)?;
        if matches!(item.conv, Conv::Strings { .. }) {
            return Err(nested_strings(&item.pascal_type));
        }
        Ok(Resolved {
            value: ValueType::Array {
                items: Box::new(item.value.clone()),
                min_items: fixed,
                max_items: fixed,
            },
            conv: Conv::Array {
                item: Box::new(item),
                fixed,
            },
            pascal_type: pascal,
        })
    }

    /// The item count of a static array `array[Low..High] of T`, from the text as written
    /// (bounds are integer literals or constants of the parsed units).
    pub(super) fn static_count(&self, ty: &TypeRef, home: usize) -> Result<u32, String> {
        let text = ty.text.as_str();
        let inner = text
            .find('[')
            .and_then(|open| {
                text[open + 1..]
                    .find(']')
                    .map(|close| &text[open + 1..open + 1 + close])
            })
            .ok_or("no index range")?;
        let (low, high) = inner
            .split_once("..")
            .ok_or("static arrays need an index range of integers (`array[1..3] of T`)")?;
        if high.contains(',') {
            return Err("multi-dimensional static arrays are not supported".into());
        }
        let bound = |part: &str| -> Result<i128, String> {
            let part = part.trim();
            if let Ok(n) = part.parse::<i128>() {
                return Ok(n);
            }
            let (expr, unit) = delphi_mcp_parser::eval::ConstLookup::lookup(self, part, home)
                .ok_or_else(|| format!("the bound `{part}` is not an integer constant"))?;
            match self.eval(expr, unit) {
                Some(ConstValue::Int(n)) => Ok(n),
                _ => Err(format!("the bound `{part}` is not an integer constant")),
            }
        };
        let (low, high) = (bound(low)?, bound(high)?);
        u32::try_from(high - low + 1)
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("the index range {low}..{high} is empty or too large"))
    }

    /// A record type declared in a parsed unit: every field, in order.
    pub(super) fn record(
        &self,
        entry: TypeEntry<'_>,
        st: &ast::StructuredType,
        depth: usize,
        pascal: String,
    ) -> Result<Resolved, Rejection> {
        let decl = entry.decl;
        let reject = |kind: Unsupported, detail: String| Rejection {
            kind,
            name: decl.name.to_string(),
            detail: Some(detail),
        };
        let naming = attribute_naming(&decl.attributes).unwrap_or(self.naming);
        let mut fields = Vec::new();
        let mut convs = Vec::new();
        for section in &st.sections {
            for member in &section.members {
                match member {
                    Member::Field {
                        field,
                        is_class: false,
                    } => {
                        let resolved = self
                            .resolve_depth(&field.ty, entry.unit, depth + 1, None)
                            .map_err(|inner| {
                            let why = inner
                                .detail
                                .clone()
                                .map(|d| format!(" ({d})"))
                                .unwrap_or_default();
                            reject(
                                inner.kind,
                                format!("field `{}` has type `{}`{why}", field.name, inner.name),
                            )
                        })?;
                        if matches!(resolved.conv, Conv::Strings { .. }) {
                            let mut rejection = nested_strings(&resolved.pascal_type);
                            rejection.name = decl.name.to_string();
                            rejection.detail = Some(format!(
                                "field `{}` is a `{}`, which only a parameter or result may be (the stub owns the list)",
                                field.name, resolved.pascal_type
                            ));
                            return Err(rejection);
                        }
                        let json = attribute_name(&field.attributes)
                            .unwrap_or_else(|| naming.apply(&field.name));
                        if fields.iter().any(|f: &FieldEntry| f.name == json) {
                            return Err(reject(
                                Unsupported::Record,
                                format!("two fields become JSON key `{json}`; give one another name with [McpName('name')]"),
                            ));
                        }
                        fields.push(FieldEntry {
                            name: json.clone(),
                            description: field
                                .doc
                                .as_ref()
                                .and_then(|d| d.summary.as_ref().map(|s| s.to_string()))
                                .filter(|s| !s.trim().is_empty()),
                            ty: resolved.value.clone(),
                        });
                        convs.push(FieldConv {
                            pascal: field.name.to_string(),
                            json,
                            resolved,
                        });
                    }
                    Member::Variant { .. } => {
                        return Err(reject(
                            Unsupported::Record,
                            "a variant part (`case ... of`) has no JSON form".into(),
                        ))
                    }
                    // Methods, properties, constants, class fields: not part of the value.
                    _ => {}
                }
            }
        }
        Ok(Resolved {
            value: ValueType::Record {
                type_name: decl.name.to_string(),
                fields,
            },
            conv: Conv::Record { fields: convs },
            pascal_type: pascal,
        })
    }

    /// `set of T` of an enumeration.
    pub(super) fn set_of(
        &self,
        element: &TypeRef,
        home: usize,
        depth: usize,
        name: &str,
        pascal: String,
    ) -> Result<Resolved, Rejection> {
        let item = self.resolve_depth(element, home, depth + 1, None)?;
        match item.value {
            ValueType::Enum { members, .. } => Ok(Resolved {
                value: ValueType::Set {
                    type_name: name.to_string(),
                    members,
                },
                conv: Conv::Set {
                    element: item.pascal_type,
                },
                pascal_type: pascal,
            }),
            _ => Err(Rejection {
                kind: Unsupported::Set,
                name: name.to_string(),
                detail: Some("only sets of enumerations are supported".into()),
            }),
        }
    }
}

/// A `TStrings` inside a record or array: the stub could not free it.
fn nested_strings(name: &str) -> Rejection {
    Rejection {
        kind: Unsupported::Class,
        name: name.to_string(),
        detail: Some(
            "`TStrings` only as a parameter or result (the stub creates and frees the list); use an array of string inside records and arrays".into(),
        ),
    }
}

/// The string argument of the first attribute called `key` (`McpName`, `McpNaming`).
fn attribute_string(attrs: &[ast::Attribute], key: &str) -> Option<String> {
    let attr = attrs.iter().find(|a| {
        let last = a.name.rsplit('.').next().unwrap_or(&a.name);
        let lower = last.to_ascii_lowercase();
        lower == key || lower.strip_suffix("attribute") == Some(key)
    })?;
    match &attr.args.first()?.value.kind {
        ast::ExprKind::Str { value } => Some(value.to_string()),
        _ => None,
    }
}

/// `[McpName('name')]` of a record field.
fn attribute_name(attrs: &[ast::Attribute]) -> Option<String> {
    attribute_string(attrs, "mcpname").filter(|n| !n.is_empty())
}

/// `[McpNaming('camelCase')]` of a record type.
fn attribute_naming(
    attrs: &[ast::Attribute],
) -> Option<delphi_mcp_manifest::naming::ArgumentNaming> {
    delphi_mcp_manifest::naming::ArgumentNaming::parse(&attribute_string(attrs, "mcpnaming")?)
}
