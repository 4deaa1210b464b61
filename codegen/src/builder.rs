//! The build-script API, in the style of prost-build, on top of [`crate::frontend`] (so a build
//! script accepts and rejects exactly what `delphi-mcp gen` and `bind!` do):
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

use crate::frontend::{self, FrontendError};
use crate::model::ModelOptions;
use crate::Generated;
use delphi_mcp_parser::ParseOptions;
use std::path::{Path, PathBuf};

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
    /// The units could not be read (an unknown target, a folder that cannot be listed), a
    /// template failed or a generated file could not be written.
    #[error("delphi-mcp: {0}")]
    Frontend(#[from] FrontendError),
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
    model: ModelOptions,
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
            model: ModelOptions::default(),
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

    /// Sets the compiler whose predefined symbols and type sizes apply (`delphi12-win64`,
    /// `fpc-linux64`, ...). A name the parser does not know makes [`Builder::generate`] fail
    /// with [`FrontendError::UnknownTarget`], which lists the known names.
    pub fn target(mut self, target: impl Into<String>) -> Builder {
        self.options.target = target.into();
        self
    }

    /// Sets the code page of files without a BOM that are not valid UTF-8.
    pub fn codepage(mut self, codepage: u16) -> Builder {
        self.options.codepage = codepage;
        self
    }

    /// Sets how argument names are made from Pascal names where no `[McpName]` or
    /// `[McpNaming]` applies (default: as declared), as `--naming` does.
    pub fn naming(mut self, naming: delphi_mcp_manifest::naming::ArgumentNaming) -> Builder {
        self.model.naming = naming;
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
        let run =
            frontend::generate_units(&self.units, &self.options, self.name.as_deref(), self.model)?;
        let files_read = run.loaded.files_read();
        if self.cargo_directives {
            // Also the units that could not be read: creating them must rerun the script.
            for path in self.units.iter().chain(files_read.iter()) {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
        let rendered = run.rendered();
        let Some(generated) = run.output else {
            return Err(BuildError::Diagnostics {
                errors: run
                    .diagnostics
                    .iter()
                    .filter(|d| d.is_error())
                    .count()
                    .max(1),
                rendered,
            });
        };
        if self.cargo_directives {
            for line in rendered.lines().filter(|l| l.starts_with("warning: ")) {
                println!("cargo:warning=delphi-mcp: {}", &line["warning: ".len()..]);
            }
        }
        frontend::write_changed(&out_dir, &generated.files)?;
        Ok(Built {
            generated,
            out_dir,
            files_read,
            warnings: rendered,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontend::tests::write;

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
    fn naming_applies_as_on_the_command_line() {
        let dir = tempfile::tempdir().expect("temp dir");
        let unit = write(
            dir.path(),
            "Names.pas",
            "unit Names;\ninterface\n/// <summary>Adds.</summary>\n[McpTool]\nfunction AddAll(FirstValue: Integer): Integer;\nimplementation\nfunction AddAll(FirstValue: Integer): Integer;\nbegin\n  Result := FirstValue;\nend;\nend.\n",
        );
        let names = |naming| {
            let built = Builder::new()
                .unit(&unit)
                .naming(naming)
                .out_dir(dir.path().join("out"))
                .cargo_directives(false)
                .generate()
                .expect("generates");
            built.generated.manifest.tools[0].delphi.params[0]
                .name
                .clone()
        };
        use delphi_mcp_manifest::naming::ArgumentNaming;
        assert_eq!(names(ArgumentNaming::AsDeclared), "FirstValue");
        assert_eq!(names(ArgumentNaming::SnakeCase), "first_value");
        assert_eq!(names(ArgumentNaming::CamelCase), "firstValue");
    }

    #[test]
    fn errors_are_rendered_with_location() {
        let dir = tempfile::tempdir().expect("temp dir");
        let unit = write(
            dir.path(),
            "Bad.pas",
            "unit Bad;\ninterface\n[McpTool]\nprocedure Swap(A: Pointer);\nimplementation\nprocedure Swap(A: Pointer);\nbegin\nend;\nend.\n",
        );
        let error = Builder::new()
            .unit(&unit)
            .out_dir(dir.path().join("out"))
            .cargo_directives(false)
            .generate()
            .expect_err("pointer parameters are rejected");
        let text = error.to_string();
        assert!(text.contains("Bad.pas:4:"), "{text}");
        assert!(!dir.path().join("out").exists());
    }

    #[test]
    fn an_unknown_target_is_a_typed_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let unit = write(dir.path(), "Tiny.pas", UNIT);
        let result = Builder::new()
            .unit(&unit)
            .target("delphi99-win64")
            .out_dir(dir.path().join("out"))
            .cargo_directives(false)
            .generate();
        assert!(
            matches!(
                result,
                Err(BuildError::Frontend(FrontendError::UnknownTarget(_)))
            ),
            "{result:?}"
        );
    }

    #[test]
    fn missing_units_and_out_dir_are_errors() {
        assert!(matches!(
            Builder::new().cargo_directives(false).generate(),
            Err(BuildError::NoUnits)
        ));
    }
}
