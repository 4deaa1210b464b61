//! Building example and fixture projects with Free Pascal for tests, through the same code as
//! `delphi-mcp build`. Each project is copied into a folder of its own under the target
//! directory (per test process), so tests never write into the repository and never race.
//! Each project is built once per test process, shared by every test of the binary.

use super::repo;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Builds `examples/<name>` and returns the path of its library.
pub fn build_example(name: &str) -> PathBuf {
    build_project_copy(&repo().join("examples").join(name))
}

/// Builds `tests/fixtures/<name>` and returns the path of its library.
pub fn build_fixture(name: &str) -> PathBuf {
    build_project_copy(&repo().join("tests").join("fixtures").join(name))
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy folder");
    for entry in std::fs::read_dir(from).expect("read the project folder") {
        let entry = entry.expect("folder entry");
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "build" {
                copy_dir(&path, &to.join(name));
            }
        } else {
            std::fs::copy(&path, to.join(name)).expect("copy a project file");
        }
    }
}

/// Copies the project folder `dir` and builds it (once per test process).
pub fn build_project_copy(dir: &Path) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<PathBuf, PathBuf>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(HashMap::new()));
    let mut built = built.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(library) = built.get(dir) {
        return library.clone();
    }
    let name = dir.file_name().expect("project folder name");
    let copy = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("projects-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&copy);
    copy_dir(dir, &copy);
    let build = delphi_mcp_codegen::project::ProjectBuild::new(&copy);
    let library = delphi_mcp_codegen::project::build_project(&build)
        .unwrap_or_else(|e| panic!("building {}: {e:?}", dir.display()))
        .library;
    built.insert(dir.to_path_buf(), library.clone());
    library
}
