//! `delphi-mcp manifest`: print (or write) the tool manifest of annotated units.

use crate::cmd::common::SourceArgs;
use crate::cmd::gen::{library_name, load_units, report};
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
}

/// Runs the command.
pub fn run(args: Args) -> miette::Result<ExitCode> {
    let loaded = load_units(&args.paths, &args.source)?;
    let name = library_name(args.name.as_deref(), &loaded);
    let outcome =
        delphi_mcp_codegen::manifest_of(&loaded.db, &loaded.inputs(), &args.source.target, &name);
    let mut diagnostics = loaded.diagnostics.clone();
    diagnostics.extend(outcome.diagnostics);
    let failed = report(&loaded.db, &diagnostics);
    let Some(manifest) = outcome.output.filter(|_| !failed) else {
        return Ok(ExitCode::FAILURE);
    };
    let text = delphi_mcp_codegen::schema::manifest_json(&manifest);
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
