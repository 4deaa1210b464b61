//! Building a library project folder with Free Pascal: the steps of `delphi-mcp build` and of
//! `delphi-mcp serve DIR`.
//!
//! Layout: the units are the folder's `*.pas` files ([`crate::frontend::expand_paths`]);
//! generated files go to `DIR/generated/`; the library project is the folder's `.dpr`/`.lpr`
//! whose first word is `library` (rendered as `<Name>.dpr` from `templates/pascal/` when there
//! is none); compiled units go to `DIR/build/units/` and the library to `DIR/build/`. Delphi
//! builds the same project with `dcc64` or MSBuild (`docs/abi.md`).
//!
//! A build is recorded (`crate::inputs`): a folder nothing changed in since is not read again.
//!
//! Nothing here prints: what a user should know comes back as [`Note`]s.

use crate::frontend::{self, FrontendError};
use crate::inputs::Inputs;
use crate::model::ModelOptions;
use crate::pascal::{render_library, LibraryUnit, EXPORTS_INCLUDE};
use crate::templates::RenderError;
use delphi_mcp_parser::ParseOptions;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::SystemTime;

/// Folder (inside the project) the generated files go to.
pub const GENERATED_DIR: &str = "generated";
/// Folder (inside the project) the compiler output goes to.
pub const BUILD_DIR: &str = "build";
/// The Free Pascal compiler run by default.
pub const DEFAULT_FPC: &str = "fpc";

/// What to build: a project folder, read and compiled with these settings.
#[derive(Debug, Clone)]
pub struct ProjectBuild {
    /// The project folder.
    pub dir: PathBuf,
    /// The library name (default: the project file's, else the first unit's file name).
    pub name: Option<String>,
    /// How to read the units; the defines and include folders are passed on to the compiler.
    pub options: ParseOptions,
    /// The Free Pascal compiler to run.
    pub fpc: String,
    /// The generator's options (`--naming`).
    pub model: ModelOptions,
}

impl ProjectBuild {
    /// The project in `dir`, with the default parse options and compiler.
    pub fn new(dir: impl Into<PathBuf>) -> ProjectBuild {
        ProjectBuild {
            dir: dir.into(),
            name: None,
            options: ParseOptions::default(),
            fpc: DEFAULT_FPC.to_string(),
            model: ModelOptions::default(),
        }
    }
}

/// A built (or up-to-date) library.
#[derive(Debug)]
pub struct BuiltLibrary {
    /// The library file.
    pub library: PathBuf,
    /// Whether the compiler ran (false when the library was up to date).
    pub compiled: bool,
    /// What the user should know, in the order it happened.
    pub notes: Vec<Note>,
}

/// Something a build reports to the user (the caller prints it, on stderr for the CLI).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// Warnings about the units, rendered with file:line:col.
    Warnings(String),
    /// The existing project file does not include the generated exports.
    MissingExports {
        /// The project file.
        project: PathBuf,
    },
    /// A library project file was written (there was none).
    WroteProject {
        /// The project file.
        project: PathBuf,
    },
    /// Nothing was newer than the library, so it was not compiled.
    UpToDate {
        /// The library file.
        library: PathBuf,
    },
    /// The project was compiled.
    Compiled {
        /// The project file.
        project: PathBuf,
        /// The compiler run.
        fpc: String,
    },
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Warnings(rendered) => f.write_str(rendered.trim_end()),
            Note::MissingExports { project } => write!(
                f,
                "warning: {} does not include the exports: add `{{$I {GENERATED_DIR}/{EXPORTS_INCLUDE}}}` after its uses clause, and `McpRuntime, McpExports` to the uses clause (with `{{$IFDEF FPC}}{{$IFDEF UNIX}}cthreads, fpwidestring,{{$ENDIF}}{{$ENDIF}}` first)",
                project.display()
            ),
            Note::WroteProject { project } => {
                write!(f, "wrote library project {}", project.display())
            }
            Note::UpToDate { library } => write!(f, "{} is up to date", library.display()),
            Note::Compiled { project, fpc } => {
                write!(f, "compiling {} with {fpc}", project.display())
            }
        }
    }
}

/// Why a project could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// The project path is not a folder.
    #[error("{} is not a folder", dir.display())]
    NotAFolder {
        /// The path given.
        dir: PathBuf,
    },
    /// The project folder could not be listed.
    #[error("cannot read the folder {}: {source}", dir.display())]
    ReadFolder {
        /// The folder.
        dir: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The units could not be read, or the generated files not written.
    #[error(transparent)]
    Frontend(#[from] FrontendError),
    /// The units have errors; nothing was generated or compiled.
    #[error("code generation failed for {}", dir.display())]
    Diagnostics {
        /// The project folder.
        dir: PathBuf,
        /// The number of errors.
        errors: usize,
        /// Every diagnostic, rendered with file:line:col.
        rendered: String,
    },
    /// The library project file failed to render.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// A file or folder could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The compiler is not installed (not found on `PATH`).
    #[error("Free Pascal (`{fpc}`) is not installed: install Free Pascal 3.2.2 (`scripts/install-fpc.sh` on Debian/Ubuntu), or build the library with Delphi and serve the library file")]
    FpcNotInstalled {
        /// The compiler asked for.
        fpc: String,
    },
    /// The compiler could not be started.
    #[error("could not run `{fpc}`: {source}")]
    RunFpc {
        /// The compiler.
        fpc: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The compiler failed; `output` holds what it printed.
    #[error("{fpc} failed to compile {} ({status})", project.display())]
    FpcFailed {
        /// The compiler.
        fpc: String,
        /// The project file.
        project: PathBuf,
        /// Its exit status.
        status: ExitStatus,
        /// Its standard output and error.
        output: String,
    },
    /// The compiler succeeded without writing the library.
    #[error("{fpc} succeeded but {} was not written", library.display())]
    LibraryMissing {
        /// The compiler.
        fpc: String,
        /// The library expected.
        library: PathBuf,
    },
}

/// Files of `dir` (not recursively) with one of `extensions` (any case; any extension when
/// empty), unsorted.
pub(crate) fn files_with_extensions(
    dir: &Path,
    extensions: &[&str],
) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if extensions.is_empty()
            || path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)))
        {
            files.push(path);
        }
    }
    Ok(files)
}

/// Finds the library project file of `dir`: the first `.dpr` or `.lpr` (in name order) whose
/// first word is `library`.
pub fn find_library_project(dir: &Path) -> Result<Option<PathBuf>, ProjectError> {
    let mut candidates =
        files_with_extensions(dir, &["dpr", "lpr"]).map_err(|source| ProjectError::ReadFolder {
            dir: dir.to_path_buf(),
            source,
        })?;
    candidates.sort();
    Ok(candidates.into_iter().find(|p| {
        std::fs::read(p).is_ok_and(|bytes| {
            first_word(&String::from_utf8_lossy(&bytes)).eq_ignore_ascii_case("library")
        })
    }))
}

/// The first word of Pascal text after comments and a byte-order mark.
fn first_word(text: &str) -> String {
    let mut rest = text.trim_start_matches('\u{feff}');
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.split_once('\n').map_or("", |(_, r)| r);
        } else if let Some(after) = rest.strip_prefix("(*") {
            rest = after.split_once("*)").map_or("", |(_, r)| r);
        } else if let Some(after) = rest.strip_prefix('{') {
            rest = after.split_once('}').map_or("", |(_, r)| r);
        } else {
            break;
        }
    }
    rest.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// A valid Pascal identifier for a library name.
fn identifier(name: &str) -> String {
    let mut id: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, 'L');
    }
    id
}

/// The library's name: the project file's; without one, `name` (else the first unit's file
/// name) as a Pascal identifier, with `Lib` appended when a unit has that name (a library may
/// not share its name with one of its units). Decided before generating, so the manifest
/// embedded by a first build (which writes the project file) equals that of every later build.
pub fn library_name(project: Option<&Path>, name: Option<&str>, units: &[PathBuf]) -> String {
    if let Some(stem) = project.and_then(Path::file_stem).and_then(|s| s.to_str()) {
        return stem.to_string();
    }
    let unit_stems: Vec<&str> = units
        .iter()
        .filter_map(|u| u.file_stem().and_then(|s| s.to_str()))
        .collect();
    let first = unit_stems
        .first()
        .copied()
        .unwrap_or(frontend::DEFAULT_LIBRARY_NAME);
    let base = identifier(name.unwrap_or(first));
    if unit_stems.iter().any(|u| u.eq_ignore_ascii_case(&base)) {
        format!("{base}Lib")
    } else {
        base
    }
}

fn newest_mtime(paths: impl IntoIterator<Item = PathBuf>) -> Option<SystemTime> {
    paths
        .into_iter()
        .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .max()
}

/// Generates the stubs of the project in `build.dir` (writing only changed files), writes the
/// library project file when there is none, and compiles the library when a unit, include,
/// project or generated file is newer than it.
pub fn build_project(build: &ProjectBuild) -> Result<BuiltLibrary, ProjectError> {
    let dir = build.dir.as_path();
    if !dir.is_dir() {
        return Err(ProjectError::NotAFolder {
            dir: dir.to_path_buf(),
        });
    }
    let mut notes = Vec::new();
    let project = find_library_project(dir)?;
    let units = frontend::expand_paths(&[dir.to_path_buf()])?;
    let library_name = library_name(project.as_deref(), build.name.as_deref(), &units);
    // The project written when there is none is named after the library.
    let stem = project
        .as_deref()
        .and_then(|p| p.file_stem())
        .and_then(|s| s.to_str())
        .unwrap_or(&library_name);
    let inputs = Inputs::new(build);
    let library = library_file(dir, stem);
    if let Some(notes) = inputs.unchanged(dir, &library) {
        return Ok(BuiltLibrary {
            library,
            compiled: false,
            notes,
        });
    }
    inputs.forget();
    let sources = inputs.sources(dir);
    let manifest_name = build.name.as_deref().unwrap_or(&library_name);
    let documents = crate::Documents::read(&[dir.to_path_buf()]).map_err(FrontendError::from)?;
    let run = frontend::generate_documented_units(
        &units,
        &build.options,
        Some(manifest_name),
        build.model,
        &documents,
    )?;
    let rendered = run.rendered();
    let Some(generated) = &run.output else {
        return Err(ProjectError::Diagnostics {
            dir: dir.to_path_buf(),
            errors: run.errors(),
            rendered,
        });
    };
    if !rendered.is_empty() {
        notes.push(Note::Warnings(rendered));
    }
    let generated_dir = dir.join(GENERATED_DIR);
    frontend::write_changed(&generated_dir, &generated.files)?;

    let project = match project {
        Some(project) => {
            let text = std::fs::read(&project)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            if !text.contains(EXPORTS_INCLUDE) {
                notes.push(Note::MissingExports {
                    project: project.clone(),
                });
            }
            project
        }
        None => {
            let listed: Vec<LibraryUnit> = run
                .loaded
                .files
                .iter()
                .filter_map(|file| {
                    file.unit.as_ref().map(|unit| LibraryUnit {
                        name: unit.name.to_string(),
                        path: file.manifest_path.clone(),
                    })
                })
                .collect();
            let text = render_library(&library_name, &listed, GENERATED_DIR)?;
            let path = dir.join(format!("{library_name}.dpr"));
            std::fs::write(&path, text).map_err(|source| ProjectError::Write {
                path: path.clone(),
                source,
            })?;
            notes.push(Note::WroteProject {
                project: path.clone(),
            });
            path
        }
    };
    let built = compile(build, &project, &library_name, notes)?;
    let read = run.loaded.files_read();
    if !run.loaded.db.include_missing() && all_in(dir, &read) {
        inputs.record(dir, sources, &read, &built.library, &built.notes);
    }
    Ok(built)
}

/// Whether every file of `read` is in the folder `dir` itself. An include file found anywhere
/// else could be shadowed by a file added to a folder searched before it (`-I` folders, nearby
/// folders), which the record of inputs would not see.
fn all_in(dir: &Path, read: &[PathBuf]) -> bool {
    let Ok(dir) = std::fs::canonicalize(dir) else {
        return false;
    };
    read.iter().all(|path| {
        std::fs::canonicalize(path).is_ok_and(|path| path.parent() == Some(dir.as_path()))
    })
}

/// The library a project whose file is named `stem` compiles to.
fn library_file(dir: &Path, stem: &str) -> PathBuf {
    dir.join(BUILD_DIR).join(format!(
        "{}{stem}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ))
}

/// Compiles `project` unless the library is newer than every input.
fn compile(
    build: &ProjectBuild,
    project: &Path,
    library_name: &str,
    mut notes: Vec<Note>,
) -> Result<BuiltLibrary, ProjectError> {
    let dir = build.dir.as_path();
    let fpc = build.fpc.as_str();
    let generated_dir = dir.join(GENERATED_DIR);
    let build_dir = dir.join(BUILD_DIR);
    let units_dir = build_dir.join("units");
    std::fs::create_dir_all(&units_dir).map_err(|source| ProjectError::Write {
        path: units_dir.clone(),
        source,
    })?;
    let stem = project
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(library_name);
    let library = library_file(dir, stem);

    let mut inputs =
        files_with_extensions(dir, &["pas", "inc", "dpr", "lpr", "pp"]).unwrap_or_default();
    inputs.extend(files_with_extensions(&generated_dir, &["pas", "inc"]).unwrap_or_default());
    let newest_input = newest_mtime(inputs);
    let built = std::fs::metadata(&library).and_then(|m| m.modified()).ok();
    if let (Some(input), Some(built)) = (newest_input, built) {
        if built >= input {
            notes.push(Note::UpToDate {
                library: library.clone(),
            });
            return Ok(BuiltLibrary {
                library,
                compiled: false,
                notes,
            });
        }
    }

    // Absolute paths, and the project folder as the working folder: Free Pascal also searches
    // the working folder for compiled units, and a stale one there must not be picked up.
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (dir, generated_dir, units_dir, build_dir, library_abs, project) = (
        absolute(dir),
        absolute(&generated_dir),
        absolute(&units_dir),
        absolute(&build_dir),
        absolute(&library),
        absolute(project),
    );
    let mut command = Command::new(fpc);
    command
        .current_dir(&dir)
        .arg("-Mdelphiunicode")
        .arg("-Cg")
        .arg("-O2")
        // Smart linking: only the routines the library uses are linked, from units compiled
        // smartlinkable (the RTL's are). calc's library is 0.58 MB instead of 1.5, with 3,700
        // relocations instead of 13,500, and loads in 0.31 ms instead of 0.44
        // (docs/performance.md, "Runtime: memory and start-up").
        .arg("-CX")
        .arg("-XX")
        .arg("-vew")
        // Every unit: Free Pascal compares source times in whole seconds, so a unit rewritten
        // in the second of the last compile would keep its stale compiled unit.
        .arg("-B")
        .arg(format!("-Fu{}", dir.display()))
        .arg(format!("-Fu{}", generated_dir.display()))
        .arg(format!("-Fi{}", dir.display()))
        .arg(format!("-Fi{}", generated_dir.display()))
        .arg(format!("-FU{}", units_dir.display()))
        .arg(format!("-FE{}", build_dir.display()))
        .arg(format!("-o{}", library_abs.display()))
        .arg(&project);
    for include in &build.options.include_dirs {
        command.arg(format!("-Fi{}", include.display()));
    }
    for define in &build.options.defines {
        command.arg(format!("-d{define}"));
    }
    notes.push(Note::Compiled {
        project: project.clone(),
        fpc: fpc.to_string(),
    });
    let output = command.output().map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => ProjectError::FpcNotInstalled {
            fpc: fpc.to_string(),
        },
        _ => ProjectError::RunFpc {
            fpc: fpc.to_string(),
            source,
        },
    })?;
    if !output.status.success() {
        let mut printed = String::from_utf8_lossy(&output.stdout).into_owned();
        printed.push_str(&String::from_utf8_lossy(&output.stderr));
        return Err(ProjectError::FpcFailed {
            fpc: fpc.to_string(),
            project,
            status: output.status,
            output: printed,
        });
    }
    if !library.is_file() {
        return Err(ProjectError::LibraryMissing {
            fpc: fpc.to_string(),
            library,
        });
    }
    Ok(BuiltLibrary {
        library,
        compiled: true,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_word_skips_comments_and_bom() {
        assert_eq!(
            first_word("\u{feff}{ x } (* y *) // z\nlibrary Calc;"),
            "library"
        );
        assert_eq!(first_word("unit U;"), "unit");
    }

    #[test]
    fn identifiers_are_valid_pascal() {
        assert_eq!(identifier("my-lib"), "my_lib");
        assert_eq!(identifier("1x"), "L1x");
    }

    #[test]
    fn the_library_name_follows_the_project_then_the_name_then_the_first_unit() {
        let units = [PathBuf::from("d/Good.pas"), PathBuf::from("d/Other.pas")];
        assert_eq!(
            library_name(Some(Path::new("d/Mine.dpr")), Some("X"), &units),
            "Mine"
        );
        assert_eq!(library_name(None, Some("my-lib"), &units), "my_lib");
        assert_eq!(library_name(None, None, &units), "GoodLib");
        assert_eq!(library_name(None, Some("other"), &units), "otherLib");
        assert_eq!(library_name(None, None, &[]), "Tools");
    }

    #[test]
    fn a_missing_compiler_says_what_to_install() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(
            dir.path().join("Good.pas"),
            "unit Good;\ninterface\nimplementation\nend.\n",
        )
        .expect("write unit");
        let build = ProjectBuild {
            fpc: "fpc-that-does-not-exist".into(),
            ..ProjectBuild::new(dir.path())
        };
        let error = build_project(&build).expect_err("no compiler");
        let text = error.to_string();
        assert!(
            matches!(error, ProjectError::FpcNotInstalled { .. }),
            "{text}"
        );
        assert!(text.contains("scripts/install-fpc.sh"), "{text}");
        assert!(dir.path().join("GoodLib.dpr").is_file());
    }

    #[test]
    fn a_file_is_not_a_project() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("x.pas");
        std::fs::write(&file, "unit X;").expect("write");
        assert!(matches!(
            build_project(&ProjectBuild::new(&file)),
            Err(ProjectError::NotAFolder { .. })
        ));
    }
}
