//! `delphi-mcp build`: generate the stubs of a project folder, then compile its library with
//! Free Pascal (`delphi_mcp_codegen::project` describes the layout). The library's path goes to
//! stdout, notes and diagnostics to stderr.

use crate::cmd::common::{build_project, GenerateArgs, SourceArgs};
use delphi_mcp_codegen::project::{ProjectBuild, DEFAULT_FPC};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `delphi-mcp build`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project folder.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Name of the library (default: the project file's, else the first unit's name).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// The Free Pascal compiler to run.
    #[arg(long, value_name = "FPC", default_value = DEFAULT_FPC)]
    pub fpc: String,
    /// How to read the units.
    #[command(flatten)]
    pub source: SourceArgs,
    /// How to generate from them.
    #[command(flatten)]
    pub generate: GenerateArgs,
}

/// Runs the command.
pub fn run(args: Args) -> miette::Result<ExitCode> {
    let library = build_project(&ProjectBuild {
        dir: args.dir,
        name: args.name,
        options: args.source.parse_options(),
        model: args.generate.model_options(),
        fpc: args.fpc,
    })?;
    println!("{}", library.display());
    Ok(ExitCode::SUCCESS)
}
