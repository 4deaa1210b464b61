//! The arguments of `bind!`.

use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitInt, LitStr, Token};

/// Where the manifest comes from.
pub enum Source {
    /// Unit paths as written: the units are read (feature `units`).
    Units(Vec<LitStr>),
    /// `manifest = "..."`: a manifest file written by `delphi-mcp gen`.
    Manifest(LitStr),
}

/// Parsed `bind!` arguments.
pub struct BindInput {
    /// The units or the manifest file.
    pub source: Source,
    /// `name = "..."` (units only).
    pub name: Option<LitStr>,
    /// `target = "..."` (units only).
    pub target: Option<LitStr>,
    /// `define = "..."` (repeatable; units only).
    pub defines: Vec<LitStr>,
    /// `undefine = "..."` (repeatable; units only).
    pub undefines: Vec<LitStr>,
    /// `include = "..."` (repeatable; units only).
    pub includes: Vec<LitStr>,
    /// `codepage = N` (units only).
    pub codepage: Option<LitInt>,
    /// `naming = "camelCase"` (units only).
    pub naming: Option<LitStr>,
    /// `module = ident`.
    pub module: Option<Ident>,
}

const OPTIONS: &str = "manifest, name, target, define, undefine, include, codepage, naming, module";

impl Parse for BindInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut units = Vec::new();
        let mut manifest: Option<LitStr> = None;
        // Options that only mean something when units are read, in order.
        let mut unit_options: Vec<Ident> = Vec::new();
        let mut parsed = BindInput {
            source: Source::Units(Vec::new()),
            name: None,
            target: None,
            defines: Vec::new(),
            undefines: Vec::new(),
            includes: Vec::new(),
            codepage: None,
            naming: None,
            module: None,
        };
        while !input.is_empty() {
            if input.peek(LitStr) {
                if parsed.name.is_some() || parsed.target.is_some() || parsed.module.is_some() {
                    return Err(input.error("unit paths come before the options"));
                }
                units.push(input.parse()?);
            } else {
                let key: Ident = input.parse()?;
                input.parse::<Token![=]>()?;
                let once = |given: bool| {
                    if given {
                        Err(syn::Error::new(
                            key.span(),
                            format!("`{key}` is given twice"),
                        ))
                    } else {
                        Ok(())
                    }
                };
                match key.to_string().as_str() {
                    "manifest" => {
                        once(manifest.is_some())?;
                        manifest = Some(input.parse()?);
                    }
                    "module" => {
                        once(parsed.module.is_some())?;
                        parsed.module = Some(input.parse()?);
                    }
                    "name" => {
                        once(parsed.name.is_some())?;
                        parsed.name = Some(input.parse()?);
                        unit_options.push(key);
                    }
                    "target" => {
                        once(parsed.target.is_some())?;
                        parsed.target = Some(input.parse()?);
                        unit_options.push(key);
                    }
                    "codepage" => {
                        once(parsed.codepage.is_some())?;
                        parsed.codepage = Some(input.parse()?);
                        unit_options.push(key);
                    }
                    "naming" => {
                        once(parsed.naming.is_some())?;
                        parsed.naming = Some(input.parse()?);
                        unit_options.push(key);
                    }
                    "define" => {
                        parsed.defines.push(input.parse()?);
                        unit_options.push(key);
                    }
                    "undefine" => {
                        parsed.undefines.push(input.parse()?);
                        unit_options.push(key);
                    }
                    "include" => {
                        parsed.includes.push(input.parse()?);
                        unit_options.push(key);
                    }
                    other => {
                        return Err(syn::Error::new(
                            key.span(),
                            format!("unknown option `{other}`; expected one of: {OPTIONS}"),
                        ))
                    }
                }
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        parsed.source = match (manifest, units.first()) {
            (Some(manifest), None) => {
                if let Some(key) = unit_options.first() {
                    return Err(syn::Error::new(
                        key.span(),
                        format!("`{key}` applies to Delphi units; a manifest file already holds the library's name, target and tools"),
                    ));
                }
                Source::Manifest(manifest)
            }
            (Some(manifest), Some(_)) => {
                return Err(syn::Error::new(
                    manifest.span(),
                    "bind! reads either unit paths or `manifest = \"...\"`, not both",
                ))
            }
            (None, Some(_)) => Source::Units(units),
            (None, None) => {
                return Err(input.error(
                    "bind! needs a manifest file or unit paths, e.g. bind!(manifest = \"delphi/generated/tools.json\") or bind!(\"delphi/Calc.pas\")",
                ))
            }
        };
        Ok(parsed)
    }
}
