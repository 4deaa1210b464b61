//! The `delphi-mcp` command line, shared by the `delphi-mcp` and `cargo-delphi-mcp` binaries:
//! argument parsing ([`Cli`]) and the commands ([`cmd`]), which call the library crates
//! (`delphi-mcp-codegen`, `delphi-mcp-runtime`). Rust programs use those crates directly; the
//! `bind!` macro is `delphi_mcp_runtime::bind!`.

#![warn(missing_docs)]

use clap::{Parser, Subcommand};
use std::process::ExitCode;

pub mod allocator;
pub mod cmd;

/// Serve annotated Delphi code to AI assistants over the Model Context Protocol.
#[derive(Debug, Parser)]
#[command(name = "delphi-mcp", version, about, long_about = None)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Parse units and print what was found (declarations, attributes, diagnostics).
    Inspect(cmd::inspect::Args),
    /// Write the tool manifest (tools.json) of annotated units.
    Manifest(cmd::manifest::Args),
    /// Generate the manifest and the Pascal export stubs into a folder.
    Gen(cmd::gen::Args),
    /// Generate, then compile a project folder into a library with Free Pascal.
    Build(cmd::build::Args),
    /// Serve a library's tools over MCP (stdio by default).
    Serve(cmd::serve::Args),
    /// Print the snippet that registers a server with an MCP client.
    Config(cmd::config::Args),
    /// Scaffold a Rust crate that serves a Delphi library over MCP (with Rust tools of its own).
    New(cmd::new::Args),
    /// A worker process of `serve --isolate` (started by the server, not by people).
    #[command(hide = true)]
    Worker(cmd::worker::Args),
}

impl Cli {
    /// Parses `args` (program name first) without exiting on an error.
    pub fn try_parse_from_args(args: &[std::ffi::OsString]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(args)
    }
}

/// Runs the command line `args` (the first item is the program name).
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = Cli::parse_from(args);
    let outcome = match cli.command {
        Command::Inspect(args) => cmd::inspect::run(args),
        Command::Manifest(args) => cmd::manifest::run(args),
        Command::Gen(args) => cmd::gen::run(args),
        Command::Build(args) => cmd::build::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Config(args) => cmd::config::run(args),
        Command::New(args) => cmd::new::run(args),
        Command::Worker(args) => return cmd::worker::run(args),
    };
    match outcome {
        Ok(code) => code,
        Err(report) => {
            eprintln!("{report:?}");
            ExitCode::FAILURE
        }
    }
}
