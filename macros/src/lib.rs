//! The `bind!` proc-macro of delphi-mcp: typed Rust access to a Delphi library from its
//! annotated units. Use it through the `delphi-mcp` crate (`delphi_mcp::bind!`), which holds
//! the runtime the expansion calls.
//!
//! The macro reads the units with the same front end as the command line
//! (`delphi_mcp_codegen::builder::generate_units`), so it accepts exactly what `delphi-mcp gen`
//! accepts; every diagnostic becomes one compile error at the macro call, quoting the Pascal
//! file:line:col and the reason.

#![warn(missing_docs)]

mod expand;
mod input;

use proc_macro::TokenStream;

/// Binds the tools of annotated Delphi units as a typed Rust module.
///
/// ```ignore
/// delphi_mcp::bind!("delphi/CalcModule.pas", name = "Calc");
/// let calc = calc::Library::load("build/libCalc.so")?;
/// let sum: i64 = calc.calc_add_integers(2, 3)?;
/// ```
///
/// Arguments: one or more unit paths (relative to the calling crate's `CARGO_MANIFEST_DIR`),
/// then optional `name = "..."` (library name, default: the first unit's), `target = "..."`
/// (default `delphi12-win64`), `define = "SYM"`, `undefine = "SYM"`, `include = "dir"`
/// (repeatable), `codepage = N`, and `module = ident` (default: the library name in snake case).
#[proc_macro]
pub fn bind(tokens: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(tokens as input::BindInput);
    match expand::expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}
