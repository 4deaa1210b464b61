//! `delphi-mcp serve`: load a library and serve its tools over MCP on stdio.

use crate::cmd::common::SourceArgs;
use delphi_mcp_runtime::mcp::McpServer;
use delphi_mcp_runtime::{HostOptions, LibraryDispatch, LibraryHost};
use miette::IntoDiagnostic;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Arguments of `delphi-mcp serve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The library built with the generated stubs (`.so`, `.dll`, `.dylib`), or a project
    /// folder (built first with `delphi-mcp build` when its library is missing or stale).
    #[arg(value_name = "TARGET")]
    pub path: PathBuf,
    /// Tool manifest to use; when the library embeds one too, both must agree.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Server name announced to clients (default: the manifest's name).
    #[arg(long)]
    pub name: Option<String>,
    /// Log level of the messages written to stderr: error, warn, info, debug, trace.
    #[arg(long, value_name = "L", default_value = "info")]
    pub log_level: String,
    /// Library threads. More than 1 only for libraries exporting `mcp_thread_safe` (returning
    /// 1); answers may then come out of request order.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub threads: usize,
    /// The Free Pascal compiler used to build a project folder.
    #[arg(long, value_name = "FPC", default_value = "fpc")]
    pub fpc: String,
    /// How to read the units of a project folder.
    #[command(flatten)]
    pub source: SourceArgs,
}

/// Sets up `tracing` on stderr; stdout carries protocol only.
fn init_logging(level: &str) -> miette::Result<()> {
    // rmcp logs every notification at info; keep it at warn unless debugging.
    let directives = match level {
        "info" | "warn" => format!("{level},rmcp=warn"),
        other => other.to_string(),
    };
    let filter = tracing_subscriber::EnvFilter::try_new(&directives)
        .map_err(|e| miette::miette!("invalid --log-level {level:?}: {e}"))?;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
    Ok(())
}

/// Finds the library to serve: the file itself, or a project folder built (when stale) first.
fn library_for(args: &Args) -> miette::Result<PathBuf> {
    let target = &args.path;
    if target.is_dir() {
        // Build notes go to stderr; stdout stays free for the protocol.
        return crate::cmd::build::build_project(target, None, &args.source, &args.fpc);
    }
    if !target.exists() {
        return Err(miette::miette!("{} does not exist", target.display()));
    }
    Ok(target.to_path_buf())
}

/// Runs the command.
pub fn run(args: Args) -> miette::Result<ExitCode> {
    init_logging(&args.log_level)?;
    let library = library_for(&args)?;
    // Before the library loads: from here on, anything written to fd 1 goes to stderr.
    let output = delphi_mcp_runtime::stdio::take_protocol_stdout().into_diagnostic()?;
    let options = HostOptions {
        manifest_file: args.manifest.clone(),
        threads: args.threads,
    };
    let host = Arc::new(LibraryHost::open(&library, &options).into_diagnostic()?);
    let dispatch = LibraryDispatch::new(Arc::clone(&host), args.name.clone());
    tracing::info!(
        library = %host.path().display(),
        tools = host.manifest().tools.len(),
        "serving MCP on stdio"
    );
    let sequential = host.threads() == 1;
    delphi_mcp_runtime::stdio::serve_stdio(McpServer::new(Arc::new(dispatch)), sequential, output)
        .into_diagnostic()?;
    Ok(ExitCode::SUCCESS)
}
