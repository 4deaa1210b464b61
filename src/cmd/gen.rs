//! `delphi-mcp gen`: write the manifest, the Pascal stubs and the support units into a folder.

use crate::cmd::common::{report, GenerateArgs, SourceArgs};
use delphi_mcp_codegen::frontend;
use miette::IntoDiagnostic;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `delphi-mcp gen`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Unit files, or folders whose `*.pas` files are read.
    #[arg(required = true, value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Folder the generated files go to (created when missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Name of the library in the manifest (default: the first unit's name).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Write nothing; exit with 1 and name each file that would change (for CI builds).
    #[arg(long)]
    pub check: bool,
    /// How to read the units.
    #[command(flatten)]
    pub source: SourceArgs,
    /// How to generate from them.
    #[command(flatten)]
    pub generate: GenerateArgs,
}

/// `n thing` or `n things`.
fn count(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// Runs the command.
pub fn run(args: Args) -> miette::Result<ExitCode> {
    let options = args.source.parse_options();
    let run = frontend::generate_units(
        &args.paths,
        &options,
        args.name.as_deref(),
        args.generate.model_options(),
    )
    .into_diagnostic()?;
    report(&run);
    let Some(generated) = run.output else {
        return Ok(ExitCode::FAILURE);
    };
    if args.check {
        let changed = frontend::changed_files(&args.out, &generated.files);
        if changed.is_empty() {
            eprintln!("{} is up to date", args.out.display());
            return Ok(ExitCode::SUCCESS);
        }
        for path in &changed {
            eprintln!("would change: {}", path.display());
        }
        eprintln!("run `delphi-mcp gen` without --check to update them");
        return Ok(ExitCode::FAILURE);
    }
    let written = frontend::write_changed(&args.out, &generated.files).into_diagnostic()?;
    eprintln!(
        "{} into {} ({} updated)",
        count(generated.manifest.tools.len(), "tool"),
        args.out.display(),
        count(written.len(), "file")
    );
    Ok(ExitCode::SUCCESS)
}
