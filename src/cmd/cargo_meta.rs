//! `[package.metadata.delphi-mcp]`: what `cargo delphi-mcp manifest|gen|build` read when they
//! are given no paths, so that a crate regenerates its manifest and stubs with one command.
//!
//! ```toml
//! [package.metadata.delphi-mcp]
//! units = ["delphi/CalcModule.pas"]   # unit files or folders, relative to the package
//! name = "Calc"                       # library name (default: the first unit's)
//! target = "delphi12-win64"           # compiler target
//! defines = ["RELEASE"]               # conditional symbols
//! undefines = ["DEBUG"]
//! include-dirs = ["delphi/inc"]       # {$I} search folders
//! codepage = 1252                     # of files without BOM that are not UTF-8
//! naming = "camelCase"                # argument names, as --naming (default: as declared)
//! out-dir = "delphi/generated"        # where `gen` writes (default: delphi-mcp/generated)
//! project-dir = "delphi"              # the folder `build` compiles (default: the first unit's)
//! ```

use miette::{miette, IntoDiagnostic};
use serde::Deserialize;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Default of `out-dir`.
pub const DEFAULT_OUT_DIR: &str = "delphi-mcp/generated";

/// The `[package.metadata.delphi-mcp]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Metadata {
    /// Unit files or folders.
    #[serde(default)]
    pub units: Vec<PathBuf>,
    /// Library name.
    pub name: Option<String>,
    /// Compiler target.
    pub target: Option<String>,
    /// Conditional symbols to define.
    #[serde(default)]
    pub defines: Vec<String>,
    /// Conditional symbols to undefine.
    #[serde(default)]
    pub undefines: Vec<String>,
    /// Include folders.
    #[serde(default)]
    pub include_dirs: Vec<PathBuf>,
    /// Code page of non-UTF-8 files without BOM.
    pub codepage: Option<u16>,
    /// Naming policy of argument names (`--naming`).
    pub naming: Option<String>,
    /// Output folder of `gen`.
    pub out_dir: Option<PathBuf>,
    /// Project folder of `build`.
    pub project_dir: Option<PathBuf>,
}

#[derive(Deserialize)]
struct CargoMetadata {
    packages: Vec<Package>,
}

#[derive(Deserialize)]
struct Package {
    manifest_path: PathBuf,
    #[serde(default)]
    metadata: Option<serde_json::Value>,
}

/// The nearest `Cargo.toml` at or above `dir`.
pub fn find_manifest(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join("Cargo.toml"))
        .find(|p| p.is_file())
}

/// Reads the metadata of the package whose manifest is `manifest` (through `cargo metadata`),
/// with paths made relative to the current folder's view (joined to the package folder).
pub fn read(manifest: &Path) -> miette::Result<Metadata> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(&cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .arg("--manifest-path")
        .arg(manifest)
        .output()
        .map_err(|e| miette!("could not run `cargo metadata`: {e}"))?;
    if !output.status.success() {
        return Err(miette!(
            "`cargo metadata` failed for {}:\n{}",
            manifest.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let parsed: CargoMetadata = serde_json::from_slice(&output.stdout).into_diagnostic()?;
    let wanted = std::fs::canonicalize(manifest).into_diagnostic()?;
    let package = parsed
        .packages
        .into_iter()
        .find(|p| std::fs::canonicalize(&p.manifest_path).is_ok_and(|m| m == wanted))
        .ok_or_else(|| {
            miette!(
                "{} is not a package manifest (a workspace root?); run in the package's folder",
                manifest.display()
            )
        })?;
    let table = package
        .metadata
        .as_ref()
        .and_then(|m| m.get("delphi-mcp"))
        .cloned()
        .ok_or_else(|| {
            miette!(
                "{} has no [package.metadata.delphi-mcp] table (see docs/rust.md) and no paths were given",
                manifest.display()
            )
        })?;
    let mut metadata: Metadata = serde_json::from_value(table).map_err(|e| {
        miette!(
            "[package.metadata.delphi-mcp] of {}: {e}",
            manifest.display()
        )
    })?;
    if metadata.units.is_empty() {
        return Err(miette!(
            "[package.metadata.delphi-mcp] of {} lists no `units`",
            manifest.display()
        ));
    }
    let base = manifest.parent().unwrap_or(Path::new("."));
    let join = |p: &PathBuf| base.join(p);
    metadata.units = metadata.units.iter().map(join).collect();
    metadata.include_dirs = metadata.include_dirs.iter().map(join).collect();
    metadata.out_dir = metadata.out_dir.as_ref().map(join);
    metadata.project_dir = metadata.project_dir.as_ref().map(join);
    Ok(metadata)
}

impl Metadata {
    /// Command-line arguments of `command` (`manifest`, `gen` or `build`) for this metadata,
    /// leaving out options the user already gave (`given`).
    pub fn arguments(&self, command: &str, given: &[OsString]) -> Vec<OsString> {
        let has = |flags: &[&str]| {
            given.iter().any(|a| {
                let a = a.to_string_lossy();
                flags
                    .iter()
                    .any(|f| a == *f || a.starts_with(&format!("{f}=")))
            })
        };
        let mut out: Vec<OsString> = Vec::new();
        match command {
            "build" => {
                let dir = self.project_dir.clone().unwrap_or_else(|| {
                    self.units[0]
                        .parent()
                        .map(Path::to_path_buf)
                        .unwrap_or_default()
                });
                out.push(dir.into());
            }
            _ => out.extend(self.units.iter().map(|u| u.clone().into_os_string())),
        }
        if command == "gen" && !has(&["--out"]) {
            out.push("--out".into());
            out.push(
                self.out_dir
                    .clone()
                    .unwrap_or_else(|| DEFAULT_OUT_DIR.into())
                    .into(),
            );
        }
        if let Some(name) = self.name.as_ref().filter(|_| !has(&["--name"])) {
            out.push("--name".into());
            out.push(name.into());
        }
        if let Some(target) = self.target.as_ref().filter(|_| !has(&["--target"])) {
            out.push("--target".into());
            out.push(target.into());
        }
        if let Some(codepage) = self.codepage.filter(|_| !has(&["--codepage"])) {
            out.push("--codepage".into());
            out.push(codepage.to_string().into());
        }
        if let Some(naming) = self.naming.as_ref().filter(|_| !has(&["--naming"])) {
            out.push("--naming".into());
            out.push(naming.into());
        }
        for define in &self.defines {
            out.push(format!("--define={define}").into());
        }
        for undefine in &self.undefines {
            out.push(format!("--undefine={undefine}").into());
        }
        for dir in &self.include_dirs {
            out.push("--include".into());
            out.push(dir.clone().into_os_string());
        }
        out
    }
}

/// Subcommands that take their inputs from the metadata when given no paths.
pub const METADATA_COMMANDS: &[&str] = &["manifest", "gen", "build"];

/// Completes `args` (program name first, then the subcommand) from the package metadata when
/// the subcommand is one of [`METADATA_COMMANDS`] and no paths were given; otherwise returns
/// `args` unchanged.
pub fn complete(args: Vec<OsString>) -> miette::Result<Vec<OsString>> {
    let Some(command) = args.get(1).map(|a| a.to_string_lossy().into_owned()) else {
        return Ok(args);
    };
    if !METADATA_COMMANDS.contains(&command.as_str()) {
        return Ok(args);
    }
    let missing_paths = match crate::Cli::try_parse_from_args(&args) {
        Ok(_) => false,
        Err(error) => error.kind() == clap::error::ErrorKind::MissingRequiredArgument,
    };
    if !missing_paths {
        return Ok(args);
    }
    let cwd = std::env::current_dir().into_diagnostic()?;
    let manifest = find_manifest(&cwd).ok_or_else(|| {
        miette!(
            "no paths given and no Cargo.toml in {} or above",
            cwd.display()
        )
    })?;
    let metadata = read(&manifest)?;
    let mut completed = args.clone();
    completed.extend(metadata.arguments(&command, &args[2..]));
    Ok(completed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_becomes_arguments() {
        let metadata = Metadata {
            units: vec!["d/A.pas".into(), "d/B.pas".into()],
            name: Some("Lib".into()),
            target: Some("fpc-linux64".into()),
            defines: vec!["X".into()],
            naming: Some("camelCase".into()),
            out_dir: Some("out".into()),
            ..Metadata::default()
        };
        let text = |args: Vec<OsString>| {
            args.iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(
            text(metadata.arguments("gen", &[])),
            "d/A.pas d/B.pas --out out --name Lib --target fpc-linux64 --naming camelCase --define=X"
        );
        assert_eq!(
            text(metadata.arguments(
                "build",
                &[
                    "--target=delphi12-win32".into(),
                    "--naming=snake_case".into()
                ]
            )),
            "d --name Lib --define=X"
        );
    }
}
