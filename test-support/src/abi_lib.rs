//! The hand-written ABI fixture library (`test-support/abi_lib`: `abilib.lpr` and the manifest
//! it embeds, `tools.json`), built with Free Pascal. Defines make the broken variants the load
//! tests need (see the head of `abilib.lpr`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

/// The fixture folder.
pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("abi_lib")
}

/// The fixture's manifest file (embedded byte for byte into the library).
pub fn fixture_manifest() -> PathBuf {
    fixture_dir().join("tools.json")
}

/// The embedded manifest as a Pascal constant: byte literals, so any UTF-8 survives.
fn manifest_include(json: &[u8]) -> String {
    let mut text = String::from("const ManifestJson: RawByteString =\n");
    let lines: Vec<String> = json
        .chunks(64)
        .map(|chunk| {
            let literals: String = chunk.iter().map(|b| format!("#{b}")).collect();
            format!("  {literals}")
        })
        .collect();
    text.push_str(&lines.join(" +\n"));
    text.push_str(";\n");
    text
}

/// Compiles the fixture with `defines` (e.g. `WRONG_ABI`) once per test process, in a folder
/// under `build_root` (the caller's `CARGO_TARGET_TMPDIR`); returns the library path. Panics
/// with the compiler output when `fpc` fails or is missing.
pub fn fixture_library(build_root: &Path, defines: &[&str]) -> PathBuf {
    static BUILT: OnceLock<Mutex<HashMap<(PathBuf, String), PathBuf>>> = OnceLock::new();
    let variant = defines.join("-");
    let key = (build_root.to_path_buf(), variant.clone());
    let mut built = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(path) = built.get(&key) {
        return path.clone();
    }
    let dir = build_root.join(format!(
        "abi_lib-{}-{}",
        std::process::id(),
        if variant.is_empty() {
            "plain"
        } else {
            &variant
        }
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create fixture build folder");
    let source = fixture_dir();
    std::fs::copy(source.join("abilib.lpr"), dir.join("abilib.lpr")).expect("copy abilib.lpr");
    let json = std::fs::read(fixture_manifest()).expect("read tools.json");
    std::fs::write(dir.join("manifest.inc"), manifest_include(&json)).expect("write manifest.inc");
    let library = dir.join(if cfg!(windows) {
        "abilib.dll"
    } else {
        "libabilib.so"
    });
    let mut command = Command::new("fpc");
    command
        .current_dir(&dir)
        .arg("-O1")
        .arg("-Cg")
        .arg("-vew")
        .arg("abilib.lpr");
    command.arg(format!("-o{}", library.display()));
    for define in defines {
        command.arg(format!("-d{define}"));
    }
    let output = command.output().unwrap_or_else(|e| {
        panic!("cannot run fpc ({e}); install Free Pascal 3.2.2 with scripts/install-test-tools.sh")
    });
    assert!(
        output.status.success() && library.is_file(),
        "fpc failed for the ABI fixture ({defines:?}):\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    built.insert(key, library.clone());
    library
}
