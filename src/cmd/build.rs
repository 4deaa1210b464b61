//! `delphi-mcp build`: generate the stubs of a project folder, then compile its library with
//! Free Pascal.
//!
//! Layout: the units are the folder's `*.pas` files; generated files go to `DIR/generated/`;
//! the library project is the folder's `.dpr`/`.lpr` whose first word is `library` (generated
//! as `<Name>.dpr` when there is none); compiled units go to `DIR/build/units/` and the library
//! to `DIR/build/`. Delphi builds the same project with `dcc64` or MSBuild (`docs/abi.md`).

use crate::cmd::common::SourceArgs;
use crate::cmd::gen::{expand_paths, generate, write_files};
use delphi_mcp_codegen::pascal::{render_library, LibraryUnit};
use miette::{miette, IntoDiagnostic};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::SystemTime;

/// Arguments of `delphi-mcp build`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project folder.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Name of the library (default: the project file's, else the first unit's name).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// The Free Pascal compiler to run.
    #[arg(long, value_name = "FPC", default_value = "fpc")]
    pub fpc: String,
    /// How to read the units.
    #[command(flatten)]
    pub source: SourceArgs,
}

/// Folder (inside the project) the generated files go to.
pub const GENERATED_DIR: &str = "generated";
/// Folder (inside the project) the compiler output goes to.
pub const BUILD_DIR: &str = "build";

/// Finds the library project file of `dir`: a `.dpr` or `.lpr` starting with `library`.
pub fn find_library_project(dir: &Path) -> miette::Result<Option<PathBuf>> {
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_diagnostic()
        .map_err(|e| e.context(format!("reading folder {}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| e.eq_ignore_ascii_case("dpr") || e.eq_ignore_ascii_case("lpr"))
        })
        .collect();
    candidates.sort();
    Ok(candidates.into_iter().find(|p| {
        std::fs::read(p)
            .map(|bytes| {
                first_word(&String::from_utf8_lossy(&bytes)).eq_ignore_ascii_case("library")
            })
            .unwrap_or(false)
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

fn newest_mtime(paths: impl IntoIterator<Item = PathBuf>) -> Option<SystemTime> {
    paths
        .into_iter()
        .filter_map(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .max()
}

fn files_with_extensions(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension()
                        .and_then(|e| e.to_str())
                        .is_some_and(|e| extensions.iter().any(|x| e.eq_ignore_ascii_case(x)))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Generates and compiles the project in `dir`; returns the library's path. Diagnostics and
/// notes go to stderr. Compiles only when a unit, include, project or generated file is newer
/// than the library.
pub fn build_project(
    dir: &Path,
    name: Option<&str>,
    source: &SourceArgs,
    fpc: &str,
) -> miette::Result<PathBuf> {
    if !dir.is_dir() {
        return Err(miette!("{} is not a folder", dir.display()));
    }
    let project = find_library_project(dir)?;
    let project_name = project
        .as_ref()
        .and_then(|p| p.file_stem())
        .and_then(|s| s.to_str())
        .map(str::to_string);
    let units = expand_paths(&[dir.to_path_buf()])?;
    // The library's name is decided before generating, so the manifest embedded by a first
    // build (which writes the project file) equals the one of every later build.
    let unit_stems: Vec<String> = units
        .iter()
        .filter_map(|u| u.file_stem().and_then(|s| s.to_str()).map(str::to_string))
        .collect();
    let library_name = match (&project_name, name) {
        (Some(stem), _) => stem.clone(),
        (None, given) => {
            let base = identifier(
                given.unwrap_or_else(|| unit_stems.first().map(String::as_str).unwrap_or("Tools")),
            );
            // A library may not share its name with one of its units.
            if unit_stems.iter().any(|u| u.eq_ignore_ascii_case(&base)) {
                format!("{base}Lib")
            } else {
                base
            }
        }
    };
    let name = name.unwrap_or(&library_name);
    let Some((generated, loaded)) = generate(&units, Some(name), source)? else {
        return Err(miette!("code generation failed for {}", dir.display()));
    };
    let generated_dir = dir.join(GENERATED_DIR);
    write_files(&generated_dir, &generated.files)?;

    let project = match project {
        Some(project) => {
            let text = std::fs::read(&project)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .unwrap_or_default();
            if !text.contains("McpExports.inc") {
                eprintln!(
                    "warning: {} does not include the exports: add `{{$I {GENERATED_DIR}/McpExports.inc}}` after its uses clause, and `McpRuntime, McpExports` to the uses clause (with `{{$IFDEF FPC}}{{$IFDEF UNIX}}cthreads, fpwidestring,{{$ENDIF}}{{$ENDIF}}` first)",
                    project.display()
                );
            }
            project
        }
        None => {
            let listed: Vec<LibraryUnit> = loaded
                .units
                .iter()
                .map(|(unit, path, _)| LibraryUnit {
                    name: unit.name.to_string(),
                    path: path.clone(),
                })
                .collect();
            let text = render_library(&library_name, &listed, GENERATED_DIR)
                .map_err(|e| miette!("{e}"))?;
            let path = dir.join(format!("{library_name}.dpr"));
            std::fs::write(&path, text)
                .into_diagnostic()
                .map_err(|e| e.context(format!("writing {}", path.display())))?;
            eprintln!("wrote library project {}", path.display());
            path
        }
    };

    let build_dir = dir.join(BUILD_DIR);
    let units_dir = build_dir.join("units");
    std::fs::create_dir_all(&units_dir)
        .into_diagnostic()
        .map_err(|e| e.context(format!("creating {}", units_dir.display())))?;
    let stem = project
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or(&library_name)
        .to_string();
    let library = build_dir.join(format!(
        "{}{stem}{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));

    let mut inputs = files_with_extensions(dir, &["pas", "inc", "dpr", "lpr", "pp"]);
    inputs.extend(files_with_extensions(&generated_dir, &["pas", "inc"]));
    let newest_input = newest_mtime(inputs);
    let built = std::fs::metadata(&library).and_then(|m| m.modified()).ok();
    if let (Some(input), Some(built)) = (newest_input, built) {
        if built >= input {
            eprintln!("{} is up to date", library.display());
            return Ok(library);
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
        absolute(&project),
    );
    let mut command = Command::new(fpc);
    command
        .current_dir(&dir)
        .arg("-Mdelphiunicode")
        .arg("-Cg")
        .arg("-O2")
        .arg("-vew")
        .arg(format!("-Fu{}", dir.display()))
        .arg(format!("-Fu{}", generated_dir.display()))
        .arg(format!("-Fi{}", dir.display()))
        .arg(format!("-Fi{}", generated_dir.display()))
        .arg(format!("-FU{}", units_dir.display()))
        .arg(format!("-FE{}", build_dir.display()))
        .arg(format!("-o{}", library_abs.display()))
        .arg(&project);
    for include in &source.include_dirs {
        command.arg(format!("-Fi{}", include.display()));
    }
    for define in &source.defines {
        command.arg(format!("-d{define}"));
    }
    eprintln!("compiling {} with {fpc}", project.display());
    let output = command
        .output()
        .map_err(|e| miette!("could not run `{fpc}`: {e} (install Free Pascal 3.2.2)"))?;
    if !output.status.success() {
        eprint!("{}", String::from_utf8_lossy(&output.stdout));
        eprint!("{}", String::from_utf8_lossy(&output.stderr));
        return Err(miette!(
            "{fpc} failed to compile {} ({})",
            project.display(),
            output.status
        ));
    }
    if !library.is_file() {
        return Err(miette!(
            "{fpc} succeeded but {} was not written",
            library.display()
        ));
    }
    Ok(library)
}

/// Runs the command.
pub fn run(args: Args) -> miette::Result<ExitCode> {
    let library = build_project(&args.dir, args.name.as_deref(), &args.source, &args.fpc)?;
    println!("{}", library.display());
    Ok(ExitCode::SUCCESS)
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
}
