//! `delphi-mcp new`: scaffold a Rust crate that serves a Delphi library over MCP, from the
//! templates in `templates/rust-server/`. The crate binds the units with `delphi_mcp::bind!`,
//! loads the library and serves it over stdio, with a place for Rust tools of its own.

use miette::{miette, IntoDiagnostic};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const CARGO_TEMPLATE: &str = include_str!("../../templates/rust-server/Cargo.toml.j2");
const MAIN_TEMPLATE: &str = include_str!("../../templates/rust-server/main.rs.j2");
const README_TEMPLATE: &str = include_str!("../../templates/rust-server/README.md.j2");

/// Folder of the new crate that the units are copied to.
pub const UNITS_DIR: &str = "delphi";

/// Arguments of `delphi-mcp new`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Folder of the new crate (must not exist, or be empty).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Annotated unit to bind (repeatable); copied into DIR/delphi/.
    #[arg(long = "unit", value_name = "PATH", required = true)]
    pub units: Vec<PathBuf>,
    /// Library name in the manifest (default: the first unit's file name); must be the name the
    /// library was built with.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Compiler target the units are read for.
    #[arg(long, value_name = "TARGET", default_value = "delphi12-win64")]
    pub target: String,
    /// Depend on delphi-mcp through this path (a checkout) instead of a crates.io version.
    #[arg(long, value_name = "DIR")]
    pub delphi_mcp_path: Option<PathBuf>,
}

/// `my-Server 2` → `my_server_2`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (index, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && index > 0 && !out.ends_with('_') {
            let previous = name.chars().nth(index - 1).unwrap_or('_');
            if previous.is_ascii_lowercase() || previous.is_ascii_digit() {
                out.push('_');
            }
        }
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_').to_string();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("lib_{out}")
    } else {
        out
    }
}

/// Writes the crate; returns the files written.
pub fn scaffold(args: &Args) -> miette::Result<Vec<PathBuf>> {
    if args.dir.exists()
        && std::fs::read_dir(&args.dir)
            .into_diagnostic()?
            .next()
            .is_some()
    {
        return Err(miette!(
            "{} exists and is not empty; choose a new folder",
            args.dir.display()
        ));
    }
    let mut unit_names = Vec::new();
    for unit in &args.units {
        if !unit.is_file() {
            return Err(miette!("unit {} not found", unit.display()));
        }
        let file_name = unit
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| miette!("{} has no usable file name", unit.display()))?;
        if unit_names.iter().any(|n: &String| n == file_name) {
            return Err(miette!("two units are named {file_name}"));
        }
        unit_names.push(file_name.to_string());
    }
    let library_name = args.name.clone().unwrap_or_else(|| {
        args.units[0]
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "Tools".into())
    });
    let crate_dir_name = args
        .dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| library_name.clone());
    let crate_name = snake(&crate_dir_name).replace('_', "-");
    let dependency = match &args.delphi_mcp_path {
        Some(path) => {
            let absolute = std::path::absolute(path).into_diagnostic()?;
            format!(
                "delphi-mcp = {{ path = {} }}",
                toml_string(&absolute.to_string_lossy())
            )
        }
        None => format!("delphi-mcp = \"{}\"", env!("CARGO_PKG_VERSION")),
    };
    let units: Vec<String> = unit_names
        .iter()
        .map(|n| format!("{UNITS_DIR}/{n}"))
        .collect();
    let module_name = snake(&library_name);
    let context = minijinja::context! {
        crate_name => crate_name,
        library_name => library_name,
        module => module_name,
        units => units,
        target => args.target.clone(),
        delphi_mcp_dependency => dependency,
    };
    let mut env = minijinja::Environment::new();
    env.set_syntax(
        minijinja::syntax::SyntaxConfig::builder()
            .keep_trailing_newline(true)
            .build()
            .map_err(|e| miette!("template syntax: {e}"))?,
    );
    let render = |template: &str| {
        env.render_str(template, &context)
            .map_err(|e| miette!("rendering the crate template: {e}"))
    };
    let files = [
        (PathBuf::from("Cargo.toml"), render(CARGO_TEMPLATE)?),
        (PathBuf::from("src/main.rs"), render(MAIN_TEMPLATE)?),
        (PathBuf::from("README.md"), render(README_TEMPLATE)?),
        (PathBuf::from(".gitignore"), "/target\n".to_string()),
    ];
    let mut written = Vec::new();
    for (relative, text) in files {
        let path = args.dir.join(relative);
        write(&path, text.as_bytes())?;
        written.push(path);
    }
    for (unit, name) in args.units.iter().zip(&unit_names) {
        let bytes = std::fs::read(unit)
            .into_diagnostic()
            .map_err(|e| e.context(format!("reading {}", unit.display())))?;
        let path = args.dir.join(UNITS_DIR).join(name);
        write(&path, &bytes)?;
        written.push(path);
    }
    Ok(written)
}

fn write(path: &Path, bytes: &[u8]) -> miette::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .into_diagnostic()
            .map_err(|e| e.context(format!("creating {}", parent.display())))?;
    }
    std::fs::write(path, bytes)
        .into_diagnostic()
        .map_err(|e| e.context(format!("writing {}", path.display())))
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    let mut out = String::from('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Runs the command.
pub fn run(args: Args) -> miette::Result<ExitCode> {
    let written = scaffold(&args)?;
    eprintln!(
        "created {} ({} files); build it with `cargo build` in that folder",
        args.dir.display(),
        written.len()
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_crate_and_module_names() {
        assert_eq!(snake("CalcServer"), "calc_server");
        assert_eq!(snake("my-server 2"), "my_server_2");
        assert_eq!(snake("9lives"), "lib_9lives");
        assert_eq!(toml_string("C:\\x \"y\""), "\"C:\\\\x \\\"y\\\"\"");
    }
}
