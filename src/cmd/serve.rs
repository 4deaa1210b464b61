//! `delphi-mcp serve` (not yet implemented).

use std::process::ExitCode;

/// Arguments of `delphi-mcp serve`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs the command.
pub fn run(_args: Args) -> miette::Result<ExitCode> {
    Err(miette::miette!("`delphi-mcp serve` is not implemented yet"))
}
