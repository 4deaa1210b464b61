//! From parsed `bind!` arguments to the typed module.

use crate::input::BindInput;
use delphi_mcp_codegen::builder::generate_units;
use delphi_mcp_codegen::manifest::{Manifest, NumberRepr, ParamEntry, ToolEntry, ValueType};
use delphi_mcp_parser::ParseOptions;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use std::collections::HashSet;
use std::path::PathBuf;

/// Set by the crate's own UI tests so that paths resolve against the test crate, not the
/// project trybuild generates.
const MANIFEST_DIR_OVERRIDE: &str = "DELPHI_MCP_MANIFEST_DIR_OVERRIDE";

/// Names of `Library`'s own items; a tool with one of these names gets `_tool` appended.
const RESERVED_METHODS: &[&str] = &["load", "bound", "manifest", "host"];

fn manifest_dir() -> Result<PathBuf, syn::Error> {
    std::env::var_os(MANIFEST_DIR_OVERRIDE)
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"))
        .map(PathBuf::from)
        .ok_or_else(|| {
            syn::Error::new(
                Span::call_site(),
                "CARGO_MANIFEST_DIR is not set: bind! resolves unit paths against it",
            )
        })
}

/// Expands the macro.
pub fn expand(input: &BindInput) -> Result<TokenStream, syn::Error> {
    let base = manifest_dir()?;
    let mut files = Vec::new();
    for unit in &input.units {
        let path = base.join(unit.value());
        if !path.is_file() {
            return Err(syn::Error::new(
                unit.span(),
                format!(
                    "delphi-mcp: unit file `{}` not found (paths are relative to the crate's folder, CARGO_MANIFEST_DIR)",
                    unit.value()
                ),
            ));
        }
        files.push(path);
    }
    let defaults = ParseOptions::default();
    let options = ParseOptions {
        target: input
            .target
            .as_ref()
            .map_or(defaults.target.clone(), |t| t.value()),
        defines: input.defines.iter().map(|d| d.value()).collect(),
        undefines: input.undefines.iter().map(|d| d.value()).collect(),
        include_dirs: input
            .includes
            .iter()
            .map(|d| base.join(d.value()))
            .collect(),
        codepage: match &input.codepage {
            Some(literal) => literal.base10_parse()?,
            None => defaults.codepage,
        },
    };
    let name = input.name.as_ref().map(|n| n.value());
    let first_unit = input.units[0].span();
    let run = generate_units(&files, &options, name.as_deref())
        .map_err(|e| syn::Error::new(first_unit, format!("delphi-mcp: {e}")))?;
    let files_read: Vec<String> = run
        .loaded
        .files_read()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let errors = run.diagnostics.iter().filter(|d| d.is_error()).count();
    let generated = match run.output {
        Some(generated) if errors == 0 => generated,
        _ => {
            let rendered = run.loaded.render(&run.diagnostics);
            let prefix = format!("{}{}", base.display(), std::path::MAIN_SEPARATOR);
            let rendered = rendered.replace(&prefix, "");
            let errors = errors.max(1);
            return Err(syn::Error::new(
                Span::call_site(),
                format!(
                    "delphi-mcp: {errors} error{} in the Delphi units\n{}",
                    if errors == 1 { "" } else { "s" },
                    rendered.trim_end()
                ),
            ));
        }
    };
    let manifest_text = generated
        .files
        .get(delphi_mcp_codegen::MANIFEST_FILE)
        .cloned()
        .unwrap_or_default();
    let module = match &input.module {
        Some(module) => module.clone(),
        None => syn::parse_str::<syn::Ident>(&rust_name(&snake_case(&generated.manifest.name)))?,
    };
    let body = module_body(&generated.manifest, &manifest_text, &files_read)?;
    let doc = format!(
        " Typed access to the Delphi library `{}` ({} tool{}), bound by `delphi_mcp::bind!`.",
        generated.manifest.name,
        generated.manifest.tools.len(),
        if generated.manifest.tools.len() == 1 {
            ""
        } else {
            "s"
        }
    );
    Ok(quote! {
        #[doc = #doc]
        pub mod #module {
            #body
        }
    })
}

fn module_body(
    manifest: &Manifest,
    manifest_text: &str,
    files_read: &[String],
) -> Result<TokenStream, syn::Error> {
    let mut used: HashSet<String> = RESERVED_METHODS.iter().map(|s| s.to_string()).collect();
    let mut methods = Vec::new();
    for tool in &manifest.tools {
        let mut name = rust_name(&snake_case(&tool.name));
        if RESERVED_METHODS.contains(&name.as_str()) {
            name.push_str("_tool");
        }
        let mut unique = name.clone();
        let mut counter = 2;
        while !used.insert(unique.clone()) {
            unique = format!("{name}_{counter}");
            counter += 1;
        }
        methods.push(method(tool, &unique)?);
    }
    let library_name = &manifest.name;
    let load_doc = format!(
        " Loads the compiled library `{library_name}` at `path` (checking its ABI version and that its embedded manifest equals [`MANIFEST`]) and initialises it on its library thread."
    );
    Ok(quote! {
        /// The tool manifest (`tools.json`) compiled into this program.
        pub const MANIFEST: &str = #manifest_text;

        // Recompile when a unit or include changes.
        #( const _: &[u8] = include_bytes!(#files_read); )*

        pub use ::delphi_mcp::__private::{BindError, ToolError};

        /// The loaded library; one method per tool. Calls block until the library thread has
        /// run them.
        #[derive(Debug, Clone)]
        pub struct Library {
            bound: ::delphi_mcp::__private::BoundLibrary,
        }

        impl Library {
            #[doc = #load_doc]
            pub fn load(path: impl ::core::convert::AsRef<::std::path::Path>) -> ::core::result::Result<Library, BindError> {
                ::delphi_mcp::__private::BoundLibrary::load(path.as_ref(), MANIFEST)
                    .map(|bound| Library { bound })
            }

            /// The loaded library (its runtime host serves it over MCP too).
            pub fn bound(&self) -> &::delphi_mcp::__private::BoundLibrary {
                &self.bound
            }

            #( #methods )*
        }
    })
}

/// The Rust type of a value type: (parameter type, result type).
fn rust_types(ty: &ValueType) -> Option<(TokenStream, TokenStream)> {
    let same = |t: TokenStream| Some((t.clone(), t));
    match ty {
        ValueType::Integer { min, max } => {
            let (min, max) = (*min, *max);
            let fits = |lo: i128, hi: i128| min >= lo && max <= hi;
            if min >= 0 {
                if fits(0, u8::MAX.into()) {
                    same(quote!(u8))
                } else if fits(0, u16::MAX.into()) {
                    same(quote!(u16))
                } else if fits(0, u32::MAX.into()) {
                    same(quote!(u32))
                } else if fits(0, u64::MAX.into()) {
                    same(quote!(u64))
                } else {
                    None
                }
            } else if fits(i8::MIN.into(), i8::MAX.into()) {
                same(quote!(i8))
            } else if fits(i16::MIN.into(), i16::MAX.into()) {
                same(quote!(i16))
            } else if fits(i32::MIN.into(), i32::MAX.into()) {
                same(quote!(i32))
            } else if fits(i64::MIN.into(), i64::MAX.into()) {
                same(quote!(i64))
            } else {
                None
            }
        }
        ValueType::Number {
            repr: NumberRepr::Single,
        } => same(quote!(f32)),
        ValueType::Number { .. } => same(quote!(f64)),
        ValueType::Boolean => same(quote!(bool)),
        ValueType::String { .. }
        | ValueType::Char { .. }
        | ValueType::DateTime { .. }
        | ValueType::Enum { .. } => Some((quote!(&str), quote!(::std::string::String))),
    }
}

fn method(tool: &ToolEntry, method_name: &str) -> Result<TokenStream, syn::Error> {
    let source = &tool.delphi.source;
    let unsupported = |what: String| {
        syn::Error::new(
            Span::call_site(),
            format!(
                "delphi-mcp: tool `{}` ({}:{}:{}): {what}",
                tool.name, source.file, source.line, source.column
            ),
        )
    };
    let mut params = Vec::new();
    let mut inserts = Vec::new();
    let mut param_docs = String::new();
    let mut used = HashSet::new();
    for ParamEntry {
        name,
        delphi_type,
        ty,
        optional,
        ..
    } in &tool.delphi.params
    {
        let (rust_ty, _) = rust_types(ty).ok_or_else(|| {
            unsupported(format!(
                "parameter `{name}: {delphi_type}` has no Rust type (range beyond 64 bits)"
            ))
        })?;
        let mut local = rust_name(&snake_case(name));
        while !used.insert(local.clone()) {
            local.push('_');
        }
        let local = syn::parse_str::<syn::Ident>(&local)
            .map_err(|e| unsupported(format!("parameter `{name}`: {e}")))?;
        param_docs.push_str(&format!(
            "\n - `{}`: Pascal `{name}: {delphi_type}`{}",
            local.to_string().trim_start_matches("r#"),
            if *optional {
                " (optional: `None` passes the declared default)"
            } else {
                ""
            }
        ));
        if *optional {
            params.push(quote!(#local: ::core::option::Option<#rust_ty>));
            inserts.push(quote! {
                if let ::core::option::Option::Some(value) = #local {
                    __delphi_mcp_arguments.insert(#name.to_string(), ::delphi_mcp::__private::Value::from(value));
                }
            });
        } else {
            params.push(quote!(#local: #rust_ty));
            inserts.push(quote! {
                __delphi_mcp_arguments.insert(#name.to_string(), ::delphi_mcp::__private::Value::from(#local));
            });
        }
    }
    let result_ty = match &tool.delphi.result {
        None => quote!(()),
        Some(ty) => {
            rust_types(ty)
                .ok_or_else(|| unsupported("the result has no Rust type".to_string()))?
                .1
        }
    };
    let tool_name = &tool.name;
    let doc = format!(
        " {}\n\n Tool `{}`: Pascal `{}` ({}:{}).{}{}",
        tool.description.replace('\n', "\n "),
        tool.name,
        tool.delphi.routine,
        source.file,
        source.line,
        if param_docs.is_empty() {
            ""
        } else {
            "\n\n Parameters:"
        },
        param_docs
    );
    let ident = syn::parse_str::<syn::Ident>(method_name)
        .map_err(|e| unsupported(format!("no Rust method name: {e}")))?;
    Ok(quote! {
        #[doc = #doc]
        #[allow(clippy::too_many_arguments)]
        pub fn #ident(&self, #( #params ),*) -> ::core::result::Result<#result_ty, ToolError> {
            #[allow(unused_mut)]
            let mut __delphi_mcp_arguments = ::delphi_mcp::__private::Map::new();
            #( #inserts )*
            let __delphi_mcp_result = self.bound.call(#tool_name, __delphi_mcp_arguments)?;
            <#result_ty as ::delphi_mcp::__private::FromResult>::from_result(#tool_name, __delphi_mcp_result)
        }
    })
}

/// `AllowZero` → `allow_zero`, `HTTPServer` → `http_server`, `add-numbers` → `add_numbers`.
fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (index, &c) in chars.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && index > 0 {
                let previous = chars[index - 1];
                let next_lower = chars.get(index + 1).is_some_and(|n| n.is_ascii_lowercase());
                if (previous.is_ascii_lowercase() || previous.is_ascii_digit())
                    || (previous.is_ascii_uppercase() && next_lower)
                {
                    out.push('_');
                }
            }
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out
}

/// A valid Rust identifier for `name`: keywords become raw identifiers, names that cannot be
/// raw get `_` appended, names starting with a digit get `_` prepended.
fn rust_name(name: &str) -> String {
    let mut name = if name.is_empty() {
        "_tool".to_string()
    } else {
        name.to_string()
    };
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    if matches!(name.as_str(), "self" | "super" | "crate" | "_") {
        return format!("{name}_");
    }
    if syn::parse_str::<syn::Ident>(&name).is_err() {
        return format!("r#{name}");
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_rust_identifiers() {
        assert_eq!(snake_case("AllowZero"), "allow_zero");
        assert_eq!(snake_case("HTTPServer"), "http_server");
        assert_eq!(snake_case("add-numbers.v2"), "add_numbers_v2");
        assert_eq!(rust_name("type"), "r#type");
        assert_eq!(rust_name("self"), "self_");
        assert_eq!(rust_name("1st"), "_1st");
    }

    #[test]
    fn integer_ranges_pick_the_smallest_type() {
        let ty = |min: i128, max: i128| {
            rust_types(&ValueType::Integer { min, max })
                .map(|(t, _)| t.to_string())
                .unwrap_or_default()
        };
        assert_eq!(ty(0, 100), "u8");
        assert_eq!(ty(-128, 127), "i8");
        assert_eq!(ty(0, u64::MAX.into()), "u64");
        assert_eq!(ty(i32::MIN.into(), i32::MAX.into()), "i32");
        assert_eq!(ty(-1, u64::MAX.into()), "");
    }
}
