//! From parsed `bind!` arguments to the typed module: the manifest comes from a manifest file
//! or (feature `units`) from the units; the module is the same either way.

use crate::input::{BindInput, Source};
use crate::types::{TypeSet, Wire};
use delphi_mcp_manifest::naming::rust_identifier;
use delphi_mcp_manifest::{Manifest, ParamEntry, ToolEntry};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use syn::LitStr;

/// Set by the crate's own UI tests so that paths resolve against the test crate, not the
/// project trybuild generates.
const MANIFEST_DIR_OVERRIDE: &str = "DELPHI_MCP_MANIFEST_DIR_OVERRIDE";

/// Names of `Library`'s own items; a tool with one of these names gets `_tool` appended.
const RESERVED_METHODS: &[&str] = &["load", "bound", "manifest", "host"];

/// What the module is made from.
pub struct Bound {
    /// The manifest.
    pub manifest: Manifest,
    /// The expression of `MANIFEST`: the manifest text.
    pub manifest_text: TokenStream,
    /// Files the manifest was made from that the expansion does not include otherwise (the
    /// crate recompiles when one changes).
    pub tracked: Vec<String>,
}

fn manifest_dir() -> Result<PathBuf, syn::Error> {
    std::env::var_os(MANIFEST_DIR_OVERRIDE)
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"))
        .map(PathBuf::from)
        .ok_or_else(|| {
            syn::Error::new(
                Span::call_site(),
                "CARGO_MANIFEST_DIR is not set: bind! resolves paths against it",
            )
        })
}

/// Expands the macro.
pub fn expand(input: &BindInput) -> Result<TokenStream, syn::Error> {
    let base = manifest_dir()?;
    let bound = match &input.source {
        Source::Manifest(file) => bind_manifest_file(&base, file)?,
        Source::Units(units) => bind_units(&base, units, input)?,
    };
    let manifest = &bound.manifest;
    let module = match &input.module {
        Some(module) => module.clone(),
        None => syn::parse_str::<syn::Ident>(&rust_identifier(&manifest.name))?,
    };
    let body = module_body(&bound)?;
    let doc = format!(
        " Typed access to the Delphi library `{}` ({} tool{}), bound by `delphi_mcp_runtime::bind!`.",
        manifest.name,
        manifest.tools.len(),
        if manifest.tools.len() == 1 { "" } else { "s" }
    );
    Ok(quote! {
        #[doc = #doc]
        pub mod #module {
            #body
        }
    })
}

/// `manifest = "..."`: a manifest file written by `delphi-mcp gen`, compiled in with
/// `include_str!` (so a changed file recompiles the crate).
fn bind_manifest_file(base: &Path, file: &LitStr) -> Result<Bound, syn::Error> {
    let path = base.join(file.value());
    let text = std::fs::read(&path).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "not found (paths are relative to the crate's folder, CARGO_MANIFEST_DIR; `delphi-mcp gen` writes it)".to_string(),
            _ => format!("cannot be read: {e}"),
        };
        syn::Error::new(
            file.span(),
            format!("delphi-mcp: manifest file `{}` {why}", file.value()),
        )
    })?;
    let manifest = Manifest::from_json(&text).map_err(|e| {
        syn::Error::new(
            file.span(),
            format!(
                "delphi-mcp: `{}` is not a tool manifest this delphi-mcp can use: {e}; regenerate it with `delphi-mcp gen`",
                file.value()
            ),
        )
    })?;
    let path = path.display().to_string();
    Ok(Bound {
        manifest,
        manifest_text: quote!(::core::include_str!(#path)),
        tracked: Vec::new(),
    })
}

#[cfg(feature = "units")]
use crate::units::bind_units;

/// Without the feature `units`, unit paths are an error that says what to do instead.
#[cfg(not(feature = "units"))]
fn bind_units(_: &Path, units: &[LitStr], _: &BindInput) -> Result<Bound, syn::Error> {
    let span = units.first().map_or_else(Span::call_site, LitStr::span);
    Err(syn::Error::new(
        span,
        "delphi-mcp: bind! reads Delphi units only with the feature `bind-units` of delphi-mcp-runtime (`units` of delphi-mcp-macros); without it, write the manifest with `delphi-mcp gen` and bind that: bind!(manifest = \"delphi/generated/tools.json\", module = ...)",
    ))
}

fn module_body(bound: &Bound) -> Result<TokenStream, syn::Error> {
    let Bound {
        manifest,
        manifest_text,
        tracked,
    } = bound;
    let mut used: HashSet<String> = RESERVED_METHODS.iter().map(|s| s.to_string()).collect();
    let mut types = TypeSet::new(manifest.tools.iter().flat_map(|tool| {
        let delphi = &tool.delphi;
        delphi
            .params
            .iter()
            .map(|p| &p.ty)
            .chain(delphi.result.iter())
            .chain(delphi.outputs.iter().map(|o| &o.ty))
    }));
    let mut methods = Vec::new();
    for tool in &manifest.tools {
        let mut name = rust_identifier(&tool.name);
        if RESERVED_METHODS.contains(&name.as_str()) {
            name.push_str("_tool");
        }
        let mut unique = name.clone();
        let mut counter = 2;
        while !used.insert(unique.clone()) {
            unique = format!("{name}_{counter}");
            counter += 1;
        }
        methods.push(method(tool, &unique, &mut types)?);
    }
    let type_items = &types.items;
    let library_name = &manifest.name;
    let load_doc = format!(
        " Loads the compiled library `{library_name}` at `path` (checking its ABI version and that its embedded manifest equals [`MANIFEST`]) and initialises it on its library thread."
    );
    Ok(quote! {
        /// The tool manifest (`tools.json`) compiled into this program.
        pub const MANIFEST: &str = #manifest_text;

        // Recompile when a unit or include changes.
        #( const _: &[u8] = ::core::include_bytes!(#tracked); )*

        pub use ::delphi_mcp_runtime::bind::__private::{BindError, ToolError};

        #( #type_items )*

        /// The loaded library; one method per tool. Calls block until the library thread has
        /// run them.
        #[derive(Debug, Clone)]
        pub struct Library {
            bound: ::delphi_mcp_runtime::bind::__private::BoundLibrary,
        }

        impl Library {
            #[doc = #load_doc]
            pub fn load(path: impl ::core::convert::AsRef<::std::path::Path>) -> ::core::result::Result<Library, BindError> {
                ::delphi_mcp_runtime::bind::__private::BoundLibrary::load(path.as_ref(), MANIFEST)
                    .map(|bound| Library { bound })
            }

            /// The loaded library (its runtime host serves it over MCP too).
            pub fn bound(&self) -> &::delphi_mcp_runtime::bind::__private::BoundLibrary {
                &self.bound
            }

            #( #methods )*
        }
    })
}

fn method(
    tool: &ToolEntry,
    method_name: &str,
    types: &mut TypeSet,
) -> Result<TokenStream, syn::Error> {
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
    let private = quote!(::delphi_mcp_runtime::bind::__private);
    let tool_name = &tool.name;
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
    } in tool
        .delphi
        .params
        .iter()
        .filter(|p| p.ty != delphi_mcp_manifest::ValueType::Context)
    {
        let mapped = types.map(ty, true).map_err(|why| {
            unsupported(format!(
                "parameter `{name}: {delphi_type}` has no Rust type ({why})"
            ))
        })?;
        let mut local = rust_identifier(name);
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
        let rust_ty = &mapped.param;
        let value = quote!(value);
        let json = match mapped.wire {
            Wire::Scalar => quote!(#private::Value::from(#value)),
            Wire::Serde => quote!(#private::to_argument(#tool_name, #value)?),
            Wire::Base64 => quote!(#private::ToBase64Wire::to_wire(#value)),
        };
        if *optional {
            params.push(quote!(#local: ::core::option::Option<#rust_ty>));
            inserts.push(quote! {
                if let ::core::option::Option::Some(value) = #local {
                    __delphi_mcp_arguments.insert(#name.to_string(), #json);
                }
            });
        } else {
            params.push(quote!(#local: #rust_ty));
            inserts.push(quote! {
                let value = #local;
                __delphi_mcp_arguments.insert(#name.to_string(), #json);
            });
        }
    }
    if tool.delphi.json_arguments {
        // A JSON handler takes the arguments object its input schema describes.
        params.push(quote!(arguments: #private::Map<::std::string::String, #private::Value>));
        inserts.push(quote!(__delphi_mcp_arguments = arguments;));
        param_docs.push_str("\n - `arguments`: the JSON object the tool's input schema describes");
    }
    let (result_ty, wire) = if tool.delphi.outputs.is_empty() {
        match &tool.delphi.result {
            None => (quote!(()), Wire::Scalar),
            Some(ty) => {
                let mapped = types
                    .map(ty, true)
                    .map_err(|why| unsupported(format!("the result has no Rust type ({why})")))?;
                (mapped.owned, mapped.wire)
            }
        }
    } else {
        // With `var`/`out` parameters the result is a struct: `result` and each of them.
        (
            output_struct(tool, method_name, types).map_err(unsupported)?,
            Wire::Serde,
        )
    };
    let convert = match wire {
        Wire::Scalar => quote!(<#result_ty as #private::FromResult>::from_result),
        Wire::Serde => quote!(#private::from_json_result::<#result_ty>),
        Wire::Base64 => quote!(#private::from_base64_result::<#result_ty>),
    };
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
            let mut __delphi_mcp_arguments = #private::Map::new();
            #( #inserts )*
            let __delphi_mcp_result = self.bound.call(#tool_name, __delphi_mcp_arguments)?;
            #convert(#tool_name, __delphi_mcp_result)
        }
    })
}

/// The struct a tool with `var`/`out` parameters answers: `result` (functions) and each of
/// them, under their JSON keys. The error says which value has no Rust type.
fn output_struct(
    tool: &ToolEntry,
    method_name: &str,
    types: &mut TypeSet,
) -> Result<TokenStream, String> {
    let mut used = HashSet::new();
    let mut fields = Vec::new();
    if let Some(ty) = &tool.delphi.result {
        let mapped = types
            .map(ty, true)
            .map_err(|why| format!("the result has no Rust type ({why})"))?;
        fields.push(types.field("result", Some("The function's result."), &mapped, &mut used));
    }
    for output in &tool.delphi.outputs {
        let mapped = types.map(&output.ty, true).map_err(|why| {
            format!(
                "`{}: {}` has no Rust type ({why})",
                output.name, output.delphi_type
            )
        })?;
        let description = format!(
            "The `var`/`out` parameter `{}` after the call.",
            output.name
        );
        fields.push(types.field(&output.name, Some(&description), &mapped, &mut used));
    }
    let ident = types.unique(&format!("{method_name}_output"));
    let doc = format!(
        " What tool `{}` answers: the values of its `var`/`out` parameters after the call{}.",
        tool.name,
        if tool.delphi.result.is_some() {
            " beside its result"
        } else {
            ""
        }
    );
    types.push_struct(&ident, &doc, &fields);
    Ok(quote!(#ident))
}
