//! The arguments of `bind!`.

use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitInt, LitStr, Token};

/// Parsed `bind!` arguments.
pub struct BindInput {
    /// Unit paths as written.
    pub units: Vec<LitStr>,
    /// `name = "..."`.
    pub name: Option<LitStr>,
    /// `target = "..."`.
    pub target: Option<LitStr>,
    /// `define = "..."` (repeatable).
    pub defines: Vec<LitStr>,
    /// `undefine = "..."` (repeatable).
    pub undefines: Vec<LitStr>,
    /// `include = "..."` (repeatable).
    pub includes: Vec<LitStr>,
    /// `codepage = N`.
    pub codepage: Option<LitInt>,
    /// `module = ident`.
    pub module: Option<Ident>,
}

impl Parse for BindInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut parsed = BindInput {
            units: Vec::new(),
            name: None,
            target: None,
            defines: Vec::new(),
            undefines: Vec::new(),
            includes: Vec::new(),
            codepage: None,
            module: None,
        };
        while !input.is_empty() {
            if input.peek(LitStr) {
                if parsed.name.is_some() || parsed.target.is_some() || parsed.module.is_some() {
                    return Err(input.error("unit paths come before the options"));
                }
                parsed.units.push(input.parse()?);
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
                    "name" => {
                        once(parsed.name.is_some())?;
                        parsed.name = Some(input.parse()?);
                    }
                    "target" => {
                        once(parsed.target.is_some())?;
                        parsed.target = Some(input.parse()?);
                    }
                    "codepage" => {
                        once(parsed.codepage.is_some())?;
                        parsed.codepage = Some(input.parse()?);
                    }
                    "module" => {
                        once(parsed.module.is_some())?;
                        parsed.module = Some(input.parse()?);
                    }
                    "define" => parsed.defines.push(input.parse()?),
                    "undefine" => parsed.undefines.push(input.parse()?),
                    "include" => parsed.includes.push(input.parse()?),
                    other => {
                        return Err(syn::Error::new(
                            key.span(),
                            format!("unknown option `{other}`; expected one of: name, target, define, undefine, include, codepage, module"),
                        ))
                    }
                }
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        if parsed.units.is_empty() {
            return Err(
                input.error("bind! needs at least one unit path, e.g. bind!(\"delphi/Calc.pas\")")
            );
        }
        Ok(parsed)
    }
}
