//! `delphi-mcp inspect` (not yet implemented).

use std::process::ExitCode;

/// Arguments of `delphi-mcp inspect`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs the command.
pub fn run(_args: Args) -> miette::Result<ExitCode> {
    Err(miette::miette!(
        "`delphi-mcp inspect` is not implemented yet"
    ))
}
