//! `delphi-mcp config` (not yet implemented).

use std::process::ExitCode;

/// Arguments of `delphi-mcp config`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs the command.
pub fn run(_args: Args) -> miette::Result<ExitCode> {
    Err(miette::miette!(
        "`delphi-mcp config` is not implemented yet"
    ))
}
