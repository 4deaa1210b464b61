//! Finding include files: the name in the directive, the folders searched, case-insensitive
//! matching (Delphi code is written on Windows, where `{$I Defs.INC}` finds `defs.inc`).

use std::path::{Component, Path, PathBuf};

use super::{Cursor, Pp, MAX_INCLUDE_DEPTH, MAX_INCLUDE_EXPANSIONS};
use crate::diagnostic::Diagnostic;
use crate::span::{Listed, SourceDb, Span};

/// The file name of an include directive's argument: a quoted name (`'a b.inc'`) or the text
/// up to the first blank.
pub(crate) fn file_name(argument: &str) -> &str {
    let argument = argument.trim();
    if let Some(quoted) = argument.strip_prefix('\'') {
        return quoted.split('\'').next().unwrap_or("").trim();
    }
    argument.split_whitespace().next().unwrap_or("")
}

/// How far up from the unit's folder the nearby-folder search goes.
const NEARBY_LEVELS: usize = 3;

/// Where to look for an include file.
pub(crate) struct Search<'a> {
    /// The file containing the directive.
    pub including: &'a Path,
    /// The unit being preprocessed (differs from `including` inside include files).
    pub main: &'a Path,
    /// The include folders of the options (`-I`).
    pub include_dirs: &'a [PathBuf],
    /// Where folder listings are read (once per run).
    pub db: &'a SourceDb,
}

/// The canonical path of the include file `name`, searched in this order:
/// 1. the folder of the including file, then of the unit (Delphi searches the unit's folder,
///    Free Pascal the including file's);
/// 2. the include folders;
/// 3. nearby folders: the unit folder's parents up to [`NEARBY_LEVELS`] levels, each with its
///    direct subfolders, nearest first. Projects often keep `.inc` files in a sibling folder
///    found through the IDE's search path, which a command line does not know.
///
/// Without an extension, `.inc` and `.pas` are tried too. Each step matches names ignoring
/// ASCII case, since the code was written on Windows.
pub(crate) fn resolve(search: &Search<'_>, name: &str) -> Option<PathBuf> {
    // Windows separators in the source mean folders on every system.
    let relative: PathBuf = name.split(['\\', '/']).collect();
    let with_extensions: Vec<PathBuf> = if relative.extension().is_some() {
        vec![relative]
    } else {
        vec![
            relative.clone(),
            relative.with_extension("inc"),
            relative.with_extension("pas"),
        ]
    };
    let found = |dir: &Path| {
        with_extensions
            .iter()
            .find_map(|candidate| find_in(search.db, dir, candidate))
            .map(|found| std::fs::canonicalize(&found).unwrap_or(found))
    };
    if name.starts_with(['/', '\\']) || Path::new(name).is_absolute() {
        return found(Path::new("/"));
    }
    let including_dir = folder_of(search.including);
    let main_dir = folder_of(search.main);
    let mut dirs: Vec<&Path> = vec![&including_dir];
    if main_dir != including_dir {
        dirs.push(&main_dir);
    }
    dirs.extend(search.include_dirs.iter().map(PathBuf::as_path));
    if let Some(path) = dirs.into_iter().find_map(found) {
        return Some(path);
    }
    // Nearby folders: only names without folder parts, to keep guesses plausible.
    if with_extensions[0].components().count() != 1 {
        return None;
    }
    let mut ancestor = std::fs::canonicalize(&main_dir).unwrap_or(main_dir);
    let mut previous: Option<PathBuf> = None;
    for _ in 0..=NEARBY_LEVELS {
        if let Some(path) = found(&ancestor) {
            return Some(path);
        }
        // Subfolders by name (the order of their paths: they share the parent), except the
        // one just searched.
        let listing = search.db.listing(&ancestor);
        let mut children: Vec<&std::ffi::OsStr> = listing
            .iter()
            .flat_map(|listed| listed.iter())
            .filter(|e| e.is_dir && !e.name.as_encoded_bytes().starts_with(b"."))
            .map(|e| e.name.as_os_str())
            .filter(|name| previous.as_deref().and_then(Path::file_name) != Some(name))
            .collect();
        children.sort_unstable();
        if let Some(path) = children.iter().find_map(|name| found(&ancestor.join(name))) {
            return Some(path);
        }
        let Some(parent) = ancestor.parent() else {
            break;
        };
        previous = Some(ancestor.clone());
        ancestor = parent.to_path_buf();
    }
    None
}

fn folder_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `dir/relative` if it is a file, else the same path matched component by component
/// ignoring ASCII case.
fn find_in(db: &SourceDb, dir: &Path, relative: &Path) -> Option<PathBuf> {
    let mut current = dir.to_path_buf();
    let components: Vec<Component<'_>> = relative.components().collect();
    for (index, component) in components.iter().enumerate() {
        let last = index + 1 == components.len();
        match component {
            Component::Normal(part) => {
                let fits = |e: &Listed| if last { e.is_file } else { e.is_dir };
                let Some(listing) = db.listing(&current) else {
                    // An unreadable folder may still be searchable: try the exact name.
                    let direct = current.join(part);
                    let exists = if last {
                        direct.is_file()
                    } else {
                        direct.is_dir()
                    };
                    if !exists {
                        return None;
                    }
                    current = direct;
                    continue;
                };
                let entry = listing
                    .iter()
                    .find(|e| e.name == *part && fits(e))
                    .or_else(|| {
                        listing.iter().find(|e| {
                            fits(e)
                                && e.name
                                    .as_encoded_bytes()
                                    .eq_ignore_ascii_case(part.as_encoded_bytes())
                        })
                    })?;
                current.push(&entry.name);
            }
            Component::ParentDir => current.push(".."),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => current.push(component.as_os_str()),
        }
    }
    current.is_file().then_some(current)
}

impl Pp<'_> {
    /// Splices the include file named by `argument`; false when it was not spliced.
    pub(super) fn include(
        &mut self,
        cursor: &mut Cursor,
        depth: usize,
        span: Span,
        argument: &str,
    ) -> bool {
        let name = file_name(argument);
        if name.is_empty() || name.starts_with('%') {
            return false;
        }
        let including = self.db.get(cursor.file).path.clone();
        let main = self.db.get(self.main).path.clone();
        let mut key = format!(
            "{}|{}|{}",
            folder_key(&including),
            folder_key(&main),
            name.to_ascii_lowercase()
        );
        for dir in &self.options.include_dirs {
            key.push('|');
            key.push_str(&dir.to_string_lossy());
        }
        let search = Search {
            including: &including,
            main: &main,
            include_dirs: &self.options.include_dirs,
            db: self.db,
        };
        let found = self.db.memo_path(&key, || resolve(&search, name));
        let Some(path) = found else {
            self.diagnostics.push(
                Diagnostic::warning(format!("include file `{name}` not found"), Some(span))
                    .with_help(
                        "searched next to the including file and the unit, in the include \
                         folders (-I) and in nearby folders; the directive is skipped",
                    ),
            );
            return false;
        };
        if self.include_stack.contains(&path) {
            self.diagnostics.push(
                Diagnostic::error(
                    format!("include cycle: `{name}` is already being included"),
                    Some(span),
                )
                .with_help("remove the `{$I}` that closes the cycle or guard it with `{$IFNDEF}`"),
            );
            return false;
        }
        if depth + 1 > MAX_INCLUDE_DEPTH {
            self.diagnostics.push(
                Diagnostic::error(
                    format!("includes nested deeper than {MAX_INCLUDE_DEPTH} levels at `{name}`"),
                    Some(span),
                )
                .with_help("an include file probably includes itself through a chain"),
            );
            return false;
        }
        if self.expansions >= MAX_INCLUDE_EXPANSIONS {
            // Reported once; the includes after it are skipped silently.
            if self.expansions > MAX_INCLUDE_EXPANSIONS {
                return false;
            }
            self.expansions += 1;
            self.diagnostics.push(
                Diagnostic::error(
                    format!("more than {MAX_INCLUDE_EXPANSIONS} include expansions at `{name}`"),
                    Some(span),
                )
                .with_help("include files that include each other several times multiply"),
            );
            return false;
        }
        self.expansions += 1;
        let codepage = self.options.codepage;
        let loaded = self
            .db
            .load_once(&path, || crate::source::read(&path, codepage));
        let included = match loaded {
            Ok(id) => id,
            Err(err) => {
                self.diagnostics.push(Diagnostic::warning(
                    format!("include file `{name}` cannot be read: {err}"),
                    Some(span),
                ));
                return false;
            }
        };
        // End the including file's segment before the directive, splice, start a new one.
        self.close_segment(cursor);
        if self.include_stack.is_empty() {
            // The main file's own path, for cycles back to it.
            let main = self.db.get(cursor.file).path.clone();
            self.include_stack
                .push(std::fs::canonicalize(&main).unwrap_or(main));
        }
        self.include_stack.push(path);
        self.run_file(included, depth + 1);
        self.include_stack.pop();
        cursor.seg_out = self.out.len();
        cursor.seg_file = span.end as usize;
        true
    }
}

/// The folder of `file` as a memo key part.
pub(super) fn folder_key(file: &std::path::Path) -> String {
    file.parent()
        .map(|dir| dir.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// FPC's `{$I %NAME%}` inserts a string: a quoted literal of at most `room` bytes standing for
/// it (the name itself, since the value depends on the build machine).
pub(super) fn fpc_insert_literal(argument: &str, room: usize) -> Option<String> {
    let inner = argument.strip_prefix('%')?.strip_suffix('%')?;
    if inner.is_empty()
        || !inner
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_')
    {
        return None;
    }
    let literal = format!("'{inner}'");
    (literal.len() <= room).then_some(literal)
}
