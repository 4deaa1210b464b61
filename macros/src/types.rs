//! The Rust types of a bound module's values: scalars as Rust scalars; records as structs,
//! enumerations inside composite values and the members of sets as enums, arrays as `Vec`,
//! `TBytes` as `Vec<u8>` (base64 on the wire), `TStrings` as `Vec<String>`. Every generated
//! type derives serde's traits through the runtime's re-export, so a bound crate links only
//! the runtime.

use delphi_mcp_manifest::naming::{rust_identifier, rust_type_identifier};
use delphi_mcp_manifest::{EnumMemberEntry, FieldEntry, NumberRepr, ValueType};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::HashSet;

/// Names the module defines itself; generated types take other names.
const RESERVED_TYPES: &[&str] = &["Library", "BindError", "ToolError", "MANIFEST"];

/// How a value crosses between its Rust type and the JSON the runtime validates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// A scalar: `Value::from` in, `FromResult` out.
    Scalar,
    /// serde JSON of a generated or standard type.
    Serde,
    /// Holds `TBytes` (directly or as items of arrays): base64 text.
    Base64,
}

/// The Rust types of one value.
pub struct Mapped {
    /// The type of a method parameter.
    pub param: TokenStream,
    /// The owned type (results, fields, outputs).
    pub owned: TokenStream,
    /// How it crosses.
    pub wire: Wire,
}

/// The types generated for one module.
#[derive(Default)]
pub struct TypeSet {
    /// The generated items (structs and enums), in the order they were made.
    pub items: Vec<TokenStream>,
    used: HashSet<String>,
    records: Vec<(String, Vec<FieldEntry>, syn::Ident)>,
    enums: Vec<(Vec<EnumMemberEntry>, syn::Ident)>,
    /// Enumeration type names by members, so that a set's member enum is the enumeration's.
    enum_names: Vec<(Vec<EnumMemberEntry>, String)>,
}

fn private() -> TokenStream {
    quote!(::delphi_mcp_runtime::bind::__private)
}

/// The serde derives of a generated type, through the runtime's re-export of serde.
fn serde_derives() -> TokenStream {
    let private = private();
    quote! {
        #[derive(#private::serde::Serialize, #private::serde::Deserialize)]
        #[serde(crate = "::delphi_mcp_runtime::bind::__private::serde")]
    }
}

/// Calls `visit` for `ty` and every type inside it.
fn walk(ty: &ValueType, visit: &mut impl FnMut(&ValueType)) {
    visit(ty);
    match ty {
        ValueType::Record { fields, .. } => fields.iter().for_each(|f| walk(&f.ty, visit)),
        ValueType::Array { items, .. } => walk(items, visit),
        _ => {}
    }
}

impl TypeSet {
    /// A type set for the values of `types` (every parameter, result and output of the
    /// manifest): enumerations are named first, so that sets of them reuse their enums.
    pub fn new<'a>(types: impl Iterator<Item = &'a ValueType>) -> TypeSet {
        let mut set = TypeSet {
            used: RESERVED_TYPES.iter().map(|s| s.to_string()).collect(),
            ..TypeSet::default()
        };
        for ty in types {
            walk(ty, &mut |t| {
                if let ValueType::Enum { type_name, members } = t {
                    if !set.enum_names.iter().any(|(m, _)| m == members) {
                        set.enum_names.push((members.clone(), type_name.clone()));
                    }
                }
            });
        }
        set
    }

    /// A type name from `base` that no other item of the module has.
    pub fn unique(&mut self, base: &str) -> syn::Ident {
        let base = rust_type_identifier(base);
        let mut name = base.clone();
        let mut counter = 2;
        while !self.used.insert(name.clone()) {
            name = format!("{base}{counter}");
            counter += 1;
        }
        format_ident!("{}", name)
    }

    /// The Rust types of `ty`; `top` for a parameter, result or output (enumerations there
    /// stay member-name strings, as before composite values), else inside a composite value.
    /// The error says why there is none.
    pub fn map(&mut self, ty: &ValueType, top: bool) -> Result<Mapped, String> {
        let scalar = |t: TokenStream| {
            Ok(Mapped {
                param: t.clone(),
                owned: t,
                wire: Wire::Scalar,
            })
        };
        let text = || Mapped {
            param: quote!(&str),
            owned: quote!(::std::string::String),
            wire: Wire::Scalar,
        };
        match ty {
            ValueType::Integer { min, max } => integer(*min, *max)
                .map(|t| Mapped {
                    param: t.clone(),
                    owned: t,
                    wire: Wire::Scalar,
                })
                .ok_or_else(|| "an integer range beyond 64 bits".to_string()),
            ValueType::Number {
                repr: NumberRepr::Single,
            } => scalar(quote!(f32)),
            ValueType::Number { .. } => scalar(quote!(f64)),
            ValueType::Boolean => scalar(quote!(bool)),
            ValueType::String { .. } | ValueType::Char { .. } | ValueType::DateTime { .. } => {
                Ok(text())
            }
            ValueType::Enum { .. } if top => Ok(text()),
            ValueType::Enum { type_name, members } => {
                let ident = self.enumeration(type_name, members);
                Ok(composite(quote!(#ident), quote!(&#ident), Wire::Serde))
            }
            ValueType::Record { type_name, fields } => {
                let ident = self.record(type_name, fields)?;
                Ok(composite(quote!(#ident), quote!(&#ident), Wire::Serde))
            }
            ValueType::Set { type_name, members } => {
                let base = match self.enum_names.iter().find(|(m, _)| m == members) {
                    Some((_, name)) => name.clone(),
                    None => type_name
                        .strip_prefix("set of ")
                        .map_or_else(|| format!("{type_name}Member"), str::to_string),
                };
                let ident = self.enumeration(&base, members);
                let private = private();
                let owned = quote!(#private::BTreeSet<#ident>);
                Ok(composite(owned.clone(), quote!(&#owned), Wire::Serde))
            }
            ValueType::Array { items, .. } => {
                let item = self.map(items, false)?;
                let owned_item = item.owned;
                let wire = match item.wire {
                    Wire::Base64 => Wire::Base64,
                    _ => Wire::Serde,
                };
                Ok(composite(
                    quote!(::std::vec::Vec<#owned_item>),
                    quote!(&[#owned_item]),
                    wire,
                ))
            }
            ValueType::Bytes => Ok(composite(
                quote!(::std::vec::Vec<u8>),
                quote!(&[u8]),
                Wire::Base64,
            )),
            ValueType::Strings => Ok(composite(
                quote!(::std::vec::Vec<::std::string::String>),
                quote!(&[::std::string::String]),
                Wire::Serde,
            )),
            // The result of a JSON handler: any JSON.
            ValueType::Json => scalar(quote!(::delphi_mcp_runtime::bind::__private::Value)),
            // Never a Rust argument: the runtime passes the call context itself.
            ValueType::Context => Err("the call context is passed by the runtime".into()),
        }
    }

    /// The struct of a record (made once per type name and fields).
    fn record(&mut self, type_name: &str, fields: &[FieldEntry]) -> Result<syn::Ident, String> {
        if let Some((_, _, ident)) = self
            .records
            .iter()
            .find(|(n, f, _)| n == type_name && f == fields)
        {
            return Ok(ident.clone());
        }
        let mut used = HashSet::new();
        let mut members = Vec::new();
        for field in fields {
            let mapped = self
                .map(&field.ty, false)
                .map_err(|why| format!("field `{}` of record `{type_name}`: {why}", field.name))?;
            members.push(self.field(
                &field.name,
                field.description.as_deref(),
                &mapped,
                &mut used,
            ));
        }
        let ident = self.unique(type_name);
        let doc = format!(" The Pascal record `{type_name}`: a JSON object of all its fields.");
        self.push_struct(&ident, &doc, &members);
        self.records
            .push((type_name.to_string(), fields.to_vec(), ident.clone()));
        Ok(ident)
    }

    /// Adds a struct with serde's traits (through the runtime) and `fields` (of [`Self::field`]).
    pub fn push_struct(&mut self, ident: &syn::Ident, doc: &str, fields: &[TokenStream]) {
        let derives = serde_derives();
        self.items.push(quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, PartialEq)]
            #derives
            pub struct #ident {
                #( #fields )*
            }
        });
    }

    /// A struct field for the JSON key `key` (its Rust name unique in `used`).
    pub fn field(
        &self,
        key: &str,
        description: Option<&str>,
        mapped: &Mapped,
        used: &mut HashSet<String>,
    ) -> TokenStream {
        let mut name = rust_identifier(key);
        while !used.insert(name.clone()) {
            name.push('_');
        }
        let ident: syn::Ident = syn::parse_str(&name).unwrap_or_else(|_| format_ident!("_field"));
        let doc = match description {
            Some(text) => format!(" {} (JSON key `{key}`)", text.replace('\n', "\n ")),
            None => format!(" JSON key `{key}`."),
        };
        let ty = &mapped.owned;
        let with = (mapped.wire == Wire::Base64)
            .then(|| quote!(#[serde(with = "::delphi_mcp_runtime::bind::__private::base64_wire")]));
        quote! {
            #[doc = #doc]
            #[serde(rename = #key)]
            #with
            pub #ident: #ty,
        }
    }

    /// The enum of an enumeration's members (made once per members).
    fn enumeration(&mut self, type_name: &str, members: &[EnumMemberEntry]) -> syn::Ident {
        if let Some((_, ident)) = self.enums.iter().find(|(m, _)| m == members) {
            return ident.clone();
        }
        let ident = self.unique(type_name);
        let mut used = HashSet::new();
        let variants = members.iter().map(|member| {
            let base = rust_type_identifier(&member.name);
            let mut name = base.clone();
            while !used.insert(name.clone()) {
                name.push('_');
            }
            let variant = format_ident!("{}", name);
            let key = &member.name;
            let doc = format!(" `{key}` (ordinal {}).", member.ordinal);
            quote! {
                #[doc = #doc]
                #[serde(rename = #key)]
                #variant,
            }
        });
        let doc = format!(
            " The members of the Pascal enumeration `{type_name}`, as their names on the wire; ordered as declared."
        );
        let derives = serde_derives();
        self.items.push(quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
            #derives
            pub enum #ident {
                #( #variants )*
            }
        });
        self.enums.push((members.to_vec(), ident.clone()));
        ident
    }
}

fn composite(owned: TokenStream, param: TokenStream, wire: Wire) -> Mapped {
    Mapped { param, owned, wire }
}

/// The smallest Rust integer type that holds `min..=max`.
fn integer(min: i128, max: i128) -> Option<TokenStream> {
    let fits = |lo: i128, hi: i128| min >= lo && max <= hi;
    if min >= 0 {
        if fits(0, u8::MAX.into()) {
            Some(quote!(u8))
        } else if fits(0, u16::MAX.into()) {
            Some(quote!(u16))
        } else if fits(0, u32::MAX.into()) {
            Some(quote!(u32))
        } else if fits(0, u64::MAX.into()) {
            Some(quote!(u64))
        } else {
            None
        }
    } else if fits(i8::MIN.into(), i8::MAX.into()) {
        Some(quote!(i8))
    } else if fits(i16::MIN.into(), i16::MAX.into()) {
        Some(quote!(i16))
    } else if fits(i32::MIN.into(), i32::MAX.into()) {
        Some(quote!(i32))
    } else if fits(i64::MIN.into(), i64::MAX.into()) {
        Some(quote!(i64))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_ranges_pick_the_smallest_type() {
        let ty = |min: i128, max: i128| integer(min, max).map(|t| t.to_string());
        assert_eq!(ty(0, 100).as_deref(), Some("u8"));
        assert_eq!(ty(-128, 127).as_deref(), Some("i8"));
        assert_eq!(ty(0, u64::MAX.into()).as_deref(), Some("u64"));
        assert_eq!(ty(i32::MIN.into(), i32::MAX.into()).as_deref(), Some("i32"));
        assert_eq!(ty(-1, u64::MAX.into()), None);
    }

    #[test]
    fn a_set_reuses_its_enumeration_and_types_are_made_once() {
        let members: Vec<EnumMemberEntry> = ["Red", "Green"]
            .iter()
            .enumerate()
            .map(|(i, n)| EnumMemberEntry {
                name: n.to_string(),
                ordinal: i as i64,
            })
            .collect();
        let color = ValueType::Enum {
            type_name: "TColor".into(),
            members: members.clone(),
        };
        let colors = ValueType::Set {
            type_name: "TColors".into(),
            members,
        };
        let mut set = TypeSet::new([&colors, &color].into_iter());
        let mapped = set.map(&colors, true).map(|m| m.owned.to_string());
        assert_eq!(
            mapped.as_deref(),
            Ok(":: delphi_mcp_runtime :: bind :: __private :: BTreeSet < TColor >")
        );
        assert!(set.map(&color, false).is_ok());
        assert_eq!(set.items.len(), 1);
        // Top-level enumerations stay strings.
        assert_eq!(
            set.map(&color, true)
                .map(|m| m.param.to_string())
                .as_deref(),
            Ok("& str")
        );
    }
}
