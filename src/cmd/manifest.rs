//! `delphi-mcp manifest`: print (or write) the tool manifest of annotated units.

use crate::cmd::common::{report, GenerateArgs, SourceArgs};
use delphi_mcp_codegen::{frontend, schema};
use miette::IntoDiagnostic;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `delphi-mcp manifest`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Unit files, or folders whose `*.pas` files are read.
    #[arg(required = true, value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Write the manifest to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Name of the library in the manifest (default: the first unit's name).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// How to read the units.
    #[command(flatten)]
    pub source: SourceArgs,
    /// How to generate from them.
    #[command(flatten)]
    pub generate: GenerateArgs,
}

/// Runs the command.
pub fn run(args: Args) -> miette::Result<ExitCode> {
    let options = args.source.parse_options();
    let run = frontend::manifest_units(
        &args.paths,
        &options,
        args.name.as_deref(),
        args.generate.model_options(),
    )
    .into_diagnostic()?;
    report(&run);
    let Some(manifest) = run.output else {
        return Ok(ExitCode::FAILURE);
    };
    let text = schema::manifest_json(&manifest);
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .into_diagnostic()
            .map_err(|e| e.context(format!("writing {}", path.display())))?,
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .into_diagnostic()?,
    }
    Ok(ExitCode::SUCCESS)
}
