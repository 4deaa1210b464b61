//! Source files, file ids and spans.
//!
//! Every span refers to one loaded file: `start..end` are byte offsets into that file's
//! decoded UTF-8 text ([`SourceFile::text`]). Line and column (1-based, columns counted in
//! characters) are the same as in the original file whatever its encoding.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

/// Identifies a file loaded into a [`SourceDb`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct FileId(pub u32);

/// A byte range of one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Span {
    /// The file the range belongs to.
    pub file: FileId,
    /// First byte (inclusive) in the file's decoded text.
    pub start: u32,
    /// Last byte (exclusive) in the file's decoded text.
    pub end: u32,
}

/// A file as the parser read it.
#[derive(Debug)]
pub struct SourceFile {
    /// Path as given by the caller (or a virtual name for in-memory sources).
    pub path: PathBuf,
    /// The decoded text (UTF-8), with the byte-order mark removed.
    pub text: String,
    /// The encoding the bytes were decoded from (`"UTF-8"`, `"UTF-16LE"`, `"windows-1252"`, ...).
    pub encoding: &'static str,
    /// Byte offset of the start of every line in `text`, found on first use (most parses
    /// never ask for a line).
    line_starts: std::sync::OnceLock<Vec<u32>>,
}

/// All files loaded during a run (units and the include files they pull in).
///
/// Shared between threads when several units are parsed in parallel; a [`FileId`] is valid for
/// the whole run, so diagnostics from different units can be reported together.
#[derive(Debug, Default)]
pub struct SourceDb {
    files: RwLock<Vec<Arc<SourceFile>>>,
    /// Files loaded by path through [`SourceDb::load_once`] (include files shared by many units).
    by_path: RwLock<HashMap<PathBuf, FileId>>,
    /// Results of include-file searches (see [`SourceDb::memo_path`]).
    path_memo: RwLock<HashMap<String, Option<PathBuf>>>,
    /// Folder listings read by include-file searches (see [`SourceDb::listing`]), keyed by the
    /// path's bytes: hashing a `Path` walks its components, which cost more than the lookup.
    listings: RwLock<HashMap<std::ffi::OsString, Option<Arc<[Listed]>>>>,
}

/// One entry of a folder listing (see [`SourceDb::listing`]).
#[derive(Debug)]
pub struct Listed {
    /// The entry's file name.
    pub name: std::ffi::OsString,
    /// True for a folder (or a link to one).
    pub is_dir: bool,
    /// True for a regular file (or a link to one).
    pub is_file: bool,
}

impl SourceDb {
    /// An empty database.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a decoded file and returns its id.
    pub fn add(&self, file: SourceFile) -> FileId {
        let mut files = self.files.write().unwrap_or_else(|e| e.into_inner());
        files.push(Arc::new(file));
        FileId((files.len() - 1) as u32)
    }

    /// The file with this id.
    ///
    /// # Panics
    /// When the id was not handed out by this database (a programming error, never input).
    pub fn get(&self, id: FileId) -> Arc<SourceFile> {
        let files = self.files.read().unwrap_or_else(|e| e.into_inner());
        Arc::clone(&files[id.0 as usize])
    }

    /// Number of files loaded so far.
    pub fn len(&self) -> usize {
        self.files.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// True when no file is loaded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The file loaded from `path` by an earlier call, or the one `load` reads now.
    ///
    /// Used for include files, which many units of a project share: each is read and decoded
    /// once per run. `path` should be canonical so that two spellings of one file meet.
    pub fn load_once(
        &self,
        path: &Path,
        load: impl FnOnce() -> std::io::Result<SourceFile>,
    ) -> std::io::Result<FileId> {
        if let Some(&id) = self
            .by_path
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(path)
        {
            return Ok(id);
        }
        let file = load()?;
        let mut by_path = self.by_path.write().unwrap_or_else(|e| e.into_inner());
        // Another thread may have loaded it meanwhile; keep the first.
        if let Some(&id) = by_path.get(path) {
            return Ok(id);
        }
        let id = self.add(file);
        by_path.insert(path.to_path_buf(), id);
        Ok(id)
    }

    /// The entries of folder `dir`, read once per database; `None` when it cannot be read.
    ///
    /// Include-file searches match names ignoring case and look through nearby folders, so
    /// the units of a project ask for the same few folders again and again; reading each once
    /// keeps a search for a missing include from costing a folder walk per unit. A run sees
    /// the folders as they were when first read.
    pub fn listing(&self, dir: &Path) -> Option<Arc<[Listed]>> {
        memoized(&self.listings, dir.as_os_str(), || {
            let entries = std::fs::read_dir(dir).ok()?;
            let listed = entries.flatten().map(|entry| {
                let mut file_type = entry.file_type().ok();
                if file_type.is_some_and(|t| t.is_symlink()) {
                    file_type = std::fs::metadata(entry.path()).ok().map(|m| m.file_type());
                }
                Listed {
                    name: entry.file_name(),
                    is_dir: file_type.is_some_and(|t| t.is_dir()),
                    is_file: file_type.is_some_and(|t| t.is_file()),
                }
            });
            Some(listed.collect())
        })
    }

    /// The path `search` finds for `key`, computed once per database.
    ///
    /// Used to remember where an include file was found (or that it was not), so the many
    /// units of a project that include the same file search the folders once. The key must
    /// say everything the search depends on.
    pub fn memo_path(
        &self,
        key: &str,
        search: impl FnOnce() -> Option<PathBuf>,
    ) -> Option<PathBuf> {
        memoized(&self.path_memo, key, search)
    }

    /// Whether an include-file search found nothing (the directive was skipped with a
    /// warning): a file added later under that name would change what is read.
    pub fn include_missing(&self) -> bool {
        self.path_memo
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .any(Option::is_none)
    }
}

/// The value `map` holds for `key`, or the one `compute` makes now (and the map keeps).
fn memoized<K, Q, V>(map: &RwLock<HashMap<K, V>>, key: &Q, compute: impl FnOnce() -> V) -> V
where
    K: std::borrow::Borrow<Q> + std::hash::Hash + Eq,
    Q: ToOwned<Owned = K> + std::hash::Hash + Eq + ?Sized,
    V: Clone,
{
    if let Some(found) = map.read().unwrap_or_else(|e| e.into_inner()).get(key) {
        return found.clone();
    }
    let value = compute();
    map.write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key.to_owned(), value.clone());
    value
}

/// A 1-based line and column (columns count characters, tabs as one).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct LineCol {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column in characters.
    pub column: u32,
}

impl SourceFile {
    /// A file of `text` decoded from `encoding`.
    pub fn new(path: PathBuf, text: String, encoding: &'static str) -> Self {
        Self {
            path,
            text,
            encoding,
            line_starts: std::sync::OnceLock::new(),
        }
    }

    /// Byte offset of the start of every line of the text.
    pub fn line_starts(&self) -> &[u32] {
        self.line_starts
            .get_or_init(|| crate::source::line_starts(&self.text))
    }

    /// Line and column of a byte offset (clamped to the text; offsets inside a character
    /// count as that character).
    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = (offset as usize).min(self.text.len());
        let line_starts = self.line_starts();
        let line_index = line_starts
            .partition_point(|&start| start as usize <= offset)
            .saturating_sub(1);
        let line_start = line_starts.get(line_index).copied().unwrap_or(0) as usize;
        let column = self
            .text
            .get(line_start..)
            .map(|rest| {
                rest.char_indices()
                    .take_while(|(i, _)| *i < offset - line_start)
                    .count()
            })
            .unwrap_or(0);
        LineCol {
            line: line_index as u32 + 1,
            column: column as u32 + 1,
        }
    }

    /// The text of the 1-based line `line`, without its line break.
    pub fn line_text(&self, line: u32) -> &str {
        let index = (line as usize).saturating_sub(1);
        let line_starts = self.line_starts();
        let Some(&start) = line_starts.get(index) else {
            return "";
        };
        let end = line_starts
            .get(index + 1)
            .map_or(self.text.len(), |&e| e as usize);
        self.text
            .get(start as usize..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }
}
