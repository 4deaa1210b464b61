//! The front end shared by every Rust-side user of the generator (the `bind!` proc-macro, build
//! scripts through [`Builder`], the `cargo delphi-mcp` command), so that all of them accept and
//! reject exactly the same units: [`load_units`] parses the units, [`generate_units`] runs
//! [`crate::generate`] on them.
//!
//! [`Builder`] is the build-script API, in the style of prost-build:
//!
//! ```no_run
//! # fn main() -> Result<(), delphi_mcp_codegen::builder::BuildError> {
//! delphi_mcp_codegen::Builder::new()
//!     .unit("delphi/Calc.pas")
//!     .define("RELEASE")
//!     .generate()?;
//! # Ok(())
//! # }
//! ```

use crate::{GenerateError, Generated, Outcome, UnitInput};
use delphi_mcp_parser::{ast, Diagnostic, FileId, ParseOptions, SourceDb};
use std::path::{Path, PathBuf};

/// Parsed units, with the database their spans point into.
#[derive(Debug)]
pub struct LoadedUnits {
    /// Every file read (units and includes).
    pub db: SourceDb,
    /// The units that parsed, each with its manifest path (relative to the deepest folder
    /// holding all units, `/`-separated: what `delphi-mcp gen` writes into the manifest).
    pub units: Vec<(ast::Unit, String)>,
    /// Every parse diagnostic.
    pub diagnostics: Vec<Diagnostic>,
}

impl LoadedUnits {
    /// The generator inputs.
    pub fn inputs(&self) -> Vec<UnitInput<'_>> {
        self.units
            .iter()
            .map(|(unit, path)| UnitInput { unit, path })
            .collect()
    }

    /// Every file the parser read: units and the include files they pulled in.
    pub fn files_read(&self) -> Vec<PathBuf> {
        (0..self.db.len())
            .map(|index| self.db.get(FileId(index as u32)).path.clone())
            .collect()
    }

    /// The name of the first unit, the default library name.
    pub fn first_unit_name(&self) -> Option<&str> {
        self.units.first().map(|(unit, _)| unit.name.as_str())
    }

    /// Renders all diagnostics (rustc style, with file:line:col and snippets).
    pub fn render(&self, diagnostics: &[Diagnostic]) -> String {
        diagnostics.iter().map(|d| d.render(&self.db)).collect()
    }
}

/// The deepest folder containing all `files`.
fn common_dir(files: &[PathBuf]) -> PathBuf {
    let mut base = files
        .first()
        .and_then(|f| f.parent())
        .map(Path::to_path_buf)
        .unwrap_or_default();
    while !files.iter().all(|f| f.starts_with(&base)) {
        if !base.pop() {
            break;
        }
    }
    base
}

/// Parses `files` (in order), naming each relative to their common folder as `gen` does.
pub fn load_units(files: &[PathBuf], options: &ParseOptions) -> LoadedUnits {
    let absolute: Vec<PathBuf> = files
        .iter()
        .map(|f| std::path::absolute(f).unwrap_or_else(|_| f.clone()))
        .collect();
    let base = common_dir(&absolute);
    let db = SourceDb::new();
    let mut units = Vec::new();
    let mut diagnostics = Vec::new();
    for file in &absolute {
        let result = delphi_mcp_parser::parse_file(&db, file, options);
        diagnostics.extend(result.diagnostics);
        if let Some(unit) = result.unit {
            let relative = file.strip_prefix(&base).unwrap_or(file);
            units.push((unit, relative.to_string_lossy().replace('\\', "/")));
        }
    }
    LoadedUnits {
        db,
        units,
        diagnostics,
    }
}

/// A generation run over unit files: the parsed units, the outcome and all diagnostics.
#[derive(Debug)]
pub struct Run {
    /// The parsed units.
    pub loaded: LoadedUnits,
    /// The generated files; `None` when a diagnostic is an error.
    pub output: Option<Generated>,
    /// Parse and generation diagnostics, parse diagnostics first.
    pub diagnostics: Vec<Diagnostic>,
}

impl Run {
    /// True when a diagnostic is an error.
    pub fn failed(&self) -> bool {
        self.output.is_none() || self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Parses `files` and generates the manifest and stubs; `name` defaults to the first unit's
/// name. The same steps as `delphi-mcp gen`.
pub fn generate_units(
    files: &[PathBuf],
    options: &ParseOptions,
    name: Option<&str>,
) -> Result<Run, GenerateError> {
    let loaded = load_units(files, options);
    let name = name
        .map(str::to_string)
        .or_else(|| loaded.first_unit_name().map(str::to_string))
        .unwrap_or_else(|| "Tools".to_string());
    let Outcome {
        output,
        diagnostics: generate_diagnostics,
    } = crate::generate(&loaded.db, &loaded.inputs(), &options.target, &name)?;
    let mut diagnostics: Vec<Diagnostic> = Vec::new();
    // The parser may report one problem once per pass over a file; show it once.
    for diagnostic in loaded
        .diagnostics
        .iter()
        .cloned()
        .chain(generate_diagnostics)
    {
        if !diagnostics
            .iter()
            .any(|d| d.span == diagnostic.span && d.message == diagnostic.message)
        {
            diagnostics.push(diagnostic);
        }
    }
    let output = output.filter(|_| !diagnostics.iter().any(Diagnostic::is_error));
    Ok(Run {
        loaded,
        output,
        diagnostics,
    })
}

/// Why [`Builder::generate`] failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// No unit was given.
    #[error("delphi-mcp: no unit given (call `Builder::unit`)")]
    NoUnits,
    /// No output folder was given and `OUT_DIR` is not set (not running in a build script).
    #[error("delphi-mcp: no output folder: call `Builder::out_dir` or run from a build script (OUT_DIR is not set)")]
    NoOutDir,
    /// The units have errors; `rendered` holds every diagnostic with file:line:col and snippet.
    #[error("delphi-mcp: {errors} error{} in the Delphi units; nothing was generated\n{rendered}", if *errors == 1 { "" } else { "s" })]
    Diagnostics {
        /// Number of errors.
        errors: usize,
        /// All diagnostics, rendered.
        rendered: String,
    },
    /// A template failed to render.
    #[error("delphi-mcp: {0}")]
    Generate(#[from] GenerateError),
    /// A generated file could not be written.
    #[error("delphi-mcp: cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// What [`Builder::generate`] wrote.
#[derive(Debug)]
pub struct Built {
    /// The generated manifest and files.
    pub generated: Generated,
    /// The folder the files were written to.
    pub out_dir: PathBuf,
    /// Every file read (units and includes).
    pub files_read: Vec<PathBuf>,
    /// Warnings, rendered (empty when there were none).
    pub warnings: String,
}

/// Build-script API: generates the manifest and the Pascal stubs of annotated units into a
/// folder (default `OUT_DIR`), printing `cargo:rerun-if-changed` for every file read.
#[derive(Debug, Clone)]
pub struct Builder {
    units: Vec<PathBuf>,
    options: ParseOptions,
    name: Option<String>,
    out_dir: Option<PathBuf>,
    cargo_directives: bool,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    /// A builder with the parser's default options (target `delphi12-win64`).
    pub fn new() -> Builder {
        Builder {
            units: Vec::new(),
            options: ParseOptions::default(),
            name: None,
            out_dir: None,
            cargo_directives: true,
        }
    }

    /// Adds a unit file (relative paths are relative to the current folder, which for a build
    /// script is the package's folder).
    pub fn unit(mut self, path: impl AsRef<Path>) -> Builder {
        self.units.push(path.as_ref().to_path_buf());
        self
    }

    /// Adds several unit files.
    pub fn units<P: AsRef<Path>>(mut self, paths: impl IntoIterator<Item = P>) -> Builder {
        self.units
            .extend(paths.into_iter().map(|p| p.as_ref().to_path_buf()));
        self
    }

    /// Defines a conditional symbol.
    pub fn define(mut self, symbol: impl Into<String>) -> Builder {
        self.options.defines.push(symbol.into());
        self
    }

    /// Undefines a conditional symbol (also a predefined one).
    pub fn undefine(mut self, symbol: impl Into<String>) -> Builder {
        self.options.undefines.push(symbol.into());
        self
    }

    /// Adds a folder searched for `{$I file}` includes.
    pub fn include_dir(mut self, dir: impl AsRef<Path>) -> Builder {
        self.options.include_dirs.push(dir.as_ref().to_path_buf());
        self
    }

    /// Sets the compiler whose predefined symbols apply (`delphi12-win64`, `fpc-linux64`, ...).
    pub fn target(mut self, target: impl Into<String>) -> Builder {
        self.options.target = target.into();
        self
    }

    /// Sets the code page of files without a BOM that are not valid UTF-8.
    pub fn codepage(mut self, codepage: u16) -> Builder {
        self.options.codepage = codepage;
        self
    }

    /// Sets the library name written into the manifest (default: the first unit's name).
    pub fn name(mut self, name: impl Into<String>) -> Builder {
        self.name = Some(name.into());
        self
    }

    /// Sets the output folder (default: `OUT_DIR`).
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Builder {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Whether to print `cargo:rerun-if-changed` and `cargo:warning` lines (default true).
    pub fn cargo_directives(mut self, enabled: bool) -> Builder {
        self.cargo_directives = enabled;
        self
    }

    /// The parser options in use.
    pub fn parse_options(&self) -> &ParseOptions {
        &self.options
    }

    /// Parses, generates and writes the files that changed (unchanged files keep their time
    /// stamps). Diagnostics with an error become [`BuildError::Diagnostics`].
    pub fn generate(&self) -> Result<Built, BuildError> {
        if self.units.is_empty() {
            return Err(BuildError::NoUnits);
        }
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(BuildError::NoOutDir)?,
        };
        let run = generate_units(&self.units, &self.options, self.name.as_deref())?;
        let files_read = run.loaded.files_read();
        if self.cargo_directives {
            // Also the units that could not be read: creating them must rerun the script.
            for path in self.units.iter().chain(files_read.iter()) {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
        let errors = run.diagnostics.iter().filter(|d| d.is_error()).count();
        let Some(generated) = run.output.filter(|_| errors == 0) else {
            return Err(BuildError::Diagnostics {
                errors: errors.max(1),
                rendered: run.loaded.render(&run.diagnostics),
            });
        };
        let warnings = run.loaded.render(&run.diagnostics);
        if self.cargo_directives {
            for line in warnings.lines().filter(|l| l.starts_with("warning: ")) {
                println!("cargo:warning=delphi-mcp: {}", &line["warning: ".len()..]);
            }
        }
        write_changed(&out_dir, &generated)?;
        Ok(Built {
            generated,
            out_dir,
            files_read,
            warnings,
        })
    }
}

/// Writes the generated files whose content differs from what `dir` holds.
fn write_changed(dir: &Path, generated: &Generated) -> Result<(), BuildError> {
    let fail = |path: &Path| {
        let path = path.to_path_buf();
        move |source| BuildError::Write { path, source }
    };
    std::fs::create_dir_all(dir).map_err(fail(dir))?;
    for (name, text) in &generated.files {
        let path = dir.join(name);
        if std::fs::read(&path).is_ok_and(|bytes| bytes == text.as_bytes()) {
            continue;
        }
        std::fs::write(&path, text).map_err(fail(&path))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write a test unit");
        path
    }

    const UNIT: &str = "unit Tiny;\ninterface\nuses McpAttributes;\n\
        /// <summary>Adds.</summary>\n[McpTool]\nfunction Add(A, B: Integer): Integer;\n\
        {$I extra.inc}\nimplementation\nfunction Add(A, B: Integer): Integer;\nbegin\n  Result := A + B;\nend;\nend.\n";

    #[test]
    fn writes_files_and_lists_includes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let unit = write(dir.path(), "Tiny.pas", UNIT);
        let include = write(dir.path(), "extra.inc", "const Extra = 1;\n");
        let out = dir.path().join("out");
        let built = Builder::new()
            .unit(&unit)
            .out_dir(&out)
            .cargo_directives(false)
            .generate()
            .expect("generates");
        assert_eq!(built.generated.manifest.tools.len(), 1);
        assert_eq!(built.generated.manifest.name, "Tiny");
        assert!(out.join(crate::MANIFEST_FILE).is_file());
        assert!(out.join("McpExports.pas").is_file());
        let read: Vec<_> = built
            .files_read
            .iter()
            .map(|p| std::fs::canonicalize(p).expect("read file exists"))
            .collect();
        assert!(
            read.contains(&std::fs::canonicalize(&include).expect("include")),
            "{read:?}"
        );
    }

    #[test]
    fn errors_are_rendered_with_location() {
        let dir = tempfile::tempdir().expect("temp dir");
        let unit = write(
            dir.path(),
            "Bad.pas",
            "unit Bad;\ninterface\n[McpTool]\nprocedure Swap(var A: Integer);\nimplementation\nprocedure Swap(var A: Integer);\nbegin\nend;\nend.\n",
        );
        let error = Builder::new()
            .unit(&unit)
            .out_dir(dir.path().join("out"))
            .cargo_directives(false)
            .generate()
            .expect_err("var parameters are rejected");
        let text = error.to_string();
        assert!(text.contains("Bad.pas:4:"), "{text}");
        assert!(!dir.path().join("out").exists());
    }

    #[test]
    fn missing_units_and_out_dir_are_errors() {
        assert!(matches!(
            Builder::new().cargo_directives(false).generate(),
            Err(BuildError::NoUnits)
        ));
    }
}
