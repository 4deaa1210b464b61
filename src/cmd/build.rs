//! `delphi-mcp build` (not yet implemented).

use std::process::ExitCode;

/// Arguments of `delphi-mcp build`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs the command.
pub fn run(_args: Args) -> miette::Result<ExitCode> {
    Err(miette::miette!("`delphi-mcp build` is not implemented yet"))
}
