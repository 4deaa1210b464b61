//! `bind!("delphi/Calc.pas", ...)`: the manifest of annotated units, generated at compile time
//! with the same front end as `delphi-mcp gen` (feature `units`).

use crate::expand::Bound;
use crate::input::BindInput;
use delphi_mcp_codegen::frontend::generate_units;
use delphi_mcp_codegen::model::ModelOptions;
use delphi_mcp_manifest::naming::ArgumentNaming;
use delphi_mcp_parser::ParseOptions;
use proc_macro2::Span;
use quote::quote;
use std::path::Path;
use syn::LitStr;

/// Reads `units` (relative to `base`) with the options of `input`.
pub fn bind_units(base: &Path, units: &[LitStr], input: &BindInput) -> Result<Bound, syn::Error> {
    let mut files = Vec::new();
    for unit in units {
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
    let mut model = ModelOptions::default();
    if let Some(naming) = &input.naming {
        model.naming = ArgumentNaming::parse(&naming.value()).ok_or_else(|| {
            let known: Vec<&str> = ArgumentNaming::NAMES.iter().map(|(n, _)| *n).collect();
            syn::Error::new(
                naming.span(),
                format!(
                    "delphi-mcp: unknown naming policy `{}`; expected one of: {}",
                    naming.value(),
                    known.join(", ")
                ),
            )
        })?;
    }
    let name = input.name.as_ref().map(|n| n.value());
    let first_unit = units.first().map_or_else(Span::call_site, LitStr::span);
    let run = generate_units(&files, &options, name.as_deref(), model)
        .map_err(|e| syn::Error::new(first_unit, format!("delphi-mcp: {e}")))?;
    let tracked: Vec<String> = run
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
    let text = generated
        .files
        .get(delphi_mcp_codegen::MANIFEST_FILE)
        .cloned()
        .unwrap_or_default();
    Ok(Bound {
        manifest: generated.manifest,
        manifest_text: quote!(#text),
        tracked,
    })
}
