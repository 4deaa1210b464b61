//! `delphi-mcp worker`: a worker process of `serve --isolate` (hidden from `--help`). It loads
//! the library and runs the calls the server frames on its stdin; see
//! `delphi_mcp_runtime::host::isolated`.

use std::ffi::OsString;
use std::process::ExitCode;

/// What `delphi-mcp worker` is, as its help says.
pub const ABOUT: &str =
    "A worker process of `serve --isolate` (started by the server, not by people)";

/// Arguments of `delphi-mcp worker`, parsed by the runtime: `LIBRARY [--manifest FILE]
/// [--max-result-bytes N]`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// What the server passes.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub args: Vec<OsString>,
}

/// Runs the worker until the server closes its stdin.
pub fn run(args: Args) -> ExitCode {
    delphi_mcp_runtime::host::isolated::run_worker(args.args)
}
