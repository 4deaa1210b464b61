//! The `bind!` proc-macro of delphi-mcp: typed Rust access to a Delphi library. Use it through
//! the runtime (`delphi_mcp_runtime::bind!`, feature `macros`), which holds the code the
//! expansion calls (`delphi_mcp_runtime::bind`).
//!
//! Two ways to get the tool manifest:
//!
//! - `bind!(manifest = "delphi/generated/tools.json", module = calc)` reads a manifest file that
//!   `delphi-mcp gen` wrote; it needs only the contract crate `delphi-mcp-manifest`;
//! - `bind!("delphi/Calc.pas", name = "Calc")` (feature `units`, on by default; `bind-units` of
//!   the runtime) reads the units with the same front end as the command line
//!   (`delphi_mcp_codegen::frontend::generate_units`), so it accepts exactly what `delphi-mcp
//!   gen` accepts; every diagnostic becomes one compile error at the macro call, quoting the
//!   Pascal file:line:col and the reason.
//!
//! Both give the same module: one method per tool, and a Rust type per record, per enumeration
//! inside a composite value or set, and per tool with `var`/`out` parameters (`types`), each
//! deriving serde's traits through the runtime's re-export.

#![warn(missing_docs)]

mod expand;
mod input;
mod types;
#[cfg(feature = "units")]
mod units;

use proc_macro::TokenStream;

/// Binds the tools of a Delphi library as a typed Rust module.
///
/// ```ignore
/// delphi_mcp_runtime::bind!(manifest = "delphi/generated/tools.json", module = calc);
/// let calc = calc::Library::load("build/libCalc.so")?;
/// let sum: i64 = calc.calc_add_integers(2, 3)?;
/// ```
///
/// Arguments, with paths relative to the calling crate's `CARGO_MANIFEST_DIR`: either
/// `manifest = "..."`, a manifest file written by `delphi-mcp gen`; or (feature `units`) one or
/// more unit paths, then optional `name = "..."` (library name, default: the first unit's),
/// `target = "..."` (default `delphi12-win64`), `define = "SYM"`, `undefine = "SYM"`,
/// `include = "dir"` (repeatable), `codepage = N` and `naming = "camelCase"` (as `--naming`:
/// `asDeclared`, `camelCase` or `snake_case`). Then, in both modes, `module = ident`
/// (default: the library name in snake case).
#[proc_macro]
pub fn bind(tokens: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(tokens as input::BindInput);
    match expand::expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(error) => error.to_compile_error().into(),
    }
}
