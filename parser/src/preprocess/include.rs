//! Finding include files: the name in the directive, the folders searched, case-insensitive
//! matching (Delphi code is written on Windows, where `{$I Defs.INC}` finds `defs.inc`).

use std::path::{Component, Path, PathBuf};

/// The file name of an include directive's argument: a quoted name (`'a b.inc'`) or the text
/// up to the first blank.
pub(crate) fn file_name(argument: &str) -> &str {
    let argument = argument.trim();
    if let Some(quoted) = argument.strip_prefix('\'') {
        return quoted.split('\'').next().unwrap_or("").trim();
    }
    argument.split_whitespace().next().unwrap_or("")
}

/// The canonical path of the include file `name`, searched next to `including`, then in
/// `include_dirs`; without an extension `.inc` and `.pas` are tried too.
pub(crate) fn resolve(including: &Path, name: &str, include_dirs: &[PathBuf]) -> Option<PathBuf> {
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
    let own_dir = including
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let own_dir = if own_dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        own_dir
    };
    let absolute = name.starts_with(['/', '\\']) || Path::new(name).is_absolute();
    let dirs: Vec<&Path> = if absolute {
        vec![Path::new("/")]
    } else {
        std::iter::once(own_dir.as_path())
            .chain(include_dirs.iter().map(PathBuf::as_path))
            .collect()
    };
    for dir in dirs {
        for candidate in &with_extensions {
            if let Some(found) = find_in(dir, candidate) {
                return Some(std::fs::canonicalize(&found).unwrap_or(found));
            }
        }
    }
    None
}

/// `dir/relative` if it is a file, else the same path matched component by component
/// ignoring ASCII case.
fn find_in(dir: &Path, relative: &Path) -> Option<PathBuf> {
    let exact = dir.join(relative);
    if exact.is_file() {
        return Some(exact);
    }
    let mut current = dir.to_path_buf();
    let components: Vec<Component<'_>> = relative.components().collect();
    for (index, component) in components.iter().enumerate() {
        let last = index + 1 == components.len();
        match component {
            Component::Normal(part) => {
                let direct = current.join(part);
                let wanted_dir = !last;
                let fits = |p: &Path| if wanted_dir { p.is_dir() } else { p.is_file() };
                if fits(&direct) {
                    current = direct;
                    continue;
                }
                let part = part.to_string_lossy();
                let entry = std::fs::read_dir(&current).ok()?.flatten().find(|entry| {
                    entry
                        .file_name()
                        .to_string_lossy()
                        .eq_ignore_ascii_case(&part)
                        && fits(&entry.path())
                })?;
                current = entry.path();
            }
            Component::ParentDir => current.push(".."),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => current.push(component.as_os_str()),
        }
    }
    current.is_file().then_some(current)
}
