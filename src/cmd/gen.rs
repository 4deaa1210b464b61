//! `delphi-mcp gen`: write the manifest, the Pascal stubs and the support units into a folder.
//! Also the unit loading shared by `manifest` and `build`.

use crate::cmd::common::SourceArgs;
use delphi_mcp_codegen::{Generated, UnitInput};
use delphi_mcp_parser::{ast, Diagnostic, ParseOptions, SourceDb};
use miette::{miette, IntoDiagnostic};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `delphi-mcp gen`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Unit files, or folders whose `*.pas` files are read.
    #[arg(required = true, value_name = "PATHS")]
    pub paths: Vec<PathBuf>,
    /// Folder the generated files go to (created when missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Name of the library in the manifest (default: the first unit's name).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Write nothing; exit with 1 and name each file that would change (for CI builds).
    #[arg(long)]
    pub check: bool,
    /// How to read the units.
    #[command(flatten)]
    pub source: SourceArgs,
}

/// Files `gen` writes itself; never read as input units.
pub const GENERATED_UNITS: &[&str] = &["McpExports.pas", "McpRuntime.pas", "McpAttributes.pas"];

/// Parsed units of a run, with the database their spans point into.
pub struct LoadedUnits {
    /// All loaded files.
    pub db: SourceDb,
    /// The units with their manifest paths, in command-line order.
    pub units: Vec<(ast::Unit, String, PathBuf)>,
    /// Every parse diagnostic.
    pub diagnostics: Vec<Diagnostic>,
}

impl LoadedUnits {
    /// The generator inputs.
    pub fn inputs(&self) -> Vec<UnitInput<'_>> {
        self.units
            .iter()
            .map(|(unit, path, _)| UnitInput { unit, path })
            .collect()
    }
}

/// Parse options of the source arguments.
pub fn parse_options(source: &SourceArgs) -> ParseOptions {
    ParseOptions {
        target: source.target.clone(),
        defines: source.defines.clone(),
        undefines: source.undefines.clone(),
        include_dirs: source.include_dirs.clone(),
        codepage: source.codepage.unwrap_or(1252),
    }
}

/// The unit files named by `paths` (folders give their `*.pas` files, sorted, without the
/// generated units).
pub fn expand_paths(paths: &[PathBuf]) -> miette::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .into_diagnostic()
                .map_err(|e| e.context(format!("reading folder {}", path.display())))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| {
                    p.is_file()
                        && p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pas"))
                        && !p
                            .file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| GENERATED_UNITS.contains(&n))
                })
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    if files.is_empty() {
        return Err(miette!("no Pascal units found in the given paths"));
    }
    Ok(files)
}

/// The deepest folder containing all `files`.
fn common_dir(files: &[PathBuf]) -> PathBuf {
    let absolute: Vec<PathBuf> = files
        .iter()
        .map(|f| std::path::absolute(f).unwrap_or_else(|_| f.clone()))
        .collect();
    let mut base = absolute
        .first()
        .and_then(|f| f.parent())
        .map(Path::to_path_buf)
        .unwrap_or_default();
    while !absolute.iter().all(|f| f.starts_with(&base)) {
        if !base.pop() {
            break;
        }
    }
    base
}

/// Parses the units of `paths` (in parallel), naming each relative to their common folder.
pub fn load_units(paths: &[PathBuf], source: &SourceArgs) -> miette::Result<LoadedUnits> {
    let files = expand_paths(paths)?;
    let base = common_dir(&files);
    let options = parse_options(source);
    let db = SourceDb::new();
    let results: Vec<_> = files
        .par_iter()
        .map(|file| (file, delphi_mcp_parser::parse_file(&db, file, &options)))
        .collect();
    let mut units = Vec::new();
    let mut diagnostics = Vec::new();
    for (file, result) in results {
        diagnostics.extend(result.diagnostics);
        if let Some(unit) = result.unit {
            let absolute = std::path::absolute(file).unwrap_or_else(|_| file.clone());
            let relative = absolute
                .strip_prefix(&base)
                .map(Path::to_path_buf)
                .unwrap_or_else(|_| file.clone());
            let shown = relative.to_string_lossy().replace('\\', "/");
            units.push((unit, shown, file.clone()));
        }
    }
    Ok(LoadedUnits {
        db,
        units,
        diagnostics,
    })
}

/// Prints diagnostics on stderr; true when one is an error.
pub fn report(db: &SourceDb, diagnostics: &[Diagnostic]) -> bool {
    for diagnostic in diagnostics {
        eprint!("{}", diagnostic.render(db));
    }
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    if errors > 0 {
        eprintln!(
            "error: {errors} error{} found; nothing was generated",
            if errors == 1 { "" } else { "s" }
        );
    }
    errors > 0
}

/// The library name: `name`, else the first unit's name.
pub fn library_name(name: Option<&str>, loaded: &LoadedUnits) -> String {
    name.map(str::to_string)
        .or_else(|| loaded.units.first().map(|(u, _, _)| u.name.to_string()))
        .unwrap_or_else(|| "Tools".to_string())
}

/// Parses and generates; `None` (after printing the diagnostics) when there were errors.
pub fn generate(
    paths: &[PathBuf],
    name: Option<&str>,
    source: &SourceArgs,
) -> miette::Result<Option<(Generated, LoadedUnits)>> {
    let loaded = load_units(paths, source)?;
    let name = library_name(name, &loaded);
    let outcome = delphi_mcp_codegen::generate(&loaded.db, &loaded.inputs(), &source.target, &name)
        .map_err(|e| miette!("{e}"))?;
    let mut diagnostics = loaded.diagnostics.clone();
    diagnostics.extend(outcome.diagnostics);
    let failed = report(&loaded.db, &diagnostics);
    match outcome.output {
        Some(generated) if !failed => Ok(Some((generated, loaded))),
        _ => Ok(None),
    }
}

/// Files of `files` whose content in `dir` differs (or that are missing).
pub fn changed_files(dir: &Path, files: &BTreeMap<String, String>) -> Vec<PathBuf> {
    files
        .iter()
        .filter(|(name, text)| {
            std::fs::read(dir.join(name)).map_or(true, |bytes| bytes != text.as_bytes())
        })
        .map(|(name, _)| dir.join(name))
        .collect()
}

/// Writes the files that changed (unchanged files keep their time stamps, so builds that
/// depend on them are not redone). Returns the files written.
pub fn write_files(dir: &Path, files: &BTreeMap<String, String>) -> miette::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)
        .into_diagnostic()
        .map_err(|e| e.context(format!("creating {}", dir.display())))?;
    let changed = changed_files(dir, files);
    for path in &changed {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let text = files.get(name).map(String::as_str).unwrap_or_default();
        std::fs::write(path, text)
            .into_diagnostic()
            .map_err(|e| e.context(format!("writing {}", path.display())))?;
    }
    Ok(changed)
}

/// Runs the command.
pub fn run(args: Args) -> miette::Result<ExitCode> {
    let Some((generated, _)) = generate(&args.paths, args.name.as_deref(), &args.source)? else {
        return Ok(ExitCode::FAILURE);
    };
    if args.check {
        let changed = changed_files(&args.out, &generated.files);
        if changed.is_empty() {
            eprintln!("{} is up to date", args.out.display());
            return Ok(ExitCode::SUCCESS);
        }
        for path in &changed {
            eprintln!("would change: {}", path.display());
        }
        eprintln!("run `delphi-mcp gen` without --check to update them");
        return Ok(ExitCode::FAILURE);
    }
    let written = write_files(&args.out, &generated.files)?;
    eprintln!(
        "{} tool{} into {} ({} file{} updated)",
        generated.manifest.tools.len(),
        if generated.manifest.tools.len() == 1 {
            ""
        } else {
            "s"
        },
        args.out.display(),
        written.len(),
        if written.len() == 1 { "" } else { "s" }
    );
    Ok(ExitCode::SUCCESS)
}
