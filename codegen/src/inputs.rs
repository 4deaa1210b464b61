//! The record of a project build's inputs and outputs (`DIR/build/inputs.txt`): the size and
//! modification time of every file the last build read or wrote, with the generator and the
//! options it ran with. A build that finds them all as recorded returns the library without
//! reading the units again: `serve DIR` then starts as fast as `serve` of the library.
//!
//! The files: the units, include files and project files of the folder (`.pas`, `.inc`,
//! `.dpr`, `.lpr`, `.pp`), the help and prompt documents, the generated files and the library,
//! and every file the parser read (the same ones, by another name). A file added to any of
//! these folders, or removed, or with another size or time, and another generator (the
//! running executable's size and time) or other options, make the next build a full one. The
//! sources are described as they were before the build read them, so that one changed during
//! a build is found changed by the next. The warnings of a recorded build are recorded with it
//! and reported again when it is taken as it is. A build is not recorded when an include file
//! was missing (one added later would be read), nor when it read one from outside the folder
//! (`crate::project`).

use crate::project::{self, Note, ProjectBuild, BUILD_DIR, GENERATED_DIR};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// The record's file, in the project's build folder.
const INPUTS_FILE: &str = "inputs.txt";

/// The record's first line (its format).
const FORMAT: &str = "delphi-mcp build inputs 2";

/// The line between the files and the notes of the build (no file line starts with `-`).
const NOTES: &str = "--- notes\n";

/// A recorded note: the project does not include the exports (its path follows).
const MISSING_EXPORTS: &str = "missing-exports ";

/// A recorded note: the warnings (the rest of the record is their text).
const WARNINGS: &str = "warnings\n";

/// The extensions of the folder's source files.
const SOURCE_EXTENSIONS: [&str; 5] = ["pas", "inc", "dpr", "lpr", "pp"];

/// The folders of the help and prompt documents (`crate::Documents`).
const DOCUMENT_FOLDERS: [&str; 2] = ["help", "prompts"];

/// What a build of a folder is recorded against: the generator and the options.
#[derive(Debug)]
pub(crate) struct Inputs {
    /// The record's header, `None` when the running executable cannot be described (then
    /// nothing is recorded or trusted).
    header: Option<String>,
    record: PathBuf,
}

/// The sources of a build as they were before it read them.
#[derive(Debug)]
pub(crate) struct Sources(Vec<(PathBuf, String)>);

impl Inputs {
    /// The inputs of `build`.
    pub fn new(build: &ProjectBuild) -> Inputs {
        let generator = std::env::current_exe()
            .ok()
            .and_then(|exe| state(&exe).map(|state| format!("{state} {}", exe.display())));
        let header = generator.map(|generator| {
            format!(
                "{FORMAT}\ngenerator {} {generator}\noptions {:?} {:?} {:?} {:?}\n",
                env!("CARGO_PKG_VERSION"),
                build.name,
                build.options,
                build.model,
                build.fpc
            )
        });
        Inputs {
            header,
            record: build.dir.join(BUILD_DIR).join(INPUTS_FILE),
        }
    }

    /// The library of the last build and its notes, when nothing it read or wrote changed
    /// since.
    pub fn unchanged(&self, dir: &Path, library: &Path) -> Option<Vec<Note>> {
        let header = self.header.as_deref()?;
        let recorded = std::fs::read_to_string(&self.record).ok()?;
        let (files, notes) = recorded.strip_prefix(header)?.split_once(NOTES)?;
        // The files recorded, and those in the folders now: one added shows as a difference.
        let mut paths: BTreeSet<PathBuf> = files
            .lines()
            .filter_map(|line| line.splitn(3, ' ').nth(2))
            .map(PathBuf::from)
            .collect();
        paths.extend(listed(dir, library));
        let now: String = paths
            .iter()
            .map(|path| line(path, &describe(path)))
            .collect();
        if now != files || !library.is_file() {
            return None;
        }
        // In the order a full build reports them: warnings, the project's note, up to date.
        let mut reported = Vec::new();
        let mut rest = notes;
        if let Some(line) = rest.strip_prefix(MISSING_EXPORTS) {
            let (project, after) = line.split_once('\n')?;
            reported.push(Note::MissingExports {
                project: PathBuf::from(project),
            });
            rest = after;
        }
        if let Some(warnings) = rest.strip_prefix(WARNINGS) {
            reported.insert(0, Note::Warnings(warnings.to_string()));
        } else if !rest.is_empty() {
            return None;
        }
        reported.push(Note::UpToDate {
            library: library.to_path_buf(),
        });
        Some(reported)
    }

    /// Removes the record (a build is about to change what it describes).
    pub fn forget(&self) {
        let _ = std::fs::remove_file(&self.record);
    }

    /// The folder's sources as they are now, before a build reads them.
    pub fn sources(&self, dir: &Path) -> Sources {
        Sources(
            source_files(dir)
                .into_iter()
                .map(|path| {
                    let state = describe(&path);
                    (path, state)
                })
                .collect(),
        )
    }

    /// Records a build that read `sources` and the files `read` (include files among them),
    /// wrote the generated files and `library`, and reported `notes`. Failing to write it only
    /// costs the next build its shortcut.
    pub fn record(
        &self,
        dir: &Path,
        sources: Sources,
        read: &[PathBuf],
        library: &Path,
        notes: &[Note],
    ) {
        let Some(header) = &self.header else {
            return;
        };
        let mut files: BTreeMap<PathBuf, String> = sources.0.into_iter().collect();
        // Project files may be written by the build; what the parser read under another name
        // (include files by their canonical paths) is described now.
        for path in listed(dir, library).into_iter().chain(read.iter().cloned()) {
            if !files.contains_key(&path) || is_project_file(&path) {
                let state = describe(&path);
                files.insert(path, state);
            }
        }
        if files
            .keys()
            .any(|path| path.to_string_lossy().contains('\n'))
        {
            return;
        }
        let mut text = header.clone();
        for (path, state) in &files {
            text.push_str(&line(path, state));
        }
        text.push_str(NOTES);
        // The project's note first, as the warnings' text runs to the end.
        for note in notes {
            if let Note::MissingExports { project } = note {
                if project.to_string_lossy().contains('\n') {
                    return;
                }
                text.push_str(&format!("{MISSING_EXPORTS}{}\n", project.display()));
            }
        }
        for note in notes {
            if let Note::Warnings(warnings) = note {
                text.push_str(WARNINGS);
                text.push_str(warnings);
            }
        }
        let _ = std::fs::write(&self.record, text);
    }
}

/// One line of the record: the state, then the path (last, as it may hold spaces).
fn line(path: &Path, state: &str) -> String {
    format!("{state} {}\n", path.display())
}

/// A file's size and modification time (nanoseconds), or `missing -`.
fn describe(path: &Path) -> String {
    state(path).unwrap_or_else(|| "missing -".to_string())
}

fn state(path: &Path) -> Option<String> {
    let metadata = std::fs::metadata(path).ok()?;
    let modified = metadata.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some(format!("{} {}", metadata.len(), modified.as_nanos()))
}

/// The folder's sources and documents.
fn source_files(dir: &Path) -> Vec<PathBuf> {
    let mut paths = files_with_extensions(dir, &SOURCE_EXTENSIONS);
    for folder in DOCUMENT_FOLDERS {
        paths.extend(files_with_extensions(&dir.join(folder), &["md"]));
    }
    paths
}

/// The files of the folder a build reads or writes, found by listing (so a new one counts).
fn listed(dir: &Path, library: &Path) -> Vec<PathBuf> {
    let mut paths = source_files(dir);
    paths.extend(files_with_extensions(&dir.join(GENERATED_DIR), &[]));
    paths.push(library.to_path_buf());
    paths
}

fn is_project_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("dpr") || e.eq_ignore_ascii_case("lpr"))
}

/// The files of `dir` with one of `extensions` (any, when empty); none when it cannot be read.
fn files_with_extensions(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut files = project::files_with_extensions(dir, extensions).unwrap_or_default();
    files.retain(|path| path.is_file());
    files
}
