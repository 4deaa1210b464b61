//! `delphi-mcp new`: scaffold a Rust crate that serves a Delphi library over MCP, from the
//! templates in `templates/rust-server/`. `new` copies the units into the crate and generates
//! their manifest and Pascal stubs; the crate binds the manifest with
//! `delphi_mcp_runtime::bind!(manifest = ...)`, loads the library and serves it over stdio or
//! HTTP, with a place for Rust tools of its own. It depends on `delphi-mcp-runtime` only (not on
//! the parser, the code generator or this CLI).

use delphi_mcp_codegen::templates::{render_rust_server, RustServer};
use delphi_mcp_manifest::naming::{crate_name, rust_identifier};
use miette::{miette, IntoDiagnostic};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Folder of the new crate that the units are copied to.
pub const UNITS_DIR: &str = "delphi";

/// Folder of the new crate that the manifest and the Pascal stubs are generated into (the
/// `out-dir` of its `[package.metadata.delphi-mcp]`).
pub const GENERATED_DIR: &str = "delphi/generated";

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
    /// Depend on delphi-mcp-runtime in this delphi-mcp checkout instead of a crates.io version.
    #[arg(long, value_name = "DIR")]
    pub delphi_mcp_path: Option<PathBuf>,
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
    let crate_name = crate_name(&crate_dir_name);
    let dependency = match &args.delphi_mcp_path {
        Some(path) => {
            let absolute = std::path::absolute(path.join("runtime")).into_diagnostic()?;
            format!(
                "delphi-mcp-runtime = {{ path = {}, features = [\"macros\"] }}",
                toml_string(&absolute.to_string_lossy())
            )
        }
        None => format!(
            "delphi-mcp-runtime = {{ version = \"{}\", features = [\"macros\"] }}",
            env!("CARGO_PKG_VERSION")
        ),
    };
    let units: Vec<String> = unit_names
        .iter()
        .map(|n| format!("{UNITS_DIR}/{n}"))
        .collect();
    let files = render_rust_server(&RustServer {
        crate_name,
        library_name: library_name.clone(),
        module: rust_identifier(&library_name),
        units,
        target: args.target.clone(),
        out_dir: GENERATED_DIR.to_string(),
        manifest: format!("{GENERATED_DIR}/{}", delphi_mcp_codegen::MANIFEST_FILE),
        runtime_dependency: dependency,
    })
    .map_err(|e| miette!("{e}"))?;
    let mut written = Vec::new();
    for (relative, text) in files {
        let path = args.dir.join(relative);
        write(&path, text.as_bytes())?;
        written.push(path);
    }
    let mut copied = Vec::new();
    for (unit, name) in args.units.iter().zip(&unit_names) {
        let bytes = std::fs::read(unit)
            .into_diagnostic()
            .map_err(|e| e.context(format!("reading {}", unit.display())))?;
        let path = args.dir.join(UNITS_DIR).join(name);
        write(&path, &bytes)?;
        copied.push(path);
    }
    written.extend(copied.iter().cloned());
    let generated = generate(
        &copied,
        &library_name,
        &args.target,
        &args.dir.join(GENERATED_DIR),
    )
    .map_err(|e| {
        e.context(format!(
            "{} was created without its manifest: correct the units in {UNITS_DIR}/ and run `cargo delphi-mcp gen` there",
            args.dir.display()
        ))
    })?;
    written.extend(generated);
    Ok(written)
}

/// Generates the manifest and the Pascal stubs of the copied `units` into `out_dir`, as
/// `cargo delphi-mcp gen` in the new crate would; returns the files written.
fn generate(
    units: &[PathBuf],
    name: &str,
    target: &str,
    out_dir: &Path,
) -> miette::Result<Vec<PathBuf>> {
    let built = delphi_mcp_codegen::Builder::new()
        .units(units)
        .name(name)
        .target(target)
        .out_dir(out_dir)
        .cargo_directives(false)
        .generate()
        .map_err(|e| miette!("{e}"))?;
    Ok(built
        .generated
        .files
        .keys()
        .map(|file| built.out_dir.join(file))
        .collect())
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
    fn paths_become_toml_strings() {
        assert_eq!(toml_string("C:\\x \"y\""), "\"C:\\\\x \\\"y\\\"\"");
    }
}
