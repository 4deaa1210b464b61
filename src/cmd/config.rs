//! `delphi-mcp config`: print what registers a server with an MCP client.

use miette::IntoDiagnostic;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The MCP clients `config` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    /// Claude Code: a `claude mcp add` command line.
    ClaudeCode,
    /// Claude Desktop: a `claude_desktop_config.json` snippet.
    ClaudeDesktop,
    /// VS Code: a `.vscode/mcp.json` snippet.
    Vscode,
}

/// Arguments of `delphi-mcp config`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The client to configure.
    #[arg(value_enum)]
    pub client: Client,
    /// The library (or project folder) to serve.
    pub target: PathBuf,
    /// Server name (default: the library's file name without `lib` prefix and extension).
    #[arg(long)]
    pub name: Option<String>,
    /// Manifest file passed on to `serve --manifest`.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
}

/// The server name derived from a target path.
pub fn default_name(target: &Path) -> String {
    let stem = if target.is_dir() {
        target.file_name()
    } else {
        target.file_stem()
    };
    let stem = stem
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "delphi".into());
    let stem = if !target.is_dir() && stem.len() > 3 && stem.starts_with("lib") {
        stem[3..].to_string()
    } else {
        stem
    };
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if name.is_empty() {
        "delphi".into()
    } else {
        name
    }
}

/// Quotes an argument for the shell the user is likely to paste into.
fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/\\:._-=".contains(c));
    if plain {
        arg.to_string()
    } else if cfg!(windows) {
        format!("\"{}\"", arg.replace('"', "\\\""))
    } else {
        format!("'{}'", arg.replace('\'', "'\\''"))
    }
}

/// Renders the snippet for `client`: `command` started with `args`.
pub fn render(client: Client, name: &str, command: &str, args: &[String]) -> String {
    match client {
        Client::ClaudeCode => {
            let mut line = format!(
                "claude mcp add --transport stdio {} -- {}",
                shell_quote(name),
                shell_quote(command)
            );
            for arg in args {
                line.push(' ');
                line.push_str(&shell_quote(arg));
            }
            line
        }
        Client::ClaudeDesktop => {
            let value = json!({"mcpServers": {name: {"command": command, "args": args}}});
            serde_json::to_string_pretty(&value).unwrap_or_default()
        }
        Client::Vscode => {
            let value =
                json!({"servers": {name: {"type": "stdio", "command": command, "args": args}}});
            serde_json::to_string_pretty(&value).unwrap_or_default()
        }
    }
}

/// Runs the command.
pub fn run(args: Args) -> miette::Result<ExitCode> {
    if !args.target.exists() {
        return Err(miette::miette!("{} does not exist", args.target.display()));
    }
    let target = std::path::absolute(&args.target).into_diagnostic()?;
    let exe = std::env::current_exe().into_diagnostic()?;
    let name = args.name.clone().unwrap_or_else(|| default_name(&target));
    let mut serve_args = vec!["serve".to_string(), target.display().to_string()];
    if let Some(manifest) = &args.manifest {
        let manifest = std::path::absolute(manifest).into_diagnostic()?;
        serve_args.push("--manifest".into());
        serve_args.push(manifest.display().to_string());
    }
    println!(
        "{}",
        render(args.client, &name, &exe.display().to_string(), &serve_args)
    );
    let hint = match args.client {
        Client::ClaudeCode => "Run it in your project; check with `claude mcp list`.",
        Client::ClaudeDesktop => {
            "Merge it into claude_desktop_config.json, then restart Claude Desktop."
        }
        Client::Vscode => "Merge it into .vscode/mcp.json of your workspace.",
    };
    eprintln!("{hint}");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_backslashes_are_doubled_in_json() {
        let text = render(
            Client::ClaudeDesktop,
            "calc",
            r"C:\Tools\delphi-mcp.exe",
            &["serve".into(), r"C:\Projects\Calc\Calc.dll".into()],
        );
        assert!(
            text.contains(r#""command": "C:\\Tools\\delphi-mcp.exe""#),
            "{text}"
        );
        assert!(text.contains(r#""C:\\Projects\\Calc\\Calc.dll""#), "{text}");
        let vscode = render(Client::Vscode, "calc", r"C:\x.exe", &["serve".into()]);
        assert!(
            vscode.contains(r#""type": "stdio""#) && vscode.contains(r"C:\\x.exe"),
            "{vscode}"
        );
    }

    #[test]
    fn claude_code_line_quotes_spaces() {
        let line = render(
            Client::ClaudeCode,
            "calc",
            "/opt/delphi mcp/delphi-mcp",
            &["serve".into(), "/p/libcalc.so".into()],
        );
        assert!(
            line.starts_with("claude mcp add --transport stdio calc -- "),
            "{line}"
        );
        assert!(
            line.contains("delphi mcp/delphi-mcp") && line.ends_with("serve /p/libcalc.so"),
            "{line}"
        );
    }

    #[test]
    fn names_come_from_the_file() {
        assert_eq!(default_name(Path::new("/x/libcalc.so")), "calc");
        assert_eq!(default_name(Path::new("/x/Calc.dll")), "Calc");
    }
}
