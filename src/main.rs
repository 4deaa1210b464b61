//! `delphi-mcp`: see the crate documentation of the library part.

// Parsing makes many small allocations (names, types, spans); mimalloc serves them at about a
// quarter of the system allocator's cost (docs/performance.md; `delphi_mcp_parser::alloc` says
// why it is called directly). It does not replace `malloc` for the Pascal libraries the
// server loads.
#[global_allocator]
static GLOBAL: delphi_mcp_parser::alloc::MiMalloc = delphi_mcp_parser::alloc::MiMalloc;

// mimalloc's options are read when it first allocates, which the Rust runtime does before
// `main`: set them in a constructor.
#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static CONFIGURE_ALLOCATOR: extern "C" fn() = delphi_mcp::allocator::configure;

fn main() -> std::process::ExitCode {
    delphi_mcp::cmd::init_error_reports();
    delphi_mcp::run(std::env::args_os())
}
