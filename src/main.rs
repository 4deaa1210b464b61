//! `delphi-mcp`: see the crate documentation of the library part.

fn main() -> std::process::ExitCode {
    delphi_mcp::run(std::env::args_os())
}
