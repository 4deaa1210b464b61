//! `cargo delphi-mcp ...`: cargo passes `delphi-mcp` as the first argument; drop it. Given no
//! paths, `manifest`, `gen` and `build` read `[package.metadata.delphi-mcp]` of the package in
//! the current folder (`docs/rust.md`).

// Parsing makes many small allocations (names, types, spans); mimalloc serves them at about a
// quarter of the system allocator's cost (docs/performance.md; `delphi_mcp_parser::alloc` says
// why it is called directly). It does not replace `malloc` for the Pascal libraries the
// server loads.
#[global_allocator]
static GLOBAL: delphi_mcp_parser::alloc::MiMalloc = delphi_mcp_parser::alloc::MiMalloc;

fn main() -> std::process::ExitCode {
    delphi_mcp::cmd::init_error_reports();
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "delphi-mcp") {
        args.remove(1);
    }
    match delphi_mcp::cmd::cargo_meta::complete(args) {
        Ok(args) => delphi_mcp::run(args),
        Err(report) => {
            eprintln!("{report:?}");
            std::process::ExitCode::FAILURE
        }
    }
}
