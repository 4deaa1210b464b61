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
    #[command(about = cmd::serve::ABOUT)]
    Serve(cmd::serve::Args),
    /// Print the snippet that registers a server with an MCP client.
    Config(cmd::config::Args),
    /// Scaffold a Rust crate that serves a Delphi library over MCP (with Rust tools of its own).
    New(cmd::new::Args),
    /// A worker process of `serve --isolate` (started by the server, not by people).
    #[command(hide = true, about = cmd::worker::ABOUT)]
    Worker(cmd::worker::Args),
}

impl Cli {
    /// Parses `args` (program name first) without exiting on an error.
    pub fn try_parse_from_args(args: &[std::ffi::OsString]) -> Result<Cli, clap::Error> {
        Cli::try_parse_alone(args).unwrap_or_else(|| Cli::try_parse_from(args))
    }

    /// Parses a `serve` (or `worker`) command line with a parser of that command alone:
    /// building the parser of every command is about 0.1 M instructions and 0.2 ms of a
    /// server's start (docs/performance.md, "What a start waits for"). `None` for any other
    /// command. Help, usage and errors are those of the whole parser (a test compares them).
    fn try_parse_alone(args: &[std::ffi::OsString]) -> Option<Result<Cli, clap::Error>> {
        use clap::{Args as _, FromArgMatches as _};
        let command = match args.get(1)?.to_str()? {
            "serve" => {
                cmd::serve::Args::augment_args(clap::Command::new("serve")).about(cmd::serve::ABOUT)
            }
            "worker" => cmd::worker::Args::augment_args(clap::Command::new("worker"))
                .about(cmd::worker::ABOUT)
                .hide(true),
            _ => return None,
        };
        let parser = clap::Command::new("delphi-mcp").subcommand(command);
        Some(
            parser
                .try_get_matches_from(args)
                .and_then(|matches| Cli::from_arg_matches(&matches)),
        )
    }
}

/// Runs the command line `args` (the first item is the program name).
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    let cli = Cli::try_parse_from_args(&args).unwrap_or_else(|error| error.exit());
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `serve` parsed alone reads, helps and fails exactly as the whole parser.
    #[test]
    fn serve_alone_parses_as_the_whole_parser() {
        let lines: &[&[&str]] = &[
            &["serve", "lib.so"],
            &[
                "serve",
                "lib.so",
                "--http",
                "127.0.0.1:0",
                "--threads",
                "2",
                "--isolate",
            ],
            &[
                "serve",
                "folder",
                "--log-level",
                "debug",
                "-D",
                "X",
                "--busy-poll",
                "0",
            ],
            &["serve", "--help"],
            &["serve", "-h"],
            &["serve"],
            &["serve", "--version"],
            &["serve", "lib.so", "--bogus"],
            &["serve", "lib.so", "--threads", "many"],
            &["serve", "lib.so", "--allow-origin", "http://x"],
            &["serve", "lib.so", "extra"],
            &["worker", "lib.so"],
            &["worker", "--help"],
            &["worker"],
        ];
        for line in lines {
            let args: Vec<std::ffi::OsString> = std::iter::once("delphi-mcp")
                .chain(line.iter().copied())
                .map(Into::into)
                .collect();
            let alone = Cli::try_parse_alone(&args).expect("a serve line");
            let whole = Cli::try_parse_from(&args);
            match (alone, whole) {
                (Ok(alone), Ok(whole)) => {
                    assert_eq!(format!("{alone:?}"), format!("{whole:?}"), "{line:?}")
                }
                (Err(alone), Err(whole)) => {
                    assert_eq!(alone.kind(), whole.kind(), "{line:?}");
                    assert_eq!(
                        alone.render().to_string(),
                        whole.render().to_string(),
                        "{line:?}"
                    );
                }
                (alone, whole) => panic!("{line:?}: alone {alone:?}, whole {whole:?}"),
            }
        }
        for other in ["inspect", "servers", "--help"] {
            let args: Vec<std::ffi::OsString> = vec!["delphi-mcp".into(), other.into()];
            assert!(Cli::try_parse_alone(&args).is_none(), "{other}");
        }
    }
}
