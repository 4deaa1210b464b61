//! `delphi-mcp manifest` (not yet implemented).

use std::process::ExitCode;

/// Arguments of `delphi-mcp manifest`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs the command.
pub fn run(_args: Args) -> miette::Result<ExitCode> {
    Err(miette::miette!(
        "`delphi-mcp manifest` is not implemented yet"
    ))
}
