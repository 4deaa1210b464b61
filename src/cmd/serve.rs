//! `delphi-mcp serve`: load a library (in process, or isolated in worker processes) and serve
//! its tools over MCP on stdio or HTTP.

use crate::cmd::common::{build_project, GenerateArgs, SourceArgs};
use delphi_mcp_codegen::project::{ProjectBuild, DEFAULT_FPC};
use delphi_mcp_runtime::host::{self, CancelPolicy, IsolationOptions, ToolHost};
use delphi_mcp_runtime::mcp::McpServer;
use delphi_mcp_runtime::{HostOptions, LibraryDispatch};
use miette::{Context as _, IntoDiagnostic};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// What `delphi-mcp serve` does, as its help says.
pub const ABOUT: &str = "Serve a library's tools over MCP (stdio by default)";

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
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        conflicts_with = "isolate"
    )]
    pub threads: usize,
    /// Run the library in worker processes: a tool that ends or crashes its process, or
    /// passes its deadline, gets an error and the worker is restarted.
    #[arg(long)]
    pub isolate: bool,
    /// With --isolate: worker processes serving calls in parallel, one library thread each
    /// (each with its own globals).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "isolate", value_parser = clap::value_parser!(u16).range(1..))]
    pub workers: u16,
    /// Longest time a call may take, queueing included, in seconds (0: none). Past it the
    /// call gets a tool error; isolated, its worker is killed and restarted.
    #[arg(long, value_name = "SECS", default_value_t = host::DEFAULT_CALL_TIMEOUT.as_secs())]
    pub call_timeout: u64,
    /// With --isolate: what a client's cancellation does to a running call: `abandon` (it
    /// finishes, its result is dropped) or `restart` (its worker is killed and restarted).
    #[arg(
        long,
        value_name = "POLICY",
        default_value = "abandon",
        requires = "isolate"
    )]
    pub on_cancel: CancelPolicy,
    /// How long, in microseconds, a thread waiting for the next request keeps looking for it
    /// (yielding its CPU) before it sleeps: the library thread, and with --isolate the workers
    /// and their readers (0: sleep at once). Saves the wake-up of a sleeping thread when
    /// requests follow each other closely; a thread polls only while its waits end within it.
    /// Over stdio the library thread reading stdin also measures whether polling or sleeping at
    /// once brings the client's next line sooner, and keeps the faster.
    #[arg(long, value_name = "MICROS", default_value_t = host::busy_poll::DEFAULT_BUSY_POLL.as_micros() as u64)]
    pub busy_poll: u64,
    /// Largest string a tool may return (result or error message), in bytes; longer ones
    /// are a tool error.
    #[arg(long, value_name = "BYTES", default_value_t = host::DEFAULT_MAX_RESULT_BYTES)]
    pub max_result_bytes: usize,
    /// Send clients "internal error" instead of the class and message of an exception (other
    /// than EMcpToolError, whose message is meant for them); the details go to the log.
    #[arg(long)]
    pub hide_exceptions: bool,
    /// Markdown help documents to serve (resources help://NAME and the help_list/help_read
    /// tools) besides those of the manifest: files, or folders of `.md` files; repeatable.
    #[arg(long, value_name = "PATH")]
    pub help_docs: Vec<PathBuf>,
    /// The Free Pascal compiler used to build a project folder.
    #[arg(long, value_name = "FPC", default_value = DEFAULT_FPC)]
    pub fpc: String,
    /// How to read the units of a project folder.
    #[command(flatten)]
    pub source: SourceArgs,
    /// How to generate from them.
    #[command(flatten)]
    pub generate: GenerateArgs,
    /// Serve Streamable HTTP instead of stdio, on ADDR (default 127.0.0.1:8765; `PORT`,
    /// `IP`, `IP:PORT`, `localhost:PORT`; port 0 picks a free port). The endpoint is /mcp,
    /// the status page /.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8765")]
    pub http: Option<String>,
    /// HTTP: file holding the Bearer token; created with a new token (mode 0600) when absent.
    /// Without it the token comes from DELPHI_MCP_TOKEN or is generated at each start.
    #[arg(long, value_name = "PATH", requires = "http")]
    pub token_file: Option<PathBuf>,
    /// HTTP: no authentication. Only allowed on a loopback address.
    #[arg(long, requires = "http", conflicts_with = "token_file")]
    pub no_auth: bool,
    /// HTTP: also accept requests from this browser origin (`scheme://host[:port]`, or `null`);
    /// repeatable. The server's own origin is always accepted.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    pub allow_origin: Vec<String>,
    /// HTTP: largest request body in bytes (larger bodies get 413).
    #[arg(long, value_name = "BYTES", default_value_t = delphi_mcp_runtime::http::DEFAULT_MAX_BODY)]
    pub max_body: usize,
    /// HTTP: request timeout in seconds (0: none); a request running longer gets 504.
    #[arg(long, value_name = "SECS", default_value_t = delphi_mcp_runtime::http::DEFAULT_TIMEOUT.as_secs())]
    pub timeout: u64,
    /// HTTP: requests in progress at most; more get 503 with a JSON-RPC "busy" error.
    #[arg(long, value_name = "N", default_value_t = delphi_mcp_runtime::http::DEFAULT_MAX_CONCURRENT)]
    pub max_concurrent: usize,
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
        let library = build_project(&ProjectBuild {
            dir: target.clone(),
            name: None,
            options: args.source.parse_options(),
            model: args.generate.model_options(),
            fpc: args.fpc.clone(),
        });
        // The parser's and the generator's memory is free now; the allocator would keep it
        // for the life of the server.
        // SAFETY: mimalloc is the global allocator (src/main.rs); collecting is always safe.
        unsafe { libmimalloc_sys::mi_collect(true) };
        return library;
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
        call_timeout: (args.call_timeout > 0).then(|| Duration::from_secs(args.call_timeout)),
        max_result_bytes: args.max_result_bytes,
        busy_poll: Duration::from_micros(args.busy_poll),
    };
    let isolation = match args.isolate {
        false => None,
        true => Some(IsolationOptions {
            on_cancel: args.on_cancel,
            ..IsolationOptions::current_exe(usize::from(args.workers), "worker")
                .into_diagnostic()?
        }),
    };
    if let Some(addr) = &args.http {
        let host = host::open_host(&library, &options, isolation.as_ref()).into_diagnostic()?;
        let dispatch = dispatch_for(&args, &host)?;
        return serve_http(&args, addr, host.as_ref(), dispatch);
    }
    // The transport is set up while the library thread runs `mcp_init`.
    let (host, transport) = host::open_host_while(&library, &options, isolation.as_ref(), || {
        delphi_mcp_runtime::stdio::StdioTransport::open(output)
    })
    .into_diagnostic()?;
    let transport = transport.into_diagnostic()?;
    let dispatch = dispatch_for(&args, &host)?;
    tracing::info!(
        library = %host.path().display(),
        tools = host.manifest().tools.len(),
        "serving MCP on stdio"
    );
    let sequential = host.state().library_threads == 1;
    transport
        .serve(McpServer::new(Arc::new(dispatch)), sequential)
        .into_diagnostic()?;
    Ok(ExitCode::SUCCESS)
}

/// The dispatcher of `host`'s tools, with the options of `args`.
fn dispatch_for(args: &Args, host: &Arc<dyn ToolHost>) -> miette::Result<LibraryDispatch> {
    Ok(LibraryDispatch::new(Arc::clone(host), args.name.clone())
        .hide_exceptions(args.hide_exceptions)
        .with_help_documents(read_help_documents(&args.help_docs)?))
}

/// Serves `dispatch` over Streamable HTTP (`--http`).
fn serve_http(
    args: &Args,
    addr: &str,
    host: &dyn ToolHost,
    dispatch: LibraryDispatch,
) -> miette::Result<ExitCode> {
    use delphi_mcp_runtime::http;
    let options = http::HttpOptions {
        addr: http::parse_addr(addr).into_diagnostic()?,
        auth: if args.no_auth {
            http::AuthMode::None
        } else {
            http::AuthMode::Token {
                token_file: args.token_file.clone(),
            }
        },
        allowed_origins: args.allow_origin.clone(),
        max_body: args.max_body,
        timeout: (args.timeout > 0).then(|| std::time::Duration::from_secs(args.timeout)),
        max_concurrent: args.max_concurrent,
    };
    let library = http::LibraryInfo {
        path: host.path().display().to_string(),
        abi_version: host.manifest().abi_version,
        manifest_sha256: host.manifest_sha256().to_string(),
        threads: host.state().library_threads,
    };
    if args.timeout > 0 && args.call_timeout >= args.timeout {
        tracing::warn!(
            call_timeout = args.call_timeout,
            timeout = args.timeout,
            "--call-timeout is not below --timeout: a call running that long gets the HTTP timeout (504) before its own deadline's tool error"
        );
    }
    tracing::info!(
        library = %host.path().display(),
        tools = host.manifest().tools.len(),
        "serving MCP over HTTP"
    );
    http::serve_http(Arc::new(dispatch), Some(library), options).into_diagnostic()?;
    Ok(ExitCode::SUCCESS)
}

/// The help documents of `--help-docs`: each file, and the `.md` files of each folder.
fn read_help_documents(
    paths: &[PathBuf],
) -> miette::Result<Vec<delphi_mcp_manifest::documents::HelpDocumentEntry>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let entries = std::fs::read_dir(path)
                .into_diagnostic()
                .wrap_err_with(|| format!("cannot read the folder {}", path.display()))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("md")))
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    files
        .iter()
        .map(|file| {
            let text = std::fs::read_to_string(file)
                .into_diagnostic()
                .wrap_err_with(|| format!("cannot read the help document {}", file.display()))?;
            let stem = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            delphi_mcp_manifest::documents::parse_help(&stem, &text)
                .map_err(|e| miette::miette!("{}:{}: {}", file.display(), e.line, e.message))
        })
        .collect()
}
