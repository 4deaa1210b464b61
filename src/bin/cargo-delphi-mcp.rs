//! `cargo delphi-mcp ...`: cargo passes `delphi-mcp` as the first argument; drop it.

fn main() -> std::process::ExitCode {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "delphi-mcp") {
        args.remove(1);
    }
    delphi_mcp::run(args)
}
