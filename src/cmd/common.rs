//! Options shared by the commands that read Pascal sources.

use std::path::PathBuf;

/// How to read the units: symbols, include folders, compiler target, code page.
#[derive(Debug, Clone, clap::Args)]
pub struct SourceArgs {
    /// Define a conditional symbol (repeatable).
    #[arg(short = 'D', long = "define", value_name = "SYM")]
    pub defines: Vec<String>,
    /// Undefine a conditional symbol, also a predefined one (repeatable).
    #[arg(short = 'U', long = "undefine", value_name = "SYM")]
    pub undefines: Vec<String>,
    /// Folder searched for `{$I file}` includes (repeatable).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// Compiler whose predefined symbols apply: delphi12-win64 (default), delphi12-win32,
    /// delphi12-linux64, fpc-linux64, ...
    #[arg(long, value_name = "TARGET", default_value = "delphi12-win64")]
    pub target: String,
    /// Code page of files without a BOM that are not valid UTF-8 (default 1252).
    #[arg(long, value_name = "N")]
    pub codepage: Option<u16>,
}

impl SourceArgs {
    /// The parser options these arguments select.
    pub fn parse_options(&self) -> delphi_mcp_parser::ParseOptions {
        let defaults = delphi_mcp_parser::ParseOptions::default();
        delphi_mcp_parser::ParseOptions {
            target: self.target.clone(),
            defines: self.defines.clone(),
            undefines: self.undefines.clone(),
            include_dirs: self.include_dirs.clone(),
            codepage: self.codepage.unwrap_or(defaults.codepage),
        }
    }
}

/// Extensions of the Pascal files a folder argument is searched for.
pub const PASCAL_EXTENSIONS: &[&str] = &["pas", "dpr", "dpk", "lpr"];

/// The files named by `paths`: files as given, folders searched recursively for
/// [`PASCAL_EXTENSIONS`]; sorted, without duplicates.
pub fn collect_sources(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            if path.is_dir() {
                walk(&path, out)?;
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| PASCAL_EXTENSIONS.iter().any(|x| e.eq_ignore_ascii_case(x)))
            {
                out.push(path);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, &mut out)
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        } else {
            out.push(path.clone());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}
