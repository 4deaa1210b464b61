//! The one front end: how every user of the generator reads unit files — the `manifest`, `gen`,
//! `build`, `serve DIR` and `inspect` commands, build scripts ([`crate::Builder`]) and the
//! `bind!` macro — so that all of them accept and reject exactly the same input.
//!
//! [`expand_paths`] turns files and folders into unit files; [`load_files`] checks the target
//! and parses the files in parallel into one [`SourceDb`]; [`generate_units`] and
//! [`manifest_units`] run the generator on them, with parse and generation diagnostics in one
//! list without duplicates ([`Run`]); [`changed_files`] and [`write_changed`] compare and write
//! the generated files.

use crate::model::ModelOptions;
use crate::types::Target;
use crate::{GenerateError, Generated, Outcome, UnitInput};
use delphi_mcp_manifest::Manifest;
use delphi_mcp_parser::target::UnknownTarget;
use delphi_mcp_parser::{ast, Diagnostic, FileId, ParseOptions, ParseResult, SourceDb, Span};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

/// Files the generator writes itself; a folder argument never reads them as units.
pub const GENERATED_UNITS: [&str; 3] = [
    crate::pascal::EXPORTS_UNIT,
    crate::pascal::SUPPORT_UNITS[0],
    crate::pascal::SUPPORT_UNITS[1],
];

/// The library name when neither a name nor a unit gives one.
pub const DEFAULT_LIBRARY_NAME: &str = "Tools";

/// Why the units could not be read or the generated files not written. Problems in the units
/// themselves are diagnostics of a [`Run`], not errors.
#[derive(Debug, thiserror::Error)]
pub enum FrontendError {
    /// The `--target` name is not in the parser's table.
    #[error(transparent)]
    UnknownTarget(#[from] UnknownTarget),
    /// A folder argument could not be listed.
    #[error("cannot read the folder {}: {source}", path.display())]
    ReadFolder {
        /// The folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The paths name no unit file.
    #[error("no Pascal units found in {}", list(paths))]
    NoUnits {
        /// The paths given.
        paths: Vec<PathBuf>,
    },
    /// A template failed to render.
    #[error(transparent)]
    Generate(#[from] GenerateError),
    /// An output folder could not be created.
    #[error("cannot create the folder {}: {source}", path.display())]
    CreateFolder {
        /// The folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A generated file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

fn list(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    shown.join(", ")
}

/// The unit files named by `paths`: a file as given, a folder its `*.pas` files (not
/// recursively, sorted, without [`GENERATED_UNITS`]).
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, FrontendError> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let fail = |source| FrontendError::ReadFolder {
            path: path.clone(),
            source,
        };
        let mut found = Vec::new();
        for entry in std::fs::read_dir(path).map_err(fail)? {
            let file = entry.map_err(fail)?.path();
            let is_unit = file.is_file()
                && file
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("pas"))
                && !file
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| GENERATED_UNITS.contains(&n));
            if is_unit {
                found.push(file);
            }
        }
        found.sort();
        files.extend(found);
    }
    if files.is_empty() {
        return Err(FrontendError::NoUnits {
            paths: paths.to_vec(),
        });
    }
    Ok(files)
}

/// One file read by [`load_files`].
#[derive(Debug)]
pub struct LoadedFile {
    /// The path as given (or as found in a folder).
    pub path: PathBuf,
    /// Its path in the manifest: relative to the deepest folder holding all files,
    /// `/`-separated.
    pub manifest_path: String,
    /// The file in the database; `None` when it could not be read.
    pub file: Option<FileId>,
    /// The syntax tree; present even when some declarations had errors.
    pub unit: Option<ast::Unit>,
    /// The file's diagnostics, in source order, each once.
    pub diagnostics: Vec<Diagnostic>,
}

/// Parsed files, with the database their spans point into.
#[derive(Debug)]
pub struct LoadedUnits {
    /// Every file read (units and includes).
    pub db: SourceDb,
    /// The target the files were read for.
    pub target: Target,
    /// The files, in the order given.
    pub files: Vec<LoadedFile>,
}

impl LoadedUnits {
    /// The generator inputs: the files that gave a unit.
    pub fn inputs(&self) -> Vec<UnitInput<'_>> {
        self.files
            .iter()
            .filter_map(|f| {
                f.unit.as_ref().map(|unit| UnitInput {
                    unit,
                    path: &f.manifest_path,
                })
            })
            .collect()
    }

    /// Every parse diagnostic, file by file.
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.files.iter().flat_map(|f| &f.diagnostics)
    }

    /// True when a parse diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics().any(Diagnostic::is_error)
    }

    /// Every file the parser read (units and the include files they pulled in), sorted.
    pub fn files_read(&self) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = (0..self.db.len())
            .map(|index| self.db.get(FileId(index as u32)).path.clone())
            .filter(|path| path != std::path::Path::new(crate::model::SUPPORT_PATH))
            .collect();
        paths.sort();
        paths.dedup();
        paths
    }

    /// The library name in the manifest: `name` when given, else the first unit's name.
    pub fn library_name(&self, name: Option<&str>) -> String {
        name.map(str::to_string)
            .or_else(|| {
                self.files
                    .iter()
                    .find_map(|f| f.unit.as_ref().map(|u| u.name.to_string()))
            })
            .unwrap_or_else(|| DEFAULT_LIBRARY_NAME.to_string())
    }

    /// Renders `diagnostics` (rustc style, with file:line:col and the source line).
    pub fn render(&self, diagnostics: &[Diagnostic]) -> String {
        diagnostics.iter().map(|d| d.render(&self.db)).collect()
    }
}

/// `diagnostics` without repeats: the parser may report one problem once per pass over a file,
/// and an include file read by two units reports its problems twice.
pub fn dedup_diagnostics(diagnostics: impl IntoIterator<Item = Diagnostic>) -> Vec<Diagnostic> {
    let mut seen: HashSet<(Option<Span>, String)> = HashSet::new();
    diagnostics
        .into_iter()
        .filter(|d| seen.insert((d.span, d.message.clone())))
        .collect()
}

/// The deepest folder containing all `files` (absolute paths).
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

/// Parses `files` (in parallel, results in the order given) for the target of `options`, naming
/// each relative to their common folder. An unknown target is an error before anything is
/// read; unreadable and invalid files are diagnostics.
pub fn load_files(files: &[PathBuf], options: &ParseOptions) -> Result<LoadedUnits, FrontendError> {
    let target = delphi_mcp_parser::target::lookup(&options.target)?;
    let absolute: Vec<PathBuf> = files
        .iter()
        .map(|f| std::path::absolute(f).unwrap_or_else(|_| f.clone()))
        .collect();
    let base = common_dir(&absolute);
    let db = SourceDb::new();
    let results = parse_parallel(&db, files, options);
    let files = files
        .iter()
        .zip(&absolute)
        .zip(results)
        .map(|((path, absolute), result)| LoadedFile {
            path: path.clone(),
            manifest_path: absolute
                .strip_prefix(&base)
                .unwrap_or(path)
                .to_string_lossy()
                .replace('\\', "/"),
            file: result.file,
            unit: result.unit,
            diagnostics: dedup_diagnostics(result.diagnostics),
        })
        .collect();
    Ok(LoadedUnits { db, target, files })
}

/// Source text one more parsing thread is worth: starting a thread and waiting for it costs
/// about as much as parsing a few kilobytes, and far more on a busy machine.
const BYTES_PER_THREAD: u64 = 64 * 1024;

/// Parses `files` on up to one thread per core (one per [`BYTES_PER_THREAD`] of text), each
/// thread taking the next file when done, so one large unit does not hold up the others.
/// Scoped threads rather than a thread pool: this code also runs inside the `bind!`
/// proc-macro, and they measured as fast as rayon on small and large sets of units.
fn parse_parallel(db: &SourceDb, files: &[PathBuf], options: &ParseOptions) -> Vec<ParseResult> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let bytes: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let worth = usize::try_from(bytes.div_ceil(BYTES_PER_THREAD)).unwrap_or(usize::MAX);
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(files.len())
        .min(worth);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(file) = files.get(index) else {
                return done;
            };
            done.push((index, delphi_mcp_parser::parse_file(db, file, options)));
        }
    };
    let mut results: Vec<(usize, ParseResult)> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut results = work();
        for helper in helpers {
            match helper.join() {
                Ok(done) => results.extend(done),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        results
    });
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, result)| result).collect()
}

/// [`expand_paths`], then [`load_files`].
pub fn load_units(paths: &[PathBuf], options: &ParseOptions) -> Result<LoadedUnits, FrontendError> {
    load_files(&expand_paths(paths)?, options)
}

/// A generation run: the parsed units, the output and every diagnostic.
#[derive(Debug)]
pub struct Run<T> {
    /// The parsed units.
    pub loaded: LoadedUnits,
    /// The output; `None` when a diagnostic is an error.
    pub output: Option<T>,
    /// Parse diagnostics, then generation diagnostics, each once.
    pub diagnostics: Vec<Diagnostic>,
}

impl<T> Run<T> {
    fn new(loaded: LoadedUnits, outcome: Outcome<T>) -> Run<T> {
        let parsed = loaded.diagnostics().cloned();
        let diagnostics = dedup_diagnostics(parsed.chain(outcome.diagnostics));
        let failed = diagnostics.iter().any(Diagnostic::is_error);
        Run {
            output: outcome.output.filter(|_| !failed),
            loaded,
            diagnostics,
        }
    }

    /// The number of error diagnostics.
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// True when there is no output (a diagnostic is an error).
    pub fn failed(&self) -> bool {
        self.output.is_none()
    }

    /// Every diagnostic, rendered (empty when there were none).
    pub fn rendered(&self) -> String {
        self.loaded.render(&self.diagnostics)
    }
}

/// Parses the units of `paths` and generates the manifest and stubs; the library is called
/// `name`, else after the first unit; `model` holds the options of the generator (`--naming`).
/// The steps of `delphi-mcp gen`, `build`, `serve DIR`, build scripts and `bind!`.
pub fn generate_units(
    paths: &[PathBuf],
    options: &ParseOptions,
    name: Option<&str>,
    model: ModelOptions,
) -> Result<Run<Generated>, FrontendError> {
    run_units(paths, options, name, |loaded, name| {
        let inputs = loaded.inputs();
        Ok(crate::generate_with(
            &loaded.db,
            &inputs,
            &loaded.target,
            name,
            model,
        )?)
    })
}

/// Parses the units of `paths` and builds their manifest (no stubs), with the options of
/// [`generate_units`]: `delphi-mcp manifest`.
pub fn manifest_units(
    paths: &[PathBuf],
    options: &ParseOptions,
    name: Option<&str>,
    model: ModelOptions,
) -> Result<Run<Manifest>, FrontendError> {
    run_units(paths, options, name, |loaded, name| {
        let inputs = loaded.inputs();
        Ok(crate::manifest_with(
            &loaded.db,
            &inputs,
            &loaded.target,
            name,
            model,
        ))
    })
}

/// Loads the units of `paths` and runs `step` on them with the library name.
fn run_units<T>(
    paths: &[PathBuf],
    options: &ParseOptions,
    name: Option<&str>,
    step: impl FnOnce(&LoadedUnits, &str) -> Result<Outcome<T>, FrontendError>,
) -> Result<Run<T>, FrontendError> {
    let loaded = load_units(paths, options)?;
    let name = loaded.library_name(name);
    let outcome = step(&loaded, &name)?;
    Ok(Run::new(loaded, outcome))
}

/// The files of `files` (name → text) whose content in `dir` differs or that are missing.
pub fn changed_files(dir: &Path, files: &BTreeMap<String, String>) -> Vec<PathBuf> {
    files
        .iter()
        .filter(|(name, text)| {
            std::fs::read(dir.join(name)).map_or(true, |bytes| bytes != text.as_bytes())
        })
        .map(|(name, _)| dir.join(name))
        .collect()
}

/// Writes the files of `files` that changed into `dir` (created when missing). Unchanged files
/// keep their time stamps, so builds that depend on them are not redone. Returns the files
/// written.
pub fn write_changed(
    dir: &Path,
    files: &BTreeMap<String, String>,
) -> Result<Vec<PathBuf>, FrontendError> {
    std::fs::create_dir_all(dir).map_err(|source| FrontendError::CreateFolder {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut written = Vec::new();
    for (name, text) in files {
        let path = dir.join(name);
        if std::fs::read(&path).is_ok_and(|bytes| bytes == text.as_bytes()) {
            continue;
        }
        std::fs::write(&path, text).map_err(|source| FrontendError::Write {
            path: path.clone(),
            source,
        })?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Writes a test file.
    pub(crate) fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write a test file");
        path
    }

    const UNIT: &str = "unit Tiny;\ninterface\n/// <summary>Adds.</summary>\n[McpTool]\n\
        function Add(A, B: Integer): Integer;\nimplementation\nfunction Add(A, B: Integer): Integer;\n\
        begin\n  Result := A + B;\nend;\nend.\n";

    #[test]
    fn folders_give_their_units_without_the_generated_ones() {
        let dir = tempfile::tempdir().expect("temp dir");
        write(dir.path(), "B.pas", UNIT);
        write(dir.path(), "A.PAS", UNIT);
        write(dir.path(), "McpExports.pas", "unit McpExports;");
        write(dir.path(), "Lib.dpr", "library Lib;");
        let files = expand_paths(&[dir.path().to_path_buf()]).expect("lists");
        let names: Vec<_> = files.iter().filter_map(|f| f.file_name()).collect();
        assert_eq!(names, ["A.PAS", "B.pas"]);
        let empty = tempfile::tempdir().expect("temp dir");
        let error = expand_paths(&[empty.path().to_path_buf()]).expect_err("no units");
        assert!(matches!(error, FrontendError::NoUnits { .. }), "{error}");
    }

    #[test]
    fn an_unknown_target_is_an_error_listing_the_known_ones() {
        let options = ParseOptions {
            target: "delphi99-amiga".into(),
            ..ParseOptions::default()
        };
        let error = load_files(&[PathBuf::from("Missing.pas")], &options).expect_err("unknown");
        let text = error.to_string();
        assert!(matches!(error, FrontendError::UnknownTarget(_)), "{text}");
        assert!(
            text.contains("delphi99-amiga") && text.contains("fpc-linux64"),
            "{text}"
        );
    }

    #[test]
    fn files_keep_their_order_and_paths_are_relative_to_the_common_folder() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("sub")).expect("sub folder");
        let names = ["Z", "A", "M", "C", "B"];
        // Enough text for several parsing threads (on a machine with more than one core).
        let padding = format!("{{{}}}\n", "x".repeat(BYTES_PER_THREAD as usize / 2));
        let mut files: Vec<PathBuf> = names
            .iter()
            .map(|n| {
                let text = padding.clone() + &UNIT.replace("Tiny", n);
                write(dir.path(), &format!("{n}.pas"), &text)
            })
            .collect();
        files.push(write(
            &dir.path().join("sub"),
            "S.pas",
            &UNIT.replace("Tiny", "S"),
        ));
        files.push(dir.path().join("Missing.pas"));
        let loaded = load_files(&files, &ParseOptions::default()).expect("loads");
        let units: Vec<_> = loaded
            .files
            .iter()
            .map(|f| f.unit.as_ref().map(|u| u.name.to_string()))
            .collect();
        let expected: Vec<Option<String>> = names
            .iter()
            .chain(&["S"])
            .map(|n| Some(n.to_string()))
            .chain([None])
            .collect();
        assert_eq!(units, expected);
        assert_eq!(loaded.files[5].manifest_path, "sub/S.pas");
        assert_eq!(loaded.library_name(None), "Z");
        assert_eq!(loaded.library_name(Some("Lib")), "Lib");
        assert!(loaded.has_errors(), "the missing file is an error");
    }

    #[test]
    fn repeated_diagnostics_are_shown_once() {
        let dir = tempfile::tempdir().expect("temp dir");
        write(dir.path(), "broken.inc", "const X = ;\n");
        let unit = "unit U;\ninterface\n{$I broken.inc}\nimplementation\nend.\n";
        let a = write(dir.path(), "A.pas", &unit.replace("U;", "A;"));
        let b = write(dir.path(), "B.pas", &unit.replace("U;", "B;"));
        let run = generate_units(
            &[a, b],
            &ParseOptions::default(),
            None,
            ModelOptions::default(),
        )
        .expect("runs");
        let shown: Vec<_> = run
            .diagnostics
            .iter()
            .map(|d| (d.span, d.message.clone()))
            .collect();
        let unique: HashSet<_> = shown.iter().cloned().collect();
        assert!(!shown.is_empty());
        assert_eq!(shown.len(), unique.len(), "{shown:?}");
        // Both units report the include's error; it is shown once.
        assert!(run.loaded.diagnostics().count() > shown.len(), "{shown:?}");
        assert!(run.failed());
    }

    #[test]
    fn only_changed_files_are_written() {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("out");
        let mut files = BTreeMap::new();
        files.insert("a.txt".to_string(), "A".to_string());
        files.insert("b.txt".to_string(), "B".to_string());
        assert_eq!(changed_files(&out, &files).len(), 2);
        assert_eq!(write_changed(&out, &files).expect("writes").len(), 2);
        assert!(changed_files(&out, &files).is_empty());
        files.insert("b.txt".to_string(), "B2".to_string());
        assert_eq!(
            write_changed(&out, &files).expect("writes"),
            [out.join("b.txt")]
        );
    }
}
