//! Options and output shared by the commands that read Pascal sources.

use delphi_mcp_codegen::frontend::Run;
use delphi_mcp_codegen::model::ModelOptions;
use delphi_mcp_codegen::project::{self, ProjectBuild, ProjectError};
use delphi_mcp_manifest::naming::ArgumentNaming;
use delphi_mcp_parser::target::DEFAULT_TARGET;
use delphi_mcp_parser::ParseOptions;
use miette::IntoDiagnostic;
use std::path::PathBuf;

/// How to read the units: symbols, include folders, compiler target, code page.
#[derive(Debug, Clone, clap::Args)]
pub struct SourceArgs {
    /// Define a conditional symbol (repeatable).
    #[arg(short = 'D', long = "define", value_name = "SYM")]
    pub defines: Vec<String>,
    /// Undefine a conditional symbol, also a predefined one (repeatable).
    #[arg(short = 'U', long = "undefine", value_name = "SYM")]
    pub undefines: Vec<String>,
    /// Folder searched for `{$I file}` includes (repeatable).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// Compiler whose predefined symbols apply: delphi12-win64 (default), delphi12-win32,
    /// delphi12-linux64, fpc-linux64, ... (an unknown name lists the known ones).
    #[arg(long, value_name = "TARGET", default_value = DEFAULT_TARGET)]
    pub target: String,
    /// Code page of files without a BOM that are not valid UTF-8 (default 1252).
    #[arg(long, value_name = "N")]
    pub codepage: Option<u16>,
}

/// How to generate from the units (`manifest`, `gen`, `build`, `serve DIR`; not `inspect`,
/// which shows the parser's view).
#[derive(Debug, Clone, clap::Args)]
pub struct GenerateArgs {
    /// How argument names are made from Pascal names where no [McpName] or [McpNaming]
    /// applies: as-declared (default), camel-case or snake-case.
    // The brackets are Pascal attributes in the `--help` text, not links.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long, value_name = "POLICY", value_parser = parse_naming)]
    pub naming: Option<ArgumentNaming>,
}

fn parse_naming(text: &str) -> Result<ArgumentNaming, String> {
    ArgumentNaming::parse(text)
        .ok_or_else(|| "expected as-declared, camel-case or snake-case".to_string())
}

impl SourceArgs {
    /// The parser options these arguments select.
    pub fn parse_options(&self) -> ParseOptions {
        let defaults = ParseOptions::default();
        ParseOptions {
            target: self.target.clone(),
            defines: self.defines.clone(),
            undefines: self.undefines.clone(),
            include_dirs: self.include_dirs.clone(),
            codepage: self.codepage.unwrap_or(defaults.codepage),
        }
    }
}

impl GenerateArgs {
    /// The generator options these arguments select.
    pub fn model_options(&self) -> ModelOptions {
        ModelOptions {
            naming: self.naming.unwrap_or_default(),
        }
    }
}

/// Prints the diagnostics of `run` on stderr, then the number of errors when there are any
/// (the run then has no output).
pub fn report<T>(run: &Run<T>) {
    eprint!("{}", run.rendered());
    if run.failed() {
        print_error_count(run.errors().max(1));
    }
}

fn print_error_count(errors: usize) {
    eprintln!(
        "error: {errors} error{} found; nothing was generated",
        if errors == 1 { "" } else { "s" }
    );
}

/// Builds a project folder (`build`, `serve DIR`): its notes, the diagnostics of its units and
/// the compiler's output go to stderr; returns the library's path.
pub fn build_project(build: &ProjectBuild) -> miette::Result<PathBuf> {
    match project::build_project(build) {
        Ok(built) => {
            for note in &built.notes {
                eprintln!("{note}");
            }
            Ok(built.library)
        }
        Err(error) => {
            match &error {
                ProjectError::Diagnostics {
                    errors, rendered, ..
                } => {
                    eprint!("{rendered}");
                    print_error_count(*errors);
                }
                ProjectError::FpcFailed { output, .. } => eprint!("{output}"),
                _ => {}
            }
            Err(error).into_diagnostic()
        }
    }
}
